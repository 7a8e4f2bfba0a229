package dat.tests.conformance.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What dat_evd_wait(3DAT) says of notifications: a waiter stays blocked past a completion that is
 * no notification (unsignalled, unsolicited on a {@code SOLICITED_WAIT} stream) and ends at the
 * next notification, taking the events in order.
 */
public final class NotificationWaits {

    /** The deviation of a provider whose waiters an unsignalled completion may unblock. */
    public static final String UNSIGNALLED_NOTIFICATION = "unsignalled_notification";
    /** The deviation of a provider whose waiters an unsolicited receive may unblock. */
    public static final String SOLICITED_WAIT_NOTIFICATION = "solicited_wait_notification";

    private NotificationWaits() {
    }

    /**
     * A waiter on {@code evd} stays blocked past the event {@code quiet} causes (a completion that
     * is no notification: {@code quiet} returns once the transfer is done at the other end) and
     * ends at the notification {@code notifying} causes, taking the quiet event ({@code firstCookie})
     * first. A provider that declares {@code deviation} may end the wait at the quiet event.
     *
     * @return the event the waiter took
     */
    public static DatEvent expectOnlyTheNotificationEnds(IaUnderTest t, EventDispatcher evd, String deviation, String quietEvent,
            long firstCookie, Runnable quiet, Runnable notifying) throws Exception {
        DatEvent taken = new DatEvent();
        CompletableFuture<Integer> waiter = startWaiter(t, evd, taken);
        quiet.run();
        // the transfer is done: its event is queued here as it lands, or soon after
        Waiters.sleepMillis(200);
        if (waiter.isDone()) {
            String observed = "dat_evd_wait returned on " + quietEvent + " (" + DatReturn.describe(waiter.join()) + ", user_cookie "
                    + taken.userCookie() + ")";
            t.check(waiter.join() == DatReturn.SUCCESS && taken.userCookie() == firstCookie, observed);
            t.skipAsDeclared(deviation, observed);
        }
        notifying.run();
        int code;
        try {
            code = waiter.get(10, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw t.failure("the dat_evd_wait did not return within 10 s of the notification");
        }
        t.expectSuccess(code, "the dat_evd_wait the notification ends");
        assertThat(taken.userCookie()).as(t.at("the first event the waiter takes: " + quietEvent)).isEqualTo(firstCookie);
        return taken;
    }

    /**
     * Starts a thread waiting on {@code evd} (threshold 1, long timeout) and returns once it waits:
     * a zero-timeout wait is refused as a second waiter. A waiter refused because the probe was
     * inside the EVD is started again.
     */
    private static CompletableFuture<Integer> startWaiter(IaUnderTest t, EventDispatcher evd, DatEvent into) {
        long deadline = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(IaUnderTest.EVENT_TIMEOUT_MICROS);
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> evd.await(20_000_000L, 1, into));
        int code = evd.await(0, 1, new DatEvent());
        while (DatReturn.typeOf(code) == DatReturn.TIMEOUT_EXPIRED && System.nanoTime() < deadline) {
            if (waiter.isDone() && DatReturn.typeOf(waiter.join()) == DatReturn.INVALID_STATE) {
                waiter = CompletableFuture.supplyAsync(() -> evd.await(20_000_000L, 1, into));
            }
            Waiters.sleepMillis(5);
            code = evd.await(0, 1, new DatEvent());
        }
        t.expectCode(DatReturn.INVALID_STATE, code, "a zero-timeout dat_evd_wait while the waiter waits");
        return waiter;
    }
}
