package dat.provider.sim.internal.core;

import dat.api.DatReturn;
import dat.api.HandleType;
import dat.api.LmrParamMask;
import dat.api.LmrParams;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.MemoryType;
import dat.api.RegionDescription;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Local Memory Region: dat_lmr_create(3DAT), dat_lmr_query(3DAT), dat_lmr_free(3DAT). The
 * registered range is exactly the consumer's segment (no page rounding), and every access goes
 * through that segment, so a bad address can fail an operation but never touch other memory.
 *
 * <p>With remote privileges the LMR is also a {@link RemoteWindow} under its {@code rmr_context};
 * without them it has no RMR context (0), as the page says.
 */
public final class SimLmr extends SimHandle implements LocalMemoryRegion, RemoteWindow {

    private final SimIa ia;
    private final MemoryType memType;
    private final RegionDescription region;
    private final long length;
    final SimPz pz;
    final int privileges;
    private final MemorySegment memory;
    private final long base;
    private final SimLmr parent;
    private final byte[] cookie;
    private final int lmrContext;
    private final int rmrContext;
    /** RMRs bound to this LMR and LMRs sharing its registration. */
    final AtomicInteger users = new AtomicInteger();

    SimLmr(SimIa ia, MemoryType memType, RegionDescription region, long length, SimPz pz, int privileges,
            MemorySegment memory, SimLmr parent, byte[] cookie) {
        super(HandleType.LMR, DatReturn.INVALID_HANDLE_LMR);
        this.ia = ia;
        this.memType = memType;
        this.region = region;
        this.length = length;
        this.pz = pz;
        this.privileges = privileges;
        this.memory = memory;
        this.base = memory.address();
        this.parent = parent;
        this.cookie = cookie;
        pz.users.incrementAndGet();
        if (parent != null) {
            parent.users.incrementAndGet();
        }
        this.lmrContext = ia.provider.lmrContexts.register(this);
        boolean remote = (privileges & (MemPrivileges.REMOTE_READ | MemPrivileges.REMOTE_WRITE
                | dat.api.ext.IbExtension.MEM_PRIV_REMOTE_ATOMIC)) != 0;
        this.rmrContext = remote ? ia.provider.rmrContexts.register(this) : 0;
    }

    @Override
    SimIa ia() {
        return ia;
    }

    long length() {
        return length;
    }

    /** Whether {@code [address, address + len)} lies inside the registered range. */
    boolean contains(long address, long len) {
        long offset = address - base;
        return len >= 0 && offset >= 0 && offset <= memory.byteSize() && len <= memory.byteSize() - offset;
    }

    long offsetOf(long address) {
        return address - base;
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
        return base;
    }

    @Override
    public long registeredSize() {
        return memory.byteSize();
    }

    @Override
    public MemorySegment memory() {
        return memory;
    }

    @Override
    public LmrParams query(int lmrParamMask) {
        checkQueryMask(LmrParamMask.isValid(lmrParamMask), "lmrParamMask", lmrParamMask);
        return new LmrParams(ia, memType, region, length, pz, privileges, lmrContext, rmrContext, memory.byteSize(), base);
    }

    @Override
    public void close() {
        freeUnlessUsed(users, DatReturn.INVALID_STATE_LMR_IN_USE,
                n -> "the LMR is in use by " + n + " bound RMR(s) or sharing LMR(s) (dat_lmr_free(3DAT))", this::destroy);
        fence();
    }

    /**
     * Returns once no transport moves bytes of the freed memory: after {@link #destroy}, without the
     * CM lock (a transport's thread may need it to finish the frame the fence waits for).
     */
    void fence() {
        ia.adapter.transport.fence(memory());
    }

    /** Frees the LMR; the caller then calls {@link #fence} once it let go of the CM lock. */
    void destroy() {
        if (freed) {
            return;
        }
        freed = true;
        ia.provider.lmrContexts.remove(lmrContext);
        ia.provider.rmrContexts.remove(rmrContext);
        pz.users.decrementAndGet();
        if (parent != null) {
            parent.users.decrementAndGet();
        }
        if (cookie != null) {
            ia.provider.detachShared(cookie);
        }
        ia.lmrs.remove(this);
        ia.adapter.lmrs.decrementAndGet();
    }

    // RemoteWindow: the whole registered range under rmr_context
    @Override
    public boolean windowValid() {
        return !freed && ia.usable();
    }

    @Override
    public SimIa windowIa() {
        return ia;
    }

    @Override
    public SimPz windowPz() {
        return pz;
    }

    @Override
    public int windowPrivileges() {
        return privileges;
    }

    @Override
    public long windowStart() {
        return base;
    }

    @Override
    public long windowLength() {
        return memory.byteSize();
    }

    @Override
    public MemorySegment windowMemory() {
        return memory;
    }

    @Override
    public long memoryBase() {
        return base;
    }
}
