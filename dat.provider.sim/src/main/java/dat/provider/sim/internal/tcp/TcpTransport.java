package dat.provider.sim.internal.tcp;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.EventNumber;
import dat.provider.sim.internal.core.Adapter;
import dat.provider.sim.internal.core.ConnectAttempt;
import dat.provider.sim.internal.core.RemoteWindow;
import dat.provider.sim.internal.core.SimEvd;
import dat.provider.sim.internal.core.SimLimits;
import dat.provider.sim.internal.core.SnapshotArrays;
import dat.provider.sim.internal.core.Transport;
import dat.provider.sim.internal.shm.ShmMode;
import dat.provider.sim.internal.shm.ShmPoller;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The TCP transport of one IA: its one listening socket (the IA address is the socket's bound
 * address), its live connections, and the {@link IoAgent} whose one thread accepts, connects,
 * reads, writes and watches liveness for all of them. Connection qualifiers are multiplexed over
 * the one port: a connection's first frame names the qualifier it wants. A connection, and an
 * accepted socket that has not finished its handshake, costs no thread; such a socket is closed
 * once the liveness timeout passes without its request.
 */
public final class TcpTransport implements Transport.Bound {

    private static final Logger LOG = Logger.getLogger(TcpTransport.class.getName());
    /** Liveness: a connection that shows no life (no frame, no write progress) this long breaks. */
    public static final long DEFAULT_TIMEOUT_MS = 10_000;
    /** {@code tcp_spin_us}'s default. */
    public static final long DEFAULT_SPIN_MICROS = 50;
    /** How long the agent stops accepting after a failed accept (out of descriptors, for now). */
    private static final long ACCEPT_RETRY_NANOS = 50_000_000L;

    private volatile Adapter adapter;
    /**
     * The IOV segments of the IA's default Endpoint attributes: the scratch requests a passive
     * connection allocates before it knows the accepting Endpoint (which may want more).
     */
    final int defaultIov;
    private final ServerSocketChannel server;
    private final InetSocketAddress address;
    private final IoAgent agent;
    private SelectionKey serverKey;
    /**
     * The live connections, replaced whole under {@link #connectionsLock} (copy on write): the
     * agent's periodic sweep reads them without a lock and without allocating an iterator.
     */
    private volatile TcpConnection[] connections = new TcpConnection[0];
    private final Object connectionsLock = new Object();
    /** The sockets of ended active connections, for the next connect to the same IA. */
    private final IdleSockets idle = new IdleSockets();
    /** Connection attempts that took an idle socket. */
    private final AtomicLong reusedSockets = new AtomicLong();
    private volatile boolean closed;
    final long timeoutNanos;
    /** Connections ended for a protocol violation (malformed or misplaced frame): what the fuzz test counts. */
    final AtomicLong violations = new AtomicLong();
    private final ReceiveLowWater lowWater;
    /** The IA's shared-memory connections and mode. */
    private final ShmPoller shm;
    private boolean acceptFailing;
    /** Made at construction: a process out of descriptors cannot read the class of a lambda's target. */
    private final Runnable resumeAccepting = this::resumeAccepting;

    /**
     * Binds the listening socket.
     *
     * @param bind the address to bind (loopback unless the configuration says otherwise)
     * @param limits the IA's limits (its default IOV sizes; frames are checked against {@link TcpFrame.Limits#WIRE})
     * @param adapterName for the agent's thread name
     * @param timeoutMs the liveness timeout
     * @param spinMicros how long a consumer driving the I/O agent from its wait polls the sockets before it sleeps
     * @param shm whether connections to IAs on this host move their data through shared memory
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} when the address cannot be bound
     */
    public TcpTransport(InetSocketAddress bind, SimLimits limits, String adapterName, long timeoutMs, long spinMicros, ShmMode shm) {
        this.timeoutNanos = timeoutMs * 1_000_000;
        this.shm = new ShmPoller(shm);
        this.defaultIov = limits.defaultIov();
        this.lowWater = ReceiveLowWater.available() ? new ReceiveLowWater() : null;
        try {
            server = ServerSocketChannel.open();
            try {
                server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                server.bind(bind, 128);
                server.configureBlocking(false);
                address = (InetSocketAddress) server.getLocalAddress();
                long period = Math.max(1_000_000, Math.min(100_000_000, timeoutNanos / 8));
                agent = new IoAgent("dat-sim-tcp-" + adapterName, period, this::periodic, () -> connections.length - idle.count() <= 1, this.shm,
                        spinMicros);
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
        } catch (IOException e) {
            throw new DatException(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2), "ia_params",
                    "cannot listen on " + bind + ": " + e.getMessage(), e);
        }
    }

    /** Starts accepting; separate from construction so the adapter exists before any request arrives. */
    @Override
    public void start(Adapter owner) {
        this.adapter = owner;
        agent.execute(this::listen);
        agent.start();
    }

    private void listen() {
        try {
            serverKey = agent.register(server, SelectionKey.OP_ACCEPT, new IoAgent.Handler() {
                @Override
                public void ready(int readyOps) {
                    acceptAll();
                }

                @Override
                public void agentEnded() {
                    TcpConnection.closeQuietly(server);
                }

                @Override
                public void failed() {
                    pauseAccepting(); // the IA goes on listening
                }
            });
        } catch (IOException e) {
            if (closed) {
                return; // the IA went before its agent first ran: nothing to listen for
            }
            warnQuietly("sim TCP IA " + address + " cannot listen", e);
        }
    }

    Adapter adapter() {
        return adapter;
    }

    IoAgent agent() {
        return agent;
    }

    /**
     * How many of this IA's connections ended through the I/O agent's catch-all for an unexpected
     * exception: a defect, since a peer's frame ends its connection through the wire's checks. For tests.
     */
    public long unexpectedEnds() {
        return agent.unexpectedEnds();
    }

    IdleSockets idleSockets() {
        return idle;
    }

    /** Idle sockets kept for the next connect, for tests. */
    int idleSocketCount() {
        return idle.count();
    }

    ReceiveLowWater lowWater() {
        return lowWater;
    }

    /** Waits with the socket's low-water mark up, for tests. */
    long lowWaterWaits() {
        return lowWater == null ? 0 : lowWater.raised();
    }

    /** The threads of the transport: its I/O agent's, for tests. */
    int threads() {
        return 1;
    }

    /** Frames that consumers waiting on an EVD read themselves, over the open connections. */
    long framesReadByConsumers() {
        long n = 0;
        for (TcpConnection c : connections) {
            n += c.framesReadByConsumers();
        }
        return n;
    }

    /** Duty cycles consumers ran from their waits, for tests and statistics. */
    long drivenCycles() {
        return agent.drivenCycles();
    }

    /** Shared-memory records the I/O agent's own thread read, for tests. */
    long ringRecordsOnAgentThread() {
        return agent.ringRecordsOnAgentThread();
    }

    /** Drives begun by waiting consumers, for tests. */
    long drivesBegun() {
        return agent.drivesBegun();
    }

    /** Waiting consumers' spins on the sockets, for tests. */
    SocketSpin spin() {
        return agent.socketSpin();
    }

    /** The agent's thread's looks while consumers drove, for tests. */
    long agentLooksWhileDriven() {
        return agent.looksWhileDriven();
    }

    @Override
    public String fabricName() {
        return "tcp";
    }

    /**
     * The shared-memory mode ({@code shm}: auto, on, off), and the connections established since
     * the transport started, by wire ({@code shm.established}, {@code tcp.established}), and the
     * shared-memory ones open now ({@code shm.connections}), and the connection attempts that took
     * the idle socket of an earlier connection ({@code tcp.reused}), and the connections ended
     * because the peer broke the wire protocol, in its frames or in its rings ({@code violations}).
     */
    @Override
    public java.util.Map<String, String> attributes() {
        return java.util.Map.of("shm", shm.mode().value(), "shm.established", Long.toString(shm.sharedEstablished()),
                "tcp.established", Long.toString(shm.tcpEstablished()), "shm.connections", Integer.toString(shm.live()),
                "tcp.reused", Long.toString(reusedSockets.get()), "violations", Long.toString(violations.get()));
    }

    /** The IA's shared-memory connections. */
    ShmPoller shm() {
        return shm;
    }

    @Override
    public InetSocketAddress address() {
        return address;
    }

    boolean closed() {
        return closed;
    }

    /** On the agent: takes every connection waiting in the backlog. */
    private void acceptAll() {
        for (;;) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                if (closed || !server.isOpen()) {
                    return;
                }
                // out of file descriptors or buffers, for now: the IA goes on listening, and the
                // requests waiting meanwhile in the backlog are accepted once it can
                if (!acceptFailing) {
                    warnQuietly("sim TCP IA " + address + " cannot accept a connection (retrying)", e);
                }
                acceptFailing = true;
                pauseAccepting();
                return;
            }
            if (ch == null) {
                acceptFailing = false;
                return;
            }
            TcpConnection c = null;
            try {
                c = new TcpConnection(this, ch, null);
                track(c);
                c.accepted();
            } catch (IOException | RuntimeException | Error e) {
                // no memory for its buffers, or a class that could not be read (out of
                // descriptors): this request is lost, not the IA
                warnQuietly("sim TCP IA " + address + " cannot serve a connection", e);
                if (c != null) {
                    forget(c); // not left for the handshake timeout to close and count as a violation
                }
                TcpConnection.closeQuietly(ch);
                pauseAccepting();
                return;
            }
        }
    }

    /** No accept for a while: the listening socket stays ready, and the agent must not spin on it. */
    private void pauseAccepting() {
        SelectionKey k = serverKey;
        if (k != null && k.isValid()) {
            k.interestOps(0);
            agent.at(System.nanoTime() + ACCEPT_RETRY_NANOS, resumeAccepting);
        }
    }

    private void resumeAccepting() {
        SelectionKey k = serverKey;
        if (k != null && k.isValid()) {
            k.interestOps(SelectionKey.OP_ACCEPT);
        }
    }

    private static void warnQuietly(String message, Throwable cause) {
        logQuietly(LOG, Level.WARNING, message, cause);
    }

    /**
     * Logs a failure from the agent, which must go on: logging can fail where the agent did, out of
     * descriptors (JUL's first record in a JVM reads the time zone data from a file).
     */
    static void logQuietly(Logger log, Level level, String message, Throwable cause) {
        try {
            log.log(level, message, cause);
        } catch (RuntimeException | Error loggingFailed) {
            // unreported: the agent goes on
        }
    }

    /** The agent's periodic work: every connection's liveness. */
    private void periodic(long now) {
        for (TcpConnection c : connections) {
            try {
                ConnectionChecks.periodic(c, now, timeoutNanos);
            } catch (RuntimeException | Error e) {
                logQuietly(LOG, Level.WARNING, "liveness check of a connection failed", e);
            }
        }
    }

    /** The agent is done with a closed connection. */
    void forget(TcpConnection c) {
        synchronized (connectionsLock) {
            connections = SnapshotArrays.without(connections, c);
        }
    }

    /** A connection the agent is to look after (its liveness, its fences, its end). */
    void track(TcpConnection c) {
        synchronized (connectionsLock) {
            TcpConnection[] more = Arrays.copyOf(connections, connections.length + 1);
            more[connections.length] = c;
            connections = more;
        }
    }

    /** The live connections now, for tests. */
    List<TcpConnection> connections() {
        return List.of(connections);
    }

    /**
     * Starts the active side of a connection attempt: opens the socket and starts connecting,
     * without waiting (called from dat_ep_connect with the CM lock held).
     */
    @Override
    public void connect(ConnectAttempt attempt) {
        if (closed) {
            attempt.fail(EventNumber.CONNECTION_EVENT_UNREACHABLE); // the IA's transport closed meanwhile
            return;
        }
        SimEvd events = attempt.active().connectEvd();
        if (events != null) {
            // the consumer that waits for the answer reads it itself (IoAgent#drive), until a
            // connection event comes there (SimEvd#postConnection)
            events.noteDriver(agent);
        }
        for (TcpConnection reused; (reused = idle.take(attempt.remoteAddress)) != null;) {
            if (reused.reuse.usable()) {
                reusedSockets.incrementAndGet();
                attempt.link = reused;
                reused.reuse(attempt);
                return;
            }
            reused.close(); // the peer closed it, reset it, or sent on it: the next one, or a fresh socket
        }
        try {
            connectFresh(attempt);
        } catch (IOException e) {
            throw new IllegalStateException("no socket for the connection: " + e.getMessage(), e);
        }
    }

    /**
     * The attempt over a fresh socket (under the CM lock): from dat_ep_connect, or for an attempt
     * whose reused socket turned out dead ({@link SocketReuse#retryFresh}).
     *
     * @throws IOException when no socket can be opened
     */
    void connectFresh(ConnectAttempt attempt) throws IOException {
        if (closed) {
            throw new IOException("the transport closed");
        }
        TcpConnection c = new TcpConnection(this, null, attempt);
        attempt.link = c;
        track(c);
        try {
            c.open();
        } catch (IOException e) {
            forget(c);
            c.close();
            throw e;
        }
    }

    /** The IA's last open instance closed: its idle sockets close, and their peers close their ends. */
    @Override
    public void unused() {
        for (TcpConnection c : idle.takeAll()) {
            c.close();
        }
    }

    /**
     * Stops listening, closes every connection and ends the agent.
     *
     * @return whether the agent's thread ended in time
     */
    @Override
    public boolean close() {
        closed = true;
        TcpConnection.closeQuietly(server);
        idle.close(); // no socket is kept from now on; the idle ones close with the others
        for (TcpConnection c : connections) {
            c.close();
        }
        try {
            return agent.close(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * An RMR's binding was revoked (dat_rmr_bind, dat_rmr_free): returns once no connection copies
     * through it any more, which waits for copies in progress only.
     */
    @Override
    public void awaitCopiesThrough(RemoteWindow w) {
        for (TcpConnection c : connections) {
            ConnectionFences.awaitCopiesThrough(c, w);
        }
        shm.awaitCopiesThrough(w);
    }

    /**
     * dat_lmr_free over TCP: returns once no connection moves bytes of the freed region any more.
     *
     * @param memory the freed LMR's memory
     */
    @Override
    public void fence(MemorySegment memory) {
        long start = memory.address();
        long end = start + memory.byteSize();
        for (TcpConnection c : connections) {
            ConnectionFences.fence(c, start, end);
        }
        shm.fence(memory);
    }
}
