package dat.shell.internal.perf;

import java.util.function.LongSupplier;

/**
 * A warm-up that lasts until the JIT has settled. Code that runs once per operation (a
 * connection's setup and end) is compiled by C2 only after thousands of operations, and while the
 * compiler threads of both processes work they take CPUs from the threads being measured: on a
 * two-CPU machine, a figure timed right after a fixed warm-up measured the compilers as much as
 * the connections. So after its fixed part the warm-up goes on until {@link JitSettle} finds the
 * JIT settled, or {@code atMostNanos} has passed. A peer process compiles the same paths at the
 * same rate.
 */
final class JitWarmUp {

    /**
     * The longest warm-up, the JIT settled or not: on this project's two-CPU VM the compilers of
     * both processes worked on the connection path for 4 to 5 s of connections over TCP.
     */
    static final long LIMIT_NANOS = 12_000_000_000L;

    private JitWarmUp() {
    }

    /**
     * Runs {@code operation} at least {@code atLeastOperations} times and for {@code atLeastNanos},
     * then until the JIT has settled, or until {@code atMostNanos} have passed in all.
     *
     * @return how many operations ran
     */
    static long run(Runnable operation, long atLeastOperations, long atLeastNanos, long atMostNanos) {
        return run(operation, atLeastOperations, atLeastNanos, atMostNanos, System::nanoTime, JitSettle.jvmCompiledMillis());
    }

    /**
     * {@link #run(Runnable, long, long, long)} against a clock and a compilers' account of its
     * caller's (tests give their own, so that they assert what ran, not how long it took).
     *
     * @param clock nanoseconds, as {@link System#nanoTime}
     * @param compiledMillis the compilers' total time so far in milliseconds (see {@link JitSettle});
     *     {@code null} where the JVM does not account it (the warm-up then ends after its fixed part)
     */
    static long run(Runnable operation, long atLeastOperations, long atLeastNanos, long atMostNanos, LongSupplier clock,
            LongSupplier compiledMillis) {
        JitSettle settle = new JitSettle(clock.getAsLong(), atLeastNanos, atMostNanos, compiledMillis);
        long operations = 0;
        while (operations < atLeastOperations || !settle.settledAt(clock.getAsLong())) {
            operation.run();
            operations++;
        }
        return operations;
    }
}
