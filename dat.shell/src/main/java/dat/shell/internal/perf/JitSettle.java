package dat.shell.internal.perf;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/**
 * When a warm-up that waits for the JIT may end: after its fixed part, slice after slice of
 * {@link #SLICE_NANOS}, until a slice passes in which this JVM's compilers worked for less than
 * {@link #SETTLED_SHARE} of it, or until a bound has passed. The compilers' work is their account
 * of it ({@link CompilationMXBean#getTotalCompilationTime}), read once per slice; the warm-up asks
 * after each of its operations ({@link #settledAt}) and ends at the first {@code true}.
 *
 * <p>Why a warm-up needs it: on two CPUs that two benchmark threads keep busy, the compilers get
 * what the scheduler leaves them, and a compilation takes that much longer. A path that changes
 * what the compiled code has seen (an RDMA write after sends) leaves that code through an
 * uncommon trap, and C2's code for the new path came more than 500 ms later in one run of
 * {@code dat perf}; a figure timed after a fixed warm-up then timed the profiling tier (1.8 µs
 * where the compiled path takes 0.2 µs).
 */
final class JitSettle {

    /** One look at the compilers' work. */
    static final long SLICE_NANOS = 500_000_000L;
    /** The compilers' share of a slice below which the JIT counts as settled. */
    static final double SETTLED_SHARE = 0.05;

    private final long startNanos;
    private final long fixedNanos;
    private final long atMostNanos;
    private final LongSupplier compiledMillis;
    private boolean slicing;
    private long sliceStart;
    private long compiledAtSliceStart;

    /**
     * @param startNanos the warm-up's start, by the clock whose readings {@link #settledAt} gets
     * @param fixedNanos the warm-up's fixed part, which runs whatever the JIT does
     * @param atMostNanos how long after {@code startNanos} the JIT counts as settled, settled or
     *     not; checked when a slice ends, so a warm-up outlasts it by one slice at most
     * @param compiledMillis the compilers' total time so far in milliseconds, as
     *     {@link CompilationMXBean#getTotalCompilationTime}; {@code null} where the JVM does not
     *     account it (settled once the fixed part has passed)
     */
    JitSettle(long startNanos, long fixedNanos, long atMostNanos, LongSupplier compiledMillis) {
        this.startNanos = startNanos;
        this.fixedNanos = fixedNanos;
        this.atMostNanos = atMostNanos;
        this.compiledMillis = compiledMillis;
    }

    /** This JVM's compilers' account, or {@code null} where it keeps none. */
    static LongSupplier jvmCompiledMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit == null || !jit.isCompilationTimeMonitoringSupported() ? null : jit::getTotalCompilationTime;
    }

    /**
     * Whether the warm-up may end, at clock reading {@code now}: {@code false} during the fixed
     * part; the first call after it starts the first slice (unless the bound has passed already);
     * later calls answer {@code false} until a slice has passed, then judge it.
     */
    boolean settledAt(long now) {
        if (now - startNanos < fixedNanos) {
            return false;
        }
        if (compiledMillis == null) {
            return true;
        }
        if (!slicing) {
            if (now - startNanos >= atMostNanos) {
                return true;
            }
            slicing = true;
            sliceStart = now;
            compiledAtSliceStart = compiledMillis.getAsLong();
            return false;
        }
        if (now - sliceStart < SLICE_NANOS) {
            return false;
        }
        long compiled = compiledMillis.getAsLong();
        if ((compiled - compiledAtSliceStart) * 1e6 < SETTLED_SHARE * (now - sliceStart) || now - startNanos >= atMostNanos) {
            return true;
        }
        sliceStart = now;
        compiledAtSliceStart = compiled;
        return false;
    }
}
