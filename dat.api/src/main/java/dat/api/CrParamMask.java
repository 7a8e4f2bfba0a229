package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The fields of the Connection Request parameters {@code DAT_CR_PARAM} that {@code dat_cr_query}
 * fills, {@code DAT_CR_PARAM_MASK}: a bit set with one bit per field. The constant names are the C
 * names without {@code DAT_CR_FIELD_}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_cr_query(3DAT).
 */
@ProviderType
public final class CrParamMask {

    /**
     * The field {@code remote_ia_address_ptr}: {@code DAT_CR_FIELD_REMOTE_IA_ADDRESS_PTR} = 0x1.
     */
    public static final int REMOTE_IA_ADDRESS_PTR = 0x1;

    /** The field {@code remote_port_qual}: {@code DAT_CR_FIELD_REMOTE_PORT_QUAL} = 0x2. */
    public static final int REMOTE_PORT_QUAL = 0x2;

    /** The field {@code private_data_size}: {@code DAT_CR_FIELD_PRIVATE_DATA_SIZE} = 0x4. */
    public static final int PRIVATE_DATA_SIZE = 0x4;

    /** The field {@code private_data}: {@code DAT_CR_FIELD_PRIVATE_DATA} = 0x8. */
    public static final int PRIVATE_DATA = 0x8;

    /** The field {@code local_ep_handle}: {@code DAT_CR_FIELD_LOCAL_EP_HANDLE} = 0x10. */
    public static final int LOCAL_EP_HANDLE = 0x10;

    /** Every field: {@code DAT_CR_FIELD_ALL} = 0x1F. */
    public static final int ALL = 0x1F;

    /** Not instantiable: constants and static helpers only. */
    private CrParamMask() {}

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
