package dat.provider.sim.internal.core;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What a progress agent does when a duty cycle found no work, in the manner of Agrona's
 * {@code IdleStrategy}: the caller pattern is
 * {@snippet :
 * while (running) {
 *     idle.idle(agent.doWork(), nanosUntilTheNextDeadline);
 * }
 * }
 * A parked agent is woken early by {@link LockSupport#unpark(Thread)} when a command arrives.
 */
interface IdleStrategy {

    /**
     * Idles if {@code workCount} is 0, else resets any backoff; parks no longer than
     * {@code maxParkNanos}: the caller has a deadline then (a timer), so the strategy's own park
     * time bounds only how long an agent with nothing due sleeps between looks.
     *
     * @param workCount the work done in the last duty cycle
     * @param maxParkNanos the longest park, at least 1 ({@link Long#MAX_VALUE}: no deadline)
     */
    void idle(int workCount, long maxParkNanos);

    /**
     * Builds a strategy by name.
     *
     * @param name {@code busy-spin}, {@code backoff} or {@code sleeping}
     * @param sleepMicros the park time of {@code sleeping} and the longest park of {@code backoff}
     * @return the strategy
     * @throws IllegalArgumentException for an unknown name
     */
    static IdleStrategy of(String name, long sleepMicros) {
        long sleepNanos = TimeUnit.MICROSECONDS.toNanos(Math.max(1, sleepMicros));
        return switch (name) {
            case "busy-spin" -> (workCount, maxParkNanos) -> {
                if (workCount == 0) {
                    Thread.onSpinWait();
                }
            };
            case "sleeping" -> (workCount, maxParkNanos) -> {
                if (workCount == 0) {
                    LockSupport.parkNanos(Math.min(sleepNanos, maxParkNanos));
                }
            };
            case "backoff" -> new Backoff(sleepNanos);
            default -> throw new IllegalArgumentException("unknown idle strategy '" + name
                    + "': use busy-spin, backoff or sleeping");
        };
    }

    /**
     * The longest park of a strategy built by {@link #of} with {@code sleepMicros} (busy-spin
     * parks never: any bound holds for it).
     *
     * @param sleepMicros as given to {@link #of}
     * @return the longest park, in nanoseconds
     */
    static long longestParkNanos(long sleepMicros) {
        return Math.max(Backoff.MIN_PARK_NANOS, TimeUnit.MICROSECONDS.toNanos(Math.max(1, sleepMicros)));
    }

    /** Spins, then yields, then parks for exponentially longer, up to a maximum. */
    final class Backoff implements IdleStrategy {
        private static final int SPINS = 100;
        private static final int YIELDS = 20;
        private static final long MIN_PARK_NANOS = 1_000;
        private final long maxParkNanos;
        private int count;
        private long parkNanos = MIN_PARK_NANOS;

        Backoff(long maxParkNanos) {
            this.maxParkNanos = Math.max(MIN_PARK_NANOS, maxParkNanos);
        }

        @Override
        public void idle(int workCount, long maxParkNanos) {
            if (workCount > 0) {
                count = 0;
                parkNanos = MIN_PARK_NANOS;
            } else if (count < SPINS) {
                count++;
                Thread.onSpinWait();
            } else if (count < SPINS + YIELDS) {
                count++;
                Thread.yield();
            } else {
                LockSupport.parkNanos(Math.min(parkNanos, maxParkNanos));
                parkNanos = Math.min(parkNanos * 2, this.maxParkNanos);
            }
        }
    }
}
