package dat.provider.ofi.internal;

import dat.api.DatReturn;
import dat.api.HandleType;
import dat.api.ProtectionZone;
import dat.api.PzParamMask;
import dat.api.PzParams;
import dat.api.RemoteMemoryRegion;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Protection Zone. libfabric has no protection domain below its domain (one per IA), so a PZ
 * lives in Java: every local IOV is checked against its LMR's PZ before any post. Remote accesses
 * are checked by libfabric against the key, range and access of the registration; where the DAT
 * provider chooses the keys, the PZ is part of the key ({@link Domain#pzKeys}), and an Endpoint
 * tells its peer its PZ when it connects, so the peer names keys of that PZ only.
 */
final class OfiPz extends OfiHandle implements ProtectionZone {

    /** The Endpoints, LMRs, RMRs and SRQs in this PZ. */
    final AtomicInteger users = new AtomicInteger();
    /** The PZ's number: the high half of its LMRs' keys, and what an Endpoint's connection tells the peer. */
    final int id;

    OfiPz(OfiIa ia) {
        super(ia, HandleType.PZ, DatReturn.INVALID_HANDLE_PZ);
        this.id = ia.newPzId();
        ia.pzs.add(this);
    }

    static OfiPz check(OfiIa ia, ProtectionZone pz, String argument) {
        if (!(pz instanceof OfiPz v) || v.ia != ia || !v.isOpen()) {
            throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_PZ, argument, "not an open PZ of this IA");
        }
        return v;
    }

    @Override
    public RemoteMemoryRegion createRemoteMemoryRegion() {
        checkOpen();
        if (ia.rmrs.size() >= ia.limits.maxRmrs()) {
            throw Codes.exception(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY_REGION, "pz",
                    "max_rmrs " + ia.limits.maxRmrs());
        }
        return new OfiRmr(ia, this);
    }

    @Override
    public PzParams query(int pzParamMask) {
        checkOpen();
        if (!PzParamMask.isValid(pzParamMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "pzParamMask", "undefined bits");
        }
        return new PzParams(ia);
    }

    @Override
    public void close() {
        if (freed || !ia.isUsable()) {
            return;
        }
        if (users.get() > 0) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_PZ_IN_USE, "an Endpoint, LMR, RMR or SRQ still uses the PZ");
        }
        destroy();
    }

    void destroy() {
        freed = true;
        ia.pzs.remove(this);
    }
}
