package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The connection setup figure's batches: as many connections as asked, and the spread of their means. */
class ConnectionBatchesTest {

    @Test
    void theConnectionsAreSplitIntoFourBatches_asEvenlyAsTheyGo() {
        assertThat(ConnectionBatches.sizes(200, 4)).containsExactly(50, 50, 50, 50);
        assertThat(ConnectionBatches.sizes(50, 4)).containsExactly(13, 13, 12, 12);
        assertThat(ConnectionBatches.sizes(3, 4)).containsExactly(1, 1, 1);
        assertThat(ConnectionBatches.describe(ConnectionBatches.sizes(200, 4))).isEqualTo("4 batches of 50 connections");
        assertThat(ConnectionBatches.describe(ConnectionBatches.sizes(50, 4))).isEqualTo("4 batches of 12 to 13 connections");
        assertThat(ConnectionBatches.describe(ConnectionBatches.sizes(1, 4))).isEqualTo("1 batch of 1 connection");
    }

    @Test
    void everyConnectionIsTimed_andTheBatchesMeansSpreadAroundTheFigure() {
        AtomicInteger calls = new AtomicInteger();
        // each call takes a millisecond longer than the one before: the last batch's mean is the largest
        ConnectionBatches.Timing timing = ConnectionBatches.time(8, () -> spin(calls.getAndIncrement() * 1_000_000L));
        assertThat(calls).hasValue(8);
        Spread spread = timing.spread();
        assertThat(spread.count()).isEqualTo(4);
        assertThat(spread.parts()).isEqualTo("4 batches of 2 connections");
        assertThat(spread.min()).isGreaterThanOrEqualTo(500).isLessThan(timing.micros());
        assertThat(spread.max()).isGreaterThanOrEqualTo(6500).isGreaterThan(timing.micros());
        assertThat(timing.micros()).isGreaterThanOrEqualTo(3500);
        assertThat(spread.hasBaseline()).isFalse();
    }

    @Test
    void theFigureIsTheMedianBatch_soOneSlowBatchMovesItNoFurtherThanTheNextBatch() {
        AtomicInteger calls = new AtomicInteger();
        // batches of 2 calls: 1 ms, 2 ms and 3 ms each, then 40 ms each (the host took the core)
        ConnectionBatches.Timing timing = ConnectionBatches.time(8, () -> {
            int batch = calls.getAndIncrement() / 2;
            spin((batch == 3 ? 40 : batch + 1) * 1_000_000L);
        });
        // the median of 1, 2, 3 and 40 ms is 2.5 ms; all connections over all their time would read 11.5 ms
        assertThat(timing.micros()).isGreaterThanOrEqualTo(2500).isLessThan(8000); // room for a preempted spin
        assertThat(timing.spread().max()).isGreaterThanOrEqualTo(40_000);
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }
}
