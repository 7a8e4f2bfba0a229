package dat.provider.verbs.internal;

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
import dat.provider.verbs.internal.ffi.Errno;
import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * A Service Point: an {@code rdma_cm_id} bound to the IA's address and the connection qualifier's
 * TCP port-space port ({@link ConnQual}), listening. A PSP reports every request; an RSP reports one, for its
 * reserved Endpoint, and is destroyed by it.
 */
abstract sealed class VerbsServicePoint extends VerbsHandle implements VerbsIa.CmTarget {

    private static final int BACKLOG = 64;

    final long connQual;
    final VerbsEvd crEvd;
    private final long token;
    private MemorySegment listenId;

    private VerbsServicePoint(VerbsIa ia, HandleType type, int subtype, long requestedQual, VerbsEvd crEvd) {
        super(ia, type, subtype);
        this.crEvd = crEvd;
        this.token = ia.newToken();
        ia.cmLock.lock();
        try (Arena local = Arena.ofConfined()) {
            MemorySegment id = ia.verbs.createId(ia.cmChannel, token);
            try {
                ia.verbs.bindAddr(id, Sockaddr.of(local, ia.port.address(), requestedQual == 0 ? 0 : ConnQual.port(requestedQual)));
                ia.verbs.listen(id, BACKLOG);
            } catch (NativeException e) {
                ia.verbs.destroyId(id);
                throw e;
            }
            this.listenId = id;
            InetSocketAddress bound = Sockaddr.read(id.asSlice(Structs.CM_ID_SRC_ADDR, 128));
            this.connQual = requestedQual != 0 ? requestedQual : bound == null ? 0 : bound.getPort();
            ia.loop.addCmTarget(token, this);
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
        if (e.errno() == Errno.EADDRINUSE) {
            return Codes.exception(DatReturn.CONN_QUAL_IN_USE, DatReturn.NO_SUBTYPE, "connQual",
                    "connection qualifier " + requestedQual + " is in use");
        }
        if (requestedQual != 0 && (e.errno() == Errno.EACCES || e.errno() == Errno.EPERM)) {
            // the pages have no code for a port the process may not bind: for this process the qualifier is invalid
            return Codes.exception(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "connQual", "connection qualifier "
                    + requestedQual + " is a port this process lacks the privilege to listen on");
        }
        return Codes.fromNative(e, "connQual");
    }

    static VerbsPsp psp(VerbsIa ia, long connQual, VerbsEvd crEvd, PspFlag flag) {
        return new VerbsPsp(ia, connQual, crEvd, flag);
    }

    static VerbsRsp rsp(VerbsIa ia, long connQual, VerbsEp ep, VerbsEvd crEvd) {
        ia.cmLock.lock();
        try {
            ep.connection.checkReservable();
            VerbsRsp rsp = new VerbsRsp(ia, connQual, ep, crEvd);
            ep.connection.reserve(rsp);
            return rsp;
        } finally {
            ia.cmLock.unlock();
        }
    }

    /**
     * A connection request arrived (event thread, ia.cmLock held); the CR takes its id over. A
     * Service Point whose CR EVD queue is full (its backlog, dat_psp_create(3DAT)) refuses the
     * request on the provider's behalf: the requester gets {@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED}.
     * An RSP is destroyed by its one request before the request is reported.
     */
    @Override
    public void onCmEvent(int event, int status, MemorySegment id, byte[] privateData) {
        if (event != CmEvents.CONNECT_REQUEST) {
            return;
        }
        if (freed || crEvd.isFull()) {
            CmEvents.rejectByProvider(ia.verbs, id);
            ia.verbs.destroyId(id);
            return;
        }
        InetSocketAddress remote = Sockaddr.read(id.asSlice(Structs.CM_ID_DST_ADDR, 128));
        VerbsEp reserved = this instanceof VerbsRsp rsp ? rsp.ep : null;
        VerbsCr cr = new VerbsCr(ia, this, id, remote, privateData, reserved);
        if (reserved != null) {
            reserved.connection.offer(cr);
            destroy();
            crEvd.postEvent(new DatEvent().setConnectionRequest(crEvd, null, localAddress(), connQual, cr));
        } else {
            crEvd.postEvent(new DatEvent().setConnectionRequest(crEvd, this, localAddress(), connQual, cr));
        }
    }

    InetSocketAddress localAddress() {
        return new InetSocketAddress(ia.port.address(), ConnQual.port(connQual));
    }

    public void close() {
        if (freed || !ia.isUsable()) {
            return;
        }
        ia.cmLock.lock();
        try {
            if (this instanceof VerbsRsp rsp) {
                rsp.ep.connection.unreserve(this);
            }
            destroy();
        } finally {
            ia.cmLock.unlock();
        }
    }

    /** Stops listening; requests already reported stay valid. Idempotent. */
    void destroy() {
        ia.cmLock.lock();
        try {
            if (freed) {
                return;
            }
            freed = true;
            ia.loop.removeCmTarget(token);
            MemorySegment id = listenId;
            listenId = MemorySegment.NULL;
            try {
                ia.verbs.destroyId(id);
            } catch (NativeException e) {
                System.getLogger(VerbsServicePoint.class.getName()).log(System.Logger.Level.WARNING, "rdma_destroy_id failed", e);
            }
            crEvd.users.decrementAndGet();
            ia.servicePoints.remove(this);
        } finally {
            ia.cmLock.unlock();
        }
    }

    static final class VerbsPsp extends VerbsServicePoint implements PublicServicePoint {

        private final PspFlag flag;

        private VerbsPsp(VerbsIa ia, long connQual, VerbsEvd crEvd, PspFlag flag) {
            super(ia, HandleType.PSP, DatReturn.INVALID_HANDLE_PSP, connQual, crEvd);
            this.flag = flag;
        }

        @Override
        public long connQual() {
            return connQual;
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

    static final class VerbsRsp extends VerbsServicePoint implements ReservedServicePoint {

        final VerbsEp ep;

        private VerbsRsp(VerbsIa ia, long connQual, VerbsEp ep, VerbsEvd crEvd) {
            super(ia, HandleType.RSP, DatReturn.INVALID_HANDLE_RSP, connQual, crEvd);
            this.ep = ep;
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
