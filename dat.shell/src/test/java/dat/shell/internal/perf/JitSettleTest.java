package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The JIT's settling as a latency or throughput warm-up asks for it, one clock reading per
 * operation (the slices and the bound are {@link JitWarmUpTest}'s): a bound of 0 (a
 * {@code --quick} run, a later figure of a kind) settles at once without reading the compilers'
 * account, a slice is judged only once it has passed, and no answer is {@code true} before the
 * warm-up's fixed part has passed.
 */
class JitSettleTest {

    @Test
    void aBoundOfZero_settlesAtTheFirstQuestion_withoutReadingTheCompilers() {
        JitSettle settle = new JitSettle(1_000, 0, 0, () -> {
            throw new AssertionError("the compilers' account was read");
        });
        assertThat(settle.settledAt(1_000)).isTrue();
    }

    @Test
    void aSliceIsJudgedOnlyOnceItHasPassed_andTheCompilersWorkInItDecides() {
        AtomicLong compiledMillis = new AtomicLong(40);
        JitSettle settle = new JitSettle(0, 0, 60 * JitSettle.SLICE_NANOS, compiledMillis::get);
        assertThat(settle.settledAt(10)).as("the first question starts a slice").isFalse();
        compiledMillis.addAndGet(100); // a fifth of the slice
        assertThat(settle.settledAt(10 + JitSettle.SLICE_NANOS - 1)).as("the slice has not passed").isFalse();
        assertThat(settle.settledAt(10 + JitSettle.SLICE_NANOS)).as("busy compilers: another slice").isFalse();
        compiledMillis.addAndGet(1); // a five-hundredth of the next
        assertThat(settle.settledAt(10 + 2 * JitSettle.SLICE_NANOS)).isTrue();
    }

    @Test
    void theFixedPartComesFirst_evenWithoutAnAccount_andItsEndStartsTheFirstSlice() {
        assertThat(new JitSettle(100, 50, 0, null).settledAt(149)).isFalse();
        assertThat(new JitSettle(100, 50, 0, null).settledAt(150)).isTrue();
        AtomicLong compiledMillis = new AtomicLong();
        JitSettle settle = new JitSettle(100, 50, 60 * JitSettle.SLICE_NANOS, compiledMillis::get);
        assertThat(settle.settledAt(149)).as("within the fixed part").isFalse();
        assertThat(settle.settledAt(150)).as("the fixed part's end starts a slice").isFalse();
        assertThat(settle.settledAt(150 + JitSettle.SLICE_NANOS - 1)).isFalse();
        assertThat(settle.settledAt(150 + JitSettle.SLICE_NANOS)).as("a quiet slice").isTrue();
    }

    @Test
    void whereTheJvmKeepsNoAccount_itIsSettledAtOnce() {
        assertThat(new JitSettle(0, 0, 60 * JitSettle.SLICE_NANOS, null).settledAt(0)).isTrue();
    }
}
