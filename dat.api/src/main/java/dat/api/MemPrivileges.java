package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The access an LMR or RMR grants, {@code DAT_MEM_PRIV_FLAGS}: the {@code privileges} argument of
 * {@code dat_lmr_create} and the {@code mem_priv} argument of {@code dat_rmr_bind}; a bit set.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_lmr_create(3DAT), dat_rmr_bind(3DAT),
 * dat_lmr_query(3DAT), dat_rmr_query(3DAT).
 */
@ProviderType
public final class MemPrivileges {

    /** No access: {@code DAT_MEM_PRIV_NONE_FLAG} = 0x00. */
    public static final int NONE = 0x00;

    /**
     * The local side may read: the memory may be the source of a send or an RDMA Write:
     * {@code DAT_MEM_PRIV_LOCAL_READ_FLAG} = 0x01.
     */
    public static final int LOCAL_READ = 0x01;

    /** The remote side may read it with RDMA Read: {@code DAT_MEM_PRIV_REMOTE_READ_FLAG} = 0x02. */
    public static final int REMOTE_READ = 0x02;

    /**
     * The local side may write: the memory may be the target of a receive or an RDMA Read:
     * {@code DAT_MEM_PRIV_LOCAL_WRITE_FLAG} = 0x10.
     */
    public static final int LOCAL_WRITE = 0x10;

    /**
     * The remote side may write it with RDMA Write: {@code DAT_MEM_PRIV_REMOTE_WRITE_FLAG} = 0x20.
     */
    public static final int REMOTE_WRITE = 0x20;

    /** All four accesses: {@code DAT_MEM_PRIV_ALL_FLAG} = 0x33. */
    public static final int ALL = 0x33;

    /**
     * Solaris specific, not described by the manual pages: relaxed ordering disabled for this
     * memory: {@code DAT_MEM_PRIV_RO_DISABLE_FLAG} = 0x100.
     */
    public static final int RO_DISABLE = 0x100;

    /**
     * DAT 1.0 privilege, kept by the 1.2 header: local and remote read,
     * {@code DAT_MEM_PRIV_READ_FLAG} = 0x03.
     */
    public static final int READ = LOCAL_READ | REMOTE_READ;

    /**
     * DAT 1.0 privilege, kept by the 1.2 header: local and remote write,
     * {@code DAT_MEM_PRIV_WRITE_FLAG} = 0x30.
     */
    public static final int WRITE = LOCAL_WRITE | REMOTE_WRITE;

    /** Every bit DAT 1.2 defines for this type, the union of the constants above. */
    private static final int DEFINED_BITS =
            LOCAL_READ | REMOTE_READ | LOCAL_WRITE | REMOTE_WRITE | ALL | RO_DISABLE;

    /** Not instantiable: constants and static helpers only. */
    private MemPrivileges() {}

    /**
     * Whether a value sets only bits that DAT 1.2 defines for this type.
     *
     * @param flags a value to check
     * @return {@code true} if every bit it sets belongs to a constant of this class
     */
    public static boolean isValid(int flags) {
        return (flags & ~DEFINED_BITS) == 0;
    }
}
