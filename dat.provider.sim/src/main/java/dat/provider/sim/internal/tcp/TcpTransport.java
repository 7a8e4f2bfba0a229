package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.core.*;
import dat.api.DatException;
import dat.api.DatReturn;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The TCP transport of one adapter: its one listening socket (its IA address is the socket's bound
 * address), the acceptor thread, and its live connections. Connection qualifiers are multiplexed
 * over the one port: a connection's first frame names the qualifier it wants.
 *
 * <p>Threads: one platform acceptor thread per IA, a liveness watchdog (a platform thread: it
 * ticks every few milliseconds while consumers wait with long deadlines, and a virtual thread's
 * timed park wakes two threads per tick), and a platform
 * reader thread (plus a platform writer thread, once the peer proved to speak the protocol) per
 * connection, taken from the transport's {@link ConnectionThreads}, which keeps a few for the next
 * connection; all ended by {@link #close()}, which the provider's hot swap calls. A connection's reader performs the target side's work, so nothing waits for the local
 * consumer to call into the provider.
 */
public final class TcpTransport implements Transport.Bound {

    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(TcpTransport.class.getName());

    private volatile Adapter adapter;
    /**
     * The IOV segments of the IA's default Endpoint attributes: the scratch requests a passive
     * connection allocates before it knows the accepting Endpoint (which may want more).
     */
    final int defaultIov;
    private final ServerSocketChannel server;
    private final InetSocketAddress address;
    private final Thread acceptor;
    /** The connections' reader and writer threads, kept for the next connection. */
    final ConnectionThreads threads;
    final Set<TcpConnection> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** Liveness: a connection that shows no life (no frame, no write progress) this long breaks. */
    public static final long DEFAULT_TIMEOUT_MS = 10_000;
    final long timeoutNanos;
    private final Thread watchdog;
    /**
     * The watchdog's period while drivers wait with deadlines it keeps for them
     * ({@link TcpConnection#COARSE_WAIT_NANOS}): how late such a wait ends at most, scheduling and
     * the watchdog's other work (a connection it breaks) aside.
     */
    static final long TICK_NANOS = 5_000_000;
    /** Ticks without such a deadline after which the watchdog goes back to its liveness period. */
    private static final int IDLE_TICKS = 20;
    /**
     * The watchdog ticks for drivers' deadlines: set by a driver that arms one (and by the watchdog
     * when it finds one after it cleared the flag), cleared by the watchdog after idle ticks.
     */
    private volatile boolean ticking;
    /** Connections ended for a protocol violation (malformed or misplaced frame): what the fuzz test counts. */
    final java.util.concurrent.atomic.AtomicLong violations = new java.util.concurrent.atomic.AtomicLong();

    /**
     * Binds the listening socket.
     *
     * @param bind the address to bind (loopback unless the configuration says otherwise)
     * @param limits the IA's limits (its default IOV sizes; frames are checked against {@link TcpFrame.Limits#WIRE})
     * @param adapterName for thread names
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} when the address cannot be bound
     */
    public TcpTransport(InetSocketAddress bind, SimLimits limits, String adapterName, long timeoutMs) {
        this.timeoutNanos = timeoutMs * 1_000_000;
        this.defaultIov = limits.defaultIov();
        ReceiveLowWater.available(); // its setup (a downcall handle, a log line) here, not under the CM lock of a first connect
        try {
            server = ServerSocketChannel.open();
            try {
                server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                server.bind(bind, 128);
                address = (InetSocketAddress) server.getLocalAddress();
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
        } catch (IOException e) {
            throw new DatException(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2), "ia_params",
                    "cannot listen on " + bind + ": " + e.getMessage(), e);
        }
        threads = new ConnectionThreads(adapterName);
        // made on the thread of the dat_ia_open that opens the adapter: they take nothing of it
        acceptor = ConnectionThreads.providerThread("dat-sim-tcp-accept-" + adapterName, this::acceptLoop);
        watchdog = ConnectionThreads.providerThread("dat-sim-tcp-liveness-" + adapterName, this::watch);
    }


    Adapter adapter() {
        return adapter;
    }

    /** Waits of the reader threads with the socket's low-water mark up, over the open connections (tests). */
    long lowWaterWaits() {
        return overConnections(TcpConnection::lowWaterWaits);
    }

    /** Frames that consumers waiting on an EVD read themselves, over the open connections. */
    long framesReadByConsumers() {
        return overConnections(TcpConnection::framesReadByConsumers);
    }

    private long overConnections(java.util.function.ToLongFunction<TcpConnection> count) {
        long n = 0;
        for (TcpConnection c : connections) {
            n += count.applyAsLong(c);
        }
        return n;
    }

    /** Starts accepting; separate from construction so the adapter exists before any request arrives. */
    @Override
    public void start(Adapter owner) {
        this.adapter = owner;
        acceptor.start();
        watchdog.start();
    }

    /**
     * The liveness watchdog: several times per timeout, every established connection that has been
     * quiet for a third of it gets a NOP, and one that showed no life for the whole timeout (no
     * frame read while the local side waits on the peer, or a write that made no progress: a peer
     * that stopped reading) breaks with {@link dat.api.EventNumber#CONNECTION_EVENT_BROKEN}.
     * While consumers wait on connections with deadlines left to it, it also ticks every
     * {@link #TICK_NANOS} and wakes those past their deadline.
     */
    private void watch() {
        long period = Math.max(1_000_000, timeoutNanos / 8);
        long nextCheck = System.nanoTime() + period;
        int idleTicks = 0;
        while (!closed) {
            long sleep = nextCheck - System.nanoTime();
            if (ticking) {
                sleep = Math.min(sleep, TICK_NANOS);
            }
            if (sleep > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(this, sleep);
            }
            long now = System.nanoTime();
            if (ticking) {
                if (wakeDriversPastDeadline(now)) {
                    idleTicks = 0;
                } else if (++idleTicks >= IDLE_TICKS) {
                    idleTicks = 0;
                    ticking = false;
                    // a driver that armed its deadline before it could see the flag cleared: tick on
                    // (never stores false over a driver's true: a driver that armed later set it)
                    if (wakeDriversPastDeadline(now)) {
                        ticking = true;
                    }
                }
            }
            if (now - nextCheck >= 0) {
                for (TcpConnection c : connections) {
                    try {
                        c.checkLiveness(now, timeoutNanos);
                    } catch (RuntimeException | Error e) {
                        // the watchdog must go on: the drivers' long waits end only by its ticks
                        logQuietly(LOG, java.util.logging.Level.WARNING, "liveness check of a connection failed", e);
                    }
                }
                nextCheck = now + period;
            }
        }
    }

    /** Whether the watchdog ticks for drivers' deadlines now (for tests). */
    boolean ticking() {
        return ticking;
    }

    /** @return whether any driver waits with a deadline left to the watchdog */
    private boolean wakeDriversPastDeadline(long now) {
        boolean any = false;
        for (TcpConnection c : connections) {
            any |= c.wakeDriverPastDeadline(now);
        }
        return any;
    }

    /**
     * A driver armed a deadline for the watchdog to keep ({@link TcpConnection#COARSE_WAIT_NANOS}):
     * makes it tick, unless it does. The driver stores its deadline before it looks at the flag,
     * the watchdog clears the flag before it looks at the deadlines once more: one of the two sees
     * the other's store.
     */
    void deadlineArmed() {
        if (!ticking) {
            ticking = true;
            java.util.concurrent.locks.LockSupport.unpark(watchdog);
        }
    }

    @Override
    public String fabricName() {
        return "tcp";
    }

    @Override
    public InetSocketAddress address() {
        return address;
    }

    boolean closed() {
        return closed;
    }

    private void acceptLoop() {
        boolean failing = false;
        while (!closed) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                if (closed || !server.isOpen()) {
                    return; // closed by close(): nothing more to accept
                }
                // out of file descriptors or buffers, for now: the IA goes on listening, and the
                // requests waiting meanwhile in the backlog are accepted once it can
                if (!failing) {
                    warnQuietly("sim TCP IA " + address + " cannot accept a connection (retrying)", e);
                }
                failing = true;
                java.util.concurrent.locks.LockSupport.parkNanos(ACCEPT_RETRY_NANOS);
                continue;
            }
            failing = false;
            TcpConnection c;
            try {
                c = new TcpConnection(this, ch, null);
            } catch (RuntimeException | Error e) {
                // no direct memory for its buffers, or a class that could not be read (out of
                // descriptors): this request is lost, not the IA
                warnQuietly("sim TCP IA " + address + " cannot serve a connection", e);
                TcpConnection.closeQuietly(ch);
                java.util.concurrent.locks.LockSupport.parkNanos(ACCEPT_RETRY_NANOS);
                continue;
            }
            if (!register(c)) {
                return;
            }
            try {
                c.startPassive();
            } catch (RuntimeException | Error e) {
                // no thread for it ("unable to create native thread"): this request is lost, not the IA
                warnQuietly("sim TCP IA " + address + " cannot serve a connection", e);
                c.close();
            }
        }
    }

    private static void warnQuietly(String message, Throwable cause) {
        logQuietly(LOG, java.util.logging.Level.WARNING, message, cause);
    }

    /**
     * Logs a failure from a provider thread that must go on (the acceptor, the watchdog, a pooled
     * connection thread): logging can fail where the thread did, out of descriptors. JUL's first
     * record in a JVM reads the time zone data from a file, and that failed with an Error, which
     * ended the acceptor, and with it the IA's listening for good.
     */
    static void logQuietly(java.util.logging.Logger log, java.util.logging.Level level, String message, Throwable cause) {
        try {
            log.log(level, message, cause);
        } catch (RuntimeException | Error loggingFailed) {
            // unreported: the thread goes on, and what failed is retried or ended as before
        }
    }

    /** How long the acceptor waits before it tries again after a failed accept. */
    private static final long ACCEPT_RETRY_NANOS = 50_000_000L;

    /** Adds a connection unless the transport closed meanwhile (then closes it). */
    boolean register(TcpConnection c) {
        connections.add(c);
        if (closed) {
            c.close();
            return false;
        }
        return true;
    }

    /**
     * Starts the active side of a connection attempt over TCP; returns at once (called from
     * dat_ep_connect with the CM lock held, so the blocking connect happens on the connection's thread).
     */
    @Override
    public void connect(ConnectAttempt attempt) {
        TcpConnection c = new TcpConnection(this, null, attempt);
        attempt.link = c;
        if (register(c)) {
            c.startActive();
        } else {
            attempt.fail(dat.api.EventNumber.CONNECTION_EVENT_UNREACHABLE); // the IA's transport closed meanwhile
        }
    }

    /**
     * Stops listening, closes every connection and waits for the acceptor, the watchdog and the
     * connections' threads to end.
     *
     * @return whether the acceptor, every connection's task and every kept thread ended within the time
     */
    @Override
    public boolean close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway; the acceptor ends on the closed channel
        }
        List<TcpConnection> open = new ArrayList<>(connections);
        for (TcpConnection c : open) {
            c.close();
        }
        boolean ended = true;
        java.util.concurrent.locks.LockSupport.unpark(watchdog);
        try {
            acceptor.join(5_000);
            ended = !acceptor.isAlive() && watchdog.join(java.time.Duration.ofSeconds(5));
            for (TcpConnection c : open) {
                ended &= c.join(5_000);
            }
            ended &= threads.close(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return ended;
    }

    /**
     * An RMR's binding was revoked (dat_rmr_bind, dat_rmr_free): returns once no connection copies
     * through it any more, which waits for copies in progress only (see {@link TcpConnection#awaitCopiesThrough}).
     */
    @Override
    public void awaitCopiesThrough(RemoteWindow w) {
        for (TcpConnection c : connections) {
            c.awaitCopiesThrough(w);
        }
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
            c.fence(start, end);
        }
    }
}
