package dat.provider.verbs.internal;

import dat.api.CompletionFlags;
import dat.api.ConsumerNotificationObject;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatReturn;
import dat.api.EpAttributes;
import dat.api.EvdFlags;
import dat.api.EvdParamMask;
import dat.api.EvdParams;
import dat.api.EvdState;
import dat.api.EventDispatcher;
import dat.api.HandleType;
import dat.provider.support.ConsumerNotifiedStreams;
import dat.provider.support.EventRing;
import dat.provider.support.WaitArguments;
import dat.provider.verbs.internal.ffi.NativeException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An EVD. One that takes DTO or RMR-bind completions owns a {@link CompletionQueue} (a CQ on
 * the IA's completion channel and the native {@code ibv_wc} ring {@code poll_cq} fills); every
 * other stream (connection requests and events, async errors, software events) arrives in a ring
 * of reused {@link DatEvent}s. Dequeue polls the CQ on the caller's thread and copies one
 * completion into the consumer's {@link DatEvent}: no allocation, one uncontended lock per EVD (so
 * that a concurrent free can never destroy the CQ under a poll).
 *
 * <p>A waiter arms the CQ ({@code req_notify_cq}), polls once more to close the race, and parks;
 * the IA's event thread unparks it when the completion channel reports the CQ, or when it queues
 * another event.
 */
final class VerbsEvd extends VerbsHandle implements EventDispatcher {

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
     * completions only ({@link CompletionQueue#arm}).
     */
    final AtomicInteger solicitedStreams = new AtomicInteger();
    /**
     * Set when the completion channel reported the CQ armed for solicited completions only: a
     * solicited message (or an error) arrived, a notification; cleared when a wait begins or ends
     * and when the EVD is empty.
     */
    private volatile boolean solicitedArrived;

    /** The CQ and its ring, or {@code null} when the EVD takes no completions. */
    private final CompletionQueue queue;
    /** The {@code ibv_cq} the EVD's Endpoints' QPs complete into, or {@code NULL}. */
    final MemorySegment cq;

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
            try {
                queue = new CompletionQueue(ia, qlen, token, solicitedStreams);
            } catch (NativeException e) {
                throw Codes.fromNative(e, "minQlen");
            }
            cq = queue.cq;
        } else {
            queue = null;
            cq = MemorySegment.NULL;
        }
        if (cno != null) {
            cno.attach(this);
        }
        ia.addEvd(token, this);
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
        if (!isOpen()) {
            return invalidHandleCode(); // the handle before the arguments, as every call
        }
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
        if (!isOpen()) {
            return invalidHandleCode();
        }
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
        if (!isOpen()) {
            return invalidHandleCode();
        }
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
                if (queue != null) {
                    queue.arm();
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

    /** How many events are ready: the software ring plus completions (polling the CQ into the ring first); lock held. */
    private int available() {
        if (queue != null && !freed) {
            queue.fill();
        }
        return queued() + events.size();
    }

    /** How many completions the ring holds; lock held. */
    private int queued() {
        return queue == null || freed ? 0 : queue.count();
    }

    /** Whether a notification event is queued (after {@link #available}); lock held. */
    private boolean hasNotification() {
        return events.size() > 0 || queue != null && !freed && queue.hasNotification() || solicitedArrived;
    }

    /**
     * Polls the CQ into the ring, so that the slots of suppressed completions come back: called by
     * a post that found its queue full (the Endpoint's lock is held; EP before EVD is the lock order).
     */
    void reclaim() {
        lock.lock();
        try {
            if (queue != null && !freed) {
                queue.fill();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Moves the next event into {@code event}; lock held. */
    private boolean take(DatEvent event) {
        if (queue != null && !freed && queue.take(event, this)) {
            if (queue.count() == 0 && events.size() == 0) {
                solicitedArrived = false;
            }
            return true;
        }
        solicitedArrived = false; // no completion left: what a solicited arrival notified of is taken
        return events.take(event);
    }

    @Override
    public int postSoftwareEvent(Object pointer) {
        lock.lock();
        try {
            if (!isOpen()) {
                return invalidHandleCode();
            }
            if ((flags & EvdFlags.SOFTWARE) == 0) {
                // dat_evd_post_se(3DAT): DAT_INVALID_PARAMETER names the event, which this EVD's streams cannot carry
                return Codes.invalidParameter(DatReturn.INVALID_ARG2);
            }
            if (events.size() + queued() >= qlen) {
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
            return events.size() + queued() >= qlen;
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
                if (freed || queue == null) {
                    return;
                }
                if (!(available() > 0 && hasNotification())) {
                    queue.arm();
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
            if (queue != null) {
                queue.arm();
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
            if (minQlen < events.size() + queued()) {
                throw Codes.invalidState(DatReturn.NO_SUBTYPE, "more events are queued than fit in " + minQlen);
            }
            if (queue != null && minQlen > queue.capacity()) {
                try {
                    queue.grow(minQlen);
                } catch (NativeException e) {
                    throw Codes.fromNative(e, "minQlen");
                }
            }
            qlen = minQlen;
        } finally {
            lock.unlock();
        }
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
            if (queue != null) {
                queue.destroy();
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
