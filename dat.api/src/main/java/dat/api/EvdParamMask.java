package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The fields of the Event Dispatcher parameters {@code DAT_EVD_PARAM} that {@code dat_evd_query}
 * fills, {@code DAT_EVD_PARAM_MASK}: a bit set with one bit per field. The constant names are the C
 * names without {@code DAT_EVD_FIELD_}.
 *
 * <p>Source: DAT 1.2 {@code <dat/udat.h>}; see dat_evd_query(3DAT).
 */
@ProviderType
public final class EvdParamMask {

    /** The field {@code ia_handle}: {@code DAT_EVD_FIELD_IA_HANDLE} = 0x1. */
    public static final int IA_HANDLE = 0x1;

    /** The field {@code evd_qlen}: {@code DAT_EVD_FIELD_EVD_QLEN} = 0x2. */
    public static final int EVD_QLEN = 0x2;

    /** The field {@code evd_state}: {@code DAT_EVD_FIELD_EVD_STATE} = 0x4. */
    public static final int EVD_STATE = 0x4;

    /** The field {@code cno_handle}: {@code DAT_EVD_FIELD_CNO} = 0x8. */
    public static final int CNO = 0x8;

    /** The field {@code evd_flags}: {@code DAT_EVD_FIELD_EVD_FLAGS} = 0x10. */
    public static final int EVD_FLAGS = 0x10;

    /** Every field: {@code DAT_EVD_FIELD_ALL} = 0x1F. */
    public static final int ALL = 0x1F;

    /** Not instantiable: constants and static helpers only. */
    private EvdParamMask() {}

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
