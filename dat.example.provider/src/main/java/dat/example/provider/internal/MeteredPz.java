package dat.example.provider.internal;

import dat.api.ProtectionZone;
import dat.api.PzParams;
import dat.api.RemoteMemoryRegion;

/** A metered Protection Zone. */
final class MeteredPz extends MeteredHandle<ProtectionZone> implements ProtectionZone {

    MeteredPz(ProtectionZone underlying, MeteredIa ia) {
        super(underlying, ia);
    }

    @Override
    public RemoteMemoryRegion createRemoteMemoryRegion() {
        checkUsable();
        RemoteMemoryRegion rmr = u.createRemoteMemoryRegion();
        return ia.handles.remember(rmr, new MeteredRmr(rmr, ia), ia);
    }

    @Override
    public PzParams query(int pzParamMask) {
        checkUsable();
        return new PzParams(ia.handles.ia(u.query(pzParamMask).ia()));
    }
}
