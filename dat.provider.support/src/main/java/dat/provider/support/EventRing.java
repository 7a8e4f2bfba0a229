package dat.provider.support;

import dat.api.DatEvent;
import dat.api.EventDispatcher;

/**
 * The events of an EVD's streams other than its DTO completions (connection requests and events,
 * async errors, software events, flushes kept across a teardown), in arrival order: a ring of
 * reused {@link DatEvent}s, so that handing one out copies it and allocates nothing. No event is
 * lost: the ring doubles when full. How many events the EVD takes is its queue length's business
 * (a software event beyond it is refused with {@code DAT_QUEUE_FULL}, dat_evd_post_se(3DAT)), not
 * the ring's: an EVD resized past the ring's capacity grows it as the events come.
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
        nextSlot().copyFrom(event);
        count++;
    }

    /** Queues a software event of {@code evd} carrying {@code pointer}, in place: no event is built to be copied. */
    public void addSoftwareEvent(EventDispatcher evd, Object pointer) {
        nextSlot().setSoftwareEvent(evd, pointer);
        count++;
    }

    /** The slot after the last event, the ring doubling first when full. */
    private DatEvent nextSlot() {
        if (count == events.length) {
            DatEvent[] grown = newEvents(events.length * 2);
            for (int i = 0; i < count; i++) {
                grown[i].copyFrom(events[(head + i) % events.length]);
            }
            events = grown;
            head = 0;
        }
        return events[(head + count) % events.length];
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
