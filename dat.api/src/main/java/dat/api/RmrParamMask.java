package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The fields of the RMR parameters {@code DAT_RMR_PARAM} that {@code dat_rmr_query} fills,
 * {@code DAT_RMR_PARAM_MASK}: a bit set with one bit per field. The constant names are the C names
 * without {@code DAT_RMR_FIELD_}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_rmr_query(3DAT).
 */
@ProviderType
public final class RmrParamMask {

    /** The field {@code ia_handle}: {@code DAT_RMR_FIELD_IA_HANDLE} = 0x1. */
    public static final int IA_HANDLE = 0x1;

    /** The field {@code pz_handle}: {@code DAT_RMR_FIELD_PZ_HANDLE} = 0x2. */
    public static final int PZ_HANDLE = 0x2;

    /** The field {@code lmr_triplet}: {@code DAT_RMR_FIELD_LMR_TRIPLET} = 0x4. */
    public static final int LMR_TRIPLET = 0x4;

    /** The field {@code mem_priv}: {@code DAT_RMR_FIELD_MEM_PRIV} = 0x8. */
    public static final int MEM_PRIV = 0x8;

    /** The field {@code rmr_context}: {@code DAT_RMR_FIELD_RMR_CONTEXT} = 0x10. */
    public static final int RMR_CONTEXT = 0x10;

    /** Every field: {@code DAT_RMR_FIELD_ALL} = 0x1F. */
    public static final int ALL = 0x1F;

    /** Not instantiable: constants and static helpers only. */
    private RmrParamMask() {}

    /**
     * Whether a value sets only bits that DAT 1.2 defines for this type.
     *
     * @param mask a value to check
     * @return {@code true} if no bit outside {@link #ALL} is set
     */
    public static boolean isValid(int mask) {
        return (mask & ~ALL) == 0;
    }
}
