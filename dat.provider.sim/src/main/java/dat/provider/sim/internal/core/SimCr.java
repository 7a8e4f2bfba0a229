package dat.provider.sim.internal.core;

import dat.api.ConnectionRequest;
import dat.api.CrParamMask;
import dat.api.CrParams;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.HandleType;

/**
 * A pending Connection Request: dat_cr_query(3DAT), dat_cr_accept(3DAT), dat_cr_reject(3DAT),
 * dat_cr_handoff(3DAT). Accept, reject and handoff each destroy it.
 */
final class SimCr extends SimHandle implements ConnectionRequest {

    private final SimIa ia;
    private final SimPsp psp;
    private final ConnectAttempt attempt;
    /** The Endpoint the Service Point provides: the RSP's, or the PSP's provider-created one. */
    private final SimEndpoint localEp;
    private final long connQual;

    SimCr(SimIa ia, SimPsp psp, ConnectAttempt attempt, SimEndpoint localEp, long connQual) {
        super(HandleType.CR, DatReturn.INVALID_HANDLE_CR);
        this.ia = ia;
        this.psp = psp;
        this.attempt = attempt;
        this.localEp = localEp;
        this.connQual = connQual;
        ia.crs.add(this);
    }

    @Override
    SimIa ia() {
        return ia;
    }

    /** Forgets a CR whose event could not be queued. */
    void discard() {
        freed = true;
        ia.crs.remove(this);
    }

    @Override
    public CrParams query(int crParamMask) {
        checkQueryMask(CrParamMask.isValid(crParamMask), "crParamMask", crParamMask);
        return new CrParams(attempt.activeAddress, attempt.activePortQual, attempt.privateData, localEp);
    }

    @Override
    public void accept(Endpoint ep, byte[] privateData) {
        checkOpen();
        if (privateData != null && privateData.length > ia.limits().maxPrivateData()) {
            throw invalidParameter(DatReturn.INVALID_ARG3, "privateData",
                    privateData.length + " bytes exceed max_private_data_size " + ia.limits().maxPrivateData());
        }
        ia.provider.cmLock.lock();
        try {
            checkOpen();
            SimEndpoint target;
            if (ep == null) {
                if (localEp == null) {
                    throw invalidParameter(DatReturn.INVALID_ARG2, "ep", "the request provides no Endpoint: pass one");
                }
                target = localEp;
            } else {
                target = ia.endpoint(ep, "ep");
                if (localEp != null && target != localEp) {
                    throw invalidParameter(DatReturn.INVALID_ARG2, "ep", "the request must be accepted on the Endpoint it provides");
                }
            }
            EpState s = target.state();
            boolean stateOk = localEp == null ? s == EpState.UNCONNECTED
                    : s == EpState.PASSIVE_CONNECTION_PENDING || s == EpState.TENTATIVE_CONNECTION_PENDING;
            if (!stateOk) {
                throw invalidState(SimEndpoint.stateSubtype(s), "the Endpoint is " + s + " (dat_cr_accept(3DAT))");
            }
            freed = true;
            ia.crs.remove(this);
            target.connection.providerOwned = false;
            if (!attempt.live()) {
                // the active side timed out, was aborted or freed: ACCEPT_COMPLETION_ERROR
                target.connection.acceptFailed();
                return;
            }
            attempt.link.accept(attempt, target, privateData == null ? null : privateData.clone());
        } finally {
            ia.provider.cmLock.unlock();
        }
    }

    @Override
    public void reject() {
        checkOpen();
        ia.provider.cmLock.lock();
        try {
            checkOpen();
            destroyRejecting();
        } finally {
            ia.provider.cmLock.unlock();
        }
    }

    @Override
    public void handoff(long handoffQual) {
        checkOpen();
        ia.provider.cmLock.lock();
        try {
            checkOpen();
            ServicePoint target = ia.adapter.servicePoints.get(handoffQual);
            if (target == null || handoffQual == connQual) {
                throw invalidParameter(DatReturn.INVALID_ARG2, "handoff",
                        "no other Service Point listens on qualifier " + handoffQual + " of " + ia.adapter.name);
            }
            release();
            if (attempt.live()) {
                attempt.state = ConnectAttempt.State.PENDING;
                attempt.cr = null;
                target.onRequest(attempt);
            }
        } finally {
            ia.provider.cmLock.unlock();
        }
    }

    /** Destroys the CR and gives its Endpoint back: the RSP's to the consumer, the provider's to the provider. */
    private void release() {
        freed = true;
        ia.crs.remove(this);
        if (localEp != null && localEp.connection.pendingCr == this) {
            localEp.connection.pendingCr = null;
            if (localEp.connection.providerOwned) {
                localEp.destroy();
            } else if (localEp.state() == EpState.PASSIVE_CONNECTION_PENDING) {
                localEp.setState(EpState.UNCONNECTED);
            }
        }
    }

    /** Rejects: the active side gets PEER_REJECTED. Under the CM lock. */
    void destroyRejecting() {
        if (freed) {
            return;
        }
        release();
        if (attempt.live()) {
            attempt.fail(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        }
    }

    @Override
    public void close() {
        if (freed) {
            return;
        }
        ia.provider.cmLock.lock();
        try {
            if (!freed && ia.usable()) {
                destroyRejecting();
            }
        } finally {
            ia.provider.cmLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "sim-CR(qual=" + connQual + (psp == null ? ", RSP" : "") + (freed ? ", destroyed" : "") + ")";
    }
}
