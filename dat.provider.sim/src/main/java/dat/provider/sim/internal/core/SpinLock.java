package dat.provider.sim.internal.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A test-and-test-and-set lock for the data path: critical sections are a few field writes or one
 * memory copy, so spinning beats parking, and unlike {@code ReentrantLock} it never allocates a
 * queue node under contention. Not reentrant. After a while of spinning it yields, so that a
 * holder preempted on the same core can finish.
 */
public final class SpinLock {

    private static final VarHandle STATE = FieldHandles.of(MethodHandles.lookup(), SpinLock.class, "state", long.class);

    // padding keeps the hot lock word off the cache lines of neighbouring objects; the word is a
    // long, as the padding is: the JVM lays a smaller field into the gap after the object header,
    // where it would share a line with the end of the object allocated before this one
    @SuppressWarnings("unused")
    private long p1, p2, p3, p4, p5, p6, p7;
    private volatile long state;
    @SuppressWarnings("unused")
    private long q1, q2, q3, q4, q5, q6, q7;

    public void lock() {
        if (STATE.compareAndSet(this, 0L, 1L)) {
            return;
        }
        int spins = 0;
        for (;;) {
            while (state != 0) {
                if (++spins < 200) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
            if (STATE.compareAndSet(this, 0L, 1L)) {
                return;
            }
        }
    }

    public boolean tryLock() {
        return state == 0 && STATE.compareAndSet(this, 0L, 1L);
    }

    public void unlock() {
        STATE.setRelease(this, 0L);
    }

    public boolean isLocked() {
        return state != 0;
    }
}
