package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.core.*;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The platform threads of one TCP transport's connections (each connection's reader, and its
 * writer), kept for the next connection once theirs ends. A connection starts two on each side,
 * on the path of its setup, and on a 2-vCPU VM a new platform thread cost its starter about
 * 110 us and began to run about 160 us after the start, where a parked thread takes work about
 * 25 us after it is handed to it: {@code dat perf}'s connection setup took 1.9 ms with a new
 * thread for each role and 1.1 ms with kept ones (docs/sim-provider.md, stop 24).
 *
 * <p>At most {@link #IDLE_LIMIT} threads wait for work, each for the idle time at most, the most
 * recently used first: the threads kept stay bounded whatever the number of connections, and a
 * transport without connections keeps none for long. {@link #close} ends them all; the transport's
 * close calls it, and the provider's hot swap calls that.
 */
final class ConnectionThreads {

    private static final Logger LOG = Logger.getLogger(ConnectionThreads.class.getName());

    /** Threads kept waiting for work at most. */
    static final int IDLE_LIMIT = 8;
    /** How long a kept thread waits for work before it ends. */
    static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final String idleName;
    private final long idleNanos;
    /** Kept threads, the most recently idle first. Guarded by {@code this}. */
    private final ArrayDeque<Worker> idle = new ArrayDeque<>();
    /** Every live thread of the pool, idle or running a task. Guarded by {@code this}. */
    private final Set<Worker> workers = new HashSet<>();
    /** Guarded by {@code this}. */
    private boolean closed;
    /** Threads started so far. Guarded by {@code this}. */
    private long started;

    ConnectionThreads(String adapterName) {
        this(adapterName, IDLE_NANOS);
    }

    ConnectionThreads(String adapterName, long idleNanos) {
        this.idleName = "dat-sim-tcp-idle-" + adapterName;
        this.idleNanos = idleNanos;
    }

    /**
     * Runs a task's body on a kept thread, or on a new one when none waits (also once closed: such
     * a thread ends with its task). The task is made beforehand, so that its owner can publish the
     * handle before the body runs.
     *
     * @return {@code task}, which stands for the thread while it runs the body
     */
    Task start(Task task) {
        synchronized (this) {
            Worker kept = idle.pollFirst();
            if (kept != null) {
                kept.next = task;
                LockSupport.unpark(kept.thread);
            } else {
                Worker fresh = new Worker(task);
                fresh.thread.start(); // under the lock: close() joins no thread before its start
                workers.add(fresh);
                started++;
            }
        }
        return task;
    }

    /**
     * Ends the kept threads and waits for every thread of the pool, including those still running
     * a connection's task (the transport closed its connections first).
     *
     * @return whether every thread ended within {@code millis}
     */
    boolean close(long millis) throws InterruptedException {
        List<Worker> all;
        synchronized (this) {
            closed = true;
            for (Worker w : idle) {
                LockSupport.unpark(w.thread);
            }
            all = new ArrayList<>(workers);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (Worker w : all) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !w.thread.join(java.time.Duration.ofNanos(left))) {
                return false;
            }
        }
        return true;
    }

    /** Threads now waiting for work. */
    synchronized int idle() {
        return idle.size();
    }

    /** Live threads of the pool, idle or running a task. */
    synchronized int threads() {
        return workers.size();
    }

    /** Threads the pool started so far. */
    synchronized long started() {
        return started;
    }

    /** The next task of a thread that finished one, or {@code null} when the thread is to end. */
    private Task awaitNext(Worker w) {
        long deadline = System.nanoTime() + idleNanos;
        synchronized (this) {
            if (closed || idle.size() >= IDLE_LIMIT) {
                workers.remove(w);
                return null;
            }
            idle.addFirst(w);
        }
        for (;;) {
            long left;
            synchronized (this) {
                Task next = w.next;
                if (next != null) {
                    w.next = null;
                    return next;
                }
                left = deadline - System.nanoTime();
                if (closed || left <= 0) {
                    idle.remove(w);
                    workers.remove(w);
                    return null;
                }
            }
            // nobody has a reason to interrupt a thread that waits for work, and a set flag would
            // make every park return at once
            Thread.interrupted();
            LockSupport.parkNanos(this, left);
        }
    }

    static Thread providerThread(String name, Runnable body) {
        return ProviderThreads.unstarted(name, body);
    }

    /** A pool thread: runs its first task, then whatever {@link #start} hands it while it is kept. */
    private final class Worker implements Runnable {
        final Thread thread;
        /** The task handed to this thread while it waited. Guarded by the pool. */
        Task next;

        Worker(Task first) {
            next = first;
            thread = providerThread(first.name, this); // dat_ep_connect starts it from the consumer's thread
        }

        @Override
        public void run() {
            Task task;
            synchronized (ConnectionThreads.this) {
                task = next;
                next = null;
            }
            while (task != null) {
                boolean returned = task.runOn(thread);
                task = null; // nothing of the ended connection stays reachable while the thread waits
                if (!returned) { // its body failed: this thread ends, as a thread of its own did
                    synchronized (ConnectionThreads.this) {
                        workers.remove(this);
                    }
                    return;
                }
                thread.setName(idleName);
                task = awaitNext(this);
            }
        }
    }

    /**
     * One body run on a pool thread: what a connection keeps instead of a {@link Thread}. Its
     * interrupts reach the body only; an unpark may reach the thread's next task, whose parks,
     * like every park, look again at what they wait for.
     */
    static final class Task {
        private final String name;
        /** Dropped once run: the task handle the connection keeps holds nothing more. */
        private Runnable body;
        /** The thread while it runs the body. */
        private volatile Thread thread;
        /** An interrupt that came before the body began. Guarded by {@code this}. */
        private boolean interruptPending;
        /** Guarded by {@code this}. */
        private boolean done;

        Task(String name, Runnable body) {
            this.name = name;
            this.body = body;
        }

        /** @return whether the body returned normally (it threw otherwise: the thread then ends) */
        boolean runOn(Thread me) {
            me.setName(name);
            synchronized (this) {
                thread = me;
                if (interruptPending) {
                    me.interrupt();
                }
            }
            try {
                body.run();
                return true;
            } catch (RuntimeException | Error e) {
                TcpTransport.logQuietly(LOG, Level.SEVERE, "sim TCP thread " + name + " failed", e);
                return false;
            } finally {
                body = null;
                synchronized (this) {
                    thread = null;
                    done = true;
                    notifyAll();
                }
                // after "thread = null": an interrupt meant for this body does not reach the next one
                Thread.interrupted();
            }
        }

        /** Wakes the body from a park (none once it has ended). */
        void unpark() {
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }

        /** Interrupts the body: now if it runs, as it begins if it has not yet, not at all once it ended. */
        synchronized void interrupt() {
            Thread t = thread;
            if (t != null) {
                t.interrupt();
            } else if (!done) {
                interruptPending = true;
            }
        }

        /** @return whether the body ended within {@code millis} */
        synchronized boolean join(long millis) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (!done) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return true;
        }

        /** The thread while it runs the body, else {@code null}. */
        Thread thread() {
            return thread;
        }
    }
}
