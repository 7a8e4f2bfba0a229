package dat.provider.sim.internal.tcp;

import dat.api.EventNumber;
import dat.provider.sim.internal.core.AttemptLink;
import dat.provider.sim.internal.core.ConnectAttempt;
import dat.provider.sim.internal.core.SimEndpoint;
import dat.provider.sim.internal.core.SimProvider;
import dat.provider.sim.internal.core.Wire;
import dat.provider.sim.internal.core.Wr;
import dat.provider.sim.internal.shm.ShmSession;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One TCP connection between two IAs: the wire of one Endpoint pair. The active side opens it for
 * a {@link ConnectAttempt}; the passive side's I/O agent accepts a socket whose first frame must be
 * a CONNECT_REQUEST. A connection is a selection key of its IA's {@link IoAgent} and its parts:
 * the {@link Handshake} until it is established, then the {@link Receiver} for what the peer
 * sends, the {@link Output} for what this side sends (with the {@link Transmitter} of the local
 * Endpoint's requests and the {@link Responses} to the peer's), its {@link Liveness}, and the
 * {@link TcpWire} the Endpoint holds. It costs no thread.
 *
 * <p>Between IAs on one host it may carry a shared-memory connection instead ({@link ShmSession},
 * offered in the CONNECT_REQUEST and taken in the ACCEPT): the Endpoint then holds the session's
 * wire, the data moves through the rings, and this connection stays as the control channel
 * ({@link SharedMemoryLink}): DISCONNECT, liveness, and the doorbell (a NOP) that wakes a peer whose
 * agent sleeps. Any data frame on it is a violation.
 *
 * <p>The data path's buffers (scratch copies of requests and receives, the ring of answers) are
 * allocated once per connection, while it waits for the peer's answer or for the consumer's
 * accept: a peer whose request reaches no consumer costs little.
 */
final class TcpConnection implements AttemptLink, IoAgent.Handler {

    private static final Logger LOG = Logger.getLogger(TcpConnection.class.getName());

    private final TcpTransport transport;
    private final IoAgent agent;
    private final boolean active;
    private volatile SocketChannel channel;
    private SelectionKey key;
    /** The attempt this connection carries (active side: from the start; passive: once requested). */
    private volatile ConnectAttempt attempt;
    /** The local Endpoint's side once established over TCP (set under the CM lock). */
    private volatile TcpWire wire;
    /** The shared-memory connection offered (active) or taken (passive), if any. */
    final SharedMemoryLink shm = new SharedMemoryLink(this);
    /** The wire the local Endpoint holds, TCP's or shared memory's, once established (set under the CM lock). */
    private volatile Wire joined;
    /** The local Endpoint on this connection, once established. */
    private volatile SimEndpoint endpoint;
    /** Package-private: {@link SocketReuse} looks at what was read ahead, and whether an answer began. */
    final TcpFrameReader reader;
    final Handshake handshake;
    private final Landing landing;
    private final Receiver receiver;
    /** Whether the socket outlives the connection, for the next one between the two IAs. */
    final SocketReuse reuse;
    final Liveness liveness = new Liveness();
    final Output output = new Output(this);
    final Transmitter transmitter = new Transmitter();
    final RnrBackoff backoff = new RnrBackoff();
    /** The answers to the peer; allocated with the data path. */
    volatile Responses responses;
    private final Object dataPathLock = new Object();
    private int scratchRequestIov;
    private int scratchRecvIov;
    private volatile boolean closed;
    /** The connection breaks: nothing more is queued for the peer. */
    private volatile boolean breaking;

    /**
     * An active connection for an attempt, or a passive one for an accepted socket.
     *
     * @param accepted the accepted socket (passive), or {@code null} (active: opened by {@link #open})
     * @param attempt the attempt (active), or {@code null}
     */
    TcpConnection(TcpTransport transport, SocketChannel accepted, ConnectAttempt attempt) {
        this(transport, accepted, null, attempt, accepted == null, new TcpFrameReader(TcpFrame.Limits.WIRE), null);
    }

    /** A connection on the socket of {@code from}, which ended ({@link #recycle}): same key, same reader (with what it read ahead). */
    private TcpConnection(TcpConnection from) {
        this(from.transport, from.channel, from.key, null, from.active, from.reader, from.reuse);
    }

    private TcpConnection(TcpTransport transport, SocketChannel channel, SelectionKey key, ConnectAttempt attempt, boolean active,
            TcpFrameReader reader, SocketReuse from) {
        this.transport = transport;
        this.agent = transport.agent();
        this.channel = channel;
        this.key = key;
        this.attempt = attempt;
        this.active = active;
        this.reader = reader;
        this.landing = new Landing(reader);
        this.receiver = new Receiver(this, reader, landing);
        this.reuse = new SocketReuse(this, from);
        this.handshake = new Handshake(this, reader, active, from != null);
    }

    TcpTransport transport() {
        return transport;
    }

    IoAgent agent() {
        return agent;
    }

    SocketChannel channel() {
        return channel;
    }

    ConnectAttempt attempt() {
        return attempt;
    }

    TcpWire wire() {
        return wire;
    }

    /** The wire the local Endpoint holds (TCP's or shared memory's), or {@code null} before the establishment. */
    Wire joined() {
        return joined;
    }

    /** The local Endpoint, once established. */
    SimEndpoint endpoint() {
        return endpoint;
    }

    /** The shared-memory connection this one carries, or {@code null} (plain TCP). */
    ShmSession sharedMemory() {
        return shm.session();
    }

    boolean isClosed() {
        return closed;
    }

    Landing landing() {
        return landing;
    }

    Receiver receiver() {
        return receiver;
    }

    boolean active() {
        return active;
    }

    /** Frames the writer gathered into its largest batch, for tests and statistics. */
    int largestBatch() {
        return transmitter.largestBatch();
    }

    int acksBetweenFrames() {
        return output.acksBetweenFrames();
    }

    /** Frames consumers read from their waits, for tests and statistics. */
    long framesReadByConsumers() {
        return receiver.framesReadByConsumers();
    }

    /** Bytes received and not read yet: in the socket's receive queue (Linux {@code FIONREAD}), for tests. */
    long bytesInReceiveQueue() throws IOException {
        SocketChannel ch = channel;
        return closed || ch == null ? 0 : ch.socket().getInputStream().available();
    }

    // ---------------------------------------------------------------------------------------------
    // opening
    // ---------------------------------------------------------------------------------------------

    /**
     * The active side, on the consumer's thread in dat_ep_connect (under the CM lock): opens the
     * socket and starts connecting, without waiting; the agent finishes.
     *
     * @throws IOException when no socket can be opened
     */
    void open() throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            bindSource(ch);
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            throw e;
        }
        channel = ch;
        ConnectAttempt a = attempt;
        boolean immediate;
        try {
            immediate = ch.connect(a.remoteAddress);
        } catch (IOException e) {
            // refused at once, no route: reported from the agent, after dat_ep_connect returned
            agent.execute(() -> failAttempt(a, EventNumber.CONNECTION_EVENT_UNREACHABLE));
            return;
        }
        int ops = immediate ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT;
        if (!agent.execute(() -> registered(ops, immediate))) {
            throw new IOException("the transport closed");
        }
    }

    /**
     * The passive side reports the active IA's address as the socket's source IP and the IA port
     * the request names: an IA bound to one IP connects from that IP, else the kernel would pick
     * the source by route (127.0.0.1 for an IA on 127.0.0.2), where the IA does not listen. A
     * wildcard-bound IA listens on every local IP, so the source the kernel picks is one of its
     * addresses: it stays unbound.
     */
    private void bindSource(SocketChannel ch) throws IOException {
        InetSocketAddress ia = transport.address();
        if (!ia.getAddress().isAnyLocalAddress()) {
            // lets the ephemeral port of an earlier connection, in TIME_WAIT, serve again
            ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ch.bind(new InetSocketAddress(ia.getAddress(), 0));
        }
    }

    /** The passive side, on the agent: an accepted socket starts with its request. */
    void accepted() throws IOException {
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        registered(SelectionKey.OP_READ, false);
    }

    /** On the agent: the channel joins the selector. */
    private void registered(int ops, boolean connectedAlready) {
        if (closed) {
            return;
        }
        try {
            key = agent.register(channel, ops, this);
        } catch (IOException e) {
            close();
            return;
        }
        if (connectedAlready) {
            handshake.connected(attempt);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the agent's calls
    // ---------------------------------------------------------------------------------------------

    @Override
    public void ready(int readyOps) {
        if (closed) {
            return;
        }
        if ((readyOps & SelectionKey.OP_CONNECT) != 0) {
            handshake.connected(attempt);
            return;
        }
        if ((readyOps & SelectionKey.OP_WRITE) != 0) {
            output.flushFromAgent();
        }
        if ((readyOps & SelectionKey.OP_READ) != 0 && !closed) {
            readNow(true);
        }
    }

    /** Reads what the socket holds: the handshake's frames, then the receiver's. */
    private void readNow(boolean fresh) {
        try {
            if (!handshake.done()) {
                int r = handshake.read();
                if (r != Handshake.ESTABLISHED) {
                    return;
                }
                fresh = false; // what came behind the last frame of the handshake is read ahead, or not there yet
            }
            receiver.read(fresh);
        } catch (IOException e) {
            // a reset, or closed meanwhile
            if (!closed) {
                lostOnTheWay();
            }
        }
    }

    /** The socket failed, or the agent's handling did ({@link #failed}): an attempt fails, an established connection breaks. */
    private void lostOnTheWay() {
        ConnectAttempt a = attempt;
        if (joined == null && a != null) {
            if (a.active() != null) {
                if (!reuse.retryFresh(a)) {
                    // the connection reset before the answer: the remote host was not unreachable, so
                    // by dat_ep_connect(3DAT) a transport error, NON_PEER_REJECTED
                    failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                }
            } else {
                SimProvider provider = transport.adapter().provider;
                provider.cmLock.lock();
                try {
                    if (joined == null && a.live()) {
                        a.state = ConnectAttempt.State.FAILED; // a delivered request the consumer accepts later fails its accept
                    }
                } finally {
                    provider.cmLock.unlock();
                }
            }
        }
        lost(EventNumber.CONNECTION_EVENT_BROKEN);
    }

    @Override
    public void agentEnded() {
        lost(EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /** A defect in the agent's handling: what the connection serves ends as on a socket's failure, a pending attempt too. */
    @Override
    public void failed() {
        lostOnTheWay();
    }

    /** On the agent: OP_WRITE on or off while the output waits for the socket. */
    void writeInterest(boolean on) {
        IoAgent.interest(key, on ? SelectionKey.OP_WRITE : 0, on ? 0 : SelectionKey.OP_WRITE);
    }

    /** On the agent: the answer arrives, OP_READ. */
    void readInterest() {
        readInterest(true);
    }

    /**
     * On the agent: OP_READ on or off. Off while the receiver reads nothing (a full ring of
     * answers, a refusal), so that bytes waiting in the socket do not make every select return.
     */
    void readInterest(boolean on) {
        IoAgent.interest(key, on ? SelectionKey.OP_READ : 0, SelectionKey.OP_CONNECT | (on ? 0 : SelectionKey.OP_READ));
    }

    /** On the agent, after the output wrote answers: a receiver paused for a full ring goes on. */
    void resumeReading() {
        if (receiver.paused() && !closed && !responses.full()) {
            receiver.resume();
            readInterest(true);
            readNow(false);
        }
    }

    /** The output shut down after its FIN. */
    void outputEnded() {
        // the peer closes its side; the receiver sees the end, or the liveness check closes
    }

    /** The output sent a refusal, after which both sides break: this side breaks now. */
    void refusalSent() {
        TcpWire w = wire;
        if (w != null) {
            w.broken();
        }
        close();
    }

    /** A write failed (the peer is gone or stopped reading until the socket was closed): as a reset read. */
    void writeFailed(IOException e) {
        if (!closed) {
            lostOnTheWay();
        }
    }

    /** Memory a frame in progress was sent from went away (its arena closed, a window revoked): the connection breaks. */
    void memoryGoneMidFrame() {
        TcpWire w = wire;
        if (w != null) {
            w.broken();
        }
        close();
    }

    // ---------------------------------------------------------------------------------------------
    // establishment
    // ---------------------------------------------------------------------------------------------

    /** The active side, on the agent: ACCEPT arrived; the Endpoint is connected if it still waits. */
    boolean establishActive(ConnectAttempt a, byte[] acceptData) {
        SimProvider provider = transport.adapter().provider;
        provider.cmLock.lock();
        try {
            if (!a.live()) {
                return false;
            }
            liveness.fromNow();
            prepare(a.active());
            // sent or queued before the Endpoint is published (a writer that sees it sees the frame
            // queued) and CONNECTED, so that it precedes every request on the wire
            output.sendControl(TcpFrame.control(TcpFrame.READY_TO_USE, 0, 0, 0, 0, 0, null));
            ShmSession s = shm.session();
            Wire w = s != null ? s.join(a.active()) : (wire = new TcpWire(this, a.active()));
            endpoint = a.active();
            joined = w;
            transport.shm().counted(s);
            established(); // before the event: a consumer that waits once it sees it polls the rings itself
            a.active().connectionManager().acceptedByRemote(a, w, acceptData);
            return true;
        } finally {
            provider.cmLock.unlock();
        }
    }

    /** The passive side, on the agent: a request arrived; to the IA. Whether it reached a consumer. */
    boolean deliver(ConnectAttempt a) {
        attempt = a;
        SimProvider provider = transport.adapter().provider;
        provider.cmLock.lock();
        try {
            if (closed || provider.isClosed()) {
                a.fail(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                return false;
            }
            transport.adapter().deliver(a);
            return a.state == ConnectAttempt.State.DELIVERED;
        } finally {
            provider.cmLock.unlock();
        }
    }

    /**
     * dat_cr_accept on the passive side (a consumer's thread, under the CM lock): the Endpoint is on
     * this connection, COMPLETION_PENDING; the ACCEPT goes to the active side.
     */
    @Override
    public void accept(ConnectAttempt a, SimEndpoint passive, byte[] acceptData) {
        liveness.fromNow();
        prepare(passive);
        ShmSession s = shm.session();
        TcpWire tw = s == null ? new TcpWire(this, passive) : null;
        Wire w = s != null ? s.join(passive) : tw;
        passive.connectionManager().acceptedAcross(a, w);
        byte[] pd = shm.acceptPayload(acceptData == null ? new byte[0] : acceptData);
        int aux = (s != null ? TcpFrame.ACCEPT_SHM : 0) | reuse.accept();
        output.sendControl(TcpFrame.control(TcpFrame.ACCEPT, pd.length, 0, aux, 0, 0, pd)); // before the wire: see establishActive
        wire = tw;
        endpoint = passive;
        joined = w;
    }

    /** The connection is established (the passive side: READY_TO_USE came): its rings are polled from now on. */
    void established() {
        shm.established(endpoint);
    }

    /** dat_cr_reject, no listener, backlog full, QoS: the answer goes to the active side, then the FIN. */
    @Override
    public void refuse(ConnectAttempt a, int eventNumber, boolean wasLive) {
        if (!wasLive) {
            close();
            return;
        }
        int reason = eventNumber == EventNumber.CONNECTION_EVENT_PEER_REJECTED ? TcpFrame.REJECT_PEER : TcpFrame.REJECT_NON_PEER;
        output.enqueue(TcpFrame.control(TcpFrame.REJECT, 0, 0, reason, 0, 0, null));
        output.queueFin();
    }

    @Override
    public void drop(ConnectAttempt a) {
        close();
    }

    /** The attempt fails with {@code eventNumber}, if it still waits. */
    void failAttempt(ConnectAttempt a, int eventNumber) {
        SimProvider provider = transport.adapter().provider;
        provider.cmLock.lock();
        try {
            if (a.live()) {
                a.fail(eventNumber);
            }
        } finally {
            provider.cmLock.unlock();
        }
        close();
    }

    /**
     * The data path's buffers, as large as the Endpoint's requests and receives; allocated early
     * ({@link #prepareEarly}) with the IA's defaults, grown here when the Endpoint wants more.
     */
    void prepare(SimEndpoint e) {
        allocate(e.requestIovLimit(), e.recvIovLimit(), true);
    }

    /**
     * While the connection waits for the peer's answer or the consumer's decision: the data path's
     * buffers, off the setup's path (their first touch took a fifth of a setup in a young JVM).
     */
    void prepareEarly(int iov) {
        allocate(iov, iov, false);
    }

    private void allocate(int requestIov, int recvIov, boolean grow) {
        synchronized (dataPathLock) {
            if (responses == null) {
                output.allocate();
                receiver.allocate(requestIov, recvIov);
                transmitter.allocate(requestIov);
                scratchRequestIov = requestIov;
                scratchRecvIov = recvIov;
                responses = new Responses();
                return;
            }
            if (grow && (requestIov > scratchRequestIov || recvIov > scratchRecvIov)) {
                receiver.allocate(Math.max(requestIov, scratchRequestIov), Math.max(recvIov, scratchRecvIov));
                if (requestIov > scratchRequestIov) {
                    transmitter.allocate(requestIov);
                    scratchRequestIov = requestIov;
                }
                scratchRecvIov = Math.max(recvIov, scratchRecvIov);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the wire's calls (TcpWire)
    // ---------------------------------------------------------------------------------------------

    /** The Endpoint queued requests: the agent transmits them. */
    void kick() {
        output.kick();
    }

    void transmitInline(TcpWire w) {
        output.transmitInline(w);
    }

    /** Under the Endpoint's lock: the peer refused the head send as receiver not ready; the requests go again after a backoff. */
    void notReady(long seq) {
        long at = backoff.refused(seq);
        agent.execute(() -> agent.at(at, output::kick));
    }

    void acknowledged() {
        backoff.acknowledged();
    }

    void requestAcks() {
        output.requestAcks();
    }

    /** Under the Endpoint's lock: a receive or read is handed to the receiver. */
    void landingBegins(boolean receive) {
        landing.handedOver(receive);
    }

    void landingEnds() {
        landing.handedBack();
    }

    void responseOwed() {
        responses.owe();
    }

    void awaitWriteCall() {
        transmitter.awaitWriteCall();
    }

    /**
     * The Endpoint leaves (under its lock, no longer on this wire): no payload lands any more in a
     * receive or read the receiver holds.
     *
     * @return the receive whose landing was abandoned, which the caller completes flushed, or {@code null}
     */
    Wr.Recv abandonLanding() {
        return landing.abandon() ? receiver.receive() : null;
    }

    /**
     * The local Endpoint disconnects: the DISCONNECT goes to the peer, then the FIN, or, when the
     * socket is reused, the peer's DISCONNECT is awaited instead ({@link SocketReuse}).
     */
    void disconnect() {
        if (reuse.agreed()) {
            reuse.disconnect();
        } else {
            queueDisconnect(true);
        }
    }

    /** The DISCONNECT after the answers owed, then the FIN ({@code fin}) or the socket's hand-over once written. */
    void queueDisconnect(boolean fin) {
        if (!closed && !breaking) {
            Responses r = responses;
            if (r != null) {
                r.markEnd();
            }
            ByteBuffer disconnect = TcpFrame.control(TcpFrame.DISCONNECT, 0, 0, 0, 0, 0, null);
            if (!fin) {
                if (output.sendLast(disconnect)) {
                    reuse.endWritten();
                }
                return;
            }
            output.enqueue(disconnect);
            output.queueFin();
        }
    }

    /** On the agent: the peer's DISCONNECT came. */
    void peerDisconnected() {
        if (reuse.agreed() && !breaking) {
            reuse.peerDisconnected();
        } else {
            lost(EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }
    }

    /** Whether this side said its last: its FIN, or its DISCONNECT on a reused socket. */
    boolean endSaid() {
        return output.finQueued() || reuse.ending();
    }

    /**
     * On the agent: the connection ended by the exchange of DISCONNECTs and the socket goes to a
     * fresh connection ({@link SocketReuse}); this one is closed without closing the socket.
     */
    void recycle() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        TcpConnection next = new TcpConnection(this);
        next.shm.inherit(shm);
        transport.track(next);
        key.attach(next);
        forgotten();
        next.reuse.reopened(active);
    }

    /** On the agent: a recycled passive socket reads what came ahead (the request may have). */
    void readRecycled() {
        readNow(false);
    }

    /**
     * The active side's dat_ep_connect on an idle socket it took from the IA's idle sockets (under
     * the CM lock): the CONNECT_REQUEST goes at once, from this thread.
     */
    void reuse(ConnectAttempt a) {
        attempt = a;
        handshake.reused(a);
        prepare(a.active()); // while the peer answers
    }

    /**
     * The local Endpoint breaks the connection (a hard receive watermark crossed, an access error
     * reported to it): the FIN without a DISCONNECT, so that the peer, which finds the stream
     * ended without one, sees the connection broken, as the in-JVM peer does. Never blocks.
     */
    void breakOff() {
        if (!closed && !breaking) {
            breaking = true;
            Responses r = responses;
            if (r != null) {
                r.markEnd();
            }
            output.queueFin();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the end
    // ---------------------------------------------------------------------------------------------

    /**
     * The connection ended: the local Endpoint, if still on it, gets the event. A broken one is
     * closed without a word to the peer, which sees it broken too, not disconnected.
     */
    void lost(int eventNumber) {
        if (eventNumber == EventNumber.CONNECTION_EVENT_BROKEN) {
            breaking = true;
        }
        endpointLeaves(eventNumber);
        close();
    }

    /** The local Endpoint, if still on the connection, gets the event. */
    void endpointLeaves(int eventNumber) {
        Wire w = joined;
        if (w != null) {
            ShmSession s = shm.session();
            if (s != null) {
                protocolEnd(s.drain()); // what the peer answered before its end completes as answered
            }
            endpoint.connectionManager().wireLost(w, eventNumber);
        }
    }

    /** A connection ended for a protocol violation is counted; {@code null}: the peer closed between frames. */
    void protocolEnd(String reason) {
        if (reason == null) {
            return;
        }
        transport.violations.incrementAndGet();
        if (LOG.isLoggable(Level.FINE)) {
            LOG.fine("sim TCP connection " + describe() + " ended: " + reason);
        }
    }

    String describe() {
        SocketChannel ch = channel;
        try {
            return ch == null ? "(unconnected)" : ch.getLocalAddress() + " <-> " + ch.getRemoteAddress();
        } catch (IOException e) {
            return "(closed)";
        }
    }

    /** Closes the socket (idempotent, any thread); the agent forgets the connection. */
    void close() {
        SocketChannel ch;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            ch = channel;
        }
        if (ch != null) {
            closeQuietly(ch);
        }
        // on the agent, once it is done with the connection (a fence still sees a copy or a batch in progress)
        if (agent.inAgent() || !agent.execute(this::forgotten)) {
            forgotten();
        }
    }

    /** The agent is done with the closed connection: a batch in progress goes, and the transport forgets it. */
    private void forgotten() {
        output.lock.lock();
        try {
            output.abandon();
        } finally {
            output.lock.unlock();
        }
        shm.ended();
        transport.forget(this);
    }

    static void closeQuietly(java.io.Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException e) {
                // released anyway
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the transport's calls
    // ---------------------------------------------------------------------------------------------

    /**
     * This connection completed work into {@code evd}: a consumer waiting on it runs the agent's
     * duty cycle itself ({@link IoAgent#drive}).
     */
    void noteDriver(dat.provider.sim.internal.core.SimEvd evd) {
        if (evd != null) {
            evd.noteDriver(agent);
        }
    }

    /** SO_RCVLOWAT where the JVM allows it, else {@code null}. */
    ReceiveLowWater lowWater() {
        return transport.lowWater();
    }

    /**
     * Sets the socket's low-water mark, on the agent only, while its selector holds the channel's
     * registration: the JDK closes a registered channel's descriptor only once the selector lets
     * go of it, on the agent, so the descriptor cannot meanwhile have been closed and its number
     * given to another file.
     */
    boolean setLowWater(SocketChannel ch, int bytes) {
        SelectionKey k = key;
        ReceiveLowWater lw = lowWater();
        return lw != null && k != null && k.isValid() && lw.set(ch, bytes);
    }
}
