package dat.provider.sim.internal.core;

import dat.api.AsyncErrorReason;
import dat.api.CloseFlag;
import dat.api.CompletionFlags;
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
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

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
 * <p><b>Locks.</b> Every Endpoint has its own spin lock, also while connected: it guards the
 * request ring and the state the data path sees. The consumer side of the receive ring (taking,
 * completing and flushing receives) is guarded by the lock of whoever sends into it: the
 * Endpoint's own, or, while it is on a wire with a local peer ({@link Wire#localPeer}), the
 * peer's. So a send in one JVM takes exactly one lock, the sender's, and the two threads of a
 * ping-pong share none. What changes both Endpoints of such a connection (its end, watermarks,
 * the status) holds both locks ({@link #lockConnection}, in a fixed order); the data path never
 * waits for a second Endpoint lock while it holds one: an end it finds is left to the wire
 * ({@link #endThrough}), which takes both once it let go. Receives are posted under the receive
 * ring's own lock ({@link EpReceives}), so a receiver reposting does not contend with the peer's
 * sends. EVDs and SRQs have their own inner locks. Connection management additionally holds the
 * provider's CM lock, taken first.
 */
public final class SimEndpoint extends SimHandle implements Endpoint, AtomicEndpoint, ImmediateDataEndpoint {

    private static final int OK = DatReturn.SUCCESS;
    /** What is posted here, counted under the lock. */
    final DtoCounters counters = new DtoCounters();

    final SimIa ia;
    final SimSrq srq;
    volatile SimPz pz;
    volatile SimEvd recvEvd;
    volatile SimEvd requestEvd;
    volatile SimEvd connectEvd;
    /** Where the records of {@link #recvEvd} and {@link #requestEvd} that may hold this Endpoint begin ({@link SimEvd#bindingFrom}). */
    private long recvEvdFrom;
    private long requestEvdFrom;
    volatile EpAttributes attrs;
    volatile EpState state = EpState.UNCONNECTED;
    /** This Endpoint's lock, never shared with another Endpoint. */
    final SpinLock lock = new SpinLock();
    /** The order in which two Endpoints' locks are taken together ({@link #lockConnection}). */
    private final long lockOrder = LOCK_ORDER.getAndIncrement();
    private static final AtomicLong LOCK_ORDER = new AtomicLong();
    /**
     * The wire while connected (from the establishment until the Endpoint leaves it); written
     * under the lock, volatile for the target-side checks that read it without the lock.
     */
    volatile Wire wire;
    /** The connection state machine: dat_ep_connect(3DAT) and its neighbours. */
    final EpConnection connection;
    /** The request queue: posts, completions, flushes. */
    final EpRequests requests;
    /** The receives posted, or taken from the SRQ. */
    final EpReceives receives;

    /** The watermarks of dat_ep_set_watermark(3DAT). */
    final EpWatermarks watermarks;

    SimEndpoint(SimIa ia, SimPz pz, SimEvd recvEvd, SimEvd requestEvd, SimEvd connectEvd, SimSrq srq, EpAttributes attrs) {
        super(HandleType.EP, DatReturn.INVALID_HANDLE_EP);
        this.ia = ia;
        this.srq = srq;
        this.pz = pz;
        this.attrs = attrs;
        this.requests = new EpRequests(this, attrs);
        this.receives = new EpReceives(this, attrs, srq);
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

    /** Attaches the EVDs and counts the streams that feed them. */
    void setEvds(SimEvd recv, SimEvd request, SimEvd connect, EpAttributes a) {
        feed(recv, a.recvCompletionFlags(), +1);
        feed(request, a.requestCompletionFlags(), +1);
        feed(connect, -1, +1);
        recvEvdFrom = recv == null ? 0 : recv.bindingFrom();
        requestEvdFrom = request == null ? 0 : request.bindingFrom();
        recvEvd = recv;
        requestEvd = request;
        connectEvd = connect;
    }

    void unsetEvds() {
        EpAttributes a = attrs;
        feed(recvEvd, a.recvCompletionFlags(), -1);
        feed(requestEvd, a.requestCompletionFlags(), -1);
        feed(connectEvd, -1, -1);
        if (recvEvd != null) {
            recvEvd.forget(this, requestEvd == recvEvd ? Math.min(recvEvdFrom, requestEvdFrom) : recvEvdFrom);
        }
        if (requestEvd != null && requestEvd != recvEvd) {
            requestEvd.forget(this, requestEvdFrom);
        }
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

    /** The EVD the Endpoint's connection events go to, or {@code null}. */
    public SimEvd connectEvd() {
        return connectEvd;
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

    /** Takes this Endpoint's lock. Public for the wires, and for tests that hold it as a flush would. */
    public SpinLock acquire() {
        lock.lock();
        return lock;
    }

    /** Takes this Endpoint's lock if it is free; {@code null} when another thread holds it. */
    public SpinLock tryAcquire() {
        return lock.tryLock() ? lock : null;
    }

    /**
     * Takes this Endpoint's lock and, while it is on a wire with a local peer, the peer's too, in
     * the fixed order of the two: what changes both Endpoints of such a connection (its end, the
     * peer's receive ring seen from here) holds both. The caller holds no Endpoint lock.
     *
     * @return the peer whose lock is held as well, or {@code null}; for {@link #unlockConnection}
     */
    SimEndpoint lockConnection() {
        for (;;) {
            Wire w = wire;
            SimEndpoint p = w == null ? null : w.localPeer(this);
            if (p == null) {
                lock.lock();
            } else {
                lockBoth(this, p);
            }
            if (wire == w) {
                return p; // a local wire is set and left only with both locks held
            }
            unlockConnection(p);
        }
    }

    /** Lets go of what {@link #lockConnection} took. */
    void unlockConnection(SimEndpoint peer) {
        if (peer != null) {
            peer.lock.unlock();
        }
        lock.unlock();
    }

    /** Takes the locks of two Endpoints in their fixed order; the caller holds no Endpoint lock. */
    static void lockBoth(SimEndpoint x, SimEndpoint y) {
        SimEndpoint first = x.lockOrder < y.lockOrder ? x : y;
        SimEndpoint second = first == x ? y : x;
        first.lock.lock();
        second.lock.lock();
    }

    // =============================================================================================
    // data path: posts (EpRequests, EpReceives)
    // =============================================================================================

    @Override
    public int postSend(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        return requests.postSend(numSegments, localIov, userCookie, completionFlags);
    }

    @Override
    public int postRdmaWrite(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        return requests.postRdmaWrite(numSegments, localIov, userCookie, remoteBuffer, completionFlags);
    }

    @Override
    public int postRdmaRead(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        return requests.postRdmaRead(numSegments, localIov, userCookie, remoteBuffer, completionFlags);
    }

    @Override
    public int postRecv(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        return receives.postRecv(numSegments, localIov, userCookie, completionFlags);
    }

    /** The extensions an Endpoint of this provider offers: the atomics and RDMA write with immediate data. */
    @Override
    public <T> Optional<T> extension(Class<T> type) {
        return type == AtomicEndpoint.class || type == ImmediateDataEndpoint.class ? Optional.of(type.cast(this)) : Optional.empty();
    }

    @Override
    public int postFetchAndAdd(long addValue, LmrTriplet localBuffer, long userCookie, RmrTriplet remoteBuffer, int completionFlags) {
        return requests.postFetchAndAdd(addValue, localBuffer, userCookie, remoteBuffer, completionFlags);
    }

    @Override
    public int postCompareAndSwap(long compareValue, long swapValue, LmrTriplet localBuffer, long userCookie,
            RmrTriplet remoteBuffer, int completionFlags) {
        return requests.postCompareAndSwap(compareValue, swapValue, localBuffer, userCookie, remoteBuffer, completionFlags);
    }

    @Override
    public int postRdmaWriteImmediate(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int immediateData, int completionFlags) {
        return requests.postRdmaWriteImmediate(numSegments, localIov, userCookie, remoteBuffer, immediateData, completionFlags);
    }

    /** Posts an RMR bind work request (dat_rmr_bind(3DAT)); the RMR checked everything else. */
    int postBind(SimRmr rmr, SimRmr.Binding binding, long cookie, int flags) {
        return requests.postBind(rmr, binding, cookie, flags);
    }

    // =============================================================================================
    // data path: the queues, as the wires use them (with the lock held)
    // =============================================================================================

    /** Requests queued and not completed; with the lock held. */
    public int requestCount() {
        return requests.reqCount;
    }

    /** The request slot {@code fromHead} places behind the head of the ring; with the lock held. */
    public Wr.Request requestAt(int fromHead) {
        return requests.requestAt(fromHead);
    }

    /** Completes the head request ({@link EpRequests#completeHead}); with the lock held. */
    public void completeHead(int status, long len) {
        requests.completeHead(status, len);
    }

    /** Flushes every queued request; with the lock held. */
    public void flushRequests() {
        requests.flushRequests();
    }

    /** The first posted receive or SRQ buffer ({@link EpReceives#takeRecv}); with the lock held. */
    public Wr.Recv takeRecv() {
        return receives.takeRecv();
    }

    /** A wire takes the first receive into its own copy ({@link EpReceives#takeRecvInto}); with the lock held. */
    public boolean takeRecvInto(Wr.Recv out) {
        return receives.takeRecvInto(out);
    }

    /** Generates a receive completion; with the lock held. */
    public void completeRecv(Wr.Recv rv, int status, long len, boolean solicited) {
        receives.completeRecv(rv, status, len, solicited);
    }

    /** Generates the completion of a receive a write with immediate data consumed; with the lock held. */
    public void completeRecvImmediate(Wr.Recv rv, int status, long len, int immediate, boolean solicited) {
        receives.completeRecvImmediate(rv, status, len, immediate, solicited);
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
     * connect EVDs (after the flushed completions). With the lock held, and a local peer's too
     * ({@link #lockConnection}).
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

    /** A DTO error on this connection broke it (RDMA access error, length error, bind failure). As {@link #disconnectBoth}. */
    public void breakConnection() {
        disconnectBoth(EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /** A graceful disconnect whose requests all completed proceeds; as {@link #disconnectBoth}. */
    public boolean finishGraceful() {
        if (requests.reqCount == 0 && state == EpState.DISCONNECT_PENDING) {
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
        receives.flushRecvs();
    }

    /**
     * Ends a connection in one JVM that the data path found over (a DTO error broke it, a
     * graceful disconnect's requests finished): the wire asks for it after it let go of the one
     * lock it held, and this takes both. Nothing happens when the Endpoint left {@code w} meanwhile.
     *
     * @param w the wire the end was found on
     * @param eventNumber the connection event of the end
     * @param brokenAsync the Endpoint that also gets the asynchronous broken event (its hard
     *     watermark broke the connection), or {@code null}
     */
    public void endThrough(Wire w, int eventNumber, SimEndpoint brokenAsync) {
        boolean ended = false;
        SimEndpoint p = lockConnection();
        try {
            if (wire == w && (state == EpState.CONNECTED || state == EpState.DISCONNECT_PENDING)) {
                disconnectBoth(eventNumber);
                ended = true;
            }
        } finally {
            unlockConnection(p);
        }
        if (ended && brokenAsync != null) {
            brokenAsync.postBrokenEvent();
        }
    }

    /**
     * Whether the last {@link #takeRecv} that found nothing found an SRQ buffer over the hard
     * watermark instead: the connection must break ({@link #endThrough}). Clears the mark; with
     * the lock of the sender into this Endpoint held.
     */
    public boolean takeBrokeConnection() {
        return receives.takeBroke();
    }

    void postConnectionEvent(int connectionEvent) {
        SimEvd evd = connectEvd;
        if (evd != null) {
            evd.postConnection(connectionEvent, this, null);
        }
    }

    /** The provider is going away: flush everything, no connection events (the IA event says it). */
    void flushForCatastrophe() {
        SimEndpoint p = lockConnection();
        try {
            goDisconnected(false);
            if (p != null) {
                p.goDisconnected(false);
            }
        } finally {
            unlockConnection(p);
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

    /**
     * The IOV segments of this Endpoint's requests: the size of a wire's copies of them. Stable
     * once a connection is under way (dat_ep_modify(3DAT) changes the IOV limits only before).
     */
    public int requestIovLimit() {
        return EpRequests.requestIov(attrs);
    }

    /** The IOV segments of the receives this Endpoint takes (its own, or its SRQ's): as {@link #requestIovLimit}. */
    public int recvIovLimit() {
        return srq != null ? srq.maxRecvIov : attrs.maxRecvIov();
    }

    @Override
    public EpStatus getStatus() {
        checkOpen();
        SimEndpoint p = lockConnection(); // the peer's lock guards the receives it takes
        try {
            return new EpStatus(state, receives.recvBuffersHeld() == 0, requests.reqCount == 0);
        } finally {
            unlockConnection(p);
        }
    }

    @Override
    public EpRecvInfo recvQuery() {
        checkOpen();
        SimEndpoint p = lockConnection(); // the peer's lock guards the receives it takes
        try {
            int n = recvBuffersHeld();
            return new EpRecvInfo(n, n);
        } finally {
            unlockConnection(p);
        }
    }

    /** The receive buffers this Endpoint holds (dat_ep_recv_query(3DAT)): posted, or taken from its SRQ; with the lock held. */
    int recvBuffersHeld() {
        return receives.recvBuffersHeld();
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
        freeUnderCmLock(() -> {
            EpState s = state;
            if (s == EpState.RESERVED || s == EpState.PASSIVE_CONNECTION_PENDING || s == EpState.TENTATIVE_CONNECTION_PENDING) {
                throw invalidState(stateSubtype(s), "an Endpoint that is " + s + " cannot be freed (dat_ep_free(3DAT))");
            }
            destroy();
        });
    }

    /** Frees the Endpoint in any state; a connection is broken off abruptly. Under the CM lock. */
    void destroy() {
        if (freed) {
            return;
        }
        connection.endForFree();
        SpinLock l = acquire();
        receives.ringLock.lock(); // a post under way either is flushed here or sees the Endpoint freed
        try {
            flushRequests();
            receives.flushRecvsLocked();
            freed = true;
        } finally {
            receives.ringLock.unlock();
            l.unlock();
        }
        unsetEvds();
        if (pz != null) {
            pz.users.decrementAndGet();
        }
        if (srq != null) {
            srq.detach(this);
        }
        ia.statistics.retire(counters, () -> ia.eps.remove(this));
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
