package dat.provider.sim.internal.tcp;

import dat.api.EpAttributes;
import dat.api.EventNumber;
import dat.provider.sim.internal.core.ConnectAttempt;
import dat.provider.sim.internal.core.SimProvider;
import dat.provider.sim.internal.core.Wire;
import dat.provider.sim.internal.shm.ShmMode;
import dat.provider.sim.internal.shm.ShmSession;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.Arrays;

/**
 * The connection-management phase of one connection, read by the I/O agent. The active side
 * sends CONNECT_REQUEST once its socket connected and waits for ACCEPT (then answers
 * READY_TO_USE and is established) or REJECT. The passive side reads the CONNECT_REQUEST of an
 * accepted socket (nothing local sees a socket before that), delivers it to the Service Point on
 * its qualifier, and, once its consumer accepted (ACCEPT sent from dat_cr_accept), waits for
 * READY_TO_USE, IB CM's RTU: until it comes the passive Endpoint is COMPLETION_PENDING, so an
 * accept that crosses the requester's timeout ends in ACCEPT_COMPLETION_ERROR. Anything else the
 * peer sends in this phase ends the connection.
 */
final class Handshake {

    /** What {@link #read} found. */
    static final int WAITING = 0;
    static final int ESTABLISHED = 1;
    static final int ENDED = 2;

    /** IDLE: an active socket of an ended connection, waiting for the next attempt ({@link SocketReuse}). */
    private enum Phase { IDLE, CONNECTING, ANSWER, ANSWER_DATA, REQUEST, REQUEST_DATA, DECIDING, DONE }

    private final TcpConnection c;
    private final TcpFrameReader reader;
    /** Volatile: a connect on an idle socket sets it from the consumer's thread. */
    private volatile Phase phase;
    /** A CM frame's payload being read, and the header fields of a CONNECT_REQUEST read. */
    private byte[] data;
    private ByteBuffer dataBuffer;
    private int requestContext;
    private int requestAux;
    private long requestSeq;
    private long requestAddress;
    /** The active side: the ACCEPT read took the shared-memory offer. */
    private boolean acceptedShm;

    /** @param recycled the socket is an ended connection's: the active side's idles, the passive side's waits for a request */
    Handshake(TcpConnection connection, TcpFrameReader reader, boolean active, boolean recycled) {
        this.c = connection;
        this.reader = reader;
        this.phase = active ? (recycled ? Phase.IDLE : Phase.CONNECTING) : Phase.REQUEST;
    }

    /** Whether the connection is established (its frames are the receiver's). */
    boolean done() {
        return phase == Phase.DONE;
    }

    // ---------------------------------------------------------------------------------------------
    // the active side
    // ---------------------------------------------------------------------------------------------

    /** The agent: the active socket connected (or failed to); the request goes out. */
    void connected(ConnectAttempt a) {
        SocketChannel ch = c.channel();
        try {
            if (!ch.finishConnect()) {
                return; // not yet
            }
        } catch (IOException e) {
            // refused, no route, or closed by a timeout or abort (then the attempt is over already)
            c.failAttempt(a, EventNumber.CONNECTION_EVENT_UNREACHABLE);
            return;
        }
        a.reached = true;
        if (!c.shm.offer(a)) {
            return; // shm=on and no ring file could be made: refused
        }
        phase = Phase.ANSWER;
        c.output.sendControl(connectRequest(a));
        c.readInterest(); // the answer
        c.prepare(a.active()); // while the peer answers
    }

    /** Whether the active side waits for its answer and has read no byte of it. */
    boolean awaitsAnswer() {
        return phase == Phase.ANSWER && !reader.holdsBytes();
    }

    /**
     * The consumer's thread in dat_ep_connect (under the CM lock): the attempt took this idle
     * socket, connected already; the request goes at once.
     */
    void reused(ConnectAttempt a) {
        a.reached = true;
        if (!c.shm.offer(a)) {
            return; // shm=on and no ring file could be made: refused
        }
        phase = Phase.ANSWER; // before the request: the agent reads the answer as one
        c.output.sendControl(connectRequest(a));
    }

    /**
     * The CONNECT_REQUEST of an attempt: its private data, then its Endpoint's attributes, then
     * the shared-memory offer when the connection makes one.
     */
    private ByteBuffer connectRequest(ConnectAttempt a) {
        byte[] pd = a.privateData;
        EpAttributes attrs = a.activeAttributes;
        ShmSession offer = c.sharedMemory();
        int context = a.qos | (attrs == null ? 0 : TcpFrame.WITH_ATTRIBUTES) | (offer == null ? 0 : TcpFrame.WITH_SHM)
                | c.reuse.offer(a);
        int len = pd.length + TcpFrame.requestExtra(context);
        ByteBuffer b = ByteBuffer.allocate(TcpFrame.HEADER_BYTES + len).order(ByteOrder.BIG_ENDIAN);
        TcpFrame.encode(b, TcpFrame.CONNECT_REQUEST, len, context, c.transport().address().getPort(), a.activePortQual, a.remoteQual);
        b.put(pd);
        if (attrs != null) {
            TcpFrame.putAttributes(b, attrs);
        }
        if (offer != null) {
            offer.putOffer(b);
        }
        return b.flip();
    }

    // ---------------------------------------------------------------------------------------------
    // both sides
    // ---------------------------------------------------------------------------------------------

    /**
     * The agent: reads the frames of the handshake the socket holds.
     *
     * @return {@link #WAITING}, {@link #ESTABLISHED} (the frames behind are the receiver's) or {@link #ENDED}
     */
    int read() throws IOException {
        SocketChannel ch = c.channel();
        for (;;) {
            switch (phase) {
                case ANSWER -> {
                    int s = reader.readHeader(ch);
                    if (s == TcpFrameReader.NEED_MORE) {
                        return WAITING;
                    }
                    int r = onAnswer(s);
                    if (r != WAITING) {
                        return r;
                    }
                }
                case ANSWER_DATA, REQUEST_DATA -> {
                    int n = readData(ch);
                    if (n == 0) {
                        return WAITING;
                    }
                    if (n < 0) {
                        return truncated();
                    }
                    int r = phase == Phase.ANSWER_DATA ? accepted() : requested();
                    if (r != WAITING) {
                        return r;
                    }
                }
                case REQUEST -> {
                    int s = reader.readHeader(ch);
                    if (s == TcpFrameReader.NEED_MORE) {
                        return WAITING;
                    }
                    if (s != TcpFrameReader.READY || reader.frame.opcode != TcpFrame.CONNECT_REQUEST) {
                        // not a DAT peer, or a broken one: nothing local has seen it, just drop it
                        c.protocolEnd(s == TcpFrameReader.READY ? "first frame is not CONNECT_REQUEST" : reader.error());
                        c.close();
                        return ENDED;
                    }
                    TcpFrame f = reader.frame;
                    requestContext = f.context;
                    requestAux = f.aux;
                    requestSeq = f.seq;
                    requestAddress = f.address;
                    startData();
                    phase = Phase.REQUEST_DATA;
                }
                case DECIDING -> {
                    int s = reader.readHeader(ch);
                    if (s == TcpFrameReader.NEED_MORE) {
                        return WAITING;
                    }
                    return decided(s);
                }
                case IDLE -> {
                    // the peer closed the idle socket (or sent what it must not): it goes, unless a
                    // connect took it first (whose request then meets the same end)
                    return c.reuse.idleEnds() ? ENDED : WAITING;
                }
                default -> {
                    return WAITING; // connecting: the socket is not readable before
                }
            }
        }
    }

    /** A CM frame's payload into {@link #data}: its length, 0 when more must come, -1 when the stream ended first. */
    private int readData(SocketChannel ch) throws IOException {
        while (dataBuffer.hasRemaining() && reader.payloadLeft() > 0) {
            int n = reader.readPayload(ch, dataBuffer);
            if (n < 0) {
                return -1;
            }
            if (n == 0) {
                return 0;
            }
            c.liveness.read();
        }
        return Math.max(1, data.length);
    }

    private void startData() {
        data = new byte[(int) reader.frame.payloadLength]; // checked against the maximum of CM frames
        dataBuffer = ByteBuffer.wrap(data);
    }

    private int truncated() {
        c.protocolEnd("truncated private data");
        ConnectAttempt a = c.attempt();
        if (phase == Phase.ANSWER_DATA && a != null) {
            c.failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        }
        c.close();
        return ENDED;
    }

    // ---------------------------------------------------------------------------------------------
    // the active side's answer
    // ---------------------------------------------------------------------------------------------

    private int onAnswer(int s) {
        ConnectAttempt a = c.attempt();
        if (s != TcpFrameReader.READY) {
            if (s == TcpFrameReader.EOF && reader.error() == null && c.reuse.retryFresh(a)) {
                return ENDED; // the reused socket was dead: the attempt goes on over a fresh one
            }
            c.protocolEnd(s == TcpFrameReader.MALFORMED ? reader.error() : "closed before answering");
            c.failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            c.close();
            return ENDED;
        }
        TcpFrame f = reader.frame;
        switch (f.opcode) {
            case TcpFrame.ACCEPT -> {
                acceptedShm = (f.aux & TcpFrame.ACCEPT_SHM) != 0;
                if (!c.reuse.answered(f.aux)) {
                    c.protocolEnd("socket reuse accepted that was not offered");
                    c.failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                    return ENDED;
                }
                startData();
                phase = Phase.ANSWER_DATA;
                return WAITING;
            }
            case TcpFrame.REJECT -> {
                c.failAttempt(a, f.aux == TcpFrame.REJECT_PEER ? EventNumber.CONNECTION_EVENT_PEER_REJECTED
                        : EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                c.close();
                return ENDED;
            }
            default -> {
                c.protocolEnd("unexpected " + f.name() + " while connecting");
                c.failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                c.close();
                return ENDED;
            }
        }
    }

    /**
     * ACCEPT arrived whole: the active Endpoint is connected, if it still waits, over shared
     * memory when the passive side took the offer and proved it mapped the file.
     */
    private int accepted() {
        ConnectAttempt a = c.attempt();
        byte[] acceptData = data;
        data = null;
        if (acceptedShm) {
            int pdLength = acceptData.length - TcpFrame.SHM_ANSWER_BYTES; // at least the answer: decode checked it
            byte[] answer = Arrays.copyOfRange(acceptData, pdLength, acceptData.length);
            acceptData = Arrays.copyOf(acceptData, pdLength);
            ShmSession offer = c.sharedMemory();
            if (offer == null || !offer.confirm(answer)) {
                c.protocolEnd(offer == null ? "shared memory accepted that was not offered" : "the shared-memory answer does not match the file");
                c.failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                return ENDED;
            }
        } else if (!c.shm.declined(a)) {
            return ENDED; // shm=on: a peer that cannot share is refused
        }
        if (!c.establishActive(a, acceptData)) {
            c.close();
            return ENDED;
        }
        phase = Phase.DONE;
        return ESTABLISHED;
    }

    // ---------------------------------------------------------------------------------------------
    // the passive side's request and the consumer's decision
    // ---------------------------------------------------------------------------------------------

    /**
     * CONNECT_REQUEST arrived whole: its shared-memory offer taken if this side can, then it goes
     * to the Service Point on its qualifier.
     */
    private int requested() throws IOException {
        byte[] pd = data;
        data = null;
        EpAttributes activeAttributes = null;
        int pdLength = pd.length - TcpFrame.requestExtra(requestContext); // decode checked there is room
        ByteBuffer extra = ByteBuffer.wrap(pd, pdLength, pd.length - pdLength).order(ByteOrder.BIG_ENDIAN);
        if ((requestContext & TcpFrame.WITH_ATTRIBUTES) != 0) {
            activeAttributes = TcpFrame.getAttributes(extra);
        }
        c.reuse.requested(requestContext);
        boolean offered = (requestContext & TcpFrame.WITH_SHM) != 0;
        if (offered) {
            c.shm.take(extra);
        } else {
            c.shm.closeKept();
        }
        pd = Arrays.copyOf(pd, pdLength);
        InetSocketAddress peer = (InetSocketAddress) c.channel().getRemoteAddress();
        ConnectAttempt a = new ConnectAttempt(null, new InetSocketAddress(peer.getAddress(), requestAux), requestSeq,
                c.transport().address(), requestAddress, pd, requestContext & ~(TcpFrame.WITH_ATTRIBUTES | TcpFrame.WITH_SHM | TcpFrame.WITH_REUSE),
                activeAttributes);
        a.link = c;
        phase = Phase.DECIDING;
        if (c.sharedMemory() == null && c.transport().shm().mode() == ShmMode.ON) {
            // shm=on: a peer that cannot share is refused, before any consumer sees the request
            c.transport().adapter().provider.cmLock.lock();
            try {
                a.fail(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            } finally {
                c.transport().adapter().provider.cmLock.unlock();
            }
            return WAITING;
        }
        if (c.deliver(a)) {
            // while the consumer decides; its Endpoint may want larger scratch requests (prepare)
            c.prepareEarly(c.transport().defaultIov);
        }
        return WAITING; // until accepted, the active side may only give up (DISCONNECT or close)
    }

    /**
     * A frame (or the stream's end) came while the passive side decided, or after it accepted:
     * READY_TO_USE completes the accept; before an accept, anything ends the request (the
     * consumer's later dat_cr_accept reports ACCEPT_COMPLETION_ERROR).
     */
    private int decided(int s) {
        SimProvider provider = c.transport().adapter().provider;
        provider.cmLock.lock();
        try {
            Wire w = c.joined();
            if (w == null) {
                ConnectAttempt a = c.attempt();
                if (a != null && a.live()) {
                    a.state = ConnectAttempt.State.FAILED;
                }
                c.close();
                return ENDED;
            }
            boolean ready = s == TcpFrameReader.READY && reader.frame.opcode == TcpFrame.READY_TO_USE;
            if (!ready) {
                // an end of stream between frames is the requester giving up (no reason, not
                // counted); one inside the header cuts the answer short
                c.protocolEnd(s == TcpFrameReader.READY ? "expected READY_TO_USE, got " + reader.frame.name()
                        : reader.error());
                c.endpoint().connectionManager().wireLost(w, EventNumber.CONNECTION_EVENT_BROKEN); // the accept did not complete
                c.close();
                return ENDED;
            }
            c.transport().shm().counted(c.sharedMemory());
            c.established(); // before the event: a consumer that waits once it sees it polls the rings itself
            c.endpoint().connectionManager().readyToUse(w);
            phase = Phase.DONE;
            return ESTABLISHED;
        } finally {
            provider.cmLock.unlock();
        }
    }
}
