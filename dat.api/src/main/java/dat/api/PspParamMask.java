package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The fields of the PSP parameters {@code DAT_PSP_PARAM} that {@code dat_psp_query} fills,
 * {@code DAT_PSP_PARAM_MASK}: a bit set with one bit per field. The constant names are the C names
 * without {@code DAT_PSP_FIELD_}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_psp_query(3DAT).
 */
@ProviderType
public final class PspParamMask {

    /** The field {@code ia_handle}: {@code DAT_PSP_FIELD_IA_HANDLE} = 0x1. */
    public static final int IA_HANDLE = 0x1;

    /** The field {@code conn_qual}: {@code DAT_PSP_FIELD_CONN_QUAL} = 0x2. */
    public static final int CONN_QUAL = 0x2;

    /** The field {@code evd_handle}: {@code DAT_PSP_FIELD_EVD_HANDLE} = 0x4. */
    public static final int EVD_HANDLE = 0x4;

    /** The field {@code psp_flags}: {@code DAT_PSP_FIELD_PSP_FLAGS} = 0x8. */
    public static final int PSP_FLAGS = 0x8;

    /** Every field: {@code DAT_PSP_FIELD_ALL} = 0xF. */
    public static final int ALL = 0xF;

    /** Not instantiable: constants and static helpers only. */
    private PspParamMask() {}

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
