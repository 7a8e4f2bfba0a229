package dat.example.provider.internal;

import dat.api.Endpoint;
import dat.api.LmrTriplet;
import dat.api.RemoteMemoryRegion;
import dat.api.RmrParams;
import dat.api.ext.Operation;

/** A metered RMR: a bind is a posted operation, counted with the bytes it binds. */
final class MeteredRmr extends MeteredHandle<RemoteMemoryRegion> implements RemoteMemoryRegion {

    MeteredRmr(RemoteMemoryRegion underlying, MeteredIa ia) {
        super(underlying, ia);
    }

    @Override
    public int bind(LmrTriplet lmrTriplet, int memPrivileges, Endpoint ep, long userCookie, int completionFlags) {
        if (ia.failed()) {
            return Codes.INVALID_HANDLE;
        }
        long bytes = lmrTriplet == null ? 0 : Math.max(0, lmrTriplet.segmentLength());
        return ia.counters.post(Operation.RMR_BIND, bytes,
                u.bind(lmrTriplet, memPrivileges, Handles.u(ep), userCookie, completionFlags));
    }

    @Override
    public RmrParams query(int rmrParamMask) {
        checkUsable();
        RmrParams p = u.query(rmrParamMask);
        return new RmrParams(ia.handles.ia(p.ia()), ia.handles.pz(p.pz()), p.lmrTriplet(), p.memPrivileges(), p.rmrContext());
    }
}
