package dat.provider.sim.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The initiator's backoff after receiver-not-ready answers: it doubles for the same send, up to its cap. */
class RnrBackoffTest {

    @Test
    void theBackoffDoublesForTheSameSend_upTo10ms_andStartsOverForAnotherOrAfterAnAck() {
        RnrBackoff b = new RnrBackoff();
        assertThat(b.active()).isFalse();
        long[] waits = new long[12];
        for (int i = 0; i < waits.length; i++) {
            long before = System.nanoTime();
            waits[i] = b.refused(7) - before;
        }
        assertThat(waits[0]).isBetween(50_000L, 50_000L + 5_000_000L);
        assertThat(waits[1]).isGreaterThanOrEqualTo(100_000L);
        assertThat(waits[11]).isBetween(10_000_000L, 10_000_000L + 5_000_000L);
        assertThat(b.active()).isTrue();
        long before = System.nanoTime();
        assertThat(b.refused(8) - before).as("another send starts over").isLessThan(5_000_000L);
        b.refused(8);
        b.acknowledged();
        before = System.nanoTime();
        assertThat(b.refused(8) - before).as("after an ACK").isLessThan(5_000_000L);
    }

    @Test
    void aBackoffThatEnded_isNotActive() throws InterruptedException {
        RnrBackoff b = new RnrBackoff();
        b.refused(1);
        Thread.sleep(2);
        assertThat(b.active()).isFalse();
        assertThat(b.retryAt()).isEqualTo(Long.MIN_VALUE);
    }
}
