package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dat.api.DatReturn;
import dat.api.HandleType;
import dat.api.LmrParamMask;
import dat.api.LmrParams;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.MemoryType;
import dat.api.ProtectionZone;
import dat.api.RegionDescription;
import dat.api.ext.IbExtension;
import dat.provider.support.RegionMemory;
import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import java.lang.foreign.MemorySegment;

/**
 * A Local Memory Region: one {@code ibv_mr} over native memory. The DAT privileges map to
 * {@code IBV_ACCESS_*} exactly: local read is always allowed by verbs, so it is checked in Java
 * only; {@code DAT_MEM_PRIV_LOCAL_WRITE} is {@code IBV_ACCESS_LOCAL_WRITE};
 * {@code DAT_MEM_PRIV_REMOTE_READ} is {@code IBV_ACCESS_REMOTE_READ};
 * {@code DAT_MEM_PRIV_REMOTE_WRITE} is {@code IBV_ACCESS_REMOTE_WRITE} plus
 * {@code IBV_ACCESS_LOCAL_WRITE}, which verbs requires with remote write (the local-write
 * privilege the consumer did not ask for is still refused in Java);
 * {@code DAT_IB_MEM_PRIV_REMOTE_ATOMIC}, where the device has atomics, is
 * {@code IBV_ACCESS_REMOTE_ATOMIC} (plus local write, which verbs requires with it). Where the
 * device has memory windows the MR may also have them bound ({@code IBV_ACCESS_MW_BIND}). The LMR
 * context is the {@code lkey}, the RMR context the {@code rkey}.
 */
final class VerbsLmr extends VerbsHandle implements LocalMemoryRegion {

    static final int IBV_ACCESS_LOCAL_WRITE = 1;
    static final int IBV_ACCESS_REMOTE_WRITE = 2;
    static final int IBV_ACCESS_REMOTE_READ = 4;
    static final int IBV_ACCESS_REMOTE_ATOMIC = 8;
    static final int IBV_ACCESS_MW_BIND = 16;

    final VerbsPz pz;
    private final MemorySegment memory;
    final MemorySegment mr;
    private final RegionDescription region;
    private final MemoryType memType;
    final int lkey;
    final int rkey;
    private final long address;
    private final long length;
    private final int privileges;
    final boolean localRead;
    /** The RMRs bound to this LMR (dat_lmr_free(3DAT) refuses to free it while there are any). */
    final java.util.concurrent.atomic.AtomicInteger boundRmrs = new java.util.concurrent.atomic.AtomicInteger();
    /** What a destroy does besides deregistering: the release of a shared-memory cookie. */
    private volatile Runnable onDestroy = () -> { };
    final boolean localWrite;

    VerbsLmr(VerbsIa ia, VerbsPz pz, MemorySegment memory, long length, int privileges, RegionDescription region,
            MemoryType memType) {
        super(ia, HandleType.LMR, DatReturn.INVALID_HANDLE_LMR);
        RegionMemory.check(memory);
        if (length <= 0 || length > memory.byteSize() || length > ia.maxMrSize) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG4, "length",
                    length + " is not in 1.." + Math.min(memory.byteSize(), ia.maxMrSize));
        }
        int atomic = ia.atomics() ? IbExtension.MEM_PRIV_REMOTE_ATOMIC : 0;
        if (!MemPrivileges.isValid(privileges & ~atomic)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG6, "memPrivileges", "undefined bits");
        }
        RegionMemory.checkPrivileges(memory, privileges);
        this.pz = pz;
        this.memory = memory.asSlice(0, length);
        this.region = region;
        this.memType = memType;
        this.length = length;
        this.privileges = privileges;
        this.localRead = (privileges & MemPrivileges.LOCAL_READ) != 0;
        this.localWrite = (privileges & MemPrivileges.LOCAL_WRITE) != 0;
        try {
            mr = ia.verbs.regMr(pz.pd, memory, length, access(privileges) | (ia.windowType() > 0 && ia.windowBoundsEnforced() ? IBV_ACCESS_MW_BIND : 0));
        } catch (NativeException e) {
            throw Codes.fromNative(e, "region");
        }
        this.lkey = mr.get(JAVA_INT, Structs.MR_LKEY);
        this.rkey = mr.get(JAVA_INT, Structs.MR_RKEY);
        this.address = memory.address();
        pz.users.incrementAndGet();
        ia.lmrs.add(this);
        ia.lmrsByLkey.put(lkey, this);
    }

    /** The {@code IBV_ACCESS_*} flags of DAT memory privileges. */
    static int access(int privileges) {
        int access = 0;
        if ((privileges & MemPrivileges.LOCAL_WRITE) != 0) {
            access |= IBV_ACCESS_LOCAL_WRITE;
        }
        if ((privileges & MemPrivileges.REMOTE_WRITE) != 0) {
            access |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
        }
        if ((privileges & MemPrivileges.REMOTE_READ) != 0) {
            access |= IBV_ACCESS_REMOTE_READ;
        }
        if ((privileges & IbExtension.MEM_PRIV_REMOTE_ATOMIC) != 0) {
            access |= IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE;
        }
        return access;
    }

    /** Whether {@code [start, start + bytes)} lies inside the registered range (overflow-safe). */
    boolean contains(long start, long bytes) {
        long offset = start - address;
        return offset >= 0 && bytes >= 0 && offset <= length && bytes <= length - offset;
    }

    @Override
    public int lmrContext() {
        return lkey;
    }

    @Override
    public int rmrContext() {
        return rkey;
    }

    @Override
    public long registeredAddress() {
        return address;
    }

    @Override
    public long registeredSize() {
        return length;
    }

    @Override
    public MemorySegment memory() {
        return memory;
    }

    /** Whether the registered memory's arena is still open: a post names no memory that is gone. */
    boolean memoryAlive() {
        return memory.scope().isAlive();
    }

    @Override
    public LmrParams query(int lmrParamMask) {
        checkOpen();
        if (!LmrParamMask.isValid(lmrParamMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "lmrParamMask", "undefined bits");
        }
        return new LmrParams(ia, memType, region, length, pz, privileges, lkey, rkey, length, address);
    }

    @Override
    public void close() {
        if (freed || !ia.isUsable()) {
            return;
        }
        if (boundRmrs.get() > 0) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_LMR_IN_USE, "an RMR is bound to the LMR");
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
        ia.lmrsByLkey.remove(lkey, this);
        try {
            ia.verbs.deregMr(mr);
        } catch (NativeException e) {
            System.getLogger(VerbsLmr.class.getName()).log(System.Logger.Level.WARNING, "ibv_dereg_mr failed", e);
        }
        pz.users.decrementAndGet();
        ia.lmrs.remove(this);
        onDestroy.run();
    }

    /** Runs {@code action} when the LMR is destroyed (freed, or its IA closed). */
    void onDestroy(Runnable action) {
        onDestroy = action;
    }

    /**
     * dat_lmr_create(3DAT) by memory type: VIRTUAL (native memory), LMR (an existing LMR's memory,
     * again, in any PZ of the IA) and SHARED_VIRTUAL (a mapped file; every registration of one
     * cookie in this process must name the same memory).
     */
    static VerbsLmr register(VerbsIa ia, MemoryType memType, RegionDescription region, long length, ProtectionZone pz,
            int memPrivileges) {
        if (memType == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "memType", "null");
        }
        if (memType == MemoryType.LMR) {
            // the memory of an existing LMR, registered again (in any PZ of this IA)
            if (!(region instanceof RegionDescription.OfLmr ofLmr)) {
                throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "region", "DAT_MEM_TYPE_LMR needs an LMR handle");
            }
            if (!(ofLmr.lmr() instanceof VerbsLmr source) || source.ia != ia || !source.isOpen()) {
                throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_LMR, "region", "not an open LMR of this IA");
            }
            // the region is the whole LMR, "Length parameter is ignored" (dat_lmr_create(3DAT))
            return new VerbsLmr(ia, VerbsPz.check(ia, pz, "pz"), source.memory(), source.registeredSize(), memPrivileges, region, memType);
        }
        if (memType == MemoryType.SHARED_VIRTUAL) {
            // memory the platform shares between processes: in Java a mapped file. Each consumer's
            // registration is its own MR over its own mapping; in one process, every registration
            // of a cookie must name the same memory
            if (!(region instanceof RegionDescription.SharedMemory shared)) {
                throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "region",
                        "DAT_MEM_TYPE_SHARED_VIRTUAL needs shared memory and a cookie");
            }
            if (!shared.memory().isMapped()) {
                throw Codes.exception(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE, "region",
                        "DAT_MEM_TYPE_SHARED_VIRTUAL memory must be shared by the platform: a mapped file (FileChannel.map)");
            }
            VerbsPz verbsPz = VerbsPz.check(ia, pz, "pz");
            byte[] cookie = shared.cookie() == null ? new byte[0] : shared.cookie().clone();
            ia.directory().attachShared(cookie, shared.memory().address(), length);
            try {
                VerbsLmr lmr = new VerbsLmr(ia, verbsPz, shared.memory(), length, memPrivileges, region, memType);
                lmr.onDestroy(() -> ia.directory().detachShared(cookie));
                return lmr;
            } catch (RuntimeException e) {
                ia.directory().detachShared(cookie);
                throw e;
            }
        }
        if (memType != MemoryType.VIRTUAL) {
            throw Codes.exception(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "memType",
                    memType + " is not supported by the verbs provider (VIRTUAL, LMR and SHARED_VIRTUAL are)");
        }
        if (!(region instanceof RegionDescription.Virtual virtual)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "region", "VIRTUAL memory needs a Virtual region");
        }
        VerbsPz verbsPz = VerbsPz.check(ia, pz, "pz");
        return new VerbsLmr(ia, verbsPz, virtual.memory(), length, memPrivileges, region, memType);
    }
}
