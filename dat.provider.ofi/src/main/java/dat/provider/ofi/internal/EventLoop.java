package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.AsyncErrorReason;
import dat.api.EventNumber;
import dat.provider.ofi.internal.ffi.Fabric;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.ofi.internal.ffi.Ops;
import dat.provider.ofi.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

/**
 * The IA's event thread ({@code dat-ofi-<ia>}): it reads the IA's event queue (connection
 * requests, established and shut-down connections, connection errors) and dispatches each entry to
 * its Service Point or Endpoint with the IA's CM lock held; it runs the DAT connect timeouts; and it
 * makes libfabric progress on every completion queue no consumer reads, spins on or blocks on
 * ({@link OfiEvd#watched}): one-sided RDMA aimed at this side, a CNO's EVDs, the EVD a virtual
 * thread parked on. After a wait it reads only the event queue and the CQs whose descriptors
 * were ready, unless the wait timed out, was woken or {@code fi_trywait} refused it.
 *
 * <p>It blocks in {@code poll(2)} on the event queue's and the watched CQs' wait descriptors and
 * an eventfd that wakes it, after {@code fi_trywait} said it may (libfabric's tcp provider keeps
 * bytes it read ahead in user space, which no descriptor shows). When {@code fi_trywait} refuses
 * without anything to do (a message whose receive is not posted yet), it looks again after at
 * most a millisecond; while some CQ is left to its consumer, after at most a millisecond once it
 * took a CQ over, and less often (up to 16 ms) while the consumers keep reading theirs.
 */
final class EventLoop {

    private static final System.Logger LOG = System.getLogger(EventLoop.class.getName());
    private static final int MAX_WATCHED = 1024;
    /** The longest wait while consumers read their CQs themselves ({@link Turn}). */
    private static final int MAX_LOOK_AGAIN_MS = 16;
    private static final CompletionQueue[] NONE = new CompletionQueue[0];

    private final OfiIa ia;
    private final Domain domain;
    private final Fabric fabric;
    private final int wakeFd;
    private final Thread thread;
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private long timerSequence;
    private final MemorySegment eqBuffer;
    private final MemorySegment eqEvent;
    private final MemorySegment eqError;
    private final Arena arena = Arena.ofShared();
    private volatile boolean stopping;
    /** CQs whose EVD was freed, closed by the loop where it holds no reference to them. */
    private final java.util.concurrent.ConcurrentLinkedQueue<CompletionQueue> retired = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private volatile boolean stopped;
    private final java.util.concurrent.ConcurrentLinkedQueue<Runnable> tasks = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** A timeout the loop runs, with the CM lock held, once its deadline passed: the DAT connect timeout. */
    static final class Timer implements Comparable<Timer> {
        private final long deadline;
        private final long sequence;
        private final Runnable action;

        private Timer(long deadline, long sequence, Runnable action) {
            this.deadline = deadline;
            this.sequence = sequence;
            this.action = action;
        }

        @Override
        public int compareTo(Timer other) {
            int byTime = Long.compare(deadline - other.deadline, 0);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    EventLoop(OfiIa ia, Domain domain, Fabric fabric, String name) {
        this.ia = ia;
        this.domain = domain;
        this.fabric = fabric;
        this.wakeFd = fabric.eventfd();
        this.eqBuffer = arena.allocate(Structs.CM_ENTRY_DATA + 1024, 8);
        this.eqEvent = arena.allocate(JAVA_INT);
        this.eqError = arena.allocate(Structs.FI_EQ_ERR_ENTRY);
        // made on the consumer's thread of dat_ia_open, it lives as long as the IA: none of that
        // thread's inheritable thread locals, priority or context class loader stays with it
        thread = Thread.ofPlatform().daemon().priority(Thread.NORM_PRIORITY).name("dat-ofi-" + name)
                .inheritInheritableThreadLocals(false).unstarted(this::run);
        thread.setContextClassLoader(EventLoop.class.getClassLoader());
    }

    void start() {
        thread.start();
    }

    boolean isEventThread() {
        return Thread.currentThread() == thread;
    }

    /** Makes the loop look at its queues and timers again now. */
    void wake() {
        if (Thread.currentThread() == thread) {
            return;
        }
        try (Arena local = Arena.ofConfined()) {
            fabric.signal(wakeFd, local.allocate(8, 8), Fabric.allocateCapture(local));
        }
    }

    /** Runs {@code action} on the loop, the CM lock held, {@code delayNanos} from now; the caller holds the CM lock. */
    Timer schedule(long delayNanos, Runnable action) {
        Timer timer = new Timer(System.nanoTime() + delayNanos, timerSequence++, action);
        timers.add(timer);
        if (timers.peek() == timer) {
            wake();
        }
        return timer;
    }

    /** Cancels a timer that has not run; the caller holds the CM lock. */
    void cancel(Timer timer) {
        if (timer != null) {
            timers.remove(timer);
        }
    }

    /** A freed EVD's CQ: the loop closes it before its next wait (or at once, when the loop is gone). */
    void retire(CompletionQueue cq) {
        retired.add(cq);
        if (stopped) {
            closeRetired();
        } else {
            wake();
        }
    }

    private void closeRetired() {
        for (CompletionQueue cq = retired.poll(); cq != null; cq = retired.poll()) {
            cq.closeNative();
        }
    }

    /** Runs {@code task} on the loop with the CM lock held, soon: for callers that hold an EVD's lock. */
    void execute(Runnable task) {
        tasks.add(task);
        wake();
    }

    private void runTasks() {
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            ia.cmLock.lock();
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "a task of " + thread.getName() + " failed", e);
            } finally {
                ia.cmLock.unlock();
            }
        }
    }

    /** Stops the thread and waits for it (not from the thread itself), then closes the eventfd. */
    void stop() {
        stopping = true;
        if (Thread.currentThread() != thread) {
            wake();
            try {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (thread.isAlive()) {
                LOG.log(System.Logger.Level.ERROR, "the ofi event thread " + thread.getName() + " did not stop");
                return;
            }
        }
        stopped = true;
        closeRetired();
        fabric.closeFd(wakeFd);
        arena.close();
    }

    private void run() {
        try (Arena loop = Arena.ofConfined()) {
            Turn turn = new Turn(loop);
            while (!stopping && ia.isUsable()) {
                turn.run();
            }
        } catch (RuntimeException | Error e) {
            if (ia.isUsable()) {
                LOG.log(System.Logger.Level.ERROR, "the ofi event thread " + thread.getName() + " failed", e);
                ia.postAsync(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, ia, AsyncErrorReason.IA_OTHER_ERROR);
            }
        }
    }

    /**
     * One turn of the loop: the reads, the tasks and timers, then the wait. Each turn is a call of
     * its own and each step a small method: the JIT compiles them whole after a few thousand
     * turns. As one method with its five loops, the loop would be compiled only by on-stack
     * replacement, once per loop that became hot (measured: C2 at half of two CPUs for seconds
     * while the first RDMA writes streamed at this side).
     */
    private final class Turn {
        private final MemorySegment fds;
        private final MemorySegment fids;
        private final MemorySegment capture;
        private final MemorySegment scratch;
        private final OfiEvd[] watched = new OfiEvd[MAX_WATCHED];
        private final int[] fdOwner = new int[MAX_WATCHED + 2];
        private int refused;
        /**
         * What the last wait said: read everything (the first pass, a refused fi_trywait, a
         * timeout, a wake-up), or only the event queue and the CQs whose descriptors were ready.
         */
        private boolean all = true;
        private boolean eqReady = true;
        /** Some CQ is read by its consumer: the wait looks again after at most {@link #lookAgainMs}. */
        private boolean leftToConsumers;
        /** How many EVDs the last turn watched: one more means a CQ was taken over from its consumer. */
        private int lastWatched;
        /**
         * How long a wait lasts at most while consumers read their CQs: a millisecond after the loop
         * took a CQ over, doubling up to {@link #MAX_LOOK_AGAIN_MS} while every turn finds them
         * still read: every look takes the CPU of a consumer spinning on one of two for a moment;
         * a consumer that stops reading has its CQ taken over within
         * {@link OfiEvd#QUIET_NANOS} plus this.
         */
        private int lookAgainMs = 1;

        Turn(Arena loop) {
            fds = loop.allocate(Structs.POLLFD, MAX_WATCHED + 2);
            fids = loop.allocate(ADDRESS, MAX_WATCHED + 1);
            capture = Fabric.allocateCapture(loop);
            scratch = loop.allocate(8, 8);
        }

        void run() {
            closeRetired();
            if (all || eqReady) {
                readEventQueue();
            }
            int count = collectWatched();
            lookAgainMs = count > lastWatched || !leftToConsumers ? 1 : Math.min(lookAgainMs * 2, MAX_LOOK_AGAIN_MS);
            lastWatched = count;
            progressWatched(count);
            runTasks(); // after the reads, which may have queued some (an accept's confirmation)
            runDueTimers();
            int n = pollSet(count);
            await(n, n - 1);
            for (int i = 0; i < count; i++) {
                watched[i] = null;
            }
        }

        /** @return how many EVDs the loop watches this turn, in {@link #watched} */
        private int collectWatched() {
            long now = System.nanoTime();
            int count = 0;
            leftToConsumers = false;
            for (OfiEvd evd : ia.dtoEvds()) {
                if (evd.watched(now) && count < MAX_WATCHED) {
                    watched[count++] = evd;
                } else if (evd.cq != null) {
                    leftToConsumers = true;
                }
            }
            return count;
        }

        private void progressWatched(int count) {
            for (int i = 0; i < count; i++) {
                if (all || watched[i].takeReady()) {
                    watched[i].progress();
                }
            }
        }

        /**
         * Fills the pollfd array (the eventfd, the event queue, the watched CQs) and the fid array
         * {@code fi_trywait} takes (the event queue, the CQs: one fewer).
         *
         * @return how many descriptors
         */
        private int pollSet(int count) {
            Fabric.pollFd(fds, 0, wakeFd);
            Fabric.pollFd(fds, 1, domain.eqFd);
            fids.set(ADDRESS, 0, domain.eq);
            int n = 2;
            for (int i = 0; i < count && n < MAX_WATCHED; i++) {
                n = addQueues(i, n);
            }
            return n;
        }

        private int addQueues(int owner, int n) {
            CompletionQueue[] queues = watched[owner].cq == null ? NONE : watched[owner].queues();
            for (int q = 0; q < queues.length && n < MAX_WATCHED; q++) {
                fdOwner[n] = owner;
                fids.setAtIndex(ADDRESS, n - 1, queues[q].cq);
                Fabric.pollFd(fds, n++, queues[q].waitFd);
            }
            return n;
        }

        /** fi_trywait on {@code f} fids, then poll(2) on {@code n} descriptors; notes what was ready for the next turn. */
        private void await(int n, int f) {
            int timeout = tasks.isEmpty() ? nextTimeoutMs() : 0;
            if (leftToConsumers) {
                timeout = timeout < 0 ? lookAgainMs : Math.min(timeout, lookAgainMs);
            }
            boolean tryRefused = Ops.trywait(domain.fabricFid, fids, f) != 0;
            if (tryRefused) {
                // something is pending that no descriptor shows: look again at once, and after a
                // millisecond when it persists (bytes waiting for a receive the consumer has not posted)
                timeout = ++refused > 2 ? Math.min(timeout < 0 ? 1 : timeout, 1) : 0;
            } else {
                refused = 0;
            }
            int ready = fabric.poll(fds, n, timeout, capture);
            boolean woken = Fabric.ready(fds, 0);
            if (woken) {
                fabric.drain(wakeFd, scratch, capture);
            }
            all = tryRefused || ready == 0 || woken;
            eqReady = Fabric.ready(fds, 1);
            for (int i = 2; i < n; i++) {
                if (Fabric.ready(fds, i)) {
                    watched[fdOwner[i]].markReady();
                }
            }
        }
    }

    /** The poll(2) timeout until the earliest timer: -1 (none), else milliseconds, rounded up. */
    private int nextTimeoutMs() {
        ia.cmLock.lock();
        try {
            Timer first = timers.peek();
            if (first == null) {
                return -1;
            }
            long nanos = first.deadline - System.nanoTime();
            return nanos <= 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, (nanos + 999_999) / 1_000_000);
        } finally {
            ia.cmLock.unlock();
        }
    }

    private void runDueTimers() {
        ia.cmLock.lock();
        try {
            long now = System.nanoTime();
            for (Timer first = timers.peek(); first != null && first.deadline - now <= 0; first = timers.peek()) {
                timers.poll();
                try {
                    first.action.run();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "a connection timeout of " + thread.getName() + " failed", e);
                }
            }
        } finally {
            ia.cmLock.unlock();
        }
    }

    /**
     * Reads and dispatches every entry of the event queue ({@code fi_eq_read} also drives
     * libfabric's CM). Each read and its dispatch hold the CM lock, under which endpoints are
     * made, registered, closed and forgotten: an entry read for an endpoint that is then closed
     * can never reach the next endpoint libfabric makes at the same address (a SHUTDOWN of the
     * previous connection read as the new one's connect failure).
     */
    private void readEventQueue() {
        for (;;) {
            ia.cmLock.lock();
            try {
                long read = Ops.eqRead(domain.eqReadFn, domain.eq, eqEvent, eqBuffer);
                if (read == -Fi.EAGAIN) {
                    return;
                }
                if (read == -Fi.EAVAIL) {
                    readError();
                    continue;
                }
                if (read < 0) {
                    LOG.log(System.Logger.Level.WARNING, "fi_eq_read on " + thread.getName() + ": " + Fi.describe((int) -read));
                    return;
                }
                int event = eqEvent.get(JAVA_INT, 0);
                long fid = eqBuffer.get(JAVA_LONG, Structs.CM_ENTRY_FID);
                MemorySegment info = event == Fi.CONNREQ ? eqBuffer.get(ADDRESS, Structs.CM_ENTRY_INFO) : MemorySegment.NULL;
                int dataLength = (int) Math.max(0, read - Structs.CM_ENTRY_DATA);
                byte[] data = eqBuffer.asSlice(Structs.CM_ENTRY_DATA, dataLength).toArray(JAVA_BYTE);
                dispatch(fid, event, 0, data, info.equals(MemorySegment.NULL) ? info : Fabric.sized(info, Structs.FI_INFO.byteSize()));
            } finally {
                ia.cmLock.unlock();
            }
        }
    }

    private void readError() {
        long read = Ops.eqReadErr(domain.eqReadErrFn, domain.eq, eqError);
        if (read < 0) {
            return;
        }
        long fid = eqError.get(JAVA_LONG, Structs.EQ_ERR_FID);
        int error = eqError.get(JAVA_INT, Structs.EQ_ERR_ERR);
        long size = eqError.get(JAVA_LONG, Structs.EQ_ERR_ERR_DATA_SIZE);
        MemorySegment errData = eqError.get(ADDRESS, Structs.EQ_ERR_ERR_DATA);
        byte[] data = errData.equals(MemorySegment.NULL) || size <= 0 ? new byte[0]
                : Fabric.sized(errData, Math.min(size, 4096)).toArray(JAVA_BYTE);
        dispatch(fid, 0, error == 0 ? Fi.EOTHER : error, data, MemorySegment.NULL);
    }

    private void dispatch(long fid, int event, int error, byte[] data, MemorySegment info) {
        ia.cmLock.lock();
        try {
            OfiIa.CmTarget target = ia.cmTarget(fid);
            if (target != null) {
                target.onCmEvent(event, error, data, info);
            } else if (event == Fi.CONNREQ) {
                PrivateData.refuse(ia, info); // its Service Point went away: nobody will accept
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "a connection event of " + thread.getName() + " failed", e);
        } finally {
            ia.cmLock.unlock();
        }
    }
}
