package dat.provider.sim.internal;

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
 * <p>Commands reach it through a lock-free queue; an idle conductor parks according to its
 * {@link IdleStrategy}, never past the next timer's deadline, and is unparked when a command
 * arrives. Every piece of work comes as a command (a timer is added by one), so the idle park can
 * be long: an idle provider wakes about once per {@code idle_sleep_micros} (100 ms by default).
 */
final class Conductor implements Runnable {

    /** A timer: fires once at its deadline unless cancelled. */
    static final class Timer implements Comparable<Timer> {
        final long deadlineNanos;
        final Runnable action;
        volatile boolean cancelled;

        Timer(long deadlineNanos, Runnable action) {
            this.deadlineNanos = deadlineNanos;
            this.action = action;
        }

        void cancel() {
            cancelled = true;
        }

        @Override
        public int compareTo(Timer other) {
            return Long.compare(deadlineNanos, other.deadlineNanos);
        }
    }

    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private final IdleStrategy idleStrategy;
    private final Thread thread;
    private volatile boolean running = true;

    Conductor(String name, IdleStrategy idleStrategy) {
        this.idleStrategy = idleStrategy;
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this);
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
        Timer timer = new Timer(System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(delayMicros), action);
        submit(() -> timers.add(timer));
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
        long now = System.nanoTime();
        Timer timer;
        while ((timer = timers.peek()) != null && timer.deadlineNanos - now <= 0) {
            timers.poll();
            if (!timer.cancelled) {
                runSafely(timer.action);
                work++;
            }
        }
        return work;
    }

    @Override
    public void run() {
        while (running) {
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
