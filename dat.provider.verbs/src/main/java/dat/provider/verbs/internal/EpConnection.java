package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dat.api.CloseFlag;
import dat.api.ConnectFlags;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.Qos;
import dat.provider.support.ConnectArguments;
import dat.provider.verbs.internal.ffi.Errno;
import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;

/**
 * The connection side of an Endpoint: rdma_cm in its manual QP mode. The active side resolves
 * the address and route, connects, and on {@code RDMA_CM_EVENT_CONNECT_RESPONSE} moves the QP to
 * RTR and RTS with the attributes {@code rdma_init_qp_attr} computes, then establishes; the
 * passive side moves the QP before {@code rdma_accept}, on the request's own id (which lets an
 * Endpoint that exists before a request accept it). Events of the Endpoint's {@code rdma_cm_id}
 * arrive here ({@link VerbsIa.CmTarget}) on the IA's event thread, {@code ia.cmLock} held; the
 * Endpoint's state lives in {@link VerbsEp}, and every change of it happens under that lock.
 */
final class EpConnection implements VerbsIa.CmTarget {

    private final VerbsEp ep;
    private final VerbsIa ia;
    /** The rdma_cm context of this Endpoint's ids: its events come here. */
    private final long cmToken;
    // written under ia.cmLock, read anywhere
    MemorySegment cmId = MemorySegment.NULL;
    private int resolveTimeoutMs;
    private byte[] connectPrivateData;
    /** The DAT connect timeout of a pending connect, if finite. */
    private IaTimers.Timer connectTimer;
    /** Whether the pending connect's request went out (rdma_connect, after route resolution). */
    private boolean requestSent;
    volatile InetSocketAddress remoteAddress;
    volatile long remoteQual;
    volatile long localQual;
    // written and read under ia.cmLock
    /** The RSP that reserves the Endpoint, or {@code null}. */
    private VerbsServicePoint reservedBy;
    /** The Connection Request an RSP offered the Endpoint with, or {@code null}. */
    private VerbsCr offeredTo;

    private static final int IBV_QPS_RTR = 2;
    private static final int IBV_QPS_RTS = 3;

    EpConnection(VerbsEp ep) {
        this.ep = ep;
        this.ia = ep.ia;
        this.cmToken = ia.newToken();
    }

    void connect(InetSocketAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
            int qos, int connectFlags) {
        ep.checkOpen();
        ConnectArguments.checkRemoteAddress(remoteIaAddress);
        ConnQual.check(remoteConnQual, DatReturn.INVALID_ARG3, "remoteConnQual");
        if (!DatConstants.isValidTimeout(timeoutMicros) || timeoutMicros == 0) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG4, "timeoutMicros", "must be positive, was " + timeoutMicros);
        }
        if (privateData != null && privateData.length > CmEvents.REQUEST_PRIVATE_DATA) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG5, "privateData",
                    privateData.length + " bytes, at most " + CmEvents.REQUEST_PRIVATE_DATA);
        }
        if (!Qos.isValid(qos)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG7, "qos", "undefined bits");
        }
        if (qos != Qos.BEST_EFFORT) {
            throw Codes.exception(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "qos", "only BEST_EFFORT");
        }
        if (!ConnectFlags.isValid(connectFlags)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG8, "connectFlags", "undefined bits");
        }
        if (connectFlags != ConnectFlags.DEFAULT) {
            throw Codes.exception(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "connectFlags", "no multipath");
        }
        if (!routable(ia.port.address(), remoteIaAddress.getAddress())) {
            throw Codes.exception(DatReturn.INVALID_ADDRESS, DatReturn.INVALID_ADDRESS_UNREACHABLE, "remoteIaAddress",
                    "no route from " + ia.port.address().getHostAddress() + " to " + remoteIaAddress.getAddress().getHostAddress());
        }
        ia.cmLock.lock();
        try {
            ep.checkOpen();
            if (ep.state() != EpState.UNCONNECTED) {
                throw Codes.epStateException(ep.state(), "connect needs an unconnected Endpoint");
            }
            resolveTimeoutMs = timeoutMicros == DatConstants.TIMEOUT_INFINITE ? 5000
                    : (int) Math.max(1, Math.min(60_000, timeoutMicros / 1000));
            connectPrivateData = privateData == null ? null : privateData.clone();
            MemorySegment id = ia.verbs.createId(ia.cmChannel, cmToken);
            ia.loop.addCmTarget(cmToken, this);
            cmId = id;
            remoteAddress = remoteIaAddress;
            remoteQual = remoteConnQual;
            ep.setState(EpState.ACTIVE_CONNECTION_PENDING);
            requestSent = false;
            try (Arena local = Arena.ofConfined()) {
                ia.verbs.resolveAddr(id, Sockaddr.of(local, ia.port.address(), 0),
                        Sockaddr.of(local, remoteIaAddress.getAddress(), ConnQual.port(remoteConnQual)), resolveTimeoutMs);
            } catch (NativeException e) {
                dropCmId();
                ep.setState(EpState.UNCONNECTED);
                throw e.errno() == Errno.EINVAL || e.errno() == Errno.EADDRNOTAVAIL
                        ? Codes.exception(DatReturn.INVALID_ADDRESS, DatReturn.INVALID_ADDRESS_UNREACHABLE, "remoteIaAddress",
                                e.getMessage())
                        : Codes.fromNative(e, "remoteIaAddress");
            }
            if (timeoutMicros != DatConstants.TIMEOUT_INFINITE) {
                // rdma_cm's own timers are the CM protocol's (seconds, retried); the DAT timeout is the provider's
                connectTimer = ia.loop.schedule(timeoutMicros * 1000, () -> connectTimedOut(id));
            }
        } catch (NativeException e) {
            throw Codes.fromNative(e, "ep");
        } finally {
            ia.cmLock.unlock();
        }
    }

    /**
     * Whether the IP stack has a route from the IA's address to {@code remote}: the routing that
     * rdma_cm resolves RoCE and IPoIB addresses with. Asked first because rdma_cm, bound to the
     * IA's device, does not fail a destination without a route: Linux's route lookup with an output
     * device then takes the destination for on-link, so the request would go out on the link where
     * no host answers, and the connect end only with a timeout. A destination the IA cannot route
     * to is one the provider "can locally determine" unreachable: {@code DAT_INVALID_ADDRESS}
     * (dat_ep_connect(3DAT)). A probe that cannot be made (no UDP socket) decides nothing.
     */
    private static boolean routable(InetAddress local, InetAddress remote) {
        StandardProtocolFamily family = remote instanceof Inet6Address ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
        try (DatagramChannel probe = DatagramChannel.open(family)) {
            probe.bind(new InetSocketAddress(local, 0));
            try {
                probe.connect(new InetSocketAddress(remote, 9)); // a UDP connect only looks the route up
            } catch (SocketException e) {
                return false; // ENETUNREACH, EHOSTUNREACH
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    void dupConnect(Endpoint dupEp, long timeoutMicros, byte[] privateData, int qos) {
        ep.checkOpen();
        VerbsEp other = VerbsEp.check(ia, dupEp, "dupEp");
        InetSocketAddress address = other.connection.remoteAddress; // with its qualifier, before a reset clears both
        long qualifier = other.connection.remoteQual;
        if (other.state() != EpState.CONNECTED || address == null) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_EP_UNCONNECTED, "dupEp is not connected");
        }
        dat.provider.support.ConnectArguments.checkDupConnect(timeoutMicros, privateData, qos, CmEvents.REQUEST_PRIVATE_DATA);
        connect(address, qualifier, timeoutMicros, privateData, qos, ConnectFlags.DEFAULT);
    }

    // ---- reservation by an RSP (ia.cmLock held) ----------------------------------------------------

    /** Throws unless an RSP may reserve the Endpoint. */
    void checkReservable() {
        if (ep.state() != EpState.UNCONNECTED || reservedBy != null) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_EP_UNCONNECTED, "the Endpoint is not unconnected");
        }
    }

    void reserve(VerbsServicePoint rsp) {
        reservedBy = rsp;
        ep.setState(EpState.RESERVED);
    }

    /** The reserving RSP's request arrived: the Endpoint is offered with {@code cr}. */
    void offer(VerbsCr cr) {
        ep.setState(EpState.PASSIVE_CONNECTION_PENDING);
        offeredTo = cr;
        reservedBy = null;
    }

    /** The RSP {@code rsp} went away: the Endpoint is the consumer's again, unconnected, if it still reserved it. */
    void unreserve(VerbsServicePoint rsp) {
        if (reservedBy == rsp) {
            reservedBy = null;
            ep.setState(EpState.UNCONNECTED);
        }
    }

    /** The request {@code cr} went away unaccepted: the Endpoint is the consumer's again, unconnected, if it was offered with it. */
    void withdrawOffer(VerbsCr cr) {
        if (offeredTo == cr) {
            offeredTo = null;
            ep.setState(EpState.UNCONNECTED);
        }
    }

    /** Throws unless the consumer may free the Endpoint: neither an RSP nor a Connection Request holds it. */
    void checkFreeable() {
        EpState s = ep.state();
        if (s == EpState.RESERVED || reservedBy != null) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_EP_RESERVED, "an RSP reserves the Endpoint");
        }
        if (s == EpState.PASSIVE_CONNECTION_PENDING || offeredTo != null) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_EP_PASSCONNPENDING, "a Connection Request holds the Endpoint");
        }
    }

    // ---- accept ---------------------------------------------------------------------------------------

    /** Throws unless this Endpoint may accept the request (ia.cmLock held). */
    void checkCanAccept(VerbsCr cr) {
        ep.checkOpen();
        checkAcceptable(cr);
    }

    private void checkAcceptable(VerbsCr cr) {
        EpState s = ep.state();
        boolean reservedForThis = s == EpState.RESERVED && cr.reservedEp == ep;
        boolean offered = s == EpState.PASSIVE_CONNECTION_PENDING && offeredTo == cr;
        if (s != EpState.UNCONNECTED && !reservedForThis && !offered) {
            throw Codes.epStateException(s, "the Endpoint cannot take this request");
        }
    }

    /**
     * Accepts a connection request on this Endpoint (called by the CR with ia.cmLock held, after
     * {@link #checkCanAccept}). When the requester is known to be gone (its connect timed out or
     * was abandoned: the CM's reject reached the request's id), or the QP transition or
     * {@code rdma_accept} fails, the accept does not connect: the Endpoint is disconnected and gets
     * {@code DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR} (dat_cr_accept(3DAT)), as when the
     * requester goes away after the accept.
     *
     * @return whether the Endpoint took the request's id over; if not, the CR disposes of it
     */
    boolean acceptOn(VerbsCr cr, MemorySegment requestId, byte[] privateData, boolean requesterGone) {
        checkAcceptable(cr);
        try (Arena local = Arena.ofConfined()) {
            remoteAddress = cr.remoteIaAddress();
            remoteQual = cr.remotePortQual();
            localQual = localPort(requestId);
            if (requesterGone) {
                failConnection(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, null);
                return false;
            }
            requestId.set(ADDRESS, Structs.CM_ID_CONTEXT, MemorySegment.ofAddress(cmToken));
            ia.loop.addCmTarget(cmToken, this);
            cmId = requestId;
            toRtrRts(requestId, local);
            MemorySegment param = connParam(local, privateData);
            ep.setState(EpState.COMPLETION_PENDING);
            ia.verbs.accept(requestId, param);
            return true;
        } catch (NativeException e) {
            System.getLogger(EpConnection.class.getName()).log(System.Logger.Level.DEBUG, "accept failed", e);
            ia.loop.removeCmTarget(cmToken);
            cmId = MemorySegment.NULL;
            failConnection(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, null);
            return false;
        } finally {
            reservedBy = null;
            offeredTo = null;
        }
    }

    /** The local rdma_cm port of a connection: the Endpoint's local port qualifier. */
    private static long localPort(MemorySegment id) {
        InetSocketAddress source = Sockaddr.read(id.asSlice(Structs.CM_ID_SRC_ADDR, 128));
        return source == null ? 0 : source.getPort();
    }

    private MemorySegment connParam(Arena local, byte[] privateData) {
        MemorySegment param = local.allocate(Structs.RDMA_CONN_PARAM);
        MemorySegment data = local.allocate(CmEvents.REQUEST_PRIVATE_DATA);
        int length = CmEvents.copy(privateData, data);
        param.set(ADDRESS, Structs.CONN_PRIVATE_DATA, length == 0 ? MemorySegment.NULL : data);
        param.set(JAVA_BYTE, Structs.CONN_PRIVATE_DATA_LEN, (byte) length);
        param.set(JAVA_BYTE, Structs.CONN_RESPONDER_RESOURCES, (byte) ep.attributes().maxRdmaReadIn());
        param.set(JAVA_BYTE, Structs.CONN_INITIATOR_DEPTH, (byte) ep.attributes().maxRdmaReadOut());
        param.set(JAVA_BYTE, Structs.CONN_RETRY_COUNT, (byte) 7);
        param.set(JAVA_BYTE, Structs.CONN_RNR_RETRY_COUNT, (byte) 7);
        param.set(JAVA_BYTE, Structs.CONN_SRQ, (byte) (ep.srq != null ? 1 : 0));
        param.set(JAVA_INT, Structs.CONN_QP_NUM, ep.qpNum());
        return param;
    }

    private void toRtrRts(MemorySegment id, Arena local) {
        MemorySegment attr = local.allocate(Structs.IBV_QP_ATTR);
        attr.set(JAVA_INT, Structs.QP_ATTR_QP_STATE, IBV_QPS_RTR);
        ia.verbs.modifyQp(ep.qp(), attr, ia.verbs.initQpAttr(id, attr));
        attr.fill((byte) 0);
        attr.set(JAVA_INT, Structs.QP_ATTR_QP_STATE, IBV_QPS_RTS);
        ia.verbs.modifyQp(ep.qp(), attr, ia.verbs.initQpAttr(id, attr));
    }

    @Override
    public void onCmEvent(int event, int status, MemorySegment id, byte[] privateData) {
        if (ep.freed || !id.equals(cmId)) {
            return;
        }
        try (Arena local = Arena.ofConfined()) {
            switch (event) {
                case CmEvents.ADDR_RESOLVED -> {
                    localQual = localPort(id); // the source port is bound now; the peer's CR reports it
                    ia.verbs.resolveRoute(id, resolveTimeoutMs);
                }
                case CmEvents.ROUTE_RESOLVED -> {
                    ia.verbs.connect(id, connParam(local, connectPrivateData));
                    requestSent = true;
                }
                case CmEvents.CONNECT_RESPONSE -> {
                    cancelConnectTimer();
                    localQual = localPort(id);
                    toRtrRts(id, local);
                    ia.verbs.establish(id);
                    ep.setState(EpState.CONNECTED);
                    post(EventNumber.CONNECTION_EVENT_ESTABLISHED, privateData);
                    ep.breakIfOverHardWatermark(); // "ready to generate a connection broken event as soon as the connection is established"
                }
                case CmEvents.ESTABLISHED -> {
                    if (ep.state() == EpState.COMPLETION_PENDING) {
                        ep.setState(EpState.CONNECTED);
                        post(EventNumber.CONNECTION_EVENT_ESTABLISHED, null);
                        ep.breakIfOverHardWatermark();
                    }
                }
                case CmEvents.REJECTED -> failConnection(ep.state() == EpState.COMPLETION_PENDING
                        ? EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR
                        : status == CmEvents.REJECT_CONSUMER ? EventNumber.CONNECTION_EVENT_PEER_REJECTED
                        : EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, privateData);
                // no address or route: the remote host could not be reached (an ARP timeout included)
                case CmEvents.ADDR_ERROR, CmEvents.ROUTE_ERROR -> failConnection(EventNumber.CONNECTION_EVENT_UNREACHABLE, null);
                // the CM request went unanswered through all of rdma_cm's retries
                case CmEvents.UNREACHABLE -> failConnection(status == -Errno.ETIMEDOUT ? EventNumber.CONNECTION_EVENT_TIMED_OUT
                        : EventNumber.CONNECTION_EVENT_UNREACHABLE, null);
                case CmEvents.CONNECT_ERROR -> failConnection(ep.state() == EpState.CONNECTED
                        ? EventNumber.CONNECTION_EVENT_BROKEN
                        : ep.state() == EpState.COMPLETION_PENDING ? EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR
                        : EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, null);
                case CmEvents.DISCONNECTED -> {
                    ep.toError();
                    EpState before = ep.state();
                    if (before == EpState.CONNECTED) {
                        try {
                            ia.verbs.disconnect(id);
                        } catch (NativeException ignored) {
                            // the peer's request already ended the connection
                        }
                    }
                    ep.setState(EpState.DISCONNECTED);
                    if (before == EpState.CONNECTED || before == EpState.DISCONNECT_PENDING) {
                        post(EventNumber.CONNECTION_EVENT_DISCONNECTED, null);
                    }
                }
                case CmEvents.DEVICE_REMOVAL -> ia.postAsync(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC, ia,
                        dat.api.AsyncErrorReason.IA_CATASTROPHIC_ERROR);
                default -> {
                    // TIMEWAIT_EXIT and others need nothing
                }
            }
        } catch (NativeException e) {
            failConnection(ep.state() == EpState.CONNECTED ? EventNumber.CONNECTION_EVENT_BROKEN
                    : EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, null);
        }
    }

    /**
     * The DAT connect timeout expired while connecting (event thread, ia.cmLock held): the attempt
     * is cancelled (destroying the rdma_cm id sends the CM's reject to the passive side, whose
     * later accept then fails) and the Endpoint disconnected. {@code DAT_CONNECTION_EVENT_TIMED_OUT}
     * once the request went out; {@code UNREACHABLE} while the address or route was still being
     * resolved (the remote host did not answer within the timeout, dat_ep_connect(3DAT)).
     */
    private void connectTimedOut(MemorySegment id) {
        if (ep.freed || !id.equals(cmId) || ep.state() != EpState.ACTIVE_CONNECTION_PENDING) {
            return;
        }
        connectTimer = null;
        int eventNumber = requestSent ? EventNumber.CONNECTION_EVENT_TIMED_OUT : EventNumber.CONNECTION_EVENT_UNREACHABLE;
        ep.toError();
        dropCmId();
        ep.setState(EpState.DISCONNECTED);
        post(eventNumber, null);
    }

    private void cancelConnectTimer() {
        IaTimers.Timer timer = connectTimer;
        if (timer != null) {
            connectTimer = null;
            ia.loop.cancel(timer);
        }
    }

    private void failConnection(int eventNumber, byte[] privateData) {
        cancelConnectTimer();
        ep.toError();
        ep.setState(EpState.DISCONNECTED);
        post(eventNumber, privateData);
    }

    void post(int eventNumber, byte[] privateData) {
        VerbsEvd evd = ep.connectEvd();
        if (evd != null) {
            evd.postEvent(new DatEvent().setConnectionEvent(eventNumber, evd, ep, privateData));
        }
    }

    void dropCmId() {
        cancelConnectTimer();
        if (!cmId.equals(MemorySegment.NULL)) {
            ia.loop.removeCmTarget(cmToken);
            MemorySegment id = cmId;
            cmId = MemorySegment.NULL;
            try {
                ia.verbs.destroyId(id);
            } catch (NativeException e) {
                System.getLogger(EpConnection.class.getName()).log(System.Logger.Level.WARNING, "rdma_destroy_id failed", e);
            }
        }
    }

    void disconnect(CloseFlag flag) {
        ep.checkOpen();
        if (flag == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "flag", "null");
        }
        ia.cmLock.lock();
        try {
            ep.checkOpen();
            switch (ep.state()) {
                case CONNECTED -> {
                    ep.setState(EpState.DISCONNECT_PENDING);
                    ep.toError();
                    try {
                        ia.verbs.disconnect(cmId);
                    } catch (NativeException e) {
                        ep.setState(EpState.DISCONNECTED);
                        post(EventNumber.CONNECTION_EVENT_DISCONNECTED, null);
                    }
                }
                case ACTIVE_CONNECTION_PENDING, COMPLETION_PENDING -> {
                    ep.toError();
                    dropCmId();
                    ep.setState(EpState.DISCONNECTED);
                    post(EventNumber.CONNECTION_EVENT_DISCONNECTED, null);
                }
                case DISCONNECT_PENDING, DISCONNECTED -> {
                    // already on its way down
                }
                default -> throw Codes.epStateException(ep.state(),
                        "nothing to disconnect in state " + ep.state());
            }
        } finally {
            ia.cmLock.unlock();
        }
    }

    void reset() {
        ep.checkOpen();
        ia.cmLock.lock();
        try {
            ep.checkOpen();
            if (ep.state() == EpState.UNCONNECTED) {
                return;
            }
            if (ep.state() != EpState.DISCONNECTED) {
                throw Codes.epStateException(ep.state(), "reset needs a disconnected Endpoint");
            }
            dropCmId();
            ep.resetQp();
            remoteAddress = null;
            ep.setState(EpState.UNCONNECTED);
        } finally {
            ia.cmLock.unlock();
        }
    }
}
