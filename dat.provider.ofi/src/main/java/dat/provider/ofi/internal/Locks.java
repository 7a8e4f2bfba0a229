package dat.provider.ofi.internal;

import java.util.concurrent.locks.ReentrantLock;

/** Lock acquisition for the data path. */
final class Locks {

    private Locks() {
    }

    /**
     * Takes {@code lock} spinning on {@code tryLock} first: a {@link ReentrantLock} that queues a
     * thread allocates its queue node, and on the data path the holder (the event thread's read of
     * a CQ, another consumer's post or dequeue) is out in microseconds. A holder the scheduler took
     * off its CPU (two threads on a core) is given the core by yielding, for up to
     * {@link #YIELD_NANOS}; only a longer wait queues.
     */
    static void lockSpinning(ReentrantLock lock) {
        for (int spins = 0; spins < 10_000; spins++) {
            if (lock.tryLock()) {
                return;
            }
            Thread.onSpinWait();
        }
        long start = System.nanoTime();
        do {
            Thread.yield();
            if (lock.tryLock()) {
                return;
            }
        } while (System.nanoTime() - start < YIELD_NANOS);
        lock.lock();
    }

    /** How long {@link #lockSpinning} yields before it queues: a few of the scheduler's time slices. */
    private static final long YIELD_NANOS = 20_000_000L;
}
