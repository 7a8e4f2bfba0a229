package dat.provider.ofi.internal;

import dat.api.CnoParamMask;
import dat.api.CnoParams;
import dat.api.ConsumerNotificationObject;
import dat.api.DatConstants;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.HandleType;
import dat.api.WaitProxyAgent;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A CNO, in Java: attached EVDs trigger it when a completion or event arrives (the IA's event
 * thread watches the CQ of every EVD with a CNO); a waiter looks at every attached EVD before it
 * parks, and again after each wake-up, so no completion is missed.
 */
final class OfiCno extends OfiHandle implements ConsumerNotificationObject {

    private final Set<OfiEvd> attached = ConcurrentHashMap.newKeySet();
    private volatile WaitProxyAgent agent;
    private volatile Thread waiter;
    private volatile OfiEvd triggered;

    OfiCno(OfiIa ia, WaitProxyAgent agent) {
        super(ia, HandleType.CNO, DatReturn.INVALID_HANDLE_CNO);
        this.agent = agent;
        ia.cnos.add(this);
    }

    void attach(OfiEvd evd) {
        attached.add(evd);
    }

    void detach(OfiEvd evd) {
        attached.remove(evd);
        Thread w = waiter;
        if (w != null && attached.isEmpty()) {
            LockSupport.unpark(w);
        }
    }

    void trigger(OfiEvd evd) {
        triggered = evd;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
        WaitProxyAgent a = agent;
        if (a != null) {
            a.notify(evd);
        }
    }

    @Override
    public EventDispatcher await(long timeoutMicros) {
        checkOpen();
        if (!DatConstants.isValidTimeout(timeoutMicros)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "timeoutMicros", "negative");
        }
        synchronized (this) {
            if (waiter != null) {
                throw Codes.invalidState(DatReturn.INVALID_STATE_CNO_IN_USE, "another thread waits on the CNO");
            }
            waiter = Thread.currentThread();
        }
        long deadline = timeoutMicros == DatConstants.TIMEOUT_INFINITE ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
        try {
            triggered = null;
            boolean hadEvds = !attached.isEmpty();
            for (;;) {
                for (OfiEvd evd : attached) {
                    if (evd.isEnabled() && evd.hasEvents()) {
                        return evd;
                    }
                }
                OfiEvd hit = triggered;
                if (hit != null) {
                    return hit;
                }
                // null: the IA went away, or every EVD of the CNO was freed during the wait
                if (freed || !ia.isUsable() || (hadEvds && attached.isEmpty())) {
                    return null;
                }
                if (Thread.interrupted()) {
                    throw Codes.exception(DatReturn.INTERRUPTED_CALL, DatReturn.NO_SUBTYPE, null, "interrupted");
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw Codes.exception(DatReturn.QUEUE_EMPTY, DatReturn.NO_SUBTYPE, null, "no notification in time");
                }
                LockSupport.parkNanos(this, Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        } finally {
            waiter = null;
        }
    }

    @Override
    public void modifyAgent(WaitProxyAgent newAgent) {
        checkOpen();
        agent = newAgent;
    }

    @Override
    public CnoParams query(int cnoParamMask) {
        checkOpen();
        if (!CnoParamMask.isValid(cnoParamMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "cnoParamMask", "undefined bits");
        }
        return new CnoParams(ia, agent);
    }

    @Override
    public void close() {
        if (freed || !ia.isUsable()) {
            return;
        }
        if (!attached.isEmpty() || waiter != null) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_CNO_IN_USE, "an EVD is attached or a thread waits");
        }
        destroy();
    }

    void destroy() {
        freed = true;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
        ia.cnos.remove(this);
    }
}
