package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.ThreadLimit;
import dat.provider.sim.internal.core.*;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The threads a TCP transport keeps for its connections' readers and writers. */
@Timeout(30)
class ConnectionThreadsTest {

    private final ConnectionThreads pool = new ConnectionThreads("test");

    @AfterEach
    void close() throws InterruptedException {
        assertThat(pool.close(5_000)).isTrue();
        assertThat(pool.threads()).isZero();
    }

    /** Waits until {@code idle} threads wait for work (10 s at most). */
    static void awaitIdle(ConnectionThreads threads, int idle) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (threads.idle() < idle) {
            assertThat(System.nanoTime() - deadline).as("threads idle: %d", threads.idle()).isNegative();
            Thread.sleep(1);
        }
    }

    private static ConnectionThreads.Task start(ConnectionThreads threads, String name, Runnable body) {
        return threads.start(new ConnectionThreads.Task(name, body));
    }

    private static ConnectionThreads.Task run(ConnectionThreads threads, String name, AtomicReference<Thread> ranOn) {
        return start(threads, name, () -> ranOn.set(Thread.currentThread()));
    }

    @Test
    void aTaskRunsUnderItsName_andTheNextTaskRunsOnTheKeptThread() throws InterruptedException {
        AtomicReference<String> name = new AtomicReference<>();
        AtomicReference<Thread> first = new AtomicReference<>();
        ConnectionThreads.Task a = start(pool, "dat-sim-tcp-writer", () -> {
            name.set(Thread.currentThread().getName());
            first.set(Thread.currentThread());
        });
        assertThat(a.join(5_000)).isTrue();
        assertThat(name.get()).isEqualTo("dat-sim-tcp-writer");
        awaitIdle(pool, 1);
        assertThat(first.get().getName()).isEqualTo("dat-sim-tcp-idle-test");

        AtomicReference<Thread> second = new AtomicReference<>();
        assertThat(run(pool, "dat-sim-tcp-active", second).join(5_000)).isTrue();
        assertThat(second.get()).isSameAs(first.get());
        assertThat(pool.started()).isEqualTo(1);
        assertThat(a.thread()).isNull();
    }

    @Test
    void aThreadStartedFromAConsumerThread_takesNoneOfItsSettings() throws InterruptedException {
        // dat_ep_connect starts the active side's task from the consumer's own thread
        InheritableThreadLocal<String> consumerLocal = new InheritableThreadLocal<>();
        ClassLoader consumerLoader = new ClassLoader(null) {
        };
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicReference<String> local = new AtomicReference<>("unset");
        AtomicBoolean joined = new AtomicBoolean();
        Thread consumer = Thread.ofPlatform().daemon(false).priority(Thread.MAX_PRIORITY).unstarted(() -> {
            consumerLocal.set("the consumer's");
            ConnectionThreads.Task t = start(pool, "dat-sim-tcp-active", () -> {
                ranOn.set(Thread.currentThread());
                local.set(consumerLocal.get());
            });
            try {
                joined.set(t.join(5_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        consumer.setContextClassLoader(consumerLoader);
        consumer.start();
        consumer.join(10_000);
        assertThat(consumer.isAlive()).isFalse();
        assertThat(joined.get()).as("the task ended").isTrue();
        Thread kept = ranOn.get();
        assertThat(kept).isNotNull();
        assertThat(local.get()).isNull();
        assertThat(kept.isDaemon()).isTrue();
        assertThat(kept.getPriority()).isEqualTo(Thread.NORM_PRIORITY);
        assertThat(kept.getContextClassLoader()).isSameAs(ConnectionThreads.class.getClassLoader());
    }

    @Test
    void anInterruptReachesItsTaskOnly_notTheThreadsNextTask() throws InterruptedException {
        // on the pool: an interrupted task, then the next one on the same thread
        CountDownLatch running = new CountDownLatch(1);
        ConnectionThreads.Task a = start(pool, "a", () -> {
            running.countDown();
            while (!Thread.currentThread().isInterrupted()) {
                LockSupport.park();
            }
            // returns with its interrupt status still set
        });
        running.await();
        a.interrupt();
        assertThat(a.join(5_000)).isTrue();
        awaitIdle(pool, 1);
        AtomicBoolean interrupted = new AtomicBoolean(true);
        ConnectionThreads.Task b = start(pool, "b", () -> interrupted.set(Thread.currentThread().isInterrupted()));
        assertThat(b.join(5_000)).isTrue();
        assertThat(interrupted.get()).isFalse();
        assertThat(pool.started()).isEqualTo(1);

        // on this thread, so that no wait for the next task clears the status first: a task that
        // interrupts itself, and one that another thread interrupts until it has ended, each leave
        // the thread uninterrupted
        String name = Thread.currentThread().getName();
        try {
            ConnectionThreads.Task self = new ConnectionThreads.Task("self", () -> Thread.currentThread().interrupt());
            assertThat(self.runOn(Thread.currentThread())).isTrue();
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
            for (int i = 0; i < 200; i++) {
                CountDownLatch begun = new CountDownLatch(1);
                ConnectionThreads.Task target = new ConnectionThreads.Task("target", begun::countDown);
                AtomicBoolean stop = new AtomicBoolean();
                Thread interrupter = Thread.ofPlatform().start(() -> {
                    try {
                        begun.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    while (!stop.get()) {
                        target.interrupt();
                    }
                });
                try {
                    assertThat(target.runOn(Thread.currentThread())).isTrue();
                    Thread.sleep(0, 20_000); // the interrupter keeps at it after the end
                } finally {
                    stop.set(true);
                    interrupter.join();
                }
                assertThat(Thread.currentThread().isInterrupted()).as("round %d", i).isFalse();
            }
        } finally {
            Thread.interrupted();
            Thread.currentThread().setName(name);
        }
    }

    /** Runs a task that holds a payload; returns a weak reference to the payload. */
    private java.lang.ref.WeakReference<byte[]> runHolding() throws InterruptedException {
        byte[] payload = new byte[1 << 20];
        java.lang.ref.WeakReference<byte[]> held = new java.lang.ref.WeakReference<>(payload);
        assertThat(start(pool, "holder", () -> payload[0]++).join(5_000)).isTrue();
        return held;
    }

    @Test
    void aKeptThreadHoldsNothingOfItsEndedTask() throws InterruptedException {
        // a connection's task reaches the connection (its sockets, buffers, Endpoint): a thread
        // waiting for its next task must not keep it
        java.lang.ref.WeakReference<byte[]> held = runHolding();
        awaitIdle(pool, 1);
        for (int i = 0; i < 50 && held.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(held.get()).isNull();
    }

    @Test
    void anInterruptBeforeTheTaskBegins_reachesItWhenItDoes() throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            ConnectionThreads.Task t = start(pool, "t", () -> {
                while (!Thread.currentThread().isInterrupted()) {
                    LockSupport.park();
                }
            });
            t.interrupt(); // the task may not run yet: it must not park for good
            assertThat(t.join(5_000)).as("task %d ended", i).isTrue();
        }
    }

    @Test
    void atMostIdleLimitThreadsAreKept_andAKeptThreadEndsAfterItsIdleTime() throws InterruptedException {
        int tasks = ConnectionThreads.IDLE_LIMIT + 4;
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(tasks);
        List<ConnectionThreads.Task> all = new ArrayList<>();
        for (int i = 0; i < tasks; i++) {
            all.add(start(pool, "t" + i, () -> {
                running.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        running.await();
        assertThat(pool.threads()).isEqualTo(tasks);
        release.countDown();
        for (ConnectionThreads.Task t : all) {
            assertThat(t.join(5_000)).isTrue();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pool.threads() > ConnectionThreads.IDLE_LIMIT && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        awaitIdle(pool, ConnectionThreads.IDLE_LIMIT);
        assertThat(pool.threads()).isEqualTo(ConnectionThreads.IDLE_LIMIT);
        assertThat(pool.idle()).isEqualTo(ConnectionThreads.IDLE_LIMIT);

        ConnectionThreads brief = new ConnectionThreads("brief", TimeUnit.MILLISECONDS.toNanos(50));
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        assertThat(run(brief, "t", ranOn).join(5_000)).isTrue();
        assertThat(ranOn.get().join(java.time.Duration.ofSeconds(5))).as("a kept thread ends after its idle time").isTrue();
        assertThat(brief.threads()).isZero();
        assertThat(brief.close(5_000)).isTrue();
    }

    @Test
    void closeEndsTheKeptThreads_andAThreadStartedAfterItEndsWithItsTask() throws InterruptedException {
        AtomicReference<Thread> kept = new AtomicReference<>();
        assertThat(run(pool, "t", kept).join(5_000)).isTrue();
        awaitIdle(pool, 1);
        assertThat(pool.close(5_000)).isTrue();
        assertThat(kept.get().isAlive()).isFalse();

        AtomicReference<Thread> late = new AtomicReference<>();
        assertThat(run(pool, "late", late).join(5_000)).isTrue();
        assertThat(late.get().join(java.time.Duration.ofSeconds(5))).isTrue();
        assertThat(pool.threads()).isZero();
    }

    @Test
    void aTaskThatThrows_endsItsThread_andThePoolGoesOn() throws InterruptedException {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(ConnectionThreads.class.getName());
        java.util.logging.Level level = log.getLevel();
        log.setLevel(java.util.logging.Level.OFF); // the expected failure's report
        try {
            AtomicReference<Thread> failed = new AtomicReference<>();
            ConnectionThreads.Task bad = start(pool, "bad", () -> {
                failed.set(Thread.currentThread());
                throw new IllegalStateException("expected by the test");
            });
            assertThat(bad.join(5_000)).isTrue();
            assertThat(failed.get().join(java.time.Duration.ofSeconds(5))).isTrue();
            assertThat(pool.threads()).isZero();
            AtomicReference<Thread> next = new AtomicReference<>();
            assertThat(run(pool, "next", next).join(5_000)).isTrue();
            assertThat(next.get()).isNotSameAs(failed.get());
        } finally {
            log.setLevel(level);
        }
    }
}
