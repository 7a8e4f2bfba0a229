package dat.provider.ofi.internal;

/**
 * How long a waiter of one EVD spins before it blocks: {@link OfiIa#SPIN_NANOS} while its waits
 * end within that time (a ping-pong's answer), not at all once {@link #LONG_WAITS} waits in a row
 * lasted longer (a stream of RDMA writes, whose completions come a write's time apart). Each
 * spin there read the CQ for the whole window and then blocked anyway: on a 2-core host, CPU time
 * the sending thread's own kernel work (both ends of a loopback socket) and the target needed. A
 * wait that ends within the window, blocked or not, brings the spinning back. Guarded by the EVD's
 * lock.
 */
final class SpinWindow {

    /** Waits in a row longer than the window after which a waiter blocks at once. */
    static final int LONG_WAITS = 4;

    private int longWaits;

    /** @return until when a wait that starts at {@code start} spins */
    long spinUntil(long start) {
        return longWaits >= LONG_WAITS ? start : start + OfiIa.SPIN_NANOS;
    }

    /** A wait ended (with its events, or timed out) after {@code nanos}. */
    void waited(long nanos) {
        if (nanos < OfiIa.SPIN_NANOS) {
            longWaits = 0;
        } else if (longWaits < LONG_WAITS) {
            longWaits++;
        }
    }
}
