package dat.provider.sim.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The provider's progress thread parks long when idle (one look per idle period), yet a command
 * runs as soon as it is submitted and a timer fires at its deadline, not at the end of a park.
 */
class ConductorTest {

    /** An idle park far longer than any wait below: only a wake-up or a deadline can end it in time. */
    private static final long HOUR_MICROS = TimeUnit.HOURS.toMicros(1);

    private Conductor conductor;

    @AfterEach
    void close() {
        if (conductor != null) {
            assertThat(conductor.close(5_000)).isTrue();
        }
    }

    private Conductor idleFor(String strategy) throws InterruptedException {
        conductor = new Conductor("conductor-test", IdleStrategy.of(strategy, HOUR_MICROS));
        conductor.start();
        Thread.sleep(50); // past the backoff's spins and yields: parked
        return conductor;
    }

    @Test
    void aCommandWakesAConductorParkedForAnHour() throws InterruptedException {
        for (String strategy : new String[] {"backoff", "sleeping"}) {
            CountDownLatch ran = new CountDownLatch(1);
            idleFor(strategy).submit(ran::countDown);
            assertThat(ran.await(10, TimeUnit.SECONDS)).as(strategy).isTrue();
            assertThat(conductor.close(5_000)).isTrue();
            conductor = null;
        }
    }

    @Test
    void aTimerFiresAtItsDeadlineWhileTheIdleParkIsAnHour() throws InterruptedException {
        for (String strategy : new String[] {"backoff", "sleeping"}) {
            Conductor c = idleFor(strategy);
            CountDownLatch fired = new CountDownLatch(1);
            long start = System.nanoTime();
            // scheduled, then the conductor goes back to its park: the deadline must end that park
            c.schedule(TimeUnit.MILLISECONDS.toMicros(200), fired::countDown);
            assertThat(fired.await(10, TimeUnit.SECONDS)).as(strategy).isTrue();
            assertThat(System.nanoTime() - start).as(strategy + ": not before its deadline")
                    .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
            assertThat(conductor.close(5_000)).isTrue();
            conductor = null;
        }
    }

    @Test
    void aCancelledTimerDoesNotFire() throws InterruptedException {
        Conductor c = idleFor("backoff");
        CountDownLatch fired = new CountDownLatch(1);
        CountDownLatch later = new CountDownLatch(1);
        c.schedule(TimeUnit.MILLISECONDS.toMicros(100), fired::countDown).cancel();
        c.schedule(TimeUnit.MILLISECONDS.toMicros(300), later::countDown);
        assertThat(later.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(fired.getCount()).isEqualTo(1);
    }
}
