package dat.tests.conformance.evd;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.ConsumerNotificationObject;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.EvdParamMask;
import dat.api.EvdParams;
import dat.api.EvdState;
import dat.api.PspFlag;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.internal.Waiters;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;

/**
 * dat_evd_post_se(3DAT), dat_evd_query(3DAT), dat_evd_resize(3DAT), dat_evd_free(3DAT),
 * dat_evd_enable(3DAT), dat_evd_disable(3DAT), dat_evd_set_unwaitable(3DAT),
 * dat_evd_clear_unwaitable(3DAT), dat_evd_modify_cno(3DAT), and dat_evd_create (udat.h).
 */
class EvdTest {

    @ConformanceTest
    @DisplayName("dat_evd_create(udat.h) DAT_SUCCESS: the queue holds at least the requested length; enabled and waitable, no CNO")
    void create(IaUnderTest t) {
        EventDispatcher evd = t.ia().createEventDispatcher(5, null, EvdFlags.SOFTWARE | EvdFlags.DTO);
        EvdParams params = evd.query();
        assertThat(params.qlen()).as(t.at("evd_qlen")).isGreaterThanOrEqualTo(5);
        assertThat(params.flags() & (EvdFlags.SOFTWARE | EvdFlags.DTO)).as(t.at("evd_flags")).isEqualTo(EvdFlags.SOFTWARE | EvdFlags.DTO);
        assertThat(params.state() & EvdState.ENABLED).as(t.at("evd_state is enabled")).isNotZero();
        assertThat(params.state() & EvdState.WAITABLE).as(t.at("evd_state is waitable")).isNotZero();
        assertThat(params.cno()).as(t.at("cno_handle")).isNull();
        assertThat(params.ia()).as(t.at("ia_handle")).isSameAs(t.ia());
    }

    @ConformanceTest
    @DisplayName("dat_evd_create(udat.h) DAT_INVALID_PARAMETER: a queue length above max_evd_qlen")
    void createTooLong(IaUnderTest t) {
        int max = t.attributes().maxEvdQlen();
        t.requireFeasible(max < Integer.MAX_VALUE, "max_evd_qlen is unbounded");
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_evd_create of " + (max + 1) + " entries",
                () -> t.ia().createEventDispatcher(max + 1, null, EvdFlags.SOFTWARE));
    }

    @ConformanceTest
    @DisplayName("dat_evd_post_se(3DAT) DAT_SUCCESS: the software event arrives with the consumer's pointer")
    void postSe(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        t.expectSuccess(evd.postSoftwareEvent(null), "dat_evd_post_se of a NULL pointer");
        DatEvent event = t.event(evd, dat.api.EventNumber.SOFTWARE_EVENT, "the software event");
        assertThat(event.softwarePointer()).as(t.at("the pointer of the software event")).isNull();
    }

    @ConformanceTest
    @DisplayName("dat_evd_post_se(3DAT) DAT_QUEUE_FULL: the queue is full; the event is not queued and the async EVD is not affected")
    void queueFull(IaUnderTest t) {
        EventDispatcher evd = t.ia().createEventDispatcher(Math.min(4, t.attributes().maxEvdQlen()), null, EvdFlags.SOFTWARE);
        int qlen = evd.query().qlen();
        t.requireFeasible(qlen <= 100_000, "the queue holds " + qlen + " events, too many to fill in bounded time");
        for (int i = 0; i < qlen; i++) {
            t.expectSuccess(evd.postSoftwareEvent(i), "dat_evd_post_se " + (i + 1) + " of " + qlen);
        }
        t.expectCode(DatReturn.QUEUE_FULL, evd.postSoftwareEvent("overflow"), "dat_evd_post_se on a full queue of " + qlen);
        DatEvent event = new DatEvent();
        for (int i = 0; i < qlen; i++) {
            t.expectSuccess(evd.dequeue(event), "dat_evd_dequeue " + (i + 1) + " of " + qlen);
            assertThat(event.softwarePointer()).as(t.at("queued event " + i)).isEqualTo(i);
        }
        t.expectCode(DatReturn.QUEUE_EMPTY, evd.dequeue(event), "dat_evd_dequeue after the queued events: the refused one was not queued");
        t.noEvent(t.ia().query().asyncEvd(), "an overflow event on the async EVD after DAT_QUEUE_FULL");
    }

    @ConformanceTest
    @DisplayName("dat_evd_post_se(3DAT) DAT_INVALID_PARAMETER: the EVD does not take software events")
    void postSeNotSoftware(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.DTO);
        t.expectCode(DatReturn.INVALID_PARAMETER, evd.postSoftwareEvent("x"), "dat_evd_post_se on a DTO-only EVD");
    }

    @ConformanceTest
    @DisplayName("dat_evd_post_se(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void postSeFreed(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        evd.close();
        t.expectCode(DatReturn.INVALID_HANDLE, evd.postSoftwareEvent("x"), "dat_evd_post_se on a freed EVD");
    }

    @ConformanceTest
    @DisplayName("dat_evd_query(3DAT) DAT_SUCCESS: the masked parameters are returned")
    void query(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        EventDispatcher evd = t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        assertThat(evd.query(EvdParamMask.CNO).cno()).as(t.at("cno_handle asked for by mask")).isSameAs(cno);
        assertThat(evd.query(EvdParamMask.EVD_QLEN).qlen()).as(t.at("evd_qlen asked for by mask")).isGreaterThanOrEqualTo(t.qlen());
        assertThat(evd.query(EvdParamMask.IA_HANDLE).ia()).as(t.at("ia_handle asked for by mask")).isSameAs(t.ia());
    }

    @ConformanceTest
    @DisplayName("dat_evd_query(3DAT) DAT_INVALID_PARAMETER: a mask with undefined bits")
    void queryBadMask(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_evd_query with evd_param_mask 0x20", () -> evd.query(0x20));
    }

    @ConformanceTest
    @DisplayName("dat_evd_query(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void queryFreed(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        evd.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_evd_query of a freed EVD", () -> evd.query());
    }

    @ConformanceTest
    @DisplayName("dat_evd_resize(3DAT) DAT_SUCCESS: the new length holds at least the request and no queued event is lost")
    void resize(IaUnderTest t) {
        EventDispatcher evd = t.ia().createEventDispatcher(Math.min(4, t.attributes().maxEvdQlen()), null, EvdFlags.SOFTWARE);
        int larger = Math.min(16, t.attributes().maxEvdQlen());
        t.expectSuccess(evd.postSoftwareEvent(1), "dat_evd_post_se");
        t.expectSuccess(evd.postSoftwareEvent(2), "dat_evd_post_se");
        evd.resize(larger);
        assertThat(evd.query().qlen()).as(t.at("evd_qlen after resizing to " + larger)).isGreaterThanOrEqualTo(larger);
        DatEvent event = new DatEvent();
        t.expectSuccess(evd.dequeue(event), "dat_evd_dequeue after the resize");
        assertThat(event.softwarePointer()).as(t.at("the first event survived the resize")).isEqualTo(1);
        t.expectSuccess(evd.dequeue(event), "dat_evd_dequeue after the resize");
        assertThat(event.softwarePointer()).as(t.at("the second event survived the resize")).isEqualTo(2);
    }

    @ConformanceTest
    @DisplayName("dat_evd_resize(3DAT) DAT_SUCCESS: a grown EVD takes as many software events as its new length, none lost")
    void resizeThenFill(IaUnderTest t) {
        EventDispatcher evd = t.ia().createEventDispatcher(Math.min(4, t.attributes().maxEvdQlen()), null, EvdFlags.SOFTWARE);
        t.expectSuccess(evd.postSoftwareEvent(0), "dat_evd_post_se before the resize");
        evd.resize(Math.min(16, t.attributes().maxEvdQlen()));
        int qlen = evd.query().qlen();
        for (int i = 1; i < qlen; i++) {
            t.expectSuccess(evd.postSoftwareEvent(i), "dat_evd_post_se " + i + " of " + qlen + " after the resize");
        }
        t.expectCode(DatReturn.QUEUE_FULL, evd.postSoftwareEvent(qlen), "dat_evd_post_se on the full resized EVD");
        DatEvent event = new DatEvent();
        for (int i = 0; i < qlen; i++) {
            t.expectSuccess(evd.dequeue(event), "dat_evd_dequeue of event " + i);
            assertThat(event.softwarePointer()).as(t.at("event " + i + " of the resized EVD")).isEqualTo(i);
        }
    }

    @ConformanceTest
    @DisplayName("dat_evd_resize(3DAT) DAT_INVALID_STATE: more events are queued than the new length holds; none is lost")
    void resizeBelowQueued(IaUnderTest t) {
        // The page: "the operation can return DAT_INVALID_STATE and not change" the EVD; resizing must
        // never lose events. A provider that keeps a larger queue and succeeds also conforms.
        EventDispatcher evd = t.ia().createEventDispatcher(Math.min(8, t.attributes().maxEvdQlen()), null, EvdFlags.SOFTWARE);
        for (int i = 0; i < 4; i++) {
            t.expectSuccess(evd.postSoftwareEvent(i), "dat_evd_post_se " + i);
        }
        try {
            evd.resize(2);
        } catch (dat.api.DatException e) {
            if (e.type() != DatReturn.INVALID_STATE) {
                throw t.failure("dat_evd_resize to 2 with 4 queued events: expected DAT_INVALID_STATE or success, got "
                        + DatReturn.describe(e.code()));
            }
        }
        DatEvent event = new DatEvent();
        for (int i = 0; i < 4; i++) {
            t.expectSuccess(evd.dequeue(event), "dat_evd_dequeue of queued event " + i + " after the resize");
            assertThat(event.softwarePointer()).as(t.at("queued event " + i + " survived")).isEqualTo(i);
        }
    }

    @ConformanceTest
    @DisplayName("dat_evd_resize(3DAT) DAT_INVALID_PARAMETER: a length of zero")
    void resizeZero(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_evd_resize to 0", () -> evd.resize(0));
    }

    @ConformanceTest
    @DisplayName("dat_evd_resize(3DAT) DAT_INVALID_PARAMETER: a length above max_evd_qlen")
    void resizeTooLong(IaUnderTest t) {
        int max = t.attributes().maxEvdQlen();
        t.requireFeasible(max < Integer.MAX_VALUE, "max_evd_qlen is unbounded");
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_evd_resize to " + (max + 1), () -> evd.resize(max + 1));
    }

    @ConformanceTest
    @DisplayName("dat_evd_resize(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void resizeFreed(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        evd.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_evd_resize of a freed EVD", () -> evd.resize(8));
    }

    @ConformanceTest
    @DisplayName("dat_evd_free(3DAT) DAT_SUCCESS: frees an EVD with queued events, which are lost")
    void free(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        t.expectSuccess(evd.postSoftwareEvent("lost"), "dat_evd_post_se");
        evd.close();
        assertThat(evd.isOpen()).as(t.at("the freed EVD")).isFalse();
    }

    @ConformanceTest
    @DisplayName("dat_evd_free(3DAT) DAT_INVALID_STATE: an Endpoint's event stream feeds the EVD")
    void freeInUseByEp(IaUnderTest t) {
        EventDispatcher recv = t.evd(EvdFlags.DTO);
        Endpoint ep = t.ep(t.pz(), recv, t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION));
        t.expectError(DatReturn.INVALID_STATE, "dat_evd_free of an Endpoint's receive EVD", () -> recv.close());
        ep.close();
        recv.close();
    }

    @ConformanceTest
    @DisplayName("dat_evd_free(3DAT) DAT_INVALID_STATE: a PSP's connection request stream feeds the EVD")
    void freeInUseByPsp(IaUnderTest t) {
        EventDispatcher crEvd = t.evd(EvdFlags.CR);
        var psp = t.ia().createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        t.expectError(DatReturn.INVALID_STATE, "dat_evd_free of a PSP's EVD", () -> crEvd.close());
        psp.close();
        crEvd.close();
    }

    @ConformanceTest
    @DisplayName("dat_evd_free(3DAT) DAT_INVALID_HANDLE: freeing a freed EVD is the Java binding's no-op and the handle stays invalid")
    void freeTwice(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        evd.close();
        evd.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_evd_query of a twice-freed EVD", () -> evd.query());
    }

    @ConformanceTest
    @DisplayName("dat_evd_disable(3DAT) DAT_SUCCESS: a disabled EVD does not trigger its CNO; disabling twice is a no-op")
    void disable(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        EventDispatcher evd = t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        evd.disable();
        evd.disable();
        assertThat(evd.query().state() & EvdState.DISABLED).as(t.at("evd_state after dat_evd_disable")).isNotZero();
        t.expectSuccess(evd.postSoftwareEvent("quiet"), "dat_evd_post_se on a disabled EVD");
        t.expectError(DatReturn.QUEUE_EMPTY, "dat_cno_wait for a disabled EVD's event", () -> cno.await(100_000));
    }

    @ConformanceTest
    @DisplayName("dat_evd_enable(3DAT) DAT_SUCCESS: an enabled EVD triggers its CNO; enabling twice is a no-op")
    void enable(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        EventDispatcher evd = t.ia().createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        evd.disable();
        evd.enable();
        evd.enable();
        assertThat(evd.query().state() & EvdState.ENABLED).as(t.at("evd_state after dat_evd_enable")).isNotZero();
        t.expectSuccess(evd.postSoftwareEvent("loud"), "dat_evd_post_se on an enabled EVD");
        assertThat(cno.await(IaUnderTest.EVENT_TIMEOUT_MICROS)).as(t.at("the EVD dat_cno_wait returns")).isSameAs(evd);
    }

    @ConformanceTest
    @DisplayName("dat_evd_disable(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void disableFreed(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        evd.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_evd_disable of a freed EVD", () -> evd.disable());
    }

    @ConformanceTest
    @DisplayName("dat_evd_enable(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void enableFreed(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        evd.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_evd_enable of a freed EVD", () -> evd.enable());
    }

    @ConformanceTest
    @DisplayName("dat_evd_set_unwaitable(3DAT) DAT_SUCCESS: the state is unwaitable; events still arrive and can be dequeued")
    void setUnwaitable(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        evd.setUnwaitable();
        assertThat(evd.query().state() & EvdState.UNWAITABLE).as(t.at("evd_state after dat_evd_set_unwaitable")).isNotZero();
        t.expectSuccess(evd.postSoftwareEvent("x"), "dat_evd_post_se on an unwaitable EVD");
        t.expectSuccess(evd.dequeue(new DatEvent()), "dat_evd_dequeue on an unwaitable EVD");
    }

    @ConformanceTest
    @DisplayName("dat_evd_set_unwaitable(3DAT) DAT_SUCCESS: a thread blocked in dat_evd_wait is awakened with DAT_INVALID_STATE")
    void setUnwaitableWakesWaiter(IaUnderTest t) throws Exception {
        // The page says DAT_INVALID_STATE; the dat.api Javadoc of setUnwaitable says DAT_INTERRUPTED_CALL. The page wins.
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> evd.await(20_000_000L, 1, new DatEvent()));
        Waiters.sleepMillis(100);
        evd.setUnwaitable();
        t.expectCode(DatReturn.INVALID_STATE, waiter.get(10, TimeUnit.SECONDS), "dat_evd_wait blocked when the EVD becomes unwaitable");
    }

    @ConformanceTest
    @DisplayName("dat_evd_clear_unwaitable(3DAT) DAT_SUCCESS: the EVD is waitable again")
    void clearUnwaitable(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        evd.setUnwaitable();
        evd.clearUnwaitable();
        assertThat(evd.query().state() & EvdState.WAITABLE).as(t.at("evd_state after dat_evd_clear_unwaitable")).isNotZero();
        t.expectSuccess(evd.postSoftwareEvent("x"), "dat_evd_post_se");
        t.expectSuccess(evd.await(IaUnderTest.EVENT_TIMEOUT_MICROS, 1, new DatEvent()), "dat_evd_wait on the waitable EVD");
    }

    @ConformanceTest
    @DisplayName("dat_evd_set_unwaitable(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void setUnwaitableFreed(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        evd.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_evd_set_unwaitable of a freed EVD", () -> evd.setUnwaitable());
    }

    @ConformanceTest
    @DisplayName("dat_evd_clear_unwaitable(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void clearUnwaitableFreed(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        evd.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_evd_clear_unwaitable of a freed EVD", () -> evd.clearUnwaitable());
    }

    @ConformanceTest
    @DisplayName("dat_evd_modify_cno(3DAT) DAT_SUCCESS: the new CNO is notified; DAT_HANDLE_NULL removes it")
    void modifyCno(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        evd.modifyCno(cno);
        assertThat(evd.query().cno()).as(t.at("cno_handle after dat_evd_modify_cno")).isSameAs(cno);
        t.expectSuccess(evd.postSoftwareEvent("x"), "dat_evd_post_se");
        assertThat(cno.await(IaUnderTest.EVENT_TIMEOUT_MICROS)).as(t.at("the EVD the new CNO reports")).isSameAs(evd);
        t.expectSuccess(evd.dequeue(new DatEvent()), "dat_evd_dequeue");
        evd.modifyCno(null);
        assertThat(evd.query().cno()).as(t.at("cno_handle after dat_evd_modify_cno(DAT_HANDLE_NULL)")).isNull();
        cno.close();
    }

    @ConformanceTest
    @DisplayName("dat_evd_modify_cno(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void modifyCnoFreedEvd(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        evd.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_evd_modify_cno of a freed EVD", () -> evd.modifyCno(cno));
    }

    @ConformanceTest
    @DisplayName("dat_evd_modify_cno(3DAT) DAT_INVALID_HANDLE: a freed CNO")
    void modifyCnoFreedCno(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        cno.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_evd_modify_cno to a freed CNO", () -> evd.modifyCno(cno));
    }
}
