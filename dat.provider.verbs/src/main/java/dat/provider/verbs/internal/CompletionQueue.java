package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.ext.IbExtension;
import dat.provider.support.WorkCompletionStatus;
import dat.provider.verbs.internal.ffi.Inline;
import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An EVD's completion queue: the {@code ibv_cq} on the IA's completion channel, sized to the EVD's
 * queue length, and a native ring of {@code ibv_wc} entries of the CQ's size that
 * {@code poll_cq} fills. Filling reaps the successes whose events are suppressed at once (their
 * request slots come back even if nobody dequeues) and marks each entry it keeps as a
 * notification event or not; taking an entry turns it into the consumer's {@link DatEvent}
 * without allocating. The EVD's lock guards every call.
 */
@SuppressWarnings("restricted") // ibv_cq pointers are given their C size
final class CompletionQueue {

    private static final long WC_SIZE = Structs.IBV_WC.byteSize();
    /** {@code IBV_WC_RECV_RDMA_WITH_IMM}: a receive consumed by an RDMA write with immediate data. */
    private static final int IBV_WC_RECV_RDMA_WITH_IMM = 129;
    /** {@code IBV_WC_WITH_IMM}: the completion carries immediate data. */
    private static final int IBV_WC_WITH_IMM = 2;
    private static final ValueLayout.OfInt BIG_ENDIAN_INT = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    private final VerbsIa ia;
    /** The {@code ibv_cq}, for the QPs whose send or receive CQ it is. */
    final MemorySegment cq;
    private final MemorySegment pollFn;
    private final MemorySegment notifyFn;
    /**
     * The EVD's receive streams configured {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}: while there
     * are any, the CQ is armed for solicited completions only, and a successful receive is no
     * notification by itself (an {@code ibv_wc} does not say whether its message was solicited).
     */
    private final AtomicInteger solicitedStreams;

    /** The ring's memory: growing the CQ moves the ring to a larger one and closes the old. */
    private Arena arena;
    private MemorySegment ring;
    private MemorySegment[] tails;
    private int capacity;
    private int head;
    private int count;
    /** Per entry: whether it is a notification event (not the success of an UNSIGNALLED DTO). */
    private boolean[] notifies;
    /** The notification events among the ring's entries. */
    private int notifying;

    /**
     * Creates the CQ on the IA's completion channel; {@code token} is its {@code cq_context}, by
     * which the event thread finds the EVD.
     */
    CompletionQueue(VerbsIa ia, int qlen, long token, AtomicInteger solicitedStreams) {
        this.ia = ia;
        this.solicitedStreams = solicitedStreams;
        cq = ia.verbs.createCq(ia.context, qlen, token, ia.compChannel);
        MemorySegment context = cq.get(ADDRESS, Structs.CQ_CONTEXT).reinterpret(Structs.IBV_CONTEXT.byteSize());
        pollFn = Inline.op(context, Structs.CONTEXT_OPS_POLL_CQ);
        notifyFn = Inline.op(context, Structs.CONTEXT_OPS_REQ_NOTIFY_CQ);
        arena = Arena.ofShared();
        allocateRing(arena, Math.max(qlen, cq.get(JAVA_INT, Structs.CQ_CQE)));
    }

    /** Gives the queue a ring of {@code entries} in {@code memory}. */
    private void allocateRing(Arena memory, int entries) {
        ring = memory.allocate(WC_SIZE * entries, 8);
        tails = new MemorySegment[entries];
        for (int i = 0; i < entries; i++) {
            tails[i] = ring.asSlice(i * WC_SIZE);
        }
        notifies = new boolean[entries];
        capacity = entries;
    }

    /** How many completions the ring holds. */
    int count() {
        return count;
    }

    /** How many entries the ring has room for: the CQ's size. */
    int capacity() {
        return capacity;
    }

    /** Whether a notification event is in the ring. */
    boolean hasNotification() {
        return notifying > 0;
    }

    /** Asks for the completion channel's next event of this CQ: any completion, or a solicited one while SOLICITED_WAIT streams feed it. */
    void arm() {
        int result;
        try {
            result = (int) Inline.REQ_NOTIFY_CQ.invokeExact(notifyFn, cq, solicitedStreams.get() > 0 ? 1 : 0);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (result != 0) {
            throw new NativeException("req_notify_cq", result);
        }
    }

    /** Polls as many completions as fit contiguously after the ring's tail. */
    void fill() {
        if (count == capacity) {
            return;
        }
        if (count == 0) {
            head = 0;
        }
        int tail = (head + count) % capacity;
        int space = Math.min(capacity - count, capacity - tail);
        int polled;
        try {
            polled = (int) Inline.POLL_CQ.invokeExact(pollFn, cq, space, tails[tail]);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (polled <= 0) {
            return;
        }
        int kept = 0;
        for (int i = 0; i < polled; i++) {
            long entry = (long) (tail + i) * WC_SIZE;
            long wrId = ring.get(JAVA_LONG, entry + Structs.WC_WR_ID);
            boolean success = ring.get(JAVA_INT, entry + Structs.WC_STATUS) == 0;
            Object owner = ia.owner((int) (wrId >>> 32));
            if (owner instanceof VerbsSrq srq) {
                srq.arrived(); // dat_srq_query: no longer available, still outstanding
            }
            if (!(success && releaseIfSuppressed(owner, wrId))) {
                boolean notification = !success || isNotification(owner, wrId);
                if (kept != i) {
                    MemorySegment.copy(ring, entry, ring, (long) (tail + kept) * WC_SIZE, WC_SIZE);
                }
                notifies[tail + kept] = notification;
                if (notification) {
                    notifying++;
                }
                kept++;
            }
        }
        count += kept;
    }

    /**
     * Whether a successful completion is a notification event: any but that of a DTO posted
     * {@code DAT_COMPLETION_UNSIGNALLED_FLAG}, which is queued and ends no wait
     * (dat_evd_wait(3DAT)), and a receive on a SOLICITED_WAIT stream, of which the completion
     * channel tells. A failed completion always notifies.
     */
    private boolean isNotification(Object owner, long wrId) {
        if (solicitedStreams.get() > 0) {
            return false;
        }
        WorkSlots slots = WorkSlots.of(owner, wrId);
        int slot = WorkSlots.slot(wrId);
        return slots == null || slot < 0 || slot >= slots.capacity() || !slots.unsignalled[slot];
    }

    /** Releases the slot of a successful completion whose event is suppressed; {@code false} when its event is not. */
    private boolean releaseIfSuppressed(Object owner, long wrId) {
        WorkSlots slots = WorkSlots.of(owner, wrId);
        if (slots == null) {
            return false;
        }
        int slot = WorkSlots.slot(wrId);
        if (slot < 0 || slot >= slots.capacity() || !slots.suppress[slot]) {
            return false;
        }
        Object ref = slots.refs[slot];
        if (slots.release(slot)) {
            if (owner instanceof VerbsSrq srq) {
                srq.consumed();
            }
            if (ref instanceof VerbsRmr.BindOp bind) {
                bind.completed(true); // the window moved: what the bind replaced can go
            }
        }
        return true;
    }

    /** Moves the next completion into {@code event}, as one of {@code evd}'s, polling the CQ when the ring is empty. */
    boolean take(DatEvent event, VerbsEvd evd) {
        for (;;) {
            if (count == 0) {
                fill();
                if (count == 0) {
                    return false;
                }
            }
            long entry = head * WC_SIZE;
            if (notifies[head]) {
                notifying--;
            }
            head = (head + 1) % capacity;
            count--;
            if (completion(entry, event, evd)) {
                return true;
            }
        }
    }

    /** Turns one {@code ibv_wc} into a DAT completion; {@code false} when its event is suppressed. */
    private boolean completion(long entry, DatEvent event, VerbsEvd evd) {
        long wrId = ring.get(JAVA_LONG, entry + Structs.WC_WR_ID);
        int wcStatus = ring.get(JAVA_INT, entry + Structs.WC_STATUS);
        int slot = WorkSlots.slot(wrId);
        Object owner = ia.owner((int) (wrId >>> 32));
        WorkSlots slots;
        VerbsEp ep;
        if (owner instanceof VerbsEp e) {
            ep = e;
            slots = WorkSlots.isRecv(wrId) ? e.recvSlots : e.sendSlots;
        } else if (owner instanceof VerbsSrq srq) {
            slots = srq.slots;
            ep = ia.epsByQpNum.get(ring.get(JAVA_INT, entry + Structs.WC_QP_NUM));
        } else {
            return false;
        }
        if (slot < 0 || slot >= slots.capacity()) {
            return false;
        }
        long cookie = slots.cookies[slot];
        boolean suppress = slots.suppress[slot];
        byte kind = slots.kinds[slot];
        Object ref = slots.refs[slot];
        long length = kind == WorkSlots.RECV ? Integer.toUnsignedLong(ring.get(JAVA_INT, entry + Structs.WC_BYTE_LEN))
                : slots.lengths[slot];
        if (!slots.release(slot)) {
            return false; // a completion for a request already reaped: never report it twice
        }
        if (owner instanceof VerbsSrq srq) {
            srq.consumed();
        }
        int status = WorkCompletionStatus.toDat(wcStatus);
        boolean success = status == DtoCompletionStatus.SUCCESS;
        if (ref instanceof VerbsRmr.BindOp bind) {
            bind.completed(success);
        }
        if (suppress && success) {
            return false;
        }
        ia.counters.completed(status, success ? length : 0);
        if (kind == WorkSlots.BIND && ref instanceof VerbsRmr.BindOp bind) {
            event.setRmrBindCompletion(evd, bind.rmr(), cookie, status);
            return true;
        }
        int extension = WorkSlots.extensionType(kind);
        if (kind == WorkSlots.RECV && success && ring.get(JAVA_INT, entry + Structs.WC_OPCODE) == IBV_WC_RECV_RDMA_WITH_IMM
                && (ring.get(JAVA_INT, entry + Structs.WC_WC_FLAGS) & IBV_WC_WITH_IMM) != 0) {
            // the receive an RDMA write with immediate data consumed: the bytes went to the write's target
            event.setExtensionDtoCompletion(IbExtension.IB_DTO_EVENT, evd, ep, cookie, status, length,
                    IbExtension.RDMA_WRITE_IMMED_DATA, ring.get(BIG_ENDIAN_INT, entry + Structs.WC_IMM_DATA));
        } else if (extension >= 0) {
            event.setExtensionDtoCompletion(IbExtension.IB_DTO_EVENT, evd, ep, cookie, status, success ? length : 0, extension, 0);
        } else {
            event.setDtoCompletion(evd, ep, cookie, status, success ? length : 0);
        }
        return true;
    }

    /**
     * Grows the CQ ({@code ibv_resize_cq}) and moves the completions already polled into a ring
     * of the CQ's new size.
     */
    void grow(int minQlen) {
        ia.verbs.resizeCq(cq, minQlen);
        int entries = Math.max(minQlen, cq.get(JAVA_INT, Structs.CQ_CQE));
        Arena next = Arena.ofShared();
        MemorySegment old = ring;
        int oldCapacity = capacity;
        boolean[] oldNotifies = notifies;
        allocateRing(next, entries);
        for (int i = 0; i < count; i++) {
            MemorySegment.copy(old, (long) ((head + i) % oldCapacity) * WC_SIZE, ring, i * WC_SIZE, WC_SIZE);
            notifies[i] = oldNotifies[(head + i) % oldCapacity];
        }
        head = 0;
        arena.close();
        arena = next;
    }

    /** Destroys the CQ and frees the ring; what it held is gone. */
    void destroy() {
        try {
            ia.verbs.destroyCq(cq);
        } catch (NativeException e) {
            System.getLogger(CompletionQueue.class.getName()).log(System.Logger.Level.WARNING, "ibv_destroy_cq failed", e);
        }
        ring = MemorySegment.NULL;
        count = 0;
        notifying = 0;
        arena.close();
    }
}
