package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.HandleType;
import dat.api.LmrTriplet;
import dat.api.MemPrivileges;
import dat.api.RemoteMemoryRegion;
import dat.api.RmrParamMask;
import dat.api.RmrParams;
import dat.api.ext.IbExtension;
import dat.api.ext.Operation;
import dat.provider.support.RmrBindArguments;
import dat.provider.verbs.internal.ffi.Inline;
import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A Remote Memory Region: one memory window ({@code ibv_alloc_mw}) in the PZ's protection
 * domain, of type 2 where the device has them (bound by an {@code IBV_WR_BIND_MW} work request of
 * the Endpoint, invalidated with {@code IBV_WR_LOCAL_INV} before it is bound again or to unbind
 * it), else type 1 (bound by the driver's {@code bind_mw}). The RMR context is the window's key,
 * which every bind changes ({@code ibv_inc_rkey}), so a previous context fails with a protection
 * violation once the next bind ran.
 *
 * <p><b>Window bounds.</b> Where the device does not confine an access through a window to the
 * window's range (soft-RoCE checks the range of the window's MR only; {@link WindowProbe} finds
 * out at the first IA open on a device), each bind goes to an MR registered over exactly the
 * window's range (local write and bind rights only, its own key never handed out), so the
 * device's MR range check is the window's. That MR costs an {@code ibv_reg_mr} per bind; it is
 * deregistered when the next bind or the unbind has completed, or when the RMR is freed.
 *
 * <p>The key is tracked here as the binds are posted (they run in order on the send queue); the
 * {@code ibv_mw}'s own {@code rkey} field, which the driver reads as the window's current key
 * when it builds a bind, is kept equal to it.
 *
 * <p><b>The QP a window is bound through.</b> A type 2 window belongs to the QP of its bind, and
 * the kernel holds that QP while the window stays bound (soft-RoCE's {@code ibv_destroy_qp} waits
 * 50 s for such a window before it gives up). So before an Endpoint destroys a QP
 * ({@code dat_ep_free}, or {@code dat_ep_modify} re-creating it), {@link #releaseFrom} deallocates
 * each window bound through it and allocates a new, unbound one in its place: the RMR stays a
 * handle the consumer can bind again through another Endpoint, or free, and its old context is
 * gone with the QP it could only be used through.
 */
@SuppressWarnings("restricted") // the ibv_mw pointer is given its C size
final class VerbsRmr extends VerbsHandle implements RemoteMemoryRegion {

    private static final int IBV_ACCESS_LOCAL_WRITE = 1;
    private static final int IBV_ACCESS_REMOTE_WRITE = 2;
    private static final int IBV_ACCESS_REMOTE_READ = 4;
    private static final int IBV_ACCESS_REMOTE_ATOMIC = 8;
    private static final int IBV_ACCESS_MW_BIND = 16;

    final VerbsPz pz;
    /** The window; guarded by this (a bind reads it with this monitor held). */
    MemorySegment mw;
    final MemorySegment bindFn;
    private final MemorySegment deallocFn;
    private final int type;
    // guarded by this (boundMr's writes also by completions)
    private int key;
    private boolean valid;
    private LmrTriplet boundSegment = new LmrTriplet(0, 0, 0);
    /** The MR the window is bound to (what a type 1 unbind names), or {@code NULL}. */
    private MemorySegment boundMr = MemorySegment.NULL;
    /** The LMR the window is bound to, or {@code null}. */
    private VerbsLmr boundLmr;
    private int boundPrivileges;
    /** The QP a type 2 window is bound through, or {@code NULL}. */
    private MemorySegment boundQp = MemorySegment.NULL;
    /** Why the window could not be allocated again after {@link #releaseFrom}, or {@code null}. */
    private String lost;
    /**
     * Guards what a bind's completion changes ({@link #inFlight}, {@link #exactMrs}, and
     * {@link #boundMr}'s writes): the completion comes from a request EVD's reader, which holds
     * the EVD's lock, while a post holds this window's monitor and may take that lock
     * ({@link EpRequests#postBind}); this lock is taken last and nothing is taken under it.
     */
    private final Object completions = new Object();
    private int inFlight;
    /** The MRs of exact-range binds this window still holds: deregistered when moved off, or at free. */
    private final List<MemorySegment> exactMrs = new ArrayList<>();

    /**
     * One posted bind, in its work request's slot until it completes.
     *
     * @param rmr the window
     * @param type 1 or 2
     * @param oldKey the window's key before the bind
     * @param newKey its key after the bind (the old one for an unbind)
     * @param bound whether the window is bound now (a type 2 window is invalidated first; an
     *     unbind of an unbound window needs no work request)
     * @param mr the {@code ibv_mr} to bind to
     * @param address the first byte of the window
     * @param length its length; 0 unbinds
     * @param access the window's {@code IBV_ACCESS_*} rights
     * @param replaced the exact-range MR the bind moves the window off, to deregister when it completed
     * @param exact the exact-range MR registered for this bind, or {@code NULL}
     */
    record BindOp(VerbsRmr rmr, int type, int oldKey, int newKey, boolean bound, MemorySegment mr, long address, long length,
            int access, MemorySegment replaced, MemorySegment exact) {

        /** The bind completed, successfully or not (reaped by the request EVD). */
        void completed(boolean success) {
            rmr.bindCompleted(this, success);
        }
    }

    VerbsRmr(VerbsIa ia, VerbsPz pz) {
        super(ia, HandleType.RMR, DatReturn.INVALID_HANDLE_RMR);
        if (ia.windowType() == 0) {
            throw Codes.exception(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "pz",
                    "the device has no memory windows (max_rmrs is 0)");
        }
        this.pz = pz;
        this.type = ia.windowType();
        MemorySegment context = ia.context;
        this.bindFn = Inline.op(context, Structs.CONTEXT_OPS_BIND_MW);
        this.deallocFn = Inline.op(context, Structs.CONTEXT_OPS_DEALLOC_MW);
        this.mw = allocate(ia, pz, type);
        this.key = mw.get(JAVA_INT, Structs.MW_RKEY);
        pz.users.incrementAndGet();
        ia.rmrs.add(this);
    }

    /** {@code ibv_alloc_mw} of a window of {@code type} in the PZ's protection domain. */
    private static MemorySegment allocate(VerbsIa ia, VerbsPz pz, int type) {
        MemorySegment allocFn = Inline.op(ia.context, Structs.CONTEXT_OPS_ALLOC_MW);
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(java.lang.foreign.Linker.Option.captureStateLayout());
            MemorySegment window = (MemorySegment) Inline.ALLOC_MW.invokeExact(allocFn, capture, pz.pd, type);
            if (window.equals(MemorySegment.NULL)) {
                throw Codes.fromNative(new NativeException("ibv_alloc_mw", Inline.errno(capture)), "pz");
            }
            return window.reinterpret(Structs.IBV_MW.byteSize());
        } catch (DatException e) {
            throw e;
        } catch (Throwable t) {
            throw Codes.exception(DatReturn.INTERNAL_ERROR, DatReturn.NO_SUBTYPE, "pz", "ibv_alloc_mw: " + t);
        }
    }

    /** The {@code IBV_ACCESS_*} rights of a window with DAT remote privileges. */
    static int access(int privileges) {
        int access = 0;
        if ((privileges & MemPrivileges.REMOTE_READ) != 0) {
            access |= IBV_ACCESS_REMOTE_READ;
        }
        if ((privileges & MemPrivileges.REMOTE_WRITE) != 0) {
            access |= IBV_ACCESS_REMOTE_WRITE;
        }
        if ((privileges & IbExtension.MEM_PRIV_REMOTE_ATOMIC) != 0) {
            access |= IBV_ACCESS_REMOTE_ATOMIC;
        }
        return access;
    }

    /** {@code ibv_inc_rkey}: the next key, the index bits kept. */
    static int nextKey(int key) {
        return (key & ~0xFF) | ((key + 1) & 0xFF);
    }

    @Override
    public int bind(LmrTriplet lmrTriplet, int memPrivileges, Endpoint ep, long userCookie, int completionFlags) {
        checkOpen();
        VerbsEp endpoint = VerbsEp.check(ia, ep, "ep");
        RmrBindArguments.check(lmrTriplet, memPrivileges,
                RmrBindArguments.readWritePrivileges() | (ia.atomics() ? IbExtension.MEM_PRIV_REMOTE_ATOMIC : 0), completionFlags);
        if (endpoint.pz() != pz) {
            throw Codes.exception(DatReturn.PROTECTION_VIOLATION, DatReturn.NO_SUBTYPE, "ep", "the Endpoint is in another PZ");
        }
        long length = lmrTriplet.segmentLength();
        VerbsLmr lmr = null;
        if (length > 0) {
            lmr = ia.lmrsByLkey.get(lmrTriplet.lmrContext());
            boolean known = lmr != null && !lmr.freed;
            RmrBindArguments.checkLmr(known, known && lmr.contains(lmrTriplet.virtualAddress(), length), known && lmr.pz == pz);
            RmrBindArguments.checkLmrAccess((memPrivileges & MemPrivileges.REMOTE_READ) != 0,
                    (memPrivileges & (MemPrivileges.REMOTE_WRITE | IbExtension.MEM_PRIV_REMOTE_ATOMIC)) != 0, lmr.localRead,
                    lmr.localWrite);
        }
        int code = post(endpoint, lmr, lmrTriplet.virtualAddress(), length, memPrivileges, userCookie, completionFlags);
        ia.counters.post(Operation.RMR_BIND, length, code < 0 ? code : Codes.SUCCESS);
        if (code < 0) {
            throw new DatException(code, "ep", "the bind could not be posted", null);
        }
        return length > 0 ? code : 0;
    }

    /** Builds and posts the bind; returns the new context, or a negative DAT error code. */
    private synchronized int post(VerbsEp ep, VerbsLmr lmr, long address, long length, int privileges, long cookie, int flags) {
        checkOpen();
        if (lost != null) {
            throw Codes.exception(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.NO_SUBTYPE, "rmr", lost);
        }
        MemorySegment exact = MemorySegment.NULL;
        MemorySegment target = MemorySegment.NULL;
        if (lmr != null) {
            target = lmr.mr;
            if (!ia.windowBoundsEnforced()) {
                try {
                    exact = ia.verbs.regMr(pz.pd, MemorySegment.ofAddress(address).reinterpret(length), length,
                            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
                } catch (NativeException e) {
                    return Codes.fromNative(e, "lmrTriplet").code();
                }
                target = exact;
            }
        } else if (type == 1) {
            target = boundMr; // a type 1 unbind binds length 0, still naming an MR of the PD
        }
        int newKey = length > 0 ? nextKey(key) : key;
        MemorySegment replaced;
        MemorySegment wasBound = boundMr;
        synchronized (completions) {
            replaced = exactMrs.isEmpty() ? MemorySegment.NULL : exactMrs.getLast();
            // before the post: its completion may be reaped before this thread runs on
            if (!exact.equals(MemorySegment.NULL)) {
                exactMrs.add(exact);
            }
            inFlight++;
            boundMr = length > 0 ? target : MemorySegment.NULL;
        }
        BindOp op = new BindOp(this, type, key, newKey, valid, target, address, length, access(privileges), replaced,
                exact);
        if (type == 2) {
            mw.set(JAVA_INT, Structs.MW_RKEY, key); // the driver reads the window's current key here
        }
        int code = ep.requests.postBind(op, cookie, flags);
        if (code < 0 || code == EpRequests.BIND_FLUSHED || code == EpRequests.BIND_DONE) {
            synchronized (completions) { // nothing was posted: no completion comes
                inFlight--;
                exactMrs.remove(exact);
                boundMr = wasBound;
            }
            deregister(exact);
            return code == EpRequests.BIND_DONE ? key : code < 0 ? code : newKey;
        }
        if (type == 1) {
            newKey = mw.get(JAVA_INT, Structs.MW_RKEY); // the driver put the new key there
        } else {
            mw.set(JAVA_INT, Structs.MW_RKEY, newKey);
        }
        key = newKey;
        valid = length > 0;
        boundQp = type == 2 && length > 0 ? ep.currentQp() : MemorySegment.NULL;
        rebound(lmr);
        boundSegment = new LmrTriplet(lmr == null ? 0 : lmr.lkey, address, length);
        boundPrivileges = length > 0 ? privileges : 0;
        return newKey;
    }

    /** The window now belongs to {@code lmr} (or none): the LMRs' counts of bound RMRs follow (lock held). */
    private void rebound(VerbsLmr lmr) {
        if (boundLmr != null) {
            boundLmr.boundRmrs.decrementAndGet();
        }
        boundLmr = lmr;
        if (lmr != null) {
            lmr.boundRmrs.incrementAndGet();
        }
    }

    /**
     * A posted bind completed: reaped by a request EVD (its lock held) or by an Endpoint's drain of
     * the completions no EVD takes (its post lock held). Takes {@link #completions} alone.
     */
    void bindCompleted(BindOp op, boolean success) {
        MemorySegment done = success ? op.replaced() : op.exact();
        boolean release;
        synchronized (completions) {
            inFlight--;
            // a failed bind's MR the window still names (a type 1 unbind passes it to bind_mw) stays
            // registered: the next bind that completes moves the window off it, or the free
            release = !done.equals(MemorySegment.NULL) && !done.equals(boundMr) && exactMrs.remove(done);
        }
        if (release) {
            deregister(done);
        }
    }

    private void deregister(MemorySegment mr) {
        if (!mr.equals(MemorySegment.NULL)) {
            try {
                ia.verbs.deregMr(mr);
            } catch (NativeException e) {
                System.getLogger(VerbsRmr.class.getName()).log(System.Logger.Level.DEBUG, "ibv_dereg_mr of a window's MR", e);
            }
        }
    }

    @Override
    public synchronized RmrParams query(int rmrParamMask) {
        checkOpen();
        if (!RmrParamMask.isValid(rmrParamMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "rmrParamMask", "undefined bits");
        }
        return new RmrParams(ia, pz, boundSegment, boundPrivileges, valid ? key : 0);
    }

    @Override
    public void close() {
        if (freed || !ia.isUsable()) {
            return;
        }
        synchronized (completions) {
            if (inFlight > 0) {
                throw Codes.invalidState(DatReturn.NO_SUBTYPE, "a bind of the RMR is in progress");
            }
        }
        destroy();
    }

    /**
     * The QP {@code qp} is about to be destroyed: a type 2 window bound through it is deallocated
     * and a new, unbound window takes its place (see the class comment), and the MRs the old one
     * held are deregistered. Binds in flight through that QP are flushed with it. Called with the
     * IA's {@code cmLock} held and no post lock: a bind takes this monitor, then the post lock.
     */
    synchronized void releaseFrom(MemorySegment qp) {
        if (freed || lost != null || !boundQp.equals(qp)) {
            return;
        }
        dealloc(mw);
        boundQp = MemorySegment.NULL;
        valid = false;
        boundSegment = new LmrTriplet(0, 0, 0);
        boundPrivileges = 0;
        rebound(null);
        releaseMrs();
        try {
            mw = allocate(ia, pz, type);
            key = mw.get(JAVA_INT, Structs.MW_RKEY);
        } catch (DatException e) {
            mw = MemorySegment.NULL;
            lost = "the window could not be allocated again after the Endpoint it was bound through was freed: "
                    + e.getMessage();
            System.getLogger(VerbsRmr.class.getName()).log(System.Logger.Level.WARNING, lost);
        }
    }

    private void dealloc(MemorySegment window) {
        try {
            int result = (int) Inline.DEALLOC_MW.invokeExact(deallocFn, window);
            if (result != 0) {
                System.getLogger(VerbsRmr.class.getName()).log(System.Logger.Level.WARNING, "ibv_dealloc_mw: " + result);
            }
        } catch (Throwable t) {
            System.getLogger(VerbsRmr.class.getName()).log(System.Logger.Level.WARNING, "ibv_dealloc_mw failed", t);
        }
    }

    /** Deregisters the exact-range MRs the window held (this monitor held; the window is deallocated). */
    private void releaseMrs() {
        List<MemorySegment> held;
        synchronized (completions) {
            held = List.copyOf(exactMrs);
            exactMrs.clear();
            boundMr = MemorySegment.NULL;
        }
        for (MemorySegment mr : held) {
            deregister(mr);
        }
    }

    /** Deallocates the window (which invalidates its key), then the MRs it held. Idempotent. */
    void destroy() {
        synchronized (this) {
            if (freed) {
                return;
            }
            freed = true;
            if (lost == null) {
                dealloc(mw);
            }
            releaseMrs();
            rebound(null);
        }
        pz.users.decrementAndGet();
        ia.rmrs.remove(this);
    }
}
