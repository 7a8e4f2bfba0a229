package dat.provider.sim.internal.core;

import dat.api.CompletionFlags;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.HandleType;
import dat.api.LmrTriplet;
import dat.api.MemPrivileges;
import dat.api.RemoteMemoryRegion;
import dat.api.RmrParamMask;
import dat.api.RmrParams;
import java.lang.foreign.MemorySegment;

/**
 * A Remote Memory Region: dat_rmr_create(3DAT), dat_rmr_bind(3DAT), dat_rmr_query(3DAT),
 * dat_rmr_free(3DAT). Each bind creates a {@link Binding} under a fresh random context; the
 * previous context is removed from the context table at once, and the new one becomes valid for
 * remote access when the bind work request completes on the Endpoint's request queue (binds are
 * ordered with the Endpoint's other requests, so a send posted after the bind cannot overtake it).
 */
final class SimRmr extends SimHandle implements RemoteMemoryRegion {

    /** One binding of the RMR to an LMR range. */
    static final class Binding implements RemoteWindow {
        final SimRmr rmr;
        final SimLmr lmr;
        final long start;
        final long length;
        final int privileges;
        int context;
        volatile boolean active;
        final java.util.concurrent.atomic.AtomicBoolean revoked = new java.util.concurrent.atomic.AtomicBoolean();

        Binding(SimRmr rmr, SimLmr lmr, long start, long length, int privileges) {
            this.rmr = rmr;
            this.lmr = lmr;
            this.start = start;
            this.length = length;
            this.privileges = privileges;
        }

        @Override
        public boolean windowValid() {
            return active && !revoked.get() && !lmr.freed && lmr.ia().usable();
        }

        @Override
        public SimIa windowIa() {
            return rmr.ia;
        }

        @Override
        public SimPz windowPz() {
            return rmr.pz;
        }

        @Override
        public int windowPrivileges() {
            return privileges;
        }

        @Override
        public long windowStart() {
            return start;
        }

        @Override
        public long windowLength() {
            return length;
        }

        @Override
        public MemorySegment windowMemory() {
            return lmr.memory();
        }

        @Override
        public long memoryBase() {
            return lmr.registeredAddress();
        }
    }

    private final SimIa ia;
    final SimPz pz;
    private final java.util.concurrent.atomic.AtomicReference<Binding> current = new java.util.concurrent.atomic.AtomicReference<>();
    /** Binds posted and not yet completed; bindDone runs under the Endpoint's lock, so no monitor here. */
    private final java.util.concurrent.atomic.AtomicInteger pendingBinds = new java.util.concurrent.atomic.AtomicInteger();

    SimRmr(SimIa ia, SimPz pz) {
        super(HandleType.RMR, DatReturn.INVALID_HANDLE_RMR);
        this.ia = ia;
        this.pz = pz;
        pz.users.incrementAndGet();
    }

    @Override
    SimIa ia() {
        return ia;
    }

    @Override
    public int bind(LmrTriplet lmrTriplet, int memPrivileges, Endpoint ep, long userCookie, int completionFlags) {
        checkOpen();
        SimEndpoint e = ia.endpoint(ep, "ep");
        if (lmrTriplet == null) {
            throw invalidParameter(DatReturn.INVALID_ARG2, "lmrTriplet", "null triplet");
        }
        if ((memPrivileges & ~(MemPrivileges.REMOTE_READ | MemPrivileges.REMOTE_WRITE | MemPrivileges.LOCAL_READ
                | MemPrivileges.LOCAL_WRITE | dat.api.ext.IbExtension.MEM_PRIV_REMOTE_ATOMIC)) != 0) {
            throw invalidParameter(DatReturn.INVALID_ARG3, "memPrivileges", "undefined bits 0x" + Integer.toHexString(memPrivileges));
        }
        if (!CompletionFlags.isValid(completionFlags)
                || (completionFlags & (CompletionFlags.SOLICITED_WAIT | CompletionFlags.EVD_THRESHOLD)) != 0) {
            throw invalidParameter(DatReturn.INVALID_ARG6, "completionFlags", "bad flags 0x" + Integer.toHexString(completionFlags));
        }
        if ((completionFlags & CompletionFlags.UNSIGNALLED) != 0 && !e.requestUnsignalledAllowed()) {
            throw invalidParameter(DatReturn.INVALID_ARG6, "completionFlags",
                    "UNSIGNALLED needs an Endpoint whose request completion flags are UNSIGNALLED");
        }
        if (e.pz != pz) {
            throw DatException.of(DatReturn.PROTECTION_VIOLATION, DatReturn.NO_SUBTYPE, "ep", "the Endpoint is in another PZ");
        }
        long length = lmrTriplet.segmentLength();
        if (length < 0) {
            throw invalidParameter(DatReturn.INVALID_ARG2, "lmrTriplet", "negative length");
        }
        Binding binding = null;
        if (length > 0) {
            SimLmr lmr = ia.provider.lmrContexts.get(lmrTriplet.lmrContext());
            if (lmr == null || lmr.ia() != ia || lmr.freed) {
                throw invalidParameter(DatReturn.INVALID_ARG2, "lmrTriplet", "unknown LMR context");
            }
            if (!lmr.contains(lmrTriplet.virtualAddress(), length)) {
                throw invalidParameter(DatReturn.INVALID_ARG2, "lmrTriplet", "range exceeds the LMR");
            }
            if (lmr.pz != pz) {
                throw DatException.of(DatReturn.PROTECTION_VIOLATION, DatReturn.NO_SUBTYPE, "lmrTriplet", "the LMR is in another PZ");
            }
            boolean atomic = (memPrivileges & dat.api.ext.IbExtension.MEM_PRIV_REMOTE_ATOMIC) != 0;
            if (((memPrivileges & MemPrivileges.REMOTE_READ) != 0 || atomic) && (lmr.privileges & MemPrivileges.LOCAL_READ) == 0
                    || ((memPrivileges & MemPrivileges.REMOTE_WRITE) != 0 || atomic) && (lmr.privileges & MemPrivileges.LOCAL_WRITE) == 0) {
                throw DatException.of(DatReturn.PRIVILEGES_VIOLATION, DatReturn.NO_SUBTYPE, "memPrivileges",
                        "remote read needs local read and remote write needs local write on the LMR (dat_rmr_bind(3DAT))");
            }
            binding = new Binding(this, lmr, lmrTriplet.virtualAddress(), length, memPrivileges);
        }
        synchronized (this) {
            checkOpen();
            if (binding != null) {
                binding.context = ia.provider.rmrContexts.register(binding);
                binding.lmr.users.incrementAndGet();
            }
            pendingBinds.incrementAndGet();
            Binding old = current.getAndSet(binding);
            int code = e.postBind(this, binding, userCookie, completionFlags);
            if (code != DatReturn.SUCCESS) {
                pendingBinds.decrementAndGet();
                current.compareAndSet(binding, old);
                if (binding != null) {
                    revoke(binding);
                }
                throw new DatException(code, "ep", "the bind could not be posted", null);
            }
            if (old != null) {
                revoke(old); // the previous context is invalid at once
            }
            return binding == null ? 0 : binding.context;
        }
    }

    /** The bind work request completed (or was flushed) on the Endpoint's request queue. */
    void bindDone(Binding binding, boolean success) {
        if (binding != null) {
            if (success) {
                binding.active = true;
            } else {
                revoke(binding);
                current.compareAndSet(binding, null);
            }
        }
        pendingBinds.decrementAndGet();
    }

    private void revoke(Binding binding) {
        if (binding.revoked.compareAndSet(false, true)) {
            ia.provider.rmrContexts.remove(binding.context);
            binding.lmr.users.decrementAndGet();
            ia.adapter.transport.awaitCopiesThrough(binding); // no byte moves through the old context from now on
        }
    }

    @Override
    public synchronized RmrParams query(int rmrParamMask) {
        checkQueryMask(RmrParamMask.isValid(rmrParamMask), "rmrParamMask", rmrParamMask);
        Binding b = current.get();
        if (b == null) {
            return new RmrParams(ia, pz, null, MemPrivileges.NONE, 0);
        }
        return new RmrParams(ia, pz, new LmrTriplet(b.lmr.lmrContext(), b.start, b.length), b.privileges, b.context);
    }

    @Override
    public void close() {
        if (freed) {
            return;
        }
        synchronized (this) {
            if (freed) {
                return;
            }
            checkOpen();
            if (pendingBinds.get() > 0) {
                throw invalidState(DatReturn.NO_SUBTYPE, "a bind of this RMR is still in progress");
            }
            destroy();
        }
    }

    synchronized void destroy() {
        if (freed) {
            return;
        }
        freed = true;
        Binding b = current.getAndSet(null);
        if (b != null) {
            revoke(b);
        }
        pz.users.decrementAndGet();
        ia.rmrs.remove(this);
        ia.adapter.rmrs.decrementAndGet();
    }
}
