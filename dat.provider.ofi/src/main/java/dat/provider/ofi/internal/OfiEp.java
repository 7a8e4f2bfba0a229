package dat.provider.ofi.internal;

import dat.api.AsyncErrorReason;
import dat.api.CloseFlag;
import dat.api.ConnectFlags;
import dat.api.DatConstants;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EpRecvInfo;
import dat.api.EpState;
import dat.api.EpStatus;
import dat.api.EvdFlags;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.HandleType;
import dat.api.LmrTriplet;
import dat.api.ProtectionZone;
import dat.api.RmrTriplet;
import dat.api.ext.IaCounters;
import dat.api.ext.Operation;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.support.AtomicArguments;
import dat.provider.support.EpHighWatermarks;
import dat.provider.support.PostFlags;
import dat.provider.support.RequestIov;
import java.net.InetSocketAddress;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An Endpoint: its attributes, EVDs, SRQ and PZ, the data path ({@link Posting}, under
 * {@link #postLock}) and the queries. Its connection, with the connection's libfabric endpoint, is
 * an {@link EpConnection}.
 */
final class OfiEp extends OfiHandle implements Endpoint, EpHighWatermarks.Holder {

    // what dat_ep_modify may change before a connection ({@link EpModify}): written under ia.cmLock and postLock
    volatile OfiPz pz;
    volatile OfiEvd recvEvd;
    volatile OfiEvd requestEvd;
    volatile OfiEvd connectEvd;
    final OfiSrq srq;
    volatile EpAttributes attributes;
    final int ownerId;
    /** Freed, and still in the IA's table while DTOs of it are queued ({@link OfiIa#retire(OfiEp)}). */
    volatile boolean retiring;
    volatile WorkSlots sendSlots;
    volatile WorkSlots recvSlots;
    final Posting posting;
    final ReentrantLock postLock = new ReentrantLock();
    /** dat_ep_set_watermark, on the receive buffers held. */
    final EpHighWatermarks watermarks;
    final EpConnection connection;

    private OfiEp(OfiIa ia, OfiPz pz, OfiEvd recvEvd, OfiEvd requestEvd, OfiEvd connectEvd, OfiSrq srq, EpAttributes attributes) {
        super(ia, HandleType.EP, DatReturn.INVALID_HANDLE_EP);
        this.pz = pz;
        this.recvEvd = recvEvd;
        this.requestEvd = requestEvd;
        this.connectEvd = connectEvd;
        this.srq = srq;
        this.attributes = attributes;
        this.ownerId = ia.addOwner(this);
        this.connection = new EpConnection(this); // a completion may name the owner from here on (OfiIa#confirmed)
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
        if (pz != null) {
            pz.users.addAndGet(delta);
        }
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

    /**
     * An Endpoint the provider creates for a request at a PSP created with {@code DAT_PSP_PROVIDER}:
     * no PZ and no EVDs (dat_psp_create(3DAT)), and the IA's default attributes, since a libfabric
     * connection request carries none of the requester's. It is the provider's
     * ({@link EpConnection#isProvided}) until the consumer accepts the request that carries it.
     *
     * @return the Endpoint, or {@code null} when the IA has max_eps Endpoints or libfabric refuses
     */
    static OfiEp provided(OfiIa ia) {
        if (ia.eps.size() >= ia.limits.maxEps()) {
            return null;
        }
        try {
            OfiEp ep = new OfiEp(ia, null, null, null, null, null, EpLimits.effective(ia, null, DatReturn.INVALID_ARG6));
            ep.connection.provide();
            return ep;
        } catch (RuntimeException e) {
            // libfabric or the IA's table of owners refused: the request is refused as for max_eps
            return null;
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
        return ia.domain.pzKeys ? ((long) connection.remotePzId() << 32) | context : context;
    }

    // ---- data path ---------------------------------------------------------------------------------

    @Override
    public int postSend(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        return ia.counters.post(Operation.SEND, IaCounters.iovBytes(numSegments, localIov),
                postRequest(WorkSlots.SEND, numSegments, localIov, userCookie, null, completionFlags, 0));
    }

    @Override
    public int postRdmaWrite(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        return ia.counters.post(Operation.RDMA_WRITE, IaCounters.iovBytes(numSegments, localIov),
                postRequest(WorkSlots.RDMA_WRITE, numSegments, localIov, userCookie, remoteBuffer, completionFlags, 0));
    }

    @Override
    public int postRdmaRead(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        return ia.counters.post(Operation.RDMA_READ, IaCounters.iovBytes(numSegments, localIov),
                postRequest(WorkSlots.RDMA_READ, numSegments, localIov, userCookie, remoteBuffer, completionFlags, 0));
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
            EpState s = connection.state();
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
                return Codes.epState(s);
            }
            if (!PostFlags.isValidRequest(completionFlags, attributes, kind == WorkSlots.SEND || kind == WorkSlots.WRITE_IMMEDIATE)) {
                return Codes.invalidParameter(kind == WorkSlots.SEND ? DatReturn.INVALID_ARG5
                        : kind == WorkSlots.WRITE_IMMEDIATE ? DatReturn.INVALID_ARG7 : DatReturn.INVALID_ARG6);
            }
            if (s == EpState.DISCONNECTED) {
                return posting.flushAtOnce(requestEvd, kind, numSegments, iov, cookie, kind == WorkSlots.RDMA_READ,
                        Posting.maxIov(kind, attributes));
            }
            return posting.postRequest(kind, numSegments, iov, cookie, remote, completionFlags, immediate);
        } finally {
            postLock.unlock();
        }
    }

    /**
     * A fetch-and-add or compare-and-swap ({@link Extensions}), with the checks of
     * {@code AtomicEndpoint} in the order the verbs provider makes them: the handle, the state,
     * the flags, then the buffers. A disconnected Endpoint flushes it at once, its local buffer
     * checked first.
     *
     * @param firstArg the argument number of the local buffer (3 for fetch-and-add, 4 for compare-and-swap)
     */
    int postAtomic(byte kind, long operand, long compare, LmrTriplet local, long cookie, RmrTriplet remote, int completionFlags,
            int firstArg) {
        Locks.lockSpinning(postLock);
        try {
            if (freed || !ia.isUsable()) {
                return invalidHandleCode();
            }
            EpState s = connection.state();
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
                return Codes.epState(s);
            }
            if (!PostFlags.isValidRequest(completionFlags, attributes, false)) {
                return Codes.invalidParameter(firstArg + 3);
            }
            int buffers = AtomicArguments.check(local, remote, firstArg);
            if (buffers != 0) {
                return buffers;
            }
            if (s == EpState.DISCONNECTED) {
                return posting.flushAtomicAtOnce(requestEvd, kind, local, cookie);
            }
            return posting.postAtomic(kind, operand, compare, local, cookie, remote, completionFlags);
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
            EpState s = connection.state();
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
                return Codes.epState(s);
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
        int code = postRecvLocked(numSegments, localIov, userCookie, completionFlags);
        if (code == Codes.SUCCESS) {
            watermarks.received();
        }
        return ia.counters.post(Operation.RECEIVE, IaCounters.iovBytes(numSegments, localIov), code);
    }

    private int postRecvLocked(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        Locks.lockSpinning(postLock);
        try {
            if (freed || !ia.isUsable()) {
                return invalidHandleCode();
            }
            if (srq != null) {
                return Codes.INVALID_STATE;
            }
            if (pz == null) {
                // a Provider-created Endpoint before the consumer gave it a PZ: a receive staged now would keep
                // dat_ep_modify from giving it one (EpModify), and so the request from being accepted
                return Codes.epState(connection.state());
            }
            if (!PostFlags.isValidRecv(completionFlags, attributes)) {
                return Codes.invalidParameter(DatReturn.INVALID_ARG5);
            }
            if (connection.state() == EpState.DISCONNECTED) {
                return posting.flushAtOnce(recvEvd, WorkSlots.RECV, numSegments, localIov, userCookie, true, attributes.maxRecvIov());
            }
            return posting.postRecv(numSegments, localIov, userCookie, completionFlags);
        } finally {
            postLock.unlock();
        }
    }

    // ---- connection management: the Endpoint's EpConnection ----------------------------------------------

    @Override
    public void connect(InetSocketAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
            int qos, int connectFlags) {
        checkOpen();
        EpLimits.checkConnect(ia, remoteIaAddress, remoteConnQual, timeoutMicros, privateData, qos, connectFlags);
        connection.connect(remoteIaAddress, remoteConnQual, timeoutMicros, privateData);
    }

    @Override
    public void dupConnect(Endpoint dupEp, long timeoutMicros, byte[] privateData, int qos) {
        checkOpen();
        OfiEp other = check(ia, dupEp, "dupEp");
        InetSocketAddress address = other.connection.remoteAddress(); // with its qualifier, before a reset clears both
        long qualifier = other.connection.remoteQual();
        if (!other.connection.isConnected() || address == null) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_EP_UNCONNECTED, "dupEp is not connected");
        }
        dat.provider.support.ConnectArguments.checkDupConnect(timeoutMicros, privateData, qos, ia.limits.maxPrivateData());
        connect(address, qualifier, timeoutMicros, privateData, qos, ConnectFlags.DEFAULT);
    }

    @Override
    public void disconnect(CloseFlag flag) {
        checkOpen();
        if (flag == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "flag", "null");
        }
        connection.disconnect(flag);
    }

    @Override
    public void reset() {
        checkOpen();
        connection.reset();
    }

    /** Whether no DTO of this Endpoint is posted or queued. */
    boolean idle() {
        return sendSlots.outstanding() == 0 && recvSlots.outstanding() == 0;
    }

    // ---- queries -----------------------------------------------------------------------------------

    @Override
    public EpParams query(long epParamMask) {
        checkOpen();
        if (!EpParamMask.isValid(epParamMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "epParamMask", "undefined bits");
        }
        EpConnection c = connection;
        return EpParams.builder().ia(ia).state(c.state()).localIaAddress(new InetSocketAddress(ia.domain.address.getAddress(), 0))
                .localPortQual(c.localQual()).remoteIaAddress(c.remoteAddress()).remotePortQual(c.remoteQual()).pz(pz).recvEvd(recvEvd)
                .requestEvd(requestEvd).connectEvd(connectEvd).srq(srq).attributes(attributes).build();
    }

    @Override
    public void modify(long epParamMask, EpParams params) {
        EpModify.modify(this, epParamMask, params);
    }

    @Override
    public EpStatus getStatus() {
        checkOpen();
        return new EpStatus(connection.state(), recvSlots.outstanding() == 0, sendSlots.outstanding() == 0);
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
        return !freed && connection.isConnected();
    }

    @Override
    public void postSoftWatermarkEvent() {
        ia.postAsync(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, this, AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT);
    }

    @Override
    public void breakForHardWatermark() {
        connection.shutdownAndEnd(EventNumber.CONNECTION_EVENT_BROKEN); // the peer sees FI_SHUTDOWN, as for an abrupt disconnect
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
            connection.checkFreeable();
        } finally {
            ia.cmLock.unlock();
        }
        destroy();
    }

    /** Tears the Endpoint down: its connection is shut down and its endpoint closed, its DTOs flushed. Idempotent. */
    void destroy() {
        ia.cmLock.lock();
        try {
            if (freed) {
                return;
            }
            connection.tearDown();
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
