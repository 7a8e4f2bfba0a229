package dat.provider.sim.internal.core;

import dat.api.DatReturn;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.HandleType;
import dat.api.ReservedServicePoint;
import dat.api.RspParamMask;
import dat.api.RspParams;

/**
 * A Reserved Service Point: dat_rsp_create(3DAT), dat_rsp_query(3DAT), dat_rsp_free(3DAT). It
 * reserves its Endpoint ({@link EpState#RESERVED}) and is destroyed by the one connection request
 * it reports, which moves the Endpoint to {@link EpState#PASSIVE_CONNECTION_PENDING}.
 */
final class SimRsp extends ServicePoint implements ReservedServicePoint {

    private final SimEndpoint ep;

    /** Creates and registers the RSP; under the CM lock, the qualifier checked free. */
    SimRsp(SimIa ia, long connQual, SimEndpoint ep, SimEvd evd) {
        super(HandleType.RSP, DatReturn.INVALID_HANDLE_RSP, ia, connQual, evd);
        this.ep = ep;
        ep.setState(EpState.RESERVED);
        ep.connection.reservedBy = this;
        register();
        ia.rsps.add(this);
    }

    @Override
    void onRequest(ConnectAttempt attempt) {
        if (refused(attempt)) {
            return;
        }
        SimCr cr = new SimCr(ia, null, attempt, ep, connQual);
        // The request destroys the RSP and hands its Endpoint to the CR before the event becomes
        // visible: a consumer woken by it, without the CM lock, must already see both.
        freed = true;
        ep.connection.reservedBy = null;
        ep.connection.pendingCr = cr;
        ep.setState(EpState.PASSIVE_CONNECTION_PENDING);
        if (!evd.postConnectionRequest(null, ia.adapter.address, connQual, cr)) {
            // no room for the event: the request is refused and the RSP stays as it was
            ep.connection.pendingCr = null;
            ep.connection.reservedBy = this;
            ep.setState(EpState.RESERVED);
            freed = false;
            cr.discard();
            attempt.fail(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            return;
        }
        unregisterRsp();
        attempt.state = ConnectAttempt.State.DELIVERED;
        attempt.cr = cr;
    }

    @Override
    public RspParams query(int rspParamMask) {
        checkQueryMask(RspParamMask.isValid(rspParamMask), "rspParamMask", rspParamMask);
        return new RspParams(ia, connQual, evd, ep);
    }

    /** Stops listening; the Endpoint returns to the consumer, UNCONNECTED. Under the CM lock. */
    @Override
    void destroy() {
        if (freed) {
            return;
        }
        unregisterRsp();
        if (ep.connection.reservedBy == this) {
            ep.connection.reservedBy = null;
            if (ep.state() == EpState.RESERVED) {
                ep.setState(EpState.UNCONNECTED);
            }
        }
    }

    private void unregisterRsp() {
        unregister();
        ia.rsps.remove(this);
    }
}
