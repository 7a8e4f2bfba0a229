package dat.provider.sim.internal.core;

import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.SimIaFactory;
import dat.provider.sim.internal.ThreadLimit;

import static dat.provider.sim.internal.Codes.isType;
import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.Codes.throwsCode;
import static dat.provider.sim.internal.Codes.throwsType;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.AsyncErrorReason;
import dat.api.ConsumerNotificationObject;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.EvdParamMask;
import dat.api.EvdState;
import dat.api.InterfaceAdapter;
import dat.api.spi.IaOpenRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** dat_evd_* and dat_cno_*. */
@Timeout(30)
class EvdCnoTest {

    private final Fabric f = new Fabric();
    private final InterfaceAdapter ia = f.open("sim0");
    private final DatEvent event = new DatEvent();

    @AfterEach
    void close() {
        f.close();
    }

    private EventDispatcher software(int qlen) {
        return ia.createEventDispatcher(qlen, null, EvdFlags.SOFTWARE);
    }

    @Test
    void dat_evd_create_INVALID_PARAMETER_badQueueLengthOrFlags() {
        throwsCode(() -> ia.createEventDispatcher(0, null, EvdFlags.DTO), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        throwsCode(() -> ia.createEventDispatcher(8, null, 0x4000), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4);
        throwsCode(() -> ia.createEventDispatcher(Integer.MAX_VALUE, null, EvdFlags.DTO), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG2);
    }

    @Test
    void dat_evd_create_INVALID_HANDLE_forAFreedCno_and_INSUFFICIENT_RESOURCES() {
        ConsumerNotificationObject cno = ia.createNotificationObject(null);
        cno.close();
        throwsCode(() -> ia.createEventDispatcher(8, cno, EvdFlags.DTO), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_CNO);
        InterfaceAdapter small = f.factory.openIa(new IaOpenRequest("simE", 8, null, "max_evds=2"));
        small.createEventDispatcher(8, null, EvdFlags.DTO); // the async EVD is the first
        throwsCode(() -> small.createEventDispatcher(8, null, EvdFlags.DTO), DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_TEVD);
    }

    @Test
    void dat_evd_create_and_resize_INSUFFICIENT_RESOURCES_forAQueueNoArrayHolds_andTheEvdCountStays() {
        InterfaceAdapter big = f.factory.openIa(new IaOpenRequest("simQ", 8, null, "max_evds=3 max_evd_qlen=2147483647"));
        throwsCode(() -> big.createEventDispatcher(Integer.MAX_VALUE, null, EvdFlags.DTO), DatReturn.INSUFFICIENT_RESOURCES,
                DatReturn.RESOURCE_MEMORY);
        throwsCode(() -> big.createEventDispatcher((1 << 28) + 1, null, EvdFlags.DTO), DatReturn.INSUFFICIENT_RESOURCES,
                DatReturn.RESOURCE_MEMORY);
        // the async EVD and one more: the refused creates reserved nothing
        EventDispatcher evd = big.createEventDispatcher(8, null, EvdFlags.DTO);
        throwsCode(() -> evd.resize(Integer.MAX_VALUE), DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY);
        assertThat(evd.query(EvdParamMask.ALL).qlen()).as("the queue a refused resize left").isEqualTo(8);
    }

    /**
     * A dequeued event leaves nothing of itself reachable from the EVD: its slot kept the
     * references until the slot was reused, so an EVD held up to a queue length of dequeued
     * events' objects (closed Endpoints with their connections' buffers, consumer objects).
     */
    @Test
    void aDequeuedEvent_leavesItsObjectsToTheCollector() throws InterruptedException {
        EventDispatcher evd = software(64);
        java.lang.ref.WeakReference<Object> pointer = postOne(evd);
        ok(evd.dequeue(event));
        event.clear();
        for (long deadline = System.nanoTime() + 10_000_000_000L; pointer.get() != null && System.nanoTime() < deadline;) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(pointer.get()).as("the dequeued event's object").isNull();
    }

    private static java.lang.ref.WeakReference<Object> postOne(EventDispatcher evd) {
        Object pointer = new byte[1 << 20];
        ok(evd.postSoftwareEvent(pointer));
        return new java.lang.ref.WeakReference<>(pointer);
    }

    @Test
    void dat_evd_dequeue_QUEUE_EMPTY_then_SUCCESS_inOrder() {
        EventDispatcher evd = software(4);
        isType(evd.dequeue(event), DatReturn.QUEUE_EMPTY);
        ok(evd.postSoftwareEvent("a"));
        ok(evd.postSoftwareEvent("b"));
        ok(evd.dequeue(event));
        assertThat(event.eventNumber()).isEqualTo(EventNumber.SOFTWARE_EVENT);
        assertThat(event.softwarePointer()).isEqualTo("a");
        assertThat(event.evd()).isSameAs(evd);
        ok(evd.dequeue(event));
        assertThat(event.softwarePointer()).isEqualTo("b");
        isType(evd.dequeue(event), DatReturn.QUEUE_EMPTY);
    }

    @Test
    void dat_evd_dequeue_INVALID_HANDLE_afterFree_and_INVALID_PARAMETER_forNull() {
        EventDispatcher evd = software(4);
        isType(evd.dequeue(null), DatReturn.INVALID_PARAMETER);
        evd.close();
        isType(evd.dequeue(event), DatReturn.INVALID_HANDLE);
    }

    @Test
    void dat_evd_dequeue_INVALID_STATE_whileAnotherThreadWaits() throws Exception {
        EventDispatcher evd = software(4);
        Thread waiter = Thread.ofPlatform().start(() -> evd.await(DatConstants.TIMEOUT_INFINITE, 1, new DatEvent()));
        waitForWaiter(evd);
        isType(evd.dequeue(event), DatReturn.INVALID_STATE);
        isType(evd.await(0, 1, event), DatReturn.INVALID_STATE);
        ok(evd.postSoftwareEvent(null));
        waiter.join(5000);
        assertThat(waiter.isAlive()).isFalse();
    }

    private static void waitForWaiter(EventDispatcher evd) throws InterruptedException {
        DatEvent probe = new DatEvent();
        for (int i = 0; i < 500; i++) {
            if (DatReturn.typeOf(evd.dequeue(probe)) == DatReturn.INVALID_STATE) {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("the waiter never started waiting");
    }

    /** A thread parked in an infinite dat_evd_wait on {@code evd}, its return code to come into {@code rc}. */
    private static Thread parkedWaiter(EventDispatcher evd, AtomicInteger rc) throws InterruptedException {
        Thread waiter = Thread.ofPlatform().start(() -> rc.set(evd.await(DatConstants.TIMEOUT_INFINITE, 1, new DatEvent())));
        waitForWaiter(evd);
        while (waiter.getState() != Thread.State.WAITING) { // parked
            Thread.onSpinWait();
        }
        return waiter;
    }

    @Test
    void dat_evd_wait_TIMEOUT_EXPIRED_reportsTheQueueSize() {
        EventDispatcher evd = software(8);
        ok(evd.postSoftwareEvent(null));
        isType(evd.await(20_000, 2, event), DatReturn.TIMEOUT_EXPIRED);
        assertThat(event.moreEvents()).isEqualTo(1);
    }

    @Test
    void dat_evd_wait_thresholdWaitsForThatManyEvents_nmoreIsAtLeastThresholdMinusOne() throws Exception {
        EventDispatcher evd = software(8);
        AtomicInteger rc = new AtomicInteger(-1);
        DatEvent got = new DatEvent();
        Thread waiter = Thread.ofPlatform().start(() -> rc.set(evd.await(5_000_000, 3, got)));
        waitForWaiter(evd);
        ok(evd.postSoftwareEvent(1));
        ok(evd.postSoftwareEvent(2));
        Thread.sleep(50);
        assertThat(rc.get()).as("two events are below the threshold").isEqualTo(-1);
        ok(evd.postSoftwareEvent(3));
        waiter.join(5000);
        ok(rc.get());
        assertThat(got.softwarePointer()).isEqualTo(1);
        assertThat(got.moreEvents()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void dat_evd_wait_INVALID_PARAMETER_badThresholdOrTimeout() {
        EventDispatcher evd = software(4);
        isType(evd.await(0, 0, event), DatReturn.INVALID_PARAMETER);
        isType(evd.await(0, 5, event), DatReturn.INVALID_PARAMETER);
        isType(evd.await(-1, 1, event), DatReturn.INVALID_PARAMETER);
        isType(evd.await(0, 1, null), DatReturn.INVALID_PARAMETER);
    }

    @Test
    void dat_evd_wait_INVALID_STATE_onAnUnwaitableEvd_andSetUnwaitableWakesTheWaiter() throws Exception {
        EventDispatcher evd = software(4);
        AtomicInteger rc = new AtomicInteger();
        Thread waiter = Thread.ofPlatform().start(() -> rc.set(evd.await(DatConstants.TIMEOUT_INFINITE, 1, new DatEvent())));
        waitForWaiter(evd);
        evd.setUnwaitable();
        waiter.join(5000);
        isType(rc.get(), DatReturn.INVALID_STATE);
        isType(evd.await(0, 1, event), DatReturn.INVALID_STATE);
        assertThat(evd.query().state() & EvdState.UNWAITABLE).isNotZero();
        ok(evd.postSoftwareEvent(null));
        ok(evd.dequeue(event)); // still dequeueable
        evd.clearUnwaitable();
        assertThat(evd.query().state() & EvdState.WAITABLE).isNotZero();
        isType(evd.await(1000, 1, event), DatReturn.TIMEOUT_EXPIRED);
    }

    /**
     * dat_evd_set_unwaitable(3DAT): a blocked waiter is awakened and returns DAT_INVALID_STATE, even
     * if dat_evd_clear_unwaitable follows before it runs again (five rounds: a waiter woken
     * before the clear could see the unwaitable state anyway).
     */
    @Test
    void dat_evd_set_unwaitable_thenClearAtOnce_stillReleasesTheBlockedWaiter() throws Exception {
        EventDispatcher evd = software(4);
        for (int round = 0; round < 5; round++) {
            AtomicInteger rc = new AtomicInteger(-1);
            Thread waiter = parkedWaiter(evd, rc);
            try {
                evd.setUnwaitable();
                evd.clearUnwaitable();
                waiter.join(5000);
                assertThat(waiter.isAlive()).as("the waiter was released, round %d", round).isFalse();
                assertThat(DatReturn.describe(rc.get()))
                        .isEqualTo(DatReturn.describe(DatReturn.error(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_UNWAITABLE)));
            } finally {
                waiter.interrupt();
            }
        }
        ok(evd.postSoftwareEvent(1)); // waitable again
        ok(evd.await(0, 1, event));
    }

    /**
     * A waiter's wait ends on a notification event only: a wake-up for another reason (here the
     * one a TCP connection's read role gives as it comes free) does not hand it an unsolicited
     * receive, which did not wake it.
     */
    @Test
    void dat_evd_wait_aWakeUpWithoutANotificationEvent_doesNotEndTheWait() throws Exception {
        try (Fabric g = new Fabric()) {
            Fabric.Pair q = g.new Pair(dat.api.EpAttributes.builder().recvCompletionFlags(dat.api.CompletionFlags.SOLICITED_WAIT).build(), 4096);
            ok(q.b.ep.postRecv(0, null, 1, 0));
            ok(q.b.ep.postRecv(0, null, 2, 0));
            AtomicInteger rc = new AtomicInteger(-1);
            DatEvent got = new DatEvent();
            Thread waiter = Thread.ofPlatform().start(() -> rc.set(q.b.recvEvd.await(DatConstants.TIMEOUT_INFINITE, 1, got)));
            try {
                waitForWaiter(q.b.recvEvd);
                ok(q.a.ep.postSend(0, null, 1, 0)); // unsolicited: queued, wakes nobody
                ((SimEvd) q.b.recvEvd).wakeWaiter();
                Thread.sleep(50);
                assertThat(waiter.isAlive()).as("the wait goes on after a wake-up without a notification event").isTrue();
                ok(q.a.ep.postSend(0, null, 2, dat.api.CompletionFlags.SOLICITED_WAIT));
                waiter.join(5000);
                assertThat(waiter.isAlive()).isFalse();
            } finally {
                waiter.interrupt();
            }
            ok(rc.get());
            assertThat(got.userCookie()).isEqualTo(1);
            assertThat(got.moreEvents()).isEqualTo(1);
        }
    }

    @Test
    void dat_evd_wait_INTERRUPTED_CALL() throws Exception {
        isType(infiniteWaitEndedBy((evd, waiter) -> waiter.interrupt()), DatReturn.INTERRUPTED_CALL);
    }

    @Test
    void dat_evd_wait_ABORT_whenTheEvdIsFreed() throws Exception {
        isType(infiniteWaitEndedBy((evd, waiter) -> evd.close()), DatReturn.ABORT);
    }

    /** What an infinite dat_evd_wait on a software EVD returns when {@code end} acts once it waits. */
    private int infiniteWaitEndedBy(java.util.function.BiConsumer<EventDispatcher, Thread> end) throws InterruptedException {
        EventDispatcher evd = software(4);
        AtomicInteger rc = new AtomicInteger();
        Thread waiter = Thread.ofPlatform().start(() -> rc.set(evd.await(DatConstants.TIMEOUT_INFINITE, 1, new DatEvent())));
        waitForWaiter(evd);
        end.accept(evd, waiter);
        waiter.join(5000);
        return rc.get();
    }

    @Test
    void dat_evd_post_se_QUEUE_FULL_withoutOverflow_and_INVALID_PARAMETER_withoutSoftwareFlag() {
        EventDispatcher evd = software(2);
        ok(evd.postSoftwareEvent(1));
        ok(evd.postSoftwareEvent(2));
        isType(evd.postSoftwareEvent(3), DatReturn.QUEUE_FULL);
        isType(ia.query().asyncEvd().dequeue(event), DatReturn.QUEUE_EMPTY);
        EventDispatcher dto = ia.createEventDispatcher(2, null, EvdFlags.DTO);
        isType(dto.postSoftwareEvent(1), DatReturn.INVALID_PARAMETER);
        evd.close();
        isType(evd.postSoftwareEvent(1), DatReturn.INVALID_HANDLE);
    }

    /**
     * A queue of three events, a length no mask could index: it is full at exactly three events
     * through ten turns of its ring, and the events come out in the order they went in.
     */
    @Test
    void dat_evd_post_se_QUEUE_FULL_atTheQueueLength_throughEveryTurnOfTheRing() {
        EventDispatcher evd = software(3);
        long next = 0;
        long expected = 0;
        for (int i = 0; i < 3; i++) {
            ok(evd.postSoftwareEvent(next++));
        }
        for (int round = 0; round < 10; round++) {
            isType(evd.postSoftwareEvent(-1), DatReturn.QUEUE_FULL);
            ok(evd.dequeue(event));
            assertThat(event.softwarePointer()).isEqualTo(expected++);
            ok(evd.postSoftwareEvent(next++));
        }
        for (int i = 0; i < 3; i++) {
            ok(evd.dequeue(event));
            assertThat(event.softwarePointer()).isEqualTo(expected++);
        }
        isType(evd.dequeue(event), DatReturn.QUEUE_EMPTY);
    }

    @Test
    void dat_evd_query_reportsQlenStateCnoFlags_and_INVALID_PARAMETER() {
        ConsumerNotificationObject cno = ia.createNotificationObject(null);
        EventDispatcher evd = ia.createEventDispatcher(5, cno, EvdFlags.SOFTWARE | EvdFlags.DTO);
        var q = evd.query();
        assertThat(q.qlen()).isEqualTo(5);
        assertThat(q.cno()).isSameAs(cno);
        assertThat(q.flags()).isEqualTo(EvdFlags.SOFTWARE | EvdFlags.DTO);
        assertThat(q.state() & EvdState.ENABLED).isNotZero();
        evd.disable();
        assertThat(evd.query().state() & EvdState.DISABLED).isNotZero();
        evd.enable();
        evd.enable(); // no-op
        throwsCode(() -> evd.query(0x20), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
    }

    @Test
    void dat_evd_resize_keepsEvents_INVALID_STATE_whenTooManyQueued_INVALID_PARAMETER() {
        EventDispatcher evd = software(4);
        for (int i = 0; i < 3; i++) {
            ok(evd.postSoftwareEvent(i));
        }
        ok(evd.dequeue(event));
        throwsType(() -> evd.resize(1), DatReturn.INVALID_STATE);
        throwsType(() -> evd.resize(0), DatReturn.INVALID_PARAMETER);
        evd.resize(10);
        assertThat(evd.query().qlen()).isEqualTo(10);
        ok(evd.dequeue(event));
        assertThat(event.softwarePointer()).isEqualTo(1);
        ok(evd.dequeue(event));
        assertThat(event.softwarePointer()).isEqualTo(2);
        for (int i = 0; i < 10; i++) {
            ok(evd.postSoftwareEvent(i));
        }
        evd.close();
        throwsType(() -> evd.resize(4), DatReturn.INVALID_HANDLE);
    }

    @Test
    void dat_evd_free_INVALID_STATE_whileAnEndpointFeedsIt() {
        EventDispatcher evd = ia.createEventDispatcher(4, null, EvdFlags.DTO);
        var ep = ia.createEndpoint(ia.createProtectionZone(), evd, null, null, null);
        throwsCode(evd::close, DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_IN_USE);
        ep.close();
        evd.close();
        evd.close();
    }

    /** Three sends into a's request EVD resized to two: the async EVD of a's IA, once it reported the overflow. */
    private EventDispatcher overflowReported(Fabric.Pair p) {
        p.a.reqEvd.resize(2);
        sends(p, 0, 3);
        EventDispatcher async = p.a.ia.query().asyncEvd();
        ok(async.await(Fabric.WAIT, 1, event));
        assertThat(event.eventNumber()).isEqualTo(EventNumber.ASYNC_ERROR_EVD_OVERFLOW);
        return async;
    }

    /** Sends {@code from} to {@code to - 1} from a to b, each into a receive posted for it: a's request EVD gets their completions. */
    private static void sends(Fabric.Pair p, int from, int to) {
        var src = new dat.api.LmrTriplet[] {dat.api.LmrTriplet.of(p.a.lmr, 0, 8)};
        var dst = new dat.api.LmrTriplet[] {dat.api.LmrTriplet.of(p.b.lmr, 0, 8)};
        for (int i = from; i < to; i++) {
            ok(p.b.ep.postRecv(1, dst, i, 0));
            ok(p.a.ep.postSend(1, src, i, 0));
        }
    }

    @Test
    void dat_evd_overflow_isReportedOnTheAsyncEvd() {
        try (Fabric g = new Fabric()) {
            Fabric.Pair p = g.new Pair();
            EventDispatcher async = overflowReported(p);
            assertThat(event.asyncHandle()).isSameAs(p.a.reqEvd);
            assertThat(event.asyncReason()).isEqualTo(AsyncErrorReason.EVD_OVERFLOW_ERROR);
            ok(p.a.reqEvd.dequeue(event));
            ok(p.a.reqEvd.dequeue(event));
            isType(p.a.reqEvd.dequeue(event), DatReturn.QUEUE_EMPTY);
        }
    }

    /** An overflow after a resize that made room is reported again: the report is once per overflow, not once ever. */
    @Test
    void dat_evd_overflow_isReportedAgain_afterAResizeMadeRoom() {
        try (Fabric g = new Fabric()) {
            Fabric.Pair p = g.new Pair();
            EventDispatcher async = overflowReported(p);
            p.a.reqEvd.resize(3); // room for one more; nothing was dequeued
            sends(p, 3, 5);
            ok(async.await(Fabric.WAIT, 1, event));
            assertThat(event.eventNumber()).isEqualTo(EventNumber.ASYNC_ERROR_EVD_OVERFLOW);
            assertThat(event.asyncHandle()).isSameAs(p.a.reqEvd);
            isType(async.dequeue(event), DatReturn.QUEUE_EMPTY); // once for that overflow
            for (long cookie : new long[] {0, 1, 3}) {
                ok(p.a.reqEvd.dequeue(event));
                assertThat(event.userCookie()).isEqualTo(cookie);
            }
            isType(p.a.reqEvd.dequeue(event), DatReturn.QUEUE_EMPTY);
        }
    }

    @Test
    void dat_evd_modify_cno_and_the_cno_is_triggered_when_enabled() {
        ConsumerNotificationObject cno = ia.createNotificationObject(null);
        EventDispatcher evd = software(4);
        evd.modifyCno(cno);
        assertThat(evd.query().cno()).isSameAs(cno);
        ok(evd.postSoftwareEvent(1));
        assertThat(cno.await(Fabric.WAIT)).isSameAs(evd);
        evd.disable();
        ok(evd.postSoftwareEvent(2));
        throwsType(() -> cno.await(10_000), DatReturn.QUEUE_EMPTY);
        evd.enable();
        evd.modifyCno(null);
        assertThat(evd.query().cno()).isNull();
        ConsumerNotificationObject freed = ia.createNotificationObject(null);
        freed.close();
        throwsCode(() -> evd.modifyCno(freed), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_CNO);
    }

    /**
     * dat_evd_set_unwaitable(3DAT): events arriving after the set still trigger the CNO, also while
     * the waiter it woke has not left yet (twenty rounds: an event posted at once after the set
     * finds that waiter still registered in nearly every one).
     */
    @Test
    void anEventRightAfterSetUnwaitable_triggersTheCno_whileTheWokenWaiterIsLeaving() throws Exception {
        ConsumerNotificationObject cno = ia.createNotificationObject(null);
        EventDispatcher evd = ia.createEventDispatcher(4, cno, EvdFlags.SOFTWARE);
        for (int round = 0; round < 20; round++) {
            AtomicInteger rc = new AtomicInteger(-1);
            Thread waiter = parkedWaiter(evd, rc);
            try {
                evd.setUnwaitable();
                ok(evd.postSoftwareEvent(round));
                assertThat(cno.await(Fabric.WAIT)).as("the CNO of the event of round %d", round).isSameAs(evd);
                waiter.join(5000);
                isType(rc.get(), DatReturn.INVALID_STATE);
                ok(evd.dequeue(event));
                assertThat(event.softwarePointer()).isEqualTo(round);
                evd.clearUnwaitable();
            } finally {
                waiter.interrupt();
            }
        }
    }

    @Test
    void dat_cno_create_INSUFFICIENT_RESOURCES_and_INVALID_HANDLE() {
        InterfaceAdapter small = f.factory.openIa(new IaOpenRequest("simC", 8, null, "max_cnos=1"));
        small.createNotificationObject(null);
        throwsType(() -> small.createNotificationObject(null), DatReturn.INSUFFICIENT_RESOURCES);
        small.close();
        throwsCode(() -> small.createNotificationObject(null), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_IA);
    }

    @Test
    void dat_cno_wait_QUEUE_EMPTY_onTimeout_INVALID_PARAMETER_INTERRUPTED_CALL() throws Exception {
        ConsumerNotificationObject cno = ia.createNotificationObject(null);
        throwsType(() -> cno.await(1000), DatReturn.QUEUE_EMPTY);
        throwsType(() -> cno.await(-5), DatReturn.INVALID_PARAMETER);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                cno.await(DatConstants.TIMEOUT_INFINITE);
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        Thread.sleep(50);
        t.interrupt();
        t.join(5000);
        assertThat(thrown.get()).isInstanceOfSatisfying(dat.api.DatException.class,
                e -> assertThat(e.type()).isEqualTo(DatReturn.INTERRUPTED_CALL));
    }

    /**
     * A timed dat_cno_wait of 200 us lasts at least that long, and is not rounded up to a whole
     * millisecond: the shortest of 20 such waits ends well before 1 ms (rounded up, none would).
     */
    @Test
    void dat_cno_wait_aSubMillisecondTimeout_isNotRoundedUpToAMillisecond() {
        ConsumerNotificationObject cno = ia.createNotificationObject(null);
        long shortest = Long.MAX_VALUE;
        for (int i = 0; i < 20; i++) {
            long start = System.nanoTime();
            throwsType(() -> cno.await(200), DatReturn.QUEUE_EMPTY);
            long took = System.nanoTime() - start;
            assertThat(took).as("a 200 us wait's length").isGreaterThanOrEqualTo(200_000);
            shortest = Math.min(shortest, took);
        }
        assertThat(shortest).as("the shortest of 20 waits of 200 us, in ns").isLessThan(900_000);
    }

    @Test
    void dat_cno_wait_returnsNullWhenEveryEvdIsFreedOrTheIaCloses() throws Exception {
        ConsumerNotificationObject cno = ia.createNotificationObject(null);
        EventDispatcher evd = ia.createEventDispatcher(4, cno, EvdFlags.SOFTWARE);
        List<Object> results = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            results.add(String.valueOf(cno.await(DatConstants.TIMEOUT_INFINITE)));
            done.countDown();
        });
        Thread.sleep(50);
        evd.close();
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(results).containsExactly("null");
        t.join();
    }

    @Test
    void dat_cno_agentIsCalledOnAProviderThread_modify_and_query() throws Exception {
        CountDownLatch called = new CountDownLatch(1);
        AtomicReference<Thread> thread = new AtomicReference<>();
        AtomicReference<EventDispatcher> from = new AtomicReference<>();
        ConsumerNotificationObject cno = ia.createNotificationObject(e -> {
            thread.set(Thread.currentThread());
            from.set(e);
            called.countDown();
        });
        EventDispatcher evd = ia.createEventDispatcher(4, cno, EvdFlags.SOFTWARE);
        ok(evd.postSoftwareEvent(null));
        assertThat(called.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(thread.get()).isNotSameAs(Thread.currentThread());
        assertThat(from.get()).isSameAs(evd);
        assertThat(cno.query().agent()).isNotNull();
        cno.modifyAgent(null);
        assertThat(cno.query().agent()).isNull();
        throwsCode(() -> cno.query(0x8), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
    }

    /** dat_cno_wait(3DAT): when all EVDs the CNO is associated with are freed, the OS Wait Proxy Agent is called with NULL. */
    @Test
    void theAgentIsCalledWithNull_whenTheLastEvdOfItsCnoIsFreed_once() throws Exception {
        java.util.concurrent.BlockingQueue<java.util.Optional<EventDispatcher>> calls = new java.util.concurrent.LinkedBlockingQueue<>();
        ConsumerNotificationObject cno = ia.createNotificationObject(e -> calls.add(java.util.Optional.ofNullable(e)));
        EventDispatcher first = ia.createEventDispatcher(4, cno, EvdFlags.SOFTWARE);
        EventDispatcher second = ia.createEventDispatcher(4, cno, EvdFlags.SOFTWARE);
        first.close();
        Thread.sleep(50); // the conductor runs agents: give a wrong call the time to come
        assertThat(calls).as("calls while one EVD is left").isEmpty();
        second.close();
        assertThat(calls.poll(5, TimeUnit.SECONDS)).as("the call once the last EVD is freed").isEqualTo(java.util.Optional.empty());
        Thread.sleep(50);
        assertThat(calls).as("further calls").isEmpty();
        // moving an EVD to another CNO is not a free: no call
        EventDispatcher third = ia.createEventDispatcher(4, cno, EvdFlags.SOFTWARE);
        third.modifyCno(null);
        Thread.sleep(50);
        assertThat(calls).as("calls after the last EVD moved away").isEmpty();
        cno.close();
        third.close();
    }

    /** dat_ia_close(3DAT): an abrupt close unblocks the OS Wait Proxy Agents of all CNOs with NULL, EVDs attached or not. */
    @Test
    void anAbruptIaClose_callsEveryCnosAgentWithNull() throws Exception {
        java.util.concurrent.BlockingQueue<String> calls = new java.util.concurrent.LinkedBlockingQueue<>();
        InterfaceAdapter other = f.open("sim1");
        ConsumerNotificationObject withEvd = other.createNotificationObject(e -> calls.add("withEvd:" + e));
        ConsumerNotificationObject alone = other.createNotificationObject(e -> calls.add("alone:" + e));
        other.createEventDispatcher(4, withEvd, EvdFlags.SOFTWARE);
        other.close(dat.api.CloseFlag.ABRUPT);
        java.util.List<String> got = new java.util.ArrayList<>();
        for (int i = 0; i < 2; i++) {
            String call = calls.poll(5, TimeUnit.SECONDS);
            assertThat(call).as("call %d", i).isNotNull();
            got.add(call);
        }
        Thread.sleep(50);
        assertThat(calls).as("further calls").isEmpty();
        assertThat(got).containsExactlyInAnyOrder("withEvd:null", "alone:null");
        assertThat(alone.isOpen()).isFalse();
    }

    /** The hot swap destroys the IA: its CNOs' agents are called with NULL too. */
    @Test
    void theHotSwap_callsTheCnosAgentWithNull() throws Exception {
        java.util.concurrent.BlockingQueue<String> calls = new java.util.concurrent.LinkedBlockingQueue<>();
        try (Fabric g = new Fabric()) {
            InterfaceAdapter doomed = g.open("sim0");
            ConsumerNotificationObject cno = doomed.createNotificationObject(e -> calls.add(String.valueOf(e)));
            doomed.createEventDispatcher(4, cno, EvdFlags.SOFTWARE);
            assertThat(g.factory.shutdown()).isTrue();
        }
        assertThat(calls.poll(5, TimeUnit.SECONDS)).isEqualTo("null");
    }

    @Test
    void dat_cno_free_INVALID_STATE_whileAnEvdUsesIt() {
        ConsumerNotificationObject cno = ia.createNotificationObject(null);
        EventDispatcher evd = ia.createEventDispatcher(4, cno, EvdFlags.SOFTWARE);
        throwsCode(cno::close, DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_CNO_IN_USE);
        evd.modifyCno(null);
        cno.close();
        throwsCode(() -> cno.modifyAgent(null), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_CNO);
    }

    @Test
    void dat_evd_wait_preemptsTheCno() throws Exception {
        ConsumerNotificationObject cno = ia.createNotificationObject(null);
        EventDispatcher evd = ia.createEventDispatcher(4, cno, EvdFlags.SOFTWARE);
        AtomicInteger rc = new AtomicInteger();
        Thread waiter = Thread.ofPlatform().start(() -> rc.set(evd.await(Fabric.WAIT, 1, new DatEvent())));
        waitForWaiter(evd);
        ok(evd.postSoftwareEvent(null));
        waiter.join(5000);
        ok(rc.get());
        throwsType(() -> cno.await(10_000), DatReturn.QUEUE_EMPTY);
    }

    @Test
    void dat_evd_poll_handsOverUpToLimitEvents() {
        EventDispatcher evd = software(8);
        for (int i = 0; i < 5; i++) {
            ok(evd.postSoftwareEvent(i));
        }
        List<Object> seen = new ArrayList<>();
        assertThat(evd.poll(e -> seen.add(e.softwarePointer()), 3)).isEqualTo(3);
        assertThat(evd.poll(e -> seen.add(e.softwarePointer()), 10)).isEqualTo(2);
        assertThat(evd.poll(e -> seen.add(e.softwarePointer()), 10)).isZero();
        assertThat(seen).containsExactly(0, 1, 2, 3, 4);
        isType(evd.poll(null, 1), DatReturn.INVALID_PARAMETER);
    }
}
