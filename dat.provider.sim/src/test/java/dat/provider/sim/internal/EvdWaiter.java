package dat.provider.sim.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.EventDispatcher;

/**
 * A platform thread blocked in {@code dat_evd_wait} (no timeout, threshold 1) on an EVD, returned
 * once it waits: a test that queues an event for it must not queue it before the wait began, as
 * a wait takes an event queued before it. A zero-timeout probe tells: it is refused as a second
 * waiter while the thread waits (and a wait refused because the probe was inside waits again).
 */
public final class EvdWaiter implements AutoCloseable {

    /** The event the wait returned. */
    public final DatEvent event = new DatEvent();
    private final Thread thread;
    private volatile int code = -1;

    private EvdWaiter(EventDispatcher evd) {
        thread = Thread.ofPlatform().start(() -> {
            int rc;
            do {
                rc = evd.await(DatConstants.TIMEOUT_INFINITE, 1, event);
            } while (DatReturn.typeOf(rc) == DatReturn.INVALID_STATE);
            code = rc;
        });
    }

    /** Starts a waiter on {@code evd} and returns once it waits (at most 5 s). */
    public static EvdWaiter waitingOn(EventDispatcher evd) throws InterruptedException {
        EvdWaiter w = new EvdWaiter(evd);
        DatEvent probe = new DatEvent();
        for (long deadline = System.nanoTime() + 5_000_000_000L; DatReturn.typeOf(evd.await(0, 1, probe)) != DatReturn.INVALID_STATE;) {
            assertThat(System.nanoTime()).as("the waiter waits within 5 s").isLessThan(deadline);
            assertThat(w.thread.isAlive()).as("the waiter waits").isTrue();
            Thread.sleep(1);
        }
        return w;
    }

    /** Whether the wait goes on. */
    public boolean waiting() {
        return thread.isAlive();
    }

    /** Asserts that the wait ends within {@code millis}; its return code. */
    public int endsWithin(long millis) throws InterruptedException {
        thread.join(millis);
        assertThat(thread.isAlive()).as("the wait ended within " + millis + " ms").isFalse();
        return code;
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}
