package dat.provider.sim.internal.shm;

import dat.provider.sim.internal.core.FieldHandles;
import dat.provider.sim.internal.core.SnapshotArrays;
import dat.provider.sim.internal.core.RemoteWindow;
import dat.provider.sim.internal.core.WaitDriver;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The shared-memory connections of one TCP IA, as its I/O agent and its consumers see them: the
 * IA's {@link ShmMode}, the rounds over every connection ({@link #poll}), and the doorbells.
 *
 * <p><b>Who polls, and the doorbell.</b> A consumer waiting in dat_evd_wait on an EVD these
 * connections feed polls them itself first ({@link #driver}). The agent's duty cycle polls every connection; when a
 * cycle finds nothing it spins a while, then arms the doorbells ({@link #arm}: each connection's
 * flag tells the peer to send a NOP on the control connection after it publishes) and sleeps in
 * its select. A consumer that busy-polls dat_evd_dequeue polls the connections itself
 * ({@link #pollFromConsumer}); while consumers poll, the agent's thread leaves the rings to them:
 * it neither polls them (it would race the consumers for each record, and a record it took would
 * reach the waiting consumer through the EVD, from another core) nor arms (a doorbell per message
 * would cost the peer a system call and this side a wake-up), and looks once a millisecond
 * whether they still do; a consumer that finds the doorbells armed takes them back and wakes the
 * agent. So a record that comes just after the consumers stopped polling waits one millisecond at
 * most for the agent. A consumer's round publishes the acknowledgement it owes at its end, as
 * nothing says its thread will poll again soon; only the agent's rounds let it wait for the next.
 */
public final class ShmPoller {

    private static final ShmSession[] NONE = {};
    /** {@link #consumerPolls}, bumped with an opaque store: a spinning consumer pays no fence per look. */
    private static final VarHandle CONSUMER_POLLS = FieldHandles.of(MethodHandles.lookup(), ShmPoller.class, "consumerPolls", long.class);

    private final ShmMode mode;
    private final SharedSources sources = new SharedSources();
    private final ConcurrentHashMap<InetAddress, Boolean> local = new ConcurrentHashMap<>();
    private volatile ShmSession[] sessions = NONE;
    /** What waiters on EVDs these connections feed run ({@link #driver}). */
    private volatile ShmDriver driver;
    private volatile boolean armed;
    /** Bumped by each consumer's poll: the agent sees whether consumers poll. */
    private volatile long consumerPolls;
    private long consumerPollsSeen;
    /** Connections established over shared memory, and over TCP alone, from the transport's start on. */
    private final AtomicLong sharedEstablished = new AtomicLong();
    private final AtomicLong tcpEstablished = new AtomicLong();

    /**
     * @param mode the IA's mode; any but {@link ShmMode#OFF} first removes ring files that dead processes left
     */
    public ShmPoller(ShmMode mode) {
        this.mode = mode;
        if (mode != ShmMode.OFF) {
            RingFile.removeStale();
        }
    }

    public ShmMode mode() {
        return mode;
    }

    // ---------------------------------------------------------------------------------------------
    // connection setup
    // ---------------------------------------------------------------------------------------------

    /** Whether a connection to {@code remote} offers shared memory: always with {@code on}, to this host's addresses with {@code auto}. */
    public boolean offers(InetAddress remote) {
        return mode == ShmMode.ON || mode == ShmMode.AUTO && local(remote);
    }

    private boolean local(InetAddress a) {
        return local.computeIfAbsent(a, x -> {
            try {
                return x.isLoopbackAddress() || x.isAnyLocalAddress() || NetworkInterface.getByInetAddress(x) != null;
            } catch (SocketException e) {
                return false;
            }
        });
    }

    /**
     * The active side: a ring file to offer.
     *
     * @throws IOException when none can be made
     */
    public ShmSession offer(ShmControl control) throws IOException {
        return ShmSession.offer(control, sources);
    }

    /**
     * The active side: the ring file the socket kept from its last connection, to offer again (a
     * new one when it is gone).
     *
     * @throws IOException when a new one is needed and none can be made
     */
    public ShmSession reoffer(IdleRingFile kept, ShmControl control) throws IOException {
        return ShmSession.reoffer(kept, control, sources);
    }

    /**
     * The passive side: takes an offer, unless this IA never shares.
     *
     * @param offer {@link ShmSession#OFFER_BYTES} at the buffer's position
     * @param kept the ring file the socket kept from its last connection, or {@code null}: taken
     *     when the offer names it, else closed
     * @throws IOException with the reason when it cannot be taken
     */
    public ShmSession take(ByteBuffer offer, IdleRingFile kept, ShmControl control) throws IOException {
        if (mode == ShmMode.OFF) {
            if (kept != null) {
                kept.close();
            }
            throw new IOException("shm=off");
        }
        return ShmSession.take(offer, kept, control, sources);
    }

    /**
     * A connection is being established, over shared memory or over TCP alone: counted before the
     * consumer sees its ESTABLISHED event, so that a query after the event counts it.
     */
    public void counted(ShmSession s) {
        (s == null ? tcpEstablished : sharedEstablished).incrementAndGet();
    }

    /** A connection was established: its rings are polled from now on. */
    public void established(ShmSession s) {
        if (s == null) {
            return;
        }
        synchronized (this) {
            ShmSession[] now = sessions;
            ShmSession[] next = Arrays.copyOf(now, now.length + 1);
            next[now.length] = s;
            sessions = next;
        }
        if (armed) {
            s.wantDoorbell(true);
        }
    }

    /** A connection ended: no one polls it any more. */
    public synchronized void ended(ShmSession s) {
        sessions = SnapshotArrays.without(sessions, s);
    }

    public long sharedEstablished() {
        return sharedEstablished.get();
    }

    public long tcpEstablished() {
        return tcpEstablished.get();
    }

    /** Live shared-memory connections. */
    public int live() {
        return sessions.length;
    }

    /** Whether the IA has shared-memory connections to poll. */
    public boolean any() {
        return sessions.length != 0;
    }

    /**
     * What a consumer waiting on an EVD these connections feed runs: it polls the rings on its own
     * thread, then leaves the wait to {@code agent} ({@link ShmDriver}). One per agent, so that an
     * EVD notes it once.
     *
     * @param agent the IA's I/O agent
     */
    public WaitDriver driver(WaitDriver agent) {
        ShmDriver d = driver;
        if (d == null || d.agent() != agent) {
            d = new ShmDriver(this, agent);
            driver = d;
        }
        return d;
    }

    // ---------------------------------------------------------------------------------------------
    // polling and doorbells
    // ---------------------------------------------------------------------------------------------

    /**
     * One round over every connection; the records handled. Allocates nothing.
     *
     * @param byAgent whether the I/O agent's own thread polls: only its rounds let an
     *     acknowledgement wait for the next round ({@link ShmTarget#process})
     */
    public int poll(boolean byAgent) {
        return poll(byAgent, false);
    }

    private int poll(boolean byAgent, boolean lastLook) {
        int work = 0;
        for (ShmSession s : sessions) {
            work += s.poll(byAgent, lastLook);
        }
        return work;
    }

    /**
     * A consumer's round, from dat_evd_dequeue on an EVD these connections feed.
     *
     * @return whether the doorbells were armed (the agent sleeps): the caller wakes the agent,
     *     which leaves them unarmed while consumers poll
     */
    public boolean pollFromConsumer() {
        CONSUMER_POLLS.setOpaque(this, (long) CONSUMER_POLLS.getOpaque(this) + 1); // consumers racing may lose a bump: one is enough
        boolean wasArmed = armed;
        if (wasArmed) {
            disarm();
        }
        poll(false);
        return wasArmed;
    }

    /** The agent: whether consumers polled since it last asked. */
    public boolean consumersPolled() {
        long n = consumerPolls;
        if (n == consumerPollsSeen) {
            return false;
        }
        consumerPollsSeen = n;
        return true;
    }

    /**
     * The agent, before it sleeps: asks every peer for a doorbell, then looks once more.
     *
     * @param byAgent whether the agent's own thread arms (a driving consumer may: see {@link #poll})
     * @return whether it may sleep (nothing came meanwhile); else it disarmed again
     */
    public boolean arm(boolean byAgent) {
        armed = true;
        for (ShmSession s : sessions) {
            s.wantDoorbell(true);
        }
        // after the flags (a volatile store each): a record published before them is seen here,
        // one published after them finds a flag set; a round in progress elsewhere is waited out
        if (poll(byAgent, true) > 0) {
            disarm();
            return false;
        }
        return true;
    }

    /** The agent awake, or a consumer polling: no doorbells wanted. */
    public void disarm() {
        armed = false;
        for (ShmSession s : sessions) {
            s.wantDoorbell(false);
        }
    }

    /** Whether a connection waits for its peer to make room (the peer rings for room too; the agent sleeps a lease at most). */
    public boolean waitingForSpace() {
        for (ShmSession s : sessions) {
            if (s.waitingForSpace()) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------------
    // fences
    // ---------------------------------------------------------------------------------------------

    /** dat_lmr_free: no connection moves bytes of the freed memory once this returns (see {@link ShmSession#fence}). */
    public void fence(MemorySegment memory) {
        long start = memory.address();
        long end = start + memory.byteSize();
        for (ShmSession s : sessions) {
            s.fence(start, end);
        }
        sources.forgetFreed();
    }

    /** A revoked window: no connection copies through it once this returns. */
    public void awaitCopiesThrough(RemoteWindow w) {
        for (ShmSession s : sessions) {
            s.awaitCopiesThrough(w);
        }
    }

    /** The LMRs whose classification is cached, for tests. */
    int sourcesKnown() {
        return sources.size();
    }
}
