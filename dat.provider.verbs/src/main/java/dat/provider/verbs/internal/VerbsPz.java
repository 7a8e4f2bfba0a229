package dat.provider.verbs.internal;

import dat.api.DatReturn;
import dat.api.HandleType;
import dat.api.ProtectionZone;
import dat.api.PzParamMask;
import dat.api.PzParams;
import dat.api.RemoteMemoryRegion;
import dat.provider.verbs.internal.ffi.NativeException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/** A Protection Zone: one {@code ibv_pd}. */
final class VerbsPz extends VerbsHandle implements ProtectionZone {

    final MemorySegment pd;
    final AtomicInteger users = new AtomicInteger();

    VerbsPz(VerbsIa ia) {
        super(ia, HandleType.PZ, DatReturn.INVALID_HANDLE_PZ);
        try {
            pd = ia.verbs.allocPd(ia.context);
        } catch (NativeException e) {
            throw Codes.fromNative(e, "pz");
        }
        ia.pzs.add(this);
    }

    static VerbsPz check(VerbsIa ia, ProtectionZone pz, String argument) {
        if (!(pz instanceof VerbsPz v) || v.ia != ia || !v.isOpen()) {
            throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_PZ, argument, "not an open PZ of this IA");
        }
        return v;
    }

    /** A memory window of this PZ ({@link VerbsRmr}); {@code DAT_MODEL_NOT_SUPPORTED} where the device has none. */
    @Override
    public RemoteMemoryRegion createRemoteMemoryRegion() {
        checkOpen();
        return new VerbsRmr(ia, this);
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
        synchronized (this) {
            if (freed) {
                return;
            }
            freed = true;
        }
        try {
            ia.verbs.deallocPd(pd);
        } catch (NativeException e) {
            System.getLogger(VerbsPz.class.getName()).log(System.Logger.Level.WARNING, "ibv_dealloc_pd failed", e);
        }
        ia.pzs.remove(this);
    }
}
