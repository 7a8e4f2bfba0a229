package dat.provider.sim.internal.core;

import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The provider's progress agent, run by one dedicated thread: it carries out connection
 * management commands (connection requests travelling through the fabric), fires timers
 * (connection timeouts) and calls CNO wait-proxy agents, so that none of these run on, or wait
 * for, a consumer thread. Data transfers do not pass through it: they are carried out on the
 * posting thread (see {@link SimEndpoint}).
 *
 * <p>Commands and timers reach it through lock-free queues; an idle conductor parks according to
 * its {@link IdleStrategy}, never past the next live timer's deadline, and is unparked when a
 * command arrives or a timer falls due before its longest park would end, so the idle park can be
 * long: an idle provider wakes about once per {@code idle_sleep_micros} (100 ms by default). A
 * connect timeout, scheduled by every dat_ep_connect and cancelled by nearly all, neither wakes it
 * nor keeps it from parking long.
 */
final class Conductor implements Runnable {

    /** A timer: fires once at its deadline unless cancelled. */
    static final class Timer implements Comparable<Timer> {
        final long deadlineNanos;
        /**
         * What runs at the deadline; {@code null} once cancelled: a cancelled timer waits in the
         * queue until its deadline, and must not keep what its action reaches (a connection
         * attempt's Endpoint, for as long as the connect timeout) reachable meanwhile.
         */
        private volatile Runnable action;

        Timer(long deadlineNanos, Runnable action) {
            this.deadlineNanos = deadlineNanos;
            this.action = action;
        }

        void cancel() {
            action = null;
        }

        boolean cancelled() {
            return action == null;
        }

        @Override
        public int compareTo(Timer other) {
            return Long.compare(deadlineNanos, other.deadlineNanos);
        }
    }

    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    /** Timers scheduled and not yet in {@link #timers}: adding one is not work that resets the idle backoff. */
    private final ConcurrentLinkedQueue<Timer> scheduled = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private final IdleStrategy idleStrategy;
    /** The longest the idle thread parks before it looks at its commands and timers again. */
    private final long longestParkNanos;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long cycles;

    /**
     * @param idleStrategy what the thread does when it finds no work
     * @param longestParkNanos the longest park of {@code idleStrategy}: a timer due later than
     *     that is added without waking the thread, which looks at its timers before then anyway
     */
    Conductor(String name, IdleStrategy idleStrategy, long longestParkNanos) {
        this.idleStrategy = idleStrategy;
        this.longestParkNanos = longestParkNanos;
        this.thread = ProviderThreads.unstarted(name, this); // a plain-Java provider starts on a consumer's thread
    }

    void start() {
        thread.start();
    }

    /**
     * Queues a command for the conductor thread.
     *
     * @param command the command
     * @return {@code false} when the conductor has stopped
     */
    boolean submit(Runnable command) {
        if (!running) {
            return false;
        }
        commands.add(command);
        LockSupport.unpark(thread);
        return true;
    }

    /**
     * Schedules an action on the conductor thread.
     *
     * @param delayMicros the delay
     * @param action what to run
     * @return the timer, to cancel it
     */
    Timer schedule(long delayMicros, Runnable action) {
        long delayNanos = TimeUnit.MICROSECONDS.toNanos(delayMicros);
        Timer timer = new Timer(System.nanoTime() + delayNanos, action);
        if (running) {
            scheduled.add(timer);
            // a connect timeout of seconds needs no wake-up now: the idle thread looks at its
            // timers at least once per longest park (every dat_ep_connect woke it, and the
            // backoff strategy then spun, yielded and parked some 20 times: 0.1 ms of CPU each)
            if (delayNanos < longestParkNanos) {
                LockSupport.unpark(thread);
            }
        }
        return timer;
    }

    /** One duty cycle: commands first, then due timers. */
    int doWork() {
        int work = 0;
        Runnable command;
        while ((command = commands.poll()) != null) {
            runSafely(command);
            work++;
        }
        Timer timer;
        while ((timer = scheduled.poll()) != null) {
            timers.add(timer); // not counted as work: the backoff parks on, up to the next deadline
        }
        long now = System.nanoTime();
        while ((timer = timers.peek()) != null && timer.deadlineNanos - now <= 0) {
            timers.poll();
            Runnable action = timer.action;
            if (action != null) {
                runSafely(action);
                work++;
            }
        }
        // cancelled timers at the head go now, not at their deadlines, so that the idle park lasts
        // until a live one: every established connection cancels its connect timeout, and at a
        // thousand connections a second their deadlines woke the thread every millisecond
        while ((timer = timers.peek()) != null && timer.cancelled()) {
            timers.poll();
        }
        return work;
    }

    /** Duty cycles run, each ended by work, a wake-up or a park's end (for tests). */
    long cycles() {
        return cycles;
    }

    @Override
    public void run() {
        while (running) {
            cycles++;
            int work = doWork();
            // a command unparks this thread, so an idle park need only end for the next timer:
            // the strategy's park time is how often an idle provider looks, not a timer's lateness
            Timer next = work == 0 ? timers.peek() : null;
            idleStrategy.idle(work, next == null ? Long.MAX_VALUE : Math.max(1, next.deadlineNanos - System.nanoTime()));
        }
        doWork(); // last commands, e.g. agent calls queued by the shutdown
    }

    /**
     * Stops the thread and waits for it to end.
     *
     * @param timeoutMillis how long to wait
     * @return whether the thread ended
     */
    boolean close(long timeoutMillis) {
        running = false;
        LockSupport.unpark(thread);
        if (Thread.currentThread() == thread) {
            return true;
        }
        try {
            thread.join(timeoutMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    boolean isAlive() {
        return thread.isAlive();
    }

    boolean isConductorThread() {
        return Thread.currentThread() == thread;
    }

    private static void runSafely(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException | Error e) {
            // a consumer agent or a bug must not kill the progress thread
            Thread t = Thread.currentThread();
            t.getUncaughtExceptionHandler().uncaughtException(t, e);
        }
    }
}
