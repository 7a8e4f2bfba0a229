package dat.provider.sim.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The ring of answers: merged cumulative ACKs, a fixed capacity, the held-ACK policy, the answers before an end. */
class ResponsesTest {

    private final Responses r = new Responses();

    private boolean ack(long seq) {
        return r.add(TcpFrame.ACK, seq, TcpFrame.STATUS_OK, null, 0, 0, false);
    }

    @Test
    void consecutiveSuccessfulAcks_mergeIntoOne_thatAcknowledgesTheLast() {
        assertThat(ack(1)).isTrue();
        assertThat(ack(2)).isTrue();
        assertThat(ack(3)).isTrue();
        Responses.Response head = r.takeHead(true, true);
        assertThat(head).as("one answer, alone").isNotNull();
        assertThat(head.seq).isEqualTo(3);
        r.headWritten();
        assertThat(r.any()).isFalse();
    }

    @Test
    void anAckBeingWritten_takesNoMore_andARefusalIsNeverMerged() {
        ack(1);
        assertThat(r.takeHead(false, false).seq).isEqualTo(1); // being written
        ack(2);
        assertThat(r.add(TcpFrame.ACK, 3, TcpFrame.STATUS_REMOTE_ACCESS, null, 0, 0, true)).isTrue();
        ack(4);
        r.headWritten();
        assertThat(r.takeHead(false, false).seq).isEqualTo(2);
        r.headWritten();
        Responses.Response refusal = r.takeHead(false, false);
        assertThat(refusal.status).isEqualTo(TcpFrame.STATUS_REMOTE_ACCESS);
        assertThat(refusal.breakAfter).isTrue();
        assertThat(r.headIsPlainAck()).isFalse();
        r.headWritten();
        assertThat(r.takeHead(true, true).seq).as("the ACK after the refusal, not merged into it").isEqualTo(4);
    }

    @Test
    void theRingHoldsAFixedNumberOfAnswers() {
        for (int i = 0; i < Responses.CAPACITY; i++) {
            assertThat(r.add(TcpFrame.RDMA_READ_RESPONSE, i, TcpFrame.STATUS_OK, null, 0, 8, false)).isTrue();
        }
        assertThat(r.full()).isTrue();
        assertThat(r.add(TcpFrame.RDMA_READ_RESPONSE, 999, TcpFrame.STATUS_OK, null, 0, 8, false)).as("one more").isFalse();
        r.takeHead(false, false);
        r.headWritten();
        assertThat(r.full()).isFalse();
    }

    @Test
    void heldAcks_goOutAtTheHeldMaximum_orAtTheHeldBytes() {
        for (int i = 1; i < TcpFrame.ACKS_HELD_MAX; i++) {
            assertThat(r.held(1)).as("held ACK %d", i).isFalse();
        }
        assertThat(r.held(1)).as("the %dth", TcpFrame.ACKS_HELD_MAX).isTrue();
        r.released();
        assertThat(r.held(TcpFrame.ACK_HELD_BYTES - 1)).isFalse();
        assertThat(r.held(1)).as("the held bytes reached").isTrue();
    }

    @Test
    void theAnswersQueuedBeforeAnEnd_andTheOneOwed_goBeforeIt() {
        ack(1);
        r.add(TcpFrame.RDMA_READ_RESPONSE, 2, TcpFrame.STATUS_OK, null, 0, 8, false);
        r.owe(); // a receive just completed: its ACK is not queued yet
        r.markEnd();
        for (int i = 0; i < 3; i++) {
            assertThat(r.beforeEndPending()).as("answer %d before the end", i).isTrue();
            if (i == 2) {
                ack(3);
            }
            r.takeHead(false, false);
            r.headWritten();
        }
        assertThat(r.beforeEndPending()).isFalse();
    }
}
