package dat.api.ext;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The numbers of the InfiniBand extensions of OFED uDAPL 2.0, {@code dat_ib_extensions.h}
 * (extension version 2.0.1: atomics and immediate data): the event number of their completions,
 * the completion types ({@code DAT_IB_EXT_TYPE}), the memory privilege atomics need, and the names
 * of the provider-specific attributes that advertise them in {@code dat_ia_query}.
 *
 * <p>An extended operation ({@link AtomicEndpoint}, {@link ImmediateDataEndpoint}) completes with a
 * {@link dat.api.DatEvent} whose {@link dat.api.DatEvent#eventNumber()} is {@link #IB_DTO_EVENT};
 * the DTO accessors ({@link dat.api.DatEvent#endpoint()}, {@link dat.api.DatEvent#userCookie()},
 * {@link dat.api.DatEvent#status()}, {@link dat.api.DatEvent#transferredLength()}) mean what they
 * mean for {@link dat.api.EventNumber#DTO_COMPLETION_EVENT}, and
 * {@link dat.api.DatEvent#extensionType()} says which operation completed (the {@code type} of
 * {@code DAT_IB_EXTENSION_EVENT_DATA}), with {@link dat.api.DatEvent#immediateData()} for the
 * receive side of an RDMA write with immediate data ({@code val.immed.data}). The events arrive on
 * the EVDs the Endpoint's DTO completions use: the request EVD for the requester, the receive EVD
 * for the receiver.
 *
 * <p>Source: OFED dapl {@code dat2/include/dat2/dat_ib_extensions.h} and {@code dat.h}
 * ({@code DAT_EXTENSION_EVENT}, {@code DAT_IB_EXTENSION_RANGE_BASE},
 * {@code DAT_MEM_PRIV_EXTENSION_BASE}).
 */
@ProviderType
public final class IbExtension {

    /**
     * The extension version this API describes, as {@code DAT_IB_EXTENSION_VERSION} encodes it:
     * 201 for 2.0.1 (fetch-and-add, compare-and-swap, RDMA write with immediate data).
     */
    public static final int EXTENSION_VERSION = 201;

    /** The first event number of DAT 2.0 extensions: {@code DAT_EXTENSION_EVENT} = 0x20000. */
    public static final int EXTENSION_EVENT = 0x2_0000;

    /** The first event number of the InfiniBand extensions: {@code DAT_IB_EXTENSION_RANGE_BASE} = 0x40000. */
    public static final int IB_EXTENSION_RANGE_BASE = 0x4_0000;

    /**
     * The event number of every completed extended data transfer: {@code DAT_IB_DTO_EVENT} =
     * {@code DAT_IB_EXTENSION_RANGE_BASE} = 0x40000. {@link dat.api.DatEvent#extensionType()} tells
     * the operation apart.
     */
    public static final int IB_DTO_EVENT = IB_EXTENSION_RANGE_BASE;

    /**
     * Completion type of {@link AtomicEndpoint#postFetchAndAdd}: {@code DAT_IB_FETCH_AND_ADD} = 0.
     * The local buffer holds the remote value from before the addition.
     */
    public static final int FETCH_AND_ADD = 0;

    /**
     * Completion type of {@link AtomicEndpoint#postCompareAndSwap}: {@code DAT_IB_CMP_AND_SWAP} =
     * 1. The local buffer holds the remote value from before the operation.
     */
    public static final int CMP_AND_SWAP = 1;

    /**
     * Completion type of {@link ImmediateDataEndpoint#postRdmaWriteImmediate} on the requesting
     * Endpoint: {@code DAT_IB_RDMA_WRITE_IMMED} = 2.
     */
    public static final int RDMA_WRITE_IMMED = 2;

    /**
     * Completion type of the receive an RDMA write with immediate data consumed on the peer:
     * {@code DAT_IB_RDMA_WRITE_IMMED_DATA} = 3. {@link dat.api.DatEvent#immediateData()} holds the
     * immediate value and {@link dat.api.DatEvent#transferredLength()} the bytes the write placed in
     * the target buffer (not in the receive buffer, which stays untouched).
     */
    public static final int RDMA_WRITE_IMMED_DATA = 3;

    /**
     * Completion type of a receive of a message sent with immediate data:
     * {@code DAT_IB_RECV_IMMED_DATA} = 4. Defined for completeness; no operation of this API sends
     * such messages.
     */
    public static final int RECV_IMMED_DATA = 4;

    /**
     * The memory privilege that lets remote atomics reach an LMR or RMR:
     * {@code DAT_IB_MEM_PRIV_REMOTE_ATOMIC} = {@code DAT_MEM_PRIV_EXTENSION_BASE} = 0x40. Or it with
     * the {@link dat.api.MemPrivileges} of {@code dat_lmr_create} or {@code dat_rmr_bind}; only a
     * provider that offers {@link AtomicEndpoint} accepts it.
     */
    public static final int MEM_PRIV_REMOTE_ATOMIC = 0x40;

    /** The size of the operand of an atomic operation, and of its local and remote buffers: 8 bytes. */
    public static final int ATOMIC_OPERAND_SIZE = 8;

    /** Provider-specific attribute naming fetch-and-add support: {@code "DAT_IB_FETCH_AND_ADD"}. */
    public static final String ATTR_FETCH_AND_ADD = "DAT_IB_FETCH_AND_ADD";

    /** Provider-specific attribute naming compare-and-swap support: {@code "DAT_IB_CMP_AND_SWAP"}. */
    public static final String ATTR_CMP_AND_SWAP = "DAT_IB_CMP_AND_SWAP";

    /** Provider-specific attribute naming immediate-data support: {@code "DAT_IB_IMMED_DATA"}. */
    public static final String ATTR_IMMED_DATA = "DAT_IB_IMMED_DATA";

    /** Not instantiable: constants and static helpers only. */
    private IbExtension() {
    }

    /**
     * Whether an event number lies in the DAT 2.0 extension range ({@code >= DAT_EXTENSION_EVENT}),
     * where {@link dat.api.EventNumber} defines nothing.
     *
     * @param eventNumber an event number
     * @return whether it is an extension event number
     */
    public static boolean isExtensionEvent(int eventNumber) {
        return eventNumber >= EXTENSION_EVENT;
    }

    /**
     * The C name of a completion type ({@code DAT_IB_EXT_TYPE}), for example
     * {@code "DAT_IB_FETCH_AND_ADD"}.
     *
     * @param extensionType a completion type
     * @return its name, or {@code "DAT_IB_EXT_TYPE(n)"} for a number this API does not define
     */
    public static String typeName(int extensionType) {
        return switch (extensionType) {
            case FETCH_AND_ADD -> "DAT_IB_FETCH_AND_ADD";
            case CMP_AND_SWAP -> "DAT_IB_CMP_AND_SWAP";
            case RDMA_WRITE_IMMED -> "DAT_IB_RDMA_WRITE_IMMED";
            case RDMA_WRITE_IMMED_DATA -> "DAT_IB_RDMA_WRITE_IMMED_DATA";
            case RECV_IMMED_DATA -> "DAT_IB_RECV_IMMED_DATA";
            default -> "DAT_IB_EXT_TYPE(" + extensionType + ")";
        };
    }
}
