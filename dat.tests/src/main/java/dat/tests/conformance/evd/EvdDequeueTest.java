package dat.tests.conformance.evd;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.internal.Waiters;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;

/** dat_evd_dequeue(3DAT). */
class EvdDequeueTest {

    @ConformanceTest
    @DisplayName("dat_evd_dequeue(3DAT) DAT_SUCCESS: removes the first event and fills the consumer's event")
    void dequeue(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        Object pointer = new Object();
        t.expectSuccess(evd.postSoftwareEvent(pointer), "dat_evd_post_se");
        DatEvent event = new DatEvent();
        t.expectSuccess(evd.dequeue(event), "dat_evd_dequeue of a queued event");
        assertThat(event.eventNumber()).as(t.at("event_number")).isEqualTo(EventNumber.SOFTWARE_EVENT);
        assertThat(event.evd()).as(t.at("evd_handle of the event")).isSameAs(evd);
        assertThat(event.softwarePointer()).as(t.at("the software event's pointer")).isSameAs(pointer);
        t.expectCode(DatReturn.QUEUE_EMPTY, evd.dequeue(event), "dat_evd_dequeue after the only event was removed");
    }

    @ConformanceTest
    @DisplayName("dat_evd_dequeue(3DAT) DAT_SUCCESS: events of one stream are returned in the order they were posted")
    void order(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        for (int i = 0; i < 5; i++) {
            t.expectSuccess(evd.postSoftwareEvent(i), "dat_evd_post_se " + i);
        }
        DatEvent event = new DatEvent();
        for (int i = 0; i < 5; i++) {
            t.expectSuccess(evd.dequeue(event), "dat_evd_dequeue " + i);
            assertThat(event.softwarePointer()).as(t.at("event " + i + " in posting order")).isEqualTo(i);
        }
    }

    @ConformanceTest
    @DisplayName("dat_evd_dequeue(3DAT) DAT_SUCCESS: a disabled EVD can still be dequeued")
    void disabled(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        t.expectSuccess(evd.postSoftwareEvent("queued"), "dat_evd_post_se");
        evd.disable();
        t.expectSuccess(evd.dequeue(new DatEvent()), "dat_evd_dequeue of a disabled EVD");
    }

    @ConformanceTest
    @DisplayName("dat_evd_dequeue(3DAT) DAT_QUEUE_EMPTY: there are no entries on the queue")
    void empty(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        t.expectCode(DatReturn.QUEUE_EMPTY, evd.dequeue(new DatEvent()), "dat_evd_dequeue of an empty EVD");
    }

    @ConformanceTest
    @DisplayName("dat_evd_dequeue(3DAT) DAT_INVALID_STATE: there is already a waiter on the EVD")
    void waiterPresent(IaUnderTest t) throws Exception {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> evd.await(20_000_000L, 1, new DatEvent()));
        DatEvent event = new DatEvent();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int code = evd.dequeue(event);
        // Until the waiter is blocked the queue is merely empty; once it is, dequeue must be refused.
        while (DatReturn.typeOf(code) == DatReturn.QUEUE_EMPTY && System.nanoTime() < deadline) {
            Waiters.sleepMillis(5);
            code = evd.dequeue(event);
        }
        t.expectCode(DatReturn.INVALID_STATE, code, "dat_evd_dequeue while another thread waits in dat_evd_wait");
        t.expectSuccess(evd.postSoftwareEvent("release"), "dat_evd_post_se to release the waiter");
        t.expectSuccess(waiter.get(10, TimeUnit.SECONDS), "the waiter's dat_evd_wait");
    }

    @ConformanceTest
    @DisplayName("dat_evd_dequeue(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void freed(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.SOFTWARE);
        evd.close();
        t.expectCode(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_REQUEST, evd.dequeue(new DatEvent()),
                "dat_evd_dequeue of a freed EVD (the subtype the reference libdat gives a bad EVD)");
        t.expectCode(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_REQUEST, evd.dequeue(null),
                "dat_evd_dequeue of a freed EVD into no event: the handle is named first");
        t.expectCode(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_REQUEST, evd.poll(null, -1),
                "a poll of a freed EVD with no handler: the handle is named first");
    }
}
