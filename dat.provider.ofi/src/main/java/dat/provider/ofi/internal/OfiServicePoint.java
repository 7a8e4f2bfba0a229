package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.HandleType;
import dat.api.PspFlag;
import dat.api.PspParamMask;
import dat.api.PspParams;
import dat.api.PublicServicePoint;
import dat.api.ReservedServicePoint;
import dat.api.RspParamMask;
import dat.api.RspParams;
import dat.provider.ofi.internal.ffi.Fabric;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.ofi.internal.ffi.Ops;
import dat.provider.ofi.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * A Service Point: a libfabric passive endpoint ({@code fi_passive_ep}) on the IA's address with
 * the connection qualifier as its port, bound to the IA's event queue and listening. A PSP reports
 * every request, with a Provider-created Endpoint when created with {@code DAT_PSP_PROVIDER}; an
 * RSP reports one, for its reserved Endpoint, and is freed by it (its passive endpoint stays open
 * until the request is accepted or rejected: libfabric rejects through it).
 */
abstract sealed class OfiServicePoint extends OfiHandle implements OfiIa.CmTarget {

    final long connQual;
    final OfiEvd crEvd;
    private final Listener listener;

    private OfiServicePoint(OfiIa ia, HandleType type, int subtype, long requestedQual, OfiEvd crEvd) {
        super(ia, type, subtype);
        this.crEvd = crEvd;
        ia.cmLock.lock();
        try {
            MemorySegment info = ia.domain.infoWithPort((int) requestedQual);
            MemorySegment created;
            try {
                created = Ops.passiveEp(ia.domain.fabricFid, info);
            } finally {
                ia.domain.freeInfo(info);
            }
            try {
                Ops.bind(created, ia.domain.eq, 0);
                Ops.listen(created);
            } catch (NativeException e) {
                Ops.close(created);
                throw e;
            }
            this.listener = new Listener(created);
            this.connQual = requestedQual != 0 ? requestedQual : boundPort(created);
            ia.addCmTarget(created, this);
            ia.servicePoints.add(this);
            crEvd.users.incrementAndGet();
        } catch (NativeException e) {
            throw refused(e, requestedQual);
        } finally {
            ia.cmLock.unlock();
        }
    }

    /** What a listen on a qualifier refused by the system answers: dat_psp_create(3DAT) and dat_rsp_create(3DAT) codes. */
    private static DatException refused(NativeException e, long requestedQual) {
        if (e.error() == Fi.EADDRINUSE) {
            return Codes.exception(DatReturn.CONN_QUAL_IN_USE, DatReturn.NO_SUBTYPE, "connQual",
                    "connection qualifier " + requestedQual + " is in use");
        }
        if (requestedQual != 0 && (e.error() == Fi.EACCES || e.error() == Fi.EPERM)) {
            // the pages have no code for a port the process may not bind: for this process the qualifier is invalid
            return Codes.exception(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "connQual", "connection qualifier "
                    + requestedQual + " is a port this process lacks the privilege to listen on");
        }
        return Codes.fromNative(e, "connQual");
    }

    private static long boundPort(MemorySegment pep) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment name = local.allocate(Sockaddr.MAX_SIZE, 8);
            Ops.getPepName(pep, name);
            InetSocketAddress bound = Sockaddr.read(name);
            return bound == null ? 0 : bound.getPort();
        }
    }

    static OfiPsp psp(OfiIa ia, long connQual, OfiEvd crEvd, PspFlag flag) {
        return new OfiPsp(ia, connQual, crEvd, flag);
    }

    static OfiRsp rsp(OfiIa ia, long connQual, OfiEp ep, OfiEvd crEvd) {
        ia.cmLock.lock();
        try {
            ep.connection.checkReservable();
            OfiRsp rsp = new OfiRsp(ia, connQual, ep, crEvd);
            ep.connection.reserve(rsp);
            return rsp;
        } finally {
            ia.cmLock.unlock();
        }
    }

    /** The passive endpoint while the Service Point listens, else {@code null}. */
    MemorySegment passiveEndpoint() {
        return freed ? null : listener.pep;
    }

    /**
     * A connection request arrived (event thread, ia.cmLock held): reported with a CR that takes
     * its info over, or refused on the provider's behalf where the Service Point cannot take it
     * ({@link #report}): the requester gets {@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED}.
     */
    @Override
    public void onCmEvent(int event, int error, byte[] data, MemorySegment info) {
        if (event != Fi.CONNREQ || info.equals(MemorySegment.NULL)) {
            return;
        }
        MemorySegment destination = info.get(ADDRESS, Structs.INFO_DEST_ADDR);
        long length = info.get(JAVA_LONG, Structs.INFO_DEST_ADDRLEN);
        InetSocketAddress remote = destination.equals(MemorySegment.NULL) || length <= 0 ? null
                : Sockaddr.read(Fabric.sized(destination, length));
        if (!report(listener.retain(), info, remote, PrivateData.unframe(data), PrivateData.pzOf(data), PrivateData.ownerOf(data))) {
            listener.release(); // no CR holds it
            PrivateData.rejectByProvider(listener.pep, info.get(ADDRESS, Structs.INFO_HANDLE));
            ia.domain.freeInfo(info);
        }
    }

    /**
     * Reports a request at this Service Point (ia.cmLock held): a CR that takes {@code info} and
     * one use of {@code listener} over, and its event on the CR EVD. A Service Point that is freed,
     * whose CR EVD queue is full (its backlog, dat_psp_create(3DAT)), or that cannot make the
     * Endpoint the request must carry reports nothing, and the caller refuses the request.
     *
     * @return whether the request was reported
     */
    abstract boolean report(Listener listener, MemorySegment info, InetSocketAddress remote, byte[] privateData, int remotePzId,
            int remoteOwnerId);

    InetSocketAddress localAddress() {
        return new InetSocketAddress(ia.domain.address.getAddress(), (int) connQual);
    }

    public void close() {
        if (freed || !ia.isUsable()) {
            return;
        }
        ia.cmLock.lock();
        try {
            if (this instanceof OfiRsp rsp) {
                rsp.ep.connection.unreserve(this);
            }
            destroy();
        } finally {
            ia.cmLock.unlock();
        }
    }

    /** Frees the Service Point; requests already reported stay valid and keep the passive endpoint. Idempotent. */
    void destroy() {
        ia.cmLock.lock();
        try {
            if (freed) {
                return;
            }
            freed = true;
            ia.removeCmTarget(listener.pep);
            crEvd.users.decrementAndGet();
            ia.servicePoints.remove(this);
            listener.release();
        } finally {
            ia.cmLock.unlock();
        }
    }

    static final class OfiPsp extends OfiServicePoint implements PublicServicePoint {

        private final PspFlag flag;

        private OfiPsp(OfiIa ia, long connQual, OfiEvd crEvd, PspFlag flag) {
            super(ia, HandleType.PSP, DatReturn.INVALID_HANDLE_PSP, connQual, crEvd);
            this.flag = flag;
        }

        @Override
        public long connQual() {
            return connQual;
        }

        /** A request arrives or is handed off here: with a Provider-created Endpoint where the PSP asks for one. */
        @Override
        boolean report(Listener listener, MemorySegment info, InetSocketAddress remote, byte[] privateData, int remotePzId,
                int remoteOwnerId) {
            if (freed || crEvd.isFull()) {
                return false;
            }
            OfiEp provided = null;
            if (flag == PspFlag.PROVIDER) {
                provided = OfiEp.provided(ia);
                if (provided == null) {
                    return false; // no Endpoint to carry the request (max_eps)
                }
            }
            OfiCr cr = new OfiCr(ia, connQual, listener, info, remote, privateData, remotePzId, remoteOwnerId, provided);
            if (provided != null) {
                provided.connection.offerTentatively(cr);
            }
            crEvd.postEvent(new DatEvent().setConnectionRequest(crEvd, this, localAddress(), connQual, cr));
            return true;
        }

        @Override
        public PspParams query(int pspParamMask) {
            checkOpen();
            if (!PspParamMask.isValid(pspParamMask)) {
                throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "pspParamMask", "undefined bits");
            }
            return new PspParams(ia, connQual, crEvd, flag);
        }
    }

    static final class OfiRsp extends OfiServicePoint implements ReservedServicePoint {

        final OfiEp ep;

        private OfiRsp(OfiIa ia, long connQual, OfiEp ep, OfiEvd crEvd) {
            super(ia, HandleType.RSP, DatReturn.INVALID_HANDLE_RSP, connQual, crEvd);
            this.ep = ep;
        }

        /** Its one request: the RSP is spent, and its Endpoint is offered with the request. */
        @Override
        boolean report(Listener listener, MemorySegment info, InetSocketAddress remote, byte[] privateData, int remotePzId,
                int remoteOwnerId) {
            if (freed || crEvd.isFull()) {
                return false;
            }
            OfiCr cr = new OfiCr(ia, connQual, listener, info, remote, privateData, remotePzId, remoteOwnerId, ep);
            destroy(); // its handle is freed; the CR holds the passive endpoint
            ep.connection.offer(cr);
            crEvd.postEvent(new DatEvent().setConnectionRequest(crEvd, null, localAddress(), connQual, cr));
            return true;
        }

        @Override
        public RspParams query(int rspParamMask) {
            checkOpen();
            if (!RspParamMask.isValid(rspParamMask)) {
                throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "rspParamMask", "undefined bits");
            }
            return new RspParams(ia, connQual, crEvd, ep);
        }
    }
}
