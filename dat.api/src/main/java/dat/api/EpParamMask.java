package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The fields of the Endpoint parameters {@code DAT_EP_PARAM} that {@code dat_ep_query} fills and
 * {@code dat_ep_modify} changes, {@code DAT_EP_PARAM_MASK}: a 64-bit bit set. The parameters proper
 * take the bits {@code 0x1..0x400}, the fields of the embedded {@code DAT_EP_ATTR} the bits
 * {@code 0x1000..0x40000000} ({@link #EP_ATTR_ALL}). The constant names are the C names without
 * {@code DAT_EP_FIELD_}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_ep_query(3DAT), dat_ep_modify(3DAT).
 */
@ProviderType
public final class EpParamMask {

    /** The parameter {@code ia_handle}: {@code DAT_EP_FIELD_IA_HANDLE} = 0x1. */
    public static final long IA_HANDLE = 0x1L;

    /** The parameter {@code ep_state}: {@code DAT_EP_FIELD_EP_STATE} = 0x2. */
    public static final long EP_STATE = 0x2L;

    /**
     * The parameter {@code local_ia_address_ptr}: {@code DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR} = 0x4.
     */
    public static final long LOCAL_IA_ADDRESS_PTR = 0x4L;

    /** The parameter {@code local_port_qual}: {@code DAT_EP_FIELD_LOCAL_PORT_QUAL} = 0x8. */
    public static final long LOCAL_PORT_QUAL = 0x8L;

    /**
     * The parameter {@code remote_ia_address_ptr}: {@code DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR} =
     * 0x10.
     */
    public static final long REMOTE_IA_ADDRESS_PTR = 0x10L;

    /** The parameter {@code remote_port_qual}: {@code DAT_EP_FIELD_REMOTE_PORT_QUAL} = 0x20. */
    public static final long REMOTE_PORT_QUAL = 0x20L;

    /** The parameter {@code pz_handle}: {@code DAT_EP_FIELD_PZ_HANDLE} = 0x40. */
    public static final long PZ_HANDLE = 0x40L;

    /** The parameter {@code recv_evd_handle}: {@code DAT_EP_FIELD_RECV_EVD_HANDLE} = 0x80. */
    public static final long RECV_EVD_HANDLE = 0x80L;

    /**
     * The parameter {@code request_evd_handle}: {@code DAT_EP_FIELD_REQUEST_EVD_HANDLE} = 0x100.
     */
    public static final long REQUEST_EVD_HANDLE = 0x100L;

    /**
     * The parameter {@code connect_evd_handle}: {@code DAT_EP_FIELD_CONNECT_EVD_HANDLE} = 0x200.
     */
    public static final long CONNECT_EVD_HANDLE = 0x200L;

    /** The parameter {@code srq_handle}: {@code DAT_EP_FIELD_SRQ_HANDLE} = 0x400. */
    public static final long SRQ_HANDLE = 0x400L;

    /**
     * The attribute {@code ep_attr.service_type}: {@code DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE} =
     * 0x1000.
     */
    public static final long EP_ATTR_SERVICE_TYPE = 0x1000L;

    /**
     * The attribute {@code ep_attr.max_message_size}: {@code DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE}
     * = 0x2000.
     */
    public static final long EP_ATTR_MAX_MESSAGE_SIZE = 0x2000L;

    /**
     * The attribute {@code ep_attr.max_rdma_size}: {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE} =
     * 0x4000.
     */
    public static final long EP_ATTR_MAX_RDMA_SIZE = 0x4000L;

    /** The attribute {@code ep_attr.qos}: {@code DAT_EP_FIELD_EP_ATTR_QOS} = 0x8000. */
    public static final long EP_ATTR_QOS = 0x8000L;

    /**
     * The attribute {@code ep_attr.recv_completion_flags}:
     * {@code DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS} = 0x10000.
     */
    public static final long EP_ATTR_RECV_COMPLETION_FLAGS = 0x1_0000L;

    /**
     * The attribute {@code ep_attr.request_completion_flags}:
     * {@code DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS} = 0x20000.
     */
    public static final long EP_ATTR_REQUEST_COMPLETION_FLAGS = 0x2_0000L;

    /**
     * The attribute {@code ep_attr.max_recv_dtos}: {@code DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS} =
     * 0x40000.
     */
    public static final long EP_ATTR_MAX_RECV_DTOS = 0x4_0000L;

    /**
     * The attribute {@code ep_attr.max_request_dtos}: {@code DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS}
     * = 0x80000.
     */
    public static final long EP_ATTR_MAX_REQUEST_DTOS = 0x8_0000L;

    /**
     * The attribute {@code ep_attr.max_recv_iov}: {@code DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV} =
     * 0x100000.
     */
    public static final long EP_ATTR_MAX_RECV_IOV = 0x10_0000L;

    /**
     * The attribute {@code ep_attr.max_request_iov}: {@code DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV} =
     * 0x200000.
     */
    public static final long EP_ATTR_MAX_REQUEST_IOV = 0x20_0000L;

    /**
     * The attribute {@code ep_attr.max_rdma_read_in}: {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN}
     * = 0x400000.
     */
    public static final long EP_ATTR_MAX_RDMA_READ_IN = 0x40_0000L;

    /**
     * The attribute {@code ep_attr.max_rdma_read_out}:
     * {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT} = 0x800000.
     */
    public static final long EP_ATTR_MAX_RDMA_READ_OUT = 0x80_0000L;

    /**
     * The attribute {@code ep_attr.srq_soft_hw}: {@code DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW} =
     * 0x1000000.
     */
    public static final long EP_ATTR_SRQ_SOFT_HW = 0x100_0000L;

    /**
     * The attribute {@code ep_attr.max_rdma_read_iov}:
     * {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV} = 0x2000000.
     */
    public static final long EP_ATTR_MAX_RDMA_READ_IOV = 0x200_0000L;

    /**
     * The attribute {@code ep_attr.max_rdma_write_iov}:
     * {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV} = 0x4000000.
     */
    public static final long EP_ATTR_MAX_RDMA_WRITE_IOV = 0x400_0000L;

    /**
     * The attribute {@code ep_attr.ep_transport_specific_count}:
     * {@code DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR} = 0x8000000.
     */
    public static final long EP_ATTR_NUM_TRANSPORT_ATTR = 0x800_0000L;

    /**
     * The attribute {@code ep_attr.ep_transport_specific}:
     * {@code DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR} = 0x10000000.
     */
    public static final long EP_ATTR_TRANSPORT_SPECIFIC_ATTR = 0x1000_0000L;

    /**
     * The attribute {@code ep_attr.ep_provider_specific_count}:
     * {@code DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR} = 0x20000000.
     */
    public static final long EP_ATTR_NUM_PROVIDER_ATTR = 0x2000_0000L;

    /**
     * The attribute {@code ep_attr.ep_provider_specific}:
     * {@code DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR} = 0x40000000.
     */
    public static final long EP_ATTR_PROVIDER_SPECIFIC_ATTR = 0x4000_0000L;

    /**
     * Every field of the Endpoint attributes {@code ep_attr}: {@code DAT_EP_FIELD_EP_ATTR_ALL} =
     * 0x7FFFF000.
     */
    public static final long EP_ATTR_ALL = 0x7FFF_F000L;

    /** Every field: {@code DAT_EP_FIELD_ALL} = 0x7FFFF7FF. */
    public static final long ALL = 0x7FFF_F7FFL;

    /** Not instantiable: constants and static helpers only. */
    private EpParamMask() {}

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
