package dat.provider.ofi.internal;

import dat.api.AsyncErrorReason;
import dat.api.CloseFlag;
import dat.api.ConnectFlags;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EpRecvInfo;
import dat.api.EpState;
import dat.api.EpStatus;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.HandleType;
import dat.api.LmrTriplet;
import dat.api.ProtectionZone;
import dat.api.Qos;
import dat.api.RmrTriplet;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.ofi.internal.ffi.Ops;
import dat.provider.support.EpHighWatermarks;
import dat.provider.support.PostFlags;
import dat.provider.support.RequestIov;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An Endpoint. Its libfabric endpoint ({@link NativeEndpoint}) exists only while a connection
 * does: a libfabric {@code FI_EP_MSG} endpoint connects once, and the passive side must make its
 * endpoint from the connection request. So the DAT Endpoint makes one when it connects or accepts,
 * and closes it when the connection ends; receives posted before are kept and handed to it
 * ({@link Posting}).
 *
 * <p>Connection events come from the IA's event queue ({@link #onCmEvent}): {@code FI_CONNECTED}
 * is {@code ESTABLISHED}; {@code FI_SHUTDOWN} is {@code DISCONNECTED}; a connect's error entry is
 * {@code PEER_REJECTED} (a reject by the peer's consumer, {@link PrivateData}),
 * {@code NON_PEER_REJECTED} (nobody listening, the peer's provider refused), {@code TIMED_OUT} or
 * {@code UNREACHABLE}. The DAT connect timeout is the provider's (a timer of the event thread). When
 * a connection ends, its endpoint is closed, the Endpoint's completion queues are read, and every
 * DTO libfabric did not complete is completed as flushed.
 */
final class OfiEp extends OfiHandle implements Endpoint, OfiIa.CmTarget, EpHighWatermarks.Holder {

    // what dat_ep_modify may change before a connection ({@link EpModify}): written under ia.cmLock and postLock
    volatile OfiPz pz;
    volatile OfiEvd recvEvd;
    volatile OfiEvd requestEvd;
    volatile OfiEvd connectEvd;
    final OfiSrq srq;
    /**
     * While an SRQ Endpoint is connected, the CQ the receives it takes from its SRQ complete on,
     * read by its receive EVD; else {@code null}.
     */
    private CompletionQueue srqCq;
    volatile EpAttributes attributes;
    final int ownerId;
    /** Freed, and still in the IA's table while DTOs of it are queued ({@link OfiIa#retire(OfiEp)}). */
    volatile boolean retiring;
    volatile WorkSlots sendSlots;
    /** The CQ the connection's endpoint completes its requests on, whose count of DTOs in libfabric {@link #sendSlots} keeps. */
    CompletionQueue requestCq;
    volatile WorkSlots recvSlots;
    final Posting posting;
    final ReentrantLock postLock = new ReentrantLock();
    /** dat_ep_set_watermark, on the receive buffers held. */
    private final EpHighWatermarks watermarks;

    // connection state: written under ia.cmLock (and postLock where the connection's endpoint changes)
    private volatile EpState state = EpState.UNCONNECTED;
    NativeEndpoint connection;
    private EventLoop.Timer connectTimer;
    /** A graceful disconnect waiting for the requests libfabric holds, or {@code null}. */
    private GracefulDisconnect settling;
    private volatile InetSocketAddress remoteAddress;
    private volatile long remoteQual;
    private volatile long localQual;
    private volatile int remotePzId;
    /** The accept's confirmation (ia.cmLock held). */
    private final AcceptConfirmation confirmation;
    volatile OfiServicePoint reservedBy;
    volatile OfiCr offeredTo;

    private OfiEp(OfiIa ia, OfiPz pz, OfiEvd recvEvd, OfiEvd requestEvd, OfiEvd connectEvd, OfiSrq srq, EpAttributes attributes) {
        super(ia, HandleType.EP, DatReturn.INVALID_HANDLE_EP);
        this.pz = pz;
        this.recvEvd = recvEvd;
        this.requestEvd = requestEvd;
        this.connectEvd = connectEvd;
        this.srq = srq;
        this.attributes = attributes;
        this.ownerId = ia.addOwner(this);
        this.confirmation = new AcceptConfirmation(ia.limits.cqDataSize(), ownerId);
        this.sendSlots = new WorkSlots(attributes.maxRequestDtos(), ownerId, false, 0);
        this.recvSlots = new WorkSlots(srq == null ? attributes.maxRecvDtos() : 1, ownerId, true, attributes.maxRecvIov());
        this.posting = new Posting(this);
        this.watermarks = new EpHighWatermarks(this, ia.cmLock);
        countUses(1);
        ia.eps.add(this);
    }

    /** Counts this Endpoint into (1) or out of (-1) the users of its EVDs, SRQ and PZ. */
    private void countUses(int delta) {
        for (OfiEvd evd : new OfiEvd[] {recvEvd, requestEvd, connectEvd}) {
            if (evd != null) {
                evd.users.addAndGet(delta);
            }
        }
        OfiEvd.countConsumerNotified(recvEvd, requestEvd, attributes, delta);
        if (srq != null) {
            srq.users.addAndGet(delta);
        }
        pz.users.addAndGet(delta);
    }

    static OfiEp create(OfiIa ia, ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, OfiSrq srq, EpAttributes requested) {
        OfiPz ofiPz = OfiPz.check(ia, pz, "pz");
        OfiEvd recv = recvEvd == null ? null : OfiEvd.check(ia, recvEvd, EvdFlags.DTO, DatReturn.INVALID_HANDLE_EVD_RECV, "recvEvd");
        OfiEvd request = requestEvd == null ? null
                : OfiEvd.check(ia, requestEvd, EvdFlags.DTO, DatReturn.INVALID_HANDLE_EVD_REQUEST, "requestEvd");
        OfiEvd connect = connectEvd == null ? null
                : OfiEvd.check(ia, connectEvd, EvdFlags.CONNECTION, DatReturn.INVALID_HANDLE_EVD_CONN, "connectEvd");
        if (srq != null && srq.pz != ofiPz) {
            throw Codes.exception(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6, "srq",
                    "the SRQ is in another PZ (srq_ep_pz_difference_supported is false)");
        }
        EpAttributes effective = EpLimits.effective(ia, requested, srq == null ? DatReturn.INVALID_ARG6 : DatReturn.INVALID_ARG7);
        if (ia.eps.size() >= ia.limits.maxEps()) {
            throw Codes.exception(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_TEP, "ep", "max_eps " + ia.limits.maxEps());
        }
        try {
            return new OfiEp(ia, ofiPz, recv, request, connect, srq, effective);
        } catch (NativeException e) {
            throw Codes.fromNative(e, "attributes");
        }
    }

    static OfiEp check(OfiIa ia, Endpoint ep, String argument) {
        if (!(ep instanceof OfiEp v) || v.ia != ia || !v.isOpen()) {
            throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EP, argument, "not an open Endpoint of this IA");
        }
        return v;
    }

    EpAttributes attributes() {
        return attributes;
    }

    OfiPz pz() {
        return pz;
    }

    OfiEvd recvEvd() {
        return recvEvd;
    }

    OfiEvd requestEvd() {
        return requestEvd;
    }

    /** The libfabric key of an RMR context of the peer: its Endpoint's PZ in the high half where the provider chooses keys. */
    long remoteKey(int rmrContext) {
        long context = Integer.toUnsignedLong(rmrContext);
        return ia.domain.pzKeys ? ((long) remotePzId << 32) | context : context;
    }

    // ---- data path ---------------------------------------------------------------------------------

    @Override
    public int postSend(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        return postRequest(WorkSlots.SEND, numSegments, localIov, userCookie, null, completionFlags, 0);
    }

    @Override
    public int postRdmaWrite(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        return postRequest(WorkSlots.RDMA_WRITE, numSegments, localIov, userCookie, remoteBuffer, completionFlags, 0);
    }

    @Override
    public int postRdmaRead(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        return postRequest(WorkSlots.RDMA_READ, numSegments, localIov, userCookie, remoteBuffer, completionFlags, 0);
    }

    int postRequest(byte kind, int numSegments, LmrTriplet[] iov, long cookie, RmrTriplet remote, int completionFlags,
            int immediate) {
        Locks.lockSpinning(postLock);
        try {
            if (freed || !ia.isUsable()) {
                return invalidHandleCode();
            }
            if (kind != WorkSlots.SEND && !RequestIov.isRemoteBuffer(remote)) {
                return Codes.invalidParameter(DatReturn.INVALID_ARG5); // after the handle, before the state
            }
            EpState s = state;
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
                return EpStates.CODES[s.value()];
            }
            if (!PostFlags.isValidRequest(completionFlags, attributes, kind == WorkSlots.SEND)) {
                return Codes.invalidParameter(kind == WorkSlots.SEND ? DatReturn.INVALID_ARG5
                        : kind == WorkSlots.WRITE_IMMEDIATE ? DatReturn.INVALID_ARG7 : DatReturn.INVALID_ARG6);
            }
            if (s == EpState.DISCONNECTED) {
                return posting.flushAtOnce(requestEvd, numSegments, iov, cookie, kind == WorkSlots.RDMA_READ,
                        Posting.maxIov(kind, attributes));
            }
            return posting.postRequest(kind, numSegments, iov, cookie, remote, completionFlags, immediate);
        } finally {
            postLock.unlock();
        }
    }

    /** {@link #postBind}'s answer for a bind flushed at once: the Endpoint is disconnected. */
    static final int BIND_FLUSHED = 1;

    /**
     * Posts a memory window's bind ({@link OfiRmr#bind}) to the request queue; the RMR's monitor is
     * held. A connected Endpoint posts it ({@link Posting#postBind}); a disconnected one flushes
     * it at once ({@link #BIND_FLUSHED}).
     *
     * @param tokenOut receives the token of the posted bind's slot
     * @return {@link Codes#SUCCESS}, {@link #BIND_FLUSHED}, or a negative DAT error code
     */
    int postBind(OfiRmr rmr, long cookie, int completionFlags, long[] tokenOut) {
        Locks.lockSpinning(postLock);
        try {
            if (freed || !ia.isUsable()) {
                return invalidHandleCode();
            }
            EpState s = state;
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
                return EpStates.CODES[s.value()];
            }
            if (s == EpState.DISCONNECTED) {
                posting.flushBindAtOnce(rmr, cookie);
                return BIND_FLUSHED;
            }
            return posting.postBind(rmr, cookie, completionFlags, tokenOut);
        } finally {
            postLock.unlock();
        }
    }

    @Override
    public int postRecv(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        int code;
        Locks.lockSpinning(postLock);
        try {
            if (freed || !ia.isUsable()) {
                return invalidHandleCode();
            }
            if (srq != null) {
                return Codes.INVALID_STATE;
            }
            if (!PostFlags.isValidRecv(completionFlags, attributes)) {
                return Codes.invalidParameter(DatReturn.INVALID_ARG5);
            }
            if (state == EpState.DISCONNECTED) {
                return posting.flushAtOnce(recvEvd, numSegments, localIov, userCookie, true, attributes.maxRecvIov());
            }
            code = posting.postRecv(numSegments, localIov, userCookie, completionFlags);
        } finally {
            postLock.unlock();
        }
        if (code == Codes.SUCCESS) {
            watermarks.received();
        }
        return code;
    }

    // ---- connection management (ia.cmLock) ---------------------------------------------------------

    @Override
    public void connect(InetSocketAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
            int qos, int connectFlags) {
        checkOpen();
        EpLimits.checkConnect(ia, remoteIaAddress, remoteConnQual, timeoutMicros, privateData, qos, connectFlags);
        ia.cmLock.lock();
        try {
            checkOpen();
            if (state != EpState.UNCONNECTED) {
                throw new DatException(EpStates.CODES[state.value()], "ep", "connect needs an unconnected Endpoint", null);
            }
            NativeEndpoint made;
            postLock.lock(); // no receive but the staged ones reaches the attempt's endpoint before the call's outcome
            try {
                try (Arena local2 = Arena.ofConfined()) {
                    MemorySegment destination = Sockaddr.of(local2, remoteIaAddress.getAddress(), (int) remoteConnQual);
                    MemorySegment info = ia.domain.activeInfo(destination);
                    try {
                        made = open(info);
                    } finally {
                        ia.domain.freeActiveInfo(info);
                    }
                    Ops.connect(made.ep, destination, PrivateData.frame(local2, privateData, pz.id, confirmation.owner()),
                            PrivateData.framedLength(privateData));
                } catch (NativeException e) {
                    closeConnection(true); // the call failed: the Endpoint stays as it was, its receives posted
                    throw EpLimits.connectRefused(e);
                }
            } finally {
                postLock.unlock();
            }
            remoteAddress = new InetSocketAddress(remoteIaAddress.getAddress(), 0);
            remoteQual = remoteConnQual;
            localQual = made.localPort();
            state = EpState.ACTIVE_CONNECTION_PENDING;
            if (timeoutMicros != DatConstants.TIMEOUT_INFINITE) {
                NativeEndpoint attempt = made;
                connectTimer = ia.loop.schedule(timeoutMicros * 1000, () -> connectTimedOut(attempt));
            }
        } finally {
            ia.cmLock.unlock();
        }
    }

    /**
     * Makes the connection's libfabric endpoint and hands it the receives posted so far
     * (ia.cmLock held).
     */
    private NativeEndpoint open(MemorySegment info) {
        postLock.lock();
        try {
            OfiEvd sendSide = requestEvd != null ? requestEvd : ia.discardEvd();
            OfiEvd recvSide = recvEvd != null ? recvEvd : ia.discardEvd();
            NativeEndpoint made;
            try {
                if (srq != null) {
                    srqCq = new CompletionQueue(ia, this, attributes.maxRecvDtos());
                }
                made = new NativeEndpoint(ia, info, sendSide.cq.cq, srq != null ? srqCq.cq : recvSide.cq.cq,
                        srq == null ? MemorySegment.NULL : srq.srx);
            } catch (NativeException e) {
                if (srqCq != null) {
                    srqCq.close();
                    srqCq = null;
                }
                throw e;
            }
            if (srqCq != null) {
                srqCq.takesReceives();
                recvSide.attach(srqCq);
            } else {
                recvSide.cq.takesReceives();
            }
            requestCq = sendSide.cq;
            sendSlots.countIn(requestCq.posted);
            connection = made;
            posting.connected(made);
            ia.addCmTarget(made.ep, this);
            return made;
        } finally {
            postLock.unlock();
        }
    }

    @Override
    public void dupConnect(Endpoint dupEp, long timeoutMicros, byte[] privateData, int qos) {
        checkOpen();
        OfiEp other = check(ia, dupEp, "dupEp");
        if (other.state != EpState.CONNECTED || other.remoteAddress == null) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_EP_UNCONNECTED, "dupEp is not connected");
        }
        dat.provider.support.ConnectArguments.checkDupConnect(timeoutMicros, privateData, qos, ia.limits.maxPrivateData());
        connect(other.remoteAddress, other.remoteQual, timeoutMicros, privateData, qos, ConnectFlags.DEFAULT);
    }

    /** Throws unless this Endpoint may accept the request (ia.cmLock held). */
    void checkCanAccept(OfiCr cr) {
        checkOpen();
        EpState s = state;
        boolean reservedForThis = s == EpState.RESERVED && cr.reservedEp == this;
        boolean offered = s == EpState.PASSIVE_CONNECTION_PENDING && offeredTo == cr;
        if (s != EpState.UNCONNECTED && !reservedForThis && !offered) {
            throw new DatException(EpStates.CODES[s.value()], "ep", "the Endpoint cannot take this request", null);
        }
    }

    /**
     * Accepts a connection request on this Endpoint (the CR calls it with ia.cmLock held, after
     * {@link #checkCanAccept}): makes the connection's endpoint from the request's info and
     * {@code fi_accept}s. When that fails, the Endpoint is disconnected with
     * {@code DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR} (dat_cr_accept(3DAT)).
     *
     * @return whether an endpoint took the request over; if not, the CR refuses it
     */
    boolean acceptOn(OfiCr cr, MemorySegment requestInfo, byte[] privateData) {
        try {
            remoteAddress = cr.remoteIaAddress();
            remoteQual = cr.remotePortQual();
            remotePzId = cr.remotePzId;
            NativeEndpoint made;
            try {
                made = open(requestInfo);
            } catch (NativeException | DatException e) {
                failConnection(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, null);
                return false;
            }
            localQual = made.localPort();
            state = EpState.COMPLETION_PENDING;
            confirmation.accepting(cr.remoteOwnerId);
            try (Arena local = Arena.ofConfined()) {
                Ops.accept(made.ep, PrivateData.frame(local, privateData, pz.id, confirmation.owner()), PrivateData.framedLength(privateData));
            } catch (NativeException e) {
                System.getLogger(OfiEp.class.getName()).log(System.Logger.Level.DEBUG, "fi_accept failed", e);
                endConnection(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, null);
            }
            return true;
        } finally {
            reservedBy = null;
            offeredTo = null;
        }
    }

    @Override
    public void onCmEvent(int event, int error, byte[] data, MemorySegment info) {
        if (freed) {
            return;
        }
        EpState s = state;
        if (event == Fi.CONNECTED) {
            if (s == EpState.ACTIVE_CONNECTION_PENDING) {
                cancelConnectTimer();
                remotePzId = PrivateData.pzOf(data);
                int peerOwner = PrivateData.ownerOf(data);
                if (confirmation.sendsTo(peerOwner)) {
                    confirm(peerOwner);
                }
                state = EpState.CONNECTED;
                post(EventNumber.CONNECTION_EVENT_ESTABLISHED, PrivateData.unframe(data));
                watermarks.breakIfOverHard();
            } else if (s == EpState.COMPLETION_PENDING) {
                if (confirmation.connected()) {
                    state = EpState.CONNECTED;
                    post(EventNumber.CONNECTION_EVENT_ESTABLISHED, null);
                    watermarks.breakIfOverHard();
                }
            }
        } else if (event == Fi.SHUTDOWN || error != 0) {
            int eventNumber = switch (s) {
                case CONNECTED -> event == Fi.SHUTDOWN ? EventNumber.CONNECTION_EVENT_DISCONNECTED
                        : EventNumber.CONNECTION_EVENT_BROKEN;
                case DISCONNECT_PENDING -> EventNumber.CONNECTION_EVENT_DISCONNECTED;
                case COMPLETION_PENDING -> EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR;
                case ACTIVE_CONNECTION_PENDING -> PrivateData.connectFailure(error, data);
                default -> -1;
            };
            if (eventNumber >= 0) {
                endConnection(eventNumber, eventNumber == EventNumber.CONNECTION_EVENT_PEER_REJECTED ? PrivateData.unframe(data) : null);
            }
        }
    }

    /** Active side (ia.cmLock held): confirms the peer's accept; a failure shows as the connection's end. */
    private void confirm(int peerOwner) {
        postLock.lock();
        try {
            posting.confirm(AcceptConfirmation.data(peerOwner));
        } finally {
            postLock.unlock();
        }
    }

    /** The accepts this Endpoint began ({@link AcceptConfirmation#accepts}), read where a confirmation is read, without the lock. */
    int acceptsBegun() {
        return confirmation.accepts();
    }

    /** Passive side, on the event thread with ia.cmLock held: the requester confirmed accept number {@code accept}. */
    void confirmedByPeer(int accept) {
        if (freed) {
            return;
        }
        boolean both = confirmation.confirmed(accept);
        if (state == EpState.COMPLETION_PENDING && both) {
            state = EpState.CONNECTED;
            post(EventNumber.CONNECTION_EVENT_ESTABLISHED, null);
            watermarks.breakIfOverHard();
        }
    }

    /** The DAT connect timeout expired (event thread, ia.cmLock held): the attempt is abandoned. */
    private void connectTimedOut(NativeEndpoint attempt) {
        if (freed || connection != attempt || state != EpState.ACTIVE_CONNECTION_PENDING) {
            return;
        }
        connectTimer = null;
        endConnection(EventNumber.CONNECTION_EVENT_TIMED_OUT, null);
    }

    private void cancelConnectTimer() {
        EventLoop.Timer timer = connectTimer;
        if (timer != null) {
            connectTimer = null;
            ia.loop.cancel(timer);
        }
    }

    /** A connection that never had an endpoint ended: the Endpoint is disconnected and the event posted. */
    private void failConnection(int eventNumber, byte[] privateData) {
        cancelConnectTimer();
        state = EpState.DISCONNECTED;
        post(eventNumber, privateData);
    }

    /**
     * The connection ended (ia.cmLock held): its endpoint is closed, the completions libfabric
     * made are read into the EVDs, every other DTO posted is flushed, and the event is posted.
     */
    private void endConnection(int eventNumber, byte[] privateData) {
        cancelConnectTimer();
        settling = GracefulDisconnect.cancel(settling);
        closeConnection();
        state = EpState.DISCONNECTED;
        post(eventNumber, privateData);
    }

    /** Closes the connection's endpoint and flushes what it did not complete (ia.cmLock held). */
    private void closeConnection() {
        closeConnection(false);
    }

    /**
     * Closes the connection's endpoint and flushes what it held.
     *
     * @param keepReceives the endpoint closes before its connection existed (the connect call
     *     failed): its receives are staged for the next one instead of flushed
     */
    private void closeConnection(boolean keepReceives) {
        postLock.lock();
        try {
            NativeEndpoint made = connection;
            if (keepReceives) {
                posting.restageReceives(); // before the close: the cancellations it reports match no receive
            }
            if (made != null) {
                ia.removeCmTarget(made.ep);
                made.close();
                connection = null;
                posting.disconnected();
            }
            OfiEvd discard = ia.existingDiscardEvd();
            for (OfiEvd evd : new OfiEvd[] {requestEvd, recvEvd, discard}) {
                if (evd != null) {
                    evd.drainForTeardown(evd.cq, false);
                }
            }
            if (srqCq != null) {
                OfiEvd holder = recvEvd != null ? recvEvd : discard;
                holder.drainForTeardown(srqCq, true);
                holder.detach(srqCq);
                srqCq.close();
                srqCq = null;
            }
            if (!keepReceives) {
                posting.flushPosted();
            }
        } finally {
            postLock.unlock();
        }
    }

    private void post(int eventNumber, byte[] privateData) {
        OfiEvd evd = connectEvd;
        if (evd != null) {
            evd.postEvent(new DatEvent().setConnectionEvent(eventNumber, evd, this, privateData));
        }
    }

    @Override
    public void disconnect(CloseFlag flag) {
        checkOpen();
        if (flag == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "flag", "null");
        }
        ia.cmLock.lock();
        try {
            checkOpen();
            switch (state) {
                case CONNECTED -> {
                    state = EpState.DISCONNECT_PENDING;
                    if (flag == CloseFlag.GRACEFUL && !requestsSettled()) {
                        settling = GracefulDisconnect.start(ia, this);
                    } else {
                        shutdownAndEnd();
                    }
                }
                case ACTIVE_CONNECTION_PENDING, COMPLETION_PENDING -> endConnection(EventNumber.CONNECTION_EVENT_DISCONNECTED, null);
                case DISCONNECT_PENDING, DISCONNECTED -> {
                    if (flag == CloseFlag.ABRUPT && settling != null) {
                        shutdownAndEnd(); // an abrupt disconnect does not wait for a graceful one
                    }
                }
                default -> throw new DatException(EpStates.CODES[state.value()], "ep", "nothing to disconnect in state " + state, null);
            }
        } finally {
            ia.cmLock.unlock();
        }
    }

    /** Shuts the connection down (the peer sees {@code FI_SHUTDOWN}) and ends it, disconnected (ia.cmLock held). */
    void shutdownAndEnd() {
        shutdownAndEnd(EventNumber.CONNECTION_EVENT_DISCONNECTED);
    }

    /** Shuts the connection down (the peer sees {@code FI_SHUTDOWN}) and ends it with {@code eventNumber} (ia.cmLock held). */
    private void shutdownAndEnd(int eventNumber) {
        try {
            Ops.shutdown(connection.ep);
        } catch (NativeException ignored) {
            // the connection is down already
        }
        endConnection(eventNumber, null);
    }

    /** Whether libfabric holds none of the requests, their completions read (ia.cmLock held): a graceful disconnect proceeds. */
    boolean requestsSettled() {
        OfiEvd requests = requestEvd != null ? requestEvd : ia.existingDiscardEvd();
        if (requests != null) {
            requests.reclaim();
        }
        return sendSlots.posted() == 0;
    }

    /** Confirms the silent writes ({@link Posting#confirmSilentWrites}), so that a graceful disconnect sees them complete. */
    void confirmSilentWrites() {
        Locks.lockSpinning(postLock);
        try {
            posting.confirmSilentWrites();
        } finally {
            postLock.unlock();
        }
    }

    /** Whether {@code wait} is the graceful disconnect the Endpoint still waits on (ia.cmLock held). */
    boolean isSettling(GracefulDisconnect wait) {
        return settling == wait && state == EpState.DISCONNECT_PENDING && connection != null && !freed;
    }

    @Override
    public void reset() {
        checkOpen();
        ia.cmLock.lock();
        try {
            checkOpen();
            if (state == EpState.UNCONNECTED) {
                return;
            }
            if (state != EpState.DISCONNECTED) {
                throw new DatException(EpStates.CODES[state.value()], "ep", "reset needs a disconnected Endpoint", null);
            }
            remoteAddress = null;
            remoteQual = 0;
            localQual = 0;
            remotePzId = 0;
            state = EpState.UNCONNECTED;
        } finally {
            ia.cmLock.unlock();
        }
    }

    /** The hot swap: the connection ends and every posted DTO completes as flushed, before the IA goes. */
    void flushForFailure() {
        ia.cmLock.lock();
        try {
            if (!freed) {
                closeConnection();
            }
        } finally {
            ia.cmLock.unlock();
        }
    }

    /** Whether no DTO of this Endpoint is posted or queued. */
    boolean idle() {
        return sendSlots.outstanding() == 0 && recvSlots.outstanding() == 0;
    }

    // ---- queries -----------------------------------------------------------------------------------

    EpState state() {
        return state;
    }

    /** Moves the state for the Service Points (reserve, offer); ia.cmLock held. */
    void setState(EpState next) {
        state = next;
    }

    @Override
    public EpParams query(long epParamMask) {
        checkOpen();
        if (!EpParamMask.isValid(epParamMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "epParamMask", "undefined bits");
        }
        return EpParams.builder().ia(ia).state(state).localIaAddress(new InetSocketAddress(ia.domain.address.getAddress(), 0))
                .localPortQual(localQual).remoteIaAddress(remoteAddress).remotePortQual(remoteQual).pz(pz).recvEvd(recvEvd)
                .requestEvd(requestEvd).connectEvd(connectEvd).srq(srq).attributes(attributes).build();
    }

    @Override
    public void modify(long epParamMask, EpParams params) {
        EpModify.modify(this, epParamMask, params);
    }

    @Override
    public EpStatus getStatus() {
        checkOpen();
        return new EpStatus(state, recvSlots.outstanding() == 0, sendSlots.outstanding() == 0);
    }

    /**
     * dat_ep_recv_query(3DAT): an Endpoint of its own receives holds the receives posted to it and
     * not yet completed, and a message takes them in the order they were posted, so that count is
     * both figures. An Endpoint of an SRQ takes a buffer when a message lands in it, which
     * libfabric reports only with the completion: both are {@code DAT_VALUE_UNKNOWN}.
     */
    @Override
    public EpRecvInfo recvQuery() {
        checkOpen();
        if (srq != null) {
            return new EpRecvInfo(DatConstants.VALUE_UNKNOWN, DatConstants.VALUE_UNKNOWN);
        }
        int held = recvSlots.outstanding();
        return new EpRecvInfo(held, held);
    }

    /**
     * dat_ep_set_watermark(3DAT) on the receive buffers the Endpoint holds: those posted to it (staged
     * for a connection or in libfabric) and not yet completed ({@link EpHighWatermarks}). An Endpoint
     * of an SRQ holds an SRQ buffer only while a message lands in it, which libfabric reports with the
     * completion: it is counted as holding none.
     */
    @Override
    public void setWatermark(int softHighWatermark, int hardHighWatermark) {
        checkOpen();
        watermarks.set(softHighWatermark, hardHighWatermark);
    }

    @Override
    public int buffersHeld() {
        return srq == null ? recvSlots.outstanding() : 0;
    }

    @Override
    public boolean isConnected() {
        return !freed && state == EpState.CONNECTED;
    }

    @Override
    public void postSoftWatermarkEvent() {
        ia.postAsync(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, this, AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT);
    }

    @Override
    public void breakForHardWatermark() {
        shutdownAndEnd(EventNumber.CONNECTION_EVENT_BROKEN); // the peer sees FI_SHUTDOWN, as for an abrupt disconnect
        ia.postAsync(EventNumber.ASYNC_ERROR_EP_BROKEN, this, AsyncErrorReason.EP_OTHER_ERROR);
    }

    @Override
    public <T> java.util.Optional<T> extension(Class<T> type) {
        return Extensions.of(this, type);
    }

    @Override
    public void close() {
        if (freed || !ia.isUsable()) {
            return;
        }
        ia.cmLock.lock();
        try {
            if (freed) {
                return;
            }
            if (state == EpState.RESERVED || reservedBy != null) {
                throw Codes.invalidState(DatReturn.INVALID_STATE_EP_RESERVED, "an RSP reserves the Endpoint");
            }
            if (state == EpState.PASSIVE_CONNECTION_PENDING || offeredTo != null) {
                throw Codes.invalidState(DatReturn.INVALID_STATE_EP_PASSCONNPENDING, "a Connection Request holds the Endpoint");
            }
        } finally {
            ia.cmLock.unlock();
        }
        destroy();
    }

    /** Tears the Endpoint down: the connection's endpoint is shut down and closed, its DTOs flushed. Idempotent. */
    void destroy() {
        ia.cmLock.lock();
        try {
            if (freed) {
                return;
            }
            NativeEndpoint made = connection;
            if (made != null && (state == EpState.CONNECTED || state == EpState.DISCONNECT_PENDING)) {
                try {
                    Ops.shutdown(made.ep);
                } catch (NativeException ignored) {
                    // the peer sees the connection break instead
                }
            }
            cancelConnectTimer();
            settling = GracefulDisconnect.cancel(settling);
            closeConnection();
            postLock.lock();
            try {
                freed = true;
                posting.close();
            } finally {
                postLock.unlock();
            }
            countUses(-1);
            ia.eps.remove(this);
            ia.retire(this);
        } finally {
            ia.cmLock.unlock();
        }
    }
}
