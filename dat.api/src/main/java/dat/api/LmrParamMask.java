package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The fields of the LMR parameters {@code DAT_LMR_PARAM} that {@code dat_lmr_query} fills,
 * {@code DAT_LMR_PARAM_MASK}: a bit set with one bit per field. The constant names are the C names
 * without {@code DAT_LMR_FIELD_}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_lmr_query(3DAT).
 */
@ProviderType
public final class LmrParamMask {

    /** The field {@code ia_handle}: {@code DAT_LMR_FIELD_IA_HANDLE} = 0x1. */
    public static final int IA_HANDLE = 0x1;

    /** The field {@code mem_type}: {@code DAT_LMR_FIELD_MEM_TYPE} = 0x2. */
    public static final int MEM_TYPE = 0x2;

    /** The field {@code region_desc}: {@code DAT_LMR_FIELD_REGION_DESC} = 0x4. */
    public static final int REGION_DESC = 0x4;

    /** The field {@code length}: {@code DAT_LMR_FIELD_LENGTH} = 0x8. */
    public static final int LENGTH = 0x8;

    /** The field {@code pz_handle}: {@code DAT_LMR_FIELD_PZ_HANDLE} = 0x10. */
    public static final int PZ_HANDLE = 0x10;

    /** The field {@code mem_priv}: {@code DAT_LMR_FIELD_MEM_PRIV} = 0x20. */
    public static final int MEM_PRIV = 0x20;

    /** The field {@code lmr_context}: {@code DAT_LMR_FIELD_LMR_CONTEXT} = 0x40. */
    public static final int LMR_CONTEXT = 0x40;

    /** The field {@code rmr_context}: {@code DAT_LMR_FIELD_RMR_CONTEXT} = 0x80. */
    public static final int RMR_CONTEXT = 0x80;

    /** The field {@code registered_size}: {@code DAT_LMR_FIELD_REGISTERED_SIZE} = 0x100. */
    public static final int REGISTERED_SIZE = 0x100;

    /** The field {@code registered_address}: {@code DAT_LMR_FIELD_REGISTERED_ADDRESS} = 0x200. */
    public static final int REGISTERED_ADDRESS = 0x200;

    /** Every field: {@code DAT_LMR_FIELD_ALL} = 0x3FF. */
    public static final int ALL = 0x3FF;

    /** Not instantiable: constants and static helpers only. */
    private LmrParamMask() {}

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
