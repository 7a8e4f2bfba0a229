package dat.provider.sim.internal.shm;

import dat.provider.sim.internal.core.RemoteWindow;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * What a shared-memory connection tells the fences of dat_lmr_free(3DAT) and of RMR revocation,
 * without a lock: the window a copy in progress goes through (every copy runs under the
 * connection's Endpoint lock, so there is at most one), and the ranges of this side's memory
 * that requests in flight hand the peer by reference.
 *
 * <p>A copy through a window publishes the window ({@link #mark}) <em>before</em> it checks that
 * the window is valid; a revocation marks the window first and then looks here. So either the
 * copy sees the revocation, or the revocation sees the copy and waits for it: never longer than
 * one copy. A copy of an LMR's memory publishes nothing: dat_lmr_free marks the LMR freed and then
 * takes the Endpoint's lock once ({@link ShmSession#fence}), which the copy in progress holds
 * and the next one takes after it, and then finds the LMR freed. Revocation cannot do the same:
 * a bind's completion revokes the old window with the Endpoint's lock held.
 */
final class Fences {

    private static final VarHandle WINDOW;

    static {
        try {
            WINDOW = MethodHandles.lookup().findVarHandle(Fences.class, "window", RemoteWindow.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The window of the copy in progress, or {@code null}. */
    @SuppressWarnings("unused")
    private volatile RemoteWindow window;
    // this side's memory that requests in flight hand the peer by reference: their union and count
    private volatile long sharedFrom = Long.MAX_VALUE;
    private volatile long sharedTo;
    private volatile int sharedInFlight;

    /**
     * Publishes the copy through {@code w} about to run, with a full fence: the window's check that
     * follows sees a revocation marked before, and a revocation that looks after sees this mark.
     */
    void mark(RemoteWindow w) {
        WINDOW.setVolatile(this, w);
    }

    /** The copy through the window is over. */
    void unmark() {
        WINDOW.setRelease(this, null);
    }

    /** Whether a copy in progress goes through {@code w}. */
    boolean copyingThrough(RemoteWindow w) {
        return WINDOW.getVolatile(this) == w;
    }

    /** Under the Endpoint lock: a request handing [start, end) by reference went on the ring. */
    void shareStarted(long start, long end) {
        if (start < sharedFrom) {
            sharedFrom = start;
        }
        if (end > sharedTo) {
            sharedTo = end;
        }
        sharedInFlight++;
    }

    /** Under the Endpoint lock: such a request completed (or all of them left the wire). */
    void shareEnded(boolean all) {
        int n = all ? 0 : Math.max(0, sharedInFlight - 1);
        sharedInFlight = n;
        if (n == 0) {
            sharedFrom = Long.MAX_VALUE;
            sharedTo = 0;
        }
    }

    /** Whether requests in flight may still have the peer read [start, end). */
    boolean sharing(long start, long end) {
        return sharedInFlight > 0 && sharedFrom < end && start < sharedTo;
    }

    /** Waits out a copy through {@code w}: one copy at most. */
    void awaitCopiesThrough(RemoteWindow w) {
        for (int spins = 0; copyingThrough(w); spins++) {
            backOff(spins);
        }
    }

    /** Spins a little, then parks 10 µs at a time: the wait for another thread's copy. */
    static void backOff(int spins) {
        if (spins < 100) {
            Thread.onSpinWait();
        } else {
            LockSupport.parkNanos(10_000);
        }
    }
}
