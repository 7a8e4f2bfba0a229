package dat.provider.support;

import dat.api.DatEvent;
import dat.api.EventDispatcher;

/**
 * The events of an EVD's streams other than its DTO completions (connection requests and events,
 * async errors, software events, flushes kept across a teardown), in arrival order: a ring of
 * reused {@link DatEvent}s, so that handing one out copies it and allocates nothing. A connection
 * or async event is never lost: the ring doubles when full. A software event is the consumer's,
 * whose EVD refuses it with {@code DAT_QUEUE_FULL} first (dat_evd_post_se(3DAT)), so it never makes
 * the ring grow.
 *
 * <p>Not thread-safe: the EVD's lock guards every call. {@link #size()} may be read without it (a
 * volatile count), for a look that the lock then confirms.
 */
public final class EventRing {

    private DatEvent[] events;
    private int head;
    private volatile int count;

    /** A ring of {@code capacity} events (at least one) before it first grows. */
    public EventRing(int capacity) {
        events = newEvents(Math.max(capacity, 1));
    }

    private static DatEvent[] newEvents(int n) {
        DatEvent[] ring = new DatEvent[n];
        for (int i = 0; i < n; i++) {
            ring[i] = new DatEvent();
        }
        return ring;
    }

    /** How many events are queued. */
    public int size() {
        return count;
    }

    /** How many events fit before the ring grows. */
    public int capacity() {
        return events.length;
    }

    /** Queues a copy of {@code event}, the ring doubling when full. */
    public void add(DatEvent event) {
        if (count == events.length) {
            DatEvent[] grown = newEvents(events.length * 2);
            for (int i = 0; i < count; i++) {
                grown[i].copyFrom(events[(head + i) % events.length]);
            }
            events = grown;
            head = 0;
        }
        events[(head + count) % events.length].copyFrom(event);
        count++;
    }

    /**
     * Queues a software event of {@code evd} carrying {@code pointer}, in place: no event is built to
     * be copied. The ring must have room (the EVD checked its queue length).
     *
     * @throws IllegalStateException when the ring is full
     */
    public void addSoftwareEvent(EventDispatcher evd, Object pointer) {
        if (count == events.length) {
            throw new IllegalStateException("the event ring is full: the EVD must refuse the software event first");
        }
        events[(head + count) % events.length].setSoftwareEvent(evd, pointer);
        count++;
    }

    /** Moves the oldest event into {@code into}, clearing its slot; {@code false} when none is queued. */
    public boolean take(DatEvent into) {
        if (count == 0) {
            return false;
        }
        into.copyFrom(events[head]);
        events[head].clear();
        head = (head + 1) % events.length;
        count--;
        return true;
    }
}
