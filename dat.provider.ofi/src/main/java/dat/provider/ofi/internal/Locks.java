package dat.provider.ofi.internal;

import java.util.concurrent.locks.ReentrantLock;

/** Lock acquisition for the data path. */
final class Locks {

    private Locks() {
    }

    /**
     * Takes {@code lock} spinning on {@code tryLock} first: a {@link ReentrantLock} that queues a
     * thread allocates its queue node, and on the data path the holder (the event thread's read of
     * a CQ, another consumer's post or dequeue) is out in microseconds. Only a long wait queues.
     */
    static void lockSpinning(ReentrantLock lock) {
        for (int spins = 0; spins < 10_000; spins++) {
            if (lock.tryLock()) {
                return;
            }
            Thread.onSpinWait();
        }
        lock.lock();
    }
}
