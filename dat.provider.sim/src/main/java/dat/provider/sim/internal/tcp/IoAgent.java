package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.core.ProviderThreads;
import dat.provider.sim.internal.core.SimEvd;
import dat.provider.sim.internal.core.WaitDriver;
import dat.provider.sim.internal.shm.ShmPoller;
import java.io.IOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The I/O agent of one TCP IA: one selector over all the IA's sockets and a duty cycle that
 * selects, hands each ready key to its {@link Handler}, runs the commands other threads queued
 * (a connection to register, output to flush), the timers and the periodic work (liveness).
 * Nothing in a cycle blocks: every socket is non-blocking, and a handler that cannot go on (a
 * full socket, a frame still arriving) returns and is called again when its socket is ready. A
 * connection therefore costs a selection key and its buffers, never a thread.
 *
 * <p><b>Who runs the cycle.</b> Whoever holds the agent's role ({@link #role}): its own platform
 * thread, or a consumer blocked in dat_evd_wait(3DAT) on an EVD this IA's connections feed
 * ({@link #drive}, the invoker mode of Aeron's agents), so that a message wakes one thread, the
 * consumer's, as a plain socket does, instead of the agent's and then the consumer's. A driver
 * whose cycle finds nothing looks at the sockets without sleeping for a while
 * ({@link SocketSpin}, the IA's {@code tcp_spin_us}) before its select waits: an answer
 * that comes meanwhile (a ping-pong's reply, the ACK a full window waits for) then wakes no thread
 * at all. While a
 * consumer drove last, on an IA with one connection, the agent's thread stays parked for a short
 * lease and the consumer, back for its next wait (a ping-pong), finds the role free without
 * waking anyone; when the lease ends with no consumer driving, the agent's thread serves the
 * socket again. So a frame that comes while that consumer does something else waits at most the
 * lease. On an IA with more connections a driver that leaves hands the role back at once, so
 * that the others are served without waiting for it.
 *
 * <p>Other threads reach the agent through {@link #execute} and {@link #flushSoon}: the command
 * is queued, and the role's holder woken only when it waits (a thread that finds the agent busy
 * costs no system call).
 *
 * <p><b>Shared-memory connections</b> ({@link ShmPoller}) have no socket that becomes ready when
 * data comes: the cycles poll their rings ({@link AgentRings}), and a cycle that finds nothing
 * spins on them before it sleeps in its select with their doorbells armed (the peer then sends a
 * NOP after it publishes). While consumers poll them ({@link #poll}, on the consumer's thread,
 * without the role), the agent's thread leaves the rings to them and looks again within a lease.
 */
final class IoAgent implements WaitDriver {

    private static final Logger LOG = Logger.getLogger(IoAgent.class.getName());
    /**
     * How long the agent's thread leaves the sockets to the consumer that drove last. The cost: a
     * frame that comes while that consumer does something else waits this long at most.
     */
    private static final long LEASE_NANOS = 1_000_000;
    /**
     * The agent's thread looks every lease whether a consumer still drives; after this many
     * looks at one drive it parks until that driver leaves, so that a consumer blocked in a long
     * wait does not cost a thousand wake-ups a second.
     */
    private static final int LOOKS_BEFORE_LONG_PARK = 4;
    /** A select times whole milliseconds: a driver with less left gives the role back and parks precisely. */
    private static final long SELECT_GRAIN_NANOS = 1_000_000;

    /** What a selection key's attachment does when its channel is ready. */
    interface Handler {

        /**
         * The channel is ready for the operations in {@code readyOps}.
         *
         * @param readyOps the key's ready set
         */
        void ready(int readyOps);

        /** The agent ends (the transport closes): the channel goes. */
        void agentEnded();

        /** {@link #ready} failed on an unexpected exception (a defect): what the channel serves ends. */
        default void failed() {
            agentEnded();
        }
    }

    /** Work done once per period by the role's holder. */
    interface Periodic {

        /**
         * @param now {@link System#nanoTime} read for this round
         */
        void run(long now);
    }

    /** One piece of work due at a time. */
    private record Timer(long at, long order, Runnable task) implements Comparable<Timer> {
        @Override
        public int compareTo(Timer o) {
            int c = Long.compare(at - o.at, 0);
            return c != 0 ? c : Long.compare(order, o.order);
        }
    }

    private final Selector selector;
    private final Thread thread;
    /** Held by whoever runs the duty cycle: the agent's thread or a driving consumer. */
    private final ReentrantLock role = new ReentrantLock();
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Output> flushes = new ConcurrentLinkedQueue<>();
    /** Work due at a time ({@link #at}); the role's holder only. */
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    /** Flushes a driving consumer left for its next request to carry ({@link #defer}); the role's holder only. */
    private final java.util.ArrayDeque<Runnable> deferred = new java.util.ArrayDeque<>();
    /** When the deferred flushes run at the latest, if no request took them before. */
    private long deferredUntil;
    private long timerOrder;
    private long nextPeriod;
    /** The role's holder waits (or is about to wait) in select: a command must wake it. */
    private final AtomicBoolean selecting = new AtomicBoolean();
    private final long periodNanos;
    private final Periodic periodic;
    /**
     * Whether the IA has at most one connection: only then does a driver that leaves keep a lease
     * (its next wait finds the role free); with more, the agent's thread serves the others at once.
     */
    private final java.util.function.BooleanSupplier single;
    private volatile boolean closed;
    /** The consumer thread that drives now, or {@code null}. */
    private volatile Thread driver;
    /** Until then ({@link System#nanoTime}) the agent's thread leaves the role to the consumer that drove last. */
    private volatile long lease;
    /** The consumer that drove last and holds the {@link #lease}, or {@code null}. */
    private volatile Thread leaseHolder;
    /**
     * The flushes queued are the lease holder's own: its next drive writes them, else the agent's
     * thread once the lease ends (see {@link #flushSoon}).
     */
    private volatile boolean flushesHeldForLease;
    /** Drives begun: the agent's thread tells one long drive from several short ones. */
    private volatile long drivesBegun;
    /** The agent's thread parks until the driver leaves (set before it looks once more; the driver unparks it). */
    private volatile boolean parkedForDriver;
    /** The agent's thread parks within a lease: queued work unparks it. */
    private volatile boolean parkedInLease;
    /** A consumer that found the role taken asks for it: the holder hands it over after its cycle. */
    private volatile boolean roleWanted;
    /** The EVD of a consumer that could not take the role: woken when the role comes free. */
    private volatile SimEvd refused;
    /** Duty cycles run, and those run by driving consumers, for tests and statistics. */
    private volatile long cycles;
    private volatile long drivenCycles;
    /** The agent's thread's looks while consumers drove, for tests. */
    private volatile long looksWhileDriven;
    /** Leases the agent's thread gave a consumer that asked for the role, for tests. */
    private volatile long leasesForRequests;
    /** A driving consumer's look at the sockets before its select waits. */
    private final SocketSpin socketSpin;
    /** The ready keys' handlers, without allocating a selected-key set per select. */
    private final Consumer<SelectionKey> dispatch = this::dispatch;
    /** The IA's shared-memory connections. */
    private final ShmPoller rings;
    /** Their rings as the cycles serve them. */
    private final AgentRings agentRings;
    /** Whether something came for the cycle itself, which ends a spin on the rings. */
    private final java.util.function.BooleanSupplier workForCycle = () -> workQueued() || closed;
    /**
     * Connections that ended through {@link #dispatch}'s catch-all (a defect: a peer's frame must
     * end its connection through the wire's checks), for tests.
     */
    private final java.util.concurrent.atomic.AtomicLong unexpectedEnds = new java.util.concurrent.atomic.AtomicLong();

    /**
     * An agent, not started.
     *
     * @param name its thread's name
     * @param periodNanos how often {@code periodic} runs
     * @param periodic the periodic work
     * @param single whether the IA has at most one connection (see {@link #single})
     * @param rings the IA's shared-memory connections
     * @param driverSpinMicros how long a driving consumer looks at the sockets before it sleeps ({@link SocketSpin}), 0 for not at all
     * @throws IOException when no selector can be opened
     */
    IoAgent(String name, long periodNanos, Periodic periodic, java.util.function.BooleanSupplier single, ShmPoller rings,
            long driverSpinMicros) throws IOException {
        this.socketSpin = new SocketSpin(driverSpinMicros);
        this.selector = Selector.open();
        this.rings = rings;
        this.periodNanos = periodNanos;
        this.periodic = periodic;
        this.single = single;
        this.thread = ProviderThreads.unstarted(name, this::run);
        this.agentRings = new AgentRings(rings, thread, LEASE_NANOS);
        // loaded now, not when first needed: a process out of descriptors cannot read a class file
        timers.add(new Timer(0, 0, () -> {
        }));
        timers.clear();
    }

    void start() {
        nextPeriod = System.nanoTime() + periodNanos;
        thread.start();
    }

    /** Whether the calling thread runs the duty cycle now. */
    boolean inAgent() {
        return role.isHeldByCurrentThread();
    }

    long cycles() {
        return cycles;
    }

    /** Duty cycles run by consumers driving from their waits, for tests and statistics. */
    long drivenCycles() {
        return drivenCycles;
    }

    long drivesBegun() {
        return drivesBegun;
    }

    long looksWhileDriven() {
        return looksWhileDriven;
    }

    long leasesForRequests() {
        return leasesForRequests;
    }

    long ringRecordsOnAgentThread() {
        return agentRings.recordsOnAgentThread();
    }

    SocketSpin socketSpin() {
        return socketSpin;
    }

    /** The role, for tests that hold it as the agent's thread would. */
    ReentrantLock role() {
        return role;
    }

    /**
     * For a test that holds the role as the agent's thread would: takes it as a refused consumer
     * does, asking the holder to leave it free after its cycle. A plain {@code role().lock()} can
     * wait for seconds, since the agent's thread takes the role again between its cycles before
     * the parked locker runs.
     */
    void lockRoleForTest() {
        while (!role.tryLock()) {
            askForRole();
            Thread.onSpinWait();
        }
    }

    /** Asks the role's holder to hand it over after its cycle, waking its select. */
    private void askForRole() {
        roleWanted = true;
        if (selecting.get() && selecting.compareAndSet(true, false)) {
            selector.wakeup();
        }
    }

    /** After a test let go of the role it held: a consumer refused meanwhile takes it, as after the agent's cycle. */
    void roleReleased() {
        wakeRefused();
    }

    /** Whether a consumer runs the cycle now (on its own thread, from its wait). */
    boolean driven() {
        return driver == Thread.currentThread();
    }

    /**
     * Registers a channel with the selector; by the role's holder only.
     *
     * @throws ClosedChannelException when the channel closed meanwhile
     */
    SelectionKey register(SelectableChannel channel, int ops, Handler handler) throws ClosedChannelException {
        return channel.register(selector, ops, handler);
    }

    /**
     * Runs {@code command} in the agent's next cycle.
     *
     * @return {@code false} when the agent has ended (the command will not run)
     */
    boolean execute(Runnable command) {
        if (closed) {
            return false;
        }
        commands.add(command);
        wake();
        return !closed || !commands.remove(command);
    }

    /**
     * An output has bytes to write that its caller could not write itself: written in the next
     * cycle. The consumer that holds the lease (it drove last, and comes back to its next wait)
     * wakes nobody: its next drive writes what it queued, all its requests posted meanwhile in one
     * gathering write, or the agent's thread once the lease ends. So a consumer that keeps a deep
     * pipeline full costs no wake-up of the agent's thread per batch, and no contention with it
     * for its Endpoint.
     */
    void flushSoon(Output output) {
        flushes.add(output);
        if (leaseHolder == Thread.currentThread() && lease - System.nanoTime() > 0) {
            flushesHeldForLease = true;
            return;
        }
        flushesHeldForLease = false; // another thread's flush: the agent's thread writes it now
        wake();
    }

    /**
     * Runs {@code task} once {@link System#nanoTime} reaches {@code at}; by the role's holder only
     * (others go through {@link #execute}).
     */
    void at(long at, Runnable task) {
        timers.add(new Timer(at, timerOrder++, task));
    }

    /**
     * By the role's holder: {@code flush} sends what a driving consumer left behind (the ACKs it
     * holds); it runs before the consumer blocks in a select, or one lease from now at the latest.
     */
    void defer(Runnable flush) {
        if (deferred.isEmpty()) {
            deferredUntil = System.nanoTime() + LEASE_NANOS;
        }
        deferred.add(flush);
    }

    private void runDeferred() {
        for (Runnable r; (r = deferred.poll()) != null;) {
            try {
                r.run();
            } catch (RuntimeException | Error e) {
                TcpTransport.logQuietly(LOG, Level.WARNING, "dat.provider.sim: a TCP flush failed", e);
            }
        }
    }

    /** Wakes whoever must run the next cycle: the holder waiting in select, or the agent's thread parked in a lease. */
    private void wake() {
        if (selecting.get() && selecting.compareAndSet(true, false)) {
            selector.wakeup();
        } else if (parkedInLease) {
            LockSupport.unpark(thread);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the agent's thread
    // ---------------------------------------------------------------------------------------------

    private void run() {
        try {
            long seenDrives = -1;
            int looks = 0;
            while (!closed) {
                if (!role.tryLock()) {
                    // a consumer drives: look again after a lease, or, after several looks at the
                    // same drive, park until it leaves
                    long drives = drivesBegun;
                    looksWhileDriven++;
                    looks = drives == seenDrives ? looks + 1 : 0;
                    seenDrives = drives;
                    parkWhileDriven(looks >= LOOKS_BEFORE_LONG_PARK);
                    continue;
                }
                long left;
                boolean cycled = false;
                try {
                    left = lease - System.nanoTime();
                    if (left <= 0 || workForAgentThread()) {
                        roleWanted = false;
                        cycle(Long.MAX_VALUE);
                        cycled = true;
                        left = 0;
                    }
                } finally {
                    role.unlock();
                }
                // a request made during this thread's cycle is answered with a lease; one left
                // standing by a consumer that took the role since is not: renewed at every look,
                // it would leave the sockets unserved until other work came
                if (cycled && roleWanted) {
                    leasesForRequests++;
                    leaseHolder = null;
                    lease = System.nanoTime() + LEASE_NANOS; // a consumer takes the role: it finds it free
                }
                wakeRefused(); // a consumer that found the role taken meanwhile takes it now
                if (left > 0) {
                    parkInLease(left);
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            if (!closed) {
                TcpTransport.logQuietly(LOG, Level.SEVERE, "the I/O agent " + thread.getName() + " failed", e);
            }
        } finally {
            closed = true;
            role.lock(); // a driver leaves once it sees the agent closed
            try {
                endAll();
            } finally {
                role.unlock();
            }
        }
    }

    private boolean workQueued() {
        return !commands.isEmpty() || !flushes.isEmpty();
    }

    /** Work the agent's thread runs within a lease: all but the flushes the lease holder queued for its next drive. */
    private boolean workForAgentThread() {
        return !commands.isEmpty() || !flushes.isEmpty() && !flushesHeldForLease;
    }

    private void parkInLease(long nanos) {
        parkedInLease = true;
        try {
            if (!workForAgentThread() && !closed) { // after the flag: work queued before it is seen here, after it unparks
                LockSupport.parkNanos(this, nanos);
            }
        } finally {
            parkedInLease = false;
        }
    }

    private void parkWhileDriven(boolean longPark) {
        if (!longPark) {
            LockSupport.parkNanos(this, LEASE_NANOS);
            return;
        }
        parkedForDriver = true;
        try {
            // after the flag: a driver that left before it is seen here, one that leaves after it unparks
            if (driver != null && !closed) {
                LockSupport.park(this);
            }
        } finally {
            parkedForDriver = false;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the duty cycle
    // ---------------------------------------------------------------------------------------------

    /**
     * One duty cycle, by the role's holder: the periodic work when due, a select that waits at
     * most {@code maxWaitNanos} (less for a timer or the period; not at all with work queued),
     * the ready keys, the queued commands and flushes, the timers due.
     */
    private void cycle(long maxWaitNanos) throws IOException {
        cycle(maxWaitNanos, null);
    }

    /**
     * One duty cycle; that of a driving consumer given {@code spinFor} (its EVD) looks at the
     * sockets for a while ({@link SocketSpin}) before a select that would wait.
     *
     * @return {@code false} when the cycle waited (spun, or slept in its select) and nothing came
     *     for a socket or ring: a driver's next cycle then does not spin
     */
    private boolean cycle(long maxWaitNanos, SimEvd spinFor) throws IOException {
        long now = System.nanoTime();
        if (now - nextPeriod >= 0) {
            runPeriodic(now);
            nextPeriod = now + periodNanos;
        }
        boolean shared = agentRings.any();
        int found = shared ? agentRings.begin() : 0;
        long wait = Math.min(maxWaitNanos, nextPeriod - now);
        Timer next = timers.peek();
        if (next != null) {
            wait = Math.min(wait, next.at() - now);
        }
        if (!deferred.isEmpty()) {
            if (wait > 0 || now - deferredUntil >= 0) {
                runDeferred(); // before a wait: the peer must not wait for them meanwhile
            } else {
                wait = Math.min(wait, deferredUntil - now);
            }
        }
        if (found > 0) {
            wait = 0;
        } else if (shared) {
            wait = agentRings.beforeWait(wait, workForCycle);
        }
        // whole milliseconds, rounded up: a timer or the period may run up to a millisecond late
        long millis = wait <= 0 ? 0 : (wait + 999_999) / 1_000_000;
        boolean waited = false;
        if (spinFor != null && millis > 0 && !shared && socketSpin.enabled() && !spinEnds(spinFor)) {
            // the spin looks for queued work itself: selecting stays false, so no thread wakes it
            // (with rings, their spin above was the look)
            long spun = socketSpin.run(selector, dispatch, this, spinFor, wait);
            waited = true;
            if (spun < 0) {
                found++;
                millis = -1; // something came while the driver looked: no select
            } else {
                millis = SocketSpin.millisAfter(wait, spun, maxWaitNanos);
            }
        }
        if (millis >= 0) {
            selecting.set(true);
            // after the flag: a command queued before it is seen here, one queued after it wakes the select
            if (workQueued() || millis == 0 || closed) {
                selecting.set(false);
                found += selector.selectNow(dispatch);
            } else {
                found += selector.select(dispatch, millis);
                selecting.set(false);
                waited = true;
            }
        }
        if (shared) {
            agentRings.afterWait();
        }
        runCommands();
        runFlushes();
        runTimers();
        if (shared) {
            found += agentRings.end(); // what a doorbell announced, before the next select
        }
        cycles++;
        return found > 0 || !waited;
    }

    /** Whether a driving consumer's spin ends: work queued, the agent closed, its wait over, or its thread interrupted. */
    boolean spinEnds(SimEvd driven) {
        return workQueued() || closed || driven.waitOver() || Thread.currentThread().isInterrupted();
    }

    private void dispatch(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        Handler h = (Handler) key.attachment();
        int readyOps;
        try {
            readyOps = key.readyOps();
        } catch (CancelledKeyException closedMeanwhile) {
            return; // another thread closed the channel since the select: its close ends what it served
        }
        try {
            h.ready(readyOps);
        } catch (RuntimeException | Error e) {
            // a defect in one connection's handling, or an Error (no memory, a class that could not
            // be read): that connection ends, the agent and the IA's other connections go on
            unexpectedEnds.incrementAndGet();
            TcpTransport.logQuietly(LOG, Level.WARNING, "dat.provider.sim: a TCP connection breaks on an unexpected exception", e);
            try {
                h.failed();
            } catch (RuntimeException | Error ignored) {
                // it ends anyway
            }
        }
    }

    /**
     * Sets the interest ops {@code set} of {@code k} and clears {@code clear}; a key that another
     * thread's close cancelled (a consumer's disconnect, the IA's close) is left alone: that close
     * ends what the channel served.
     */
    static void interest(SelectionKey k, int set, int clear) {
        if (k == null) {
            return;
        }
        try {
            k.interestOps(k.interestOps() & ~clear | set);
        } catch (CancelledKeyException closedMeanwhile) {
            // see above
        }
    }

    /** How many connections ended on an unexpected exception, for tests. */
    long unexpectedEnds() {
        return unexpectedEnds.get();
    }

    private void runCommands() {
        for (Runnable c; (c = commands.poll()) != null;) {
            try {
                c.run();
            } catch (RuntimeException | Error e) {
                TcpTransport.logQuietly(LOG, Level.WARNING, "dat.provider.sim: a TCP command failed", e);
            }
        }
    }

    private void runFlushes() {
        flushesHeldForLease = false;
        for (Output o; (o = flushes.poll()) != null;) {
            try {
                o.flushFromAgent();
            } catch (RuntimeException | Error e) {
                TcpTransport.logQuietly(LOG, Level.WARNING, "dat.provider.sim: a TCP flush failed", e);
            }
        }
    }

    private void runTimers() {
        if (timers.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        for (Timer t; (t = timers.peek()) != null && t.at() - now <= 0;) {
            timers.poll();
            try {
                t.task().run();
            } catch (RuntimeException | Error e) {
                TcpTransport.logQuietly(LOG, Level.WARNING, "dat.provider.sim: a TCP timer failed", e);
            }
        }
    }

    private void runPeriodic(long now) {
        try {
            periodic.run(now);
        } catch (RuntimeException | Error e) {
            TcpTransport.logQuietly(LOG, Level.WARNING, "dat.provider.sim: the TCP liveness check failed", e);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // driving consumers
    // ---------------------------------------------------------------------------------------------

    /**
     * A consumer blocked in dat_evd_wait on {@code evd} runs the duty cycle itself until its wait
     * is over, its deadline nears, or it is interrupted. A wait with less than a select's grain
     * left gives the role back at once, and the caller parks precisely while the agent's thread
     * serves the sockets.
     */
    @Override
    public boolean drive(SimEvd evd, boolean infinite, long deadline) {
        if (closed) {
            return false;
        }
        if (!role.tryLock()) {
            // the agent's thread holds it: it hands it over after its cycle, and wakes this waiter
            refused = evd;
            askForRole();
            if (!role.tryLock()) {
                return false;
            }
        }
        Thread me = Thread.currentThread();
        drivesBegun++;
        driver = me;
        evd.drivenBy(this);
        boolean restParked = false;
        try {
            boolean spin = true;
            for (boolean first = true;; first = false) {
                if (closed || evd.waitOver() || me.isInterrupted()) {
                    return true;
                }
                long left = infinite ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (left < SELECT_GRAIN_NANOS) {
                    // less is left than a select can time: one look now (a run of very short waits
                    // must not leave the sockets unread), then the caller parks the rest precisely
                    // while the agent's thread serves the sockets
                    if (first) {
                        cycle(0);
                        drivenCycles++;
                    }
                    if (left <= 0 || closed || evd.waitOver() || me.isInterrupted()) {
                        return true;
                    }
                    runDeferred();
                    restParked = true;
                    return false;
                }
                // a spin on the wait's first cycle, and after a cycle that did not wait or served
                // something: a wait that finds nothing sleeps in its selects, as if it had not spun;
                // whole milliseconds, never past the deadline
                long maxWait = infinite ? Long.MAX_VALUE : left / SELECT_GRAIN_NANOS * SELECT_GRAIN_NANOS;
                spin = cycle(maxWait, spin ? evd : null);
                drivenCycles++;
            }
        } catch (IOException e) {
            return true; // the selector failed: the agent's thread meets it too
        } finally {
            evd.drivenBy(null);
            driver = null;
            // the rest of the wait parked, or other connections to serve: the agent's thread serves them now
            boolean now = restParked || !single.getAsBoolean();
            leaseHolder = now ? null : me;
            lease = now ? 0 : System.nanoTime() + LEASE_NANOS;
            role.unlock();
            if (now || parkedForDriver) {
                LockSupport.unpark(thread);
            }
            wakeRefused();
        }
    }

    /** The role is free: a consumer that could not take it looks again. */
    private void wakeRefused() {
        SimEvd r = refused;
        if (r != null) {
            refused = null;
            r.wakeWaiter();
        }
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    /**
     * A consumer busy-polling an EVD these connections feed: it polls the shared-memory rings on
     * its own thread, without the role (each connection's round takes its Endpoint's lock). If the
     * agent slept with the doorbells armed, it is woken, and leaves them unarmed while consumers poll.
     */
    @Override
    public boolean poll(SimEvd evd) {
        if (!rings.any() || closed) {
            return false;
        }
        if (rings.pollFromConsumer()) {
            selector.wakeup();
        }
        return true;
    }

    /** An event for the driving consumer came from another thread: its select returns. */
    @Override
    public void wakeDriver() {
        selector.wakeup();
    }

    // ---------------------------------------------------------------------------------------------
    // the end
    // ---------------------------------------------------------------------------------------------

    /** With the role, as the agent ends: every channel still registered goes, and the commands left run. */
    private void endAll() {
        for (SelectionKey key : selector.keys()) {
            if (key.attachment() instanceof Handler h) {
                try {
                    h.agentEnded();
                } catch (RuntimeException | Error e) {
                    // the rest still end
                }
            }
        }
        runCommands();
        flushes.clear();
        try {
            selector.close();
        } catch (IOException e) {
            // released anyway
        }
    }

    /**
     * Ends the agent: its thread ends its channels and stops.
     *
     * @param millis how long to wait for the thread
     * @return whether it ended
     */
    boolean close(long millis) throws InterruptedException {
        closed = true;
        selector.wakeup();
        LockSupport.unpark(thread);
        if (Thread.currentThread() == thread || thread.getState() == Thread.State.NEW) {
            return true;
        }
        thread.join(millis);
        return !thread.isAlive();
    }
}
