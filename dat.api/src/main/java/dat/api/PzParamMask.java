package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The fields of the PZ parameters {@code DAT_PZ_PARAM} that {@code dat_pz_query} fills,
 * {@code DAT_PZ_PARAM_MASK}: a bit set with one bit per field. The constant names are the C names
 * without {@code DAT_PZ_FIELD_}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_pz_query(3DAT).
 */
@ProviderType
public final class PzParamMask {

    /** The field {@code ia_handle}: {@code DAT_PZ_FIELD_IA_HANDLE} = 0x1. */
    public static final int IA_HANDLE = 0x1;

    /** Every field: {@code DAT_PZ_FIELD_ALL} = 0x1. */
    public static final int ALL = 0x1;

    /** Not instantiable: constants and static helpers only. */
    private PzParamMask() {}

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
