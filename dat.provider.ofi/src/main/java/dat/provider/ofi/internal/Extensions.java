package dat.provider.ofi.internal;

import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import dat.api.ext.ImmediateDataEndpoint;
import java.util.Optional;

/**
 * The {@code dat.api.ext} interfaces an ofi Endpoint offers.
 *
 * <p><b>RDMA write with immediate data</b> ({@link ImmediateDataEndpoint}, where the provider has
 * 8 bytes of remote CQ data): the RDMA write ({@code fi_writemsg}) followed, on the same ordered
 * connection, by a zero-length message with remote CQ data ({@code fi_sendmsg} with
 * {@code FI_REMOTE_CQ_DATA}): the immediate value in the low 32 bits, the bytes written in the
 * high 32. The message consumes a receive posted on the peer, which completes with the receive's
 * cookie, the Endpoint, the value and the length, as the extension requires. libfabric's own
 * {@code fi_writedata} is not used: on providers without {@code FI_RX_CQ_DATA} (tcp among them) its
 * completion at the target consumes no receive and names no endpoint. The requester gets one
 * completion, the message's; the write's own success is reaped silently, its failure reported.
 */
final class Extensions {

    private Extensions() {
    }

    static final String IMMEDIATE_DATA = ImmediateDataEndpoint.class.getName();

    static <T> Optional<T> of(OfiEp ep, Class<T> type) {
        if (type == ImmediateDataEndpoint.class && ep.ia.limits.cqDataSize() >= 8) {
            return Optional.of(type.cast(new Immediate(ep)));
        }
        return Optional.empty();
    }

    /** The immediate-data view of one Endpoint. */
    private record Immediate(OfiEp ep) implements ImmediateDataEndpoint {
        @Override
        public int postRdmaWriteImmediate(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
                int immediateData, int completionFlags) {
            return ep.postRequest(WorkSlots.WRITE_IMMEDIATE, numSegments, localIov, userCookie, remoteBuffer, completionFlags,
                    immediateData);
        }
    }
}
