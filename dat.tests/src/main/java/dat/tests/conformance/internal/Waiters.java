package dat.tests.conformance.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** Waiting for another thread of a test: until it blocks in a wait, or for a while. */
public final class Waiters {

    private Waiters() {
    }

    /**
     * Waits (at most {@link IaUnderTest#EVENT_TIMEOUT_MICROS}) until a thread is parked in a provider's
     * {@code await} (an EVD's or CNO's wait), so that a test that acts on a blocked waiter (closes
     * its IA, for example) does not act before the waiter got there: a fixed head start is too
     * short on a slow machine or under emulation. A provider that blocks in another way than parking
     * gives the thread the whole bound; the test then goes on as it would have.
     *
     * @param thread where the waiting thread puts itself before it calls the wait
     */
    public static void awaitBlocked(AtomicReference<Thread> thread) {
        long deadline = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(IaUnderTest.EVENT_TIMEOUT_MICROS);
        while (System.nanoTime() < deadline) {
            Thread t = thread.get();
            if (t != null && isParkedInAwait(t)) {
                return;
            }
            sleepMillis(1);
        }
    }

    private static boolean isParkedInAwait(Thread t) {
        Thread.State state = t.getState();
        if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement frame : t.getStackTrace()) {
            if (frame.getMethodName().equals("await") && !frame.getClassName().startsWith("java.")) {
                return true;
            }
        }
        return false;
    }

    /** @param millis how long to sleep; an interrupt is kept for the caller */
    public static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
