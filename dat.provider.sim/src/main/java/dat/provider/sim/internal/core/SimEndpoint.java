package dat.provider.sim.internal.core;

import dat.api.AsyncErrorReason;
import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpParams;
import dat.api.EpRecvInfo;
import dat.api.EpState;
import dat.api.EpStatus;
import dat.api.EventNumber;
import dat.api.HandleType;
import dat.api.LmrTriplet;
import dat.api.MemPrivileges;
import dat.api.RmrTriplet;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IaCounters;
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import dat.api.ext.Operation;
import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * An Endpoint: its work queues and completions (the data path), with its connection state
 * machine in {@link EpConnection} and the movement of its bytes in its {@link Wire}.
 *
 * <p><b>Data path.</b> Each Endpoint has a ring of pre-allocated request slots (sends, RDMA
 * reads and writes, RMR binds) and one of receive slots. A post checks its IOV, copies it into a
 * slot and, when connected, hands the queue to the wire, which executes or transmits it.
 * Requests complete strictly in order; a send that finds no receive posted waits at the head of
 * the queue (with everything behind it) until the peer posts one: the infinite RNR retry of an
 * RC queue pair (the sender is never failed with {@code RECEIVER_NOT_READY}). Every request is
 * fenced: {@link CompletionFlags#BARRIER_FENCE} holds by construction in one JVM, and a
 * transport that pipelines requests holds a fenced one back until the RDMA reads before it
 * completed.
 *
 * <p><b>Locks.</b> An unconnected Endpoint has its own spin lock; the two Endpoints of a
 * connection in one JVM share one. The lock guards the rings and the wire's use of them, so a
 * transfer takes exactly one lock, never one shared with unrelated Endpoints. EVDs and SRQs have
 * their own inner locks. Connection management additionally holds the provider's CM lock, taken
 * first.
 */
public final class SimEndpoint extends SimHandle implements Endpoint, AtomicEndpoint, ImmediateDataEndpoint {

    private static final int OK = DatReturn.SUCCESS;

    private final SimIa ia;
    final SimSrq srq;
    volatile SimPz pz;
    volatile SimEvd recvEvd;
    volatile SimEvd requestEvd;
    volatile SimEvd connectEvd;
    volatile EpAttributes attrs;
    volatile EpState state = EpState.UNCONNECTED;
    volatile SpinLock lock = new SpinLock();
    /**
     * The wire while connected (from the establishment until the Endpoint leaves it); written
     * under the lock, volatile for the target-side checks that read it without the lock.
     */
    private volatile Wire wire;
    /** The connection state machine: dat_ep_connect(3DAT) and its neighbours. */
    final EpConnection connection;

    // request queue, guarded by the lock
    Wr.Request[] requests;
    int reqHead;
    int reqCount;
    private int readsOutstanding;
    // receive queue, guarded by the lock
    Wr.Recv[] recvs;
    int recvHead;
    int recvCount;
    /** Receives of this Endpoint's ring that its wire took and holds while their payload lands. */
    private int recvsOnWire;
    /** The SRQ buffer being filled, for Endpoints on an SRQ. */
    private final Wr.Recv srqScratch;
    /** Set when a peer's send waits for an SRQ buffer of this Endpoint. */
    volatile boolean inboundStalled;
    /** The watermarks of dat_ep_set_watermark(3DAT). */
    final EpWatermarks watermarks;

    SimEndpoint(SimIa ia, SimPz pz, SimEvd recvEvd, SimEvd requestEvd, SimEvd connectEvd, SimSrq srq, EpAttributes attrs) {
        super(HandleType.EP, DatReturn.INVALID_HANDLE_EP);
        this.ia = ia;
        this.srq = srq;
        this.pz = pz;
        this.attrs = attrs;
        this.requests = newRequests(attrs.maxRequestDtos(), requestIov(attrs));
        this.recvs = srq == null ? newRecvs(attrs.maxRecvDtos(), attrs.maxRecvIov()) : new Wr.Recv[0];
        this.srqScratch = srq == null ? null : new Wr.Recv(srq.maxRecvIov);
        this.connection = new EpConnection(this);
        this.watermarks = new EpWatermarks(this, attrs.srqSoftHighWatermark());
        if (pz != null) {
            pz.users.incrementAndGet();
        }
        if (srq != null) {
            srq.attach(this);
        }
        setEvds(recvEvd, requestEvd, connectEvd, attrs);
    }

    static Wr.Request[] newRequests(int n, int iov) {
        Wr.Request[] r = new Wr.Request[n];
        for (int i = 0; i < n; i++) {
            r[i] = new Wr.Request(iov);
        }
        return r;
    }

    static Wr.Recv[] newRecvs(int n, int iov) {
        Wr.Recv[] r = new Wr.Recv[n];
        for (int i = 0; i < n; i++) {
            r[i] = new Wr.Recv(iov);
        }
        return r;
    }

    /** Attaches the EVDs and counts the streams that feed them. */
    void setEvds(SimEvd recv, SimEvd request, SimEvd connect, EpAttributes a) {
        feed(recv, a.recvCompletionFlags(), +1);
        feed(request, a.requestCompletionFlags(), +1);
        feed(connect, -1, +1);
        recvEvd = recv;
        requestEvd = request;
        connectEvd = connect;
    }

    void unsetEvds() {
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
        if (completionFlags < 0) {
            return; // a connection event stream
        }
        evd.dtoStreams.addAndGet(delta);
        if (completionFlags == CompletionFlags.UNSIGNALLED) {
            evd.unsignalledStreams.addAndGet(delta);
        }
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
    public SimIa ia() {
        return ia;
    }

    /** The Endpoint's state. */
    public EpState state() {
        return state;
    }

    /** Moves to a state; under the CM lock (RESERVED, PASSIVE/TENTATIVE pending, back to UNCONNECTED). */
    void setState(EpState newState) {
        state = newState;
    }

    /** The Endpoint's attributes. */
    public EpAttributes attributes() {
        return attrs;
    }

    /** The EVD the Endpoint's receives complete on, or {@code null}. */
    public SimEvd recvEvd() {
        return recvEvd;
    }

    /** The EVD the Endpoint's requests complete on, or {@code null}. */
    public SimEvd requestEvd() {
        return requestEvd;
    }

    /** The wire while connected, else {@code null}. */
    public Wire wire() {
        return wire;
    }

    /** The connection state machine, for the steps a wire drives. */
    public EpConnection connectionManager() {
        return connection;
    }

    /** Whether the Endpoint is connected through {@code w} (a volatile read, no lock). */
    public boolean connectedThrough(Wire w) {
        return wire == w;
    }

    void setWire(Wire w) {
        wire = w;
    }

    boolean requestUnsignalledAllowed() {
        return attrs.requestCompletionFlags() == CompletionFlags.UNSIGNALLED;
    }

    /**
     * Takes this Endpoint's current lock, following a switch to or from a connection's shared
     * lock. Public for the wires, and for tests that hold it as a flush would.
     */
    public SpinLock acquire() {
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
    // data path: posts
    // =============================================================================================

    @Override
    public int postSend(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        int status = postRequest(Wr.Request.SEND, numSegments, localIov, userCookie, null, completionFlags, 0, 0, 0);
        return ia.counters.post(Operation.SEND, IaCounters.iovBytes(numSegments, localIov), status);
    }

    @Override
    public int postRdmaWrite(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        int status = postRequest(Wr.Request.RDMA_WRITE, numSegments, localIov, userCookie, remoteBuffer, completionFlags, 0, 0, 0);
        return ia.counters.post(Operation.RDMA_WRITE, IaCounters.iovBytes(numSegments, localIov), status);
    }

    @Override
    public int postRdmaRead(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        int status = postRequest(Wr.Request.RDMA_READ, numSegments, localIov, userCookie, remoteBuffer, completionFlags, 0, 0, 0);
        return ia.counters.post(Operation.RDMA_READ, IaCounters.iovBytes(numSegments, localIov), status);
    }

    /** The extensions an Endpoint of this provider offers: the atomics and RDMA write with immediate data. */
    @Override
    public <T> Optional<T> extension(Class<T> type) {
        return type == AtomicEndpoint.class || type == ImmediateDataEndpoint.class ? Optional.of(type.cast(this)) : Optional.empty();
    }

    @Override
    public int postFetchAndAdd(long addValue, LmrTriplet localBuffer, long userCookie, RmrTriplet remoteBuffer, int completionFlags) {
        int status = postAtomic(Wr.Request.FETCH_AND_ADD, addValue, 0, localBuffer, userCookie, remoteBuffer, completionFlags,
                DatReturn.INVALID_ARG3, DatReturn.INVALID_ARG5, DatReturn.INVALID_ARG6);
        return ia.counters.post(Operation.FETCH_AND_ADD, IbExtension.ATOMIC_OPERAND_SIZE, status);
    }

    @Override
    public int postCompareAndSwap(long compareValue, long swapValue, LmrTriplet localBuffer, long userCookie,
            RmrTriplet remoteBuffer, int completionFlags) {
        int status = postAtomic(Wr.Request.CMP_AND_SWAP, compareValue, swapValue, localBuffer, userCookie, remoteBuffer,
                completionFlags, DatReturn.INVALID_ARG4, DatReturn.INVALID_ARG6, DatReturn.INVALID_ARG7);
        return ia.counters.post(Operation.COMPARE_AND_SWAP, IbExtension.ATOMIC_OPERAND_SIZE, status);
    }

    /**
     * An atomic's own checks (dat_ib_extensions.h): a local and a remote buffer of exactly 8 bytes,
     * the remote one 8-byte aligned; then those of an RDMA read, whose completion flags it has.
     */
    private int postAtomic(int op, long operand, long swap, LmrTriplet local, long cookie, RmrTriplet remote, int flags,
            int localArg, int remoteArg, int flagsArg) {
        if (freed || !ia.usable()) {
            return invalidCode();
        }
        if (local == null) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, localArg);
        }
        if (remote == null || remote.targetAddress() % IbExtension.ATOMIC_OPERAND_SIZE != 0) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, remoteArg);
        }
        if (local.segmentLength() != IbExtension.ATOMIC_OPERAND_SIZE || remote.segmentLength() != IbExtension.ATOMIC_OPERAND_SIZE) {
            return DatReturn.error(DatReturn.LENGTH_ERROR, DatReturn.NO_SUBTYPE);
        }
        if ((flags & CompletionFlags.SOLICITED_WAIT) != 0) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, flagsArg);
        }
        atomicIov.set(local);
        try {
            return postRequest(op, 1, atomicIov.get(), cookie, remote, flags, operand, swap, 0);
        } finally {
            atomicIov.clear();
        }
    }

    /** The one-entry IOV of an atomic's local buffer, per posting thread: no allocation per post. */
    private static final OneEntryIov atomicIov = new OneEntryIov();

    /** A one-entry IOV per thread, reused. */
    private static final class OneEntryIov extends ThreadLocal<LmrTriplet[]> {
        @Override
        protected LmrTriplet[] initialValue() {
            return new LmrTriplet[1];
        }

        void set(LmrTriplet t) {
            get()[0] = t;
        }

        void clear() {
            get()[0] = null;
        }
    }

    @Override
    public int postRdmaWriteImmediate(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int immediateData, int completionFlags) {
        int status = postRequest(Wr.Request.WRITE_IMMEDIATE, numSegments, localIov, userCookie, remoteBuffer, completionFlags, 0, 0,
                immediateData);
        return ia.counters.post(Operation.RDMA_WRITE_IMMEDIATE, IaCounters.iovBytes(numSegments, localIov), status);
    }

    private int postRequest(int op, int n, LmrTriplet[] iov, long cookie, RmrTriplet remote, int flags, long operand, long swap,
            int immediate) {
        if (freed || !ia.usable()) {
            return invalidCode();
        }
        int flagsArg = op == Wr.Request.SEND ? DatReturn.INVALID_ARG5
                : op == Wr.Request.WRITE_IMMEDIATE ? DatReturn.INVALID_ARG7
                : op == Wr.Request.CMP_AND_SWAP ? DatReturn.INVALID_ARG7 : DatReturn.INVALID_ARG6;
        if (!CompletionFlags.isValid(flags) || (op != Wr.Request.SEND && (flags & CompletionFlags.SOLICITED_WAIT) != 0)) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, flagsArg);
        }
        EpAttributes a = attrs;
        if ((flags & CompletionFlags.UNSIGNALLED) != 0 && a.requestCompletionFlags() != CompletionFlags.UNSIGNALLED) {
            // dat_ep_post_send(3DAT): only valid on an Endpoint configured for unsignalled completions
            return DatReturn.error(DatReturn.INVALID_PARAMETER, flagsArg);
        }
        if (op != Wr.Request.SEND && remote == null) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
        }
        EpState s = state;
        if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
            return DatReturn.error(DatReturn.INVALID_STATE, stateSubtype(s));
        }
        int maxIov = op == Wr.Request.SEND ? a.maxRequestIov()
                : op == Wr.Request.RDMA_WRITE || op == Wr.Request.WRITE_IMMEDIATE ? a.maxRdmaWriteIov() : a.maxRdmaReadIov();
        int privilege = op == Wr.Request.RDMA_READ || op == Wr.Request.FETCH_AND_ADD || op == Wr.Request.CMP_AND_SWAP
                ? MemPrivileges.LOCAL_WRITE : MemPrivileges.LOCAL_READ;
        Wire transmitAfter = null;
        SpinLock l = acquire();
        try {
            s = state;
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
                return DatReturn.error(DatReturn.INVALID_STATE, stateSubtype(s));
            }
            if (reqCount == requests.length) {
                return DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY);
            }
            boolean readsRemote = op == Wr.Request.RDMA_READ || op == Wr.Request.FETCH_AND_ADD || op == Wr.Request.CMP_AND_SWAP;
            if (readsRemote && readsOutstanding >= a.maxRdmaReadOut()) {
                return DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_CREDITS);
            }
            Wr.Request wr = requestAt(reqCount);
            int code = wr.load(ia, pz, n, iov, maxIov, privilege);
            if (code == OK) {
                code = checkLengths(wr, op, remote, a);
            }
            if (code != OK) {
                wr.release();
                return code;
            }
            wr.op = op;
            wr.cookie = cookie;
            wr.flags = flags;
            wr.operand = operand;
            wr.swap = swap;
            wr.immediate = immediate;
            reqCount++;
            if (readsRemote) {
                readsOutstanding++;
            }
            if (s == EpState.DISCONNECTED) {
                flushRequests();
            } else {
                Wire w = wire;
                if (w != null && w.requestsQueued(this, true)) {
                    transmitAfter = w;
                }
            }
        } finally {
            l.unlock();
        }
        if (transmitAfter != null) {
            transmitAfter.transmitNow(this);
        }
        return OK;
    }

    /** A loaded request's lengths against the attributes and its remote buffer; sets its remote fields. */
    private static int checkLengths(Wr.Request wr, int op, RmrTriplet remote, EpAttributes a) {
        if (op == Wr.Request.SEND) {
            return wr.total > a.maxMessageSize() ? DatReturn.error(DatReturn.LENGTH_ERROR, DatReturn.NO_SUBTYPE) : OK;
        }
        long rlen = remote.segmentLength();
        if (rlen < 0 || rlen > a.maxRdmaSize() || wr.total > a.maxRdmaSize()) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
        }
        // dat_ep_post_rdma_write(3DAT) / _read(3DAT): the receiving buffer is too small
        boolean writes = op == Wr.Request.RDMA_WRITE || op == Wr.Request.WRITE_IMMEDIATE;
        if ((writes && wr.total > rlen) || (!writes && rlen > wr.total)) {
            return DatReturn.error(DatReturn.LENGTH_ERROR, DatReturn.NO_SUBTYPE);
        }
        wr.remoteContext = remote.rmrContext();
        wr.remoteAddress = remote.targetAddress();
        wr.remoteLength = rlen;
        return OK;
    }

    /** Posts an RMR bind work request (dat_rmr_bind(3DAT)), counted; the RMR checked everything else. */
    int postBind(SimRmr rmr, SimRmr.Binding binding, long cookie, int flags) {
        return ia.counters.post(Operation.RMR_BIND, binding == null ? 0 : binding.length, queueBind(rmr, binding, cookie, flags));
    }

    private int queueBind(SimRmr rmr, SimRmr.Binding binding, long cookie, int flags) {
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
                requestsChanged();
            }
            return OK;
        } finally {
            l.unlock();
        }
    }

    @Override
    public int postRecv(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        return ia.counters.post(Operation.RECEIVE, IaCounters.iovBytes(numSegments, localIov),
                queueRecv(numSegments, localIov, userCookie, completionFlags));
    }

    private int queueRecv(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
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
            if (state == EpState.DISCONNECTED) {
                flushRecvs();
            } else {
                softEvent = watermarks.softCrossed();
                // a receive posted is a buffer held (dat_ep_recv_query(3DAT)): checked here, before a
                // waiting send takes it, so that one JVM breaks as a transport does, whose send comes later
                broke = watermarks.breakIfOverHard(); // flushes this receive with the others
                Wire w = wire;
                if (!broke && w != null) {
                    w.receivesAvailable(this); // a send waiting for this receive goes on
                }
            }
        } finally {
            l.unlock();
        }
        if (softEvent) {
            watermarks.postSoftEvent();
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
            Wire w = wire;
            if (w != null) {
                w.receivesAvailable(this);
            }
        } finally {
            l.unlock();
        }
    }

    /** Requests were queued or may go on (a completion, a bind): the wire moves them. With the lock held. */
    void requestsChanged() {
        Wire w = wire;
        if (w != null) {
            w.requestsQueued(this, false);
        }
    }

    // =============================================================================================
    // data path: the queues, as the wires use them (with the lock held)
    // =============================================================================================

    /** Requests queued and not completed; with the lock held. */
    public int requestCount() {
        return reqCount;
    }

    /** The request slot {@code fromHead} places behind the head of the ring; with the lock held. */
    public Wr.Request requestAt(int fromHead) {
        int idx = reqHead + fromHead;
        return requests[idx >= requests.length ? idx - requests.length : idx];
    }

    /**
     * Generates the completion of the head request and removes it; a bind's RMR learns its outcome
     * (successful with {@code status} SUCCESS). With the lock held.
     */
    public void completeHead(int status, long len) {
        Wr.Request wr = requests[reqHead];
        if (wr.op == Wr.Request.BIND) {
            wr.rmr.bindDone(wr.binding, status == DtoCompletionStatus.SUCCESS);
        }
        SimEvd evd = requestEvd;
        boolean success = status == DtoCompletionStatus.SUCCESS;
        if (evd != null && (!success || (wr.flags & CompletionFlags.SUPPRESS) == 0)) {
            boolean notify = !success || (wr.flags & CompletionFlags.UNSIGNALLED) == 0;
            switch (wr.op) {
                case Wr.Request.BIND -> evd.postRmrBind(wr.rmr, wr.cookie, status, notify);
                case Wr.Request.FETCH_AND_ADD -> evd.postDto(IbExtension.IB_DTO_EVENT, this, wr.cookie, status, len, notify, null,
                        IbExtension.FETCH_AND_ADD, 0);
                case Wr.Request.CMP_AND_SWAP -> evd.postDto(IbExtension.IB_DTO_EVENT, this, wr.cookie, status, len, notify, null,
                        IbExtension.CMP_AND_SWAP, 0);
                case Wr.Request.WRITE_IMMEDIATE -> evd.postDto(IbExtension.IB_DTO_EVENT, this, wr.cookie, status, len, notify, null,
                        IbExtension.RDMA_WRITE_IMMED, 0);
                default -> evd.postDto(this, wr.cookie, status, len, notify, null);
            }
        }
        if (wr.readsRemote()) {
            readsOutstanding--;
        }
        wr.clearRefs();
        if (++reqHead == requests.length) {
            reqHead = 0;
        }
        reqCount--;
    }

    /**
     * The first posted receive (or an SRQ buffer), in its ring slot, or {@code null}: none there,
     * or the SRQ buffer taken crossed the hard watermark and the connection broke. The slot stays
     * valid while the lock is held. With the lock held.
     */
    public Wr.Recv takeRecv() {
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
        if (watermarks.srqBufferTaken()) {
            // the buffer is this Endpoint's now: it completes flushed, before the break's flush
            completeRecv(srqScratch, DtoCompletionStatus.ERR_FLUSHED, 0, false);
            breakConnection();
            postBrokenEvent();
            return null;
        }
        return srqScratch;
    }

    /**
     * A wire takes the first posted receive (or an SRQ buffer) to land a message in after the lock
     * is released: copied into {@code out}, so the ring slot may be reused meanwhile. An own
     * receive so taken still counts as posted (dat_ep_recv_query, dat_ep_get_status) until
     * {@link #completeRecv} completes it. With the lock held.
     *
     * @return whether a receive was there
     */
    public boolean takeRecvInto(Wr.Recv out) {
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
            out.heldByWire = true;
            recvsOnWire++;
        }
        return true;
    }

    /** Generates a receive completion; with the lock held. */
    public void completeRecv(Wr.Recv rv, int status, long len, boolean solicited) {
        completeRecv(rv, status, len, solicited, false, 0);
    }

    /**
     * Generates the completion of a receive an RDMA write with immediate data consumed
     * ({@link IbExtension#RDMA_WRITE_IMMED_DATA}: the bytes written and the immediate value); with
     * the lock held.
     */
    public void completeRecvImmediate(Wr.Recv rv, int status, long len, int immediate) {
        completeRecv(rv, status, len, false, true, immediate);
    }

    private void completeRecv(Wr.Recv rv, int status, long len, boolean solicited, boolean withImmediate, int immediate) {
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
        if (evd != null && withImmediate) {
            evd.postDto(IbExtension.IB_DTO_EVENT, this, rv.cookie, status, len, notify, from, IbExtension.RDMA_WRITE_IMMED_DATA,
                    immediate);
        } else if (evd != null) {
            evd.postDto(this, rv.cookie, status, len, notify, from);
        } else if (from != null) {
            from.reaped();
        }
        if (from != null) {
            watermarks.srqBufferReleased();
        }
        // the slot keeps its LMR references until the next post overwrites them: releasing them
        // here would write a line the receiving thread owns
    }

    /** Flushes every queued request; with the lock held. */
    public void flushRequests() {
        while (reqCount > 0) {
            Wr.Request wr = requests[reqHead];
            completeHead(wr.failedWith != DtoCompletionStatus.SUCCESS ? wr.failedWith : DtoCompletionStatus.ERR_FLUSHED, 0);
        }
    }

    /** Flushes every posted receive; with the lock held. */
    void flushRecvs() {
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
     * The target side's checks of an RDMA access against this Endpoint: the context in the
     * provider's table (a forged, stale or replayed one is unknown there), IA, PZ, remote
     * privilege, bounds, and that the memory is alive.
     *
     * @return the window, or {@code null} when the access is refused
     */
    public RemoteWindow remoteWindow(int context, long address, long len, boolean write) {
        return remoteWindow(context, address, len, write ? MemPrivileges.REMOTE_WRITE : MemPrivileges.REMOTE_READ);
    }

    /**
     * {@link #remoteWindow(int, long, long, boolean)} for the remote privilege {@code needed}
     * ({@link IbExtension#MEM_PRIV_REMOTE_ATOMIC} for an atomic).
     */
    public RemoteWindow remoteWindow(int context, long address, long len, int needed) {
        RemoteWindow win = ia.provider.rmrContexts.get(context);
        if (win == null || !win.windowValid() || win.windowIa() != ia || win.windowPz() != pz
                || (win.windowPrivileges() & needed) == 0 || !inside(win, address, len)
                || !win.windowMemory().scope().isAlive()) {
            return null;
        }
        return win;
    }

    private static boolean inside(RemoteWindow w, long address, long len) {
        long off = address - w.windowStart();
        return len >= 0 && off >= 0 && off <= w.windowLength() && len <= w.windowLength() - off;
    }

    // =============================================================================================
    // the end of a connection (with the lock held)
    // =============================================================================================

    /**
     * Ends the connection on both sides: DISCONNECTED, everything flushed, the event on both
     * connect EVDs (after the flushed completions). With the (shared) lock held.
     */
    public void disconnectBoth(int eventNumber) {
        Wire w = wire;
        SimEndpoint p = w == null ? null : w.localPeer(this);
        boolean broken = eventNumber == EventNumber.CONNECTION_EVENT_BROKEN;
        goDisconnected(broken);
        if (p != null) {
            p.goDisconnected(broken);
        }
        postConnectionEvent(eventNumber);
        if (p != null) {
            p.postConnectionEvent(eventNumber);
        }
    }

    /** A DTO error on this connection broke it (RDMA access error, length error, bind failure). With the lock held. */
    public void breakConnection() {
        disconnectBoth(EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /** A graceful disconnect whose requests all completed proceeds; with the lock held. */
    public boolean finishGraceful() {
        if (reqCount == 0 && state == EpState.DISCONNECT_PENDING) {
            disconnectBoth(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            return true;
        }
        return false;
    }

    /**
     * DISCONNECTED: the Endpoint leaves its wire, and its requests and receives are flushed.
     *
     * @param broken whether the connection breaks: a peer across a transport then sees it broken too, as in one JVM
     */
    void goDisconnected(boolean broken) {
        state = EpState.DISCONNECTED;
        Wire w = wire;
        if (w != null) {
            wire = null;
            Wr.Recv taken = w.leave(this, broken);
            if (taken != null) {
                // no payload lands in it any more; it was posted before those still queued
                completeRecv(taken, DtoCompletionStatus.ERR_FLUSHED, 0, false);
            }
        }
        flushRequests();
        flushRecvs();
    }

    void postConnectionEvent(int connectionEvent) {
        SimEvd evd = connectEvd;
        if (evd != null) {
            evd.postConnection(connectionEvent, this, null);
        }
    }

    /** The provider is going away: flush everything, no connection events (the IA event says it). */
    void flushForCatastrophe() {
        SpinLock l = acquire();
        try {
            Wire w = wire;
            SimEndpoint p = w == null ? null : w.localPeer(this);
            goDisconnected(false);
            if (p != null) {
                p.goDisconnected(false);
            }
        } finally {
            l.unlock();
        }
        connection.abandonAttempt();
    }

    /** The asynchronous event that goes with a break for the hard watermark, besides BROKEN on the connect EVD. */
    void postBrokenEvent() {
        ia.postAsync(EventNumber.ASYNC_ERROR_EP_BROKEN, this, AsyncErrorReason.EP_OTHER_ERROR);
    }

    // =============================================================================================
    // connection management: see EpConnection
    // =============================================================================================

    @Override
    public void connect(InetSocketAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
            int qos, int connectFlags) {
        connection.connect(remoteIaAddress, remoteConnQual, timeoutMicros, privateData, qos, connectFlags);
    }

    @Override
    public void dupConnect(Endpoint dupEp, long timeoutMicros, byte[] privateData, int qos) {
        connection.dupConnect(dupEp, timeoutMicros, privateData, qos);
    }

    @Override
    public void disconnect(CloseFlag flag) {
        connection.disconnect(flag);
    }

    @Override
    public void reset() {
        connection.reset();
    }

    @Override
    public EpParams query(long epParamMask) {
        return EpModification.query(this, epParamMask);
    }

    @Override
    public void modify(long mask, EpParams params) {
        EpModification.modify(this, mask, params);
    }

    static int requestIov(EpAttributes a) {
        return Math.max(a.maxRequestIov(), Math.max(a.maxRdmaReadIov(), a.maxRdmaWriteIov()));
    }

    /**
     * The IOV segments of this Endpoint's requests: the size of a wire's copies of them. Stable
     * once a connection is under way (dat_ep_modify(3DAT) changes the IOV limits only before).
     */
    public int requestIovLimit() {
        return requestIov(attrs);
    }

    /** The IOV segments of the receives this Endpoint takes (its own, or its SRQ's): as {@link #requestIovLimit}. */
    public int recvIovLimit() {
        return srq != null ? srq.maxRecvIov : attrs.maxRecvIov();
    }

    @Override
    public EpStatus getStatus() {
        checkOpen();
        SpinLock l = acquire();
        try {
            return new EpStatus(state, recvBuffersHeld() == 0, reqCount == 0);
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
    int recvBuffersHeld() {
        return srq == null ? recvCount + recvsOnWire : watermarks.srqBuffersHeld();
    }

    @Override
    public void setWatermark(int softHighWatermark, int hardHighWatermark) {
        checkOpen();
        watermarks.set(softHighWatermark, hardHighWatermark);
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
        connection.endForFree();
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
