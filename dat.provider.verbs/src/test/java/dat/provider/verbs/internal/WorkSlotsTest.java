package dat.provider.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The slot tables and the {@code wr_id} layout the EVDs decode completions with. */
class WorkSlotsTest {

    @Test
    void aReceiveIsToldApartByItsWrIdAlone() {
        long owner = 5L << 32;
        long receive = owner | WorkSlots.RECV_QUEUE | 7;
        long send = owner | 7;
        assertThat(WorkSlots.isRecv(receive)).isTrue();
        assertThat(WorkSlots.isRecv(send)).isFalse();
        assertThat(WorkSlots.slot(receive)).isEqualTo(7);
        assertThat(WorkSlots.slot(send)).isEqualTo(7);
        assertThat(receive >>> 32).as("the owner in the high half").isEqualTo(5);
        int largest = Integer.MAX_VALUE; // below the receive bit: no queue has more slots
        assertThat(WorkSlots.slot(owner | WorkSlots.RECV_QUEUE | largest)).isEqualTo(largest);
    }

    @Test
    void aSlotIsReleasedOnce() {
        WorkSlots slots = new WorkSlots(2);
        int a = slots.acquire();
        int b = slots.acquire();
        assertThat(slots.acquire()).as("a full table").isEqualTo(-1);
        assertThat(slots.outstanding()).isEqualTo(2);
        assertThat(slots.release(a)).isTrue();
        assertThat(slots.release(a)).as("a duplicate completion").isFalse();
        assertThat(slots.release(b)).isTrue();
        assertThat(slots.outstanding()).isZero();
    }
}
