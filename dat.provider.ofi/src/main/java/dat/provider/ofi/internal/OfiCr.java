package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dat.api.ConnectionRequest;
import dat.api.CrParamMask;
import dat.api.CrParams;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.HandleType;
import dat.provider.ofi.internal.ffi.Structs;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * A pending Connection Request: the {@code struct fi_info} libfabric's {@code FI_CONNREQ} entry
 * carried (its {@code handle} is the request), until the consumer accepts (an Endpoint makes its
 * libfabric endpoint from it), rejects ({@code fi_reject}) or hands it off. The info is freed when
 * the request is settled; the passive endpoint it came through is held until then.
 */
final class OfiCr extends OfiHandle implements ConnectionRequest {

    private Listener listener;
    private MemorySegment info;
    final InetSocketAddress remoteAddress;
    private final byte[] privateData;
    /** The requester's PZ number, from its private data ({@link PrivateData}). */
    final int remotePzId;
    /** The requester's owner id: not 0 when it will confirm an accept. */
    final int remoteOwnerId;
    /** The Endpoint the request carries (dat_cr_query(3DAT)): an RSP's, or a Provider-created one; else {@code null}. */
    final OfiEp localEp;
    /** The qualifier of the Service Point the request is reported on: a handoff names another. */
    private final long connQual;

    OfiCr(OfiIa ia, long connQual, Listener listener, MemorySegment info, InetSocketAddress remoteAddress, byte[] privateData,
            int remotePzId, int remoteOwnerId, OfiEp localEp) {
        super(ia, HandleType.CR, DatReturn.INVALID_HANDLE_CR);
        this.connQual = connQual;
        this.listener = listener;
        this.info = info;
        this.remoteAddress = remoteAddress;
        this.privateData = privateData;
        this.remotePzId = remotePzId;
        this.remoteOwnerId = remoteOwnerId;
        this.localEp = localEp;
        ia.crs.add(this);
    }

    @Override
    public CrParams query(int crParamMask) {
        checkOpen();
        if (!CrParamMask.isValid(crParamMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "crParamMask", "undefined bits");
        }
        return new CrParams(remoteIaAddress(), remotePortQual(), privateData.clone(), localEp);
    }

    /** The requester's IA address (its IP, port 0: IA addresses carry no port). */
    InetSocketAddress remoteIaAddress() {
        return remoteAddress == null ? null : new InetSocketAddress(remoteAddress.getAddress(), 0);
    }

    /** The requester's port qualifier: the source port of its connection. */
    long remotePortQual() {
        return remoteAddress == null ? 0 : remoteAddress.getPort();
    }

    private MemorySegment handle() {
        return info.get(ADDRESS, Structs.INFO_HANDLE);
    }

    @Override
    public void accept(Endpoint ep, byte[] data) {
        checkOpen();
        if (data != null && data.length > ia.limits.maxPrivateData()) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "privateData",
                    data.length + " bytes, at most " + ia.limits.maxPrivateData());
        }
        OfiEp target = ep == null ? localEp : OfiEp.check(ia, ep, "ep");
        if (target == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "ep", "no Endpoint given and none provided");
        }
        if (localEp != null && target != localEp) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "ep", "the request must be accepted on the Endpoint it carries");
        }
        ia.cmLock.lock();
        try {
            checkOpen();
            target.connection.checkCanAccept(this);
            freed = true;
            ia.crs.remove(this);
            boolean taken;
            try {
                taken = target.connection.acceptOn(this, info, data);
            } catch (RuntimeException e) {
                PrivateData.rejectByProvider(listener.pep, handle());
                settle();
                throw e;
            }
            if (!taken) {
                PrivateData.rejectByProvider(listener.pep, handle());
            }
            settle();
        } finally {
            ia.cmLock.unlock();
        }
    }

    /** Frees the request's info and lets go of the passive endpoint (ia.cmLock held). */
    private void settle() {
        ia.domain.freeInfo(info);
        info = MemorySegment.NULL;
        listener.release();
    }

    @Override
    public void reject() {
        checkOpen();
        destroy();
    }

    @Override
    public void handoff(long handoffQual) {
        checkOpen();
        if (handoffQual == connQual) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "handoff",
                    "the request is on qualifier " + connQual + " already: hand it off to another (dat_cr_handoff)");
        }
        ia.cmLock.lock();
        try {
            checkOpen();
            for (OfiServicePoint sp : ia.servicePoints) {
                if (sp.connQual == handoffQual && sp instanceof OfiServicePoint.OfiPsp psp && sp.isOpen()) {
                    // this handle is spent (dat_cr_handoff); the Endpoint it carried goes back as at a reject
                    freed = true;
                    ia.crs.remove(this);
                    releaseLocalEp();
                    if (psp.report(listener, info, remoteAddress, privateData, remotePzId, remoteOwnerId)) {
                        info = MemorySegment.NULL; // the request and the passive endpoint are the new CR's
                    } else {
                        // refused on the provider's behalf, as a request arriving at that PSP would be
                        PrivateData.rejectByProvider(listener.pep, handle());
                        settle();
                    }
                    return;
                }
            }
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "handoff", "no PSP of this IA listens on " + handoffQual);
        } finally {
            ia.cmLock.unlock();
        }
    }

    @Override
    public void close() {
        if (!freed && ia.isUsable()) {
            destroy();
        }
    }

    /**
     * The Endpoint the request carried goes back (ia.cmLock held): an RSP's to the consumer,
     * unconnected; a Provider-created one to the provider, which frees it (dat_cr_reject(3DAT)).
     */
    private void releaseLocalEp() {
        if (localEp != null) {
            localEp.connection.withdrawOffer(this);
            if (localEp.connection.isProvided()) {
                localEp.destroy();
            }
        }
    }

    /** Rejects a pending request and frees it; idempotent. */
    void destroy() {
        ia.cmLock.lock();
        try {
            if (freed) {
                return;
            }
            freed = true;
            ia.crs.remove(this);
            releaseLocalEp();
            PrivateData.reject(listener.pep, handle());
            settle();
        } finally {
            ia.cmLock.unlock();
        }
    }
}
