package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The fields of the Provider attributes {@code DAT_PROVIDER_ATTR} that {@code dat_ia_query} fills,
 * {@code DAT_PROVIDER_ATTR_MASK}: a 64-bit bit set with one bit per field. The constant names are
 * the C names without {@code DAT_PROVIDER_FIELD_}.
 *
 * <p>Source: DAT 1.2 {@code <dat/udat.h>}; see dat_ia_query(3DAT).
 */
@ProviderType
public final class ProviderAttrMask {

    /** The field {@code provider_name}: {@code DAT_PROVIDER_FIELD_PROVIDER_NAME} = 0x1. */
    public static final long PROVIDER_NAME = 0x1L;

    /**
     * The field {@code provider_version_major}: {@code DAT_PROVIDER_FIELD_PROVIDER_VERSION_MAJOR} =
     * 0x2.
     */
    public static final long PROVIDER_VERSION_MAJOR = 0x2L;

    /**
     * The field {@code provider_version_minor}: {@code DAT_PROVIDER_FIELD_PROVIDER_VERSION_MINOR} =
     * 0x4.
     */
    public static final long PROVIDER_VERSION_MINOR = 0x4L;

    /**
     * The field {@code dapl_version_major}: {@code DAT_PROVIDER_FIELD_DAPL_VERSION_MAJOR} = 0x8.
     */
    public static final long DAPL_VERSION_MAJOR = 0x8L;

    /**
     * The field {@code dapl_version_minor}: {@code DAT_PROVIDER_FIELD_DAPL_VERSION_MINOR} = 0x10.
     */
    public static final long DAPL_VERSION_MINOR = 0x10L;

    /**
     * The field {@code lmr_mem_types_supported}: {@code DAT_PROVIDER_FIELD_LMR_MEM_TYPE_SUPPORTED}
     * = 0x20.
     */
    public static final long LMR_MEM_TYPE_SUPPORTED = 0x20L;

    /**
     * The field {@code iov_ownership_on_return}: {@code DAT_PROVIDER_FIELD_IOV_OWNERSHIP} = 0x40.
     */
    public static final long IOV_OWNERSHIP = 0x40L;

    /** The field {@code dat_qos_supported}: {@code DAT_PROVIDER_FIELD_DAT_QOS_SUPPORTED} = 0x80. */
    public static final long DAT_QOS_SUPPORTED = 0x80L;

    /**
     * The field {@code completion_flags_supported}:
     * {@code DAT_PROVIDER_FIELD_COMPLETION_FLAGS_SUPPORTED} = 0x100.
     */
    public static final long COMPLETION_FLAGS_SUPPORTED = 0x100L;

    /** The field {@code is_thread_safe}: {@code DAT_PROVIDER_FIELD_IS_THREAD_SAFE} = 0x200. */
    public static final long IS_THREAD_SAFE = 0x200L;

    /**
     * The field {@code max_private_data_size}: {@code DAT_PROVIDER_FIELD_MAX_PRIVATE_DATA_SIZE} =
     * 0x400.
     */
    public static final long MAX_PRIVATE_DATA_SIZE = 0x400L;

    /**
     * The field {@code supports_multipath}: {@code DAT_PROVIDER_FIELD_SUPPORTS_MULTIPATH} = 0x800.
     */
    public static final long SUPPORTS_MULTIPATH = 0x800L;

    /** The field {@code ep_creator}: {@code DAT_PROVIDER_FIELD_EP_CREATOR} = 0x1000. */
    public static final long EP_CREATOR = 0x1000L;

    /** The field {@code pz_support}: {@code DAT_PROVIDER_FIELD_PZ_SUPPORT} = 0x2000. */
    public static final long PZ_SUPPORT = 0x2000L;

    /**
     * The field {@code optimal_buffer_alignment}:
     * {@code DAT_PROVIDER_FIELD_OPTIMAL_BUFFER_ALIGNMENT} = 0x4000.
     */
    public static final long OPTIMAL_BUFFER_ALIGNMENT = 0x4000L;

    /**
     * The field {@code evd_stream_merging_supported}:
     * {@code DAT_PROVIDER_FIELD_EVD_STREAM_MERGING_SUPPORTED} = 0x8000.
     */
    public static final long EVD_STREAM_MERGING_SUPPORTED = 0x8000L;

    /** The field {@code srq_supported}: {@code DAT_PROVIDER_FIELD_SRQ_SUPPORTED} = 0x10000. */
    public static final long SRQ_SUPPORTED = 0x1_0000L;

    /**
     * The field {@code srq_watermarks_supported}:
     * {@code DAT_PROVIDER_FIELD_SRQ_WATERMARKS_SUPPORTED} = 0x20000.
     */
    public static final long SRQ_WATERMARKS_SUPPORTED = 0x2_0000L;

    /**
     * The field {@code srq_ep_pz_difference_supported}:
     * {@code DAT_PROVIDER_FIELD_SRQ_EP_PZ_DIFFERENCE_SUPPORTED} = 0x40000.
     */
    public static final long SRQ_EP_PZ_DIFFERENCE_SUPPORTED = 0x4_0000L;

    /**
     * The field {@code srq_info_supported}: {@code DAT_PROVIDER_FIELD_SRQ_INFO_SUPPORTED} =
     * 0x80000.
     */
    public static final long SRQ_INFO_SUPPORTED = 0x8_0000L;

    /**
     * The field {@code ep_recv_info_supported}: {@code DAT_PROVIDER_FIELD_EP_RECV_INFO_SUPPORTED} =
     * 0x100000.
     */
    public static final long EP_RECV_INFO_SUPPORTED = 0x10_0000L;

    /** The field {@code lmr_sync_req}: {@code DAT_PROVIDER_FIELD_LMR_SYNC_REQ} = 0x200000. */
    public static final long LMR_SYNC_REQ = 0x20_0000L;

    /**
     * The field {@code dto_async_return_guaranteed}:
     * {@code DAT_PROVIDER_FIELD_DTO_ASYNC_RETURN_GUARANTEED} = 0x400000.
     */
    public static final long DTO_ASYNC_RETURN_GUARANTEED = 0x40_0000L;

    /**
     * The field {@code rdma_write_for_rdma_read_req}:
     * {@code DAT_PROVIDER_FIELD_RDMA_WRITE_FOR_RDMA_READ_REQ} = 0x800000.
     */
    public static final long RDMA_WRITE_FOR_RDMA_READ_REQ = 0x80_0000L;

    /**
     * The field {@code num_provider_specific_attr}:
     * {@code DAT_PROVIDER_FIELD_NUM_PROVIDER_SPECIFIC_ATTR} = 0x1000000.
     */
    public static final long NUM_PROVIDER_SPECIFIC_ATTR = 0x100_0000L;

    /**
     * The field {@code provider_specific_attr}: {@code DAT_PROVIDER_FIELD_PROVIDER_SPECIFIC_ATTR} =
     * 0x2000000.
     */
    public static final long PROVIDER_SPECIFIC_ATTR = 0x200_0000L;

    /** Every field: {@code DAT_PROVIDER_FIELD_ALL} = 0x3FFFFFF. */
    public static final long ALL = 0x3FF_FFFFL;

    /** No field: {@code DAT_PROVIDER_FIELD_NONE} = 0x0. */
    public static final long NONE = 0x0L;

    /** Not instantiable: constants and static helpers only. */
    private ProviderAttrMask() {}

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
