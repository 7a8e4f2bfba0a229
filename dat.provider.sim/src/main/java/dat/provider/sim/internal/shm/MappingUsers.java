package dat.provider.sim.internal.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The threads inside one connection's mappings (its ring file and the peer files it mapped), so
 * that the mappings go only once none is inside. Closing a shared arena under a thread that reads
 * it is not merely an {@link IllegalStateException} in that thread: the JDK unwinds the access
 * with an asynchronous exception and sets the thread's interrupt status, which a consumer's thread
 * would keep (its next blocking call would end at once, an NIO channel it then uses would close).
 * So a thread {@link #enter}s before it touches the mappings and {@link #exit}s after; a
 * retirement that finds a thread inside leaves the unmapping to the last one out.
 *
 * <p>The count and the retired flag are a Dekker pair: an entering thread adds itself, then looks
 * at the flag; the retiring thread sets the flag, then looks at the count. Both are sequentially
 * consistent accesses, so one of the two sees the other: either the thread backs out, or the
 * retirement leaves the unmapping to it.
 */
final class MappingUsers {

    private static final VarHandle INSIDE;
    private static final VarHandle UNMAPPED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            INSIDE = l.findVarHandle(MappingUsers.class, "inside", int.class);
            UNMAPPED = l.findVarHandle(MappingUsers.class, "unmapped", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Runnable unmap;
    @SuppressWarnings("unused") // through INSIDE
    private volatile int inside;
    private volatile boolean retired;
    @SuppressWarnings("unused") // through UNMAPPED
    private volatile boolean unmapped;

    /** @param unmap what ends the mappings; run once, by whichever thread is last */
    MappingUsers(Runnable unmap) {
        this.unmap = unmap;
    }

    /**
     * Before a thread touches the mappings.
     *
     * @return {@code false} when they are retired: the thread must not touch them (and must not call {@link #exit})
     */
    boolean enter() {
        INSIDE.getAndAdd(this, 1);
        if (retired) {
            exit();
            return false;
        }
        return true;
    }

    /** After a thread that {@link #enter}ed is done with the mappings: the last one out after the retirement unmaps. */
    void exit() {
        if ((int) INSIDE.getAndAdd(this, -1) == 1 && retired) {
            unmapOnce();
        }
    }

    /** No thread enters from now on; the mappings go now, or when the last thread inside leaves (idempotent). */
    void retire() {
        retired = true;
        if ((int) INSIDE.getVolatile(this) == 0) {
            unmapOnce();
        }
    }

    /** Whether the mappings are retired (they may still be in use until the last thread leaves). */
    boolean retired() {
        return retired;
    }

    private void unmapOnce() {
        if (UNMAPPED.compareAndSet(this, false, true)) {
            unmap.run();
        }
    }
}
