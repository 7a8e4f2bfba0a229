package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The warm-up that waits for the JIT: its fixed part always runs, a slice in which the compilers
 * worked little ends it, and it never outlasts its bound by more than a slice. Each operation
 * advances a clock of the test's by 1 ms, and the compilers' account is the test's too: the cases
 * count operations, never time.
 */
class JitWarmUpTest {

    private static final long OPERATION_NANOS = 1_000_000L;
    /** Operations in one slice of the warm-up. */
    private static final long SLICE = JitSettle.SLICE_NANOS / OPERATION_NANOS;

    /** A clock that each operation advances, and the operations counted. */
    private final AtomicLong clock = new AtomicLong(5_000_000_000L);
    private final AtomicLong operations = new AtomicLong();
    /** The compilers' total time, in ms. */
    private final AtomicLong compiled = new AtomicLong();

    private void operation() {
        operations.incrementAndGet();
        clock.addAndGet(OPERATION_NANOS);
    }

    /** An operation after which, every {@code every} operations, the compilers have worked 1 ms more. */
    private Runnable compilingOneMillisecondIn(int every) {
        return () -> {
            operation();
            if (operations.get() % every == 0) {
                compiled.incrementAndGet();
            }
        };
    }

    @Test
    void theFixedPartRuns_itsCountOrItsTimeWhicheverIsLonger() {
        long ran = JitWarmUp.run(this::operation, 1_000, 50 * OPERATION_NANOS, 0, clock::get, compiled::get);
        assertThat(ran).isEqualTo(operations.get()).isEqualTo(1_000);
        operations.set(0);
        ran = JitWarmUp.run(this::operation, 10, 300 * OPERATION_NANOS, 0, clock::get, compiled::get);
        assertThat(ran).isEqualTo(operations.get()).isEqualTo(300);
    }

    @Test
    void aSliceInWhichTheCompilersWorkedLittle_endsTheWarmUp() {
        // the compilers keep a slice busy 1 ms of every 100 (1%, under the settled share): one slice
        long ran = JitWarmUp.run(compilingOneMillisecondIn(100), 10, 0, 60_000 * OPERATION_NANOS, clock::get, compiled::get);
        assertThat(ran).isEqualTo(10 + SLICE);
    }

    @Test
    void whileTheCompilersWork_slicesGoOnUntilTheBound_andTheSliceThatPassesItEnds() {
        // busy a tenth of each slice (over the settled share): slices until 2 s, the bound, have passed
        long ran = JitWarmUp.run(compilingOneMillisecondIn(10), 100, 0, 2_000 * OPERATION_NANOS, clock::get, compiled::get);
        assertThat(ran).isEqualTo(100 + 4 * SLICE); // 100 ms, then slices ending at 0.6, 1.1, 1.6 and 2.1 s
    }

    @Test
    void aBoundNoLongerThanTheFixedPart_addsNoSlice() {
        long ran = JitWarmUp.run(this::operation, 10, 20 * OPERATION_NANOS, 20 * OPERATION_NANOS, clock::get, () -> {
            compiled.addAndGet(1_000); // the compilers never settle: only the bound ends the warm-up
            return compiled.get();
        });
        assertThat(ran).isEqualTo(20);
    }

    @Test
    void whereTheJvmDoesNotAccountTheCompilers_theFixedPartIsAll() {
        assertThat(JitWarmUp.run(this::operation, 10, 0, 60_000 * OPERATION_NANOS, clock::get, null)).isEqualTo(10);
    }

    @Test
    void theSystemClockAndTheJvmsCompilers_runTheFixedPartAtLeast() {
        assertThat(JitWarmUp.run(operations::incrementAndGet, 1_000, 0, 0)).isEqualTo(operations.get()).isGreaterThanOrEqualTo(1_000);
    }
}
