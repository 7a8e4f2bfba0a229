package dat.provider.sim.internal;

import dat.api.EventNumber;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One TCP connection between two IAs: the wire of one Endpoint pair. The active side opens it
 * for a {@link ConnectAttempt}; the passive side's acceptor hands it an accepted socket, whose
 * first frame must be a CONNECT_REQUEST.
 *
 * <p>Threads: a virtual reader thread owns the socket's input (connect, the answer, then every
 * frame until the end); a virtual writer thread owns its output, so that a peer that stops
 * reading blocks only that writer, never a consumer thread or the CM lock. Anything the peer sends
 * that the protocol does not allow at that point (a malformed header, a frame of the wrong phase)
 * ends this connection alone: the local Endpoint gets {@link EventNumber#CONNECTION_EVENT_BROKEN}.
 *
 * <p>This step carries connection management only: a DTO frame on an established connection is
 * still a protocol error here.
 */
final class TcpConnection {

    private static final Logger LOG = Logger.getLogger(TcpConnection.class.getName());
    /** The writer's signal: half-close the output after what is queued. */
    private static final ByteBuffer FIN = ByteBuffer.allocate(0);

    private final TcpTransport transport;
    private final TcpFrameReader reader;
    private final LinkedBlockingQueue<ByteBuffer> outbound = new LinkedBlockingQueue<>();
    private volatile SocketChannel channel;
    /** The attempt this connection carries (active side: from the start; passive: once requested). */
    private volatile ConnectAttempt attempt;
    /** The local Endpoint once established; guarded by the CM lock. */
    SimEndpoint ep;
    private volatile boolean closed;
    private volatile boolean finQueued;
    private volatile Thread readerThread;
    private volatile Thread writerThread;

    TcpConnection(TcpTransport transport, SocketChannel accepted, ConnectAttempt attempt) {
        this.transport = transport;
        this.reader = new TcpFrameReader(transport.limits);
        this.channel = accepted;
        this.attempt = attempt;
    }

    void startActive() {
        readerThread = Thread.ofVirtual().name("dat-sim-tcp-active").start(this::runActive);
    }

    void startPassive() {
        readerThread = Thread.ofVirtual().name("dat-sim-tcp-passive").start(this::runPassive);
    }

    // ---------------------------------------------------------------------------------------------
    // the active side
    // ---------------------------------------------------------------------------------------------

    private void runActive() {
        ConnectAttempt a = attempt;
        try {
            SocketChannel ch = SocketChannel.open();
            synchronized (this) {
                if (closed) {
                    ch.close();
                    return;
                }
                channel = ch;
            }
            try {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                // blocking; a timeout or abort closes the channel, which ends the connect
                ch.connect(a.remoteAddress);
            } catch (IOException e) {
                // refused, no route, or closed by a timeout/abort (then the attempt is over already)
                failAttempt(a, EventNumber.CONNECTION_EVENT_UNREACHABLE);
                return;
            }
            startWriter();
            byte[] pd = a.privateData;
            ByteBuffer req = frame(TcpFrame.CONNECT_REQUEST, pd.length, a.qos, transport.address().getPort(),
                    a.activePortQual, a.remoteQual, pd);
            outbound.add(req);
            int s = reader.readHeader(ch);
            if (s != TcpFrameReader.READY) {
                protocolEnd(s == TcpFrameReader.MALFORMED ? reader.error() : "closed before answering");
                failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                return;
            }
            TcpFrame f = reader.frame;
            switch (f.opcode) {
                case TcpFrame.ACCEPT -> {
                    byte[] acceptData = readPrivateData(ch);
                    if (acceptData == null) {
                        failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                        return;
                    }
                    if (!established(a, acceptData)) {
                        return;
                    }
                }
                case TcpFrame.REJECT -> {
                    failAttempt(a, f.aux == TcpFrame.REJECT_PEER ? EventNumber.CONNECTION_EVENT_PEER_REJECTED
                            : EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                    return;
                }
                default -> {
                    protocolEnd("unexpected " + TcpFrame.opcodeName(f.opcode) + " while connecting");
                    failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                    return;
                }
            }
            readEstablished(ch);
        } catch (IOException e) {
            failAttempt(a, EventNumber.CONNECTION_EVENT_UNREACHABLE);
            lost(EventNumber.CONNECTION_EVENT_BROKEN);
        } finally {
            close();
        }
    }

    private void failAttempt(ConnectAttempt a, int eventNumber) {
        SimProvider provider = transport.adapter().provider;
        provider.cmLock.lock();
        try {
            if (a.live()) {
                a.fail(eventNumber);
            }
        } finally {
            provider.cmLock.unlock();
        }
    }

    /** ACCEPT arrived: the active Endpoint is connected, if it still waits. */
    private boolean established(ConnectAttempt a, byte[] acceptData) {
        SimProvider provider = transport.adapter().provider;
        provider.cmLock.lock();
        try {
            if (!a.live()) {
                return false;
            }
            ep = a.active;
            a.active.establishedOverTcp(a, this, acceptData);
            return true;
        } finally {
            provider.cmLock.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the passive side
    // ---------------------------------------------------------------------------------------------

    private void runPassive() {
        SocketChannel ch = channel;
        try {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            startWriter();
            int s = reader.readHeader(ch);
            if (s != TcpFrameReader.READY || reader.frame.opcode != TcpFrame.CONNECT_REQUEST) {
                // not a DAT peer, or a broken one: nothing local has seen it, just drop it
                protocolEnd(s == TcpFrameReader.READY ? "first frame is not CONNECT_REQUEST" : reader.error());
                return;
            }
            TcpFrame f = reader.frame;
            long remoteQual = f.address;
            long activePortQual = f.seq;
            int qos = f.context;
            int activePort = f.aux;
            byte[] pd = readPrivateData(ch);
            if (pd == null) {
                return;
            }
            InetSocketAddress peer = (InetSocketAddress) ch.getRemoteAddress();
            ConnectAttempt a = new ConnectAttempt(null, new InetSocketAddress(peer.getAddress(), activePort),
                    activePortQual, transport.address(), remoteQual, pd, qos, null);
            a.wire = this;
            attempt = a;
            SimProvider provider = transport.adapter().provider;
            provider.cmLock.lock();
            try {
                if (closed || provider.closed()) {
                    a.fail(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                    return;
                }
                transport.adapter().deliver(a);
            } finally {
                provider.cmLock.unlock();
            }
            // until accepted, the active side may only give up (DISCONNECT or close)
            s = reader.readHeader(ch);
            provider.cmLock.lock();
            try {
                if (ep == null) {
                    if (a.live()) {
                        // the consumer's later dat_cr_accept reports ACCEPT_COMPLETION_ERROR
                        a.state = ConnectAttempt.State.FAILED;
                    }
                    return;
                }
            } finally {
                provider.cmLock.unlock();
            }
            if (!handleEstablished(s)) {
                return;
            }
            readEstablished(ch);
        } catch (IOException e) {
            lostOrAbandoned();
        } finally {
            close();
        }
    }

    private void lostOrAbandoned() {
        ConnectAttempt a = attempt;
        SimProvider provider = transport.adapter().provider;
        provider.cmLock.lock();
        try {
            if (ep == null && a != null && a.active == null && a.live()) {
                a.state = ConnectAttempt.State.FAILED;
            }
        } finally {
            provider.cmLock.unlock();
        }
        lost(EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /** dat_cr_accept on the passive side: the Endpoint is connected; tell the active side. Under the CM lock. */
    void accepted(SimEndpoint passive, byte[] acceptData) {
        ep = passive;
        byte[] pd = acceptData == null ? new byte[0] : acceptData;
        outbound.add(frame(TcpFrame.ACCEPT, pd.length, 0, 0, 0, 0, pd));
    }

    /** dat_cr_reject, no listener, backlog full: tell the active side, then close. */
    void reject(int reason) {
        outbound.add(frame(TcpFrame.REJECT, 0, 0, reason, 0, 0, null));
        queueFin();
    }

    // ---------------------------------------------------------------------------------------------
    // both sides, established
    // ---------------------------------------------------------------------------------------------

    private void readEstablished(SocketChannel ch) throws IOException {
        while (!closed) {
            if (!handleEstablished(reader.readHeader(ch))) {
                return;
            }
        }
    }

    /** Handles one header read on an established connection; {@code false} when it ended. */
    private boolean handleEstablished(int s) {
        if (s == TcpFrameReader.EOF) {
            lost(finQueued ? EventNumber.CONNECTION_EVENT_DISCONNECTED : EventNumber.CONNECTION_EVENT_BROKEN);
            return false;
        }
        if (s == TcpFrameReader.MALFORMED) {
            protocolEnd(reader.error());
            lost(EventNumber.CONNECTION_EVENT_BROKEN);
            return false;
        }
        if (reader.frame.opcode == TcpFrame.DISCONNECT) {
            lost(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            return false;
        }
        protocolEnd("unexpected " + TcpFrame.opcodeName(reader.frame.opcode) + " on an established connection");
        lost(EventNumber.CONNECTION_EVENT_BROKEN);
        return false;
    }

    /** The connection ended: the local Endpoint, if still on it, gets the event. */
    private void lost(int eventNumber) {
        SimProvider provider = transport.adapter().provider;
        SimEndpoint e;
        provider.cmLock.lock();
        try {
            e = ep;
        } finally {
            provider.cmLock.unlock();
        }
        if (e != null) {
            e.wireLost(this, eventNumber);
        }
        close();
    }

    /** The local Endpoint disconnects (or breaks): tell the peer and half-close. */
    void disconnect() {
        if (!closed) {
            outbound.add(frame(TcpFrame.DISCONNECT, 0, 0, 0, 0, 0, null));
            queueFin();
        }
    }

    private void queueFin() {
        finQueued = true;
        outbound.add(FIN);
    }

    private void protocolEnd(String reason) {
        if (reason != null && LOG.isLoggable(Level.FINE)) {
            LOG.fine("sim TCP connection " + describe() + " ended: " + reason);
        }
    }

    private String describe() {
        SocketChannel ch = channel;
        try {
            return ch == null ? "(unconnected)" : ch.getLocalAddress() + " <-> " + ch.getRemoteAddress();
        } catch (IOException e) {
            return "(closed)";
        }
    }

    /** Reads a CM frame's private data (its length was checked against max_private_data). */
    private byte[] readPrivateData(SocketChannel ch) throws IOException {
        byte[] pd = new byte[(int) reader.frame.payloadLength];
        return reader.readPayloadFully(ch, ByteBuffer.wrap(pd)) ? pd : null;
    }

    /** A whole CM frame as one buffer (the control path may allocate). */
    private static ByteBuffer frame(int op, int len, int ctx, int aux, long seq, long addr, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(TcpFrame.HEADER_BYTES + len).order(ByteOrder.BIG_ENDIAN);
        TcpFrame.encode(b, op, len, ctx, aux, seq, addr);
        if (payload != null) {
            b.put(payload, 0, len);
        }
        return b.flip();
    }

    private void startWriter() {
        writerThread = Thread.ofVirtual().name("dat-sim-tcp-writer").start(this::writeLoop);
    }

    private void writeLoop() {
        SocketChannel ch = channel;
        try {
            while (!closed) {
                ByteBuffer b = outbound.take();
                if (b == FIN) {
                    ch.shutdownOutput();
                    return;
                }
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            }
        } catch (IOException e) {
            // the reader sees the failure too and reports it; nothing more to write
        } catch (InterruptedException e) {
            // close(): stop writing
        }
    }

    /** Closes the socket (idempotent); both threads end. */
    void close() {
        SocketChannel ch;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            ch = channel;
        }
        transport.connections.remove(this);
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        Thread w = writerThread;
        if (w != null) {
            w.interrupt();
        }
    }

    boolean join(long millis) throws InterruptedException {
        Thread r = readerThread;
        Thread w = writerThread;
        if (r != null && !r.join(java.time.Duration.ofMillis(millis))) {
            return false;
        }
        return w == null || w.join(java.time.Duration.ofMillis(millis));
    }
}
