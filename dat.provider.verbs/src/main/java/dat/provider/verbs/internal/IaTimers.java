package dat.provider.verbs.internal;

import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * The timeouts an IA's event thread runs: the DAT connect timeouts, which rdma_cm does not know
 * (its own timers are the CM protocol's). Earliest first; the event thread's {@code poll(2)}
 * waits no longer than until the first. Not thread safe: the IA's {@code cmLock} guards it.
 */
final class IaTimers {

    /** A pending timeout. */
    static final class Timer implements Comparable<Timer> {
        private final long deadline;
        private final long sequence;
        private final Runnable action;

        private Timer(long deadline, long sequence, Runnable action) {
            this.deadline = deadline;
            this.sequence = sequence;
            this.action = action;
        }

        @Override
        public int compareTo(Timer other) {
            int byTime = Long.compare(deadline - other.deadline, 0);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private long sequence;

    /** Adds a timer that runs {@code action} {@code delayNanos} from now. */
    Timer schedule(long delayNanos, Runnable action) {
        Timer timer = new Timer(System.nanoTime() + delayNanos, sequence++, action);
        timers.add(timer);
        return timer;
    }

    /** Whether a timer is the earliest: the event thread must shorten its wait. */
    boolean isFirst(Timer timer) {
        return timers.peek() == timer;
    }

    /** Cancels a timer that has not run; {@code null} does nothing. */
    void cancel(Timer timer) {
        if (timer != null) {
            timers.remove(timer);
        }
    }

    /** The milliseconds (rounded up) until the earliest timer at {@code now}, 0 when due, -1 for none. */
    int timeoutMs(long now) {
        Timer first = timers.peek();
        if (first == null) {
            return -1;
        }
        long nanos = first.deadline - now;
        return nanos <= 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, (nanos + 999_999) / 1_000_000);
    }

    /** Runs the timers due at {@code now}; one that throws is reported and the others run. */
    void runDue(long now, Consumer<RuntimeException> failed) {
        for (Timer first = timers.peek(); first != null && first.deadline - now <= 0; first = timers.peek()) {
            timers.poll();
            try {
                first.action.run();
            } catch (RuntimeException e) {
                failed.accept(e);
            }
        }
    }

    /** Drops every timer (the IA closes). */
    void clear() {
        timers.clear();
    }
}
