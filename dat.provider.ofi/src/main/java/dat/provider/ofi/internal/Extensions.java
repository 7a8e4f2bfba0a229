package dat.provider.ofi.internal;

import dat.api.DatReturn;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IaCounters;
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import dat.api.ext.Operation;
import java.util.Optional;

/**
 * The {@code dat.api.ext} interfaces an ofi Endpoint offers.
 *
 * <p><b>RDMA write with immediate data</b> ({@link ImmediateDataEndpoint}, where
 * {@link RemoteCqData#immediateData}): the target's posted receive completes with the receive's
 * cookie, the Endpoint, the value and the bytes written, as the extension requires. Where the
 * provider's remote CQ data consumes a receive ({@code FI_RX_CQ_DATA}: verbs), the request is one
 * {@code fi_writemsg} with {@code FI_REMOTE_CQ_DATA} and the value as its data, an InfiniBand write
 * with immediate data. Elsewhere (tcp: a write's CQ data consumes no receive and names no
 * endpoint) it is the RDMA write followed, on the same ordered connection, by a zero-length message
 * with remote CQ data ({@code fi_sendmsg} with {@code FI_REMOTE_CQ_DATA}): the value in the low 32
 * bits, the bytes written in the high 32, which needs 8 bytes of CQ data. The requester gets one
 * completion, the message's; the write's own success is reaped silently, its failure reported.
 *
 * <p><b>Atomics</b> ({@link AtomicEndpoint}, where {@link Domain#atomics}): {@code fi_fetch_atomicmsg}
 * with {@code FI_SUM} and {@code fi_compare_atomicmsg} with {@code FI_CSWAP} on one
 * {@code FI_UINT64} ({@link AtomicPosting}); they complete as {@code DAT_IB_DTO_EVENT}s of
 * type {@code DAT_IB_FETCH_AND_ADD} or {@code DAT_IB_CMP_AND_SWAP}. libfabric grants remote
 * atomics with remote write ({@code FI_REMOTE_WRITE}: the verbs provider registers
 * {@code IBV_ACCESS_REMOTE_ATOMIC} with it), so memory with {@code DAT_MEM_PRIV_REMOTE_WRITE_FLAG}
 * admits atomics too (the deviation {@code remote_atomic_privilege}, {@link Attributes}), and
 * {@code DAT_IB_MEM_PRIV_REMOTE_ATOMIC} without remote write is refused ({@link OfiLmr#checkAtomicPrivilege}).
 */
final class Extensions {

    private Extensions() {
    }

    static final String IMMEDIATE_DATA = ImmediateDataEndpoint.class.getName();
    static final String ATOMICS = AtomicEndpoint.class.getName();

    static <T> Optional<T> of(OfiEp ep, Class<T> type) {
        if (type == ImmediateDataEndpoint.class && ep.ia.limits.cqData().immediateData()) {
            return Optional.of(type.cast(new Immediate(ep)));
        }
        if (type == AtomicEndpoint.class && ep.ia.domain.atomics) {
            return Optional.of(type.cast(new Atomic(ep)));
        }
        return Optional.empty();
    }

    /** The atomics view of one Endpoint. */
    private record Atomic(OfiEp ep) implements AtomicEndpoint {
        @Override
        public int postFetchAndAdd(long addValue, LmrTriplet localBuffer, long userCookie, RmrTriplet remoteBuffer,
                int completionFlags) {
            return ep.ia.counters.post(Operation.FETCH_AND_ADD, IbExtension.ATOMIC_OPERAND_SIZE, ep.postAtomic(WorkSlots.FETCH_ADD,
                    addValue, 0, localBuffer, userCookie, remoteBuffer, completionFlags, DatReturn.INVALID_ARG3));
        }

        @Override
        public int postCompareAndSwap(long compareValue, long swapValue, LmrTriplet localBuffer, long userCookie,
                RmrTriplet remoteBuffer, int completionFlags) {
            return ep.ia.counters.post(Operation.COMPARE_AND_SWAP, IbExtension.ATOMIC_OPERAND_SIZE, ep.postAtomic(WorkSlots.CMP_SWAP,
                    swapValue, compareValue, localBuffer, userCookie, remoteBuffer, completionFlags, DatReturn.INVALID_ARG4));
        }
    }

    /** The immediate-data view of one Endpoint. */
    private record Immediate(OfiEp ep) implements ImmediateDataEndpoint {
        @Override
        public int postRdmaWriteImmediate(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
                int immediateData, int completionFlags) {
            return ep.ia.counters.post(Operation.RDMA_WRITE_IMMEDIATE, IaCounters.iovBytes(numSegments, localIov),
                    ep.postRequest(WorkSlots.WRITE_IMMEDIATE, numSegments, localIov, userCookie, remoteBuffer, completionFlags,
                            immediateData));
        }
    }
}
