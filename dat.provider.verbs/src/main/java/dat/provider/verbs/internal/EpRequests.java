package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import dat.api.ext.IbExtension;
import dat.api.ext.Operation;
import dat.provider.support.AtomicArguments;
import dat.provider.support.PostFlags;
import dat.provider.support.RequestIov;
import dat.provider.verbs.internal.ffi.Errno;
import dat.provider.verbs.internal.ffi.Inline;
import dat.provider.verbs.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What an Endpoint posts: its work requests, checked in Java and then handed to the driver's
 * {@code ops.post_send}/{@code ops.post_recv}. The work requests, their scatter/gather lists and
 * the bad-WR pointer live in native memory allocated once per Endpoint; a post fills them and
 * allocates nothing. Every request is signalled (suppression is done when the completion is
 * reaped), so each queue's {@link WorkSlots} stays exact; the slot's kind tells the EVD which
 * event a completion is (a DTO, an extension DTO of {@link IbExtension}, an RMR bind).
 *
 * <p>Every method takes the Endpoint's post lock, which a concurrent free also takes, so a QP is
 * never destroyed under a post.
 */
final class EpRequests {

    static final int IBV_WR_RDMA_WRITE = 0;
    static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    static final int IBV_WR_SEND = 2;
    static final int IBV_WR_RDMA_READ = 4;
    static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    static final int IBV_WR_LOCAL_INV = 7;
    static final int IBV_WR_BIND_MW = 8;
    private static final int IBV_SEND_FENCE = 1;
    private static final int IBV_SEND_SIGNALED = 2;
    private static final int IBV_SEND_SOLICITED = 4;
    private static final int IBV_SEND_INLINE = 8;
    private static final long SGE_SIZE = Structs.IBV_SGE.byteSize();
    private static final ValueLayout.OfInt BIG_ENDIAN_INT = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    /** A bind the provider completed itself, without a work request: an unbind of an unbound window. */
    static final int BIND_DONE = 2;

    /** A bind posted on a disconnected Endpoint: flushed at once, the window untouched. */
    static final int BIND_FLUSHED = 1;

    private final VerbsEp ep;
    private final VerbsIa ia;
    private final MemorySegment sendWr;
    private final MemorySegment invalidateWr;
    private final MemorySegment sendSge;
    private final MemorySegment recvWr;
    private final MemorySegment recvSge;
    private final MemorySegment badWr;
    private final MemorySegment mwBind;
    private final MemorySegment discardWc;
    /** The one-segment IOV of an atomic's local buffer, reused (post lock held). */
    private final LmrTriplet[] atomicIov = new LmrTriplet[1];

    EpRequests(VerbsEp ep, Arena arena) {
        this.ep = ep;
        this.ia = ep.ia;
        this.sendWr = arena.allocate(Structs.IBV_SEND_WR);
        this.invalidateWr = arena.allocate(Structs.IBV_SEND_WR);
        this.sendSge = arena.allocate(SGE_SIZE * VerbsEp.MAX_IOV, 8);
        this.recvWr = arena.allocate(Structs.IBV_RECV_WR);
        this.recvSge = arena.allocate(SGE_SIZE * VerbsEp.MAX_IOV, 8);
        this.badWr = arena.allocate(ADDRESS);
        this.mwBind = arena.allocate(Structs.IBV_MW_BIND);
        this.discardWc = arena.allocate(Structs.IBV_WC, 16);
        sendWr.set(ADDRESS, Structs.SEND_WR_SG_LIST, sendSge);
        recvWr.set(ADDRESS, Structs.RECV_WR_SG_LIST, recvSge);
        invalidateWr.set(JAVA_INT, Structs.SEND_WR_OPCODE, IBV_WR_LOCAL_INV);
    }

    // ---- checks every request shares ---------------------------------------------------------------

    /**
     * The handle, state and completion-flag checks of a request (lock held).
     *
     * @return 0 to go on (connected or disconnected, see {@link VerbsEp#state()}), or an error code
     */
    private int check(int completionFlags, int flagsArgument, boolean solicitable) {
        if (ep.freed || !ia.isUsable()) {
            return ep.invalidHandleCode();
        }
        EpState s = ep.state();
        if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
            return Codes.epState(s);
        }
        if (!PostFlags.isValidRequest(completionFlags, ep.attributes(), solicitable)) {
            return Codes.invalidParameter(flagsArgument);
        }
        return 0;
    }

    private int acquireSendSlot() {
        WorkSlots slots = ep.sendSlots;
        int slot = slots.acquire();
        VerbsEvd evd = ep.requestEvd();
        if (slot < 0 && evd != null) {
            evd.reclaim(); // suppressed completions nobody dequeued still hold their slots
            slot = slots.acquire();
        }
        return slot;
    }

    private static int sendFlags(int completionFlags) {
        int flags = IBV_SEND_SIGNALED;
        if ((completionFlags & CompletionFlags.SOLICITED_WAIT) != 0) {
            flags |= IBV_SEND_SOLICITED;
        }
        if ((completionFlags & CompletionFlags.BARRIER_FENCE) != 0) {
            flags |= IBV_SEND_FENCE;
        }
        return flags;
    }

    /** Posts the filled {@link #sendWr} (its chain); gives the slot back if the driver refuses. */
    private int postSend(MemorySegment first, int slot) {
        ep.drainDiscarded(discardWc);
        int result;
        try {
            result = (int) Inline.POST_SEND.invokeExact(ep.postSendFn, ep.qp(), first, badWr);
        } catch (Throwable t) {
            ep.sendSlots.release(slot);
            return Codes.INTERNAL_ERROR;
        }
        if (result != 0) {
            ep.sendSlots.release(slot);
            return result == Errno.ENOMEM ? Codes.INSUFFICIENT_RESOURCES : Codes.INTERNAL_ERROR;
        }
        return Codes.SUCCESS;
    }

    private void record(int slot, byte kind, long cookie, long length, int completionFlags, Object ref) {
        WorkSlots slots = ep.sendSlots;
        slots.cookies[slot] = cookie;
        slots.lengths[slot] = length;
        slots.kinds[slot] = kind;
        // UNSIGNALLED is a non-notification completion (dat_ep_post_send(3DAT)): its event is still
        // queued, and ends no wait
        slots.suppress[slot] = (completionFlags & CompletionFlags.SUPPRESS) != 0;
        slots.unsignalled[slot] = (completionFlags & CompletionFlags.UNSIGNALLED) != 0;
        slots.refs[slot] = ref;
    }

    private void header(int slot, int opcode, int sges, int flags) {
        MemorySegment wr = sendWr;
        wr.set(JAVA_LONG, Structs.SEND_WR_WR_ID, ((long) ep.ownerId << 32) | slot);
        wr.set(ADDRESS, Structs.SEND_WR_NEXT, MemorySegment.NULL);
        wr.set(JAVA_INT, Structs.SEND_WR_NUM_SGE, sges);
        wr.set(JAVA_INT, Structs.SEND_WR_OPCODE, opcode);
        wr.set(JAVA_INT, Structs.SEND_WR_SEND_FLAGS, flags);
    }

    // ---- sends, RDMA writes and reads, RDMA write with immediate data ------------------------------

    /**
     * Posts a send, an RDMA write (with immediate data when {@code kind} is
     * {@link WorkSlots#RDMA_WRITE_IMM}) or an RDMA read.
     */
    int postRequest(byte kind, int opcode, int numSegments, LmrTriplet[] iov, long cookie, RmrTriplet remote, int completionFlags,
            int immediate) {
        ep.postLock.lock();
        try {
            if (kind != WorkSlots.SEND && !RequestIov.isRemoteBuffer(remote) && !ep.freed && ia.isUsable()) {
                return Codes.invalidParameter(DatReturn.INVALID_ARG5); // after the handle, before the state
            }
            int checked = check(completionFlags, kind == WorkSlots.SEND ? DatReturn.INVALID_ARG5
                    : kind == WorkSlots.RDMA_WRITE_IMM ? DatReturn.INVALID_ARG7 : DatReturn.INVALID_ARG6,
                    kind == WorkSlots.SEND || kind == WorkSlots.RDMA_WRITE_IMM);
            if (checked != 0) {
                return checked;
            }
            boolean read = kind == WorkSlots.RDMA_READ;
            var a = ep.attributes();
            int maxIov = RequestIov.max(a, read, kind == WorkSlots.SEND);
            if (ep.state() == EpState.DISCONNECTED) {
                return flushAtOnce(ep.requestEvd(), kind, numSegments, iov, maxIov, cookie, read, sendSge);
            }
            long limit = read ? remote.segmentLength() : Long.MAX_VALUE;
            long total = fillSges(ia, ep.pz(), sendSge, numSegments, iov, maxIov, read, limit);
            if (total < 0) {
                return (int) total;
            }
            int sges = (int) (total >>> 40);
            total &= (1L << 40) - 1;
            if (remote != null) {
                if (read ? remote.segmentLength() > total : total > remote.segmentLength()) {
                    return Codes.LENGTH_ERROR;
                }
                if (total > a.maxRdmaSize()) {
                    return Codes.LENGTH_ERROR;
                }
            } else if (total > a.maxMessageSize()) {
                return Codes.LENGTH_ERROR;
            }
            int slot = acquireSendSlot();
            if (slot < 0) {
                return Codes.INSUFFICIENT_RESOURCES;
            }
            record(slot, kind, cookie, total, completionFlags, null);
            int flags = sendFlags(completionFlags);
            if (!read && total <= ep.maxInline()) {
                flags |= IBV_SEND_INLINE; // the segments were checked above: the copy reads only registered memory
            }
            header(slot, opcode, sges, flags);
            if (remote != null) {
                sendWr.set(JAVA_LONG, Structs.SEND_WR_REMOTE_ADDR, remote.targetAddress());
                sendWr.set(JAVA_INT, Structs.SEND_WR_RKEY, remote.rmrContext());
            }
            sendWr.set(BIG_ENDIAN_INT, Structs.SEND_WR_IMM_DATA, immediate);
            return postSend(sendWr, slot);
        } finally {
            ep.postLock.unlock();
        }
    }

    // ---- atomics -----------------------------------------------------------------------------------

    /**
     * Posts a fetch-and-add ({@link WorkSlots#FETCH_AND_ADD}) or compare-and-swap
     * ({@link WorkSlots#CMP_AND_SWAP}), with the checks of {@code AtomicEndpoint}.
     *
     * @param firstArg the argument number of the local buffer (3 for fetch-and-add, 4 for compare-and-swap)
     */
    int postAtomic(byte kind, long compareAdd, long swap, LmrTriplet local, long cookie, RmrTriplet remote, int completionFlags,
            int firstArg) {
        ep.postLock.lock();
        try {
            int checked = check(completionFlags, firstArg + 3, false);
            if (checked != 0) {
                return checked;
            }
            int buffers = AtomicArguments.check(local, remote, firstArg);
            if (buffers != 0) {
                return buffers;
            }
            LmrTriplet[] one = atomicIov;
            one[0] = local;
            if (ep.state() == EpState.DISCONNECTED) {
                return flushAtOnce(ep.requestEvd(), kind, 1, one, 1, cookie, true, sendSge);
            }
            long total = fillSges(ia, ep.pz(), sendSge, 1, one, 1, true, Long.MAX_VALUE);
            if (total < 0) {
                return (int) total;
            }
            int slot = acquireSendSlot();
            if (slot < 0) {
                return Codes.INSUFFICIENT_RESOURCES;
            }
            record(slot, kind, cookie, IbExtension.ATOMIC_OPERAND_SIZE, completionFlags, null);
            header(slot, kind == WorkSlots.FETCH_AND_ADD ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP, 1,
                    sendFlags(completionFlags));
            sendWr.set(JAVA_LONG, Structs.SEND_WR_ATOMIC_REMOTE_ADDR, remote.targetAddress());
            sendWr.set(JAVA_LONG, Structs.SEND_WR_ATOMIC_COMPARE_ADD, compareAdd);
            sendWr.set(JAVA_LONG, Structs.SEND_WR_ATOMIC_SWAP, swap);
            sendWr.set(JAVA_INT, Structs.SEND_WR_ATOMIC_RKEY, remote.rmrContext());
            return postSend(sendWr, slot);
        } finally {
            ep.postLock.unlock();
        }
    }

    // ---- memory window binds -----------------------------------------------------------------------

    /**
     * Posts the bind of a window ({@code dat_rmr_bind}): for a type 2 window an
     * {@code IBV_WR_BIND_MW} request, after an unsignalled {@code IBV_WR_LOCAL_INV} of its current
     * key when it is bound (a bound type 2 window cannot be bound again), or the invalidation
     * alone for an unbind; for a type 1 window the driver's {@code bind_mw}. The bind completes
     * on the request EVD as an {@code RMR_BIND_COMPLETION_EVENT}.
     *
     * @return {@link Codes#SUCCESS}, {@link #BIND_FLUSHED}, {@link #BIND_DONE}, or an error code
     */
    int postBind(VerbsRmr.BindOp op, long cookie, int completionFlags) {
        ep.postLock.lock();
        try {
            int checked = check(completionFlags, DatReturn.INVALID_ARG6, false);
            if (checked != 0) {
                return checked;
            }
            VerbsEvd evd = ep.requestEvd();
            if (ep.state() == EpState.DISCONNECTED) {
                if (evd != null) {
                    ia.counters.completed(DtoCompletionStatus.ERR_FLUSHED, 0);
                    evd.postEvent(new DatEvent().setRmrBindCompletion(evd, op.rmr(), cookie, DtoCompletionStatus.ERR_FLUSHED));
                }
                return BIND_FLUSHED;
            }
            if (op.length() == 0 && !op.bound()) {
                // nothing is bound: the unbind is done, and says so in order with nothing else
                if (evd != null && (completionFlags & CompletionFlags.SUPPRESS) == 0) {
                    ia.counters.completed(DtoCompletionStatus.SUCCESS, 0);
                    evd.postEvent(new DatEvent().setRmrBindCompletion(evd, op.rmr(), cookie, DtoCompletionStatus.SUCCESS));
                }
                return BIND_DONE;
            }
            int slot = acquireSendSlot();
            if (slot < 0) {
                return Codes.INSUFFICIENT_RESOURCES;
            }
            record(slot, WorkSlots.BIND, cookie, op.length(), completionFlags, op);
            long wrId = ((long) ep.ownerId << 32) | slot;
            int flags = sendFlags(completionFlags);
            if (op.type() == 1) {
                return bindType1(op, wrId, flags, slot);
            }
            MemorySegment first = sendWr;
            if (op.bound()) {
                invalidateWr.set(JAVA_LONG, Structs.SEND_WR_WR_ID, wrId); // an error completion reports the bind
                invalidateWr.set(JAVA_INT, Structs.SEND_WR_SEND_FLAGS, op.length() == 0 ? flags : 0);
                invalidateWr.set(JAVA_INT, Structs.SEND_WR_IMM_DATA, op.oldKey()); // invalidate_rkey shares imm_data
                invalidateWr.set(ADDRESS, Structs.SEND_WR_NEXT, op.length() == 0 ? MemorySegment.NULL : sendWr);
                first = invalidateWr;
            }
            if (op.length() > 0) {
                header(slot, IBV_WR_BIND_MW, 0, flags);
                sendWr.set(ADDRESS, Structs.SEND_WR_BIND_MW_MW, op.rmr().mw);
                sendWr.set(JAVA_INT, Structs.SEND_WR_BIND_MW_RKEY, op.newKey());
                sendWr.set(ADDRESS, Structs.SEND_WR_BIND_MW_MR, op.mr());
                sendWr.set(JAVA_LONG, Structs.SEND_WR_BIND_MW_ADDR, op.address());
                sendWr.set(JAVA_LONG, Structs.SEND_WR_BIND_MW_LENGTH, op.length());
                sendWr.set(JAVA_INT, Structs.SEND_WR_BIND_MW_ACCESS, op.access());
            }
            return postSend(first, slot);
        } finally {
            ep.postLock.unlock();
        }
    }

    /** A type 1 window: the driver's {@code bind_mw} builds and posts the request; an unbind binds length 0. */
    private int bindType1(VerbsRmr.BindOp op, long wrId, int flags, int slot) {
        ep.drainDiscarded(discardWc);
        mwBind.set(JAVA_LONG, Structs.MW_BIND_WR_ID, wrId);
        mwBind.set(JAVA_INT, Structs.MW_BIND_SEND_FLAGS, flags);
        mwBind.set(ADDRESS, Structs.MW_BIND_MR, op.mr());
        mwBind.set(JAVA_LONG, Structs.MW_BIND_ADDR, op.length() == 0 ? 0 : op.address());
        mwBind.set(JAVA_LONG, Structs.MW_BIND_LENGTH, op.length());
        mwBind.set(JAVA_INT, Structs.MW_BIND_ACCESS, op.access());
        int result;
        try {
            result = (int) Inline.BIND_MW.invokeExact(op.rmr().bindFn, ep.qp(), op.rmr().mw, mwBind);
        } catch (Throwable t) {
            ep.sendSlots.release(slot);
            return Codes.INTERNAL_ERROR;
        }
        if (result != 0) {
            ep.sendSlots.release(slot);
            return result == Errno.ENOMEM ? Codes.INSUFFICIENT_RESOURCES : Codes.INTERNAL_ERROR;
        }
        return Codes.SUCCESS;
    }

    // ---- receives ----------------------------------------------------------------------------------

    int postRecv(int numSegments, LmrTriplet[] iov, long cookie, int completionFlags) {
        ep.postLock.lock();
        try {
            if (ep.freed || !ia.isUsable()) {
                return ep.invalidHandleCode();
            }
            if (ep.srq != null) {
                return Codes.INVALID_STATE;
            }
            if (!PostFlags.isValidRecv(completionFlags, ep.attributes())) {
                return Codes.invalidParameter(DatReturn.INVALID_ARG5);
            }
            if (ep.state() == EpState.DISCONNECTED) {
                return flushAtOnce(ep.recvEvd(), WorkSlots.RECV, numSegments, iov, ep.attributes().maxRecvIov(), cookie, true, recvSge);
            }
            long total = fillSges(ia, ep.pz(), recvSge, numSegments, iov, ep.attributes().maxRecvIov(), true, Long.MAX_VALUE);
            if (total < 0) {
                return (int) total;
            }
            WorkSlots slots = ep.recvSlots;
            int slot = slots.acquire();
            VerbsEvd evd = ep.recvEvd();
            if (slot < 0 && evd != null) {
                evd.reclaim();
                slot = slots.acquire();
            }
            if (slot < 0) {
                return Codes.INSUFFICIENT_RESOURCES;
            }
            slots.cookies[slot] = cookie;
            slots.lengths[slot] = total & ((1L << 40) - 1);
            slots.kinds[slot] = WorkSlots.RECV;
            slots.suppress[slot] = false;
            slots.unsignalled[slot] = (completionFlags & CompletionFlags.UNSIGNALLED) != 0;
            recvWr.set(JAVA_LONG, Structs.RECV_WR_WR_ID, ((long) ep.ownerId << 32) | WorkSlots.RECV_QUEUE | slot);
            recvWr.set(ADDRESS, Structs.RECV_WR_NEXT, MemorySegment.NULL);
            recvWr.set(JAVA_INT, Structs.RECV_WR_NUM_SGE, (int) (total >>> 40));
            ep.drainDiscarded(discardWc);
            int result;
            try {
                result = (int) Inline.POST_RECV.invokeExact(ep.postRecvFn, ep.qp(), recvWr, badWr);
            } catch (Throwable t) {
                slots.release(slot);
                return Codes.INTERNAL_ERROR;
            }
            if (result != 0) {
                slots.release(slot);
                return result == Errno.ENOMEM ? Codes.INSUFFICIENT_RESOURCES : Codes.INTERNAL_ERROR;
            }
            return Codes.SUCCESS;
        } finally {
            ep.postLock.unlock();
        }
    }

    /**
     * A DTO posted on a disconnected Endpoint is flushed at once (dat_ep_post_send(3DAT),
     * dat_ep_post_recv(3DAT)): its IOV is still checked, against the Endpoint's limit of its kind,
     * then its completion goes straight to the EVD with {@code DAT_DTO_ERR_FLUSHED}, without
     * touching the QP.
     */
    private int flushAtOnce(VerbsEvd evd, byte kind, int numSegments, LmrTriplet[] iov, int maxIov, long cookie, boolean writes,
            MemorySegment sges) {
        long checked = fillSges(ia, ep.pz(), sges, numSegments, iov, maxIov, writes, Long.MAX_VALUE);
        if (checked < 0) {
            return (int) checked;
        }
        if (evd != null) {
            ia.counters.completed(DtoCompletionStatus.ERR_FLUSHED, 0);
            int type = WorkSlots.extensionType(kind);
            DatEvent event = new DatEvent();
            if (type >= 0) {
                event.setExtensionDtoCompletion(IbExtension.IB_DTO_EVENT, evd, ep, cookie, DtoCompletionStatus.ERR_FLUSHED, 0, type, 0);
            } else {
                event.setDtoCompletion(evd, ep, cookie, DtoCompletionStatus.ERR_FLUSHED, 0);
            }
            evd.postEvent(event);
        }
        return Codes.SUCCESS;
    }

    /**
     * Checks an IOV and writes its non-empty segments as {@code ibv_sge}s. Shared with the SRQ.
     *
     * @param writes whether the DTO writes the local memory (receive, RDMA read target)
     * @param limit the most bytes to describe (an RDMA read reads no more than the remote buffer)
     * @return the SGE count in bits 40.. and the byte total in bits 0..39, or a negative DAT error code
     */
    static long fillSges(VerbsIa ia, VerbsPz pz, MemorySegment sges, int numSegments, LmrTriplet[] iov, int maxIov,
            boolean writes, long limit) {
        if (numSegments < 0 || numSegments > maxIov) {
            return Codes.invalidParameter(DatReturn.INVALID_ARG2);
        }
        if (numSegments > 0 && (iov == null || iov.length < numSegments)) {
            return Codes.invalidParameter(DatReturn.INVALID_ARG3);
        }
        long total = 0;
        int count = 0;
        for (int i = 0; i < numSegments; i++) {
            LmrTriplet t = iov[i];
            if (t == null) {
                return Codes.invalidParameter(DatReturn.INVALID_ARG3);
            }
            long length = t.segmentLength();
            if (length == 0) {
                continue;
            }
            if (length < 0 || length > 0xFFFF_FFFFL) {
                return Codes.invalidParameter(DatReturn.INVALID_ARG3);
            }
            VerbsLmr lmr = ia.lmrsByLkey.get(t.lmrContext());
            if (lmr == null || lmr.freed || !lmr.memoryAlive()) {
                // memory whose arena closed under its LMR: an inline send would copy from it
                return Codes.PRIVILEGES_UNKNOWN;
            }
            if (lmr.pz != pz) {
                return Codes.PROTECTION_VIOLATION;
            }
            if (!lmr.contains(t.virtualAddress(), length)) {
                return Codes.invalidParameter(DatReturn.INVALID_ARG3);
            }
            if (writes ? !lmr.localWrite : !lmr.localRead) {
                return writes ? Codes.PRIVILEGES_WRITE : Codes.PRIVILEGES_READ;
            }
            if (total + length > limit) {
                length = limit - total;
                if (length <= 0) {
                    break;
                }
            }
            long at = count * SGE_SIZE;
            sges.set(JAVA_LONG, at + Structs.SGE_ADDR, t.virtualAddress());
            sges.set(JAVA_INT, at + Structs.SGE_LENGTH, (int) length);
            sges.set(JAVA_INT, at + Structs.SGE_LKEY, lmr.lkey);
            total += length;
            count++;
        }
        return ((long) count << 40) | total;
    }

    /** The counted operation of a kind of request. */
    static Operation operation(byte kind) {
        return switch (kind) {
            case WorkSlots.SEND -> Operation.SEND;
            case WorkSlots.RDMA_WRITE -> Operation.RDMA_WRITE;
            case WorkSlots.RDMA_READ -> Operation.RDMA_READ;
            case WorkSlots.RDMA_WRITE_IMM -> Operation.RDMA_WRITE_IMMEDIATE;
            case WorkSlots.FETCH_AND_ADD -> Operation.FETCH_AND_ADD;
            case WorkSlots.CMP_AND_SWAP -> Operation.COMPARE_AND_SWAP;
            case WorkSlots.BIND -> Operation.RMR_BIND;
            default -> Operation.RECEIVE;
        };
    }
}
