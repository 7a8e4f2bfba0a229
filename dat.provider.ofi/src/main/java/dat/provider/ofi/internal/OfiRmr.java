package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.HandleType;
import dat.api.LmrTriplet;
import dat.api.MemPrivileges;
import dat.api.RemoteMemoryRegion;
import dat.api.RmrParamMask;
import dat.api.RmrParams;
import dat.api.ext.Operation;
import dat.api.ext.IbExtension;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.ofi.internal.ffi.Ops;
import dat.provider.ofi.internal.ffi.Structs;
import dat.provider.support.RmrBindArguments;
import java.lang.foreign.MemorySegment;

/**
 * A Remote Memory Region. libfabric has no memory windows; a bound RMR is a registration of its
 * own ({@code fi_mr_reg}) over exactly the bound range of its LMR's memory, with the remote
 * access the bind grants and nothing else, so the target's libfabric checks the range and the
 * access of every RDMA operation through it. Each bind takes a new RMR context from the IA's
 * numbers (where the provider chooses keys, the key is the PZ's number and the context, as an
 * LMR's is: {@link OfiLmr}), registers the range before it posts, and closes the registration
 * of the previous bind once the new bind is posted: the previous context fails at once, the new
 * one is valid when the bind completes (earlier, in fact: the consumer learns of it from the
 * completion). An unbind (length 0) closes the registration.
 *
 * <p><b>The bind's completion.</b> DAT completes a bind on the Endpoint's request EVD in the
 * order of the Endpoint's DTOs. The bind is posted as a zero-length RDMA write that asks for
 * delivery ({@link Posting#postBind}); libfabric completes it after the DTOs posted before it,
 * and a teardown flushes it as any DTO. A bind posted on a disconnected Endpoint is flushed at
 * once and changes nothing. A bind that completes with an error (its connection broke) has
 * already taken effect: the registration is the RMR's until its next bind or its free. A bind is
 * in progress ({@code dat_rmr_free} answers {@code DAT_INVALID_STATE}) until its completion is
 * taken from the request EVD (a suppressed one: until the EVD's queue is next read).
 *
 * <p><b>Scope.</b> A registration belongs to the libfabric domain, the IA: an RMR bound through
 * one Endpoint admits RDMA through every connection of the IA whose Endpoint is in the RMR's PZ
 * (where the provider chooses keys the PZ is in the key; elsewhere through every connection of
 * the IA), as a type 1 memory window admits RDMA through every QP of its protection domain.
 * Freeing the Endpoint leaves the RMR bound.
 */
final class OfiRmr extends OfiHandle implements RemoteMemoryRegion {

    private static final int REMOTE = MemPrivileges.REMOTE_READ | MemPrivileges.REMOTE_WRITE | IbExtension.MEM_PRIV_REMOTE_ATOMIC;

    final OfiPz pz;
    // guarded by this
    /** The registration of the bound range, or {@code NULL} when unbound. */
    private MemorySegment mr = MemorySegment.NULL;
    private int context;
    private OfiLmr boundLmr;
    private LmrTriplet boundSegment = new LmrTriplet(0, 0, 0);
    private int boundPrivileges;
    /** The queue and token of the last bind posted: in progress while that slot still holds it. */
    private WorkSlots lastBindSlots;
    private long lastBindToken;
    private final long[] tokenOut = new long[1];

    OfiRmr(OfiIa ia, OfiPz pz) {
        super(ia, HandleType.RMR, DatReturn.INVALID_HANDLE_RMR);
        this.pz = pz;
        pz.users.incrementAndGet();
        ia.rmrs.add(this);
    }

    @Override
    public int bind(LmrTriplet lmrTriplet, int memPrivileges, Endpoint ep, long userCookie, int completionFlags) {
        checkOpen();
        OfiEp endpoint = OfiEp.check(ia, ep, "ep");
        RmrBindArguments.check(lmrTriplet, memPrivileges,
                RmrBindArguments.readWritePrivileges() | (ia.domain.atomics ? IbExtension.MEM_PRIV_REMOTE_ATOMIC : 0), completionFlags);
        OfiLmr.checkAtomicPrivilege(memPrivileges, "memPrivileges");
        if (endpoint.pz() != pz) {
            throw Codes.exception(DatReturn.PROTECTION_VIOLATION, DatReturn.NO_SUBTYPE, "ep", "the Endpoint is in another PZ");
        }
        long length = lmrTriplet.segmentLength();
        OfiLmr lmr = null;
        if (length > 0) {
            lmr = ia.lmrsByContext.get(lmrTriplet.lmrContext());
            boolean known = lmr != null && !lmr.freed && lmr.memoryAlive();
            RmrBindArguments.checkLmr(known, known && lmr.contains(lmrTriplet.virtualAddress(), length), known && lmr.pz == pz);
            RmrBindArguments.checkLmrAccess((memPrivileges & MemPrivileges.REMOTE_READ) != 0,
                    (memPrivileges & MemPrivileges.REMOTE_WRITE) != 0, lmr.localRead, lmr.localWrite);
        }
        return post(endpoint, lmr, lmrTriplet.virtualAddress(), length, memPrivileges & REMOTE, userCookie, completionFlags);
    }

    /** Registers the range, posts the bind, and makes it the RMR's state; returns the new context. */
    private synchronized int post(OfiEp ep, OfiLmr lmr, long address, long length, int privileges, long cookie, int flags) {
        checkOpen();
        int newContext = 0;
        MemorySegment registered = MemorySegment.NULL;
        if (length > 0) {
            newContext = ia.newLmrContext();
            try {
                registered = register(address, length, privileges, newContext);
            } catch (DatException e) {
                ia.counters.postError(e.code()); // a bind refused, as a refused post is counted
                throw e;
            }
            if (!ia.domain.pzKeys) {
                newContext = (int) registered.get(JAVA_LONG, Structs.MR_KEY);
            }
        }
        int code = ep.postBind(this, cookie, flags, tokenOut);
        ia.counters.post(Operation.RMR_BIND, length, code == OfiEp.BIND_FLUSHED ? Codes.SUCCESS : code);
        if (code != Codes.SUCCESS) {
            close(registered); // nothing was posted, or the bind was flushed: the RMR stays as it was
            if (code == OfiEp.BIND_FLUSHED) {
                return newContext;
            }
            throw new DatException(code, "ep", code == Codes.INSUFFICIENT_RESOURCES ? "the Endpoint's request queue is full"
                    : "the bind could not be posted", null);
        }
        lastBindSlots = ep.sendSlots;
        lastBindToken = tokenOut[0];
        close(mr); // the previous context fails from now on
        mr = registered;
        context = newContext;
        rebound(lmr);
        boundSegment = new LmrTriplet(lmr == null ? 0 : lmr.lmrContext, length > 0 ? address : 0, length);
        boundPrivileges = length > 0 ? privileges : 0;
        return newContext;
    }

    /** {@code fi_mr_reg} of exactly the bound range with the bind's remote access. */
    private MemorySegment register(long address, long length, int privileges, int newContext) {
        long requestedKey = ia.domain.pzKeys ? ((long) pz.id << 32) | Integer.toUnsignedLong(newContext) : 0;
        MemorySegment registered;
        try {
            registered = Ops.mrReg(ia.domain.domain, MemorySegment.ofAddress(address), length, OfiLmr.access(privileges),
                    requestedKey);
        } catch (NativeException e) {
            throw Codes.fromNative(e, "lmrTriplet");
        }
        long key = registered.get(JAVA_LONG, Structs.MR_KEY);
        if (!ia.domain.pzKeys && (key < 0 || key > 0xFFFF_FFFFL)) {
            close(registered);
            throw Codes.notSupported("lmrTriplet", "the libfabric provider chose key 0x" + Long.toHexString(key)
                    + ", wider than DAT's 32-bit rmr_context");
        }
        return registered;
    }

    private static void close(MemorySegment registration) {
        if (registration.equals(MemorySegment.NULL)) {
            return;
        }
        try {
            Ops.close(registration);
        } catch (NativeException e) {
            System.getLogger(OfiRmr.class.getName()).log(System.Logger.Level.WARNING, "fi_close of an RMR's MR failed", e);
        }
    }

    /** The RMR is bound to {@code lmr} now (or to none): the LMRs' counts of bound RMRs follow (this monitor held). */
    private void rebound(OfiLmr lmr) {
        if (boundLmr != null) {
            boundLmr.boundRmrs.decrementAndGet();
        }
        boundLmr = lmr;
        if (lmr != null) {
            lmr.boundRmrs.incrementAndGet();
        }
    }

    /** Whether the last bind posted has not completed yet (its slot still holds it). */
    private boolean bindInProgress() {
        WorkSlots slots = lastBindSlots;
        if (slots == null) {
            return false;
        }
        int slot = slots.lookup(lastBindToken);
        return slot >= 0 && slots.binds[slot] == this;
    }

    @Override
    public synchronized RmrParams query(int rmrParamMask) {
        checkOpen();
        if (!RmrParamMask.isValid(rmrParamMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "rmrParamMask", "undefined bits");
        }
        return new RmrParams(ia, pz, boundSegment, boundPrivileges, context);
    }

    @Override
    public void close() {
        if (freed || !ia.isUsable()) {
            return;
        }
        synchronized (this) {
            if (bindInProgress()) {
                throw Codes.invalidState(DatReturn.NO_SUBTYPE, "a bind of the RMR is in progress");
            }
        }
        destroy();
    }

    /** Closes the registration, which invalidates the context. Idempotent. */
    void destroy() {
        synchronized (this) {
            if (freed) {
                return;
            }
            freed = true;
            close(mr);
            mr = MemorySegment.NULL;
            rebound(null);
        }
        pz.users.decrementAndGet();
        ia.rmrs.remove(this);
    }
}
