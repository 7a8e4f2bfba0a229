package dat.provider.sim.internal.shm;

import dat.provider.sim.internal.core.RemoteWindow;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * What a shared-memory connection tells the fences of dat_lmr_free(3DAT) and of RMR revocation,
 * without a lock: the consumer memory a copy in progress reads or writes (every copy runs under
 * the connection's Endpoint lock, so there is at most one), and the ranges of this side's memory
 * that requests in flight hand the peer by reference.
 *
 * <p>A copy publishes its range and window ({@link #mark}) <em>before</em> it checks that the
 * LMR is not freed, the window valid and the Endpoint still connected through this connection;
 * a free or revocation marks its object first and then looks here. So either the copy sees the
 * mark, or the fence sees the copy and waits for it: never longer than one copy.
 */
final class Fences {

    private static final VarHandle WINDOW;
    private static final VarHandle FROM;
    private static final VarHandle TO;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            WINDOW = l.findVarHandle(Fences.class, "window", RemoteWindow.class);
            FROM = l.findVarHandle(Fences.class, "from", long.class);
            TO = l.findVarHandle(Fences.class, "to", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // the copy in progress: [from, to) native addresses through window (or none); to = 0 when none
    @SuppressWarnings("unused")
    private volatile RemoteWindow window;
    @SuppressWarnings("unused")
    private volatile long from;
    @SuppressWarnings("unused")
    private volatile long to;
    // this side's memory that requests in flight hand the peer by reference: their union and count
    private volatile long sharedFrom = Long.MAX_VALUE;
    private volatile long sharedTo;
    private volatile int sharedInFlight;

    /**
     * Publishes the copy about to run (window first, "to" last), then a full fence: the copy's
     * checks that follow see a free or revocation marked before, and a fence that looks after sees
     * this mark.
     */
    void mark(RemoteWindow w, long start, long length) {
        WINDOW.setOpaque(this, w);
        FROM.setOpaque(this, start);
        TO.setOpaque(this, start + Math.max(1, length));
        VarHandle.fullFence();
    }

    /** The copy is over ("to" first). */
    void unmark() {
        TO.setRelease(this, 0L);
        FROM.setOpaque(this, 0L);
        WINDOW.setOpaque(this, null);
    }

    /** Whether a copy in progress reads or writes [start, end). */
    boolean copying(long start, long end) {
        long t = (long) TO.getVolatile(this);
        long f = (long) FROM.getVolatile(this);
        return t != 0 && f < end && start < t;
    }

    /** Whether a copy in progress goes through {@code w}. */
    boolean copyingThrough(RemoteWindow w) {
        return (long) TO.getVolatile(this) != 0 && WINDOW.getVolatile(this) == w;
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
