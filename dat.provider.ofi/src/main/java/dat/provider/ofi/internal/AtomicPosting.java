package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.CompletionFlags;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.Ops;
import dat.provider.ofi.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The atomics of one Endpoint whose IA offers them ({@link Domain#atomics}): a fetch-and-add is
 * {@code fi_fetch_atomicmsg} with {@code FI_SUM}, a compare-and-swap {@code fi_compare_atomicmsg}
 * with {@code FI_CSWAP}, each on one {@code FI_UINT64}. Its native structs are allocated once, in
 * the Endpoint's {@link Posting} arena: the {@code fi_msg_atomic}, the operand's and the compare
 * value's {@code fi_ioc}, the 16 bytes of the two values, the remote {@code fi_rma_ioc}, the
 * result's {@code fi_ioc}, and the local buffer's {@code iovec} and descriptor, which
 * {@link Posting#fill} checks and fills as an RDMA read's target (the buffer receives the value
 * from before the operation).
 *
 * <p>Where {@link Domain#operandsByValue}, the operand (the addend, or the swap value) travels in
 * the message's {@code addr} and the compare value in the compare {@code fi_ioc}'s {@code addr},
 * the fields the installed verbs provider copies into the work request; else both travel in
 * {@link #operands}, through their pointers. Neither way do they need a registration: libfabric's
 * verbs provider reads them on the posting thread. Called with the Endpoint's post lock held;
 * allocates nothing.
 */
final class AtomicPosting {

    private final OfiEp ep;
    private final MemorySegment message;
    private final MemorySegment operandIoc;
    private final MemorySegment compareIoc;
    /** The operand, then the compare value. */
    private final MemorySegment operands;
    private final MemorySegment remoteIoc;
    private final MemorySegment resultIoc;
    private final MemorySegment resultDesc;
    /** The local buffer as {@link Posting#fill} writes it: one {@code iovec} and its descriptor. */
    private final MemorySegment localIov;
    private final MemorySegment localDesc;
    /** The one-segment IOV of the local buffer, reused. */
    private final LmrTriplet[] local = new LmrTriplet[1];

    AtomicPosting(OfiEp ep, Arena arena) {
        this.ep = ep;
        message = arena.allocate(Structs.FI_MSG_ATOMIC);
        operandIoc = arena.allocate(Structs.FI_IOC);
        compareIoc = arena.allocate(Structs.FI_IOC);
        operands = arena.allocate(16, 8);
        remoteIoc = arena.allocate(Structs.FI_RMA_IOC);
        resultIoc = arena.allocate(Structs.FI_IOC);
        resultDesc = arena.allocate(ADDRESS);
        localIov = arena.allocate(Structs.IOVEC);
        localDesc = arena.allocate(ADDRESS);
        message.set(ADDRESS, Structs.MSG_ATOMIC_IOV, operandIoc);
        message.set(JAVA_LONG, Structs.MSG_ATOMIC_IOV_COUNT, 1);
        message.set(ADDRESS, Structs.MSG_ATOMIC_RMA_IOV, remoteIoc);
        message.set(JAVA_LONG, Structs.MSG_ATOMIC_RMA_IOV_COUNT, 1);
        message.set(JAVA_INT, Structs.MSG_ATOMIC_DATATYPE, Fi.UINT64);
        operandIoc.set(ADDRESS, Structs.IOC_ADDR, operands);
        operandIoc.set(JAVA_LONG, Structs.IOC_COUNT, 1);
        compareIoc.set(JAVA_LONG, Structs.IOC_COUNT, 1);
        remoteIoc.set(JAVA_LONG, Structs.RMA_IOC_COUNT, 1);
        resultIoc.set(JAVA_LONG, Structs.IOC_COUNT, 1);
    }

    /**
     * Posts a fetch-and-add ({@link WorkSlots#FETCH_ADD}) or compare-and-swap
     * ({@link WorkSlots#CMP_SWAP}); the state, flags and the buffers' lengths and alignment were
     * checked by the caller.
     *
     * @param connection the connection's endpoint, or {@code null} before it is made
     */
    int post(NativeEndpoint connection, byte kind, long operand, long compare, LmrTriplet buffer, long cookie, RmrTriplet remote,
            int completionFlags) {
        local[0] = buffer;
        long total = Posting.fill(ep.ia, ep.pz(), localIov, localDesc, 1, local, 1, true, Long.MAX_VALUE, null);
        if (total < 0) {
            return (int) total;
        }
        if (connection == null) {
            return Codes.INVALID_STATE;
        }
        WorkSlots slots = ep.sendSlots;
        int slot = Posting.acquire(slots, ep.requestEvd());
        if (slot < 0) {
            return Codes.INSUFFICIENT_RESOURCES;
        }
        // the result comes back after the target's update
        Posting.describe(slots, slot, cookie, 8, kind, completionFlags, 0, true);
        boolean byValue = ep.ia.domain.operandsByValue;
        operands.set(JAVA_LONG, 0, operand);
        operands.set(JAVA_LONG, 8, compare);
        message.set(JAVA_LONG, Structs.MSG_ATOMIC_ADDR, byValue ? operand : 0L);
        compareIoc.set(JAVA_LONG, Structs.IOC_ADDR, byValue ? compare : operands.address() + 8);
        message.set(JAVA_INT, Structs.MSG_ATOMIC_OP, kind == WorkSlots.FETCH_ADD ? Fi.SUM : Fi.CSWAP);
        message.set(JAVA_LONG, Structs.MSG_ATOMIC_CONTEXT, slots.token(slot));
        remoteIoc.set(JAVA_LONG, Structs.RMA_IOC_ADDR, remote.targetAddress());
        remoteIoc.set(JAVA_LONG, Structs.RMA_IOC_KEY, ep.remoteKey(remote.rmrContext()));
        resultIoc.set(JAVA_LONG, Structs.IOC_ADDR, localIov.get(JAVA_LONG, Structs.IOV_BASE));
        resultDesc.set(JAVA_LONG, 0, localDesc.getAtIndex(JAVA_LONG, 0));
        long flags = Fi.COMPLETION;
        if ((completionFlags & CompletionFlags.BARRIER_FENCE) != 0 && (ep.ia.limits.caps() & Fi.FENCE) != 0) {
            flags |= Fi.FENCE;
        }
        long result;
        try {
            result = kind == WorkSlots.FETCH_ADD
                    ? (long) Ops.READWRITEMSG.invokeExact(connection.fetchAtomicmsg, connection.address, message.address(),
                            resultIoc.address(), resultDesc.address(), 1L, flags)
                    : (long) Ops.COMPWRITEMSG.invokeExact(connection.compareAtomicmsg, connection.address,
                            message.address(), compareIoc.address(), 0L, 1L, resultIoc.address(), resultDesc.address(), 1L, flags);
        } catch (Throwable t) {
            slots.abandon(slot);
            return Codes.INTERNAL_ERROR;
        }
        return Posting.posted(slots, slot, result);
    }
}
