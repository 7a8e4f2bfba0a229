package dat.provider.ofi.internal;

import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/** Lock acquisition for the data path. */
final class Locks {

    private Locks() {
    }

    /**
     * Takes {@code lock} without ever queueing on it: a {@link ReentrantLock} that queues a thread
     * allocates its queue node, and on the data path the holder (the event thread's read of a CQ,
     * another consumer's post or dequeue) is out in microseconds. The caller spins on
     * {@code tryLock}, then yields for up to {@link #YIELD_NANOS} (a holder the scheduler took off
     * its CPU gets the core), then parks {@link #PARK_NANOS} at a time between tries: a holder
     * that stays out longer (a loaded machine, a JIT compilation on the holder's core) costs
     * latency, never an allocation.
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
        while (!lock.tryLock()) {
            LockSupport.parkNanos(PARK_NANOS);
        }
    }

    /** How long {@link #lockSpinning} yields before it parks between tries: a few of the scheduler's time slices. */
    private static final long YIELD_NANOS = 20_000_000L;
    /** How long {@link #lockSpinning} parks between tries once it stopped yielding. */
    private static final long PARK_NANOS = 50_000L;
}
