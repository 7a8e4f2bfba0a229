package dat.provider.sim.internal.shm;

import dat.provider.sim.internal.core.FieldHandles;
import dat.provider.sim.internal.core.SimEvd;
import dat.provider.sim.internal.core.WaitDriver;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What a consumer waiting in dat_evd_wait(3DAT) on an EVD fed by shared-memory connections runs
 * instead of parking: it polls the IA's rings itself, on its own thread, and returns the moment its
 * EVD holds what it waits for, so that a message costs the waiting thread a few cache lines and no
 * system call; only after {@link #SPIN_NANOS} without it does it hand the wait to the I/O agent
 * ({@code agent}), whose duty cycle serves the sockets, arms the doorbells and sleeps.
 *
 * <p>The spin takes no role of the agent's: each connection's round takes its Endpoint's lock, as
 * a consumer busy-polling dat_evd_dequeue does ({@link ShmPoller#pollFromConsumer}), so the
 * agent's thread serves the sockets meanwhile as it does for such a consumer, and a doorbell it
 * armed is taken back and the agent woken ({@code agent.poll}).
 */
final class ShmDriver implements WaitDriver {

    /** How long a waiter polls the rings before it leaves the wait to the agent. */
    static final long SPIN_NANOS = 50_000;
    /** Polls between two looks at the clock. */
    private static final int POLLS_PER_CLOCK = 64;

    /** The counters below, bumped with opaque stores: a wait pays no fence for its statistics (waiters racing may lose a bump). */
    private static final VarHandle SPINS_ENDED = FieldHandles.of(MethodHandles.lookup(), ShmDriver.class, "spinsEnded", long.class);
    private static final VarHandle HANDED_OVER = FieldHandles.of(MethodHandles.lookup(), ShmDriver.class, "handedOver", long.class);

    private final ShmPoller rings;
    private final WaitDriver agent;
    /** Waits a spin ended, and those left to the agent, for tests and statistics. */
    @SuppressWarnings("unused") // through SPINS_ENDED
    private long spinsEnded;
    @SuppressWarnings("unused") // through HANDED_OVER
    private long handedOver;

    ShmDriver(ShmPoller rings, WaitDriver agent) {
        this.rings = rings;
        this.agent = agent;
    }

    /** The agent this driver hands waits to. */
    WaitDriver agent() {
        return agent;
    }

    @Override
    public boolean drive(SimEvd evd, boolean infinite, long deadline) {
        if (agent.isClosed()) {
            return false;
        }
        if (rings.any() && !Thread.currentThread().isVirtual() && spin(evd, infinite, deadline)) {
            bump(SPINS_ENDED);
            return true;
        }
        bump(HANDED_OVER);
        return agent.drive(evd, infinite, deadline);
    }

    /**
     * Polls the rings until the wait is over, the deadline, or {@link #SPIN_NANOS} without it.
     *
     * @return whether the wait is over (or the thread interrupted, or the deadline passed): the caller looks again
     */
    private boolean spin(SimEvd evd, boolean infinite, long deadline) {
        Thread me = Thread.currentThread();
        long start = System.nanoTime();
        long until = infinite || deadline - start > SPIN_NANOS ? start + SPIN_NANOS : deadline;
        for (;;) {
            for (int i = 0; i < POLLS_PER_CLOCK; i++) {
                if (evd.waitOver()) {
                    return true;
                }
                if (!agent.poll(evd)) {
                    return false; // no rings any more, or the agent closed
                }
                if (evd.waitOver()) {
                    return true;
                }
                Thread.onSpinWait();
            }
            if (me.isInterrupted()) {
                return true;
            }
            long now = System.nanoTime();
            if (now - until >= 0) {
                return !infinite && now - deadline >= 0;
            }
        }
    }

    @Override
    public boolean poll(SimEvd evd) {
        return agent.poll(evd);
    }

    @Override
    public boolean isClosed() {
        return agent.isClosed();
    }

    @Override
    public void wakeDriver() {
        agent.wakeDriver();
    }

    private void bump(VarHandle counter) {
        counter.setOpaque(this, (long) counter.getOpaque(this) + 1);
    }

    long spinsEnded() {
        return (long) SPINS_ENDED.getOpaque(this);
    }

    long handedOver() {
        return (long) HANDED_OVER.getOpaque(this);
    }
}
