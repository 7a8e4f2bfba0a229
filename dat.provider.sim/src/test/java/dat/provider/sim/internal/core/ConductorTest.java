package dat.provider.sim.internal.core;

import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.SimIaFactory;
import dat.provider.sim.internal.ThreadLimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
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
        conductor = new Conductor("conductor-test", IdleStrategy.of(strategy, HOUR_MICROS), IdleStrategy.longestParkNanos(HOUR_MICROS));
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
            // scheduled, then the conductor goes back to its park: the deadline must end that park
            assertFiresAtItsDeadline(idleFor(strategy), 200, strategy);
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

    @Test
    void aTimerDueAfterTheLongestPark_stillFires_notBeforeItsDeadline() throws InterruptedException {
        long parkMicros = TimeUnit.MILLISECONDS.toMicros(20);
        for (String strategy : new String[] {"backoff", "sleeping"}) {
            conductor = new Conductor("conductor-test", IdleStrategy.of(strategy, parkMicros), IdleStrategy.longestParkNanos(parkMicros));
            conductor.start();
            Thread.sleep(300); // past the backoff's growing parks: parked for 20 ms at a time
            assertFiresAtItsDeadline(conductor, 100, strategy);
            assertThat(conductor.close(5_000)).isTrue();
            conductor = null;
        }
    }

    @Test
    void aCancelledTimer_keepsNothingOfItsActionReachable() throws InterruptedException {
        Conductor c = idleFor("backoff");
        Conductor.Timer[] timer = new Conductor.Timer[1];
        WeakReference<Object> held = timerHolding(c, timer);
        timer[0].cancel();
        assertThat(timer[0].cancelled()).isTrue();
        for (int i = 0; i < 50 && held.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(held.get()).as("the cancelled timer's action, queued for an hour").isNull();
    }

    /** Schedules a timer for an hour whose action holds a fresh object (as a connect timeout's holds its attempt), weakly referenced. */
    private static WeakReference<Object> timerHolding(Conductor c, Conductor.Timer[] timer) {
        Object attempt = new Object();
        timer[0] = c.schedule(HOUR_MICROS, attempt::hashCode);
        return new WeakReference<>(attempt);
    }

    @Test
    void cancelledTimers_doNotWakeTheConductorAtTheirDeadlines() throws InterruptedException {
        Conductor c = idleFor("sleeping"); // one park per idle period: an hour, unless a deadline ends it sooner
        CountDownLatch queued = new CountDownLatch(1);
        for (int i = 1; i <= 20; i++) {
            c.schedule(TimeUnit.MILLISECONDS.toMicros(10L * i), () -> {
            }).cancel();
        }
        c.submit(queued::countDown); // the timers are in the conductor's queue, cancelled, after this
        assertThat(queued.await(10, TimeUnit.SECONDS)).isTrue();
        long before = c.cycles();
        Thread.sleep(400); // past all twenty deadlines
        // at most the cycle that ran the command may still end after the count was read
        assertThat(c.cycles() - before).as("duty cycles while only cancelled timers fell due").isLessThanOrEqualTo(1);
    }

    /** Schedules a timer {@code millis} ahead and waits for it: it fires, and not before its deadline. */
    private static void assertFiresAtItsDeadline(Conductor c, long millis, String strategy) throws InterruptedException {
        CountDownLatch fired = new CountDownLatch(1);
        long start = System.nanoTime();
        c.schedule(TimeUnit.MILLISECONDS.toMicros(millis), fired::countDown);
        assertThat(fired.await(10, TimeUnit.SECONDS)).as(strategy).isTrue();
        assertThat(System.nanoTime() - start).as(strategy + ": not before its deadline")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Test
    void aTimerDueAfterTheLongestPark_doesNotWakeTheConductor() throws InterruptedException {
        Conductor c = idleFor("sleeping"); // parked for an hour, its longest park
        long before = c.cycles();
        Conductor.Timer timer = c.schedule(2 * HOUR_MICROS, () -> {
        });
        Thread.sleep(200);
        assertThat(c.cycles() - before).as("duty cycles after a timer due in two hours").isZero();
        timer.cancel();
    }
}
