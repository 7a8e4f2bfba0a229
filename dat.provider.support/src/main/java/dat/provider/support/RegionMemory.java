package dat.provider.support;

import dat.api.DatReturn;
import dat.api.MemPrivileges;
import dat.api.ext.IbExtension;
import java.lang.foreign.MemorySegment;

/**
 * The checks of the memory a consumer registers (dat_lmr_create(3DAT)): memory the native library
 * may hand to the device or to another thread for as long as the LMR lives, and that takes the
 * privileges asked for. A segment that fails them is refused with {@code DAT_INVALID_PARAMETER},
 * naming the region or the privileges, before any native call sees it.
 */
public final class RegionMemory {

    /** A thread that owns no arena: a segment it may access is accessible by every thread. */
    private static final Thread NO_OWNER = Thread.ofVirtual().unstarted(() -> { });

    /** The privileges that let the memory be written, locally or by a peer (an atomic writes too). */
    private static final int WRITE_PRIVILEGES = MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_WRITE | IbExtension.MEM_PRIV_REMOTE_ATOMIC;

    private RegionMemory() {
    }

    /**
     * Checks that memory registered with a write privilege can be written: a read-only segment
     * (a read-only mapping, {@code asReadOnly()}) takes none.
     *
     * @param memory the segment to register
     * @param privileges the privileges asked for
     * @throws dat.api.DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_ARG6}
     */
    public static void checkPrivileges(MemorySegment memory, int privileges) {
        if (memory.isReadOnly() && (privileges & WRITE_PRIVILEGES) != 0) {
            throw ReturnCodes.invalidParameterException(DatReturn.INVALID_ARG6, "memPrivileges",
                    "the memory is read-only: no write privilege can be granted");
        }
    }

    /**
     * Checks that {@code memory} can be registered: native (heap memory moves), its arena open,
     * and not confined to one thread (the provider's event thread and the native library read and
     * write it, and a downcall passing a confined segment from another thread throws).
     *
     * @param memory the segment to register
     * @throws dat.api.DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_ARG3}
     */
    public static void check(MemorySegment memory) {
        if (!memory.isNative()) {
            throw ReturnCodes.invalidParameterException(DatReturn.INVALID_ARG3, "region",
                    "heap memory moves: register native memory (an Arena's segment)");
        }
        if (!memory.scope().isAlive()) {
            throw ReturnCodes.invalidParameterException(DatReturn.INVALID_ARG3, "region", "the segment's arena is closed");
        }
        if (!memory.isAccessibleBy(NO_OWNER)) {
            throw ReturnCodes.invalidParameterException(DatReturn.INVALID_ARG3, "region",
                    "memory confined to one thread cannot be registered: other threads access it; "
                            + "allocate it from a shared, automatic or global arena");
        }
    }
}
