package dat.provider.sim.internal.core;

import dat.api.CnoParamMask;
import dat.api.CnoParams;
import dat.api.ConsumerNotificationObject;
import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.HandleType;
import dat.api.WaitProxyAgent;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * A Consumer Notification Object: dat_cno_create(3DAT), dat_cno_wait(3DAT),
 * dat_cno_modify_agent(3DAT), dat_cno_query(3DAT), dat_cno_free(3DAT).
 *
 * <p>An enabled EVD without a direct waiter triggers its CNO when a notification event arrives.
 * A trigger wakes the CNO's waiters (or is kept for the next wait) and calls the wait-proxy agent,
 * if any, on the provider's conductor thread. The agent stays associated after a call (as the
 * reference implementation does; dat_cno_modify_agent(3DAT) passes "any trigger" to it). When the
 * last EVD attached is freed, or the IA is destroyed (closed abruptly, or gone with the provider),
 * the waiters and the agent are unblocked with a null EVD (dat_cno_wait(3DAT), dat_ia_close(3DAT)).
 *
 * <p>Waiters park ({@link LockSupport}) outside the monitor, each in its slot of {@link #parked},
 * and a change they wait for unparks them all: a timed wait then lasts its timeout to the
 * microsecond, where {@code Object.wait} rounds it up to a whole millisecond.
 */
final class SimCno extends SimHandle implements ConsumerNotificationObject {

    private final SimIa ia;
    private volatile WaitProxyAgent agent;
    private final Object monitor = new Object();
    // guarded by monitor
    private int attached;
    private int waiters;
    /** The waiting threads, in {@code parked[0..waiters-1]}; grown (by a waiter) only past its largest count yet. */
    private Thread[] parked = new Thread[2];
    private SimEvd pending;
    /** Bumped when the last attached EVD goes away or the CNO dies: waiters then return null. */
    private long releaseGeneration;
    /** The agent was called with a null EVD since the last attach: not again for the same release. */
    private boolean agentReleased;

    SimCno(SimIa ia, WaitProxyAgent agent) {
        super(HandleType.CNO, DatReturn.INVALID_HANDLE_CNO);
        this.ia = ia;
        this.agent = agent;
    }

    @Override
    SimIa ia() {
        return ia;
    }

    void attach() {
        synchronized (monitor) {
            attached++;
            agentReleased = false;
        }
    }

    /**
     * An EVD stops feeding the CNO.
     *
     * @param freed whether the EVD was freed (rather than moved to another CNO)
     */
    void detach(boolean freed) {
        synchronized (monitor) {
            attached--;
            if (attached == 0 && freed) {
                // dat_cno_wait(3DAT): waiters, and the agent, unblock with a null EVD when all EVDs are freed
                releaseGeneration++;
                unparkWaiters();
                releaseAgent();
            }
        }
    }

    /**
     * The OS Wait Proxy Agent, if any, is called with a null EVD, once per release, on the
     * provider's thread; with the monitor held.
     */
    private void releaseAgent() {
        WaitProxyAgent a = agent;
        if (a != null && !agentReleased) {
            agentReleased = true;
            ia.provider.conductor.submit(() -> a.notify(null));
        }
    }

    /** Wakes every waiter to look again; with the monitor held. */
    private void unparkWaiters() {
        for (int i = 0; i < waiters; i++) {
            LockSupport.unpark(parked[i]);
        }
    }

    /** An attached EVD got a notification event. */
    void trigger(SimEvd evd) {
        synchronized (monitor) {
            pending = evd;
            unparkWaiters();
        }
        WaitProxyAgent a = agent;
        if (a != null) {
            ia.provider.conductor.submit(() -> a.notify(evd));
        }
    }

    /** Wakes every waiter, and the agent, with a null EVD (IA closed or dead). */
    void wakeAll() {
        synchronized (monitor) {
            releaseGeneration++;
            unparkWaiters();
            releaseAgent();
        }
    }

    @Override
    public EventDispatcher await(long timeoutMicros) {
        checkOpen();
        if (!DatConstants.isValidTimeout(timeoutMicros)) {
            throw invalidParameter(DatReturn.INVALID_ARG2, "timeoutMicros", "bad timeout " + timeoutMicros);
        }
        boolean infinite = timeoutMicros == DatConstants.TIMEOUT_INFINITE;
        long deadline = System.nanoTime() + timeoutMicros * 1000;
        Thread me = Thread.currentThread();
        long generation;
        synchronized (monitor) {
            generation = releaseGeneration;
            if (waiters == parked.length) {
                parked = Arrays.copyOf(parked, waiters * 2);
            }
            parked[waiters++] = me; // from here on, a change unparks it: none is missed before its park
        }
        try {
            for (;;) {
                synchronized (monitor) {
                    if (pending != null) {
                        SimEvd evd = pending;
                        pending = null;
                        return evd;
                    }
                    if (releaseGeneration != generation || freed || !ia.usable()) {
                        return null;
                    }
                }
                if (me.isInterrupted()) {
                    throw DatException.of(DatReturn.INTERRUPTED_CALL, DatReturn.NO_SUBTYPE, null, "the waiting thread was interrupted");
                }
                if (infinite) {
                    LockSupport.park(this);
                } else {
                    long remaining = deadline - System.nanoTime();
                    if (remaining <= 0) {
                        // dat_cno_wait(3DAT): DAT_QUEUE_EMPTY when the timeout expired without a notification
                        throw DatException.of(DatReturn.QUEUE_EMPTY, DatReturn.NO_SUBTYPE, null, "no notification within the timeout");
                    }
                    LockSupport.parkNanos(this, remaining);
                }
            }
        } finally {
            synchronized (monitor) {
                for (int i = 0; i < waiters; i++) {
                    if (parked[i] == me) {
                        parked[i] = parked[--waiters];
                        parked[waiters] = null;
                        break;
                    }
                }
            }
        }
    }

    @Override
    public void modifyAgent(WaitProxyAgent newAgent) {
        checkOpen();
        agent = newAgent;
    }

    @Override
    public CnoParams query(int cnoParamMask) {
        checkQueryMask(CnoParamMask.isValid(cnoParamMask), "cnoParamMask", cnoParamMask);
        return new CnoParams(ia, agent);
    }

    @Override
    public void close() {
        if (freed) {
            return;
        }
        checkOpen();
        synchronized (monitor) {
            if (attached > 0 || waiters > 0) {
                throw invalidState(DatReturn.INVALID_STATE_CNO_IN_USE,
                        "the CNO is used by " + attached + " EVD(s) and " + waiters + " waiter(s) (dat_cno_free(3DAT))");
            }
            destroy(false);
        }
    }

    /**
     * Destroys the CNO: dat_cno_free, or the abrupt close of its IA ({@code iaDestroyed}), which
     * also unblocks the agent with a null EVD (dat_ia_close(3DAT)).
     */
    void destroy(boolean iaDestroyed) {
        synchronized (monitor) {
            if (freed) {
                return;
            }
            freed = true;
            releaseGeneration++;
            unparkWaiters();
            if (iaDestroyed) {
                releaseAgent();
            }
        }
        ia.cnos.remove(this);
        ia.adapter.cnos.decrementAndGet();
    }
}
