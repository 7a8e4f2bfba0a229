package dat.provider.sim.internal.shm;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One ring's format, its producer and its consumer on one memory: records are found by their own
 * mark, only once published, in order across the ring's end, never a stale one of an earlier lap;
 * and a mark or position that lies is refused.
 */
class RingTest {

    private static final int CAPACITY = RingFile.MIN_CAPACITY;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment control = arena.allocate(Ring.CONTROL_BYTES, 128);
    private final MemorySegment data = arena.allocate(CAPACITY, 4096);
    private final Ring producer = new Ring(control, data);
    private final Ring consumer = new Ring(control, data);
    private final ShmRecord rec = new ShmRecord();

    @AfterEach
    void close() {
        arena.close();
    }

    /** Writes a SEND of {@code payload} bytes numbered {@code seq} (its payload's first long too), committed, not published. */
    private boolean send(long seq, int payload) {
        int length = ShmRecord.HEADER_BYTES + payload;
        long p = producer.claim(length);
        if (p < 0) {
            return false;
        }
        producer.putHeader(p, length, ShmRecord.SEND, 0, 0, 0, seq, 0, payload);
        if (payload >= Long.BYTES) {
            data.set(ValueLayout.JAVA_LONG, producer.offset(p) + ShmRecord.HEADER_BYTES, seq);
        }
        producer.commit(length);
        return true;
    }

    /** The consumer's next record, consumed; its seq, or -1 when there is none. */
    private long take() {
        if (!consumer.next(rec)) {
            return -1;
        }
        assertThat(rec.validate(true, Integer.MAX_VALUE)).isNull();
        if (rec.payload() >= Long.BYTES) {
            assertThat(data.get(ValueLayout.JAVA_LONG, consumer.payloadOffset())).isEqualTo(rec.seq);
        }
        consumer.consume(rec);
        return rec.seq;
    }

    @Test
    void recordsAreSeenOnlyOncePublished_inOrder_acrossTheEndForManyLaps_neverAStaleOne() {
        long sent = 0;
        long received = 0;
        int[] sizes = {8, 0, 24, 4000, 100, 7000, 64, 3000};
        for (int round = 0; round < 400; round++) {
            int batch = 1 + round % 5;
            long first = sent;
            for (int i = 0; i < batch && send(sent, sizes[(int) (sent % sizes.length)]); i++) {
                sent++;
            }
            assertThat(consumer.pending()).as("nothing before the batch is published").isFalse();
            assertThat(consumer.next(rec)).isFalse();
            producer.publish();
            assertThat(consumer.pending()).isEqualTo(sent > first);
            for (long s; (s = take()) >= 0;) {
                assertThat(s).isEqualTo(received);
                received++;
            }
            assertThat(received).as("every record published, and no stale one after it").isEqualTo(sent);
            assertThat(consumer.pending()).isFalse();
            consumer.release();
            assertThat(producer.violation()).isNull();
            assertThat(consumer.violation()).isNull();
        }
        assertThat(producer.tail()).as("many laps").isGreaterThan(10L * CAPACITY);
    }

    @Test
    void theProducerKeepsALineFreeForTheTerminator_andWaitsForTheConsumer() {
        int length = ShmRecord.HEADER_BYTES + 1000; // 1088 bytes a record: 60 of them fit before the terminator's line
        int n = 0;
        while (send(n, 1000)) {
            n++;
        }
        assertThat((long) n * ShmRecord.aligned(length)).isLessThanOrEqualTo(CAPACITY - ShmRecord.ALIGNMENT);
        assertThat(producer.violation()).isNull();
        producer.publish();
        assertThat(take()).isEqualTo(0);
        consumer.release();
        assertThat(send(n, 1000)).as("the padding to the end, the record and its terminator need more than one record's room").isFalse();
        assertThat(take()).isEqualTo(1);
        consumer.release();
        assertThat(send(n, 1000)).as("room once the consumer moved").isTrue();
    }

    /** Writes a mark at the consumer's position, as a hostile producer may. */
    private void lie(long offset, long word) {
        data.set(ValueLayout.JAVA_LONG, offset, word);
    }

    @Test
    void aMarkThatLies_isRefused() {
        // a length that passes the ring's end
        lie(0, ShmRecord.word(CAPACITY + ShmRecord.HEADER_BYTES, ShmRecord.SEND, 0));
        assertThat(consumer.next(rec)).isFalse();
        assertThat(consumer.violation()).isEqualTo(Ring.RECORD_OUTSIDE);
    }

    @Test
    void aMarkShorterThanAHeader_isRefused() {
        lie(0, ShmRecord.word(8, ShmRecord.SEND, 0));
        assertThat(consumer.next(rec)).isFalse();
        assertThat(consumer.violation()).isEqualTo(Ring.RECORD_OUTSIDE);
    }

    @Test
    void aNegativeLength_isRefused() {
        lie(0, ShmRecord.word(-64, ShmRecord.SEND, 0));
        assertThat(consumer.next(rec)).isFalse();
        assertThat(consumer.violation()).isEqualTo(Ring.RECORD_OUTSIDE);
    }

    @Test
    void aPaddingThatDoesNotReachTheEnd_orStartsTheRing_isRefused() {
        lie(0, ShmRecord.word(CAPACITY, ShmRecord.PADDING, 0));
        assertThat(consumer.next(rec)).as("a padding at offset 0 would send the consumer round for ever").isFalse();
        assertThat(consumer.violation()).isEqualTo(Ring.BAD_PADDING);
        Ring other = new Ring(control, data);
        data.fill((byte) 0);
        send(0, 8);
        producer.publish();
        assertThat(other.next(rec)).isTrue();
        other.consume(rec);
        lie(other.offset(ShmRecord.aligned(ShmRecord.HEADER_BYTES + 8)), ShmRecord.word(128, ShmRecord.PADDING, 0));
        assertThat(other.next(rec)).isFalse();
        assertThat(other.violation()).isEqualTo(Ring.BAD_PADDING);
    }

    @Test
    void aMarkWithReservedBitsSet_isRefusedByValidation() {
        lie(0, ShmRecord.word(ShmRecord.HEADER_BYTES, ShmRecord.SEND, 0) | 1L << 48);
        assertThat(consumer.next(rec)).isTrue();
        assertThat(rec.validate(true, Integer.MAX_VALUE)).isEqualTo(ShmRecord.BAD_OPCODE);
    }

    @Test
    void aConsumerPositionThatGoesBack_orPassesTheProducer_isRefused() {
        int n = 0;
        while (send(n, 1000)) {
            n++;
        }
        control.set(ValueLayout.JAVA_LONG, Ring.CONSUMER, producer.tail() + 64);
        assertThat(send(n, 1000)).isFalse();
        assertThat(producer.violation()).isEqualTo(Ring.CONSUMER_AHEAD);

        Ring p2 = new Ring(control, data);
        control.set(ValueLayout.JAVA_LONG, Ring.CONSUMER, 0);
        data.fill((byte) 0);
        for (int i = 0; i < n; i++) {
            assertThat(claimSend(p2)).isTrue();
        }
        control.set(ValueLayout.JAVA_LONG, Ring.CONSUMER, 4096);
        assertThat(claimSend(p2)).as("room after the consumer moved").isTrue();
        control.set(ValueLayout.JAVA_LONG, Ring.CONSUMER, 0);
        while (claimSend(p2)) {
            // up to the next look at the consumer's position
        }
        assertThat(p2.violation()).isEqualTo(Ring.POSITION_BACK);
    }

    private static boolean claimSend(Ring r) {
        int length = ShmRecord.HEADER_BYTES + 1000;
        long p = r.claim(length);
        if (p < 0) {
            return false;
        }
        r.putHeader(p, length, ShmRecord.SEND, 0, 0, 0, 0, 0, 1000);
        r.commit(length);
        return true;
    }
}
