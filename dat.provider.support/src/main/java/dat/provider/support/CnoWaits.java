package dat.provider.support;

import dat.api.CnoParamMask;
import dat.api.CnoParams;
import dat.api.DatConstants;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.InterfaceAdapter;
import dat.api.WaitProxyAgent;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * A CNO's state and its wait, in Java (dat_cno_wait(3DAT)): the attached EVDs, the one waiting
 * thread, the wait proxy agent, and the EVD that last triggered. Attached EVDs trigger it when a
 * completion or event arrives; a waiter asks every attached EVD whether it is ready before it
 * parks, and again after each wake-up, so no notification is missed. The provider's CNO handle
 * owns one and says when an EVD is ready and when the CNO is gone.
 *
 * @param <E> the provider's EVD type
 */
public final class CnoWaits<E extends EventDispatcher> {

    private final Set<E> attached = ConcurrentHashMap.newKeySet();
    private final Predicate<E> ready;
    private final BooleanSupplier gone;
    private volatile WaitProxyAgent agent;
    private volatile Thread waiter;
    private volatile E triggered;

    /**
     * @param agent the CNO's wait proxy agent, or null
     * @param ready whether an attached EVD has something for the waiter (called before each park)
     * @param gone whether the CNO was freed or its IA is no longer usable
     */
    public CnoWaits(WaitProxyAgent agent, Predicate<E> ready, BooleanSupplier gone) {
        this.agent = agent;
        this.ready = ready;
        this.gone = gone;
    }

    public void attach(E evd) {
        attached.add(evd);
    }

    /** Detaches an EVD; a waiter left with no EVD wakes and returns null. */
    public void detach(E evd) {
        attached.remove(evd);
        Thread w = waiter;
        if (w != null && attached.isEmpty()) {
            LockSupport.unpark(w);
        }
    }

    /**
     * An attached EVD has a notification: wake the waiter and call the agent. The agent is the
     * consumer's code, called on whichever thread completed the event (the provider's event
     * thread, or a consumer's in {@code dat_evd_post_se}): what it throws goes to that thread's
     * uncaught-exception handler and no further, so it neither stops the provider's progress nor
     * turns a data-path call into an exception.
     */
    public void trigger(E evd) {
        triggered = evd;
        wakeWaiter();
        WaitProxyAgent a = agent;
        if (a != null) {
            try {
                a.notify(evd);
            } catch (RuntimeException | Error e) {
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
            }
        }
    }

    public void wakeWaiter() {
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    public WaitProxyAgent agent() {
        return agent;
    }

    public void agent(WaitProxyAgent newAgent) {
        agent = newAgent;
    }

    /** dat_cno_query(3DAT): the CNO's parameters, once the mask is checked. */
    public CnoParams params(InterfaceAdapter ia, int cnoParamMask) {
        if (!CnoParamMask.isValid(cnoParamMask)) {
            throw ReturnCodes.invalidParameterException(DatReturn.INVALID_ARG2, "cnoParamMask", "undefined bits");
        }
        return new CnoParams(ia, agent);
    }

    /** dat_cno_free(3DAT): refused while an EVD is attached or a thread waits. */
    public void checkFree() {
        if (inUse()) {
            throw ReturnCodes.invalidState(DatReturn.INVALID_STATE_CNO_IN_USE, "an EVD is attached or a thread waits");
        }
    }

    /** Whether an EVD is attached or a thread waits: dat_cno_free refuses then. */
    public boolean inUse() {
        return !attached.isEmpty() || waiter != null;
    }

    /**
     * dat_cno_wait: the ready EVD, or null when the CNO or its IA went away or every EVD was
     * detached during the wait; {@code DAT_QUEUE_EMPTY} when the timeout expires,
     * {@code DAT_INVALID_STATE} when another thread waits, {@code DAT_INTERRUPTED_CALL}.
     */
    public E await(long timeoutMicros) {
        if (!DatConstants.isValidTimeout(timeoutMicros)) {
            throw ReturnCodes.invalidParameterException(DatReturn.INVALID_ARG2, "timeoutMicros", "negative");
        }
        synchronized (this) {
            if (waiter != null) {
                throw ReturnCodes.invalidState(DatReturn.INVALID_STATE_CNO_IN_USE, "another thread waits on the CNO");
            }
            waiter = Thread.currentThread();
        }
        long deadline = timeoutMicros == DatConstants.TIMEOUT_INFINITE ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
        try {
            triggered = null;
            boolean hadEvds = !attached.isEmpty();
            for (;;) {
                for (E evd : attached) {
                    if (ready.test(evd)) {
                        return evd;
                    }
                }
                E hit = triggered;
                if (hit != null) {
                    return hit;
                }
                if (gone.getAsBoolean() || (hadEvds && attached.isEmpty())) {
                    return null;
                }
                if (Thread.interrupted()) {
                    throw ReturnCodes.exception(DatReturn.INTERRUPTED_CALL, DatReturn.NO_SUBTYPE, null, "interrupted");
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw ReturnCodes.exception(DatReturn.QUEUE_EMPTY, DatReturn.NO_SUBTYPE, null, "no notification in time");
                }
                LockSupport.parkNanos(this, Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        } finally {
            waiter = null;
        }
    }
}
