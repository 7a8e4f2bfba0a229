package dat.provider.support;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.EventNumber;
import org.junit.jupiter.api.Test;

class EventRingTest {

    private static DatEvent asyncError(int reason) {
        return new DatEvent().setAsyncError(EventNumber.ASYNC_ERROR_EP_BROKEN, null, null, reason);
    }

    @Test
    void handsEventsOutInArrivalOrderAcrossTheWrap() {
        EventRing ring = new EventRing(3);
        DatEvent out = new DatEvent();
        for (int round = 0; round < 5; round++) {
            ring.add(asyncError(2 * round));
            ring.add(asyncError(2 * round + 1));
            assertThat(ring.take(out)).isTrue();
            assertThat(out.asyncReason()).isEqualTo(2 * round);
            assertThat(ring.take(out)).isTrue();
            assertThat(out.asyncReason()).isEqualTo(2 * round + 1);
        }
        assertThat(ring.take(out)).isFalse();
        assertThat(ring.size()).isZero();
        assertThat(ring.capacity()).isEqualTo(3);
    }

    @Test
    void growsWhenFullAndKeepsTheOrderOfAWrappedRing() {
        EventRing ring = new EventRing(2);
        DatEvent out = new DatEvent();
        ring.add(asyncError(0));
        ring.add(asyncError(1));
        ring.take(out); // the head moves, so the next add wraps
        for (int i = 2; i <= 6; i++) {
            ring.add(asyncError(i));
        }
        assertThat(ring.size()).isEqualTo(6);
        assertThat(ring.capacity()).isGreaterThanOrEqualTo(6);
        for (int i = 1; i <= 6; i++) {
            assertThat(ring.take(out)).isTrue();
            assertThat(out.asyncReason()).isEqualTo(i);
        }
        assertThat(ring.take(out)).isFalse();
    }

    @Test
    void takeClearsTheSlotItHandedOut() {
        EventRing ring = new EventRing(1);
        Object pointer = new Object();
        ring.addSoftwareEvent(null, pointer);
        DatEvent out = new DatEvent();
        assertThat(ring.take(out)).isTrue();
        assertThat(out.eventNumber()).isEqualTo(EventNumber.SOFTWARE_EVENT);
        assertThat(out.softwarePointer()).isSameAs(pointer);
        ring.add(asyncError(7)); // the reused slot carries nothing of the software event
        ring.take(out);
        assertThat(out.softwarePointer()).isNull();
    }

    @Test
    void softwareEventsBeyondTheCapacityGrowTheRingInOrder() {
        // an EVD resized past the ring's capacity takes as many software events as its new length
        EventRing ring = new EventRing(2);
        DatEvent out = new DatEvent();
        ring.addSoftwareEvent(null, 0);
        ring.addSoftwareEvent(null, 1);
        ring.take(out); // the head moves, so the ring grows wrapped
        for (int i = 2; i <= 5; i++) {
            ring.addSoftwareEvent(null, i);
        }
        assertThat(ring.size()).isEqualTo(5);
        for (int i = 1; i <= 5; i++) {
            assertThat(ring.take(out)).isTrue();
            assertThat(out.softwarePointer()).isEqualTo(i);
        }
        assertThat(ring.take(out)).isFalse();
    }
}
