package dat.tests.provider.internal;

import dat.api.ConsumerNotificationObject;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.EvdParamMask;
import dat.api.EvdParams;
import dat.api.EvdState;
import dat.api.HandleType;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An Event Dispatcher of the test provider: a bounded ring of preallocated events behind one lock,
 * with {@code dat_evd_wait} semantics (threshold, timeout, one waiter, unwaitable, disabled). When
 * its IA fails (hot swap) the events already queued stay readable and then every call answers
 * {@code DAT_INVALID_HANDLE}; a waiter with nothing left to read returns {@code DAT_ABORT}.
 */
final class TestEvd implements EventDispatcher {

    private enum State { OPEN, FAILED, CLOSED }

    static final int MAX_QLEN = 4096;

    private final TestIa ia;
    private final boolean asyncEvdOfIa;
    private final int flags;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();

    // guarded by lock
    private DatEvent[] ring;
    private int head;
    private int count;
    private State state = State.OPEN;
    private boolean enabled = true;
    private boolean waitable = true;
    private Thread waiter;
    private Object context;

    TestEvd(TestIa ia, int qlen, int flags, boolean asyncEvdOfIa) {
        this.ia = ia;
        this.flags = flags;
        this.asyncEvdOfIa = asyncEvdOfIa;
        this.ring = newRing(qlen);
    }

    private static DatEvent[] newRing(int qlen) {
        DatEvent[] events = new DatEvent[qlen];
        for (int i = 0; i < qlen; i++) {
            events[i] = new DatEvent();
        }
        return events;
    }

    TestIa ia() {
        return ia;
    }

    boolean isAsyncEvdOf(TestIa owner) {
        return asyncEvdOfIa && ia == owner;
    }

    // ---------------------------------------------------------------------------------------------
    // provider side
    // ---------------------------------------------------------------------------------------------

    /**
     * Queues an asynchronous error. The catastrophic event of a failing IA must get through, so a
     * full queue gives up its newest event for it.
     */
    void postAsyncError(int eventNumber, dat.api.DatHandle handle, int reason) {
        lock.lock();
        try {
            if (state != State.OPEN) {
                return;
            }
            if (count == ring.length) {
                count--;
            }
            ring[(head + count) % ring.length].setAsyncError(eventNumber, this, handle, reason);
            count++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The IA failed: keep the queued events readable, wake every waiter. */
    void fail() {
        lock.lock();
        try {
            if (state == State.OPEN) {
                state = State.FAILED;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Frees the EVD: waiters return {@code DAT_ABORT}, every later call {@code DAT_INVALID_HANDLE}. */
    void free() {
        lock.lock();
        try {
            state = State.CLOSED;
            for (int i = 0; i < count; i++) {
                ring[(head + i) % ring.length].clear();
            }
            count = 0;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private static int invalidHandle() {
        return DatReturn.error(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_ASYNC);
    }

    private DatException invalid() {
        return DatException.of(DatReturn.INVALID_HANDLE, DatReturn.NO_SUBTYPE, "evd",
                state == State.CLOSED ? "the EVD was freed" : "the EVD's IA failed (its provider left)");
    }

    private void checkUsable() {
        if (state != State.OPEN) {
            throw invalid();
        }
    }

    /** Moves the first event into {@code event}; the caller holds the lock and knows count > 0. */
    private void take(DatEvent event) {
        DatEvent first = ring[head];
        event.copyFrom(first);
        first.clear();
        head = (head + 1) % ring.length;
        count--;
    }

    // ---------------------------------------------------------------------------------------------
    // EventDispatcher
    // ---------------------------------------------------------------------------------------------

    @Override
    public int dequeue(DatEvent event) {
        if (event == null) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        }
        lock.lock();
        try {
            if (state == State.CLOSED) {
                return invalidHandle();
            }
            if (waiter != null) {
                return DatReturn.error(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE);
            }
            if (count == 0) {
                return state == State.FAILED ? invalidHandle() : DatReturn.error(DatReturn.QUEUE_EMPTY, DatReturn.NO_SUBTYPE);
            }
            take(event);
            event.setMoreEvents(0);
            return DatReturn.SUCCESS;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int await(long timeoutMicros, int threshold, DatEvent event) {
        if (!DatConstants.isValidTimeout(timeoutMicros)) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        }
        if (event == null) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4);
        }
        lock.lock();
        try {
            if (state == State.CLOSED || state == State.FAILED && count == 0) {
                return invalidHandle();
            }
            if (threshold < 1 || threshold > ring.length) {
                return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
            }
            if (!waitable || waiter != null) {
                return DatReturn.error(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE);
            }
            waiter = Thread.currentThread();
            try {
                long remaining = timeoutMicros == DatConstants.TIMEOUT_INFINITE ? Long.MAX_VALUE
                        : TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
                while (state == State.OPEN && waitable && !(enabled && count >= threshold)) {
                    if (remaining <= 0) {
                        event.clear();
                        event.setMoreEvents(count);
                        return DatReturn.error(DatReturn.TIMEOUT_EXPIRED, DatReturn.NO_SUBTYPE);
                    }
                    try {
                        if (remaining == Long.MAX_VALUE) {
                            changed.await();
                        } else {
                            remaining = changed.awaitNanos(remaining);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return DatReturn.error(DatReturn.INTERRUPTED_CALL, DatReturn.NO_SUBTYPE);
                    }
                }
                if (state == State.CLOSED || state == State.FAILED && count == 0) {
                    return DatReturn.error(DatReturn.ABORT, DatReturn.NO_SUBTYPE);
                }
                if (state == State.OPEN && !waitable) {
                    // dat_evd_set_unwaitable(3DAT): a blocked waiter returns DAT_INVALID_STATE
                    return DatReturn.error(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE);
                }
                take(event);
                event.setMoreEvents(count);
                return DatReturn.SUCCESS;
            } finally {
                waiter = null;
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int poll(DatEventHandler handler, int limit) {
        if (handler == null) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1);
        }
        if (limit < 0) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        }
        DatEvent event = new DatEvent(); // one per call, not per event: this provider is for tests
        int handed = 0;
        while (handed < limit) {
            int status = dequeue(event);
            if (status == DatReturn.SUCCESS) {
                handler.onEvent(event);
                handed++;
            } else if (DatReturn.typeOf(status) == DatReturn.QUEUE_EMPTY) {
                break;
            } else if (handed == 0) {
                return status;
            } else {
                break;
            }
        }
        return handed;
    }

    @Override
    public int postSoftwareEvent(Object pointer) {
        lock.lock();
        try {
            if (state != State.OPEN) {
                return invalidHandle();
            }
            if ((flags & EvdFlags.SOFTWARE) == 0) {
                return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.NO_SUBTYPE);
            }
            if (count == ring.length) {
                return DatReturn.error(DatReturn.QUEUE_FULL, DatReturn.NO_SUBTYPE);
            }
            ring[(head + count) % ring.length].setSoftwareEvent(this, pointer);
            count++;
            changed.signalAll();
            return DatReturn.SUCCESS;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public EvdParams query(int evdParamMask) {
        if (!EvdParamMask.isValid(evdParamMask)) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "evdParamMask",
                    "undefined bits 0x" + Integer.toHexString(evdParamMask));
        }
        lock.lock();
        try {
            checkUsable();
            int evdState = (enabled ? EvdState.ENABLED : EvdState.DISABLED) | (waitable ? EvdState.WAITABLE : EvdState.UNWAITABLE);
            return new EvdParams(ia, ring.length, evdState, null, flags);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void resize(int minQlen) {
        if (minQlen < 1 || minQlen > MAX_QLEN) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "minQlen",
                    minQlen + " is not in 1.." + MAX_QLEN);
        }
        lock.lock();
        try {
            checkUsable();
            if (minQlen < count) {
                throw DatException.of(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE, "minQlen",
                        count + " events are queued, more than " + minQlen);
            }
            DatEvent[] resized = newRing(minQlen);
            for (int i = 0; i < count; i++) {
                resized[i].copyFrom(ring[(head + i) % ring.length]);
            }
            ring = resized;
            head = 0;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void modifyCno(ConsumerNotificationObject cno) {
        lock.lock();
        try {
            checkUsable();
        } finally {
            lock.unlock();
        }
        if (cno != null) {
            throw DatException.of(DatReturn.NOT_IMPLEMENTED, DatReturn.NO_SUBTYPE, "cno", "the test provider has no CNOs");
        }
    }

    @Override
    public void enable() {
        setFlags(true, null);
    }

    @Override
    public void disable() {
        setFlags(false, null);
    }

    @Override
    public void setUnwaitable() {
        setFlags(null, false);
    }

    @Override
    public void clearUnwaitable() {
        setFlags(null, true);
    }

    private void setFlags(Boolean newEnabled, Boolean newWaitable) {
        lock.lock();
        try {
            checkUsable();
            if (newEnabled != null) {
                enabled = newEnabled;
            }
            if (newWaitable != null) {
                waitable = newWaitable;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public HandleType handleType() {
        lock.lock();
        try {
            if (state == State.CLOSED) {
                throw invalid();
            }
            return HandleType.EVD;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Object consumerContext() {
        lock.lock();
        try {
            checkUsable();
            return context;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void setConsumerContext(Object newContext) {
        lock.lock();
        try {
            checkUsable();
            context = newContext;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean isOpen() {
        lock.lock();
        try {
            return state == State.OPEN;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        boolean iaOpen = ia.isOpen(); // read before our lock: the IA's lock is never taken under it
        lock.lock();
        try {
            if (state == State.CLOSED) {
                return;
            }
            if (state == State.OPEN && asyncEvdOfIa && iaOpen) {
                throw DatException.of(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE, "evd",
                        "the async EVD of an open IA is freed with the IA");
            }
        } finally {
            lock.unlock();
        }
        ia.forget(this);
        free();
    }

    @Override
    public String toString() {
        return "TestEvd[" + ia.name() + (asyncEvdOfIa ? ", async" : "") + "]";
    }
}
