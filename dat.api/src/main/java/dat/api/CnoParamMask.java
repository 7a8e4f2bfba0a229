package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The fields of the CNO parameters {@code DAT_CNO_PARAM} that {@code dat_cno_query} fills,
 * {@code DAT_CNO_PARAM_MASK}: a bit set with one bit per field. The constant names are the C names
 * without {@code DAT_CNO_FIELD_}.
 *
 * <p>Source: DAT 1.2 {@code <dat/udat.h>}; see dat_cno_query(3DAT).
 */
@ProviderType
public final class CnoParamMask {

    /** The field {@code ia_handle}: {@code DAT_CNO_FIELD_IA_HANDLE} = 0x1. */
    public static final int IA_HANDLE = 0x1;

    /** The field {@code agent}: {@code DAT_CNO_FIELD_AGENT} = 0x2. */
    public static final int AGENT = 0x2;

    /** Every field: {@code DAT_CNO_FIELD_ALL} = 0x3. */
    public static final int ALL = 0x3;

    /** Not instantiable: constants and static helpers only. */
    private CnoParamMask() {}

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
