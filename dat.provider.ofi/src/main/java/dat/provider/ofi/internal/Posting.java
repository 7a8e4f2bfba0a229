package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpAttributes;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import dat.api.ext.IbExtension;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.Ops;
import dat.provider.ofi.internal.ffi.Structs;
import dat.provider.support.RequestIov;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The data path of one Endpoint: the native {@code struct fi_msg}, {@code fi_msg_rma},
 * {@code iovec} and descriptor arrays it fills for each post, allocated once, and the posts
 * themselves, through the function pointers of the connection's {@link NativeEndpoint}
 * ({@code fi_sendmsg}, {@code fi_recvmsg}, {@code fi_writemsg}, {@code fi_readmsg}; the atomics,
 * where the IA has them, through {@link AtomicPosting}). Every IOV
 * segment is checked in Java first: the LMR context must name a live LMR
 * ({@code DAT_PRIVILEGES_VIOLATION}) of the Endpoint's PZ ({@code DAT_PROTECTION_VIOLATION}), the
 * segment must lie inside it ({@code DAT_INVALID_PARAMETER}) and the LMR must grant the local
 * privilege the DTO needs.
 *
 * <p>Receives posted before the connection exists are kept in their slots (with a copy of their
 * IOV) and handed to libfabric, in order, once the connection's endpoint is made. When the
 * connection ends, {@link #flushPosted} completes as flushed every DTO libfabric did not complete.
 * Every method is called with the Endpoint's post lock held; none allocates.
 */
final class Posting {

    private static final long IOV = Structs.IOVEC.byteSize();

    private final OfiEp ep;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment sendMsg;
    private final MemorySegment rmaMsg;
    private final MemorySegment rmaIov;
    private final MemorySegment sendIov;
    private final MemorySegment sendDesc;
    private final MemorySegment confirmMsg;
    private final MemorySegment recvMsg;
    private final MemorySegment recvIov;
    private final MemorySegment recvDesc;
    /** The LMRs of the receive being posted, one per segment ({@link WorkSlots#rememberLmrs}). */
    private final OfiLmr[] recvLmrs = new OfiLmr[Limits.MAX_IOV];
    private final long sendMsgAddress;
    private final long rmaMsgAddress;
    private final long recvMsgAddress;
    private NativeEndpoint connection;
    private int[] staged = new int[0];
    private int stagedHead;
    private int stagedCount;
    private int[] flushed = new int[0];
    /** The atomics' structs and posts, or {@code null} where the IA offers no atomics. */
    private final AtomicPosting atomics;
    /** The one-segment IOV of an atomic's local buffer, reused. */
    private final LmrTriplet[] atomicIov = new LmrTriplet[1];
    /** The RMR of the bind being posted ({@link #postBind}), and the token its slot got. */
    private OfiRmr binding;
    private long bindToken;

    Posting(OfiEp ep) {
        this.ep = ep;
        sendMsg = arena.allocate(Structs.FI_MSG);
        rmaMsg = arena.allocate(Structs.FI_MSG_RMA);
        rmaIov = arena.allocate(Structs.FI_RMA_IOV);
        sendIov = arena.allocate(IOV * Limits.MAX_IOV, 8);
        sendDesc = arena.allocate(ADDRESS.byteSize() * Limits.MAX_IOV, 8);
        confirmMsg = arena.allocate(Structs.FI_MSG_RMA);
        recvMsg = arena.allocate(Structs.FI_MSG);
        recvIov = arena.allocate(IOV * Limits.MAX_IOV, 8);
        recvDesc = arena.allocate(ADDRESS.byteSize() * Limits.MAX_IOV, 8);
        sendMsg.set(ADDRESS, Structs.MSG_IOV, sendIov);
        sendMsg.set(ADDRESS, Structs.MSG_DESC, sendDesc);
        rmaMsg.set(ADDRESS, Structs.MSG_RMA_IOV, sendIov);
        rmaMsg.set(ADDRESS, Structs.MSG_RMA_DESC, sendDesc);
        rmaMsg.set(ADDRESS, Structs.MSG_RMA_RMA_IOV, rmaIov);
        rmaMsg.set(JAVA_LONG, Structs.MSG_RMA_RMA_IOV_COUNT, 1);
        recvMsg.set(ADDRESS, Structs.MSG_IOV, recvIov);
        recvMsg.set(ADDRESS, Structs.MSG_DESC, recvDesc);
        atomics = ep.ia.domain.atomics ? new AtomicPosting(ep, arena) : null;
        sendMsgAddress = sendMsg.address();
        rmaMsgAddress = rmaMsg.address();
        recvMsgAddress = recvMsg.address();
        resizeStaging(ep.recvSlots.capacity());
    }

    /** The queues were re-made ({@code dat_ep_modify}): the staging ring follows the receive queue. */
    void resizeStaging(int capacity) {
        staged = new int[capacity];
        stagedHead = 0;
        stagedCount = 0;
        flushed = new int[Math.max(capacity, ep.sendSlots.capacity())];
    }

    NativeEndpoint connection() {
        return connection;
    }

    /** The connection's endpoint is made: receives posted before are handed to it, in order. */
    void connected(NativeEndpoint made) {
        connection = made;
        WorkSlots slots = ep.recvSlots;
        while (stagedCount > 0) {
            int slot = staged[stagedHead];
            stagedHead = (stagedHead + 1) % staged.length;
            stagedCount--;
            int count = slots.segmentCounts[slot];
            for (int i = 0; i < count; i++) {
                int at = slot * slots.maxIov + i;
                recvIov.set(JAVA_LONG, i * IOV + Structs.IOV_BASE, slots.iovAddresses[at]);
                recvIov.set(JAVA_LONG, i * IOV + Structs.IOV_LEN, slots.iovLengths[at]);
                recvDesc.setAtIndex(JAVA_LONG, i, slots.iovDescriptors[at]);
            }
            if (postRecvNative(slot, count) != Codes.SUCCESS) {
                slots.abandon(slot); // the flush at the connection's end would not know it
            }
        }
    }

    /** The connection's endpoint is gone: later receives are kept until the next one. */
    void disconnected() {
        connection = null;
    }

    /**
     * The connection's endpoint closes before its connection existed (dat_ep_connect failed at
     * once): the receives it was handed, all of them staged ones, are staged again for the next
     * endpoint under new tokens, so that their cancellation by this one reports nothing.
     */
    void restageReceives() {
        int n = ep.recvSlots.renamePosted(flushed);
        stagedHead = 0;
        stagedCount = 0;
        for (int i = 0; i < n; i++) {
            stage(flushed[i]);
        }
    }

    /** Keeps a posted receive for the next connection's endpoint, behind those kept before. */
    private void stage(int slot) {
        staged[(stagedHead + stagedCount) % staged.length] = slot;
        stagedCount++;
    }

    // ---- checks ------------------------------------------------------------------------------------

    /**
     * Checks an IOV and writes its non-empty segments as {@code iovec}s and descriptors.
     *
     * @param writes whether the DTO writes the local memory (receive, RDMA read target)
     * @param limit the most bytes to describe (an RDMA read reads no more than the remote buffer)
     * @param lmrs where to write the LMR of each segment described, or {@code null}
     * @return the segment count in bits 40.. and the byte total in bits 0..39, or a negative DAT error code
     */
    static long fill(OfiIa ia, OfiPz pz, MemorySegment iovs, MemorySegment descs, int numSegments, LmrTriplet[] iov,
            int maxIov, boolean writes, long limit, OfiLmr[] lmrs) {
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
            OfiLmr lmr = ia.lmrsByContext.get(t.lmrContext());
            if (lmr == null || lmr.freed || !lmr.memoryAlive()) {
                // memory whose arena closed under its LMR is no registration libfabric may touch
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
            iovs.set(JAVA_LONG, count * IOV + Structs.IOV_BASE, t.virtualAddress());
            iovs.set(JAVA_LONG, count * IOV + Structs.IOV_LEN, length);
            descs.setAtIndex(JAVA_LONG, count, lmr.descriptor);
            if (lmrs != null) {
                lmrs[count] = lmr;
            }
            total += length;
            count++;
        }
        return ((long) count << 40) | total;
    }

    /** The most segments a request of {@code kind} may name on an Endpoint of these attributes. */
    static int maxIov(byte kind, EpAttributes attributes) {
        return RequestIov.max(attributes, kind == WorkSlots.RDMA_READ, kind == WorkSlots.SEND);
    }

    // ---- posts -------------------------------------------------------------------------------------

    /**
     * A send, RDMA write or RDMA read; the state and flags were checked by the caller.
     *
     * @param immediate the immediate data of an RDMA write with immediate (the write's remote CQ
     *     data, or a zero-length message with remote CQ data after the write: {@link RemoteCqData}), else 0
     */
    int postRequest(byte kind, int numSegments, LmrTriplet[] iov, long cookie, RmrTriplet remote, int completionFlags,
            int immediate) {
        EpAttributes attributes = ep.attributes();
        int maxIov = maxIov(kind, attributes);
        long limit = kind == WorkSlots.RDMA_READ ? remote.segmentLength() : Long.MAX_VALUE;
        long total = fill(ep.ia, ep.pz(), sendIov, sendDesc, numSegments, iov, maxIov, kind == WorkSlots.RDMA_READ, limit, null);
        if (total < 0) {
            return (int) total;
        }
        int segments = (int) (total >>> 40);
        total &= (1L << 40) - 1;
        if (remote != null) {
            if (kind == WorkSlots.RDMA_READ ? remote.segmentLength() > total : total > remote.segmentLength()) {
                return Codes.LENGTH_ERROR;
            }
            if (total > attributes.maxRdmaSize()) {
                return Codes.LENGTH_ERROR;
            }
        } else if (total > attributes.maxMessageSize()) {
            return Codes.LENGTH_ERROR;
        }
        if (connection == null) {
            return Codes.INVALID_STATE;
        }
        WorkSlots slots = ep.sendSlots;
        // UNSIGNALLED still queues the event (dat_ep_post_send(3DAT): a non-notification
        // completion, which ends no wait); only SUPPRESS drops a success
        boolean suppress = (completionFlags & CompletionFlags.SUPPRESS) != 0;
        long flags = Fi.COMPLETION;
        if ((completionFlags & CompletionFlags.BARRIER_FENCE) != 0 && (ep.ia.limits.caps() & Fi.FENCE) != 0) {
            flags |= Fi.FENCE;
        }
        if (kind == WorkSlots.SEND) {
            long data = 0;
            if ((completionFlags & CompletionFlags.SOLICITED_WAIT) != 0 && ep.ia.limits.cqData().marksSolicited()) {
                // the mark makes its receive a notification on a SOLICITED_WAIT stream (MessageCqData)
                flags |= Fi.REMOTE_CQ_DATA;
                data = MessageCqData.solicitedSend();
            }
            if (flags == Fi.COMPLETION && segments <= 1 && total <= ep.ia.limits.injectSize() && slots.posted() == 0) {
                int injected = inject(slots, ep.requestEvd(), cookie, total, completionFlags);
                if (injected != NOT_INJECTED) {
                    return injected;
                }
            }
            if (slots.hasSilent()) {
                // its completion then covers the silent writes before it: a consumer that writes
                // suppressed and then sends has every write confirmed once the send completes
                flags |= Fi.DELIVERY_COMPLETE;
            }
            return send(slots, cookie, total, WorkSlots.SEND, completionFlags, 0, segments, data, flags);
        }
        rmaIov.set(JAVA_LONG, Structs.RMA_IOV_ADDR, remote.targetAddress());
        rmaIov.set(JAVA_LONG, Structs.RMA_IOV_LEN, kind == WorkSlots.RDMA_READ ? remote.segmentLength() : total);
        rmaIov.set(JAVA_LONG, Structs.RMA_IOV_KEY, ep.remoteKey(remote.rmrContext()));
        if (kind == WorkSlots.RDMA_READ) {
            return rma(connection.readmsg, slots, cookie, total, kind, completionFlags, segments, flags);
        }
        // the write completes when the target has placed it (libfabric's tcp provider otherwise
        // completes it once its bytes are in the socket): as on RC hardware, a completed RDMA Write
        // is in the remote memory, and a refused one is not reported as done. A suppressed write
        // asks for no completion at all: the next confirming DTO's completion covers it (WorkSlots)
        if (kind == WorkSlots.RDMA_WRITE) {
            if (suppress && (flags & Fi.FENCE) == 0 && slots.maySilence()) {
                return silentWrite(slots, cookie, total, segments);
            }
            return rma(connection.writemsg, slots, cookie, total, kind, completionFlags, segments, flags | Fi.DELIVERY_COMPLETE);
        }
        if (ep.ia.limits.cqData().writesImmediateData()) {
            // the provider's CQ data consumes a receive at the target (RemoteCqData): one write
            // carries the value, and the target's receive completes with it and the bytes written
            return rma(connection.writemsg, slots, cookie, total, WorkSlots.WRITE_IMMEDIATE, completionFlags, segments,
                    flags | Fi.REMOTE_CQ_DATA | Fi.DELIVERY_COMPLETE, immediate, Integer.toUnsignedLong(immediate));
        }
        if (slots.capacity() - slots.outstanding() < 2) {
            OfiEvd requests = ep.requestEvd();
            if (requests != null) {
                requests.reclaim();
            }
            if (slots.capacity() - slots.outstanding() < 2) {
                return Codes.INSUFFICIENT_RESOURCES;
            }
        }
        if (total > 0) {
            int written = rma(connection.writemsg, slots, cookie, total, WorkSlots.WRITE_PART, CompletionFlags.SUPPRESS, segments, flags);
            if (written != Codes.SUCCESS) {
                return written;
            }
        }
        long data = MessageCqData.writeWithImmediateData(total, immediate,
                (completionFlags & CompletionFlags.SOLICITED_WAIT) != 0 && ep.ia.limits.cqData().marksSolicited());
        return send(slots, cookie, total, WorkSlots.WRITE_IMMEDIATE, completionFlags, immediate, 0, data,
                flags | Fi.REMOTE_CQ_DATA | Fi.DELIVERY_COMPLETE);
    }

    /**
     * A fetch-and-add or compare-and-swap ({@link AtomicPosting}); the state, flags and the
     * buffers' lengths and alignment were checked by the caller.
     */
    int postAtomic(byte kind, long operand, long compare, LmrTriplet local, long cookie, RmrTriplet remote, int completionFlags) {
        if (atomics == null) {
            return Codes.INTERNAL_ERROR; // Extensions offers no AtomicEndpoint then
        }
        return atomics.post(connection, kind, operand, compare, local, cookie, remote, completionFlags);
    }

    /** {@link #inject}'s answer when it did not take the send: the caller sends it with {@code fi_sendmsg}. */
    private static final int NOT_INJECTED = Integer.MIN_VALUE;

    /**
     * A small send as {@code fi_inject}: libfabric copies the message and sends it at once, and
     * reports no completion, so its success is queued here, in the request EVD's ring (libfabric
     * tcp's own completion of such a send, written as the bytes went into the socket, cost a
     * write and a read of the CQ's signal descriptor and a read of the CQ on each side of a
     * ping-pong). The send completes as {@code fi_sendmsg}'s would: the message is in
     * libfabric's hands and the buffer is the consumer's again. Taken only when no earlier DTO of
     * this request queue is still in libfabric (so that completions stay in posting order) and
     * when the EVD's ring has room.
     *
     * @return the post's result, or {@link #NOT_INJECTED}
     */
    private int inject(WorkSlots slots, OfiEvd requests, long cookie, long total, int completionFlags) {
        if (requests == null || !requests.lockForInject()) {
            return NOT_INJECTED;
        }
        boolean queued = false;
        try {
            int slot = slots.acquire();
            if (slot < 0) {
                return NOT_INJECTED;
            }
            describe(slots, slot, cookie, total, WorkSlots.SEND, completionFlags, 0, false);
            long buffer = total == 0 ? 0 : sendIov.get(JAVA_LONG, Structs.IOV_BASE);
            long result;
            try {
                result = (long) Ops.INJECT.invokeExact(connection.inject, connection.address, buffer, total, 0L);
            } catch (Throwable t) {
                slots.abandon(slot);
                return Codes.INTERNAL_ERROR;
            }
            if (result != 0) {
                return posted(slots, slot, result);
            }
            long token = slots.token(slot);
            if (slots.suppress[slot]) {
                slots.release(token);
            } else {
                slots.markQueued(token);
                requests.cq.addInjected(token, !slots.unsignalled[slot]);
                queued = !slots.unsignalled[slot];
            }
            return Codes.SUCCESS;
        } finally {
            requests.unlockAfterInject(queued);
        }
    }

    /** One {@code fi_sendmsg}: a message of the IOV in {@link #sendIov}, or a zero-length one with remote CQ data. */
    private int send(WorkSlots slots, long cookie, long total, byte kind, int completionFlags, int immediate, int segments, long data,
            long flags) {
        int slot = acquire(slots, ep.requestEvd());
        if (slot < 0) {
            return Codes.INSUFFICIENT_RESOURCES;
        }
        describe(slots, slot, cookie, total, kind, completionFlags, immediate, (flags & Fi.DELIVERY_COMPLETE) != 0);
        sendMsg.set(JAVA_LONG, Structs.MSG_IOV_COUNT, postedSegments(segments));
        sendMsg.set(JAVA_LONG, Structs.MSG_CONTEXT, slots.token(slot));
        sendMsg.set(JAVA_LONG, Structs.MSG_DATA, data);
        long result;
        try {
            result = (long) Ops.XFER.invokeExact(connection.sendmsg, connection.address, sendMsgAddress, flags);
        } catch (Throwable t) {
            slots.abandon(slot);
            return Codes.INTERNAL_ERROR;
        }
        return posted(slots, slot, result);
    }

    /** One {@code fi_readmsg} or {@code fi_writemsg} of the IOV in {@link #sendIov} and the remote buffer in {@link #rmaIov}. */
    private int rma(MemorySegment fn, WorkSlots slots, long cookie, long total, byte kind, int completionFlags, int segments, long flags) {
        return rma(fn, slots, cookie, total, kind, completionFlags, segments, flags, 0, 0L);
    }

    /** {@link #rma}, with the immediate value a write with immediate data completes with and its remote CQ data. */
    private int rma(MemorySegment fn, WorkSlots slots, long cookie, long total, byte kind, int completionFlags, int segments, long flags,
            int immediate, long data) {
        int slot = acquire(slots, ep.requestEvd());
        if (slot < 0) {
            return Codes.INSUFFICIENT_RESOURCES;
        }
        // a read's data comes back after the target took everything sent before the request
        describe(slots, slot, cookie, total, kind, completionFlags, immediate,
                (flags & Fi.DELIVERY_COMPLETE) != 0 || kind == WorkSlots.RDMA_READ);
        if (kind == WorkSlots.RMR_BIND) {
            slots.binds[slot] = binding; // before the post: its completion may be read before this thread goes on
            bindToken = slots.token(slot);
        }
        rmaMsg.set(JAVA_LONG, Structs.MSG_RMA_IOV_COUNT, postedSegments(segments));
        rmaMsg.set(JAVA_LONG, Structs.MSG_RMA_CONTEXT, slots.token(slot));
        rmaMsg.set(JAVA_LONG, Structs.MSG_RMA_DATA, data);
        long result;
        try {
            result = (long) Ops.XFER.invokeExact(fn, connection.address, rmaMsgAddress, flags);
        } catch (Throwable t) {
            slots.abandon(slot);
            return Codes.INTERNAL_ERROR;
        }
        int code = posted(slots, slot, result);
        if (code == Codes.SUCCESS && (flags & Fi.COMPLETION) == 0) {
            slots.markSilent(slot);
        }
        return code;
    }

    /**
     * The segment count to post for {@code segments} described in {@link #sendIov}: a message or
     * RDMA transfer of no bytes names the domain's empty segment instead of none where the provider
     * needs descriptors ({@link Domain#emptySegmentDescriptor}).
     */
    private int postedSegments(int segments) {
        Domain domain = ep.ia.domain;
        if (segments > 0 || domain.emptySegmentDescriptor == 0) {
            return segments;
        }
        sendIov.set(JAVA_LONG, Structs.IOV_BASE, domain.emptySegmentAddress);
        sendIov.set(JAVA_LONG, Structs.IOV_LEN, 0L);
        sendDesc.setAtIndex(JAVA_LONG, 0, domain.emptySegmentDescriptor);
        return 1;
    }

    /**
     * A suppressed RDMA write without {@code FI_COMPLETION} (the request CQ is bound with
     * {@code FI_SELECTIVE_COMPLETION}): libfabric reports it only if it fails, and its slot waits
     * for a later confirming completion. On tcp the write carries no request for an
     * acknowledgement, which the target would otherwise send and the initiator read for each
     * write. A write the target refuses closes the connection there, as a delivery-complete one
     * does, and the teardown flushes it.
     */
    private int silentWrite(WorkSlots slots, long cookie, long total, int segments) {
        return rma(connection.writemsg, slots, cookie, total, WorkSlots.RDMA_WRITE, CompletionFlags.SUPPRESS, segments, 0L);
    }

    static void describe(WorkSlots slots, int slot, long cookie, long total, byte kind, int completionFlags, int immediate,
            boolean confirming) {
        slots.confirming[slot] = confirming;
        slots.cookies[slot] = cookie;
        slots.lengths[slot] = total;
        slots.kinds[slot] = kind;
        slots.suppress[slot] = (completionFlags & CompletionFlags.SUPPRESS) != 0;
        slots.unsignalled[slot] = (completionFlags & CompletionFlags.UNSIGNALLED) != 0;
        slots.solicitedOnly[slot] = false;
        slots.immediates[slot] = immediate;
    }

    static int posted(WorkSlots slots, int slot, long result) {
        if (result != 0) {
            slots.abandon(slot);
            return result == -Fi.EAGAIN ? Codes.INSUFFICIENT_RESOURCES : Codes.INTERNAL_ERROR;
        }
        return Codes.SUCCESS;
    }

    /**
     * The active side's confirmation of an accept ({@link AcceptConfirmation}): a zero-length RDMA
     * write with remote CQ data, no buffer and no remote range, under the Endpoint's internal
     * token (its completion is dropped). A failure is not reported: the connection's end shows it.
     */
    void confirm(long data) {
        if (connection == null) {
            return;
        }
        confirmMsg.set(JAVA_LONG, Structs.MSG_RMA_IOV_COUNT, 0);
        confirmMsg.set(JAVA_LONG, Structs.MSG_RMA_RMA_IOV_COUNT, 0);
        confirmMsg.set(JAVA_LONG, Structs.MSG_RMA_CONTEXT, WorkSlots.internalToken(ep.ownerId));
        confirmMsg.set(JAVA_LONG, Structs.MSG_RMA_DATA, data);
        try {
            long ignored = (long) Ops.XFER.invokeExact(connection.writemsg, connection.address, confirmMsg.address(), Fi.REMOTE_CQ_DATA);
        } catch (Throwable t) {
            // the peer never confirms its accept and sees the connection end instead
        }
    }

    /**
     * A graceful disconnect's confirmation of the silent writes: a zero-length RDMA write with no
     * remote range that asks for delivery, whose success means the target processed every write
     * before it. Posted as the hidden half of a write with immediate data is: its completion,
     * success or not, is the provider's own, and a flush skips it. Nothing is posted without silent
     * writes, or when the queue is full (the disconnect then waits its limit).
     */
    void confirmSilentWrites() {
        if (connection == null || !ep.sendSlots.hasSilent()) {
            return;
        }
        rmaMsg.set(JAVA_LONG, Structs.MSG_RMA_RMA_IOV_COUNT, 0);
        try {
            int ignored = rma(connection.writemsg, ep.sendSlots, 0, 0, WorkSlots.WRITE_PART, CompletionFlags.SUPPRESS, 0,
                    Fi.COMPLETION | Fi.DELIVERY_COMPLETE);
        } finally {
            rmaMsg.set(JAVA_LONG, Structs.MSG_RMA_RMA_IOV_COUNT, 1);
        }
    }

    /**
     * A memory window's bind ({@link OfiRmr}): a zero-length RDMA write with no remote range that
     * asks for delivery, in a slot of its own. libfabric completes it after every DTO posted
     * before it (the provider's completions are in order) and once the peer processed them, so
     * its completion is the bind's, in the request queue's order, and a teardown flushes it as
     * any DTO. The caller checked the Endpoint is connected.
     *
     * @return {@link Codes#SUCCESS} with the slot's token in {@code tokenOut[0]}, or a DAT error code
     */
    int postBind(OfiRmr rmr, long cookie, int completionFlags, long[] tokenOut) {
        long flags = Fi.COMPLETION | Fi.DELIVERY_COMPLETE;
        if ((completionFlags & CompletionFlags.BARRIER_FENCE) != 0 && (ep.ia.limits.caps() & Fi.FENCE) != 0) {
            flags |= Fi.FENCE;
        }
        rmaMsg.set(JAVA_LONG, Structs.MSG_RMA_RMA_IOV_COUNT, 0);
        binding = rmr;
        try {
            int code = rma(connection.writemsg, ep.sendSlots, cookie, 0, WorkSlots.RMR_BIND, completionFlags, 0, flags);
            tokenOut[0] = bindToken;
            return code;
        } finally {
            binding = null;
            rmaMsg.set(JAVA_LONG, Structs.MSG_RMA_RMA_IOV_COUNT, 1);
        }
    }

    /** A bind posted on a disconnected Endpoint: flushed at once, as its DTOs are. */
    void flushBindAtOnce(OfiRmr rmr, long cookie) {
        OfiEvd evd = ep.requestEvd();
        if (evd != null) {
            postBindFlushed(evd, rmr, cookie);
        }
    }

    /** The flushed completion of a bind, counted as one delivered. */
    private void postBindFlushed(OfiEvd evd, OfiRmr rmr, long cookie) {
        evd.postEvent(new DatEvent().setRmrBindCompletion(evd, rmr, cookie, DtoCompletionStatus.ERR_FLUSHED));
        ep.ia.counters.completed(DtoCompletionStatus.ERR_FLUSHED, 0);
    }

    /** A receive: posted now when the connection's endpoint exists, else kept for it. */
    int postRecv(int numSegments, LmrTriplet[] iov, long cookie, int completionFlags) {
        long total = fill(ep.ia, ep.pz(), recvIov, recvDesc, numSegments, iov, ep.attributes().maxRecvIov(), true, Long.MAX_VALUE,
                recvLmrs);
        if (total < 0) {
            return (int) total;
        }
        int segments = (int) (total >>> 40);
        WorkSlots slots = ep.recvSlots;
        int slot = acquire(slots, ep.recvEvd());
        if (slot < 0) {
            return Codes.INSUFFICIENT_RESOURCES;
        }
        describe(slots, slot, cookie, total & ((1L << 40) - 1), WorkSlots.RECV, completionFlags & CompletionFlags.UNSIGNALLED, 0, false);
        slots.solicitedOnly[slot] = ep.attributes().recvCompletionFlags() == CompletionFlags.SOLICITED_WAIT;
        slots.rememberLmrs(slot, recvLmrs, segments);
        if (connection != null) {
            int result = postRecvNative(slot, segments);
            if (result != Codes.SUCCESS) {
                slots.abandon(slot);
            }
            return result;
        }
        for (int i = 0; i < segments; i++) {
            int at = slot * slots.maxIov + i;
            slots.iovAddresses[at] = recvIov.get(JAVA_LONG, i * IOV + Structs.IOV_BASE);
            slots.iovLengths[at] = recvIov.get(JAVA_LONG, i * IOV + Structs.IOV_LEN);
            slots.iovDescriptors[at] = recvDesc.getAtIndex(JAVA_LONG, i);
        }
        stage(slot);
        return Codes.SUCCESS;
    }

    private int postRecvNative(int slot, int segments) {
        recvMsg.set(JAVA_LONG, Structs.MSG_IOV_COUNT, segments);
        recvMsg.set(JAVA_LONG, Structs.MSG_CONTEXT, ep.recvSlots.token(slot));
        long result;
        try {
            result = (long) Ops.XFER.invokeExact(connection.recvmsg, connection.address, recvMsgAddress, 0L);
        } catch (Throwable t) {
            return Codes.INTERNAL_ERROR;
        }
        if (result != 0) {
            return result == -Fi.EAGAIN ? Codes.INSUFFICIENT_RESOURCES : Codes.INTERNAL_ERROR;
        }
        return Codes.SUCCESS;
    }

    static int acquire(WorkSlots slots, OfiEvd evd) {
        int slot = slots.acquire();
        if (slot < 0 && evd != null) {
            evd.reclaim(); // suppressed completions nobody dequeued still hold their slots
            slot = slots.acquire();
        }
        return slot;
    }

    /**
     * A DTO posted on a disconnected Endpoint is flushed at once (dat_ep_post_send(3DAT),
     * dat_ep_post_recv(3DAT)): its IOV is still checked, then its completion goes straight to the
     * EVD with {@code DAT_DTO_ERR_FLUSHED}.
     */
    int flushAtOnce(OfiEvd evd, byte kind, int numSegments, LmrTriplet[] iov, long cookie, boolean writes, int maxIov) {
        long checked = fill(ep.ia, ep.pz(), writes ? recvIov : sendIov, writes ? recvDesc : sendDesc, numSegments, iov, maxIov,
                writes, Long.MAX_VALUE, null);
        if (checked < 0) {
            return (int) checked;
        }
        postFlushed(evd, kind, cookie);
        return Codes.SUCCESS;
    }

    /**
     * The flushed completion of a DTO of {@code kind}: a {@code DAT_IB_DTO_EVENT} of its type for
     * an extension's operation (a write with immediate data, an atomic), else a DTO completion.
     */
    private void postFlushed(OfiEvd evd, byte kind, long cookie) {
        if (evd == null) {
            return;
        }
        int type = WorkSlots.extensionType(kind);
        DatEvent event = new DatEvent();
        evd.postEvent(type == WorkSlots.NO_EXTENSION ? event.setDtoCompletion(evd, ep, cookie, DtoCompletionStatus.ERR_FLUSHED, 0)
                : event.setExtensionDtoCompletion(IbExtension.IB_DTO_EVENT, evd, ep, cookie, DtoCompletionStatus.ERR_FLUSHED, 0, type, 0));
        ep.ia.counters.completed(DtoCompletionStatus.ERR_FLUSHED, 0);
    }

    /** An atomic posted on a disconnected Endpoint: its local buffer is checked, then it completes as flushed. */
    int flushAtomicAtOnce(OfiEvd evd, byte kind, LmrTriplet local, long cookie) {
        atomicIov[0] = local;
        return flushAtOnce(evd, kind, 1, atomicIov, cookie, true, 1);
    }

    /**
     * The connection ended and its endpoint is closed: every DTO still posted (libfabric did not
     * complete it, or completed it into a queue that was then read) completes as flushed, in the
     * order it was posted, receives kept for a connection included.
     */
    void flushPosted() {
        stagedHead = 0;
        stagedCount = 0;
        flush(ep.sendSlots, ep.requestEvd());
        flush(ep.recvSlots, ep.recvEvd());
    }

    private void flush(WorkSlots slots, OfiEvd evd) {
        int n = slots.takePosted(flushed);
        for (int i = 0; i < n; i++) {
            int slot = flushed[i];
            if (evd == null || slots.kinds[slot] == WorkSlots.WRITE_PART) {
                continue;
            }
            if (slots.kinds[slot] == WorkSlots.RMR_BIND) {
                postBindFlushed(evd, slots.binds[slot], slots.cookies[slot]);
            } else {
                postFlushed(evd, slots.kinds[slot], slots.cookies[slot]);
            }
        }
    }

    /** Frees the native structs (the Endpoint is freed). */
    void close() {
        arena.close();
    }

    /** Whether receives wait for a connection (for tests and the state machine). */
    int staged() {
        return stagedCount;
    }
}
