package dat.provider.sim.internal.tcp;

import dat.api.CompletionFlags;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.provider.sim.internal.core.RemoteWindow;
import dat.provider.sim.internal.core.SimEndpoint;
import dat.provider.sim.internal.core.SpinLock;
import dat.provider.sim.internal.core.Wire;
import dat.provider.sim.internal.core.Wr;

/**
 * The Endpoint's side of one established TCP connection: which of its queued requests are on the
 * wire (transmitted, their responses due in order), and the calls through which the connection
 * completes them, lands payloads in its receives and checks accesses against it. Its counters are
 * guarded by the Endpoint's lock, which every method takes; none blocks.
 *
 * <p>Requests go out in queue order with consecutive sequence numbers; the responses (ACKs,
 * RDMA read responses) come back in the same order, so the head of the queue is always the
 * request the next response answers. A successful ACK is cumulative.
 */
final class TcpWire implements Wire {

    private final TcpConnection connection;
    private final SimEndpoint ep;
    /** Requests transmitted and awaiting their response, counted from the queue's head. */
    private int txCount;
    /** The sequence number of the next transmitted request, and of the next response due. */
    private long txSeq;
    private long rxSeq;
    /**
     * The last request transmitted let the target hold its ACK, and no ACK_REQUEST was asked for
     * since. See {@link TcpFrame#ACK_DEFERRABLE}.
     */
    private boolean ackDeferred;
    /** The payload bytes of the sends and writes in flight. */
    private long txBytes;

    TcpWire(TcpConnection connection, SimEndpoint ep) {
        this.connection = connection;
        this.ep = ep;
    }

    /** The local Endpoint. */
    SimEndpoint endpoint() {
        return ep;
    }

    // ---------------------------------------------------------------------------------------------
    // Wire: the Endpoint's calls, with its lock held
    // ---------------------------------------------------------------------------------------------

    @Override
    public boolean requestsQueued(SimEndpoint e, boolean posted) {
        int queued = e.requestCount();
        if (posted && txCount + 1 == queued && txCount < Output.INLINE_MAX_IN_FLIGHT) {
            // the only request not on the wire, behind few in flight: the posting thread may write
            // it (a deeper pipeline is the writer's, which gathers frames into one write)
            return true;
        }
        if (txCount < queued) {
            connection.kick();
        }
        return false;
    }

    @Override
    public void transmitNow(SimEndpoint e) {
        connection.transmitInline(this);
    }

    @Override
    public void receivesAvailable(SimEndpoint e) {
        // a send refused as receiver-not-ready comes again from the initiator, after its backoff
    }

    @Override
    public SimEndpoint localPeer(SimEndpoint e) {
        return null;
    }

    @Override
    public Wr.Recv leave(SimEndpoint e, boolean broken) {
        connection.awaitWriteCall(); // no byte of the requests flushed next is read after this
        forgetInFlight();
        if (broken) {
            connection.breakOff();
        } else {
            // the consumer that waits for the DISCONNECTED event reads the peer's answer itself
            // (IoAgent#drive), until a connection event comes there (SimEvd#postConnection)
            connection.noteDriver(e.connectEvd());
            connection.disconnect();
        }
        // no payload lands any more in a receive or read the reader holds
        return connection.abandonLanding();
    }

    // ---------------------------------------------------------------------------------------------
    // the writer's side: transmitting
    // ---------------------------------------------------------------------------------------------

    /**
     * The writer: the next request to transmit, copied into {@code out} (so the slot may be
     * flushed meanwhile without the writer reading a cleared slot). An RMR bind at the head of
     * the queue completes here (it is local); one behind requests in flight waits for them.
     *
     * @return its sequence number, or -1 when there is nothing to transmit
     */
    long nextTransmit(Wr.Request out) {
        return nextTransmit(out, Integer.MAX_VALUE, Long.MAX_VALUE);
    }

    /** {@link #nextTransmit(Wr.Request, int, long)}'s answer when the next request is larger than asked for. */
    static final long TOO_LARGE = -2;

    /**
     * {@link #nextTransmit(Wr.Request)} for a frame that must fit (an inline write, the rest of
     * the writer's batch): only an RDMA read (its request carries no data) or a request of at most
     * {@code maxSegments} segments and {@code maxBytes} bytes.
     *
     * @return its sequence number, -1 when there is nothing to transmit, {@link #TOO_LARGE} when
     *     the next request does not fit (it stays queued)
     */
    long nextTransmit(Wr.Request out, int maxSegments, long maxBytes) {
        SpinLock l = ep.acquire();
        try {
            for (;;) {
                EpState s = ep.state();
                if (!ep.connectedThrough(this) || (s != EpState.CONNECTED && s != EpState.DISCONNECT_PENDING)
                        || txCount >= ep.requestCount()) {
                    return -1;
                }
                Wr.Request wr = ep.requestAt(txCount);
                if (wr.op == Wr.Request.BIND) {
                    if (txCount != 0) {
                        return -1; // completes in order, after the requests before it
                    }
                    ep.completeHead(DtoCompletionStatus.SUCCESS, 0);
                    if (ep.finishGraceful()) {
                        return -1;
                    }
                    continue;
                }
                if ((wr.flags & CompletionFlags.BARRIER_FENCE) != 0 && readInFlight()) {
                    // a fenced request starts once the RDMA reads before it completed: their data
                    // has landed in local buffers it may send, and the target has read the memory
                    // it may write (one JVM executes in order, so every request is fenced there).
                    // The read's completion kicks the writer
                    return -1;
                }
                if (!wr.readsRemote() && (wr.segments > maxSegments || wr.total > maxBytes)) {
                    return TOO_LARGE;
                }
                out.copyRequest(wr);
                txCount++;
                txBytes += payloadBytes(wr);
                // with this much in flight the target's held ACKs come by themselves (it sends them
                // at ACKS_HELD_MAX or ACK_HELD_BYTES); a read's or atomic's response goes out at
                // once, flushing those before it, and a write with immediate data is never held
                out.ackDeferrable = (wr.op == Wr.Request.SEND || wr.op == Wr.Request.RDMA_WRITE) && ackHeldInFlight();
                ackDeferred = out.ackDeferrable;
                return txSeq++;
            }
        } finally {
            l.unlock();
        }
    }

    /** With the lock held: whether an RDMA read or an atomic is on the wire, its response not yet landed. */
    private boolean readInFlight() {
        for (int i = 0; i < txCount; i++) {
            if (ep.requestAt(i).readsRemote()) {
                return true;
            }
        }
        return false;
    }

    /** With the lock held: nothing is in flight on the wire any more (a rewind, a disconnect). */
    private void forgetInFlight() {
        txCount = 0;
        txBytes = 0;
        ackDeferred = false;
    }

    /** The payload bytes of a request that its ACK answers: a send's or write's; a read or atomic has its own answer. */
    private static long payloadBytes(Wr.Request wr) {
        return wr.readsRemote() ? 0 : wr.total;
    }

    /**
     * With the lock held: whether so much is in flight that the target sends the ACKs it holds by
     * itself (see {@link TcpFrame#ACK_DEFERRABLE}).
     */
    private boolean ackHeldInFlight() {
        return txCount >= TcpFrame.ACKS_HELD_MAX || txBytes >= TcpFrame.ACK_HELD_BYTES;
    }

    /**
     * The writer or a posting thread: the local memory of the request {@code seq} went away while
     * it was transmitted; it completes with {@code DAT_DTO_ERR_LOCAL_PROTECTION} (as in one JVM)
     * when the connection, which cannot finish its frame, breaks.
     */
    void localMemoryGone(long seq) {
        SpinLock l = ep.acquire();
        try {
            long ahead = seq - rxSeq;
            if (!ep.connectedThrough(this) || ahead < 0 || ahead >= ep.requestCount()) {
                return;
            }
            ep.requestAt((int) ahead).failedWith = DtoCompletionStatus.ERR_LOCAL_PROTECTION;
        } finally {
            l.unlock();
        }
    }

    /** Whether a request waits to be transmitted. */
    boolean untransmitted() {
        SpinLock l = ep.acquire();
        try {
            return ep.connectedThrough(this) && txCount < ep.requestCount();
        } finally {
            l.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the reader's side: responses to this side's requests
    // ---------------------------------------------------------------------------------------------

    /**
     * The reader, initiator side: the ACK of a send or RDMA write, or the end of an RDMA read
     * response, completes the head request.
     *
     * @param status a {@link TcpFrame} status
     * @param read whether the response answers an RDMA read (else an ACK)
     * @return {@code null}, or why the response is a protocol error (the caller breaks the connection)
     */
    String complete(long seq, int status, boolean read) {
        SpinLock l = ep.acquire();
        try {
            if (!ep.connectedThrough(this)) {
                return null; // flushed meanwhile: the connection is going away
            }
            if (status == TcpFrame.STATUS_RNR) {
                int head = txCount == 0 ? 0 : ep.requestAt(0).op;
                if (read || seq != rxSeq || head != Wr.Request.SEND && head != Wr.Request.WRITE_IMMEDIATE) {
                    return "a receiver-not-ready answer for seq " + seq + ", which is not the send at the head";
                }
                // the target dropped this send and what followed: transmit them again, later
                forgetInFlight();
                txSeq = rxSeq;
                connection.notReady(seq);
                return null;
            }
            connection.acknowledged();
            String why = checkResponse(seq, status, read);
            if (why != null) {
                return why;
            }
            // an ACK is cumulative: it completes every request in flight up to seq (sends, writes)
            long last = read || status != TcpFrame.STATUS_OK ? rxSeq : seq;
            while (rxSeq < last) {
                Wr.Request done = ep.requestAt(0);
                takeHead(done);
                ep.completeHead(DtoCompletionStatus.SUCCESS, done.total);
            }
            Wr.Request wr = ep.requestAt(0);
            takeHead(wr);
            switch (status) {
                case TcpFrame.STATUS_OK -> ep.completeHead(DtoCompletionStatus.SUCCESS, read ? wr.remoteLength : wr.total);
                case TcpFrame.STATUS_REMOTE_ACCESS -> {
                    ep.completeHead(DtoCompletionStatus.ERR_REMOTE_ACCESS, 0);
                    ep.breakConnection();
                    return null;
                }
                default -> {
                    // the receive was too small: the sender sees a remote error (as in one JVM)
                    ep.completeHead(DtoCompletionStatus.ERR_REMOTE_RESPONDER, 0);
                    ep.breakConnection();
                    return null;
                }
            }
            if (ackDeferred && txCount > 0 && !ackHeldInFlight()) {
                // the deferrable request is still in flight (the last transmitted: in flight while
                // any is), behind fewer than make the target send its held ACKs: ask for them (the
                // writer sends the ACK_REQUEST after that request, which it already wrote)
                ackDeferred = false;
                connection.requestAcks();
            }
            if (!ep.finishGraceful() && txCount < ep.requestCount()) {
                connection.kick(); // a bind waiting behind this request can go now
            }
            return null;
        } finally {
            l.unlock();
        }
    }

    /** Why a response does not answer the requests in flight, or {@code null}. With the lock held. */
    private String checkResponse(long seq, int status, boolean read) {
        if (txCount == 0 || seq < rxSeq || seq - rxSeq >= txCount || (read || status != TcpFrame.STATUS_OK) && seq != rxSeq) {
            return "a response to no request in flight (seq " + seq + ")";
        }
        for (int i = 0; i <= seq - rxSeq; i++) {
            if (ep.requestAt(i).readsRemote() != read) {
                return "a response of the wrong kind for seq " + (rxSeq + i);
            }
        }
        return null;
    }

    /** The head request's response came: it is no longer in flight. With the lock held. */
    private void takeHead(Wr.Request head) {
        txCount--;
        txBytes -= payloadBytes(head);
        rxSeq++;
    }

    /**
     * The reader, initiator side: the local memory of the read {@code seq} at the head went away
     * while its response landed (its LMR freed, its arena closed). As in one JVM the read completes
     * with {@code DAT_DTO_ERR_LOCAL_PROTECTION} and the connection breaks.
     */
    void readLostItsMemory(long seq) {
        SpinLock l = ep.acquire();
        try {
            if (!ep.connectedThrough(this) || txCount == 0 || seq != rxSeq || !ep.requestAt(0).readsRemote()) {
                return; // flushed meanwhile
            }
            takeHead(ep.requestAt(0));
            ep.completeHead(DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0);
            ep.breakConnection();
        } finally {
            l.unlock();
        }
    }

    /**
     * The reader, initiator side: an RDMA read response arrived; copies the head read request
     * (its local buffers) into {@code out} for the payload to be scattered into.
     *
     * @return {@code null}, or why the response is a protocol error
     */
    String readTarget(long seq, int status, long len, Wr.Request out) {
        SpinLock l = ep.acquire();
        try {
            if (!ep.connectedThrough(this)) {
                out.segments = 0;
                out.total = 0;
                out.op = Wr.Request.RDMA_READ; // its payload goes nowhere
                return null;
            }
            if (txCount == 0 || seq != rxSeq || !ep.requestAt(0).readsRemote()) {
                return "a read response to no read or atomic in flight (seq " + seq + ")";
            }
            Wr.Request wr = ep.requestAt(0);
            if (status == TcpFrame.STATUS_OK && len != wr.remoteLength) {
                return "a read response of " + len + " bytes for " + wr.remoteLength;
            }
            out.copyRequest(wr);
            connection.landingBegins(false);
            return null;
        } finally {
            l.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the reader's side: the target of the peer's requests
    // ---------------------------------------------------------------------------------------------

    /**
     * The reader, target side of a send: takes the first posted receive (or an SRQ buffer), copied
     * into {@code out} so the ring slot can be reused while the payload is read.
     *
     * @return whether a receive was there
     */
    boolean takeRecvForWire(Wr.Recv out) {
        SpinLock l = ep.acquire();
        try {
            if (!ep.connectedThrough(this) || !ep.takeRecvInto(out)) {
                return false;
            }
            connection.landingBegins(true);
            return true;
        } finally {
            l.unlock();
        }
    }

    /** The reader, target side: a send landed (or failed) in the receive {@link #takeRecvForWire} gave. */
    void recvDone(Wr.Recv rv, int status, long len, boolean solicited) {
        SpinLock l = ep.acquire();
        try {
            if (!ep.connectedThrough(this)) {
                return; // the flush that ended this connection completed it (leave)
            }
            connection.landingEnds(); // a flush from now on finds no receive to complete again
            connection.responseOwed(); // its send's answer goes before a disconnect that follows
            ep.completeRecv(rv, status, len, solicited);
        } finally {
            l.unlock();
        }
    }

    /**
     * The reader, target side: an RDMA write with immediate data landed; the receive
     * {@link #takeRecvForWire} gave completes with the immediate data.
     */
    void recvDoneImmediate(Wr.Recv rv, long len, int immediate, boolean solicited) {
        SpinLock l = ep.acquire();
        try {
            if (!ep.connectedThrough(this)) {
                return; // the flush that ended this connection completed it (leave)
            }
            connection.landingEnds();
            connection.responseOwed();
            ep.completeRecvImmediate(rv, DtoCompletionStatus.SUCCESS, len, immediate, solicited);
        } finally {
            l.unlock();
        }
    }

    /** Whether the Endpoint is still connected through this wire (a volatile read, no lock). */
    boolean connected() {
        return ep.connectedThrough(this);
    }

    /**
     * The reader, target side of an RDMA operation: the checks of the in-JVM path against the
     * Endpoint ({@link SimEndpoint#remoteWindow}), and that it is still connected through this
     * wire: not one disconnected since (its peer may ignore the DISCONNECT), whose Endpoint may be
     * connected anew, to another peer.
     *
     * @return the window, or {@code null} when the access is refused
     */
    RemoteWindow remoteWindow(int context, long address, long len, boolean write) {
        RemoteWindow win = ep.remoteWindow(context, address, len, write);
        return win != null && ep.connectedThrough(this) ? win : null;
    }

    /** {@link #remoteWindow(int, long, long, boolean)} for the remote privilege {@code needed} (an atomic's). */
    RemoteWindow remoteWindow(int context, long address, long len, int needed) {
        RemoteWindow win = ep.remoteWindow(context, address, len, needed);
        return win != null && ep.connectedThrough(this) ? win : null;
    }

    /** The connection ended from the far side, or broke: the Endpoint, if still on it, gets the event. */
    void lost(int eventNumber) {
        ep.connectionManager().wireLost(this, eventNumber);
    }

    /** The target side found a broken frame or access; this connection breaks. */
    void broken() {
        lost(EventNumber.CONNECTION_EVENT_BROKEN);
    }
}
