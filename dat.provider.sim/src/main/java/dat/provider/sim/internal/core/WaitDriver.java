package dat.provider.sim.internal.core;

/**
 * Work a consumer blocked in dat_evd_wait(3DAT) may do itself instead of parking: a transport's
 * reading of the connections that feed the EVD, run on the waiter's thread, so that a message
 * wakes one thread instead of two. An EVD learns its driver from the completions a transport
 * posts ({@link SimEvd#noteDriver}).
 */
public interface WaitDriver {

    /**
     * Does the transport's work on the waiter's thread until the wait is over ({@link SimEvd#waitOver}),
     * its deadline passes, or the work is handed back.
     *
     * @param evd the EVD the caller waits on
     * @param infinite whether the wait has no deadline
     * @param deadline its deadline ({@link System#nanoTime}) when finite
     * @return whether it did any (the caller looks again); {@code false}: the caller parks
     */
    boolean drive(SimEvd evd, boolean infinite, long deadline);

    /**
     * A consumer busy-polling dat_evd_dequeue(3DAT) (or {@code poll}) found {@code evd} empty:
     * the transport moves, on the caller's thread and without blocking, what waits for the EVD
     * (a shared-memory ring's records). A transport that has nothing of the kind does nothing.
     *
     * @param evd the EVD polled
     * @return whether it moved anything (the caller looks at the queue again)
     */
    default boolean poll(SimEvd evd) {
        return false;
    }

    /** Whether the driver is gone for good (its EVDs forget it). */
    boolean isClosed();

    /** An event for the waiter came from another thread while it drove: it looks. */
    void wakeDriver();
}
