package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The fields of the SRQ parameters {@code DAT_SRQ_PARAM} that {@code dat_srq_query} fills,
 * {@code DAT_SRQ_PARAM_MASK}: a bit set with one bit per field. The constant names are the C names
 * without {@code DAT_SRQ_FIELD_}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_srq_query(3DAT).
 */
@ProviderType
public final class SrqParamMask {

    /** The field {@code ia_handle}: {@code DAT_SRQ_FIELD_IA_HANDLE} = 0x1. */
    public static final int IA_HANDLE = 0x1;

    /** The field {@code srq_state}: {@code DAT_SRQ_FIELD_SRQ_STATE} = 0x2. */
    public static final int SRQ_STATE = 0x2;

    /** The field {@code pz_handle}: {@code DAT_SRQ_FIELD_PZ_HANDLE} = 0x4. */
    public static final int PZ_HANDLE = 0x4;

    /** The field {@code max_recv_dtos}: {@code DAT_SRQ_FIELD_MAX_RECV_DTO} = 0x8. */
    public static final int MAX_RECV_DTO = 0x8;

    /** The field {@code max_recv_iov}: {@code DAT_SRQ_FIELD_MAX_RECV_IOV} = 0x10. */
    public static final int MAX_RECV_IOV = 0x10;

    /** The field {@code low_watermark}: {@code DAT_SRQ_FIELD_LOW_WATERMARK} = 0x20. */
    public static final int LOW_WATERMARK = 0x20;

    /** The field {@code available_dto_count}: {@code DAT_SRQ_FIELD_AVAILABLE_DTO_COUNT} = 0x40. */
    public static final int AVAILABLE_DTO_COUNT = 0x40;

    /**
     * The field {@code outstanding_dto_count}: {@code DAT_SRQ_FIELD_OUTSTANDING_DTO_COUNT} = 0x80.
     */
    public static final int OUTSTANDING_DTO_COUNT = 0x80;

    /** Every field: {@code DAT_SRQ_FIELD_ALL} = 0xFF. */
    public static final int ALL = 0xFF;

    /** Not instantiable: constants and static helpers only. */
    private SrqParamMask() {}

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
