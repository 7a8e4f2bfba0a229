package dat.provider.sim.internal.core;

import dat.api.AsyncErrorReason;
import dat.api.ConsumerNotificationObject;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.EvdParamMask;
import dat.api.EvdParams;
import dat.api.EvdState;
import dat.api.HandleType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * An Event Dispatcher: dat_evd_create (udat.h), dat_evd_dequeue(3DAT), dat_evd_wait(3DAT),
 * dat_evd_post_se(3DAT), dat_evd_query(3DAT), dat_evd_resize(3DAT), dat_evd_modify_cno(3DAT),
 * dat_evd_enable/disable(3DAT), dat_evd_set/clear_unwaitable(3DAT), dat_evd_free(3DAT).
 *
 * <p>The events wait in an {@link EventQueue}: producers (any thread completing a DTO or a
 * connection step) copy fields into a record; {@link #dequeue} copies a record into the consumer's
 * {@link DatEvent}. Producers and the consumer share no lock, so a busy-polling consumer does not
 * slow its producers down. Nothing here allocates per event.
 *
 * <p>A full queue loses the event and reports {@link EventNumber#ASYNC_ERROR_EVD_OVERFLOW} on the
 * IA's async EVD (once per overflow: until an event finds room again); software events on a full
 * queue fail with {@link DatReturn#QUEUE_FULL} instead (dat_evd_post_se(3DAT)).
 */
public final class SimEvd extends SimHandle implements EventDispatcher {

    private static final int QUEUE_EMPTY = DatReturn.error(DatReturn.QUEUE_EMPTY, DatReturn.NO_SUBTYPE);
    private static final int QUEUE_FULL = DatReturn.error(DatReturn.QUEUE_FULL, DatReturn.NO_SUBTYPE);
    private static final int WAITER_STATE = DatReturn.error(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_WAITER);
    /** Clears {@link #driver} only if it still holds the driver that closed. */
    private static final VarHandle DRIVER = FieldHandles.of(MethodHandles.lookup(), SimEvd.class, "driver", WaitDriver.class);

    private final SimIa ia;
    private final int flags;
    private final EventQueue queue;
    /** The completions delivered here, counted under the producers' lock. */
    final DtoCounters counters = new DtoCounters();
    private volatile boolean enabled = true;
    private volatile boolean waitable = true;
    /**
     * Bumped by each dat_evd_set_unwaitable: a waiter compares it with the value it saw as it
     * began, so a clear that follows at once still lets it see the set (dat_evd_set_unwaitable(3DAT)).
     */
    private volatile int unwaitableSets;
    /** {@link #unwaitableSets} as the waiter began; written and read by the waiter's thread. */
    private int waiterUnwaitableSets;
    private volatile SimCno cno;
    private volatile Thread waiter;
    private volatile int waitThreshold = 1;
    /**
     * The transport work that last fed a completion here, or that will bring the answer to a
     * dat_ep_connect (until a connection event comes): a waiter does it itself instead of parking
     * ({@link WaitDriver#drive}), so a message wakes one thread instead of two.
     */
    private volatile WaitDriver driver;
    /** The driver the waiter drives now: a post from another thread wakes it there. */
    private volatile WaitDriver drivenBy;
    /**
     * An overflow was reported and no event found room since: set and cleared by producers, under
     * their lock, so a loss right after a dequeue made room is reported.
     */
    private volatile boolean overflowReported;
    /** Endpoints, Service Points and IAs that send events here: dat_evd_free(3DAT) refuses while any. */
    final AtomicInteger feeders = new AtomicInteger();
    /** DTO streams configured UNSIGNALLED or SOLICITED_WAIT: then wait thresholds above 1 are refused. */
    final AtomicInteger consumerNotifiedStreams = new AtomicInteger();
    /** Endpoint DTO streams (request and receive completions) among the feeders, and the UNSIGNALLED ones of them. */
    final AtomicInteger dtoStreams = new AtomicInteger();
    final AtomicInteger unsignalledStreams = new AtomicInteger();
    final AtomicInteger solicitedStreams = new AtomicInteger();
    final AtomicInteger thresholdStreams = new AtomicInteger();

    SimEvd(SimIa ia, int qlen, SimCno cno, int flags) {
        super(HandleType.EVD, DatReturn.INVALID_HANDLE_EVD_REQUEST); // what the reference libdat names a bad EVD with
        this.ia = ia;
        this.flags = flags;
        this.cno = cno;
        this.queue = new EventQueue(qlen);
        ia.registered(this);
    }

    @Override
    SimIa ia() {
        return ia;
    }

    int flags() {
        return flags;
    }

    int count() {
        return queue.count();
    }

    /** Where the records that an Endpoint starting to feed this EVD now may hold it begin ({@link EventQueue#bindingFrom}). */
    long bindingFrom() {
        return queue.bindingFrom();
    }

    /**
     * An Endpoint that fed this EVD since {@code from} ({@link #bindingFrom}) stopped: the records no
     * longer queued let go of it ({@link EventQueue#forget}).
     */
    void forget(SimEndpoint ep, long from) {
        queue.forget(ep, from);
    }

    // ---------------------------------------------------------------------------------------------
    // producers
    // ---------------------------------------------------------------------------------------------

    void postDto(SimEndpoint ep, long cookie, int status, long length, boolean notify, SimSrq srq) {
        postDto(EventNumber.DTO_COMPLETION_EVENT, ep, cookie, status, length, notify, srq, 0, 0);
    }

    /**
     * A DTO completion: {@link EventNumber#DTO_COMPLETION_EVENT}, or {@link dat.api.ext.IbExtension#IB_DTO_EVENT}
     * with the extension's completion type and immediate data. Counted in the IA's statistics.
     */
    void postDto(int number, SimEndpoint ep, long cookie, int status, long length, boolean notify, SimSrq srq, int extensionType,
            int immediate) {
        int i = claimOrLose(srq);
        if (i >= 0) {
            publishDto(i, number, ep, cookie, status, length, notify, srq, false, extensionType, immediate);
        }
    }

    /**
     * The first half of {@link #postDto} for a producer with a store to make between claiming the
     * record and publishing it: the producers' lock is then taken before that store, whose cache
     * line transfer so overlaps the record's instead of holding up the lock's atomic instruction.
     *
     * @param srq the SRQ of a receive completion's buffer, given back when the event is lost; or {@code null}
     * @return the record's index for {@link #publishRecv}, or -1 when the event is lost (nothing held)
     */
    int claimDto(SimSrq srq) {
        return claimOrLose(srq);
    }

    /**
     * The second half of {@link #postDto} for a receive completion: fills and publishes the record
     * {@link #claimDto} gave, and lets go of the lock. A receive of the Endpoint's own ring (no
     * {@code srq}) is counted as reaped when it is dequeued ({@link EpReceives#reaped()}).
     */
    void publishRecv(int i, int number, SimEndpoint ep, long cookie, int status, long length, boolean notify, SimSrq srq,
            int extensionType, int immediate) {
        publishDto(i, number, ep, cookie, status, length, notify, srq, srq == null, extensionType, immediate);
    }

    private void publishDto(int i, int number, SimEndpoint ep, long cookie, int status, long length, boolean notify, SimSrq srq,
            boolean ownReceive, int extensionType, int immediate) {
        counters.completed(status, length);
        queue.putDto(i, ep, cookie, status, length, srq, ownReceive);
        if (number != EventNumber.DTO_COMPLETION_EVENT) {
            queue.putExtension(i, extensionType, immediate);
        }
        publish(i, number, notify);
    }

    /**
     * Claims a slot for an event (the producers' lock then held until it is published), or loses
     * the event: the EVD is freed, or full (an overflow, reported once).
     *
     * @param srq the SRQ of a receive completion's buffer, given back when the event is lost; or {@code null}
     * @return the record's index, or -1 when the event is lost
     */
    private int claimOrLose(SimSrq srq) {
        if (freed) {
            lost(srq);
            return -1;
        }
        int i = queue.claim();
        if (i < 0) {
            overflowUnlock(srq);
            return -1;
        }
        if (freed) { // freed since the look above: the free's discard took the lock before this claim, and saw no event
            queue.unlockProducers();
            lost(srq);
            return -1;
        }
        if (overflowReported) {
            overflowReported = false; // an event found room again: the next loss is a new overflow
        }
        return i;
    }

    /**
     * Publishes a claimed record and lets go of the producers' lock; a notification wakes the
     * waiter whose threshold it meets, or triggers the CNO (dat_evd_wait(3DAT), dat_evd_enable(3DAT)).
     * The waiter is read with the lock held: {@link EventQueue#handshake} then makes sure that it
     * either sees this event or is seen here.
     */
    private void publish(int i, int number, boolean notify) {
        queue.publish(i, number, notify);
        // a waiter an unwaitable EVD still holds is leaving (dat_evd_set_unwaitable woke it): the
        // event is for the CNO, which events after the set still trigger (dat_evd_set_unwaitable(3DAT))
        Thread w = notify && waitable ? waiter : null;
        boolean met = w != null && queue.count() >= waitThreshold;
        queue.unlockProducers();
        if (!notify) {
            return;
        }
        if (w != null) {
            if (met) {
                wake(w);
            }
            return; // a direct waiter preempts the CNO
        }
        SimCno c = cno;
        if (c != null && enabled) {
            c.trigger(this);
        }
    }

    /**
     * A receive completion no consumer will dequeue (the EVD overflowed or is gone): its SRQ buffer
     * stops counting as outstanding now, as the dequeue would have made it, or the SRQ would refuse
     * posts and resizes for it for good.
     */
    private static void lost(SimSrq srq) {
        if (srq != null) {
            srq.reaped();
        }
    }

    void postRmrBind(SimRmr rmr, long cookie, int status, boolean notify) {
        int i = claimOrLose(null);
        if (i < 0) {
            return;
        }
        counters.completed(status, 0);
        queue.put(i, rmr, null, cookie, status);
        publish(i, EventNumber.RMR_BIND_COMPLETION_EVENT, notify);
    }

    /**
     * Queues a connection request arrival.
     *
     * @return {@code false} when the queue is full (the PSP's backlog is full)
     */
    boolean postConnectionRequest(DatHandle sp, InetSocketAddress localAddress, long qual, SimCr cr) {
        if (freed) {
            return false;
        }
        int i = queue.claim();
        if (i < 0) {
            queue.unlockProducers();
            return false;
        }
        queue.put(i, sp, cr, qual, 0);
        queue.putAddress(i, localAddress);
        publish(i, EventNumber.CONNECTION_REQUEST_EVENT, true);
        return true;
    }

    void postConnection(int number, SimEndpoint ep, byte[] privateData) {
        int i = claimOrLose(null);
        if (i < 0) {
            return;
        }
        queue.put(i, ep, privateData, 0, 0);
        publish(i, number, true);
        // the answer to the dat_ep_connect whose wait drove the transport (noted at the connect):
        // a later wait here (for the peer's disconnect, all a connection long) parks instead of
        // holding the transport's role; a DTO completion that comes here notes its driver again
        forgetDriver(driver);
    }

    void postAsync(int number, DatHandle handle, int reason) {
        if (freed) {
            return;
        }
        int i = queue.claim();
        if (i < 0) {
            overflowReported = true; // the async EVD itself overflowed: nowhere to report it
            queue.unlockProducers();
            return;
        }
        queue.put(i, handle, null, 0, reason);
        publish(i, number, true);
    }

    /**
     * An event was lost, no slot free, with the producers' lock held: lets go of it, gives back the SRQ
     * buffer of a lost receive completion ({@code srq}, or {@code null}), and reports the overflow
     * on the async EVD, once per overflow (the first loss since the queue had room: decided under
     * the producers' lock, so two producers do not both report it).
     */
    private void overflowUnlock(SimSrq srq) {
        boolean report = !overflowReported;
        overflowReported = true;
        queue.unlockProducers();
        lost(srq);
        SimEvd async = report ? ia.asyncEvd() : null;
        if (async != null && async != this) {
            async.postAsync(EventNumber.ASYNC_ERROR_EVD_OVERFLOW, this, AsyncErrorReason.EVD_OVERFLOW_ERROR);
        }
    }

    /** Wakes the waiter, parked or reading a TCP connection; a waiter posting to its own EVD needs no wake-up. */
    private void wake(Thread w) {
        if (w == Thread.currentThread()) {
            return;
        }
        LockSupport.unpark(w);
        // a producer's publication is a release store: this fence orders it before the look at
        // drivenBy, which a waiter stores before its last look at the queue
        VarHandle.fullFence();
        WaitDriver driven = drivenBy;
        if (driven != null) {
            driven.wakeDriver();
        }
    }

    /**
     * For a waiter reading a TCP connection: whether its wait is over, exactly when a parked one
     * would be woken (a notification event meets its threshold, or a state it must report): an
     * unsignalled or unsolicited completion does not end it.
     */
    public boolean waitOver() {
        return queue.notified(waitThreshold) || freed || unwaitableSince(waiterUnwaitableSets) || !ia.usable();
    }

    /** Whether the EVD is unwaitable, or was made so since {@code sets} was read. */
    private boolean unwaitableSince(int sets) {
        return !waitable || unwaitableSets != sets;
    }

    // ---------------------------------------------------------------------------------------------
    // consumers
    // ---------------------------------------------------------------------------------------------

    /** Whether dequeue may run: open, or dead with events left to drain (the hot swap). */
    private int dequeueCheck() {
        if (freed) {
            return invalidCode();
        }
        if (!ia.usable() && !(ia.dead() && !queue.isEmpty())) {
            return invalidCode();
        }
        return DatReturn.SUCCESS;
    }

    @Override
    public int dequeue(DatEvent event) {
        int check = dequeueCheck();
        if (check != DatReturn.SUCCESS) {
            return check;
        }
        if (event == null) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        }
        if (waiter != null) {
            return WAITER_STATE;
        }
        if (queue.isEmpty() && !polled()) {
            return QUEUE_EMPTY;
        }
        return take(event) ? DatReturn.SUCCESS : QUEUE_EMPTY;
    }

    /**
     * A busy-polling consumer found the queue empty: the transport that feeds it (its driver)
     * moves what waits for it, on the consumer's thread ({@link WaitDriver#poll}).
     *
     * @return whether the queue holds an event now
     */
    private boolean polled() {
        WaitDriver feeder = driver;
        return feeder != null && feeder.poll(this) && !queue.isEmpty();
    }

    /** Moves the first event into {@code event}; {@code false} if the queue was empty. */
    private boolean take(DatEvent event) {
        return queue.take(this, event);
    }

    @Override
    public int await(long timeoutMicros, int threshold, DatEvent event) {
        int check = dequeueCheck();
        if (check != DatReturn.SUCCESS) {
            return check;
        }
        if (!DatConstants.isValidTimeout(timeoutMicros)) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        }
        if (threshold <= 0 || threshold > queue.capacity()) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        }
        if (event == null) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4);
        }
        if (threshold > 1 && consumerNotifiedStreams.get() > 0) {
            // dat_evd_wait(3DAT): with UNSIGNALLED or SOLICITED_WAIT streams the threshold must be 1
            return DatReturn.error(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_CONFIG_THRESHOLD);
        }
        int sets = unwaitableSets; // before the look at waitable: a set after it ends the wait
        if (!waitable) {
            return DatReturn.error(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_UNWAITABLE);
        }
        Thread me = Thread.currentThread();
        synchronized (this) {
            if (waiter != null) {
                return WAITER_STATE;
            }
            waitThreshold = threshold;
            waiterUnwaitableSets = sets;
            waiter = me;
        }
        queue.handshake(); // a producer from now on sees the waiter, or this wait sees its event
        try {
            boolean infinite = timeoutMicros == DatConstants.TIMEOUT_INFINITE;
            // the first look at the deadline uses the clock read for it: one read less per wait
            long now = infinite ? 0 : System.nanoTime();
            long deadline = now + timeoutMicros * 1000;
            for (boolean first = true;; first = false) {
                if (freed) {
                    return DatReturn.error(DatReturn.ABORT, DatReturn.NO_SUBTYPE);
                }
                if (!ia.usable()) {
                    // IA closed or the provider went away: drain what is there, else abort
                    if (ia.dead() && take(event)) {
                        event.setMoreEvents(count());
                        return DatReturn.SUCCESS;
                    }
                    return DatReturn.error(DatReturn.ABORT, DatReturn.NO_SUBTYPE);
                }
                if (unwaitableSince(sets)) {
                    return DatReturn.error(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_UNWAITABLE);
                }
                // what was queued before the wait counts; after, only a notification ends it, as a
                // wake-up may have another cause (the read role came free, a spurious one)
                if ((first ? count() >= threshold : queue.notified(threshold)) && take(event)) {
                    event.setMoreEvents(count());
                    return DatReturn.SUCCESS;
                }
                if (me.isInterrupted()) {
                    return DatReturn.error(DatReturn.INTERRUPTED_CALL, DatReturn.NO_SUBTYPE);
                }
                if (infinite) {
                    if (!drove(me, true, 0)) {
                        LockSupport.park(this);
                    }
                } else {
                    long remaining = deadline - (first ? now : System.nanoTime());
                    if (remaining <= 0) {
                        // dat_evd_wait(3DAT): it times out with fewer than threshold events queued
                        if (count() >= threshold && take(event)) {
                            event.setMoreEvents(count());
                            return DatReturn.SUCCESS;
                        }
                        event.clear().setMoreEvents(count());
                        return DatReturn.error(DatReturn.TIMEOUT_EXPIRED, DatReturn.NO_SUBTYPE);
                    }
                    if (!drove(me, false, deadline)) {
                        // the drive may have waited on the socket before it left the rest to this park
                        LockSupport.parkNanos(this, deadline - System.nanoTime());
                    }
                }
            }
        } finally {
            waiter = null;
        }
    }

    /** A TCP connection's read role came free: a waiter that could not take it looks again (see {@link #drove}). */
    public void wakeWaiter() {
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    /** A driver that fed a completion here: a waiter drives it from now on. */
    public void noteDriver(WaitDriver d) {
        if (driver != d) {
            driver = d;
        }
    }

    /** The driver a waiter would drive now, or {@code null}. */
    public WaitDriver driver() {
        return driver;
    }

    /**
     * The EVD no longer holds {@code d}, if it still holds it: a driver that closed (nor its
     * Endpoint and buffers), or the one a connect or disconnect noted, once a connection event came.
     */
    public void forgetDriver(WaitDriver d) {
        DRIVER.compareAndSet(this, d, null);
    }

    /** The waiter drives {@code d} now ({@code null}: no longer); a post from another thread wakes it there. */
    public void drivenBy(WaitDriver d) {
        drivenBy = d;
    }

    /** The driver the waiter drives now, or {@code null}. */
    public WaitDriver drivenBy() {
        return drivenBy;
    }

    /**
     * The waiter, instead of parking: reads the TCP connection that feeds this EVD, if it can.
     * Not on a virtual thread, whose wait in a selector would pin its carrier.
     *
     * @return whether it did (then the caller looks again); {@code false}: the caller parks
     */
    private boolean drove(Thread me, boolean infinite, long deadline) {
        WaitDriver feeder = driver;
        if (feeder == null || me.isVirtual()) {
            return false;
        }
        if (feeder.drive(this, infinite, deadline)) {
            return true;
        }
        if (feeder.isClosed()) {
            DRIVER.compareAndSet(this, feeder, null); // not a newer one noted meanwhile
        }
        return false;
    }

    @Override
    public int poll(DatEventHandler handler, int limit) {
        int check = dequeueCheck();
        if (check != DatReturn.SUCCESS) {
            return check;
        }
        if (handler == null) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        }
        if (limit < 0) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        }
        if (waiter != null) {
            return WAITER_STATE;
        }
        DatEvent event = ia.provider.pollEvent();
        int n = 0;
        if (limit > 0 && queue.isEmpty() && !polled()) {
            return 0;
        }
        while (n < limit && !queue.isEmpty() && take(event)) {
            n++;
            handler.onEvent(event);
        }
        return n;
    }

    @Override
    public int postSoftwareEvent(Object pointer) {
        if (!isOpen()) {
            return invalidCode();
        }
        if ((flags & EvdFlags.SOFTWARE) == 0) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        }
        int i = queue.claim();
        if (i < 0) {
            queue.unlockProducers();
            return QUEUE_FULL; // the event is not queued; no overflow (dat_evd_post_se(3DAT))
        }
        queue.put(i, pointer, null, 0, 0);
        publish(i, EventNumber.SOFTWARE_EVENT, true);
        return DatReturn.SUCCESS;
    }

    // ---------------------------------------------------------------------------------------------
    // control
    // ---------------------------------------------------------------------------------------------

    @Override
    public EvdParams query(int evdParamMask) {
        checkQueryMask(EvdParamMask.isValid(evdParamMask), "evdParamMask", evdParamMask);
        int state = (enabled ? EvdState.ENABLED : EvdState.DISABLED) | (waitable ? EvdState.WAITABLE : EvdState.UNWAITABLE);
        if (solicitedStreams.get() > 0) {
            state |= EvdState.CONFIG_SOLICITED;
        } else if (thresholdStreams.get() > 0) {
            state |= EvdState.CONFIG_THRESHOLD;
        } else {
            state |= EvdState.CONFIG_NOTIFY;
        }
        return new EvdParams(ia, queue.capacity(), state, cno, flags);
    }

    @Override
    public void resize(int minQlen) {
        checkOpen();
        if (minQlen <= 0 || minQlen > ia.limits().maxEvdQlen()) {
            throw invalidParameter(DatReturn.INVALID_ARG2, "minQlen", "must be 1.." + ia.limits().maxEvdQlen());
        }
        int n;
        try {
            n = queue.resize(minQlen);
        } catch (OutOfMemoryError e) {
            throw insufficient(DatReturn.RESOURCE_MEMORY, "no memory for " + minQlen + " events: " + e.getMessage());
        }
        if (n < 0) {
            throw invalidState(DatReturn.NO_SUBTYPE, count() + " events are queued, more than " + minQlen + " (dat_evd_resize(3DAT))");
        }
    }

    @Override
    public void modifyCno(ConsumerNotificationObject newCno) {
        checkOpen();
        SimCno c = ia.cno(newCno, "cno");
        synchronized (this) {
            SimCno old = cno;
            if (old == c) {
                return;
            }
            if (c != null) {
                c.attach();
            }
            cno = c;
            if (old != null) {
                old.detach(false);
            }
        }
    }

    @Override
    public void enable() {
        checkOpen();
        enabled = true;
    }

    @Override
    public void disable() {
        checkOpen();
        enabled = false;
    }

    @Override
    public void setUnwaitable() {
        checkOpen();
        synchronized (this) { // one bump per set, even when two race
            waitable = false;
            unwaitableSets++;
        }
        Thread w = waiter;
        if (w != null) {
            wake(w);
        }
    }

    @Override
    public void clearUnwaitable() {
        checkOpen();
        waitable = true;
    }

    /** Wakes the waiter so it sees the IA's new state. */
    void wakeAll() {
        Thread w = waiter;
        if (w != null) {
            wake(w);
        }
    }

    @Override
    public void close() {
        freeUnlessUsed(feeders, DatReturn.INVALID_STATE_EVD_IN_USE,
                n -> "the EVD is fed by " + n + " Endpoint(s), Service Point(s) or IA(s) (dat_evd_free(3DAT))", this::destroy);
    }

    void destroy() {
        if (freed) {
            return;
        }
        freed = true;
        SimCno c;
        synchronized (this) {
            c = cno;
            cno = null;
        }
        if (c != null) {
            c.detach(true);
        }
        // the events still queued are lost (dat_evd_free(3DAT)): what a dequeue would give back of theirs goes back now
        queue.discard();
        wakeAll();
        ia.statistics.retire(counters, () -> ia.evds.remove(this));
        ia.adapter.evds.decrementAndGet();
    }
}
