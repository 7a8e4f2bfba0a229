package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The fields of the IA attributes {@code DAT_IA_ATTR} that {@code dat_ia_query} fills,
 * {@code DAT_IA_ATTR_MASK}: a 64-bit bit set with one bit per field. The constant names are the C
 * names without {@code DAT_IA_FIELD_}.
 *
 * <p>The header's other legacy names are left out: {@code DAT_IA_ALL} is {@link #ALL}, and
 * {@code DAT_IA_FIELD_IA_MAX_DTO_PER_OP} expands to no valid expression in the 1.2 header (it
 * pastes the two tokens {@code DAT_IA_FIELD_IA_} and {@code MAX_DTO_PER_EP_IN}, neither of which is
 * defined).
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_ia_query(3DAT).
 */
@ProviderType
public final class IaAttrMask {

    /** The field {@code adapter_name}: {@code DAT_IA_FIELD_IA_ADAPTER_NAME} = 0x1. */
    public static final long IA_ADAPTER_NAME = 0x1L;

    /** The field {@code vendor_name}: {@code DAT_IA_FIELD_IA_VENDOR_NAME} = 0x2. */
    public static final long IA_VENDOR_NAME = 0x2L;

    /**
     * The field {@code hardware_version_major}: {@code DAT_IA_FIELD_IA_HARDWARE_MAJOR_VERSION} =
     * 0x4.
     */
    public static final long IA_HARDWARE_MAJOR_VERSION = 0x4L;

    /**
     * The field {@code hardware_version_minor}: {@code DAT_IA_FIELD_IA_HARDWARE_MINOR_VERSION} =
     * 0x8.
     */
    public static final long IA_HARDWARE_MINOR_VERSION = 0x8L;

    /**
     * The field {@code firmware_version_major}: {@code DAT_IA_FIELD_IA_FIRMWARE_MAJOR_VERSION} =
     * 0x10.
     */
    public static final long IA_FIRMWARE_MAJOR_VERSION = 0x10L;

    /**
     * The field {@code firmware_version_minor}: {@code DAT_IA_FIELD_IA_FIRMWARE_MINOR_VERSION} =
     * 0x20.
     */
    public static final long IA_FIRMWARE_MINOR_VERSION = 0x20L;

    /** The field {@code ia_address_ptr}: {@code DAT_IA_FIELD_IA_ADDRESS_PTR} = 0x40. */
    public static final long IA_ADDRESS_PTR = 0x40L;

    /** The field {@code max_eps}: {@code DAT_IA_FIELD_IA_MAX_EPS} = 0x80. */
    public static final long IA_MAX_EPS = 0x80L;

    /** The field {@code max_dto_per_ep}: {@code DAT_IA_FIELD_IA_MAX_DTO_PER_EP} = 0x100. */
    public static final long IA_MAX_DTO_PER_EP = 0x100L;

    /**
     * The field {@code max_rdma_read_per_ep_in}: {@code DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_IN} =
     * 0x200.
     */
    public static final long IA_MAX_RDMA_READ_PER_EP_IN = 0x200L;

    /**
     * The field {@code max_rdma_read_per_ep_out}: {@code DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_OUT}
     * = 0x400.
     */
    public static final long IA_MAX_RDMA_READ_PER_EP_OUT = 0x400L;

    /** The field {@code max_evds}: {@code DAT_IA_FIELD_IA_MAX_EVDS} = 0x800. */
    public static final long IA_MAX_EVDS = 0x800L;

    /** The field {@code max_evd_qlen}: {@code DAT_IA_FIELD_IA_MAX_EVD_QLEN} = 0x1000. */
    public static final long IA_MAX_EVD_QLEN = 0x1000L;

    /**
     * The field {@code max_iov_segments_per_dto}: {@code DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_DTO}
     * = 0x2000.
     */
    public static final long IA_MAX_IOV_SEGMENTS_PER_DTO = 0x2000L;

    /** The field {@code max_lmrs}: {@code DAT_IA_FIELD_IA_MAX_LMRS} = 0x4000. */
    public static final long IA_MAX_LMRS = 0x4000L;

    /**
     * The field {@code max_lmr_block_size}: {@code DAT_IA_FIELD_IA_MAX_LMR_BLOCK_SIZE} = 0x8000.
     */
    public static final long IA_MAX_LMR_BLOCK_SIZE = 0x8000L;

    /**
     * The field {@code max_lmr_virtual_address}: {@code DAT_IA_FIELD_IA_MAX_LMR_VIRTUAL_ADDRESS} =
     * 0x10000.
     */
    public static final long IA_MAX_LMR_VIRTUAL_ADDRESS = 0x1_0000L;

    /** The field {@code max_pzs}: {@code DAT_IA_FIELD_IA_MAX_PZS} = 0x20000. */
    public static final long IA_MAX_PZS = 0x2_0000L;

    /** The field {@code max_message_size}: {@code DAT_IA_FIELD_IA_MAX_MESSAGE_SIZE} = 0x40000. */
    public static final long IA_MAX_MESSAGE_SIZE = 0x4_0000L;

    /** The field {@code max_rdma_size}: {@code DAT_IA_FIELD_IA_MAX_RDMA_SIZE} = 0x80000. */
    public static final long IA_MAX_RDMA_SIZE = 0x8_0000L;

    /** The field {@code max_rmrs}: {@code DAT_IA_FIELD_IA_MAX_RMRS} = 0x100000. */
    public static final long IA_MAX_RMRS = 0x10_0000L;

    /**
     * The field {@code max_rmr_target_address}: {@code DAT_IA_FIELD_IA_MAX_RMR_TARGET_ADDRESS} =
     * 0x200000.
     */
    public static final long IA_MAX_RMR_TARGET_ADDRESS = 0x20_0000L;

    /** The field {@code max_srqs}: {@code DAT_IA_FIELD_IA_MAX_SRQS} = 0x400000. */
    public static final long IA_MAX_SRQS = 0x40_0000L;

    /** The field {@code max_ep_per_srq}: {@code DAT_IA_FIELD_IA_MAX_EP_PER_SRQ} = 0x800000. */
    public static final long IA_MAX_EP_PER_SRQ = 0x80_0000L;

    /** The field {@code max_recv_per_srq}: {@code DAT_IA_FIELD_IA_MAX_RECV_PER_SRQ} = 0x1000000. */
    public static final long IA_MAX_RECV_PER_SRQ = 0x100_0000L;

    /**
     * The field {@code max_iov_segments_per_rdma_read}:
     * {@code DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_RDMA_READ} = 0x2000000.
     */
    public static final long IA_MAX_IOV_SEGMENTS_PER_RDMA_READ = 0x200_0000L;

    /**
     * The field {@code max_iov_segments_per_rdma_write}:
     * {@code DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_RDMA_WRITE} = 0x4000000.
     */
    public static final long IA_MAX_IOV_SEGMENTS_PER_RDMA_WRITE = 0x400_0000L;

    /** The field {@code max_rdma_read_in}: {@code DAT_IA_FIELD_IA_MAX_RDMA_READ_IN} = 0x8000000. */
    public static final long IA_MAX_RDMA_READ_IN = 0x800_0000L;

    /**
     * The field {@code max_rdma_read_out}: {@code DAT_IA_FIELD_IA_MAX_RDMA_READ_OUT} = 0x10000000.
     */
    public static final long IA_MAX_RDMA_READ_OUT = 0x1000_0000L;

    /**
     * The field {@code max_rdma_read_per_ep_in_guaranteed}:
     * {@code DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_IN_GUARANTEED} = 0x20000000.
     */
    public static final long IA_MAX_RDMA_READ_PER_EP_IN_GUARANTEED = 0x2000_0000L;

    /**
     * The field {@code max_rdma_read_per_ep_out_guaranteed}:
     * {@code DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_OUT_GUARANTEED} = 0x40000000.
     */
    public static final long IA_MAX_RDMA_READ_PER_EP_OUT_GUARANTEED = 0x4000_0000L;

    /**
     * The field {@code num_transport_attr}: {@code DAT_IA_FIELD_IA_NUM_TRANSPORT_ATTR} =
     * 0x80000000.
     */
    public static final long IA_NUM_TRANSPORT_ATTR = 0x8000_0000L;

    /** The field {@code transport_attr}: {@code DAT_IA_FIELD_IA_TRANSPORT_ATTR} = 0x100000000. */
    public static final long IA_TRANSPORT_ATTR = 0x1_0000_0000L;

    /** The field {@code num_vendor_attr}: {@code DAT_IA_FIELD_IA_NUM_VENDOR_ATTR} = 0x200000000. */
    public static final long IA_NUM_VENDOR_ATTR = 0x2_0000_0000L;

    /** The field {@code vendor_attr}: {@code DAT_IA_FIELD_IA_VENDOR_ATTR} = 0x400000000. */
    public static final long IA_VENDOR_ATTR = 0x4_0000_0000L;

    /** Every field: {@code DAT_IA_FIELD_ALL} = 0x7FFFFFFFF. */
    public static final long ALL = 0x7_FFFF_FFFFL;

    /** No field: {@code DAT_IA_FIELD_NONE} = 0x0. */
    public static final long NONE = 0x0L;

    /**
     * DAT 1.0 and 1.1 name of {@link #IA_MAX_MESSAGE_SIZE}, kept by the 1.2 header:
     * {@code DAT_IA_FIELD_IA_MAX_MTU_SIZE}.
     */
    public static final long IA_MAX_MTU_SIZE = IA_MAX_MESSAGE_SIZE;

    /** Not instantiable: constants and static helpers only. */
    private IaAttrMask() {}

    /**
     * Whether a value sets only bits that DAT 1.2 defines for this type.
     *
     * @param mask a value to check
     * @return {@code true} if no bit outside {@link #ALL} is set
     */
    public static boolean isValid(long mask) {
        return (mask & ~ALL) == 0;
    }
}
