package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.Structs;
import java.lang.foreign.MemorySegment;

/**
 * What a provider's remote CQ data ({@code FI_REMOTE_CQ_DATA}) can carry, and so how an RDMA write
 * with immediate data and the confirmation of an accept travel ({@link Extensions},
 * {@link AcceptConfirmation}).
 *
 * <p>Where remote CQ data consumes a receive at the target ({@code FI_RX_CQ_DATA} in the info's
 * mode, as on libfabric's verbs provider, whose CQ data is the 4-byte immediate data of a verbs
 * write), a write with immediate data is one {@code fi_writemsg} with the value as its CQ data: the
 * target's posted receive completes with the value and the bytes written, as on InfiniBand.
 * Elsewhere (tcp), a write's CQ data consumes no receive and names no endpoint, so the value
 * travels in a zero-length message after the write, which needs 8 bytes: the value and the length.
 *
 * @param size {@code domain_attr->cq_data_size}: the bytes of remote CQ data
 * @param consumesReceive whether remote CQ data consumes a posted receive ({@code FI_RX_CQ_DATA})
 */
record RemoteCqData(long size, boolean consumesReceive) {

    /** No remote CQ data. */
    static final RemoteCqData NONE = new RemoteCqData(0, false);

    /** What an {@code fi_info} (its domain's size, its mode and its receive attributes' mode) says. */
    static RemoteCqData of(MemorySegment info) {
        MemorySegment domain = Discovery.attr(info, Structs.INFO_DOMAIN_ATTR, Structs.FI_DOMAIN_ATTR);
        MemorySegment rx = Discovery.attr(info, Structs.INFO_RX_ATTR, Structs.FI_RX_ATTR);
        long mode = info.get(JAVA_LONG, Structs.INFO_MODE) | rx.get(JAVA_LONG, Structs.RX_MODE);
        return new RemoteCqData(domain.get(JAVA_LONG, Structs.DOMAIN_ATTR_CQ_DATA_SIZE), (mode & Fi.RX_CQ_DATA) != 0);
    }

    /** Whether the Endpoints offer RDMA writes with immediate data ({@code ImmediateDataEndpoint}). */
    boolean immediateData() {
        return consumesReceive ? size >= 4 : size >= 8;
    }

    /** Whether a write with immediate data is one write carrying the value as its CQ data (else a write and a message). */
    boolean writesImmediateData() {
        return consumesReceive && size >= 4;
    }

    /**
     * Whether a message says it was posted {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}: its CQ data
     * carries the mark ({@link MessageCqData}), which needs 8 bytes that consume no receive. Where
     * CQ data consumes a receive (verbs) its 4 bytes are a write's immediate data, and libfabric
     * has no solicited flag of its own.
     */
    boolean marksSolicited() {
        return size >= 8 && !consumesReceive;
    }

    /**
     * Whether the active side confirms an accept with a zero-length write whose CQ data names the
     * passive Endpoint: it needs 8 bytes, and must not consume a receive of the consumer's.
     */
    boolean confirmsAccepts() {
        return size >= 8 && !consumesReceive;
    }
}
