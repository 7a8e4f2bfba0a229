package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.core.FieldHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The initiator side's wait after the target refused a send as receiver-not-ready (RC's RNR NAK):
 * the Endpoint rewound its requests, and they go out again after a backoff that doubles from
 * {@link #MIN_NANOS} to {@link #MAX_NANOS} while the same send is refused again, without end, as
 * the in-JVM fabric waits for the receive.
 */
final class RnrBackoff {

    private static final long MIN_NANOS = 50_000;
    private static final long MAX_NANOS = 10_000_000;
    private static final long NONE = Long.MIN_VALUE;
    private static final VarHandle RETRY_AT = FieldHandles.of(MethodHandles.lookup(), RnrBackoff.class, "retryAt", long.class);

    /** No request goes out before this time ({@link System#nanoTime}); {@link #NONE}: none. */
    private volatile long retryAt = NONE;
    /** The next backoff (under the Endpoint's lock). */
    private long nextNanos = MIN_NANOS;
    /** The send the last refusal was for (under the Endpoint's lock). */
    private long refusedSeq = -1;

    /**
     * Under the Endpoint's lock: the send {@code seq} was refused.
     *
     * @return when the requests may go again
     */
    long refused(long seq) {
        if (seq != refusedSeq) {
            refusedSeq = seq;
            nextNanos = MIN_NANOS;
        }
        long backoff = nextNanos;
        nextNanos = Math.min(backoff * 2, MAX_NANOS);
        long at = System.nanoTime() + backoff;
        retryAt = at == NONE ? at + 1 : at;
        return at;
    }

    /** A request was acknowledged: the next refusal starts from the shortest backoff. */
    void acknowledged() {
        nextNanos = MIN_NANOS;
    }

    /**
     * Whether a backoff runs. The clock is read only while one may: once it is over the mark is
     * cleared (unless a newer refusal set another meanwhile), so later requests read none.
     */
    boolean active() {
        long at = retryAt;
        if (at == NONE) {
            return false;
        }
        if (at - System.nanoTime() > 0) {
            return true;
        }
        RETRY_AT.compareAndSet(this, at, NONE);
        return false;
    }

    /** When the running backoff ends, or {@link Long#MIN_VALUE} when none runs. */
    long retryAt() {
        return retryAt;
    }
}
