package dat.provider.sim.internal;

import dat.api.AsyncErrorReason;
import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.ConnectFlags;
import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EpRecvInfo;
import dat.api.EpState;
import dat.api.EpStatus;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.HandleType;
import dat.api.LmrTriplet;
import dat.api.MemPrivileges;
import dat.api.Qos;
import dat.api.RmrTriplet;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * An Endpoint: the EP state machine of dat_ep_connect(3DAT) and its neighbours, and the data path.
 *
 * <p><b>Data path.</b> Each Endpoint has a ring of pre-allocated request slots (sends, RDMA
 * reads and writes, RMR binds) and one of receive slots. A post checks its IOV, copies it into a
 * slot and, when connected, executes the request queue at once on the posting thread: a send
 * copies into the peer's first posted receive, an RDMA write or read checks the target's RMR
 * context, bounds, privileges and PZ and copies, without the target consumer calling in. Requests
 * execute strictly in order; a send that finds no receive posted waits at the head of the queue
 * (with everything behind it) until the peer posts one, and the peer's post then carries the queue
 * on (the infinite RNR retry of an RC queue pair; the sender is never failed with
 * {@code RECEIVER_NOT_READY}). Since execution is in order, every request is fenced:
 * {@link CompletionFlags#BARRIER_FENCE} holds by construction. Over TCP, where requests are
 * pipelined, a fenced request waits for the RDMA reads before it to complete.
 *
 * <p><b>Locks.</b> An unconnected Endpoint has its own spin lock; the two Endpoints of a
 * connection share one. The lock guards both rings of both ends, so a transfer takes exactly one
 * lock, never one shared with unrelated Endpoints. EVDs and SRQs have their own inner locks.
 * Connection management additionally holds the provider's CM lock (taken first).
 */
final class SimEndpoint extends SimHandle implements Endpoint {

    private static final int OK = DatReturn.SUCCESS;
    private static final int STALLED = 1;
    private static final int BROKEN = 2;
    private static final int DONE = 0;

    private final SimIa ia;
    final SimSrq srq;
    volatile SimPz pz;
    volatile SimEvd recvEvd;
    volatile SimEvd requestEvd;
    volatile SimEvd connectEvd;
    private volatile EpAttributes attrs;
    private volatile EpState state = EpState.UNCONNECTED;
    private volatile SpinLock lock = new SpinLock();
    /** The other end while connected (guarded by the shared lock). */
    private SimEndpoint peer;
    /**
     * The TCP connection while connected to an IA over TCP (then {@link #peer} is null); written
     * under the lock, volatile for the target's checks that read it without the lock ({@link #remoteWindow}).
     */
    private volatile TcpConnection wire;
    /** Over TCP: requests transmitted and awaiting their response, counted from reqHead (guarded by the lock). */
    private int txCount;
    /** Over TCP: the sequence number of the next transmitted request, and of the next response due. */
    private long txSeq;
    private long rxSeq;
    /**
     * Over TCP: the last request transmitted let the target hold its ACK, and no ACK_REQUEST was
     * asked for since (guarded by the lock). See {@link TcpFrame#ACK_DEFERRABLE}.
     */
    private boolean ackDeferred;
    /** Over TCP: the payload bytes of the sends and writes in flight (guarded by the lock). */
    private long txBytes;

    // connection management state, guarded by the provider's CM lock
    ConnectAttempt attempt;
    SimCr pendingCr;
    SimRsp reservedBy;
    boolean providerOwned;
    private InetSocketAddress remoteAddress;
    private long remotePortQual;
    private long localPortQual;

    // request queue, guarded by lock
    private Wr.Request[] requests;
    private int reqHead;
    private int reqCount;
    private int readsOutstanding;
    // receive queue, guarded by lock
    private Wr.Recv[] recvs;
    private int recvHead;
    private int recvCount;
    /** Over TCP: receives of this Endpoint's ring a connection's reader holds ({@link Wr.Recv#heldByWire}). */
    private int recvsOnWire;
    /** The SRQ buffer being filled, for Endpoints on an SRQ. */
    private final Wr.Recv srqScratch;
    /** Set when a peer's send waits for an SRQ buffer of this Endpoint. */
    volatile boolean inboundStalled;

    // watermarks (dat_ep_set_watermark(3DAT)); buffers held = posted receives, or SRQ buffers taken
    private volatile int softWatermark;
    private volatile int hardWatermark;
    private volatile boolean softArmed;
    private int srqBuffersHeld;

    SimEndpoint(SimIa ia, SimPz pz, SimEvd recvEvd, SimEvd requestEvd, SimEvd connectEvd, SimSrq srq, EpAttributes attrs) {
        super(HandleType.EP, DatReturn.INVALID_HANDLE_EP);
        this.ia = ia;
        this.srq = srq;
        this.pz = pz;
        this.attrs = attrs;
        this.requests = newRequests(attrs.maxRequestDtos(), requestIov(attrs));
        this.recvs = srq == null ? newRecvs(attrs.maxRecvDtos(), attrs.maxRecvIov()) : new Wr.Recv[0];
        this.srqScratch = srq == null ? null : new Wr.Recv(srq.maxRecvIov);
        this.softWatermark = attrs.srqSoftHighWatermark();
        this.hardWatermark = DatConstants.WATERMARK_INFINITE;
        this.softArmed = softWatermark != DatConstants.WATERMARK_INFINITE;
        if (pz != null) {
            pz.users.incrementAndGet();
        }
        if (srq != null) {
            srq.attach(this);
        }
        setEvds(recvEvd, requestEvd, connectEvd, attrs);
    }

    private static Wr.Request[] newRequests(int n, int iov) {
        Wr.Request[] r = new Wr.Request[n];
        for (int i = 0; i < n; i++) {
            r[i] = new Wr.Request(iov);
        }
        return r;
    }

    private static Wr.Recv[] newRecvs(int n, int iov) {
        Wr.Recv[] r = new Wr.Recv[n];
        for (int i = 0; i < n; i++) {
            r[i] = new Wr.Recv(iov);
        }
        return r;
    }

    /** Attaches the EVDs and counts the streams that feed them. */
    private void setEvds(SimEvd recv, SimEvd request, SimEvd connect, EpAttributes a) {
        feed(recv, a.recvCompletionFlags(), +1);
        feed(request, a.requestCompletionFlags(), +1);
        feed(connect, -1, +1);
        recvEvd = recv;
        requestEvd = request;
        connectEvd = connect;
    }

    private void unsetEvds() {
        EpAttributes a = attrs;
        feed(recvEvd, a.recvCompletionFlags(), -1);
        feed(requestEvd, a.requestCompletionFlags(), -1);
        feed(connectEvd, -1, -1);
    }

    private static void feed(SimEvd evd, int completionFlags, int delta) {
        if (evd == null) {
            return;
        }
        evd.feeders.addAndGet(delta);
        if (completionFlags == CompletionFlags.UNSIGNALLED || completionFlags == CompletionFlags.SOLICITED_WAIT) {
            evd.consumerNotifiedStreams.addAndGet(delta);
        }
        if (completionFlags == CompletionFlags.SOLICITED_WAIT) {
            evd.solicitedStreams.addAndGet(delta);
        }
        if (completionFlags == CompletionFlags.EVD_THRESHOLD) {
            evd.thresholdStreams.addAndGet(delta);
        }
    }

    @Override
    SimIa ia() {
        return ia;
    }

    EpState state() {
        return state;
    }

    EpAttributes attributes() {
        return attrs;
    }

    boolean requestUnsignalledAllowed() {
        return attrs.requestCompletionFlags() == CompletionFlags.UNSIGNALLED;
    }

    /**
     * Takes this Endpoint's current lock, following a switch to or from a connection's lock.
     * Package-private: a test holds it as a flush would.
     */
    SpinLock acquire() {
        for (;;) {
            SpinLock l = lock;
            l.lock();
            if (l == lock) {
                return l;
            }
            l.unlock();
        }
    }

    // =============================================================================================
    // data path
    // =============================================================================================

    @Override
    public int postSend(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        return postRequest(Wr.Request.SEND, numSegments, localIov, userCookie, null, completionFlags);
    }

    @Override
    public int postRdmaWrite(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        return postRequest(Wr.Request.RDMA_WRITE, numSegments, localIov, userCookie, remoteBuffer, completionFlags);
    }

    @Override
    public int postRdmaRead(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        return postRequest(Wr.Request.RDMA_READ, numSegments, localIov, userCookie, remoteBuffer, completionFlags);
    }

    private int postRequest(int op, int n, LmrTriplet[] iov, long cookie, RmrTriplet remote, int flags) {
        if (freed || !ia.usable()) {
            return invalidCode();
        }
        if (!CompletionFlags.isValid(flags)
                || (op != Wr.Request.SEND && (flags & CompletionFlags.SOLICITED_WAIT) != 0)) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, op == Wr.Request.SEND ? DatReturn.INVALID_ARG5 : DatReturn.INVALID_ARG6);
        }
        EpAttributes a = attrs;
        if ((flags & CompletionFlags.UNSIGNALLED) != 0 && a.requestCompletionFlags() != CompletionFlags.UNSIGNALLED) {
            // dat_ep_post_send(3DAT): only valid on an Endpoint configured for unsignalled completions
            return DatReturn.error(DatReturn.INVALID_PARAMETER, op == Wr.Request.SEND ? DatReturn.INVALID_ARG5 : DatReturn.INVALID_ARG6);
        }
        if (op != Wr.Request.SEND && remote == null) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
        }
        EpState s = state;
        if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
            return DatReturn.error(DatReturn.INVALID_STATE, stateSubtype(s));
        }
        int maxIov;
        int privilege;
        if (op == Wr.Request.SEND) {
            maxIov = a.maxRequestIov();
            privilege = MemPrivileges.LOCAL_READ;
        } else if (op == Wr.Request.RDMA_WRITE) {
            maxIov = a.maxRdmaWriteIov();
            privilege = MemPrivileges.LOCAL_READ;
        } else {
            maxIov = a.maxRdmaReadIov();
            privilege = MemPrivileges.LOCAL_WRITE;
        }
        TcpConnection inline = null;
        SpinLock l = acquire();
        try {
            s = state;
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
                return DatReturn.error(DatReturn.INVALID_STATE, stateSubtype(s));
            }
            if (reqCount == requests.length) {
                return DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY);
            }
            if (op == Wr.Request.RDMA_READ && readsOutstanding >= a.maxRdmaReadOut()) {
                return DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_CREDITS);
            }
            Wr.Request wr = requestAt(reqCount);
            int code = wr.load(ia, pz, n, iov, maxIov, privilege);
            if (code != OK) {
                wr.release();
                return code;
            }
            if (op == Wr.Request.SEND) {
                if (wr.total > a.maxMessageSize()) {
                    wr.release();
                    return DatReturn.error(DatReturn.LENGTH_ERROR, DatReturn.NO_SUBTYPE);
                }
            } else {
                long rlen = remote.segmentLength();
                if (rlen < 0 || rlen > a.maxRdmaSize() || wr.total > a.maxRdmaSize()) {
                    wr.release();
                    return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
                }
                // dat_ep_post_rdma_write(3DAT) / _read(3DAT): the receiving buffer is too small
                if ((op == Wr.Request.RDMA_WRITE && wr.total > rlen) || (op == Wr.Request.RDMA_READ && rlen > wr.total)) {
                    wr.release();
                    return DatReturn.error(DatReturn.LENGTH_ERROR, DatReturn.NO_SUBTYPE);
                }
                wr.remoteContext = remote.rmrContext();
                wr.remoteAddress = remote.targetAddress();
                wr.remoteLength = rlen;
            }
            wr.op = op;
            wr.cookie = cookie;
            wr.flags = flags;
            reqCount++;
            if (op == Wr.Request.RDMA_READ) {
                readsOutstanding++;
            }
            if (s == EpState.DISCONNECTED) {
                flushRequests();
            } else if (wire != null && txCount + 1 == reqCount && txCount < TcpConnection.INLINE_MAX_IN_FLIGHT) {
                // the only request not on the wire, behind few in flight: this thread may write it,
                // below (a deeper pipeline is the writer thread's, which gathers frames into one write)
                inline = wire;
            } else {
                drainRequests();
            }
        } finally {
            l.unlock();
        }
        if (inline != null) {
            inline.transmitInline(this);
        }
        return OK;
    }

    /** Posts an RMR bind work request (dat_rmr_bind(3DAT)); the RMR checked everything else. */
    int postBind(SimRmr rmr, SimRmr.Binding binding, long cookie, int flags) {
        if (freed || !ia.usable()) {
            return invalidCode();
        }
        SpinLock l = acquire();
        try {
            EpState s = state;
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
                return DatReturn.error(DatReturn.INVALID_STATE, stateSubtype(s));
            }
            if (reqCount == requests.length) {
                return DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY);
            }
            Wr.Request wr = requestAt(reqCount);
            wr.segments = 0;
            wr.total = 0;
            wr.op = Wr.Request.BIND;
            wr.cookie = cookie;
            wr.flags = flags;
            wr.rmr = rmr;
            wr.binding = binding;
            reqCount++;
            if (s == EpState.DISCONNECTED) {
                flushRequests();
            } else {
                drainRequests();
            }
            return OK;
        } finally {
            l.unlock();
        }
    }

    @Override
    public int postRecv(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        if (freed || !ia.usable()) {
            return invalidCode();
        }
        if (srq != null) {
            // receives of an Endpoint on an SRQ are posted to the SRQ (dat_ep_create_with_srq(3DAT))
            return DatReturn.error(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE);
        }
        if (completionFlags != CompletionFlags.DEFAULT
                && (completionFlags != CompletionFlags.UNSIGNALLED || attrs.recvCompletionFlags() != CompletionFlags.UNSIGNALLED)) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
        }
        boolean softEvent = false;
        boolean broke = false;
        SpinLock l = acquire();
        try {
            if (recvCount == recvs.length) {
                return DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY);
            }
            int idx = recvHead + recvCount;
            if (idx >= recvs.length) {
                idx -= recvs.length;
            }
            Wr.Recv wr = recvs[idx];
            int code = wr.load(ia, pz, numSegments, localIov, attrs.maxRecvIov(), MemPrivileges.LOCAL_WRITE);
            if (code != OK) {
                wr.release();
                return code;
            }
            wr.cookie = userCookie;
            wr.flags = completionFlags;
            wr.srq = null;
            recvCount++;
            EpState s = state;
            if (s == EpState.DISCONNECTED) {
                flushRecvs();
            } else {
                if (softArmed && recvCount > softWatermark) {
                    softArmed = false;
                    softEvent = true;
                }
                // a receive posted is a buffer held (dat_ep_recv_query(3DAT)): checked here, before a
                // waiting send takes it, so that one JVM breaks as TCP, whose send comes back later
                broke = breakIfOverHardWatermark(); // flushes this receive with the others
                if (!broke) {
                    SimEndpoint p = peer;
                    if (p != null && p.reqCount > 0) {
                        p.drainRequests(); // a send waiting for this receive goes on
                    }
                }
            }
        } finally {
            l.unlock();
        }
        if (softEvent) {
            postSoftWatermarkEvent();
        }
        if (broke) {
            postBrokenEvent();
        }
        return OK;
    }

    /** An SRQ got a buffer while a send to this Endpoint waited for one. */
    void resumeInbound() {
        SpinLock l = acquire();
        try {
            inboundStalled = false;
            SimEndpoint p = peer;
            if (p != null && p.reqCount > 0) {
                p.drainRequests();
            }
        } finally {
            l.unlock();
        }
    }

    /**
     * Executes queued requests in order until the queue is empty or its head waits for a receive.
     * Called with the (shared) lock held.
     */
    private void drainRequests() {
        TcpConnection w = wire;
        if (w != null) {
            // over TCP the connection's writer transmits; completions come with the responses
            if (txCount < reqCount) {
                w.kick();
            }
            return;
        }
        while (reqCount > 0) {
            EpState s = state;
            if (s != EpState.CONNECTED && s != EpState.DISCONNECT_PENDING) {
                flushRequests();
                return;
            }
            Wr.Request wr = requests[reqHead];
            int r = execute(wr);
            if (r == STALLED) {
                return;
            }
            if (r == BROKEN) {
                breakConnection();
                return;
            }
        }
        if (state == EpState.DISCONNECT_PENDING) {
            // dat_ep_disconnect(3DAT), graceful: the requests finished, the disconnect proceeds
            disconnectBoth(EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }
    }

    /** The request slot {@code fromHead} places behind the head of the ring; with the lock held. */
    private Wr.Request requestAt(int fromHead) {
        int idx = reqHead + fromHead;
        return requests[idx >= requests.length ? idx - requests.length : idx];
    }

    /** Removes the head request after its completion was generated. */
    private void popRequest(Wr.Request wr) {
        if (wr.op == Wr.Request.RDMA_READ) {
            readsOutstanding--;
        }
        wr.clearRefs();
        if (++reqHead == requests.length) {
            reqHead = 0;
        }
        reqCount--;
    }

    private int execute(Wr.Request wr) {
        switch (wr.op) {
            case Wr.Request.SEND:
                return executeSend(wr);
            case Wr.Request.RDMA_WRITE:
            case Wr.Request.RDMA_READ:
                return executeRdma(wr);
            default:
                wr.rmr.bindDone(wr.binding, true);
                completeRequest(wr, DtoCompletionStatus.SUCCESS, 0);
                return DONE;
        }
    }

    private int executeSend(Wr.Request wr) {
        SimEndpoint p = peer;
        Wr.Recv rv = p.takeRecv();
        if (rv == null) {
            return STALLED;
        }
        if (!wr.memoryValid()) {
            completeRequest(wr, DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0);
            p.completeRecv(rv, DtoCompletionStatus.ERR_FLUSHED, 0, false);
            return BROKEN;
        }
        if (!rv.memoryValid()) {
            p.completeRecv(rv, DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0, false);
            completeRequest(wr, DtoCompletionStatus.ERR_REMOTE_ACCESS, 0);
            return BROKEN;
        }
        if (wr.total > rv.total) {
            // the message is larger than the receive: the receiver sees LOCAL_LENGTH, the sender a
            // remote error, and the connection breaks (as an RC queue pair goes to error)
            p.completeRecv(rv, DtoCompletionStatus.ERR_LOCAL_LENGTH, 0, false);
            completeRequest(wr, DtoCompletionStatus.ERR_REMOTE_RESPONDER, 0);
            return BROKEN;
        }
        try {
            Wr.copy(wr, rv, wr.total);
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            p.completeRecv(rv, DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0, false);
            completeRequest(wr, DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0);
            return BROKEN;
        }
        long len = wr.total;
        boolean solicited = (wr.flags & CompletionFlags.SOLICITED_WAIT) != 0;
        p.completeRecv(rv, DtoCompletionStatus.SUCCESS, len, solicited);
        completeRequest(wr, DtoCompletionStatus.SUCCESS, len);
        return DONE;
    }

    private int executeRdma(Wr.Request wr) {
        SimEndpoint target = peer;
        RemoteWindow w = ia.provider.rmrContexts.get(wr.remoteContext);
        boolean write = wr.op == Wr.Request.RDMA_WRITE;
        long len = write ? wr.total : wr.remoteLength;
        int needed = write ? MemPrivileges.REMOTE_WRITE : MemPrivileges.REMOTE_READ;
        // the target side's checks: context, IA, PZ, state, privilege, bounds
        if (w == null || !w.windowValid() || w.windowIa() != target.ia || w.windowPz() != target.pz
                || (w.windowPrivileges() & needed) == 0 || !inside(w, wr.remoteAddress, len)
                || !w.windowMemory().scope().isAlive()) {
            completeRequest(wr, DtoCompletionStatus.ERR_REMOTE_ACCESS, 0);
            return BROKEN;
        }
        if (!wr.memoryValid()) {
            completeRequest(wr, DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0);
            return BROKEN;
        }
        MemorySegment mem = w.windowMemory();
        long offset = wr.remoteAddress - w.memoryBase();
        try {
            if (write) {
                Wr.gather(wr, mem, offset);
            } else {
                Wr.scatter(mem, offset, len, wr);
            }
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            completeRequest(wr, DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0);
            return BROKEN;
        }
        completeRequest(wr, DtoCompletionStatus.SUCCESS, len);
        return DONE;
    }

    private static boolean inside(RemoteWindow w, long address, long len) {
        long off = address - w.windowStart();
        return len >= 0 && off >= 0 && off <= w.windowLength() && len <= w.windowLength() - off;
    }

    /** Generates the completion of the head request and removes it. */
    private void completeRequest(Wr.Request wr, int status, long len) {
        SimEvd evd = requestEvd;
        boolean success = status == DtoCompletionStatus.SUCCESS;
        if (evd != null && (!success || (wr.flags & CompletionFlags.SUPPRESS) == 0)) {
            boolean notify = !success || (wr.flags & CompletionFlags.UNSIGNALLED) == 0;
            if (wr.op == Wr.Request.BIND) {
                evd.postRmrBind(wr.rmr, wr.cookie, status, notify);
            } else {
                evd.postDto(this, wr.cookie, status, len, notify, null);
            }
        }
        popRequest(wr);
    }

    /**
     * The first posted receive (or an SRQ buffer), or {@code null}: none there, or the SRQ buffer
     * taken crossed the hard watermark and the connection broke. With the lock held.
     */
    private Wr.Recv takeRecv() {
        if (srq == null) {
            if (recvCount == 0) {
                return null;
            }
            Wr.Recv rv = recvs[recvHead];
            if (++recvHead == recvs.length) {
                recvHead = 0;
            }
            recvCount--;
            return rv;
        }
        if (!srq.take(srqScratch)) {
            inboundStalled = true;
            if (!srq.take(srqScratch)) { // a buffer posted while we marked the stall
                return null;
            }
            inboundStalled = false;
        }
        srqBuffersHeld++;
        if (softArmed && srqBuffersHeld > softWatermark) {
            softArmed = false;
            postSoftWatermarkEvent();
        }
        if (overHardWatermark()) {
            // the buffer is this Endpoint's now: it completes flushed, before the break's flush
            completeRecv(srqScratch, DtoCompletionStatus.ERR_FLUSHED, 0, false);
            breakConnection();
            postBrokenEvent();
            return null;
        }
        return srqScratch;
    }

    /** Generates a receive completion; with the lock held. */
    private void completeRecv(Wr.Recv rv, int status, long len, boolean solicited) {
        SimEvd evd = recvEvd;
        boolean success = status == DtoCompletionStatus.SUCCESS;
        int mode = attrs.recvCompletionFlags();
        boolean notify;
        if (!success) {
            notify = true;
        } else if (mode == CompletionFlags.SOLICITED_WAIT) {
            notify = solicited;
        } else if (mode == CompletionFlags.UNSIGNALLED) {
            notify = (rv.flags & CompletionFlags.UNSIGNALLED) == 0;
        } else {
            notify = true;
        }
        if (rv.heldByWire) {
            rv.heldByWire = false;
            recvsOnWire--;
        }
        SimSrq from = rv.srq;
        if (evd != null) {
            evd.postDto(this, rv.cookie, status, len, notify, from);
        } else if (from != null) {
            from.reaped();
        }
        if (from != null) {
            srqBuffersHeld--;
        }
        // the slot keeps its LMR references until the next post overwrites them: releasing them
        // here would write a line the receiving thread owns
    }

    /** Flushes every queued request; with the lock held. */
    private void flushRequests() {
        while (reqCount > 0) {
            Wr.Request wr = requests[reqHead];
            if (wr.op == Wr.Request.BIND) {
                wr.rmr.bindDone(wr.binding, false);
            }
            completeRequest(wr, wr.failedWith != DtoCompletionStatus.SUCCESS ? wr.failedWith : DtoCompletionStatus.ERR_FLUSHED, 0);
        }
    }

    /** Flushes every posted receive; with the lock held. */
    private void flushRecvs() {
        while (recvCount > 0) {
            Wr.Recv rv = recvs[recvHead];
            if (++recvHead == recvs.length) {
                recvHead = 0;
            }
            recvCount--;
            completeRecv(rv, DtoCompletionStatus.ERR_FLUSHED, 0, false);
        }
    }

    /**
     * Ends the connection on both sides: DISCONNECTED, everything flushed, the event on both
     * connect EVDs (after the flushed completions). With the shared lock held.
     */
    private void disconnectBoth(int eventNumber) {
        SimEndpoint p = peer;
        boolean broken = eventNumber == EventNumber.CONNECTION_EVENT_BROKEN;
        goDisconnected(broken);
        if (p != null) {
            p.goDisconnected(broken);
        }
        post(eventNumber);
        if (p != null) {
            p.post(eventNumber);
        }
    }

    private void goDisconnected() {
        goDisconnected(false);
    }

    /** @param broken whether the connection breaks: a TCP peer then sees it broken too, as in one JVM */
    private void goDisconnected(boolean broken) {
        state = EpState.DISCONNECTED;
        peer = null;
        TcpConnection w = wire;
        if (w != null) {
            wire = null;
            w.awaitWriteCall(); // no byte of the requests flushed below is read after this
            forgetInFlight();
            if (broken) {
                w.breakOff();
            } else {
                w.disconnect();
            }
            // no payload lands any more in a receive or read the reader holds; such a receive
            // completes flushed first, having been posted before those still queued
            Wr.Recv taken = w.abandonLanding();
            if (taken != null) {
                completeRecv(taken, DtoCompletionStatus.ERR_FLUSHED, 0, false);
            }
        }
        flushRequests();
        flushRecvs();
    }

    /** A DTO error on this connection broke it (RDMA access error, length error, bind failure). */
    private void breakConnection() {
        disconnectBoth(EventNumber.CONNECTION_EVENT_BROKEN);
    }

    private void post(int connectionEvent) {
        SimEvd evd = connectEvd;
        if (evd != null) {
            evd.postConnection(connectionEvent, this, null);
        }
    }

    /** The provider is going away: flush everything, no connection events (the IA event says it). */
    void flushForCatastrophe() {
        SpinLock l = acquire();
        try {
            SimEndpoint p = peer;
            goDisconnected();
            if (p != null) {
                p.goDisconnected();
            }
        } finally {
            l.unlock();
        }
        if (attempt != null) {
            attempt.abandon();
            attempt = null;
        }
    }

    // =============================================================================================
    // connection management (all under the provider's CM lock)
    // =============================================================================================

    @Override
    public void connect(InetSocketAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
            int qos, int connectFlags) {
        checkOpen();
        if (remoteIaAddress == null) {
            throw invalidParameter(DatReturn.INVALID_ARG2, "remoteIaAddress", "null address");
        }
        checkConnectArguments(timeoutMicros, privateData, qos);
        if (!ConnectFlags.isValid(connectFlags)) {
            throw invalidParameter(DatReturn.INVALID_ARG8, "connectFlags", "undefined bits 0x" + Integer.toHexString(connectFlags));
        }
        if ((connectFlags & ConnectFlags.MULTIPATH) != 0) {
            throw DatException.of(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "connectFlags",
                    "multipathing is not supported (supports_multipath is false)");
        }
        SimProvider.checkAddress(remoteIaAddress);
        startConnect(remoteIaAddress, remoteConnQual, timeoutMicros, privateData, qos);
    }

    private void checkConnectArguments(long timeoutMicros, byte[] privateData, int qos) {
        if (!DatConstants.isValidTimeout(timeoutMicros) || timeoutMicros == 0) {
            throw invalidParameter(DatReturn.INVALID_ARG4, "timeoutMicros", "the timeout must be positive, was " + timeoutMicros);
        }
        if (privateData != null && privateData.length > ia.limits().maxPrivateData()) {
            throw invalidParameter(DatReturn.INVALID_ARG5, "privateData",
                    privateData.length + " bytes exceed max_private_data_size " + ia.limits().maxPrivateData());
        }
        if (!Qos.isValid(qos)) {
            throw invalidParameter(DatReturn.INVALID_ARG7, "qos", "undefined bits 0x" + Integer.toHexString(qos));
        }
        if ((qos & ~ia.limits().qosSupported()) != 0) {
            throw DatException.of(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "qos",
                    "QoS 0x" + Integer.toHexString(qos) + " is not supported by this provider");
        }
    }

    private void startConnect(InetSocketAddress address, long qual, long timeoutMicros, byte[] privateData, int qos) {
        SimProvider provider = ia.provider;
        provider.cmLock.lock();
        try {
            checkOpen();
            if (state != EpState.UNCONNECTED) {
                throw invalidState(stateSubtype(state), "the Endpoint is " + state + ", not UNCONNECTED (dat_ep_connect(3DAT))");
            }
            localPortQual = ia.adapter.nextPortQual.getAndIncrement();
            remoteAddress = address;
            remotePortQual = qual;
            ConnectAttempt a = new ConnectAttempt(this, ia.adapter.address, localPortQual, address, qual,
                    privateData == null ? new byte[0] : privateData.clone(), qos, attrs);
            attempt = a;
            state = EpState.ACTIVE_CONNECTION_PENDING;
            if (timeoutMicros != DatConstants.TIMEOUT_INFINITE) {
                a.timer = provider.conductor.schedule(timeoutMicros, () -> timeout(a));
            }
            TcpTransport tcp = ia.adapter.tcp;
            if (tcp != null) {
                // a TCP IA reaches every IA, even one of this provider, over its sockets; the
                // connection's own thread connects, started from here rather than from the
                // conductor, which would cost the setup one more wake-up of a thread
                try {
                    tcp.connect(a);
                } catch (RuntimeException | OutOfMemoryError e) {
                    // no thread for the connection ("unable to create native thread"): the
                    // Endpoint stays UNCONNECTED, as if dat_ep_connect had not been called
                    a.abandon();
                    attempt = null;
                    remoteAddress = null;
                    remotePortQual = 0;
                    localPortQual = 0;
                    state = EpState.UNCONNECTED;
                    throw DatException.of(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.NO_SUBTYPE, "ep",
                            "no thread for the connection: " + e);
                }
            } else if (!provider.conductor.submit(() -> deliver(a))) {
                a.fail(EventNumber.CONNECTION_EVENT_UNREACHABLE);
            }
        } finally {
            provider.cmLock.unlock();
        }
    }

    /** On the conductor: the request travels to the remote IA of the in-JVM fabric. */
    private void deliver(ConnectAttempt a) {
        SimProvider provider = ia.provider;
        provider.cmLock.lock();
        try {
            if (!a.live()) {
                return;
            }
            Transport.RemoteAdapter remote = provider.transport().resolve(a.remoteAddress);
            if (remote == null) {
                a.fail(EventNumber.CONNECTION_EVENT_UNREACHABLE);
            } else {
                remote.deliver(a);
            }
        } finally {
            provider.cmLock.unlock();
        }
    }

    /**
     * On the conductor: the passive side did not answer in time; over TCP, a remote host that did
     * not even complete the TCP handshake is UNREACHABLE (dat_ep_connect(3DAT)).
     */
    private void timeout(ConnectAttempt a) {
        SimProvider provider = ia.provider;
        provider.cmLock.lock();
        try {
            if (a.live()) {
                a.fail(a.wire != null && !a.reached ? EventNumber.CONNECTION_EVENT_UNREACHABLE
                        : EventNumber.CONNECTION_EVENT_TIMED_OUT);
            }
        } finally {
            provider.cmLock.unlock();
        }
    }

    /** The attempt failed: DISCONNECTED, receives flushed, the event. Under the CM lock. */
    void activeConnectFailed(ConnectAttempt a, int eventNumber) {
        attempt = null;
        SpinLock l = acquire();
        try {
            state = EpState.DISCONNECTED;
            flushRecvs();
            post(eventNumber);
        } finally {
            l.unlock();
        }
    }

    @Override
    public void dupConnect(Endpoint dupEp, long timeoutMicros, byte[] privateData, int qos) {
        checkOpen();
        SimEndpoint dup = ia.endpoint(dupEp, "dupEp");
        checkConnectArguments(timeoutMicros, privateData, qos);
        InetSocketAddress address;
        long qual;
        ia.provider.cmLock.lock();
        try {
            if (dup.state != EpState.CONNECTED) {
                throw invalidState(stateSubtype(dup.state), "dupEp is " + dup.state + ", not CONNECTED (dat_ep_dup_connect(3DAT))");
            }
            address = dup.remoteAddress;
            qual = dup.connectedQual();
        } finally {
            ia.provider.cmLock.unlock();
        }
        startConnect(address, qual, timeoutMicros, privateData, qos);
    }

    /** The remote Service Point's qualifier this connection was made to. */
    private long connectedQual() {
        return remotePortQual;
    }

    /**
     * Establishes the connection of an attempt with a passive Endpoint: dat_cr_accept(3DAT). Both
     * Endpoints share one lock from now on. Under the CM lock.
     */
    static void establish(ConnectAttempt a, SimEndpoint passive, byte[] acceptData) {
        if (a.active == null) {
            passive.establishOverTcp(a, acceptData);
            return;
        }
        SimEndpoint active = a.active;
        SpinLock pair = new SpinLock();
        // lock both current locks in a fixed order (only connection management locks two)
        SimEndpoint first = System.identityHashCode(active) <= System.identityHashCode(passive) ? active : passive;
        SimEndpoint second = first == active ? passive : active;
        SpinLock l1 = first.acquire();
        SpinLock l2 = second.lock == l1 ? null : second.acquire();
        try {
            active.peer = passive;
            passive.peer = active;
            passive.remoteAddress = a.activeAddress;
            passive.remotePortQual = a.activePortQual;
            passive.localPortQual = a.remoteQual;
            active.state = EpState.CONNECTED;
            passive.state = EpState.CONNECTED;
            active.attempt = null;
            passive.pendingCr = null;
            a.state = ConnectAttempt.State.ESTABLISHED;
            if (a.timer != null) {
                a.timer.cancel();
            }
            active.lock = pair;
            passive.lock = pair;
        } finally {
            if (l2 != null) {
                l2.unlock();
            }
            l1.unlock();
        }
        // the passive side's event carries no private data (dat_evd_dequeue(3DAT))
        passive.post(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        SimEvd evd = active.connectEvd;
        if (evd != null) {
            evd.postConnection(EventNumber.CONNECTION_EVENT_ESTABLISHED, active, acceptData);
        }
        active.checkHardWatermarkEstablished();
        passive.checkHardWatermarkEstablished();
    }

    /** dat_cr_accept of a request that came over TCP: connected; the ACCEPT goes back. Under the CM lock. */
    private void establishOverTcp(ConnectAttempt a, byte[] acceptData) {
        SpinLock l = acquire();
        try {
            wire = a.wire;
            remoteAddress = a.activeAddress;
            remotePortQual = a.activePortQual;
            localPortQual = a.remoteQual;
            txSeq = 0;
            rxSeq = 0;
            forgetInFlight();
            a.wire.accepted(this, acceptData);
            // ESTABLISHED waits for the active side's READY_TO_USE: it may have timed out meanwhile
            state = EpState.COMPLETION_PENDING;
            pendingCr = null;
            a.state = ConnectAttempt.State.ESTABLISHED;
        } finally {
            l.unlock();
        }
    }

    /** The passive side: READY_TO_USE arrived, the accept completed. Under the CM lock. */
    void readyToUse(TcpConnection w) {
        SpinLock l = acquire();
        try {
            if (wire != w || state != EpState.COMPLETION_PENDING) {
                return; // disconnected or destroyed meanwhile
            }
            state = EpState.CONNECTED;
        } finally {
            l.unlock();
        }
        post(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        checkHardWatermarkEstablished();
    }

    /** The passive side: the connection ended before READY_TO_USE; the accept failed. Under the CM lock. */
    void acceptLost(TcpConnection w) {
        if (wire != w || state != EpState.COMPLETION_PENDING) {
            return;
        }
        wire = null;
        w.breakOff(); // the peer broke the exchange or vanished: no DISCONNECT, the peer sees it broken
        acceptFailed();
    }

    /** The active side: the remote IA accepted over TCP. Under the CM lock. */
    void establishedOverTcp(ConnectAttempt a, TcpConnection w, byte[] acceptData) {
        SpinLock l = acquire();
        try {
            wire = w;
            txSeq = 0;
            rxSeq = 0;
            forgetInFlight();
            state = EpState.CONNECTED;
            attempt = null;
            a.state = ConnectAttempt.State.ESTABLISHED;
            if (a.timer != null) {
                a.timer.cancel();
            }
        } finally {
            l.unlock();
        }
        SimEvd evd = connectEvd;
        if (evd != null) {
            evd.postConnection(EventNumber.CONNECTION_EVENT_ESTABLISHED, this, acceptData);
        }
        // READY_TO_USE is queued already: a break here reaches the passive side after it
        checkHardWatermarkEstablished();
    }

    /**
     * The TCP connection ended from the far side (DISCONNECT, reset, a malformed frame): this
     * Endpoint, if still on it, is disconnected with the event and its DTOs flushed.
     */
    void wireLost(TcpConnection w, int eventNumber) {
        SimProvider provider = ia.provider;
        provider.cmLock.lock();
        try {
            if (wire == w && state == EpState.COMPLETION_PENDING) {
                acceptLost(w); // lost before READY_TO_USE: the accept did not complete
                return;
            }
            SpinLock l = acquire();
            try {
                if (wire != w || (state != EpState.CONNECTED && state != EpState.DISCONNECT_PENDING)) {
                    return;
                }
                goDisconnected();
                post(eventNumber);
            } finally {
                l.unlock();
            }
        } finally {
            provider.cmLock.unlock();
        }
    }

    // =============================================================================================
    // the TCP data path: called by the connection's writer and reader threads
    // =============================================================================================

    /**
     * The writer: the next request to transmit, copied into {@code out} (so the slot may be
     * flushed meanwhile without the writer reading a cleared slot). An RMR bind at the head of
     * the queue completes here (it is local); one behind requests in flight waits for them.
     *
     * @return its sequence number, or -1 when there is nothing to transmit
     */
    long nextTransmit(TcpConnection w, Wr.Request out) {
        return nextTransmit(w, out, Integer.MAX_VALUE, Long.MAX_VALUE);
    }

    /** {@link #nextTransmit(TcpConnection, Wr.Request, int, long)}'s answer when the next request is larger than asked for. */
    static final long TOO_LARGE = -2;

    /**
     * {@link #nextTransmit(TcpConnection, Wr.Request)} for a frame that must fit (an inline write,
     * the rest of the writer's batch): only an RDMA read (its request carries no data) or a request
     * of at most {@code maxSegments} segments and {@code maxBytes} bytes.
     *
     * @return its sequence number, -1 when there is nothing to transmit, {@link #TOO_LARGE} when
     *     the next request does not fit (it stays queued)
     */
    long nextTransmit(TcpConnection w, Wr.Request out, int maxSegments, long maxBytes) {
        SpinLock l = acquire();
        try {
            for (;;) {
                if (wire != w || (state != EpState.CONNECTED && state != EpState.DISCONNECT_PENDING) || txCount >= reqCount) {
                    return -1;
                }
                Wr.Request wr = requestAt(txCount);
                if (wr.op == Wr.Request.BIND) {
                    if (txCount != 0) {
                        return -1; // completes in order, after the requests before it
                    }
                    wr.rmr.bindDone(wr.binding, true);
                    completeRequest(wr, DtoCompletionStatus.SUCCESS, 0);
                    if (finishGraceful()) {
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
                if (wr.op != Wr.Request.RDMA_READ && (wr.segments > maxSegments || wr.total > maxBytes)) {
                    return TOO_LARGE;
                }
                out.copyFrom(wr);
                out.op = wr.op;
                out.remoteContext = wr.remoteContext;
                out.remoteAddress = wr.remoteAddress;
                out.remoteLength = wr.remoteLength;
                txCount++;
                txBytes += payloadBytes(wr);
                // with this much in flight the target's held ACKs come by themselves (it sends them
                // at ACKS_HELD_MAX or ACK_HELD_BYTES); a read's response goes out at once, flushing those before it
                out.ackDeferrable = wr.op != Wr.Request.RDMA_READ && ackHeldInFlight();
                ackDeferred = out.ackDeferrable;
                return txSeq++;
            }
        } finally {
            l.unlock();
        }
    }

    /** Over TCP, with the lock held: whether an RDMA read is on the wire, its response not yet landed. */
    private boolean readInFlight() {
        for (int i = 0; i < txCount; i++) {
            if (requestAt(i).op == Wr.Request.RDMA_READ) {
                return true;
            }
        }
        return false;
    }

    /** Over TCP, with the lock held: nothing is in flight on the wire any more (a new wire, a rewind, a disconnect). */
    private void forgetInFlight() {
        txCount = 0;
        txBytes = 0;
        ackDeferred = false;
    }

    /** The payload a request carries on the wire: a send's or write's bytes; an RDMA read request carries none. */
    private static long payloadBytes(Wr.Request wr) {
        return wr.op == Wr.Request.RDMA_READ ? 0 : wr.total;
    }

    /**
     * Over TCP, with the lock held: whether so much is in flight that the target sends the ACKs it
     * holds by itself (see {@link TcpFrame#ACK_DEFERRABLE}).
     */
    private boolean ackHeldInFlight() {
        return txCount >= TcpFrame.ACKS_HELD_MAX || txBytes >= TcpFrame.ACK_HELD_BYTES;
    }

    /**
     * The writer or a posting thread: the local memory of the request {@code seq} went away while
     * it was transmitted; it completes with {@code DAT_DTO_ERR_LOCAL_PROTECTION} (as in one JVM)
     * when the connection, which cannot finish its frame, breaks.
     */
    void localMemoryGone(TcpConnection w, long seq) {
        SpinLock l = acquire();
        try {
            long ahead = seq - rxSeq;
            if (wire != w || ahead < 0 || ahead >= reqCount) {
                return;
            }
            requestAt((int) ahead).failedWith = DtoCompletionStatus.ERR_LOCAL_PROTECTION;
        } finally {
            l.unlock();
        }
    }

    /** Whether a request waits to be transmitted on {@code w}. */
    boolean untransmitted(TcpConnection w) {
        SpinLock l = acquire();
        try {
            return wire == w && txCount < reqCount;
        } finally {
            l.unlock();
        }
    }

    /** A graceful disconnect whose requests all completed proceeds; with the lock held. */
    private boolean finishGraceful() {
        if (reqCount == 0 && state == EpState.DISCONNECT_PENDING) {
            disconnectBoth(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            return true;
        }
        return false;
    }

    /**
     * The reader, initiator side: the ACK of a send or RDMA write, or the end of an RDMA read
     * response, completes the head request.
     *
     * @param status a {@link TcpFrame} status
     * @param read whether the response answers an RDMA read (else an ACK)
     * @return {@code null}, or why the response is a protocol error (the caller breaks the connection)
     */
    String complete(TcpConnection w, long seq, int status, boolean read) {
        SpinLock l = acquire();
        try {
            if (wire != w) {
                return null; // flushed meanwhile: the connection is going away
            }
            if (status == TcpFrame.STATUS_RNR) {
                if (read || txCount == 0 || seq != rxSeq || requests[reqHead].op != Wr.Request.SEND) {
                    return "a receiver-not-ready answer for seq " + seq + ", which is not the send at the head";
                }
                // the target dropped this send and what followed: transmit them again, later
                forgetInFlight();
                txSeq = rxSeq;
                w.notReady(seq);
                return null;
            }
            w.acknowledged();
            // an ACK is cumulative: it completes every request in flight up to seq (sends, writes)
            long last = read || status != TcpFrame.STATUS_OK ? rxSeq : seq;
            if (txCount == 0 || seq < rxSeq || seq - rxSeq >= txCount || (read || status != TcpFrame.STATUS_OK) && seq != rxSeq) {
                return "a response to no request in flight (seq " + seq + ")";
            }
            for (int i = 0; i <= seq - rxSeq; i++) {
                if ((requestAt(i).op == Wr.Request.RDMA_READ) != read) {
                    return "a response of the wrong kind for seq " + (rxSeq + i);
                }
            }
            while (rxSeq < last) {
                Wr.Request done = requests[reqHead];
                txCount--;
                txBytes -= payloadBytes(done);
                rxSeq++;
                completeRequest(done, DtoCompletionStatus.SUCCESS, done.total);
            }
            Wr.Request wr = requests[reqHead];
            txCount--;
            txBytes -= payloadBytes(wr);
            rxSeq++;
            switch (status) {
                case TcpFrame.STATUS_OK -> completeRequest(wr, DtoCompletionStatus.SUCCESS, read ? wr.remoteLength : wr.total);
                case TcpFrame.STATUS_REMOTE_ACCESS -> {
                    completeRequest(wr, DtoCompletionStatus.ERR_REMOTE_ACCESS, 0);
                    breakConnection();
                    return null;
                }
                default -> {
                    // the receive was too small: the sender sees a remote error (as in one JVM)
                    completeRequest(wr, DtoCompletionStatus.ERR_REMOTE_RESPONDER, 0);
                    breakConnection();
                    return null;
                }
            }
            if (ackDeferred && txCount > 0 && !ackHeldInFlight()) {
                // the deferrable request is still in flight (the last transmitted: in flight while
                // any is), behind fewer than make the target send its held ACKs: ask for them (the
                // writer sends the ACK_REQUEST after that request, which it already wrote)
                ackDeferred = false;
                w.requestAcks();
            }
            if (!finishGraceful() && txCount < reqCount) {
                w.kick(); // a bind waiting behind this request can go now
            }
            return null;
        } finally {
            l.unlock();
        }
    }

    /**
     * The reader, initiator side: the local memory of the read {@code seq} at the head went away
     * while its response landed (its LMR freed, its arena closed). As in one JVM the read completes
     * with {@code DAT_DTO_ERR_LOCAL_PROTECTION} and the connection breaks.
     */
    void readLostItsMemory(TcpConnection w, long seq) {
        SpinLock l = acquire();
        try {
            if (wire != w || txCount == 0 || seq != rxSeq || requests[reqHead].op != Wr.Request.RDMA_READ) {
                return; // flushed meanwhile
            }
            Wr.Request wr = requests[reqHead];
            txCount--;
            txBytes -= payloadBytes(wr);
            rxSeq++;
            completeRequest(wr, DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0);
            breakConnection();
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
    String readTarget(TcpConnection w, long seq, int status, long len, Wr.Request out) {
        SpinLock l = acquire();
        try {
            if (wire != w) {
                out.segments = 0;
                out.total = 0;
                return null;
            }
            if (txCount == 0 || seq != rxSeq || requests[reqHead].op != Wr.Request.RDMA_READ) {
                return "a read response to no read in flight (seq " + seq + ")";
            }
            Wr.Request wr = requests[reqHead];
            if (status == TcpFrame.STATUS_OK && len != wr.remoteLength) {
                return "a read response of " + len + " bytes for a read of " + wr.remoteLength;
            }
            out.copyFrom(wr);
            w.landingBegins(false);
            return null;
        } finally {
            l.unlock();
        }
    }

    /**
     * The reader, target side of a send: takes the first posted receive (or an SRQ buffer), copied
     * into {@code out} so the ring slot can be reused while the payload is read.
     *
     * @return whether a receive was there
     */
    boolean takeRecvForWire(TcpConnection w, Wr.Recv out) {
        SpinLock l = acquire();
        try {
            if (wire != w) {
                return false;
            }
            Wr.Recv rv = takeRecv();
            if (rv == null) {
                return false;
            }
            try {
                out.copyFrom(rv);
            } catch (RuntimeException defect) {
                // out of the queue but in no copy: complete it here, or no flush would find it
                completeRecv(rv, DtoCompletionStatus.ERR_FLUSHED, 0, false);
                throw defect;
            }
            out.srq = rv.srq;
            if (rv.srq == null) {
                // out of the ring while its payload lands, yet posted and not completed:
                // dat_ep_recv_query and dat_ep_get_status still count it
                out.heldByWire = true;
                recvsOnWire++;
            }
            w.landingBegins(true);
            return true;
        } finally {
            l.unlock();
        }
    }

    /** The reader, target side: a send landed (or failed) in the receive {@link #takeRecvForWire} gave. */
    void recvDone(TcpConnection w, Wr.Recv rv, int status, long len, boolean solicited) {
        SpinLock l = acquire();
        try {
            if (wire != w) {
                return; // the flush that ended this connection completed it (goDisconnected)
            }
            w.landingEnds(); // a flush from now on finds no receive to complete again
            w.responseOwed(); // its send's answer goes before a disconnect that follows
            completeRecv(rv, status, len, solicited);
        } finally {
            l.unlock();
        }
    }

    /** Whether this Endpoint is connected through {@code w} (over TCP; a volatile read, no lock). */
    boolean connectedThrough(TcpConnection w) {
        return wire == w;
    }

    /**
     * The reader, target side of an RDMA operation: the checks of the in-JVM path (context, IA,
     * PZ, privilege, bounds, liveness) against this Endpoint.
     *
     * @return the window, or {@code null} when the access is refused
     */
    RemoteWindow remoteWindow(TcpConnection w, int context, long address, long len, boolean write) {
        RemoteWindow win = ia.provider.rmrContexts.get(context);
        int needed = write ? MemPrivileges.REMOTE_WRITE : MemPrivileges.REMOTE_READ;
        if (win == null || !win.windowValid() || win.windowIa() != ia || win.windowPz() != pz
                || (win.windowPrivileges() & needed) == 0 || !inside(win, address, len)
                || !win.windowMemory().scope().isAlive()) {
            return null;
        }
        // still connected through this connection: not one disconnected since (its peer may ignore
        // the DISCONNECT), whose Endpoint may be connected anew, to another peer
        return wire == w ? win : null;
    }

    /** The reader: the target side found a broken frame or access; this connection breaks. */
    void wireBroken(TcpConnection w) {
        wireLost(w, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /** A passive Endpoint whose accept cannot complete (the active side is gone). Under the CM lock. */
    void acceptFailed() {
        pendingCr = null;
        SpinLock l = acquire();
        try {
            state = EpState.DISCONNECTED;
            flushRecvs();
            post(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
        } finally {
            l.unlock();
        }
    }

    /** Moves to a state; under the CM lock (RESERVED, PASSIVE/TENTATIVE pending, back to UNCONNECTED). */
    void setState(EpState newState) {
        state = newState;
    }

    @Override
    public void disconnect(CloseFlag flag) {
        checkOpen();
        if (flag == null) {
            throw invalidParameter(DatReturn.INVALID_ARG2, "flag", "null disconnect flag");
        }
        ia.provider.cmLock.lock();
        try {
            checkOpen();
            switch (state) {
                case DISCONNECTED -> {
                    // disconnecting a disconnected Endpoint is a no-op
                }
                case ACTIVE_CONNECTION_PENDING, COMPLETION_PENDING -> abortConnecting();
                case CONNECTED -> {
                    SpinLock l = acquire();
                    try {
                        if (state == EpState.CONNECTED) {
                            if (flag == CloseFlag.GRACEFUL && reqCount > 0) {
                                state = EpState.DISCONNECT_PENDING;
                            } else {
                                disconnectBoth(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                            }
                        }
                    } finally {
                        l.unlock();
                    }
                }
                case DISCONNECT_PENDING -> {
                    if (flag == CloseFlag.ABRUPT) {
                        SpinLock l = acquire();
                        try {
                            if (state == EpState.DISCONNECT_PENDING) {
                                disconnectBoth(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                            }
                        } finally {
                            l.unlock();
                        }
                    }
                }
                default -> throw invalidState(stateSubtype(state),
                        "cannot disconnect an Endpoint that is " + state + " (dat_ep_disconnect(3DAT))");
            }
        } finally {
            ia.provider.cmLock.unlock();
        }
    }

    /** Aborts an active connection establishment: DISCONNECTED, receives flushed, the event. */
    private void abortConnecting() {
        ConnectAttempt a = attempt;
        attempt = null;
        if (a != null) {
            a.abandon();
        }
        SpinLock l = acquire();
        try {
            goDisconnected(); // a passive side waiting for READY_TO_USE also closes its connection
            post(EventNumber.CONNECTION_EVENT_DISCONNECTED);
        } finally {
            l.unlock();
        }
    }

    @Override
    public void reset() {
        checkOpen();
        ia.provider.cmLock.lock();
        try {
            checkOpen();
            if (state == EpState.UNCONNECTED) {
                return; // a no-op; preposted receives stay (dat_ep_reset(3DAT))
            }
            if (state != EpState.DISCONNECTED) {
                throw invalidState(stateSubtype(state), "reset needs a DISCONNECTED Endpoint, this one is " + state);
            }
            SpinLock l = acquire();
            try {
                flushRequests();
                flushRecvs();
                peer = null;
                remoteAddress = null;
                remotePortQual = 0;
                localPortQual = 0;
                state = EpState.UNCONNECTED;
                lock = new SpinLock(); // leave the old connection's lock
            } finally {
                l.unlock();
            }
        } finally {
            ia.provider.cmLock.unlock();
        }
    }

    // =============================================================================================
    // query, modify, status
    // =============================================================================================

    @Override
    public EpParams query(long epParamMask) {
        checkOpen();
        if (!EpParamMask.isValid(epParamMask)) {
            throw invalidParameter(DatReturn.INVALID_ARG2, "epParamMask", "undefined bits 0x" + Long.toHexString(epParamMask));
        }
        ia.provider.cmLock.lock();
        try {
            return new EpParams(ia, state, ia.adapter.address, localPortQual, remoteAddress, remotePortQual, pz, recvEvd,
                    requestEvd, connectEvd, srq, attrs);
        } finally {
            ia.provider.cmLock.unlock();
        }
    }

    private static final long UNMODIFIABLE = EpParamMask.IA_HANDLE | EpParamMask.EP_STATE | EpParamMask.LOCAL_IA_ADDRESS_PTR
            | EpParamMask.LOCAL_PORT_QUAL | EpParamMask.REMOTE_IA_ADDRESS_PTR | EpParamMask.REMOTE_PORT_QUAL
            | EpParamMask.SRQ_HANDLE;
    private static final long QUIESCENT_ONLY = EpParamMask.EP_ATTR_NUM_TRANSPORT_ATTR | EpParamMask.EP_ATTR_TRANSPORT_SPECIFIC_ATTR
            | EpParamMask.EP_ATTR_NUM_PROVIDER_ATTR | EpParamMask.EP_ATTR_PROVIDER_SPECIFIC_ATTR;

    @Override
    public void modify(long mask, EpParams params) {
        checkOpen();
        if (!EpParamMask.isValid(mask) || (mask & UNMODIFIABLE) != 0) {
            throw invalidParameter(DatReturn.INVALID_ARG2, "epParamMask",
                    "undefined bits or parameters that cannot be modified (dat_ep_modify(3DAT)): 0x" + Long.toHexString(mask));
        }
        if (params == null) {
            throw invalidParameter(DatReturn.INVALID_ARG3, "params", "null parameters");
        }
        boolean softEvent = false;
        ia.provider.cmLock.lock();
        try {
            checkOpen();
            EpState s = state;
            boolean early = s == EpState.UNCONNECTED || s == EpState.RESERVED || s == EpState.PASSIVE_CONNECTION_PENDING
                    || s == EpState.TENTATIVE_CONNECTION_PENDING;
            if ((mask & EpParamMask.PZ_HANDLE) != 0 && s != EpState.UNCONNECTED && s != EpState.TENTATIVE_CONNECTION_PENDING) {
                throw invalidState(stateSubtype(s), "the PZ can change only when UNCONNECTED or TENTATIVE_CONNECTION_PENDING");
            }
            if ((mask & QUIESCENT_ONLY) != 0 && s != EpState.UNCONNECTED) {
                throw invalidState(stateSubtype(s), "specific attributes can change only when UNCONNECTED");
            }
            if ((mask & ~EpParamMask.PZ_HANDLE) != 0 && !early) {
                throw invalidState(stateSubtype(s), "these parameters can change only before connecting or accepting");
            }
            SimPz newPz = (mask & EpParamMask.PZ_HANDLE) != 0 ? ia.pz(params.pz(), "params.pz", true) : pz;
            SimEvd newRecv = (mask & EpParamMask.RECV_EVD_HANDLE) != 0
                    ? ia.evd(params.recvEvd(), DatReturn.INVALID_HANDLE_EVD_RECV, EvdFlags.DTO, "params.recvEvd") : recvEvd;
            SimEvd newRequest = (mask & EpParamMask.REQUEST_EVD_HANDLE) != 0
                    ? ia.evd(params.requestEvd(), DatReturn.INVALID_HANDLE_EVD_REQUEST, EvdFlags.DTO, "params.requestEvd") : requestEvd;
            SimEvd newConnect = (mask & EpParamMask.CONNECT_EVD_HANDLE) != 0
                    ? ia.evd(params.connectEvd(), DatReturn.INVALID_HANDLE_EVD_CONN, EvdFlags.CONNECTION, "params.connectEvd") : connectEvd;
            EpAttributes newAttrs = attrs;
            if ((mask & EpParamMask.EP_ATTR_ALL) != 0) {
                if (params.attributes() == null) {
                    throw invalidParameter(DatReturn.INVALID_ARG3, "params.attributes", "null attributes");
                }
                newAttrs = ia.resolveAttributes(attrs.withMasked(params.attributes(), mask), DatReturn.INVALID_ARG3);
            }
            SpinLock l = acquire();
            try {
                if (newAttrs.recvCompletionFlags() != attrs.recvCompletionFlags() && recvCount > 0) {
                    throw invalidState(stateSubtype(s), "Recv Completion Flags cannot change after receives were posted");
                }
                if (recvCount > newAttrs.maxRecvDtos() || reqCount > newAttrs.maxRequestDtos()) {
                    throw invalidParameter(DatReturn.INVALID_ARG3, "params.attributes", "fewer DTOs than are posted");
                }
                if (srq == null && newAttrs.maxRecvIov() < attrs.maxRecvIov()) {
                    // a preposted receive must fit the new ring's slots (checked before anything changes);
                    // requests need no such check: none is queued in the states that allow the change
                    for (int i = 0; i < recvCount; i++) {
                        int segments = recvs[(recvHead + i) % recvs.length].segments;
                        if (segments > newAttrs.maxRecvIov()) {
                            throw invalidParameter(DatReturn.INVALID_ARG3, "params.attributes",
                                    "maxRecvIov " + newAttrs.maxRecvIov() + " is below the " + segments
                                            + " segments of a posted receive");
                        }
                    }
                }
                if (newAttrs.maxRequestDtos() != attrs.maxRequestDtos() || requestIov(newAttrs) != requestIov(attrs)) {
                    requests = newRequests(newAttrs.maxRequestDtos(), requestIov(newAttrs));
                    reqHead = 0;
                }
                if (srq == null && (newAttrs.maxRecvDtos() != attrs.maxRecvDtos() || newAttrs.maxRecvIov() != attrs.maxRecvIov())) {
                    Wr.Recv[] fresh = newRecvs(newAttrs.maxRecvDtos(), newAttrs.maxRecvIov());
                    for (int i = 0; i < recvCount; i++) {
                        Wr.Recv old = recvs[(recvHead + i) % recvs.length];
                        fresh[i].copyFrom(old);
                    }
                    recvs = fresh;
                    recvHead = 0;
                }
                if (newPz != pz) {
                    if (newPz != null) {
                        newPz.users.incrementAndGet();
                    }
                    if (pz != null) {
                        pz.users.decrementAndGet();
                    }
                    pz = newPz;
                }
                unsetEvds();
                attrs = newAttrs;
                setEvds(newRecv, newRequest, newConnect, newAttrs);
                if ((mask & EpParamMask.EP_ATTR_SRQ_SOFT_HW) != 0) {
                    // srq_soft_hw is the soft watermark dat_ep_set_watermark sets: setting it arms it
                    softEvent = armSoftWatermark(newAttrs.srqSoftHighWatermark());
                }
            } finally {
                l.unlock();
            }
        } finally {
            ia.provider.cmLock.unlock();
        }
        if (softEvent) {
            postSoftWatermarkEvent();
        }
    }

    private static int requestIov(EpAttributes a) {
        return Math.max(a.maxRequestIov(), Math.max(a.maxRdmaReadIov(), a.maxRdmaWriteIov()));
    }

    /**
     * The IOV segments of this Endpoint's requests: the size of a TCP connection's copies of them.
     * Stable once a connection is under way (dat_ep_modify(3DAT) changes the IOV limits only before).
     */
    int wireRequestIov() {
        return requestIov(attrs);
    }

    /** The IOV segments of the receives this Endpoint takes (its own, or its SRQ's): as {@link #wireRequestIov}. */
    int wireRecvIov() {
        return srq != null ? srq.maxRecvIov : attrs.maxRecvIov();
    }

    @Override
    public EpStatus getStatus() {
        checkOpen();
        SpinLock l = acquire();
        try {
            boolean recvIdle = recvBuffersHeld() == 0;
            return new EpStatus(state, recvIdle, reqCount == 0);
        } finally {
            l.unlock();
        }
    }

    @Override
    public EpRecvInfo recvQuery() {
        checkOpen();
        SpinLock l = acquire();
        try {
            int n = recvBuffersHeld();
            return new EpRecvInfo(n, n);
        } finally {
            l.unlock();
        }
    }

    /** The receive buffers this Endpoint holds (dat_ep_recv_query(3DAT)): posted, or taken from its SRQ; with the lock held. */
    private int recvBuffersHeld() {
        return srq == null ? recvCount + recvsOnWire : srqBuffersHeld;
    }

    /**
     * Sets and arms the soft high watermark, with the lock held.
     *
     * @return whether the buffers held exceed it already: the caller posts the event (once per setting)
     */
    private boolean armSoftWatermark(int soft) {
        softWatermark = soft;
        softArmed = soft != DatConstants.WATERMARK_INFINITE;
        if (softArmed && recvBuffersHeld() > soft) {
            softArmed = false;
            return true;
        }
        return false;
    }

    /** DAT 1.2 has no event number of its own for it: the reason tells it apart. */
    private void postSoftWatermarkEvent() {
        ia.postAsync(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, this, AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT);
    }

    @Override
    public void setWatermark(int softHighWatermark, int hardHighWatermark) {
        checkOpen();
        if (softHighWatermark < 0 && softHighWatermark != DatConstants.WATERMARK_INFINITE) {
            throw invalidParameter(DatReturn.INVALID_ARG2, "softHighWatermark", "negative watermark " + softHighWatermark);
        }
        if (hardHighWatermark < 0 && hardHighWatermark != DatConstants.WATERMARK_INFINITE) {
            throw invalidParameter(DatReturn.INVALID_ARG3, "hardHighWatermark", "negative watermark " + hardHighWatermark);
        }
        boolean softEvent = false;
        boolean breakNow = false;
        SpinLock l = acquire();
        try {
            hardWatermark = hardHighWatermark;
            softEvent = armSoftWatermark(softHighWatermark);
            breakNow = breakIfOverHardWatermark();
        } finally {
            l.unlock();
        }
        if (softEvent) {
            postSoftWatermarkEvent();
        }
        if (breakNow) {
            postBrokenEvent();
        }
    }

    /**
     * Whether the connection must break for the hard high watermark: connected, holding more
     * receive buffers than it (dat_ep_set_watermark(3DAT)). With the lock held.
     */
    private boolean overHardWatermark() {
        int hard = hardWatermark;
        EpState s = state;
        return hard != DatConstants.WATERMARK_INFINITE && recvBuffersHeld() > hard
                && (s == EpState.CONNECTED || s == EpState.DISCONNECT_PENDING);
    }

    /** Breaks the connection when it is over the hard high watermark ({@link #overHardWatermark}); with the lock held. */
    private boolean breakIfOverHardWatermark() {
        if (!overHardWatermark()) {
            return false;
        }
        breakConnection();
        return true;
    }

    /**
     * Just established: "the Provider is ready to generate a connection broken event as soon as
     * the connection is established" (dat_ep_set_watermark(3DAT)), so receives preposted beyond the
     * hard watermark break it now, after ESTABLISHED. Under the CM lock.
     */
    private void checkHardWatermarkEstablished() {
        if (hardWatermark == DatConstants.WATERMARK_INFINITE) {
            return;
        }
        boolean broke;
        SpinLock l = acquire();
        try {
            broke = breakIfOverHardWatermark();
        } finally {
            l.unlock();
        }
        if (broke) {
            postBrokenEvent();
        }
    }

    /** The asynchronous event that goes with a break for the hard watermark, besides BROKEN on the connect EVD. */
    private void postBrokenEvent() {
        ia.postAsync(EventNumber.ASYNC_ERROR_EP_BROKEN, this, AsyncErrorReason.EP_OTHER_ERROR);
    }

    // =============================================================================================
    // free
    // =============================================================================================

    @Override
    public void close() {
        if (freed) {
            return;
        }
        ia.provider.cmLock.lock();
        try {
            if (freed) {
                return;
            }
            checkOpen();
            EpState s = state;
            if (s == EpState.RESERVED || s == EpState.PASSIVE_CONNECTION_PENDING || s == EpState.TENTATIVE_CONNECTION_PENDING) {
                throw invalidState(stateSubtype(s), "an Endpoint that is " + s + " cannot be freed (dat_ep_free(3DAT))");
            }
            destroy();
        } finally {
            ia.provider.cmLock.unlock();
        }
    }

    /** Frees the Endpoint in any state; a connection is broken off abruptly. Under the CM lock. */
    void destroy() {
        if (freed) {
            return;
        }
        switch (state) {
            case ACTIVE_CONNECTION_PENDING, COMPLETION_PENDING -> {
                ConnectAttempt a = attempt;
                attempt = null;
                if (a != null) {
                    a.abandon();
                }
                TcpConnection w = wire;
                if (w != null) {
                    wire = null;
                    w.disconnect();
                }
            }
            case CONNECTED, DISCONNECT_PENDING -> {
                SpinLock l = acquire();
                try {
                    if (state == EpState.CONNECTED || state == EpState.DISCONNECT_PENDING) {
                        disconnectBoth(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                    }
                } finally {
                    l.unlock();
                }
            }
            case RESERVED -> {
                if (reservedBy != null) {
                    reservedBy.destroy();
                }
            }
            default -> {
                // nothing to undo
            }
        }
        SpinLock l = acquire();
        try {
            flushRequests();
            flushRecvs();
            freed = true;
        } finally {
            l.unlock();
        }
        unsetEvds();
        if (pz != null) {
            pz.users.decrementAndGet();
        }
        if (srq != null) {
            srq.detach(this);
        }
        ia.eps.remove(this);
        ia.adapter.eps.decrementAndGet();
    }

    /** The {@code DAT_INVALID_STATE_EP_*} subtype of a state. */
    static int stateSubtype(EpState s) {
        return switch (s) {
            case UNCONNECTED -> DatReturn.INVALID_STATE_EP_UNCONNECTED;
            case ACTIVE_CONNECTION_PENDING -> DatReturn.INVALID_STATE_EP_ACTCONNPENDING;
            case PASSIVE_CONNECTION_PENDING -> DatReturn.INVALID_STATE_EP_PASSCONNPENDING;
            case TENTATIVE_CONNECTION_PENDING -> DatReturn.INVALID_STATE_EP_TENTCONNPENDING;
            case CONNECTED -> DatReturn.INVALID_STATE_EP_CONNECTED;
            case DISCONNECTED -> DatReturn.INVALID_STATE_EP_DISCONNECTED;
            case RESERVED -> DatReturn.INVALID_STATE_EP_RESERVED;
            case COMPLETION_PENDING -> DatReturn.INVALID_STATE_EP_COMPLPENDING;
            case DISCONNECT_PENDING -> DatReturn.INVALID_STATE_EP_DISCPENDING;
            case UNCONFIGURED_UNCONNECTED -> DatReturn.INVALID_STATE_EP_UNCONFIGURED;
            case UNCONFIGURED_RESERVED -> DatReturn.INVALID_STATE_EP_UNCONFRESERVED;
            case UNCONFIGURED_PASSIVE -> DatReturn.INVALID_STATE_EP_UNCONFPASSIVE;
            case UNCONFIGURED_TENTATIVE -> DatReturn.INVALID_STATE_EP_UNCONFTENTATIVE;
        };
    }
}
