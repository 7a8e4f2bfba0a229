package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.DatReturn;
import dat.api.HandleType;
import dat.api.LmrParamMask;
import dat.api.LmrParams;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.MemoryType;
import dat.api.RegionDescription;
import dat.api.ext.IbExtension;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.ofi.internal.ffi.Ops;
import dat.provider.ofi.internal.ffi.Structs;
import dat.provider.support.RegionMemory;
import java.lang.foreign.MemorySegment;

/**
 * A Local Memory Region: one libfabric registration ({@code fi_mr_reg}) of native memory. The DAT
 * privileges map to access flags: local read is {@code FI_SEND | FI_WRITE} (the source of sends and
 * RDMA writes), local write {@code FI_RECV | FI_READ} (the target of receives and RDMA reads),
 * remote read {@code FI_REMOTE_READ}, remote write {@code FI_REMOTE_WRITE}; local privileges are
 * also checked in Java on every post. The LMR context is the provider's own number (the key of
 * {@link OfiIa#lmrsByContext}). The RMR context names the registration to peers: where the DAT
 * provider chooses keys ({@link Domain#pzKeys}) it is the LMR context, and the key is the PZ's
 * number and the context; else it is the provider's key ({@code fi_mr_key}), which must fit in 32
 * bits.
 */
final class OfiLmr extends OfiHandle implements LocalMemoryRegion {

    final OfiPz pz;
    private final MemorySegment memory;
    private final MemorySegment mr;
    private final RegionDescription region;
    private final MemoryType memType;
    final int lmrContext;
    final int rmrContext;
    /** {@code fi_mr_desc}: what libfabric wants beside each local buffer. */
    final long descriptor;
    private final long address;
    private final long length;
    private final int privileges;
    final boolean localRead;
    final boolean localWrite;
    /**
     * Freed by the consumer ({@code dat_lmr_free}), not by the IA's teardown: a receive naming it
     * whose completion is read afterwards fails ({@link WorkSlots#namesFreedLmr}).
     */
    volatile boolean freedByConsumer;
    /** How many RMRs are bound to a range of this LMR ({@link OfiRmr}): the LMR cannot be freed while any is. */
    final java.util.concurrent.atomic.AtomicInteger boundRmrs = new java.util.concurrent.atomic.AtomicInteger();

    OfiLmr(OfiIa ia, OfiPz pz, MemorySegment memory, long length, int privileges, RegionDescription region, MemoryType memType) {
        super(ia, HandleType.LMR, DatReturn.INVALID_HANDLE_LMR);
        RegionMemory.check(memory);
        if (length <= 0 || length > memory.byteSize()) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG4, "length", length + " is not in 1.." + memory.byteSize());
        }
        int atomic = ia.domain.atomics ? IbExtension.MEM_PRIV_REMOTE_ATOMIC : 0;
        if (!MemPrivileges.isValid(privileges & ~atomic)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG6, "memPrivileges", "undefined bits");
        }
        checkAtomicPrivilege(privileges, "memPrivileges");
        RegionMemory.checkPrivileges(memory, privileges);
        this.pz = pz;
        this.memory = memory.asSlice(0, length);
        this.region = region;
        this.memType = memType;
        this.length = length;
        this.privileges = privileges;
        this.localRead = (privileges & MemPrivileges.LOCAL_READ) != 0;
        this.localWrite = (privileges & MemPrivileges.LOCAL_WRITE) != 0;
        this.lmrContext = ia.newLmrContext();
        MemorySegment registered;
        try {
            long requestedKey = ia.domain.pzKeys ? ((long) pz.id << 32) | Integer.toUnsignedLong(lmrContext) : 0;
            registered = Ops.mrReg(ia.domain.domain, memory, length, access(privileges), requestedKey);
        } catch (NativeException e) {
            throw Codes.fromNative(e, "region");
        }
        long key = registered.get(JAVA_LONG, Structs.MR_KEY);
        if (!ia.domain.pzKeys && (key < 0 || key > 0xFFFF_FFFFL)) {
            Ops.close(registered);
            throw Codes.notSupported("region", "the libfabric provider chose key 0x" + Long.toHexString(key)
                    + ", wider than DAT's 32-bit rmr_context");
        }
        this.mr = registered;
        boolean remote = (privileges & (MemPrivileges.REMOTE_READ | MemPrivileges.REMOTE_WRITE)) != 0;
        // without remote privileges no rmr_context is generated (dat_lmr_create(3DAT): NULL, 0 here)
        this.rmrContext = !remote ? 0 : ia.domain.pzKeys ? lmrContext : (int) key;
        this.descriptor = registered.get(ADDRESS, Structs.MR_MEM_DESC).address();
        this.address = memory.address();
        pz.users.incrementAndGet();
        ia.lmrs.add(this);
        ia.lmrsByContext.put(lmrContext, this);
    }

    /**
     * {@code DAT_IB_MEM_PRIV_REMOTE_ATOMIC} comes only with remote write: libfabric grants remote
     * atomics through {@code FI_REMOTE_WRITE}, which would grant remote writes too.
     *
     * @throws dat.api.DatException {@code DAT_MODEL_NOT_SUPPORTED} for the atomic privilege alone
     */
    static void checkAtomicPrivilege(int privileges, String argument) {
        if ((privileges & IbExtension.MEM_PRIV_REMOTE_ATOMIC) != 0 && (privileges & MemPrivileges.REMOTE_WRITE) == 0) {
            throw Codes.notSupported(argument, "DAT_IB_MEM_PRIV_REMOTE_ATOMIC without DAT_MEM_PRIV_REMOTE_WRITE_FLAG: libfabric grants"
                    + " remote atomics only with remote write (FI_REMOTE_WRITE)");
        }
    }

    /**
     * The libfabric access flags of DAT memory privileges; {@code DAT_IB_MEM_PRIV_REMOTE_ATOMIC}
     * adds none: the remote write it comes with ({@link #checkAtomicPrivilege}) grants atomics.
     */
    static long access(int privileges) {
        long access = 0;
        if ((privileges & MemPrivileges.LOCAL_READ) != 0) {
            access |= Fi.SEND | Fi.WRITE;
        }
        if ((privileges & MemPrivileges.LOCAL_WRITE) != 0) {
            access |= Fi.RECV | Fi.READ;
        }
        if ((privileges & MemPrivileges.REMOTE_READ) != 0) {
            access |= Fi.REMOTE_READ;
        }
        if ((privileges & MemPrivileges.REMOTE_WRITE) != 0) {
            access |= Fi.REMOTE_WRITE;
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
        return lmrContext;
    }

    @Override
    public int rmrContext() {
        return rmrContext;
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
        return new LmrParams(ia, memType, region, length, pz, privileges, lmrContext, rmrContext, length, address);
    }

    @Override
    public void close() {
        if (freed || !ia.isUsable()) {
            return;
        }
        if (boundRmrs.get() > 0) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_LMR_IN_USE, "an RMR is bound to the LMR");
        }
        freedByConsumer = true;
        destroy();
    }

    void destroy() {
        synchronized (this) {
            if (freed) {
                return;
            }
            freed = true;
        }
        ia.lmrsByContext.remove(lmrContext, this);
        try {
            Ops.close(mr);
        } catch (NativeException e) {
            System.getLogger(OfiLmr.class.getName()).log(System.Logger.Level.WARNING, "fi_close of an MR failed", e);
        }
        pz.users.decrementAndGet();
        ia.lmrs.remove(this);
    }
}
