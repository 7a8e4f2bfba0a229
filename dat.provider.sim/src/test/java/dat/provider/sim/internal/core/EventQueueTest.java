package dat.provider.sim.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.EventNumber;
import dat.provider.sim.internal.Fabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The EVD's queue: what a free of an Endpoint that fed it costs (the records written since the
 * Endpoint's binding, not the ring), a resize that keeps the queued events in order, and a
 * capacity that is not a power of two (the ring's slots are).
 */
@Timeout(30)
class EventQueueTest {

    private final Fabric f = new Fabric();
    private final Fabric.Side a = f.new Pair().a;
    private final DatEvent event = new DatEvent();

    @AfterEach
    void close() {
        f.close();
    }

    private SimEndpoint endpoint() {
        return (SimEndpoint) a.ia.createEndpoint(a.pz, a.recvEvd, a.reqEvd, a.connEvd, null);
    }

    private static void complete(EventQueue q, SimEndpoint ep, long cookie) {
        int i = q.claim();
        assertThat(i).as("a free record").isNotNegative();
        q.putDto(i, ep, cookie, 0, 8, null, false);
        q.publish(i, EventNumber.DTO_COMPLETION_EVENT, false);
        q.unlockProducers();
    }

    private long take(EventQueue q) {
        assertThat(q.take(null, event)).as("an event queued").isTrue();
        return event.userCookie();
    }

    @Test
    void forget_looksOnlyAtTheRecordsWrittenSinceTheBinding_andNotAtThoseQueued() {
        EventQueue q = new EventQueue(4096);
        SimEndpoint busy = endpoint();
        SimEndpoint brief = endpoint();
        for (int k = 0; k < 1000; k++) {
            complete(q, busy, k);
            take(q);
        }
        long from = q.bindingFrom();
        complete(q, brief, 1);
        complete(q, busy, 2);
        complete(q, brief, 3);
        take(q);
        take(q);
        take(q);
        complete(q, brief, 4); // still queued: the dequeue lets go of it
        assertThat(q.forget(brief, from)).isEqualTo(3);
        assertThat(q.forget(busy, 0)).as("an Endpoint bound before the ring's first lap ended").isEqualTo(1003);
        assertThat(take(q)).isEqualTo(4);
        assertThat(event.endpoint()).isSameAs(brief);
    }

    @Test
    void aCapacityNotAPowerOfTwo_holdsThatManyEvents_lapAfterLap_inOrder() {
        EventQueue q = new EventQueue(5);
        SimEndpoint ep = endpoint();
        long next = 0;
        long taken = 0;
        for (int lap = 0; lap < 40; lap++) {
            while (q.count() < 5) {
                complete(q, ep, next++);
            }
            assertThat(q.claim()).as("the sixth event of a queue of 5").isEqualTo(-1);
            q.unlockProducers();
            for (int k = 0; k <= lap % 5; k++) {
                assertThat(take(q)).isEqualTo(taken++);
            }
        }
        while (q.count() > 0) {
            assertThat(take(q)).isEqualTo(taken++);
        }
        assertThat(taken).isEqualTo(next);
    }

    @Test
    void forget_looksAtOneRingAtMost() {
        EventQueue q = new EventQueue(64);
        SimEndpoint ep = endpoint();
        long from = q.bindingFrom();
        for (int k = 0; k < 1000; k++) {
            complete(q, ep, k);
            take(q);
        }
        assertThat(q.forget(ep, from)).isEqualTo(64);
    }

    @Test
    void resize_keepsTheQueuedEventsInOrder_andTheSequencesABindingStartedAt() {
        EventQueue q = new EventQueue(8);
        SimEndpoint ep = endpoint();
        for (int k = 0; k < 13; k++) { // the head past the ring's first lap
            complete(q, ep, k);
            take(q);
        }
        long from = q.bindingFrom();
        for (int k = 0; k < 5; k++) {
            complete(q, ep, 100 + k);
        }
        take(q);
        take(q);
        assertThat(q.resize(5)).isEqualTo(3);
        assertThat(q.bindingFrom()).as("the head's sequence runs on").isEqualTo(from + 2);
        complete(q, ep, 105);
        complete(q, ep, 106);
        assertThat(q.count()).isEqualTo(5);
        for (int k = 2; k < 7; k++) {
            assertThat(take(q)).isEqualTo(100 + k);
        }
        assertThat(q.take(null, event)).isFalse();
        assertThat(q.forget(ep, from)).as("the records written since the binding, within the new ring").isEqualTo(5);
    }
}
