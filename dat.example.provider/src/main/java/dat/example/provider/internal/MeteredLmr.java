package dat.example.provider.internal;

import dat.api.LmrParams;
import dat.api.LocalMemoryRegion;
import dat.api.RegionDescription;
import java.lang.foreign.MemorySegment;

/**
 * A metered LMR. Contexts, addresses and memory are the underlying LMR's: the consumer's
 * {@link dat.api.LmrTriplet}s and {@link dat.api.RmrTriplet}s reach the underlying provider as they
 * are.
 */
final class MeteredLmr extends MeteredHandle<LocalMemoryRegion> implements LocalMemoryRegion {

    /** The region as the consumer described it (an LMR region names the consumer's LMR). */
    private final RegionDescription region;

    MeteredLmr(LocalMemoryRegion underlying, MeteredIa ia, RegionDescription region) {
        super(underlying, ia);
        this.region = region;
    }

    @Override
    public int lmrContext() {
        checkUsable();
        return u.lmrContext();
    }

    @Override
    public int rmrContext() {
        checkUsable();
        return u.rmrContext();
    }

    @Override
    public long registeredAddress() {
        checkUsable();
        return u.registeredAddress();
    }

    @Override
    public long registeredSize() {
        checkUsable();
        return u.registeredSize();
    }

    @Override
    public MemorySegment memory() {
        checkUsable();
        return u.memory();
    }

    @Override
    public LmrParams query(int lmrParamMask) {
        checkUsable();
        LmrParams p = u.query(lmrParamMask);
        RegionDescription reported = p.region() instanceof RegionDescription.OfLmr ? region : p.region();
        return new LmrParams(ia.handles.ia(p.ia()), p.memType(), reported, p.length(), ia.handles.pz(p.pz()),
                p.memPrivileges(), p.lmrContext(), p.rmrContext(), p.registeredSize(), p.registeredAddress());
    }
}
