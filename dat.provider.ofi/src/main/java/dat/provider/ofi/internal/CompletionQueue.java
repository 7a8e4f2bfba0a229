package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.ext.IbExtension;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.ofi.internal.ffi.Ops;
import dat.provider.ofi.internal.ffi.Structs;
import dat.provider.support.WorkCompletionStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The libfabric completion queue of one DTO EVD ({@code fi_cq_open}, {@code FI_CQ_FORMAT_DATA},
 * an {@code FI_WAIT_FD} wait object for the IA's event thread), and the ring of
 * {@code struct fi_cq_data_entry} that {@code fi_cq_read} fills, in native memory, with a status
 * per entry (0, or the positive {@code FI_E*} of an entry {@code fi_cq_readerr} gave). Every
 * method is called with the EVD's lock held.
 *
 * <p>Completions name their DTO by the token of {@link WorkSlots} ({@code op_context}); a
 * completion whose token names no outstanding DTO (the provider already flushed it) is dropped,
 * and a suppressed success gives its slot back as soon as it is read, so a consumer who never
 * dequeues it does not lose the slot.
 */
final class CompletionQueue {

    private static final long ENTRY = Structs.FI_CQ_DATA_ENTRY.byteSize();
    /** {@link #accept}: the completion is not queued. */
    private static final int NOT_QUEUED = Integer.MIN_VALUE;
    /** A status no libfabric error has: the message of a receive landed in an LMR the consumer had freed. */
    static final int LMR_FREED = -1;
    /**
     * Added to a verbs work completion status ({@link #deviceStatuses}) to tell it from an
     * {@code FI_E*} error and from {@link #LMR_FREED}.
     */
    static final int WC_STATUS = 1 << 20;

    private final OfiIa ia;
    /** Whether error entries carry the device's work completion status (libfabric's verbs provider). */
    private final boolean deviceStatuses;
    /** Whether the IA's writes with immediate data carry the value as their own CQ data ({@link RemoteCqData#writesImmediateData}). */
    private final boolean writesImmediateData;
    final MemorySegment cq;
    private final long cqAddress;
    private final MemorySegment readFn;
    private final MemorySegment readErrFn;
    final int waitFd;
    private final Arena errArena = Arena.ofShared();
    private final MemorySegment errEntry;

    private Arena ringArena;
    private MemorySegment ring;
    private long ringAddress;
    private int capacity;
    private int head;
    private int count;
    private int[] statuses;
    /** Per entry: whether it is a notification event (not the success of an UNSIGNALLED DTO). */
    private boolean[] notifies;
    /** The notification events among the ring's entries. */
    private int notifying;
    /** {@link #accept}'s second answer: whether the completion it queues is a notification event. */
    private boolean acceptedNotifies;
    /** {@link #accept}'s third answer: whether it is a receive's on a SOLICITED_WAIT stream ({@link WorkSlots#solicitedOnly}). */
    private boolean acceptedSolicitedOnly;
    /** Set when the ring is full and the CQ may hold more: the event thread leaves the CQ alone. */
    private volatile boolean stalled;
    /** The Endpoint all completions of this queue belong to (an SRQ Endpoint's own), or {@code null}. */
    private final OfiEp endpoint;
    /**
     * Whether this is the queue of an SRQ Endpoint whose receive stream is configured
     * {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}: its successes are quiet unless solicited (the
     * SRQ's receives, shared by Endpoints of other streams, cannot say it themselves).
     */
    private final boolean srqReceivesQuiet;
    /** A waiter's own block on this CQ ({@link #openNativeWait}), or {@code null}. */
    private NativeWait nativeWait;
    /**
     * The DTOs libfabric holds whose completion comes here: the request queues of the endpoints
     * that complete their requests on this CQ count theirs in it ({@link WorkSlots#countIn}).
     */
    final AtomicInteger posted = new AtomicInteger();
    /** Set once an endpoint completes its receives here. */
    private volatile boolean receives;

    /**
     * @param endpoint {@code null} for an EVD's CQ; the Endpoint for the CQ an SRQ Endpoint's
     *     receives complete on, which its receive EVD reads beside its own (libfabric's completion
     *     of a shared receive does not say which endpoint took it)
     */
    CompletionQueue(OfiIa ia, OfiEp endpoint, int qlen) {
        this.ia = ia;
        this.deviceStatuses = ia.domain.providerName.equals("verbs");
        this.writesImmediateData = ia.limits.cqData().writesImmediateData();
        this.endpoint = endpoint;
        this.srqReceivesQuiet = endpoint != null && endpoint.attributes().recvCompletionFlags() == CompletionFlags.SOLICITED_WAIT;
        MemorySegment opened = MemorySegment.NULL;
        try (Arena local = Arena.ofConfined()) {
            MemorySegment attr = local.allocate(Structs.FI_CQ_ATTR);
            attr.set(JAVA_LONG, Structs.CQ_ATTR_SIZE, Math.max(qlen, 64));
            attr.set(JAVA_INT, Structs.CQ_ATTR_FORMAT, Fi.CQ_FORMAT_DATA);
            attr.set(JAVA_INT, Structs.CQ_ATTR_WAIT_OBJ, Fi.WAIT_FD);
            opened = Ops.cqOpen(ia.domain.domain, attr);
            this.readFn = Ops.fn(opened, Structs.OBJ_OPS, Structs.FI_OPS_CQ, Structs.CQ_OPS_READ, "fi_cq_read");
            this.readErrFn = Ops.fn(opened, Structs.OBJ_OPS, Structs.FI_OPS_CQ, Structs.CQ_OPS_READERR, "fi_cq_readerr");
            this.waitFd = Ops.waitFd(opened);
        } catch (NativeException e) {
            if (!opened.equals(MemorySegment.NULL)) {
                Ops.close(opened);
            }
            errArena.close();
            throw e;
        }
        this.cq = opened;
        this.cqAddress = opened.address();
        this.errEntry = errArena.allocate(Structs.FI_CQ_ERR_ENTRY);
        allocateRing(Math.max(qlen, 16));
    }

    /** The wait a consumer's {@code dat_evd_wait} blocks in (an EVD's own CQ); closed with the CQ. */
    NativeWait openNativeWait() {
        nativeWait = new NativeWait(ia, this);
        return nativeWait;
    }

    private void allocateRing(int newCapacity) {
        Arena arena = Arena.ofShared();
        MemorySegment grown = arena.allocate(ENTRY * newCapacity, 8);
        int[] grownStatuses = new int[newCapacity];
        boolean[] grownNotifies = new boolean[newCapacity];
        for (int i = 0; i < count; i++) {
            int from = (head + i) % capacity;
            MemorySegment.copy(ring, from * ENTRY, grown, i * ENTRY, ENTRY);
            grownStatuses[i] = statuses[from];
            grownNotifies[i] = notifies[from];
        }
        if (ringArena != null) {
            ringArena.close();
        }
        ringArena = arena;
        ring = grown;
        ringAddress = grown.address();
        statuses = grownStatuses;
        notifies = grownNotifies;
        capacity = newCapacity;
        head = 0;
    }

    /** @return how many completions are in the ring */
    int queued() {
        return count;
    }

    /**
     * Whether the ring holds a notification event: a completion other than the success of a DTO
     * posted {@code DAT_COMPLETION_UNSIGNALLED_FLAG}, which is queued but ends no wait
     * (dat_evd_wait(3DAT)).
     */
    boolean hasNotification() {
        return notifying > 0;
    }

    boolean isStalled() {
        return stalled;
    }

    /**
     * Grows the ring to at least {@code qlen} entries ({@code dat_evd_resize}).
     *
     * @return whether a full ring got room: the event thread, which left its CQ alone, reads it again
     */
    boolean resize(int qlen) {
        if (qlen <= capacity) {
            return false;
        }
        allocateRing(qlen);
        boolean wasStalled = stalled;
        stalled = false;
        return wasStalled;
    }

    /**
     * Reads the CQ into the ring, as far as it has room: libfabric progresses in the read.
     *
     * @return how many completions the ring holds
     */
    int fill() {
        for (;;) {
            if (count == capacity) {
                stalled = true;
                return count;
            }
            if (count == 0) {
                head = 0;
            }
            int tail = (head + count) % capacity;
            int space = Math.min(capacity - count, capacity - tail);
            long read;
            try {
                read = (long) Ops.CQ_READ.invokeExact(readFn, cqAddress, ringAddress + tail * ENTRY, (long) space);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
            if (read > 0) {
                keep(tail, (int) read);
                if (read < space) {
                    return count;
                }
            } else if (read == -Fi.EAVAIL) {
                readError(tail);
            } else {
                return count;
            }
        }
    }

    /** Keeps the {@code read} entries written at {@code tail} that name an outstanding, unsuppressed DTO. */
    private void keep(int tail, int read) {
        int kept = 0;
        for (int i = 0; i < read; i++) {
            long entry = (tail + i) * ENTRY;
            long token = ring.get(JAVA_LONG, entry + Structs.CQ_ENTRY_OP_CONTEXT);
            if (token == 0) {
                // no DTO of this provider: an accept's confirmation (AcceptConfirmation), or a stray remote write
                long flags = ring.get(JAVA_LONG, entry + Structs.CQ_ENTRY_FLAGS);
                long data = ring.get(JAVA_LONG, entry + Structs.CQ_ENTRY_DATA);
                if ((flags & Fi.REMOTE_CQ_DATA) != 0 && AcceptConfirmation.isConfirmation(data)) {
                    ia.confirmed((int) data);
                }
                continue;
            }
            long flags = ring.get(JAVA_LONG, entry + Structs.CQ_ENTRY_FLAGS);
            // a write with immediate data consumes a receive and leaves its buffer alone
            boolean intoBuffer = !writeWithImmediateData(flags);
            int status = accept(token, true, intoBuffer ? ring.get(JAVA_LONG, entry + Structs.CQ_ENTRY_LEN) : 0);
            if (status != NOT_QUEUED) {
                if (kept != i) {
                    MemorySegment.copy(ring, entry, ring, (tail + kept) * ENTRY, ENTRY);
                }
                statuses[tail + kept] = status;
                // on a SOLICITED_WAIT stream only a solicited message's success notifies (dat_evd_wait(3DAT))
                boolean notifies = acceptedSolicitedOnly || srqReceivesQuiet ? solicited(flags, entry) : acceptedNotifies;
                queueNotification(tail + kept, status != 0 || notifies);
                kept++;
            }
        }
        count += kept;
    }

    /** Moves the error entry at the CQ's head into the ring at {@code tail}. */
    private void readError(int tail) {
        long read = Ops.cqReadErr(readErrFn, cq, errEntry);
        if (read != 1) {
            return;
        }
        long token = errEntry.get(JAVA_LONG, Structs.CQ_ERR_OP_CONTEXT);
        if (accept(token, false, 0) == NOT_QUEUED) {
            return;
        }
        long entry = tail * ENTRY;
        ring.set(JAVA_LONG, entry + Structs.CQ_ENTRY_OP_CONTEXT, token);
        ring.set(JAVA_LONG, entry + Structs.CQ_ENTRY_FLAGS, errEntry.get(JAVA_LONG, Structs.CQ_ERR_FLAGS));
        ring.set(JAVA_LONG, entry + Structs.CQ_ENTRY_LEN, 0);
        ring.set(JAVA_LONG, entry + Structs.CQ_ENTRY_DATA, errEntry.get(JAVA_LONG, Structs.CQ_ERR_DATA));
        int error = errEntry.get(JAVA_INT, Structs.CQ_ERR_ERR);
        int status = error == 0 ? Fi.EOTHER : error;
        if (deviceStatuses) {
            // libfabric's verbs provider maps the device's status to fewer errnos (a receive too
            // small and one on a bad QP both read FI_EIO); its prov_errno is the status itself
            int wcStatus = errEntry.get(JAVA_INT, Structs.CQ_ERR_PROV_ERRNO);
            if (wcStatus > 0 && wcStatus < WC_STATUS) {
                status = WC_STATUS + wcStatus;
            }
        }
        statuses[tail] = status;
        queueNotification(tail, true); // an error notifies, whatever the DTO's flags
        count++;
    }

    /**
     * Queues a completion just read, or not: it is queued when its token names a posted DTO and it
     * is not a suppressed success or the write of a write with immediate data (whose slots come back
     * at once).
     *
     * @param received the bytes a successful receive received
     * @return {@link #NOT_QUEUED}, or the status to queue a success with: 0, or {@link #LMR_FREED}
     *     for a receive that received bytes into an LMR the consumer freed before this read
     *     ({@link WorkSlots#namesFreedLmr})
     */
    private int accept(long token, boolean success, long received) {
        WorkSlots slots = ia.slotsOf(token);
        if (slots == null) {
            return NOT_QUEUED;
        }
        int slot = slots.lookup(token);
        if (slot >= 0 && success && slots.confirming[slot]) {
            // tcp delivers in order: the silent writes posted before this DTO are done
            slots.confirmBefore(slot);
        }
        if (slot >= 0 && ((success && slots.suppress[slot]) || slots.kinds[slot] == WorkSlots.WRITE_PART)) {
            if (slots.release(token)) {
                ia.consumedFrom(token);
            }
            return NOT_QUEUED;
        }
        if (!slots.markQueued(token)) {
            return NOT_QUEUED;
        }
        acceptedNotifies = !success || slot < 0 || !slots.unsignalled[slot];
        acceptedSolicitedOnly = slot >= 0 && slots.solicitedOnly[slot];
        return success && received > 0 && slots.kinds[slot] == WorkSlots.RECV && slots.namesFreedLmr(slot) ? LMR_FREED : 0;
    }

    /** An endpoint completes its receives on this CQ from now on. */
    void takesReceives() {
        receives = true;
    }

    /**
     * Whether a read of the CQ finds nothing: no endpoint completes receives on it (which arrive
     * unasked, and so does the data of a remote write with CQ data), and libfabric holds no DTO
     * whose completion comes here. A request EVD's CQ after its sends all went by {@code fi_inject}
     * is one: the consumer's dequeue of the provider's own completion of the send, and its next
     * dequeue that finds the EVD empty, need no {@code fi_cq_read} (a call into libfabric's
     * progress, an {@code epoll_wait} on tcp) between a ping-pong's receive and its next send.
     */
    boolean isIdle() {
        return !receives && posted.get() == 0;
    }

    /** Whether the ring has room for one more completion: an injected send's ({@link #addInjected}). */
    boolean hasRoom() {
        return count < capacity;
    }

    /**
     * Queues the success of a send libfabric took by {@code fi_inject} (which completes nothing
     * itself) behind every completion the ring holds: the caller made sure that no earlier DTO of
     * the Endpoint's request queue is still in the CQ, that {@link #hasRoom} and that the slot is
     * marked queued.
     */
    void addInjected(long token, boolean notification) {
        if (count == 0) {
            head = 0;
        }
        int tail = (head + count) % capacity;
        long entry = tail * ENTRY;
        ring.set(JAVA_LONG, entry + Structs.CQ_ENTRY_OP_CONTEXT, token);
        ring.set(JAVA_LONG, entry + Structs.CQ_ENTRY_FLAGS, Fi.MSG | Fi.SEND);
        ring.set(JAVA_LONG, entry + Structs.CQ_ENTRY_LEN, 0);
        ring.set(JAVA_LONG, entry + Structs.CQ_ENTRY_DATA, 0);
        statuses[tail] = 0;
        queueNotification(tail, notification);
        count++;
    }

    private void queueNotification(int index, boolean notification) {
        notifies[index] = notification;
        if (notification) {
            notifying++;
        }
    }

    /** Reads everything the CQ holds, growing the ring as needed: a teardown's drain before its flush. */
    void drainAll() {
        for (int rounds = 0; rounds < 64; rounds++) {
            fill();
            if (count < capacity) {
                return;
            }
            allocateRing(capacity * 2);
        }
    }

    /**
     * Turns the next completion into a DAT event.
     *
     * @return {@code false} when none is there (or only suppressed or late ones were)
     */
    boolean take(DatEvent event, OfiEvd owner) {
        for (;;) {
            if (count == 0) {
                if (isIdle()) {
                    return false;
                }
                fill();
                if (count == 0) {
                    return false;
                }
            }
            long entry = head * ENTRY;
            int error = statuses[head];
            if (notifies[head]) {
                notifying--;
            }
            head = (head + 1) % capacity;
            count--;
            if (stalled && count < capacity) {
                stalled = false;
                owner.unstalled();
            }
            long token = ring.get(JAVA_LONG, entry + Structs.CQ_ENTRY_OP_CONTEXT);
            if (completion(token, error, entry, event, owner)) {
                return true;
            }
        }
    }

    private boolean completion(long token, int error, long entry, DatEvent event, OfiEvd owner) {
        WorkSlots slots = ia.slotsOf(token);
        if (slots == null) {
            return false;
        }
        int slot = slots.lookup(token);
        if (slot < 0) {
            return false;
        }
        long cookie = slots.cookies[slot];
        boolean suppress = slots.suppress[slot];
        byte kind = slots.kinds[slot];
        long length = kind == WorkSlots.RECV ? ring.get(JAVA_LONG, entry + Structs.CQ_ENTRY_LEN) : slots.lengths[slot];
        int immediate = slots.immediates[slot];
        long flags = ring.get(JAVA_LONG, entry + Structs.CQ_ENTRY_FLAGS);
        long data = ring.get(JAVA_LONG, entry + Structs.CQ_ENTRY_DATA);
        OfiRmr bound = kind == WorkSlots.RMR_BIND ? slots.binds[slot] : null;
        // before the release: the release of a freed Endpoint's last DTO takes it out of the IA's table
        OfiEp ep = endpoint != null ? endpoint : ia.endpointOf(token);
        if (!slots.release(token)) {
            return false;
        }
        ia.consumedFrom(token);
        int status = status(error);
        if (suppress && status == DtoCompletionStatus.SUCCESS) {
            return false;
        }
        long transferred = status == DtoCompletionStatus.SUCCESS ? length : 0;
        int extension = WorkSlots.extensionType(kind);
        if (kind == WorkSlots.RECV && error == 0 && (flags & Fi.REMOTE_CQ_DATA) != 0 && (writesImmediateData || !MessageCqData.isSend(data))) {
            // an RDMA write with immediate data (RemoteCqData): the write's own CQ data and length,
            // or a message's CQ data with the value and the bytes written (MessageCqData)
            transferred = writeWithImmediateData(flags) ? length : MessageCqData.written(data);
            event.setExtensionDtoCompletion(IbExtension.IB_DTO_EVENT, owner, ep, cookie, status, transferred,
                    IbExtension.RDMA_WRITE_IMMED_DATA, (int) data);
        } else if (kind == WorkSlots.RMR_BIND) {
            event.setRmrBindCompletion(owner, bound, cookie, status);
        } else if (extension != WorkSlots.NO_EXTENSION) {
            // the immediate value of a write with immediate data; 0 in an atomic's slot
            event.setExtensionDtoCompletion(IbExtension.IB_DTO_EVENT, owner, ep, cookie, status, transferred, extension, immediate);
        } else {
            event.setDtoCompletion(owner, ep, cookie, status, transferred);
        }
        if (!owner.isDiscarding()) {
            ia.counters.completed(status, transferred); // delivered to an EVD (IaStatistics)
        }
        return true;
    }

    /**
     * Whether the entry at {@code entry} is a receive's whose message was posted
     * {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG} ({@link MessageCqData}): a notification on a
     * receive stream configured for solicited waits.
     */
    private boolean solicited(long flags, long entry) {
        return (flags & Fi.REMOTE_CQ_DATA) != 0 && !writesImmediateData
                && MessageCqData.isSolicited(ring.get(JAVA_LONG, entry + Structs.CQ_ENTRY_DATA));
    }

    /**
     * Whether a receive's completion is an RDMA write's with immediate data, the value in its CQ
     * data and the bytes written in its length ({@link RemoteCqData}), rather than a message's
     * (whose CQ data, where there is any, carries the value and the length). Only an IA whose
     * writes carry the value as their own CQ data gets the first kind, and it sends no messages
     * with CQ data, so the IA and the CQ data tell it: not {@code FI_REMOTE_WRITE}, which
     * libfabric's verbs provider leaves out for a receive taken from an SRQ (it reports that one
     * as {@code IBV_WC_RECV}, a message).
     */
    private boolean writeWithImmediateData(long flags) {
        return writesImmediateData && (flags & Fi.REMOTE_CQ_DATA) != 0;
    }

    /** A libfabric completion error ({@code FI_E*}, 0 for success) as a {@code DAT_DTO_COMPLETION_STATUS}. */
    static int status(int error) {
        if (error > WC_STATUS) {
            return WorkCompletionStatus.toDat(error - WC_STATUS);
        }
        return switch (error) {
            case 0 -> DtoCompletionStatus.SUCCESS;
            case LMR_FREED -> DtoCompletionStatus.ERR_LOCAL_PROTECTION;
            case Fi.ECANCELED -> DtoCompletionStatus.ERR_FLUSHED;
            case Fi.ETRUNC, Fi.EMSGSIZE, Fi.ETOOSMALL, Fi.EOVERFLOW -> DtoCompletionStatus.ERR_LOCAL_LENGTH;
            case Fi.EACCES, Fi.EKEYREJECTED, Fi.ENOKEY, Fi.EPERM -> DtoCompletionStatus.ERR_REMOTE_ACCESS;
            case Fi.EINVAL, Fi.EFAULT -> DtoCompletionStatus.ERR_LOCAL_PROTECTION;
            case Fi.ENORX -> DtoCompletionStatus.ERR_RECEIVER_NOT_READY;
            case Fi.EOPBADSTATE -> DtoCompletionStatus.ERR_LOCAL_EP;
            default -> DtoCompletionStatus.ERR_TRANSPORT;
        };
    }

    /**
     * Frees the ring and hands the CQ to the IA's event thread to close: the thread may be using
     * its descriptor and {@code fid} in {@code poll(2)} and {@code fi_trywait} right now.
     */
    void close() {
        releaseQueued();
        count = 0;
        notifying = 0;
        ringArena.close();
        errArena.close();
        ia.loop.retire(this);
    }

    /**
     * The completions queued and never to be taken (the EVD is freed) give their slots back, so
     * that a freed Endpoint or SRQ with DTOs among them leaves the IA's table ({@link OfiIa#consumedFrom}).
     */
    private void releaseQueued() {
        for (int i = 0; i < count; i++) {
            long token = ring.get(JAVA_LONG, (long) ((head + i) % capacity) * ENTRY + Structs.CQ_ENTRY_OP_CONTEXT);
            WorkSlots slots = ia.slotsOf(token);
            if (slots != null && slots.release(token)) {
                ia.consumedFrom(token);
            }
        }
    }

    /** {@code fi_close} of the CQ (the event thread, between two waits; or the IA's close, after the thread stopped). */
    void closeNative() {
        if (nativeWait != null) {
            nativeWait.close(); // after its waiter left poll(2) and fi_trywait
        }
        try {
            Ops.close(cq);
        } catch (NativeException e) {
            System.getLogger(CompletionQueue.class.getName()).log(System.Logger.Level.WARNING, "fi_close of a CQ failed", e);
        }
    }
}
