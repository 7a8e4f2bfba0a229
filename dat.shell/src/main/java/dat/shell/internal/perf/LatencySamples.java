package dat.shell.internal.perf;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The round trips of a latency ping-pong: untimed ones until the warm-up ends (a quarter of the
 * timed count, and the warm-up time, at least; then until the JIT settled, {@link JitSettle}, where
 * the caller asks for it), then {@code iterations} timed ones. The thread that times them owns
 * this; the peer reads only {@link #peerRoundTrips}.
 */
final class LatencySamples {

    private final int iterations;
    private final int minWarmup;
    private final long[] samples;
    /** The round trips the peer answers: unknown until the warm-up ends, then set once. */
    private final AtomicLong total = new AtomicLong(Long.MAX_VALUE);
    private JitSettle settle;
    /** The last untimed round trip, or -1 during the warm-up. */
    private long warmup = -1;

    LatencySamples(int iterations) {
        this.iterations = iterations;
        this.minWarmup = Math.max(100, iterations / 4);
        this.samples = new long[iterations];
    }

    /**
     * Starts the warm-up's clock, just before the first round trip: it lasts {@code warmupNanos} at
     * least, then until the JIT settled or {@code settleAtMostNanos} passed since this call (0: no
     * wait for the JIT).
     */
    void start(long warmupNanos, long settleAtMostNanos) {
        settle = new JitSettle(System.nanoTime(), warmupNanos, settleAtMostNanos, JitSettle.jvmCompiledMillis());
    }

    /** The round trips the peer answers, read again by its loop each round. */
    long peerRoundTrips() {
        return total.get();
    }

    /** Whether round trip {@code i} (from 1) is still to run. */
    boolean more(long i) {
        return warmup < 0 || i <= warmup + iterations;
    }

    /** Round trip {@code i} took {@code elapsed} nanoseconds: a sample once the warm-up is over. */
    void took(long i, long elapsed) {
        if (warmup >= 0) {
            samples[(int) (i - warmup - 1)] = elapsed;
        } else if (i >= minWarmup && settle.settledAt(System.nanoTime())) {
            warmup = i;
            total.set(i + iterations);
        }
    }

    /** The half round trips' order statistics, in microseconds. */
    Stats stats() {
        return Stats.of(samples, iterations, 0.5e-3);
    }
}
