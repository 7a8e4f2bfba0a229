/**
 * JMH benchmarks of the DAT providers. Each figure has a baseline measured in the same run
 * ({@code MemorySegment.copy}, a raw two-thread spin ping-pong); see docs/sim-provider.md.
 */
package dat.benchmarks;
