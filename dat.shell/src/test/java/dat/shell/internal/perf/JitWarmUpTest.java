package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The warm-up that waits for the JIT: its fixed part always runs, and it never outlasts its bound by more than a slice. */
class JitWarmUpTest {

    @Test
    void theFixedPartRuns_andTheBoundEndsTheRest() {
        AtomicLong runs = new AtomicLong();
        long began = System.nanoTime();
        long counted = JitWarmUp.run(runs::incrementAndGet, 1_000, 50_000_000L, 1_000_000_000L);
        long took = System.nanoTime() - began;
        assertThat(counted).isEqualTo(runs.get()).isGreaterThanOrEqualTo(1_000);
        assertThat(took).as("the warm-up time at least").isGreaterThanOrEqualTo(50_000_000L);
        assertThat(took).as("the bound, and at most the slice that passes it").isLessThan(1_000_000_000L + JitWarmUp.SLICE_NANOS + 500_000_000L);
    }

    @Test
    void aBoundNoLongerThanTheFixedPart_addsNoSlice() {
        AtomicLong runs = new AtomicLong();
        long began = System.nanoTime();
        JitWarmUp.run(runs::incrementAndGet, 10, 20_000_000L, 20_000_000L);
        assertThat(runs.get()).isGreaterThanOrEqualTo(10);
        assertThat(System.nanoTime() - began).as("no slice of %d ms after the fixed part", JitWarmUp.SLICE_NANOS / 1_000_000)
                .isLessThan(JitWarmUp.SLICE_NANOS);
    }
}
