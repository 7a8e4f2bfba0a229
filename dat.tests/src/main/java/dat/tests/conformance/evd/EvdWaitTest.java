package dat.tests.conformance.evd;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.ConsumerNotificationObject;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EvdFlags;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.InterfaceAdapter;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.internal.NotificationWaits;
import dat.tests.conformance.internal.Waiters;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;

/** dat_evd_wait(3DAT). */
class EvdWaitTest {

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_SUCCESS: returns the first event and nmore, the events left")
    void waitWithQueued(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        t.expectSuccess(evd.postSoftwareEvent("first"), "dat_evd_post_se");
        t.expectSuccess(evd.postSoftwareEvent("second"), "dat_evd_post_se");
        DatEvent event = new DatEvent();
        t.expectSuccess(evd.await(IaUnderTest.EVENT_TIMEOUT_MICROS, 1, event), "dat_evd_wait with two queued events");
        assertThat(event.eventNumber()).as(t.at("event_number")).isEqualTo(EventNumber.SOFTWARE_EVENT);
        assertThat(event.softwarePointer()).as(t.at("the first event")).isEqualTo("first");
        assertThat(event.moreEvents()).as(t.at("nmore, the events left on the queue")).isEqualTo(1);
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_SUCCESS: a blocked waiter returns when an event arrives")
    void wakesOnArrival(IaUnderTest t) throws Exception {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        AtomicReference<DatEvent> received = new AtomicReference<>();
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> {
            DatEvent event = new DatEvent();
            int code = evd.await(20_000_000L, 1, event);
            received.set(event);
            return code;
        });
        Waiters.sleepMillis(50);
        t.expectSuccess(evd.postSoftwareEvent("wake"), "dat_evd_post_se");
        t.expectSuccess(waiter.get(10, TimeUnit.SECONDS), "the blocked dat_evd_wait");
        assertThat(received.get().softwarePointer()).as(t.at("the event the waiter got")).isEqualTo("wake");
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_SUCCESS: an EVD with a CNO is waited on as any other, and the event its blocked waiter takes does not trigger the CNO")
    void waitWithCno(IaUnderTest t) throws Exception {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        EventDispatcher evd = t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        AtomicReference<Thread> waiting = new AtomicReference<>();
        AtomicReference<DatEvent> received = new AtomicReference<>();
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> {
            waiting.set(Thread.currentThread());
            DatEvent event = new DatEvent();
            int code = evd.await(20_000_000L, 1, event);
            received.set(event);
            return code;
        });
        Waiters.awaitBlocked(waiting); // the event must find the consumer waiting
        t.expectSuccess(evd.postSoftwareEvent("wake"), "dat_evd_post_se");
        t.expectSuccess(waiter.get(10, TimeUnit.SECONDS), "dat_evd_wait on an EVD with a CNO");
        assertThat(received.get().softwarePointer()).as(t.at("the event the waiter got")).isEqualTo("wake");
        t.expectError(DatReturn.QUEUE_EMPTY, "dat_cno_wait after the EVD's own waiter took the event", () -> cno.await(100_000));
        evd.close();
        cno.close();
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_SUCCESS: with a threshold it waits for that many events, and nmore is at least threshold - 1")
    void threshold(IaUnderTest t) {
        EventDispatcher evd = t.ia().createEventDispatcher(Math.min(8, t.attributes().maxEvdQlen()), null, EvdFlags.SOFTWARE);
        t.expectSuccess(evd.postSoftwareEvent(1), "dat_evd_post_se");
        DatEvent event = new DatEvent();
        int code = evd.await(100_000, 2, event);
        t.expectCode(DatReturn.TIMEOUT_EXPIRED, code, "dat_evd_wait for 2 events with 1 queued");
        assertThat(event.moreEvents()).as(t.at("nmore after the timeout: the snapshot of queued events")).isEqualTo(1);
        t.expectSuccess(evd.postSoftwareEvent(2), "dat_evd_post_se");
        t.expectSuccess(evd.await(IaUnderTest.EVENT_TIMEOUT_MICROS, 2, event), "dat_evd_wait for 2 events with 2 queued");
        assertThat(event.softwarePointer()).as(t.at("the first event")).isEqualTo(1);
        assertThat(event.moreEvents()).as(t.at("nmore is at least threshold - 1")).isGreaterThanOrEqualTo(1);
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_TIMEOUT_EXPIRED: no event within the timeout, not returned before it elapsed (dapltest connmgt 1)")
    void timeout(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        DatEvent event = new DatEvent();
        long start = System.nanoTime();
        int code = evd.await(200_000, 1, event);
        long elapsedMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
        t.expectCode(DatReturn.TIMEOUT_EXPIRED, code, "dat_evd_wait of 200 ms on an empty EVD");
        assertThat(event.moreEvents()).as(t.at("nmore after the timeout")).isZero();
        // Only the lower bound is asserted: returning early breaks the contract; returning late is a performance matter.
        assertThat(elapsedMicros).as(t.at("the wait did not end before its timeout (µs)")).isGreaterThanOrEqualTo(200_000 - 1_000);
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_TIMEOUT_EXPIRED: a timeout of zero polls: it returns at once on an empty EVD (dapltest connmgt 2)")
    void zeroTimeout(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        t.expectCode(DatReturn.TIMEOUT_EXPIRED, evd.await(0, 1, new DatEvent()), "dat_evd_wait with timeout 0 on an empty EVD");
        t.expectSuccess(evd.postSoftwareEvent("x"), "dat_evd_post_se");
        t.expectSuccess(evd.await(0, 1, new DatEvent()), "dat_evd_wait with timeout 0 and a queued event");
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_INVALID_PARAMETER: a threshold of zero")
    void zeroThreshold(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        t.expectCode(DatReturn.INVALID_PARAMETER, evd.await(1000, 0, new DatEvent()), "dat_evd_wait with threshold 0");
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_INVALID_PARAMETER: a threshold larger than the EVD's queue length")
    void thresholdAboveQueue(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        int qlen = evd.query().qlen();
        t.requireFeasible(qlen < Integer.MAX_VALUE, "the queue length is unbounded");
        t.expectCode(DatReturn.INVALID_PARAMETER, evd.await(1000, qlen + 1, new DatEvent()),
                "dat_evd_wait with threshold " + (qlen + 1) + " on a queue of " + qlen);
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_INVALID_PARAMETER: a timeout outside the DAT_TIMEOUT range")
    void badTimeout(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        t.expectCode(DatReturn.INVALID_PARAMETER, evd.await(-1, 1, new DatEvent()), "dat_evd_wait with timeout -1");
        t.expectCode(DatReturn.INVALID_PARAMETER, evd.await(DatConstants.TIMEOUT_INFINITE + 1, 1, new DatEvent()),
                "dat_evd_wait with a timeout above DAT_TIMEOUT_INFINITE");
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_INVALID_STATE: the EVD is unwaitable")
    void unwaitable(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        evd.setUnwaitable();
        t.expectCode(DatReturn.INVALID_STATE, evd.await(1000, 1, new DatEvent()), "dat_evd_wait on an unwaitable EVD");
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_INVALID_STATE: a threshold above 1 on an EVD fed by a DTO stream configured DAT_COMPLETION_UNSIGNALLED_FLAG; 1 is accepted, and so is 2 once that Endpoint is freed")
    void thresholdWithUnsignalledStream(IaUnderTest t) {
        t.requireSupported(t.supportsCompletionFlag(CompletionFlags.UNSIGNALLED), "DAT_COMPLETION_UNSIGNALLED_FLAG (completion_flags_supported)");
        t.requireSupported(t.qlen() >= 2, "an EVD of 2 entries (max_evd_qlen)");
        EventDispatcher requests = t.evd(EvdFlags.DTO);
        EpAttributes attributes = t.epAttributesBuilder().requestCompletionFlags(CompletionFlags.UNSIGNALLED).build();
        Endpoint ep = t.ia().createEndpoint(t.pz(), t.evd(EvdFlags.DTO), requests, t.evd(EvdFlags.CONNECTION), attributes);
        DatEvent event = new DatEvent();
        t.expectCode(DatReturn.INVALID_STATE, requests.await(0, 2, event), "dat_evd_wait with threshold 2 on an unsignalled request stream's EVD");
        t.expectCode(DatReturn.TIMEOUT_EXPIRED, requests.await(0, 1, event), "dat_evd_wait with threshold 1 on that EVD, empty");
        ep.close();
        t.expectCode(DatReturn.TIMEOUT_EXPIRED, requests.await(0, 2, event), "dat_evd_wait with threshold 2 once the Endpoint is freed");
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_SUCCESS: the completion of a DTO posted DAT_COMPLETION_UNSIGNALLED_FLAG does not unblock a"
            + " waiter; the next notification event does, and the waiter takes the events in order")
    void unsignalledCompletionDoesNotUnblock(IaUnderTest t) throws Exception {
        Connection c = t.unsignalledConnection();
        postTwoReceives(t, c);
        NotificationWaits.expectOnlyTheNotificationEnds(t, c.active.requestEvd, NotificationWaits.UNSIGNALLED_NOTIFICATION, "the completion of an unsignalled send", 10, () -> {
            t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 64), 10, CompletionFlags.UNSIGNALLED), "an unsignalled dat_ep_post_send");
            t.success(c.passive.recvEvd, "the unsignalled send's message");
        }, () -> t.expectSuccess(c.active.ep.postSend(1, c.active.iov(64, 64), 11, CompletionFlags.DEFAULT), "a notifying dat_ep_post_send"));
        DatEvent second = t.success(c.active.requestEvd, "the notifying send's completion");
        assertThat(second.userCookie()).as(t.at("user_cookie of the second completion")).isEqualTo(11);
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_SUCCESS: on a receive stream configured DAT_COMPLETION_SOLICITED_WAIT_FLAG, an unsolicited"
            + " message's completion does not unblock a waiter; a solicited one's does, and the waiter takes the events in order")
    void unsolicitedReceiveDoesNotUnblock(IaUnderTest t) throws Exception {
        t.requireSupported(t.supportsCompletionFlag(CompletionFlags.SOLICITED_WAIT), "DAT_COMPLETION_SOLICITED_WAIT_FLAG (completion_flags_supported)");
        EpAttributes attributes = t.epAttributesBuilder().recvCompletionFlags(CompletionFlags.SOLICITED_WAIT).build();
        Connection c = t.connection().attributes(attributes).connect();
        postTwoReceives(t, c);
        NotificationWaits.expectOnlyTheNotificationEnds(t, c.passive.recvEvd, NotificationWaits.SOLICITED_WAIT_NOTIFICATION, "the receive of an unsolicited message", 0, () -> {
            t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 64), 10, CompletionFlags.DEFAULT), "an unsolicited dat_ep_post_send");
            t.success(c.active.requestEvd, "the unsolicited send's completion");
        }, () -> t.expectSuccess(c.active.ep.postSend(1, c.active.iov(64, 64), 11, CompletionFlags.SOLICITED_WAIT),
                "a solicited dat_ep_post_send"));
        DatEvent second = t.success(c.passive.recvEvd, "the solicited message's receive");
        assertThat(second.userCookie()).as(t.at("user_cookie of the second receive")).isEqualTo(1);
        t.success(c.active.requestEvd, "the solicited send's completion");
    }

    /** Two 64-byte receives at the passive side, cookies 0 and 1. */
    private static void postTwoReceives(IaUnderTest t, Connection c) {
        for (int i = 0; i < 2; i++) {
            t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(i * 64L, 64), i, CompletionFlags.DEFAULT), "dat_ep_post_recv " + i);
        }
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_INVALID_STATE: there is already a waiter on the EVD")
    void secondWaiter(IaUnderTest t) throws Exception {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> evd.await(20_000_000L, 1, new DatEvent()));
        int code = evd.await(0, 1, new DatEvent());
        // A zero-timeout wait barely holds the EVD: until the first waiter blocks it merely times out
        // (and a first waiter that arrived during it was rightly refused, so it is started again).
        while (DatReturn.typeOf(code) == DatReturn.TIMEOUT_EXPIRED && System.nanoTime() < deadline) {
            if (first.isDone()) {
                first = CompletableFuture.supplyAsync(() -> evd.await(20_000_000L, 1, new DatEvent()));
            }
            Waiters.sleepMillis(5);
            code = evd.await(0, 1, new DatEvent());
        }
        t.expectCode(DatReturn.INVALID_STATE, code, "a second dat_evd_wait while another thread waits");
        t.expectSuccess(evd.postSoftwareEvent("release"), "dat_evd_post_se to release the first waiter");
        t.expectSuccess(first.get(10, TimeUnit.SECONDS), "the first waiter's dat_evd_wait");
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_ABORT: the IA is closed while the consumer waits")
    void abortOnClose(IaUnderTest t) throws Exception {
        InterfaceAdapter ia = t.open();
        EventDispatcher evd = ia.createEventDispatcher(t.qlen(), null, EvdFlags.SOFTWARE);
        AtomicReference<Thread> waiting = new AtomicReference<>();
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> {
            waiting.set(Thread.currentThread());
            return evd.await(20_000_000L, 1, new DatEvent());
        });
        Waiters.sleepMillis(100);
        Waiters.awaitBlocked(waiting); // the close must find the consumer waiting, not on its way to the wait
        ia.close();
        t.expectCode(DatReturn.ABORT, waiter.get(10, TimeUnit.SECONDS), "dat_evd_wait when the IA is closed");
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_INTERRUPTED_CALL: the waiting thread is interrupted (Java's signal)")
    void interrupted(IaUnderTest t) throws Exception {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        CompletableFuture<Integer> waiter = new CompletableFuture<>();
        Thread waiting = Thread.ofPlatform().daemon().start(() -> waiter.complete(evd.await(20_000_000L, 1, new DatEvent())));
        Waiters.sleepMillis(100);
        waiting.interrupt();
        t.expectCode(DatReturn.INTERRUPTED_CALL, waiter.get(10, TimeUnit.SECONDS), "dat_evd_wait of an interrupted thread");
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void freed(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        evd.close();
        t.expectCode(DatReturn.INVALID_HANDLE, evd.await(1000, 1, new DatEvent()), "dat_evd_wait on a freed EVD");
        t.expectCode(DatReturn.INVALID_HANDLE, evd.await(1000, 0, null), "dat_evd_wait on a freed EVD, threshold 0, no event: the handle is named first");
    }
}
