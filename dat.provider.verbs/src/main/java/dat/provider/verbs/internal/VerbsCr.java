package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dat.api.ConnectionRequest;
import dat.api.CrParamMask;
import dat.api.CrParams;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.HandleType;
import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * A pending Connection Request: the {@code rdma_cm_id} rdma_cm made for the request, until the
 * consumer accepts (the Endpoint takes the id over), rejects ({@code rdma_reject}) or hands it off.
 */
final class VerbsCr extends VerbsHandle implements ConnectionRequest, VerbsIa.CmTarget {

    private VerbsServicePoint servicePoint;
    private MemorySegment id;
    final InetSocketAddress remoteAddress;
    private final byte[] privateData;
    final VerbsEp reservedEp;
    /** The requester went away before an accept: rdma_cm reported the CM's reject or an error on the id. */
    private boolean requesterGone;
    /** The request id's rdma_cm context while the CR holds it: its later events come here. */
    private final long token;

    VerbsCr(VerbsIa ia, VerbsServicePoint servicePoint, MemorySegment id, InetSocketAddress remoteAddress, byte[] privateData,
            VerbsEp reservedEp) {
        super(ia, HandleType.CR, DatReturn.INVALID_HANDLE_CR);
        this.servicePoint = servicePoint;
        this.id = id;
        this.remoteAddress = remoteAddress;
        this.privateData = privateData;
        this.reservedEp = reservedEp;
        this.token = ia.newToken();
        id.set(ADDRESS, Structs.CM_ID_CONTEXT, MemorySegment.ofAddress(token));
        ia.loop.addCmTarget(token, this);
        ia.crs.add(this);
    }

    /**
     * An event on the request's id before an accept (event thread, ia.cmLock held): a reject (the
     * requester's connect timed out or was abandoned, and destroying its id sent the CM's reject)
     * or an error means the requester is gone, and a later accept cannot connect.
     */
    @Override
    public void onCmEvent(int event, int status, MemorySegment eventId, byte[] data) {
        if (!freed && eventId.equals(id) && (event == CmEvents.REJECTED || event == CmEvents.CONNECT_ERROR
                || event == CmEvents.UNREACHABLE || event == CmEvents.DISCONNECTED)) {
            requesterGone = true;
        }
    }

    @Override
    public CrParams query(int crParamMask) {
        checkOpen();
        if (!CrParamMask.isValid(crParamMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "crParamMask", "undefined bits");
        }
        return new CrParams(remoteIaAddress(), remotePortQual(), privateData, reservedEp);
    }

    /** The requester's IA address (its IP, port 0: IA addresses carry no port). */
    InetSocketAddress remoteIaAddress() {
        return remoteAddress == null ? null : new InetSocketAddress(remoteAddress.getAddress(), 0);
    }

    /** The requester's port qualifier: its rdma_cm source port. */
    long remotePortQual() {
        return remoteAddress == null ? 0 : remoteAddress.getPort();
    }

    @Override
    public void accept(Endpoint ep, byte[] data) {
        checkOpen();
        if (data != null && data.length > CmEvents.REQUEST_PRIVATE_DATA) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "privateData",
                    data.length + " bytes, at most " + CmEvents.REQUEST_PRIVATE_DATA);
        }
        VerbsEp target = ep == null ? reservedEp : VerbsEp.check(ia, ep, "ep");
        if (target == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "ep", "no Endpoint given and none provided");
        }
        if (reservedEp != null && target != reservedEp) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "ep", "the request came through an RSP for another Endpoint");
        }
        ia.cmLock.lock();
        try {
            checkOpen();
            target.connection.checkCanAccept(this);
            freed = true;
            ia.crs.remove(this);
            ia.loop.removeCmTarget(token);
            MemorySegment requestId = id;
            id = MemorySegment.NULL;
            boolean taken;
            try {
                taken = target.connection.acceptOn(this, requestId, data, requesterGone);
            } catch (RuntimeException e) {
                CmEvents.rejectByProvider(ia.verbs, requestId);
                ia.verbs.destroyId(requestId);
                throw e;
            }
            if (!taken) {
                if (!requesterGone) {
                    CmEvents.rejectByProvider(ia.verbs, requestId);
                }
                ia.verbs.destroyId(requestId);
            }
        } finally {
            ia.cmLock.unlock();
        }
    }

    @Override
    public void reject() {
        checkOpen();
        destroy(true);
    }

    @Override
    public void handoff(long handoffQual) {
        checkOpen();
        if (handoffQual == servicePoint.connQual) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "handoff",
                    "the request is on qualifier " + handoffQual + " already: hand it off to another (dat_cr_handoff)");
        }
        ia.cmLock.lock();
        try {
            checkOpen();
            for (VerbsServicePoint sp : ia.servicePoints) {
                if (sp.connQual == handoffQual && sp instanceof VerbsServicePoint.VerbsPsp psp && sp.isOpen()) {
                    // the request moves to a new CR of the other PSP; this handle is spent (dat_cr_handoff)
                    VerbsCr moved = new VerbsCr(ia, psp, id, remoteAddress, privateData, null);
                    freed = true;
                    ia.crs.remove(this);
                    ia.loop.removeCmTarget(token);
                    id = MemorySegment.NULL;
                    releaseReservedEp(); // an RSP's Endpoint goes back to the consumer, as at a reject
                    psp.crEvd.postEvent(new DatEvent().setConnectionRequest(psp.crEvd, psp, psp.localAddress(), handoffQual, moved));
                    return;
                }
            }
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "handoff", "no PSP of this IA listens on " + handoffQual);
        } finally {
            ia.cmLock.unlock();
        }
    }

    VerbsServicePoint servicePoint() {
        return servicePoint;
    }

    /** The Endpoint an RSP offered with this request is the consumer's again, unconnected (ia.cmLock held). */
    private void releaseReservedEp() {
        if (reservedEp != null) {
            reservedEp.connection.withdrawOffer(this);
        }
    }

    @Override
    public void close() {
        if (!freed && ia.isUsable()) {
            destroy(true);
        }
    }

    /**
     * Rejects a pending request and frees its id; idempotent.
     *
     * @param byConsumer whether the consumer rejects ({@code dat_cr_reject}, a CR closed while
     *     pending: the reject carries OFED's version header, and the requester reports
     *     {@code PEER_REJECTED}) or the provider (its IA closes: {@code NON_PEER_REJECTED})
     */
    void destroy(boolean byConsumer) {
        ia.cmLock.lock();
        try {
            if (freed) {
                return;
            }
            freed = true;
            ia.crs.remove(this);
            ia.loop.removeCmTarget(token);
            releaseReservedEp();
            if (byConsumer) {
                try {
                    CmEvents.rejectByConsumer(ia.verbs, id);
                } catch (NativeException ignored) {
                    // the requester times out instead
                }
            } else {
                CmEvents.rejectByProvider(ia.verbs, id);
            }
            try {
                ia.verbs.destroyId(id);
            } catch (NativeException e) {
                System.getLogger(VerbsCr.class.getName()).log(System.Logger.Level.WARNING, "rdma_destroy_id failed", e);
            }
            id = MemorySegment.NULL;
        } finally {
            ia.cmLock.unlock();
        }
    }
}
