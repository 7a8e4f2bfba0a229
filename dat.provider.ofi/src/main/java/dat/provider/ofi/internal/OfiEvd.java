package dat.provider.ofi.internal;

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
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.support.ConsumerNotifiedStreams;
import dat.provider.support.EventRing;
import dat.provider.support.WaitArguments;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An EVD. One that takes DTO completions owns a libfabric completion queue ({@link CompletionQueue});
 * every other stream (connection requests and events, async errors, software events) arrives in a
 * ring of reused {@link DatEvent}s. Dequeue and wait read the CQ on the caller's thread (which is also
 * what makes libfabric progress) and turns one completion into the consumer's {@link DatEvent}: no
 * allocation, one uncontended lock per EVD, so that a concurrent free can never close the CQ under
 * a read.
 *
 * <p><b>Waiting.</b> A waiter first spins, reading the CQ, for {@link OfiIa#SPIN_NANOS} (a
 * ping-pong's answer arrives within it), yielding after {@link OfiIa#YIELD_AFTER_NANOS} so that
 * a peer on the same core runs; then a platform thread blocks in its own {@code poll(2)} on the
 * CQ's wait descriptor ({@link NativeWait}) and reads the CQ itself when it wakes: completions go
 * from libfabric to the consumer on the consumer's thread, and its reads drive libfabric's
 * progress. A virtual thread (which must not block in native code) or the waiter of an EVD that
 * also reads SRQ Endpoints' CQs parks instead, and the IA's event thread, which then watches the
 * CQ, wakes it. The event thread leaves a CQ alone while a consumer reads it often, spins or
 * blocks on it ({@link #watched}).
 */
final class OfiEvd extends OfiHandle implements EventDispatcher {

    /** How long after the last read by a consumer the event thread takes the CQ over again. */
    static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    final int flags;
    /** An Endpoint's private CQ ({@link #discarding}): what it reads is dropped. */
    private final boolean discarding;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile int qlen;
    private volatile OfiCno cno;
    private volatile boolean enabled = true;
    private volatile boolean waitable = true;
    private volatile Thread waiter;
    /** The event thread's own mark: a descriptor of this EVD's CQs was ready in its last wait. */
    private boolean ready;
    /** Set while the waiter is parked (its spin over, not blocked in {@link #nativeWait}): the event thread watches the CQ. */
    private volatile boolean parked;
    /** The waiter's own block on the CQ, or {@code null} (no CQ, or a discarding one). */
    private final NativeWait nativeWait;
    final AtomicInteger users = new AtomicInteger();
    /**
     * The DTO streams configured for consumer-controlled notification (UNSIGNALLED, or a receive
     * stream's SOLICITED_WAIT) that feed this EVD: while there are any, a wait threshold above 1 is
     * refused (dat_evd_wait(3DAT)).
     */
    final AtomicInteger consumerNotifiedStreams = new AtomicInteger();
    /** Set when the provider went away: the events queued then are still handed out, then DAT_INVALID_HANDLE. */
    private volatile boolean keptAfterFailure;
    /** When a consumer last read this EVD ({@link System#nanoTime()}). */
    private volatile long lastConsumerRead;

    /** The completion queue, or {@code null} when the EVD takes no DTO completions. */
    final CompletionQueue cq;
    /** {@link #cq} and the CQs of SRQ Endpoints whose receive EVD this is, or {@code null} with no CQ. */
    private final EvdQueues cqs;

    /** The other streams' events. */
    private EventRing events;

    private final DatEvent pollScratch = new DatEvent();

    OfiEvd(OfiIa ia, int qlen, OfiCno cno, int flags) {
        this(ia, qlen, cno, flags, false);
    }

    private OfiEvd(OfiIa ia, int qlen, OfiCno cno, int flags, boolean discarding) {
        super(ia, HandleType.EVD, DatReturn.INVALID_HANDLE_EVD_REQUEST);
        this.discarding = discarding;
        this.flags = flags;
        this.qlen = qlen;
        this.cno = cno;
        this.events = new EventRing(Math.max(qlen, 4));
        if ((flags & EvdFlags.DTO) != 0) {
            try {
                cq = new CompletionQueue(ia, null, qlen);
            } catch (NativeException e) {
                throw Codes.fromNative(e, "minQlen");
            }
            try {
                nativeWait = discarding ? null : cq.openNativeWait();
            } catch (NativeException e) {
                cq.close();
                throw Codes.fromNative(e, "minQlen");
            }
            cqs = new EvdQueues(cq);
        } else {
            cq = null;
            cqs = null;
            nativeWait = null;
        }
        if (cno != null) {
            cno.attach(this);
        }
        lastConsumerRead = System.nanoTime() - QUIET_NANOS;
        ia.addEvd(this, discarding);
    }

    /**
     * The completion queue of an Endpoint whose receive or request EVD is missing (DAT drops those
     * completions) or whose receives come from an SRQ: no consumer sees it, the event thread reads
     * it and drops what it reads.
     */
    static OfiEvd discarding(OfiIa ia, int qlen) {
        return new OfiEvd(ia, Math.max(qlen, 16), null, EvdFlags.DTO, true);
    }

    /** Whether this is an Endpoint's private CQ whose completions are dropped ({@link #discarding(OfiIa, int)}). */
    boolean isDiscarding() {
        return discarding;
    }

    /** The EVD behind a handle, checked to be an open EVD of this IA with the stream asked for. */
    static OfiEvd check(OfiIa ia, EventDispatcher evd, int stream, int subtype, String argument) {
        if (!(evd instanceof OfiEvd v) || v.ia != ia || !v.isOpen()) {
            throw Codes.exception(DatReturn.INVALID_HANDLE, subtype, argument, "not an open EVD of this IA");
        }
        if ((v.flags & stream) == 0) {
            throw Codes.exception(DatReturn.INVALID_HANDLE, subtype, argument, "the EVD does not take this event stream");
        }
        return v;
    }

    // ---- data path ---------------------------------------------------------------------------------

    private void lockDataPath() {
        Locks.lockSpinning(lock);
    }

    @Override
    public int dequeue(DatEvent event) {
        if (!isOpen() && !keptAfterFailure) {
            return invalidHandleCode(); // the handle before the arguments, as every call
        }
        if (event == null) {
            return Codes.invalidParameter(DatReturn.INVALID_ARG2);
        }
        lockDataPath();
        try {
            if (!isOpen()) {
                return keptAfterFailure && events.size() > 0 && take(event) ? Codes.SUCCESS : invalidHandleCode();
            }
            if (waiter != null) {
                return Codes.INVALID_STATE_EVD_WAITER;
            }
            lastConsumerRead = System.nanoTime();
            return take(event) ? Codes.SUCCESS : Codes.QUEUE_EMPTY;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int poll(DatEventHandler handler, int limit) {
        if (!isOpen() && !keptAfterFailure) {
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
            lockDataPath();
            try {
                if (!isOpen() && !(keptAfterFailure && events.size() > 0)) {
                    return handed > 0 ? handed : invalidHandleCode();
                }
                lastConsumerRead = System.nanoTime();
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
    static void countConsumerNotified(OfiEvd recv, OfiEvd request, EpAttributes attributes, int delta) {
        ConsumerNotifiedStreams.count(recv != null ? recv.consumerNotifiedStreams : null,
                request != null ? request.consumerNotifiedStreams : null, attributes, delta);
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
        long start = System.nanoTime();
        long deadline = timeoutMicros == DatConstants.TIMEOUT_INFINITE ? Long.MAX_VALUE
                : start + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
        lockDataPath();
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
            lastConsumerRead = start; // a wait whose first read finds its events reads the CQ too
            long spinUntil = start + OfiIa.SPIN_NANOS;
            // what was queued before the wait counts; after, only a notification ends it, as a
            // completion of a DTO posted UNSIGNALLED does not (dat_evd_wait(3DAT))
            boolean first = true;
            for (;;) {
                int available = available();
                if (available >= threshold && (first || hasNotification())) {
                    take(event);
                    event.setMoreEvents(available - 1);
                    return Codes.SUCCESS;
                }
                first = false;
                if (freed || !ia.isUsable()) {
                    return Codes.ABORT;
                }
                if (!waitable) {
                    return Codes.INVALID_STATE_EVD_UNWAITABLE;
                }
                if (Thread.interrupted()) {
                    return Codes.INTERRUPTED;
                }
                long now = System.nanoTime();
                if (deadline != Long.MAX_VALUE && deadline - now <= 0) {
                    event.clear();
                    event.setMoreEvents(available);
                    return Codes.TIMEOUT_EXPIRED;
                }
                boolean spinning = now - spinUntil < 0;
                boolean blockHere = !spinning && blocksNatively();
                if (blockHere) {
                    nativeWait.arm(); // under the lock: whatever is posted after the look above signals the eventfd
                }
                lock.unlock();
                try {
                    if (spinning) {
                        lastConsumerRead = now; // spinning: the reads drive libfabric, the event thread stays off
                        if (now - start < OfiIa.YIELD_AFTER_NANOS) {
                            Thread.onSpinWait();
                        } else {
                            Thread.yield(); // the peer's turn where it shares this core
                        }
                    } else if (blockHere) {
                        lastConsumerRead = now;
                        nativeWait.block(deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - now);
                    } else {
                        if (!parked) {
                            parked = true;
                            ia.watch(this); // the event thread must watch this CQ from now on
                        }
                        if (deadline == Long.MAX_VALUE) {
                            LockSupport.park(this);
                        } else {
                            LockSupport.parkNanos(this, deadline - now);
                        }
                    }
                } finally {
                    lockDataPath();
                }
            }
        } finally {
            if (waiter == Thread.currentThread()) {
                waiter = null; // not when refused: the waiter already there stays registered for its wake-up
                parked = false;
                if (nativeWait != null) {
                    nativeWait.disarm();
                }
            }
            lock.unlock();
        }
    }

    /**
     * Whether the waiter blocks in {@link NativeWait} (its own {@code poll(2)} on the CQ's wait
     * descriptor) rather than parking for the event thread: a platform thread on an EVD whose
     * completions arrive on its own CQ alone (an SRQ Endpoint's attached CQ is the event thread's).
     */
    private boolean blocksNatively() {
        return nativeWait != null && !cqs.hasAttached() && !Thread.currentThread().isVirtual();
    }

    /** How many events are ready: completions (reading the CQs first) and the other streams; lock held. */
    private int available() {
        return (cqs != null && !freed ? cqs.fill() : 0) + events.size();
    }

    /** Whether a notification event is queued (read by {@link #available} first); lock held. */
    private boolean hasNotification() {
        return events.size() > 0 || cqs != null && !freed && cqs.hasNotification();
    }

    /** How many completions the rings hold; lock held. */
    private int queued() {
        return cqs == null ? 0 : cqs.queued();
    }

    /** Moves the next event, completions first, into {@code event}; lock held. */
    private boolean take(DatEvent event) {
        return cqs != null && !freed && cqs.take(event, this) || events.take(event);
    }

    /**
     * Before a send is injected ({@link Posting}): takes the lock, held across the {@code fi_inject}
     * and the queueing, when the ring has room for the send's completion; else {@code false}.
     */
    boolean lockForInject() {
        lockDataPath();
        if (freed || cq == null || discarding || !cq.hasRoom()) {
            lock.unlock();
            return false;
        }
        return true;
    }

    /** After {@link #lockForInject}: releases the lock, and wakes a waiter when a completion was queued. */
    void unlockAfterInject(boolean queued) {
        lock.unlock();
        if (queued) {
            signal();
        }
    }

    /**
     * Reads the CQ so that the slots of suppressed completions come back: called by a post that
     * found its queue full (the Endpoint's lock is held; EP before EVD is the lock order).
     */
    void reclaim() {
        lockDataPath();
        try {
            if (cq != null && !freed) {
                available();
                while (discarding && take(pollScratch)) {
                    pollScratch.clear();
                }
            }
        } finally {
            lock.unlock();
        }
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

    /** Queues a connection, CR, async or flush event (event thread or control path); the ring grows if full. */
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
     * Whether the event thread should watch this EVD's CQ: when a consumer waits on it or a CNO
     * listens to it, or nobody has read it for {@link #QUIET_NANOS} (someone must make libfabric
     * progress: one-sided RDMA aimed at this side completes without its consumer) and no
     * consumer's reads of another CQ progress its Endpoints ({@link OfiIa#progressedElsewhere}). A CQ
     * whose ring is full is left alone until a consumer makes room.
     */
    boolean watched(long now) {
        if (cqs == null || freed || cqs.anyStalled()) {
            return false;
        }
        if (nativeWait != null && nativeWait.isArmed()) {
            return false; // its waiter blocks on the CQ's descriptor itself and reads what comes
        }
        return discarding || parked || cno != null || now - lastConsumerRead >= QUIET_NANOS && !ia.progressedElsewhere(this, now);
    }

    /**
     * Whether a consumer read this EVD's CQ within {@link #QUIET_NANOS}, or blocks on it: reads
     * that progress libfabric's endpoints of the CQ. A dequeue of an idle CQ does not read it
     * ({@link CompletionQueue#isIdle}), and progresses nothing.
     */
    boolean readByConsumer(long now) {
        CompletionQueue q = cq;
        if (q != null && q.isIdle() && !cqs.hasAttached() && !(nativeWait != null && nativeWait.isArmed())) {
            return false;
        }
        return now - lastConsumerRead < QUIET_NANOS || nativeWait != null && nativeWait.isArmed();
    }

    /** The event thread: a descriptor of this EVD's CQs was ready in its wait. */
    void markReady() {
        ready = true;
    }

    /** The event thread: whether a descriptor of this EVD's CQs was ready, clearing the mark. */
    boolean takeReady() {
        boolean was = ready;
        ready = false;
        return was;
    }

    /**
     * The event thread's turn: reads the CQ (libfabric progresses in the read) and wakes a waiter
     * or the CNO when a notification event is there.
     *
     * @return whether a notification event is queued
     */
    boolean progress() {
        boolean ready;
        if (!lock.tryLock()) {
            return false; // a consumer is reading it: that read makes the progress
        }
        try {
            if (freed || cq == null) {
                return false;
            }
            if (discarding) {
                while (take(pollScratch)) {
                    pollScratch.clear(); // dropped, as DAT drops the completions of a missing EVD
                }
                return false;
            }
            ready = available() > 0 && hasNotification();
        } catch (RuntimeException e) {
            return false;
        } finally {
            lock.unlock();
        }
        if (ready) {
            signal();
        }
        return ready;
    }

    /**
     * Reads everything a CQ of this EVD holds into its ring (a connection's teardown, before its
     * flush): {@link #cq}, or an SRQ Endpoint's attached one, whose completions then become events
     * ({@code closing}: the CQ closes next, and no receive that took an SRQ buffer may be lost).
     */
    void drainForTeardown(CompletionQueue queue, boolean closing) {
        int kept = 0;
        lock.lock();
        try {
            if (cq != null && !freed) {
                queue.drainAll();
                while (discarding && take(pollScratch)) {
                    pollScratch.clear();
                }
                for (DatEvent e = new DatEvent(); closing && queue.take(e, this); e.clear(), kept++) {
                    events.add(e);
                }
            }
        } finally {
            lock.unlock();
        }
        if (kept > 0) {
            signal();
        }
    }

    /** An SRQ Endpoint's CQ joins this, its receive EVD. */
    void attach(CompletionQueue queue) {
        lock.lock();
        try {
            cqs.attach(queue);
        } finally {
            lock.unlock();
        }
        ia.watch(this);
    }

    /** An SRQ Endpoint's CQ leaves (the Endpoint is freed, or takes another receive EVD). */
    void detach(CompletionQueue queue) {
        lock.lock();
        try {
            cqs.detach(queue);
        } finally {
            lock.unlock();
        }
    }

    /** Every CQ the event thread watches for this EVD: its own and the attached ones. */
    CompletionQueue[] queues() {
        return cqs.all();
    }

    /** Called by the ring when a consumer made room in a full ring: the event thread watches again. */
    void unstalled() {
        ia.watch(this);
    }

    /** Wakes the waiter, blocked in its own {@code poll(2)} or parked: it looks again at the EVD's state. */
    private void wakeWaiter() {
        if (nativeWait != null) {
            nativeWait.wake();
        }
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    private void signal() {
        NativeWait blocked = nativeWait;
        if (blocked != null) {
            blocked.wake();
        }
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w); // disabling an EVD has no effect on direct waiters (dat_evd_enable(3DAT))
            return; // nor is its CNO triggered while a consumer waits on it (dat_evd_wait(3DAT))
        }
        OfiCno c = cno;
        if (c != null && enabled) {
            c.trigger(this);
        }
    }

    boolean isEnabled() {
        return enabled;
    }

    /** For a CNO wait: whether a notification event is already there (reading the CQ first). */
    boolean hasEvents() {
        lock.lock();
        try {
            return !freed && available() > 0 && hasNotification();
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
            if (minQlen < 1 || minQlen > ia.limits.maxEvdQlen()) {
                throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "minQlen", minQlen + " out of range");
            }
            int queued = events.size() + queued();
            if (minQlen < queued) {
                throw Codes.invalidState(DatReturn.NO_SUBTYPE, "more events are queued than fit in " + minQlen);
            }
            if (cq != null && cq.resize(minQlen)) {
                unstalled(); // the event thread reads the CQ again
            }
            qlen = minQlen;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void modifyCno(ConsumerNotificationObject newCno) {
        checkOpen();
        OfiCno next = null;
        if (newCno != null) {
            if (!(newCno instanceof OfiCno c) || c.ia != ia || !c.isOpen()) {
                throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_CNO, "cno", "foreign or freed CNO");
            }
            next = c;
        }
        OfiCno previous = cno;
        if (previous != null) {
            previous.detach(this);
        }
        cno = next;
        if (next != null) {
            next.attach(this);
            ia.watch(this);
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
        wakeWaiter();
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

    /** Closes the CQ and aborts a waiter; idempotent. */
    void destroy() {
        destroy(false);
    }

    /**
     * Closes the CQ and aborts a waiter; idempotent.
     *
     * @param keepEvents the provider is going away (the hot swap): the completions and events
     *     queued are kept in Java, the completions ahead (the teardown's flushes came after them),
     *     and {@code dat_evd_dequeue} hands them out before it answers {@code DAT_INVALID_HANDLE}, so
     *     that the consumer sees every posted DTO's fate
     */
    void destroy(boolean keepEvents) {
        lock.lock();
        try {
            if (freed) {
                return;
            }
            if (keepEvents && cq != null && !discarding) {
                EventRing later = events;
                events = new EventRing(later.capacity());
                DatEvent next = new DatEvent();
                while (cqs.take(next, this)) {
                    events.add(next);
                }
                while (later.take(next)) {
                    events.add(next);
                }
            }
            keptAfterFailure = keepEvents;
            freed = true;
            if (cq != null) {
                cq.close();
            }
        } finally {
            lock.unlock();
        }
        OfiCno c = cno;
        if (c != null) {
            c.detach(this);
        }
        ia.removeEvd(this);
        wakeWaiter();
    }

    /** For tests: whether a waiter is blocked (or about to block) in its own {@code poll(2)} on the CQ. */
    boolean waiterBlocksNatively() {
        return nativeWait != null && nativeWait.isArmed();
    }

    /** For tests: whether a waiter parked for the event thread to wake it. */
    boolean waiterParked() {
        return parked;
    }

    /** For tests: the CQ's wait descriptor, or -1. */
    int waitFd() {
        return cq == null ? -1 : cq.waitFd;
    }
}
