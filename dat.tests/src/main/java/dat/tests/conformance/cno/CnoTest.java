package dat.tests.conformance.cno;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CnoParamMask;
import dat.api.CompletionFlags;
import dat.api.ConsumerNotificationObject;
import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.EpAttributes;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.HandleType;
import dat.api.InterfaceAdapter;
import dat.api.WaitProxyAgent;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.internal.NotificationWaits;
import dat.tests.conformance.internal.Waiters;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;

/**
 * dat_cno_create(3DAT), dat_cno_wait(3DAT), dat_cno_modify_agent(3DAT), dat_cno_query(3DAT),
 * dat_cno_free(3DAT): waiting on several EVDs at once, which dapltest never tests.
 */
class CnoTest {

    @ConformanceTest
    @DisplayName("dat_cno_create(3DAT) DAT_SUCCESS: a new CNO has no EVDs, no waiters, and the agent it was given")
    void create(IaUnderTest t) {
        WaitProxyAgent agent = evd -> { };
        ConsumerNotificationObject cno = t.ia().createNotificationObject(agent);
        assertThat(cno.handleType()).as(t.at("handle type")).isEqualTo(HandleType.CNO);
        assertThat(cno.query().agent()).as(t.at("the agent of the new CNO")).isSameAs(agent);
        assertThat(cno.query().ia()).as(t.at("ia_handle of the new CNO")).isSameAs(t.ia());
        assertThat(t.ia().createNotificationObject(null).query().agent()).as(t.at("DAT_OS_WAIT_PROXY_AGENT_NULL")).isNull();
        cno.close();
    }

    @ConformanceTest
    @DisplayName("dat_cno_create(3DAT) DAT_INVALID_HANDLE: the IA is closed")
    void createClosedIa(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        ia.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_cno_create on a closed IA", () -> ia.createNotificationObject(null));
    }

    @ConformanceTest
    @DisplayName("dat_cno_wait(3DAT) DAT_SUCCESS: an event on any attached EVD unblocks the waiter, which gets that EVD")
    void eventUnblocksWaiter(IaUnderTest t) throws Exception {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        EventDispatcher first = t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        EventDispatcher second = t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        CompletableFuture<EventDispatcher> waiter = CompletableFuture.supplyAsync(() -> cno.await(20_000_000L));
        Waiters.sleepMillis(50);
        t.expectSuccess(second.postSoftwareEvent("x"), "dat_evd_post_se on the second EVD");
        assertThat(waiter.get(10, TimeUnit.SECONDS)).as(t.at("the EVD dat_cno_wait returns")).isSameAs(second);
        t.noEvent(first, "an event on the first EVD");
        t.expectSuccess(second.dequeue(new DatEvent()), "dat_evd_dequeue of the event that triggered the CNO");
    }

    @ConformanceTest
    @DisplayName("dat_cno_wait(3DAT) DAT_SUCCESS: an event queued before the wait is reported at once")
    void waitAfterEvent(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        EventDispatcher evd = t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        t.expectSuccess(evd.postSoftwareEvent("x"), "dat_evd_post_se");
        assertThat(cno.await(IaUnderTest.EVENT_TIMEOUT_MICROS)).as(t.at("the EVD dat_cno_wait returns")).isSameAs(evd);
    }

    @ConformanceTest
    @DisplayName("dat_cno_wait(3DAT) DAT_SUCCESS: a waiter is unblocked with DAT_HANDLE_NULL when every EVD of the CNO is freed")
    void allEvdsFreed(IaUnderTest t) throws Exception {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        EventDispatcher evd = t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        CompletableFuture<EventDispatcher> waiter = CompletableFuture.supplyAsync(() -> cno.await(20_000_000L));
        Waiters.sleepMillis(100);
        evd.close();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).as(t.at("what dat_cno_wait returns when its EVDs are freed")).isNull();
    }

    @ConformanceTest
    @DisplayName("dat_cno_wait(3DAT) DAT_SUCCESS: the completion of a DTO posted DAT_COMPLETION_UNSIGNALLED_FLAG does not trigger"
            + " the CNO; a notifying completion does")
    void unsignalledCompletionDoesNotTrigger(IaUnderTest t) {
        Connection c = t.unsignalledConnection();
        postTwoReceives(t, c);
        expectOnlyTheNotificationTriggers(t, c.active.ia, c.active.requestEvd, NotificationWaits.UNSIGNALLED_NOTIFICATION,
                "the completion of an unsignalled send",
                10, () -> {
                    t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 64), 10, CompletionFlags.UNSIGNALLED), "an unsignalled dat_ep_post_send");
                    t.success(c.passive.recvEvd, "the unsignalled send's message");
                }, () -> t.expectSuccess(c.active.ep.postSend(1, c.active.iov(64, 64), 11, CompletionFlags.DEFAULT),
                        "a notifying dat_ep_post_send"));
        assertThat(t.success(c.active.requestEvd, "the notifying send's completion").userCookie())
                .as(t.at("user_cookie of the second completion")).isEqualTo(11);
    }

    @ConformanceTest
    @DisplayName("dat_cno_wait(3DAT) DAT_SUCCESS: on a receive stream configured DAT_COMPLETION_SOLICITED_WAIT_FLAG, an unsolicited"
            + " message's completion does not trigger the CNO; a solicited one's does")
    void unsolicitedReceiveDoesNotTrigger(IaUnderTest t) {
        t.requireSupported(t.supportsCompletionFlag(CompletionFlags.SOLICITED_WAIT), "DAT_COMPLETION_SOLICITED_WAIT_FLAG (completion_flags_supported)");
        EpAttributes attributes = t.epAttributesBuilder().recvCompletionFlags(CompletionFlags.SOLICITED_WAIT).build();
        Connection c = t.connection().attributes(attributes).connect();
        postTwoReceives(t, c);
        expectOnlyTheNotificationTriggers(t, c.passive.ia, c.passive.recvEvd, NotificationWaits.SOLICITED_WAIT_NOTIFICATION,
                "the receive of an unsolicited message",
                0, () -> {
                    t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 64), 10, CompletionFlags.DEFAULT), "an unsolicited dat_ep_post_send");
                    t.success(c.active.requestEvd, "the unsolicited send's completion");
                }, () -> t.expectSuccess(c.active.ep.postSend(1, c.active.iov(64, 64), 11, CompletionFlags.SOLICITED_WAIT),
                        "a solicited dat_ep_post_send"));
        assertThat(t.success(c.passive.recvEvd, "the solicited message's receive").userCookie())
                .as(t.at("user_cookie of the second receive")).isEqualTo(1);
        t.success(c.active.requestEvd, "the solicited send's completion");
    }

    /** Two 64-byte receives at the passive side, cookies 0 and 1. */
    private static void postTwoReceives(IaUnderTest t, Connection c) {
        for (int i = 0; i < 2; i++) {
            t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(i * 64L, 64), i, CompletionFlags.DEFAULT), "dat_ep_post_recv " + i);
        }
    }

    /**
     * A CNO of {@code evd} stays quiet for 200 ms past the event {@code quiet} causes (a completion
     * that is no notification: {@code quiet} returns once the transfer is done at the other end) and
     * is triggered for {@code evd} by the notification {@code notifying} causes; the quiet event
     * ({@code firstCookie}) is dequeued first. A provider that declares {@code deviation} may
     * trigger the CNO at the quiet event.
     */
    private static void expectOnlyTheNotificationTriggers(IaUnderTest t, InterfaceAdapter ia, EventDispatcher evd, String deviation,
            String quietEvent, long firstCookie, Runnable quiet, Runnable notifying) {
        ConsumerNotificationObject cno = ia.createNotificationObject(null);
        evd.modifyCno(cno);
        quiet.run();
        EventDispatcher triggered = null;
        try {
            triggered = cno.await(200_000);
        } catch (DatException e) {
            t.expectCode(DatReturn.QUEUE_EMPTY, e.code(), "dat_cno_wait after " + quietEvent);
        }
        if (triggered != null) {
            t.skipAsDeclared(deviation, quietEvent + " triggered the CNO");
        }
        notifying.run();
        assertThat(cno.await(IaUnderTest.EVENT_TIMEOUT_MICROS)).as(t.at("the EVD the notification triggers the CNO for")).isSameAs(evd);
        assertThat(t.success(evd, quietEvent).userCookie()).as(t.at("user_cookie of the first event: " + quietEvent))
                .isEqualTo(firstCookie);
        evd.modifyCno(null);
        cno.close();
    }

    @ConformanceTest
    @DisplayName("dat_cno_wait(3DAT) DAT_QUEUE_EMPTY: the timeout expires without a notification")
    void timeout(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        long start = System.nanoTime();
        t.expectError(DatReturn.QUEUE_EMPTY, "dat_cno_wait of 100 ms without events", () -> cno.await(100_000));
        assertThat(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start)).as(t.at("the wait did not end before its timeout (µs)"))
                .isGreaterThanOrEqualTo(100_000 - 1_000);
    }

    @ConformanceTest
    @DisplayName("dat_cno_wait(3DAT) DAT_INVALID_PARAMETER: a timeout outside the DAT_TIMEOUT range")
    void badTimeout(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_cno_wait with timeout -1", () -> cno.await(-1));
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_cno_wait with a timeout above DAT_TIMEOUT_INFINITE",
                () -> cno.await(DatConstants.TIMEOUT_INFINITE + 1));
    }

    @ConformanceTest
    @DisplayName("dat_cno_wait(3DAT) DAT_INTERRUPTED_CALL: the waiting thread is interrupted (Java's signal)")
    void interrupted(IaUnderTest t) throws Exception {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        CompletableFuture<Integer> outcome = new CompletableFuture<>();
        Thread waiting = Thread.ofPlatform().daemon().start(() -> {
            try {
                cno.await(20_000_000L);
                outcome.complete(DatReturn.SUCCESS);
            } catch (dat.api.DatException e) {
                outcome.complete(e.code());
            }
        });
        Waiters.sleepMillis(100);
        waiting.interrupt();
        t.expectCode(DatReturn.INTERRUPTED_CALL, outcome.get(10, TimeUnit.SECONDS), "dat_cno_wait of an interrupted thread");
    }

    @ConformanceTest
    @DisplayName("dat_cno_wait(3DAT) DAT_INVALID_HANDLE: a freed CNO")
    void waitFreed(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        cno.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_cno_wait on a freed CNO", () -> cno.await(1000));
    }

    @ConformanceTest
    @DisplayName("dat_cno_modify_agent(3DAT) DAT_SUCCESS: a trigger is passed to the new agent; NULL disassociates it")
    void modifyAgent(IaUnderTest t) throws Exception {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        EventDispatcher evd = t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        LinkedBlockingQueue<EventDispatcher> notified = new LinkedBlockingQueue<>();
        WaitProxyAgent agent = notified::add;
        cno.modifyAgent(agent);
        assertThat(cno.query(CnoParamMask.AGENT).agent()).as(t.at("the agent after dat_cno_modify_agent")).isSameAs(agent);
        t.expectSuccess(evd.postSoftwareEvent("x"), "dat_evd_post_se");
        assertThat(notified.poll(5, TimeUnit.SECONDS)).as(t.at("the EVD passed to the agent when the CNO triggers")).isSameAs(evd);
        cno.modifyAgent(null);
        assertThat(cno.query().agent()).as(t.at("the agent after dat_cno_modify_agent(DAT_OS_WAIT_PROXY_AGENT_NULL)")).isNull();
    }

    @ConformanceTest
    @DisplayName("dat_cno_modify_agent(3DAT) DAT_INVALID_HANDLE: a freed CNO")
    void modifyAgentFreed(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        cno.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_cno_modify_agent of a freed CNO", () -> cno.modifyAgent(null));
    }

    @ConformanceTest
    @DisplayName("dat_cno_query(3DAT) DAT_SUCCESS: the masked parameters are returned")
    void query(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        assertThat(cno.query(CnoParamMask.IA_HANDLE).ia()).as(t.at("ia_handle asked for by mask")).isSameAs(t.ia());
    }

    @ConformanceTest
    @DisplayName("dat_cno_query(3DAT) DAT_INVALID_PARAMETER: a mask with undefined bits")
    void queryBadMask(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_cno_query with cno_param_mask 0x4", () -> cno.query(0x4));
    }

    @ConformanceTest
    @DisplayName("dat_cno_query(3DAT) DAT_INVALID_HANDLE: a freed CNO")
    void queryFreed(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        cno.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_cno_query of a freed CNO", () -> cno.query());
    }

    @ConformanceTest
    @DisplayName("dat_cno_free(3DAT) DAT_SUCCESS: frees a CNO no EVD references")
    void free(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        EventDispatcher evd = t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        evd.modifyCno(null);
        cno.close();
        assertThat(cno.isOpen()).as(t.at("the freed CNO")).isFalse();
    }

    @ConformanceTest
    @DisplayName("dat_cno_free(3DAT) DAT_INVALID_STATE: an EVD references the CNO")
    void freeReferenced(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        EventDispatcher evd = t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        t.expectError(DatReturn.INVALID_STATE, "dat_cno_free of a CNO an EVD uses", () -> cno.close());
        evd.close();
        cno.close();
    }

    @ConformanceTest
    @DisplayName("dat_cno_free(3DAT) DAT_INVALID_STATE: a thread is blocked on the CNO")
    void freeWithWaiter(IaUnderTest t) throws Exception {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        CompletableFuture<EventDispatcher> waiter = CompletableFuture.supplyAsync(() -> cno.await(20_000_000L));
        Waiters.sleepMillis(100);
        t.expectError(DatReturn.INVALID_STATE, "dat_cno_free while a thread waits on it", () -> cno.close());
        // The page's recipe to unblock the waiter: attach a software EVD and post to it.
        EventDispatcher unblocker = t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        t.expectSuccess(unblocker.postSoftwareEvent("unblock"), "dat_evd_post_se to unblock the waiter");
        assertThat(waiter.get(10, TimeUnit.SECONDS)).as(t.at("the waiter unblocked by the software event")).isSameAs(unblocker);
    }

    @ConformanceTest
    @DisplayName("dat_cno_free(3DAT) DAT_INVALID_HANDLE: freeing a freed CNO is the Java binding's no-op and the handle stays invalid")
    void freeTwice(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        cno.close();
        cno.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_cno_query of a twice-freed CNO", () -> cno.query());
    }
}
