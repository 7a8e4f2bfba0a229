package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.shm.ShmPoller;
import java.util.function.BooleanSupplier;

/**
 * The IA's shared-memory rings as the I/O agent's duty cycle serves them ({@link IoAgent}): who
 * polls them this cycle, the spin before the doorbells are armed, and the records the agent's own
 * thread read.
 *
 * <p>Every cycle polls the rings, unless it runs on the agent's own thread while consumers poll
 * them (they did since its last look): each consumer's round covers every connection and
 * publishes the acknowledgement it owes, and an agent that polled too would race them for each
 * record and hand the records it took to their threads through the EVDs. It then looks again
 * within a lease. A cycle that found nothing spins on the rings for {@link #SPIN_NANOS} before it
 * arms their doorbells and sleeps (the peer then sends a NOP after it publishes); a cycle that saw
 * consumers poll during that spin does not arm, and looks again within a lease.
 *
 * <p>Used by whoever runs the cycle, under the agent's role.
 */
final class AgentRings {

    /**
     * How long a cycle that found nothing in the rings keeps polling them before it arms their
     * doorbells and sleeps: a peer that answers within this costs no doorbell.
     */
    static final long SPIN_NANOS = 50_000;

    private final ShmPoller rings;
    private final Thread agentThread;
    /** The longest a cycle sleeps while consumers poll, or while the peer may make room. */
    private final long leaseNanos;
    /** This cycle runs on the agent's thread while consumers poll: it leaves the rings to them. */
    private boolean leftToConsumers;
    /** This cycle armed the doorbells. */
    private boolean armed;
    /** Records the agent's own thread read, for tests and statistics. */
    private volatile long recordsOnAgentThread;

    AgentRings(ShmPoller rings, Thread agentThread, long leaseNanos) {
        this.rings = rings;
        this.agentThread = agentThread;
        this.leaseNanos = leaseNanos;
    }

    /** Whether the IA has shared-memory connections. */
    boolean any() {
        return rings.any();
    }

    /** A cycle's first look: a round, unless the rings are left to the consumers; the records read. */
    int begin() {
        leftToConsumers = Thread.currentThread() == agentThread && rings.consumersPolled();
        return leftToConsumers ? 0 : poll();
    }

    /**
     * A cycle that found nothing decides how long it may wait: the spin, then the doorbells.
     *
     * @param wait what the cycle would wait otherwise, in nanoseconds
     * @param workForCycle whether something came for the cycle itself (a command, the close)
     * @return the wait, at most {@code wait}; 0 when something came
     */
    long beforeWait(long wait, BooleanSupplier workForCycle) {
        if (leftToConsumers) {
            return Math.min(wait, leaseNanos); // look again whether they still poll
        }
        if (wait <= 0) {
            return wait;
        }
        // only polls during the spin say consumers busy-poll: a consumer that polled once and
        // then waits (a drain before dat_evd_wait) wants the doorbell
        rings.consumersPolled();
        if (spin(workForCycle)) {
            return 0;
        }
        if (rings.consumersPolled()) {
            return Math.min(wait, leaseNanos); // they move the records: look again soon
        }
        if (!rings.arm(Thread.currentThread() == agentThread)) {
            return 0;
        }
        armed = true;
        // the peer rings when it makes room too; a lease at most, should it not
        return rings.waitingForSpace() ? Math.min(wait, leaseNanos) : wait;
    }

    /** After the cycle's select: the doorbells it armed are taken back. */
    void afterWait() {
        if (armed) {
            armed = false;
            rings.disarm();
        }
    }

    /** The cycle's last look, for what a doorbell announced before the next select; the records read. */
    int end() {
        return leftToConsumers ? 0 : poll();
    }

    long recordsOnAgentThread() {
        return recordsOnAgentThread;
    }

    /** One round; the records it read, counted when the agent's own thread read them. */
    private int poll() {
        boolean byAgent = Thread.currentThread() == agentThread;
        int n = rings.poll(byAgent);
        if (n > 0 && byAgent) {
            recordsOnAgentThread += n; // the agent's thread alone writes it
        }
        return n;
    }

    /** Polls the rings for {@link #SPIN_NANOS}, or until something comes for them or for the cycle. */
    private boolean spin(BooleanSupplier workForCycle) {
        long until = System.nanoTime() + SPIN_NANOS;
        do {
            if (poll() > 0 || workForCycle.getAsBoolean()) {
                return true;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() - until < 0);
        return false;
    }
}
