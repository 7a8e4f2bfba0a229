package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.core.SimEvd;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.function.Consumer;

/**
 * A driving consumer's look at its IA's sockets without sleeping: selects that do not wait, again
 * and again, for {@code tcp_spin_us} before the {@link IoAgent}'s cycle sleeps in a select that
 * waits. An answer that comes within it (a ping-pong's reply, the acknowledgement a full RDMA
 * write window waits for) wakes no thread, where waking a sleeping one costs from a few to some
 * thirty microseconds on a virtual machine. The agent's own thread never spins on sockets.
 */
final class SocketSpin {

    private final long spinNanos;
    /** Spins, those that something ended, and selects made while spinning, for tests. */
    private volatile long spins;
    private volatile long answered;
    private volatile long looks;

    /**
     * @param micros how long a spin lasts at most, 0 for none
     */
    SocketSpin(long micros) {
        this.spinNanos = micros * 1_000;
    }

    boolean enabled() {
        return spinNanos > 0;
    }

    /**
     * Selects without waiting for the spin's time and at most {@code wait}, until a key was ready
     * or {@link IoAgent#spinEnds} says the driver's cycle must go on; by the role's holder only.
     *
     * @return -1 when something came, else the nanoseconds spun (the caller selects, and may sleep)
     */
    long run(Selector selector, Consumer<SelectionKey> dispatch, IoAgent agent, SimEvd driven, long wait) throws IOException {
        spins++;
        long start = System.nanoTime();
        long until = Math.min(wait, spinNanos);
        long now;
        long n = 0;
        try {
            do {
                n++;
                if (selector.selectNow(dispatch) > 0 || agent.spinEnds(driven)) {
                    answered++;
                    return -1;
                }
                Thread.onSpinWait();
                now = System.nanoTime();
            } while (now - start < until);
            return now - start;
        } finally {
            looks += n;
        }
    }

    /**
     * How long the select after a spin of {@code spunNanos} waits: what is left of
     * {@code waitNanos} in whole milliseconds, rounded up as every select's, but never past
     * {@code maxWaitNanos} (a driver's deadline, whole milliseconds) unless that is unbounded.
     *
     * @return milliseconds; 0 for a select that does not wait
     */
    static long millisAfter(long waitNanos, long spunNanos, long maxWaitNanos) {
        long rest = waitNanos - spunNanos;
        if (rest <= 0) {
            return 0;
        }
        long millis = (rest + 999_999) / 1_000_000;
        return maxWaitNanos == Long.MAX_VALUE ? millis : Math.min(millis, (maxWaitNanos - spunNanos) / 1_000_000);
    }

    long spins() {
        return spins;
    }

    long answered() {
        return answered;
    }

    long looks() {
        return looks;
    }
}
