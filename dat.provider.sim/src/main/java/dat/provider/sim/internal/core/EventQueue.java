package dat.provider.sim.internal.core;

import dat.api.DatEvent;
import dat.api.DatHandle;
import dat.api.EventNumber;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;

/**
 * The queue of an EVD: a ring of pre-allocated event slots with many producers (threads completing
 * DTOs and connection steps) and one consumer at a time. Producers serialize on their own lock;
 * consumers on another, which no producer touches; the two sides meet only in the slots.
 *
 * <p>A producer fills a slot and publishes it by storing its sequence number (release); the
 * consumer finds the next event by reading that slot's sequence (acquire), never the producers'
 * tail, and frees the slot by advancing {@link #head}. Producers read {@code head} only when
 * their cached copy says the ring is full. So a busy-polling consumer reads only the cache line
 * a producer wrote for it, and a producer does not wait for the consumer's line per event.
 * Nothing here allocates per event.
 */
final class EventQueue {

    /** One queued event: the fields of every event kind, reused. */
    static final class Slot {
        int number;
        boolean notify;
        SimEndpoint ep;
        long cookie;
        int status;
        long length;
        SimRmr rmr;
        DatHandle sp;
        InetSocketAddress address;
        long qual;
        SimCr cr;
        byte[] privateData;
        DatHandle handle;
        int reason;
        Object pointer;
        SimSrq srq;
        /** The completion type of an extension DTO completion ({@link dat.api.ext.IbExtension}); the immediate data. */
        int extensionType;
        int immediate;
        /** The tail just past this slot's event once published: the consumer's sign that it is there. */
        @SuppressWarnings("unused") // through SEQUENCE
        private long sequence;

        void clear() {
            ep = null;
            rmr = null;
            sp = null;
            address = null;
            cr = null;
            privateData = null;
            handle = null;
            pointer = null;
            srq = null;
        }
    }

    private static final VarHandle SEQUENCE = FieldHandles.of(MethodHandles.lookup(), Slot.class, "sequence", long.class);
    /** {@link #notifiedTail}: opaque, so that a waiter reading it without the lock never sees a torn long. */
    private static final VarHandle NOTIFIED_TAIL = FieldHandles.of(MethodHandles.lookup(), EventQueue.class, "notifiedTail", long.class);

    private final SpinLock producers = new SpinLock();
    private final SpinLock consumers = new SpinLock();
    private Slot[] slots;
    // head is the consumer's, tail and the rest the producers': padding keeps them on separate lines
    private volatile long head;
    @SuppressWarnings("unused")
    private long h1, h2, h3, h4, h5, h6, h7;
    private volatile long tail;
    /** The producers' copy of {@link #head}, read again only when it says the ring is full. */
    private long headCache;
    /**
     * The tail just past the last notification event published (0: none yet): the queue holds one
     * while it is above head. A waiter's wait ends only on one (dat_evd_wait(3DAT)).
     */
    @SuppressWarnings("unused") // through NOTIFIED_TAIL
    private long notifiedTail;
    @SuppressWarnings("unused")
    private long t1, t2, t3, t4, t5, t6;

    EventQueue(int qlen) {
        slots = newSlots(qlen);
    }

    private static Slot[] newSlots(int qlen) {
        Slot[] s = new Slot[qlen];
        for (int i = 0; i < qlen; i++) {
            s[i] = new Slot();
        }
        return s;
    }

    int capacity() {
        return slots.length;
    }

    /** The events queued. */
    int count() {
        return (int) (tail - head);
    }

    // ---------------------------------------------------------------------------------------------
    // producers
    // ---------------------------------------------------------------------------------------------

    /**
     * Takes the producers' lock and claims the next slot. The caller fills it and calls
     * {@link #publish}; on {@code null} (the ring is full) the lock is still held, for the caller
     * to decide about the loss before {@link #unlockProducers}.
     */
    Slot claim() {
        producers.lock();
        long t = tail;
        Slot[] ring = slots;
        if (t - headCache >= ring.length) {
            headCache = head;
            if (t - headCache >= ring.length) {
                return null;
            }
        }
        Slot s = ring[(int) (t % ring.length)];
        s.clear();
        return s;
    }

    /** Publishes the slot {@link #claim} gave and lets go of the producers' lock. */
    void publish(Slot s, int number, boolean notify) {
        s.number = number;
        s.notify = notify;
        long t = tail + 1;
        if (notify) {
            NOTIFIED_TAIL.setOpaque(this, t);
        }
        SEQUENCE.setRelease(s, t);
        tail = t;
        producers.unlock();
    }

    void unlockProducers() {
        producers.unlock();
    }

    // ---------------------------------------------------------------------------------------------
    // consumers
    // ---------------------------------------------------------------------------------------------

    /** Whether no event is queued: one look at the next slot, no lock. */
    boolean isEmpty() {
        long h = head;
        Slot[] ring = slots;
        return (long) SEQUENCE.getAcquire(ring[(int) (h % ring.length)]) != h + 1;
    }

    /**
     * Whether the queue holds {@code threshold} events and a notification event among them: what
     * ends a wait. The waiter alone dequeues, so once true it stays so.
     */
    boolean notified(int threshold) {
        long t = tail; // first: the mark stored before this tail is then seen
        long h = head;
        return t - h >= threshold && (long) NOTIFIED_TAIL.getOpaque(this) - h > 0;
    }

    /**
     * Moves the first event into {@code event}, for the EVD {@code evd}.
     *
     * @return whether there was one
     */
    boolean take(SimEvd evd, DatEvent event) {
        SimSrq srq;
        consumers.lock();
        try {
            long h = head;
            Slot[] ring = slots;
            Slot s = ring[(int) (h % ring.length)];
            if ((long) SEQUENCE.getAcquire(s) != h + 1) {
                return false;
            }
            switch (s.number) {
                case EventNumber.DTO_COMPLETION_EVENT -> event.setDtoCompletion(evd, s.ep, s.cookie, s.status, s.length);
                case dat.api.ext.IbExtension.IB_DTO_EVENT -> event.setExtensionDtoCompletion(s.number, evd, s.ep, s.cookie, s.status,
                        s.length, s.extensionType, s.immediate);
                case EventNumber.RMR_BIND_COMPLETION_EVENT -> event.setRmrBindCompletion(evd, s.rmr, s.cookie, s.status);
                case EventNumber.CONNECTION_REQUEST_EVENT -> event.setConnectionRequest(evd, s.sp, s.address, s.qual, s.cr);
                case EventNumber.SOFTWARE_EVENT -> event.setSoftwareEvent(evd, s.pointer);
                default -> {
                    if (EventNumber.isConnectionEvent(s.number)) {
                        event.setConnectionEvent(s.number, evd, s.ep, s.privateData);
                    } else {
                        event.setAsyncError(s.number, evd, s.handle, s.reason);
                    }
                }
            }
            srq = s.srq;
            // the slot lets go of the event's objects now, not when it is reused: an EVD would
            // otherwise keep up to its queue length of closed Endpoints (and their connections'
            // buffers) and consumer objects reachable
            s.clear();
            head = h + 1; // after the reads: a producer that sees it may reuse the slot
        } finally {
            consumers.unlock();
        }
        if (srq != null) {
            srq.reaped();
        }
        return true;
    }

    // ---------------------------------------------------------------------------------------------
    // control
    // ---------------------------------------------------------------------------------------------

    /**
     * dat_evd_resize(3DAT): a ring of {@code qlen} slots with the queued events moved to its front.
     *
     * @return the events queued, or -1 when more than {@code qlen} are (nothing changed)
     */
    int resize(int qlen) {
        Slot[] fresh = newSlots(qlen);
        producers.lock();
        consumers.lock();
        try {
            int n = count();
            if (n > qlen) {
                return -1;
            }
            long h = head;
            Slot[] ring = slots;
            for (int i = 0; i < n; i++) {
                Slot s = ring[(int) ((h + i) % ring.length)];
                SEQUENCE.setRelease(s, (long) (i + 1)); // queued events move to 0..n-1
                fresh[i] = s;
            }
            slots = fresh;
            long notifiedAt = (long) NOTIFIED_TAIL.getOpaque(this) - h;
            NOTIFIED_TAIL.setOpaque(this, notifiedAt > 0 ? notifiedAt : 0);
            headCache = 0;
            head = 0;
            tail = n;
            return n;
        } finally {
            consumers.unlock();
            producers.unlock();
        }
    }
}
