package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.CompletionFlags;
import dat.api.ConsumerNotificationObject;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpAttributes;
import dat.api.EvdFlags;
import dat.api.EvdParamMask;
import dat.api.EvdParams;
import dat.api.EvdState;
import dat.api.EventDispatcher;
import dat.api.HandleType;
import dat.api.ext.IbExtension;
import dat.provider.support.ConsumerNotifiedStreams;
import dat.provider.support.EventRing;
import dat.provider.support.WaitArguments;
import dat.provider.verbs.internal.ffi.Inline;
import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An EVD. One that takes DTO or RMR-bind completions owns a CQ on the IA's completion channel,
 * sized to its queue length, and a native {@code ibv_wc} ring of the same size that
 * {@code poll_cq} fills; every other stream (connection requests and events, async errors,
 * software events) arrives in a ring of reused {@link DatEvent}s. Dequeue polls the CQ on the
 * caller's thread and copies one completion into the consumer's {@link DatEvent}: no
 * allocation, one uncontended lock per EVD (so that a concurrent free can never destroy the CQ
 * under a poll).
 *
 * <p>A waiter arms the CQ ({@code req_notify_cq}), polls once more to close the race, and parks;
 * the IA's event thread unparks it when the completion channel reports the CQ, or when it queues
 * another event.
 */
@SuppressWarnings("restricted") // ibv_cq pointers are given their C size
final class VerbsEvd extends VerbsHandle implements EventDispatcher {

    private static final long WC_SIZE = Structs.IBV_WC.byteSize();
    /** {@code IBV_WC_RECV_RDMA_WITH_IMM}: a receive consumed by an RDMA write with immediate data. */
    private static final int IBV_WC_RECV_RDMA_WITH_IMM = 129;
    /** {@code IBV_WC_WITH_IMM}: the completion carries immediate data. */
    private static final int IBV_WC_WITH_IMM = 2;
    private static final java.lang.foreign.ValueLayout.OfInt BIG_ENDIAN_INT = JAVA_INT.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    final int flags;
    private final long token;
    private final ReentrantLock lock = new ReentrantLock();
    private int qlen;
    private volatile VerbsCno cno;
    private volatile boolean enabled = true;
    private volatile boolean waitable = true;
    private volatile Thread waiter;
    final AtomicInteger users = new AtomicInteger();
    /**
     * The DTO streams configured for consumer-controlled notification (UNSIGNALLED, or a receive
     * stream's SOLICITED_WAIT) that feed this EVD: while there are any, a wait threshold above 1 is
     * refused (dat_evd_wait(3DAT)).
     */
    final AtomicInteger consumerNotifiedStreams = new AtomicInteger();
    /**
     * The receive streams configured {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG} that feed this EVD
     * (the pages let no other stream share it): while there are any, the CQ is armed for solicited
     * completions only, and a successful receive's completion is no notification by itself, since
     * an {@code ibv_wc} does not say whether its message was solicited.
     */
    final AtomicInteger solicitedStreams = new AtomicInteger();
    /**
     * Set when the completion channel reported the CQ armed for solicited completions only: a
     * solicited message (or an error) arrived, a notification; cleared when a wait begins or ends
     * and when the EVD is empty.
     */
    private volatile boolean solicitedArrived;

    // the CQ and its completion ring (NULL when the EVD takes no completions)
    /** The ring's memory: a resize that grows the CQ moves the ring to a larger one and closes the old. */
    private Arena arena;
    final MemorySegment cq;
    private final boolean hasCq;
    private final MemorySegment pollFn;
    private final MemorySegment notifyFn;
    private MemorySegment ring;
    private MemorySegment[] ringTails;
    private int ringCapacity;
    private int ringHead;
    private int ringCount;
    /** Per ring entry: whether it is a notification event (not the success of an UNSIGNALLED DTO). */
    private boolean[] ringNotifies;
    /** The notification events among the ring's entries. */
    private int ringNotifying;

    /** The other streams' events. */
    private final EventRing events;

    private final DatEvent pollScratch = new DatEvent();

    VerbsEvd(VerbsIa ia, int qlen, VerbsCno cno, int flags) {
        super(ia, HandleType.EVD, DatReturn.INVALID_HANDLE_EVD_REQUEST);
        this.flags = flags;
        this.qlen = qlen;
        this.cno = cno;
        this.token = ia.newToken();
        this.events = new EventRing(Math.max(qlen, 4));
        if ((flags & (EvdFlags.DTO | EvdFlags.RMR_BIND)) != 0) {
            arena = Arena.ofShared();
            try {
                cq = ia.verbs.createCq(ia.context, qlen, token, ia.compChannel);
            } catch (NativeException e) {
                arena.close();
                throw Codes.fromNative(e, "minQlen");
            }
            MemorySegment context = cq.get(ADDRESS, Structs.CQ_CONTEXT).reinterpret(Structs.IBV_CONTEXT.byteSize());
            pollFn = Inline.op(context, Structs.CONTEXT_OPS_POLL_CQ);
            notifyFn = Inline.op(context, Structs.CONTEXT_OPS_REQ_NOTIFY_CQ);
            hasCq = true;
            ringCapacity = Math.max(qlen, cq.get(JAVA_INT, Structs.CQ_CQE));
            allocateRing(arena, ringCapacity);
        } else {
            arena = null;
            hasCq = false;
            cq = MemorySegment.NULL;
            pollFn = MemorySegment.NULL;
            notifyFn = MemorySegment.NULL;
        }
        if (cno != null) {
            cno.attach(this);
        }
        ia.addEvd(token, this);
    }

    /** Gives the EVD a completion ring of {@code capacity} entries in {@code memory}. */
    private void allocateRing(Arena memory, int capacity) {
        ring = memory.allocate(WC_SIZE * capacity, 8);
        ringTails = new MemorySegment[capacity];
        for (int i = 0; i < capacity; i++) {
            ringTails[i] = ring.asSlice(i * WC_SIZE);
        }
        ringNotifies = new boolean[capacity];
        ringCapacity = capacity;
    }

    /** The EVD behind a handle, checked to be an open EVD of this IA with the stream asked for. */
    static VerbsEvd check(VerbsIa ia, EventDispatcher evd, int stream, int subtype, String argument) {
        if (!(evd instanceof VerbsEvd v) || v.ia != ia || !v.isOpen()) {
            throw Codes.exception(DatReturn.INVALID_HANDLE, subtype, argument, "not an open EVD of this IA");
        }
        if ((v.flags & stream) == 0) {
            throw Codes.exception(DatReturn.INVALID_HANDLE, subtype, argument, "the EVD does not take this event stream");
        }
        return v;
    }

    // ---- data path ---------------------------------------------------------------------------------

    @Override
    public int dequeue(DatEvent event) {
        if (event == null) {
            return Codes.invalidParameter(DatReturn.INVALID_ARG2);
        }
        lock.lock();
        try {
            if (!isOpen()) {
                return invalidHandleCode();
            }
            if (waiter != null) {
                return Codes.INVALID_STATE_EVD_WAITER;
            }
            return take(event) ? Codes.SUCCESS : Codes.QUEUE_EMPTY;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int poll(DatEventHandler handler, int limit) {
        if (handler == null) {
            return Codes.invalidParameter(DatReturn.INVALID_ARG2);
        }
        if (limit < 0) {
            return Codes.invalidParameter(DatReturn.INVALID_ARG3);
        }
        int handed = 0;
        while (handed < limit) {
            int result;
            lock.lock();
            try {
                if (!isOpen()) {
                    return invalidHandleCode();
                }
                result = take(pollScratch) ? Codes.SUCCESS : Codes.QUEUE_EMPTY;
            } finally {
                lock.unlock();
            }
            if (result != Codes.SUCCESS) {
                break;
            }
            handler.onEvent(pollScratch);
            handed++;
        }
        return handed;
    }

    /**
     * Counts an Endpoint's DTO streams into (delta 1) or out of (delta -1) the consumer-notified
     * streams of the EVDs they feed.
     */
    static void countConsumerNotified(VerbsEvd recv, VerbsEvd request, EpAttributes attributes, int delta) {
        ConsumerNotifiedStreams.count(recv != null ? recv.consumerNotifiedStreams : null,
                request != null ? request.consumerNotifiedStreams : null, attributes, delta);
        if (recv != null && attributes.recvCompletionFlags() == CompletionFlags.SOLICITED_WAIT) {
            recv.solicitedStreams.addAndGet(delta);
        }
    }

    @Override
    public int await(long timeoutMicros, int threshold, DatEvent event) {
        int arguments = WaitArguments.check(timeoutMicros, threshold, qlen, event, consumerNotifiedStreams.get());
        if (arguments != Codes.SUCCESS) {
            return arguments;
        }
        long deadline = timeoutMicros == DatConstants.TIMEOUT_INFINITE ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
        lock.lock();
        try {
            if (!isOpen()) {
                return invalidHandleCode();
            }
            if (waiter != null) {
                return Codes.INVALID_STATE_EVD_WAITER;
            }
            if (!waitable) {
                return Codes.INVALID_STATE_EVD_UNWAITABLE;
            }
            waiter = Thread.currentThread(); // with a CNO too: the CNO rests while a waiter is blocked
            // what was queued before the wait (until its first arming of the CQ) counts; after,
            // only a notification ends it, as a completion of a DTO posted UNSIGNALLED or of an
            // unsolicited message on a SOLICITED_WAIT stream does not (dat_evd_wait(3DAT))
            boolean first = true;
            solicitedArrived = false;
            for (;;) {
                int available = available();
                if (available >= threshold && (first || hasNotification())) {
                    take(event);
                    event.setMoreEvents(available - 1);
                    solicitedArrived = false;
                    return Codes.SUCCESS;
                }
                if (freed || !ia.isUsable()) {
                    return Codes.ABORT;
                }
                if (!waitable) {
                    return Codes.INVALID_STATE_EVD_UNWAITABLE;
                }
                if (Thread.interrupted()) {
                    return Codes.INTERRUPTED;
                }
                if (hasCq) {
                    arm();
                    if (available() >= threshold && (first || hasNotification())) {
                        continue;
                    }
                }
                first = false;
                long remaining = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (remaining <= 0) {
                    event.clear();
                    event.setMoreEvents(available);
                    return Codes.TIMEOUT_EXPIRED;
                }
                lock.unlock();
                try {
                    if (remaining == Long.MAX_VALUE) {
                        LockSupport.park(this);
                    } else {
                        LockSupport.parkNanos(this, remaining);
                    }
                } finally {
                    lock.lock();
                }
            }
        } finally {
            if (waiter == Thread.currentThread()) {
                waiter = null; // not when refused: the waiter already there stays registered for its wake-up
            }
            lock.unlock();
        }
    }

    /** How many events are ready: the software ring plus completions (polling the CQ into the ring first). */
    private int available() {
        if (hasCq && !freed) {
            fillRing();
        }
        return ringCount + events.size();
    }

    private void arm() {
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
    private void fillRing() {
        if (ringCount == ringCapacity) {
            return;
        }
        if (ringCount == 0) {
            ringHead = 0;
        }
        int tail = (ringHead + ringCount) % ringCapacity;
        int space = Math.min(ringCapacity - ringCount, ringCapacity - tail);
        int polled;
        try {
            polled = (int) Inline.POLL_CQ.invokeExact(pollFn, cq, space, ringTails[tail]);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (polled <= 0) {
            return;
        }
        // reap the suppressed successes at once: their slots come back even if nobody dequeues
        int kept = 0;
        for (int i = 0; i < polled; i++) {
            long entry = (long) (tail + i) * WC_SIZE;
            if (ia.owner((int) (ring.get(JAVA_LONG, entry + Structs.WC_WR_ID) >>> 32)) instanceof VerbsSrq srq) {
                srq.arrived(); // dat_srq_query: no longer available, still outstanding
            }
            if (!releaseIfSuppressed(entry)) {
                boolean notification = isNotification(entry);
                if (kept != i) {
                    MemorySegment.copy(ring, entry, ring, (long) (tail + kept) * WC_SIZE, WC_SIZE);
                }
                ringNotifies[tail + kept] = notification;
                if (notification) {
                    ringNotifying++;
                }
                kept++;
            }
        }
        ringCount += kept;
    }

    /**
     * Whether a completion is a notification event: any but the success of a DTO posted
     * {@code DAT_COMPLETION_UNSIGNALLED_FLAG}, which is queued and ends no wait
     * (dat_evd_wait(3DAT)); lock held.
     */
    private boolean isNotification(long entry) {
        if (ring.get(JAVA_INT, entry + Structs.WC_STATUS) != 0) {
            return true;
        }
        if (solicitedStreams.get() > 0) {
            return false; // solicited or not, the completion channel says (solicitedArrived)
        }
        long wrId = ring.get(JAVA_LONG, entry + Structs.WC_WR_ID);
        WorkSlots slots = WorkSlots.of(ia.owner((int) (wrId >>> 32)), wrId);
        int slot = WorkSlots.slot(wrId);
        return slots == null || slot < 0 || slot >= slots.capacity() || !slots.unsignalled[slot];
    }

    /** Whether a notification event is queued (after {@link #available}); lock held. */
    private boolean hasNotification() {
        return events.size() > 0 || ringNotifying > 0 || solicitedArrived;
    }

    /** Releases the slot of a successful completion whose event is suppressed; lock held. */
    private boolean releaseIfSuppressed(long entry) {
        if (ring.get(JAVA_INT, entry + Structs.WC_STATUS) != 0) {
            return false;
        }
        long wrId = ring.get(JAVA_LONG, entry + Structs.WC_WR_ID);
        Object owner = ia.owner((int) (wrId >>> 32));
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

    /**
     * Polls the CQ into the ring, so that the slots of suppressed completions come back: called by
     * a post that found its queue full (the Endpoint's lock is held; EP before EVD is the lock order).
     */
    void reclaim() {
        lock.lock();
        try {
            if (hasCq && !freed) {
                fillRing();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Moves the next event into {@code event}; lock held. */
    private boolean take(DatEvent event) {
        if (hasCq && !freed) {
            for (;;) {
                if (ringCount == 0) {
                    fillRing();
                    if (ringCount == 0) {
                        break;
                    }
                }
                long entry = ringHead * WC_SIZE;
                if (ringNotifies[ringHead]) {
                    ringNotifying--;
                }
                ringHead = (ringHead + 1) % ringCapacity;
                ringCount--;
                if (completion(entry, event)) {
                    if (ringCount == 0 && events.size() == 0) {
                        solicitedArrived = false;
                    }
                    return true;
                }
            }
        }
        solicitedArrived = false; // no completion left: what a solicited arrival notified of is taken
        return events.take(event);
    }

    /** Turns one {@code ibv_wc} into a DAT completion; {@code false} when its event is suppressed. */
    private boolean completion(long entry, DatEvent event) {
        long wrId = ring.get(JAVA_LONG, entry + Structs.WC_WR_ID);
        int wcStatus = ring.get(JAVA_INT, entry + Structs.WC_STATUS);
        int ownerId = (int) (wrId >>> 32);
        int slot = WorkSlots.slot(wrId);
        Object owner = ia.owner(ownerId);
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
        int status = status(wcStatus);
        boolean success = status == DtoCompletionStatus.SUCCESS;
        if (ref instanceof VerbsRmr.BindOp bind) {
            bind.completed(success);
        }
        if (suppress && success) {
            return false;
        }
        ia.counters.completed(status, success ? length : 0);
        if (kind == WorkSlots.BIND && ref instanceof VerbsRmr.BindOp bind) {
            event.setRmrBindCompletion(this, bind.rmr(), cookie, status);
            return true;
        }
        int extension = WorkSlots.extensionType(kind);
        if (kind == WorkSlots.RECV && success && ring.get(JAVA_INT, entry + Structs.WC_OPCODE) == IBV_WC_RECV_RDMA_WITH_IMM
                && (ring.get(JAVA_INT, entry + Structs.WC_WC_FLAGS) & IBV_WC_WITH_IMM) != 0) {
            // the receive an RDMA write with immediate data consumed: the bytes went to the write's target
            event.setExtensionDtoCompletion(IbExtension.IB_DTO_EVENT, this, ep, cookie, status, length,
                    IbExtension.RDMA_WRITE_IMMED_DATA, ring.get(BIG_ENDIAN_INT, entry + Structs.WC_IMM_DATA));
        } else if (extension >= 0) {
            event.setExtensionDtoCompletion(IbExtension.IB_DTO_EVENT, this, ep, cookie, status, success ? length : 0, extension, 0);
        } else {
            event.setDtoCompletion(this, ep, cookie, status, success ? length : 0);
        }
        return true;
    }

    /** {@code enum ibv_wc_status} to {@code DAT_DTO_COMPLETION_STATUS}. */
    static int status(int wcStatus) {
        return switch (wcStatus) {
            case 0 -> DtoCompletionStatus.SUCCESS;
            case 1 -> DtoCompletionStatus.ERR_LOCAL_LENGTH;
            case 2 -> DtoCompletionStatus.ERR_LOCAL_EP;
            case 4, 8 -> DtoCompletionStatus.ERR_LOCAL_PROTECTION;
            case 5 -> DtoCompletionStatus.ERR_FLUSHED;
            case 6 -> DtoCompletionStatus.RMR_OPERATION_FAILED;
            case 7 -> DtoCompletionStatus.ERR_BAD_RESPONSE;
            case 10 -> DtoCompletionStatus.ERR_REMOTE_ACCESS;
            case 9, 11 -> DtoCompletionStatus.ERR_REMOTE_RESPONDER;
            case 13 -> DtoCompletionStatus.ERR_RECEIVER_NOT_READY;
            default -> DtoCompletionStatus.ERR_TRANSPORT;
        };
    }

    @Override
    public int postSoftwareEvent(Object pointer) {
        lock.lock();
        try {
            if (!isOpen()) {
                return invalidHandleCode();
            }
            if ((flags & EvdFlags.SOFTWARE) == 0) {
                return Codes.invalidParameter(DatReturn.INVALID_ARG1);
            }
            if (events.size() + ringCount >= qlen) {
                return Codes.QUEUE_FULL;
            }
            events.addSoftwareEvent(this, pointer);
        } finally {
            lock.unlock();
        }
        signal();
        return Codes.SUCCESS;
    }

    // ---- provider side -----------------------------------------------------------------------------

    /** Queues a connection, CR or async event (event thread or control path); the ring grows if full. */
    void postEvent(DatEvent event) {
        lock.lock();
        try {
            if (freed) {
                return;
            }
            events.add(event);
        } finally {
            lock.unlock();
        }
        signal();
    }

    /** Whether the queue holds {@code qlen} events: a PSP with this CR EVD refuses further requests. */
    boolean isFull() {
        lock.lock();
        try {
            return events.size() + ringCount >= qlen;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The completion channel reported this EVD's CQ (event thread). A waiter looks itself; a CNO
     * is triggered only by a notification event, and otherwise the CQ is armed again for the next
     * completion.
     */
    void onCompletionEvent() {
        if (solicitedStreams.get() > 0) {
            solicitedArrived = true; // armed for solicited completions only: this is one, or an error
        }
        if (waiter == null && cno != null) {
            lock.lock();
            try {
                if (freed || !hasCq) {
                    return;
                }
                if (!(available() > 0 && hasNotification())) {
                    arm();
                    if (!(available() > 0 && hasNotification())) {
                        return;
                    }
                }
            } finally {
                lock.unlock();
            }
        }
        signal();
    }

    private void signal() {
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w); // disabling an EVD has no effect on direct waiters (dat_evd_enable(3DAT))
            return; // nor is its CNO triggered while a consumer waits on it (dat_evd_wait(3DAT))
        }
        VerbsCno c = cno;
        if (c != null && enabled) {
            c.trigger(this);
        }
    }

    boolean isEnabled() {
        return enabled;
    }

    /** Arms the CQ for a CNO wait and tells whether events are already there. */
    boolean armForCno() {
        lock.lock();
        try {
            if (freed) {
                return false;
            }
            if (hasCq) {
                arm();
            }
            return available() > 0 && hasNotification();
        } finally {
            lock.unlock();
        }
    }

    /** Hot swap: gives a waiter a moment to take the event just queued. */
    void awaitHandOff(long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (waiter != null && System.nanoTime() < deadline) {
            LockSupport.parkNanos(100_000);
        }
    }

    // ---- control path ------------------------------------------------------------------------------

    @Override
    public EvdParams query(int evdParamMask) {
        checkOpen();
        if (!EvdParamMask.isValid(evdParamMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "evdParamMask", "undefined bits");
        }
        int state = (enabled ? EvdState.ENABLED : EvdState.DISABLED) | (waitable ? EvdState.WAITABLE : EvdState.UNWAITABLE);
        return new EvdParams(ia, qlen, state, cno, flags);
    }

    @Override
    public void resize(int minQlen) {
        checkOpen();
        lock.lock();
        try {
            if (minQlen < 1 || minQlen > ia.maxCqe) {
                throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "minQlen", minQlen + " out of range");
            }
            if (minQlen < events.size() + ringCount) {
                throw Codes.invalidState(DatReturn.NO_SUBTYPE, "more events are queued than fit in " + minQlen);
            }
            if (hasCq && minQlen > ringCapacity) {
                grow(minQlen);
            }
            qlen = minQlen;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Grows the CQ ({@code ibv_resize_cq}) and moves the completions already polled into a ring
     * of the CQ's new size; lock held, so no poll runs meanwhile.
     */
    private void grow(int minQlen) {
        try {
            ia.verbs.resizeCq(cq, minQlen);
        } catch (NativeException e) {
            throw Codes.fromNative(e, "minQlen");
        }
        int capacity = Math.max(minQlen, cq.get(JAVA_INT, Structs.CQ_CQE));
        Arena next = Arena.ofShared();
        MemorySegment old = ring;
        int oldCapacity = ringCapacity;
        int head = ringHead;
        boolean[] oldNotifies = ringNotifies;
        allocateRing(next, capacity);
        for (int i = 0; i < ringCount; i++) {
            MemorySegment.copy(old, (long) ((head + i) % oldCapacity) * WC_SIZE, ring, i * WC_SIZE, WC_SIZE);
            ringNotifies[i] = oldNotifies[(head + i) % oldCapacity];
        }
        ringHead = 0;
        arena.close();
        arena = next;
    }

    @Override
    public void modifyCno(ConsumerNotificationObject newCno) {
        checkOpen();
        VerbsCno next = null;
        if (newCno != null) {
            if (!(newCno instanceof VerbsCno c) || c.ia != ia || !c.isOpen()) {
                throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_CNO, "cno", "foreign or freed CNO");
            }
            next = c;
        }
        VerbsCno previous = cno;
        if (previous != null) {
            previous.detach(this);
        }
        cno = next;
        if (next != null) {
            next.attach(this);
        }
    }

    @Override
    public void enable() {
        checkOpen();
        enabled = true;
        signal();
    }

    @Override
    public void disable() {
        checkOpen();
        enabled = false;
    }

    @Override
    public void setUnwaitable() {
        checkOpen();
        waitable = false;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    @Override
    public void clearUnwaitable() {
        checkOpen();
        waitable = true;
    }

    @Override
    public void close() {
        if (freed) {
            return;
        }
        if (!ia.isUsable()) {
            return;
        }
        if (users.get() > 0) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_EVD_IN_USE, "an Endpoint, PSP or RSP still uses the EVD");
        }
        destroy();
    }

    /** Frees the CQ and ring, and aborts a waiter; idempotent. */
    void destroy() {
        lock.lock();
        try {
            if (freed) {
                return;
            }
            freed = true;
            if (hasCq) {
                try {
                    ia.verbs.destroyCq(cq);
                } catch (NativeException e) {
                    System.getLogger(VerbsEvd.class.getName()).log(System.Logger.Level.WARNING, "ibv_destroy_cq failed", e);
                }
                ring = MemorySegment.NULL;
                ringCount = 0;
                ringNotifying = 0;
                arena.close();
            }
        } finally {
            lock.unlock();
        }
        VerbsCno c = cno;
        if (c != null) {
            c.detach(this);
        }
        ia.removeEvd(token, this);
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }
}
