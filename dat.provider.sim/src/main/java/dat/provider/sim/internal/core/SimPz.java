package dat.provider.sim.internal.core;

import dat.api.DatReturn;
import dat.api.HandleType;
import dat.api.ProtectionZone;
import dat.api.PzParamMask;
import dat.api.PzParams;
import dat.api.RemoteMemoryRegion;
import java.util.concurrent.atomic.AtomicInteger;

/** A Protection Zone: dat_pz_create(3DAT), dat_pz_query(3DAT), dat_pz_free(3DAT). */
public final class SimPz extends SimHandle implements ProtectionZone {

    private final SimIa ia;
    /** Endpoints, LMRs, RMRs and SRQs in this PZ. */
    final AtomicInteger users = new AtomicInteger();

    SimPz(SimIa ia) {
        super(HandleType.PZ, DatReturn.INVALID_HANDLE_PZ);
        this.ia = ia;
    }

    @Override
    SimIa ia() {
        return ia;
    }

    @Override
    public RemoteMemoryRegion createRemoteMemoryRegion() {
        checkOpen();
        Adapter adapter = ia.adapter;
        if (!Adapter.reserve(adapter.rmrs, adapter.limits.maxRmrs())) {
            throw insufficient(DatReturn.RESOURCE_MEMORY_REGION, "max_rmrs " + adapter.limits.maxRmrs() + " reached");
        }
        SimRmr rmr = new SimRmr(ia, this);
        ia.rmrs.add(rmr);
        return rmr;
    }

    @Override
    public PzParams query(int pzParamMask) {
        checkQueryMask(PzParamMask.isValid(pzParamMask), "pzParamMask", pzParamMask);
        return new PzParams(ia);
    }

    @Override
    public void close() {
        freeUnlessUsed(users, DatReturn.INVALID_STATE_PZ_IN_USE,
                n -> "the PZ is used by " + n + " Endpoint(s), LMR(s), RMR(s) or SRQ(s) (dat_pz_free(3DAT))", this::destroy);
    }

    void destroy() {
        if (!freed) {
            freed = true;
            ia.pzs.remove(this);
            ia.adapter.pzs.decrementAndGet();
        }
    }
}
