package dat.provider.sim.internal.core;

import dat.api.DatReturn;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.HandleType;
import dat.api.PspFlag;
import dat.api.PspParamMask;
import dat.api.PspParams;
import dat.api.PublicServicePoint;

/**
 * A persistent Public Service Point: dat_psp_create(3DAT), dat_psp_create_any(3DAT),
 * dat_psp_query(3DAT), dat_psp_free(3DAT). Its EVD's queue is its backlog: a request that finds
 * the queue full is rejected as {@link EventNumber#CONNECTION_EVENT_NON_PEER_REJECTED}. With
 * {@link PspFlag#PROVIDER} each request comes with a provider-created Endpoint in
 * {@link EpState#TENTATIVE_CONNECTION_PENDING}, with no PZ and no EVDs.
 */
final class SimPsp extends ServicePoint implements PublicServicePoint {

    private final PspFlag flag;

    /** Creates and registers the PSP; under the CM lock, the qualifier checked free. */
    SimPsp(SimIa ia, long connQual, SimEvd evd, PspFlag flag) {
        super(HandleType.PSP, DatReturn.INVALID_HANDLE_PSP, ia, connQual, evd);
        this.flag = flag;
        register();
        ia.psps.add(this);
    }

    @Override
    void onRequest(ConnectAttempt attempt) {
        if (refused(attempt)) {
            return;
        }
        SimEndpoint providerEp = null;
        if (flag == PspFlag.PROVIDER) {
            providerEp = ia.providerEndpoint(attempt.activeAttributes);
            if (providerEp == null) {
                attempt.fail(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                return;
            }
            providerEp.connection.providerOwned = true;
            providerEp.setState(EpState.TENTATIVE_CONNECTION_PENDING);
        }
        SimCr cr = new SimCr(ia, this, attempt, providerEp, connQual);
        if (!evd.postConnectionRequest(this, ia.adapter.address, connQual, cr)) {
            // the backlog (the EVD's queue) is full
            cr.discard();
            if (providerEp != null) {
                providerEp.destroy();
            }
            attempt.fail(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            return;
        }
        if (providerEp != null) {
            providerEp.connection.pendingCr = cr;
        }
        attempt.state = ConnectAttempt.State.DELIVERED;
        attempt.cr = cr;
    }

    @Override
    public PspParams query(int pspParamMask) {
        checkQueryMask(PspParamMask.isValid(pspParamMask), "pspParamMask", pspParamMask);
        return new PspParams(ia, connQual, evd, flag);
    }

    /** Stops listening; requests already delivered stay valid (dat_psp_free(3DAT)). Under the CM lock. */
    @Override
    void destroy() {
        if (freed) {
            return;
        }
        unregister();
        ia.psps.remove(this);
    }
}
