package dat.provider.sim.internal.core;

import dat.api.DatEvent;
import dat.api.DatHandle;
import dat.api.EventNumber;
import dat.api.ext.IbExtension;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The queue of an EVD: a ring of compact event records with many producers (threads completing
 * DTOs and connection steps) and one consumer at a time. Producers serialize on their own lock;
 * consumers on another, which no producer touches; the two sides meet only in the records.
 *
 * <p><b>A record is four longs</b> of one {@code long[]}: the sequence that publishes it, the
 * cookie (a connection request's qualifier), the length, and the event number with the status (an
 * async error's reason; a DTO completion's status carries a flag for a receive of its Endpoint's
 * own ring, which the dequeue counts for the ring's posts). Two records share a cache line, and
 * the consumer only reads them: a line moves to the consumer once and comes back to a producer
 * only as an invalidation. The objects of
 * an event live in a parallel {@code Object[]} (two per record: the Endpoint, RMR, handle, service
 * point or software pointer; the SRQ, CR or private data); what a rare event needs beyond that
 * (a connection request's address, an extension completion's type and immediate data) in arrays
 * of their own, touched only by those events.
 *
 * <p>A producer fills a record and publishes it by storing its sequence number (release); the
 * consumer finds the next event by reading that sequence (acquire), never the producers' tail, and
 * frees the record by advancing {@link #head} (release). Producers read {@code head} only when
 * their cached copy says the ring is full. Neither side issues a fence per event beyond taking its
 * own lock.
 *
 * <p><b>What stays reachable.</b> A DTO completion's Endpoint is written only where the record
 * held another one, and the consumer leaves it while the Endpoint lives and feeds this EVD: a
 * producer completing one Endpoint's requests over and over then writes no reference line at all.
 * When the Endpoint stops feeding the EVD (freed, or modified to other EVDs) {@link #forget} lets
 * go of it in the records no longer queued, and the dequeue in those still queued. Every other
 * object (SRQ, RMR, CR, private data, software pointer, handle, address) is let go of as its
 * event is dequeued. Nothing here allocates per event.
 */
final class EventQueue {

    /** Longs per record: sequence, cookie, length, number and status. */
    private static final int WORDS = 4;
    private static final int SEQ = 0;
    private static final int COOKIE = 1;
    private static final int LENGTH = 2;
    private static final int KIND = 3;
    /**
     * In a DTO completion's status half of {@link #KIND}: a receive of its Endpoint's own ring
     * completed, whose slot the dequeue so counts as free ({@link EpReceives#reaped()}).
     */
    private static final long OWN_RECEIVE = 1L << 31;
    /** The most events a queue holds: its records' longs fit one array. */
    private static final int MAX_CAPACITY = 1 << 28;
    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle HEAD = FieldHandles.of(MethodHandles.lookup(), EventQueue.class, "head", long.class);
    private static final VarHandle TAIL = FieldHandles.of(MethodHandles.lookup(), EventQueue.class, "tail", long.class);
    /** {@link #notifiedTail}: opaque, so that a waiter reading it without the lock never sees a torn long. */
    private static final VarHandle NOTIFIED_TAIL = FieldHandles.of(MethodHandles.lookup(), EventQueue.class, "notifiedTail", long.class);

    private final SpinLock producers = new SpinLock();
    private final SpinLock consumers = new SpinLock();
    /** The ring; replaced (with the arrays below) only with both locks held, by {@link #resize}. */
    private Ring ring;
    // head is the consumer's, tail and the rest the producers': padding keeps them on separate lines,
    // and keeps head off the line of the object's first field, which the JVM fills with a reference
    // (the producers' lock) that every producer reads
    @SuppressWarnings("unused")
    private long g1, g2, g3, g4, g5, g6, g7;
    @SuppressWarnings("unused") // through HEAD
    private long head;
    @SuppressWarnings("unused")
    private long h1, h2, h3, h4, h5, h6, h7;
    @SuppressWarnings("unused") // through TAIL
    private long tail;
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

    /** The arrays of one ring size: {@link RingSlots} records, of which {@code capacity} may be queued. */
    private static final class Ring {
        final int capacity;
        /** The slots less one: a sequence's record is {@code sequence & mask}. */
        final int mask;
        /** The first sequence this ring held a record of: the head when {@link #resize} made it. */
        long first;
        final long[] words;
        /** Two per record: {@code refs[2i]} the event's first object, {@code refs[2i + 1]} its second. */
        final Object[] refs;
        /** A connection request's local address. */
        final InetSocketAddress[] addresses;
        /** An extension completion's type (high half) and immediate data (low half). */
        final long[] extensions;

        Ring(int capacity) {
            this.capacity = capacity;
            if (capacity > MAX_CAPACITY) {
                throw new OutOfMemoryError("an EVD queue of " + capacity + " events: its records exceed the largest array");
            }
            int slots = RingSlots.forEntries(capacity);
            mask = slots - 1;
            words = new long[slots * WORDS];
            refs = new Object[slots * 2];
            addresses = new InetSocketAddress[slots];
            extensions = new long[slots];
        }

        int index(long sequence) {
            return (int) sequence & mask;
        }
    }

    EventQueue(int qlen) {
        ring = new Ring(qlen);
    }

    int capacity() {
        return ring.capacity;
    }

    /** The events queued. */
    int count() {
        return (int) ((long) TAIL.getAcquire(this) - (long) HEAD.getAcquire(this));
    }

    // ---------------------------------------------------------------------------------------------
    // producers: claim, fill with put*, publish, unlockProducers
    // ---------------------------------------------------------------------------------------------

    /**
     * Takes the producers' lock and claims the next record. The caller fills it and calls
     * {@link #publish}, then {@link #unlockProducers}; on -1 (the ring is full) the lock is still
     * held, for the caller to decide about the loss before {@link #unlockProducers}.
     *
     * @return the record's index, or -1
     */
    int claim() {
        producers.lock();
        long t = (long) TAIL.getOpaque(this);
        Ring r = ring;
        if (t - headCache >= r.capacity) {
            headCache = (long) HEAD.getAcquire(this);
            if (t - headCache >= r.capacity) {
                return -1;
            }
        }
        return r.index(t);
    }

    /**
     * A DTO completion's fields; its Endpoint written only where the record held another.
     * {@code ownReceive}: it completes a receive of the Endpoint's own ring (not an SRQ buffer).
     */
    void putDto(int i, SimEndpoint ep, long cookie, int status, long length, SimSrq srq, boolean ownReceive) {
        Ring r = ring;
        long[] w = r.words;
        int at = i * WORDS;
        w[at + COOKIE] = cookie;
        w[at + LENGTH] = length;
        // the number follows in publish; a DTO status is a small non-negative code
        w[at + KIND] = (status & 0x7FFF_FFFFL) | (ownReceive ? OWN_RECEIVE : 0);
        Object[] refs = r.refs;
        if (refs[2 * i] != ep) {
            refs[2 * i] = ep;
        }
        if (srq != null) {
            refs[2 * i + 1] = srq;
        }
    }

    /** An extension DTO completion's type and immediate data ({@link IbExtension#IB_DTO_EVENT}). */
    void putExtension(int i, int extensionType, int immediate) {
        ring.extensions[i] = (long) extensionType << 32 | (immediate & 0xFFFF_FFFFL);
    }

    /** Any other event's fields: its objects, its cookie (qualifier) and status (reason). */
    void put(int i, Object first, Object second, long cookie, int status) {
        Ring r = ring;
        int at = i * WORDS;
        r.words[at + COOKIE] = cookie;
        r.words[at + LENGTH] = 0;
        r.words[at + KIND] = status & 0xFFFF_FFFFL;
        r.refs[2 * i] = first;
        r.refs[2 * i + 1] = second;
    }

    /** A connection request's local address. */
    void putAddress(int i, InetSocketAddress address) {
        ring.addresses[i] = address;
    }

    /**
     * Publishes the record {@link #claim} gave: its event number, then its sequence (release), so
     * the consumer that sees the sequence sees the whole record. The producers' lock stays held.
     */
    void publish(int i, int number, boolean notify) {
        long[] w = ring.words;
        int at = i * WORDS;
        w[at + KIND] |= (long) number << 32;
        long t = (long) TAIL.getOpaque(this) + 1;
        if (notify) {
            NOTIFIED_TAIL.setOpaque(this, t);
        }
        WORD.setRelease(w, at + SEQ, t);
        TAIL.setRelease(this, t);
    }

    void unlockProducers() {
        producers.unlock();
    }

    /**
     * Takes and lets go of the producers' lock: a waiter that registered itself before this call
     * either sees every event a producer published before it, or that producer (reading the
     * waiter under this lock) sees the waiter. Producers so need no fence of their own per event.
     */
    void handshake() {
        producers.lock();
        producers.unlock();
    }

    // ---------------------------------------------------------------------------------------------
    // consumers
    // ---------------------------------------------------------------------------------------------

    /** Whether no event is queued: one look at the next record, no lock. */
    boolean isEmpty() {
        long h = (long) HEAD.getOpaque(this);
        Ring r = ring;
        return (long) WORD.getAcquire(r.words, r.index(h) * WORDS + SEQ) != h + 1;
    }

    /**
     * Whether the queue holds {@code threshold} events and a notification event among them: what
     * ends a wait. The waiter alone dequeues, so once true it stays so.
     */
    boolean notified(int threshold) {
        long t = (long) TAIL.getAcquire(this); // first: the mark stored before this tail is then seen
        long h = (long) HEAD.getOpaque(this);
        return t - h >= threshold && (long) NOTIFIED_TAIL.getOpaque(this) - h > 0;
    }

    /**
     * Moves the first event into {@code event}, for the EVD {@code evd}.
     *
     * @return whether there was one
     */
    boolean take(SimEvd evd, DatEvent event) {
        SimSrq srq = null;
        consumers.lock();
        try {
            long h = (long) HEAD.getOpaque(this);
            Ring r = ring;
            int i = r.index(h);
            long[] w = r.words;
            int at = i * WORDS;
            if ((long) WORD.getAcquire(w, at + SEQ) != h + 1) {
                return false;
            }
            long kind = w[at + KIND];
            int number = (int) (kind >>> 32);
            int status = (int) kind;
            long cookie = w[at + COOKIE];
            Object[] refs = r.refs;
            Object first = refs[2 * i];
            Object second = refs[2 * i + 1];
            if (number == EventNumber.DTO_COMPLETION_EVENT || number == IbExtension.IB_DTO_EVENT) {
                SimEndpoint ep = (SimEndpoint) first;
                status &= 0x7FFF_FFFF;
                if ((kind & OWN_RECEIVE) != 0 && ep != null) {
                    ep.receives.reaped(); // after the acquire of the sequence: the slot's last reader is done with it
                }
                if (number == EventNumber.DTO_COMPLETION_EVENT) {
                    event.setDtoCompletion(evd, ep, cookie, status, w[at + LENGTH]);
                } else {
                    long x = r.extensions[i];
                    event.setExtensionDtoCompletion(number, evd, ep, cookie, status, w[at + LENGTH], (int) (x >>> 32), (int) x);
                }
                if (ep != null && (ep.freed || (ep.recvEvd != evd && ep.requestEvd != evd))) {
                    refs[2 * i] = null; // an Endpoint freed or moved elsewhere: nothing overwrites it soon
                }
                if (second != null) {
                    srq = (SimSrq) second;
                    refs[2 * i + 1] = null;
                }
            } else {
                takeOther(evd, event, r, i, number, status, cookie, first, second);
            }
            HEAD.setRelease(this, h + 1); // after the reads: a producer that sees it may reuse the record
        } finally {
            consumers.unlock();
        }
        if (srq != null) {
            srq.reaped();
        }
        return true;
    }

    /**
     * An event other than a DTO completion: into {@code event}, and the record lets go of its
     * objects now, not when it is reused, so that the EVD keeps no consumer object reachable.
     */
    private static void takeOther(SimEvd evd, DatEvent event, Ring r, int i, int number, int status, long cookie, Object first,
            Object second) {
        switch (number) {
            case EventNumber.RMR_BIND_COMPLETION_EVENT -> event.setRmrBindCompletion(evd, (SimRmr) first, cookie, status);
            case EventNumber.CONNECTION_REQUEST_EVENT -> {
                event.setConnectionRequest(evd, (DatHandle) first, r.addresses[i], cookie, (SimCr) second);
                r.addresses[i] = null;
            }
            case EventNumber.SOFTWARE_EVENT -> event.setSoftwareEvent(evd, first);
            default -> {
                if (EventNumber.isConnectionEvent(number)) {
                    event.setConnectionEvent(number, evd, (SimEndpoint) first, (byte[]) second);
                } else {
                    event.setAsyncError(number, evd, (DatHandle) first, status);
                }
            }
        }
        r.refs[2 * i] = null;
        r.refs[2 * i + 1] = null;
    }

    // ---------------------------------------------------------------------------------------------
    // control
    // ---------------------------------------------------------------------------------------------

    /**
     * The sequence from which records may hold an Endpoint that starts feeding this EVD now: the
     * head, since events of an earlier binding may still be queued. Sequences run on across
     * {@link #resize}, so this stays valid for {@link #forget}.
     */
    long bindingFrom() {
        return (long) HEAD.getAcquire(this);
    }

    /**
     * Lets go of the references to {@code ep} that records no longer queued keep (see the class
     * comment): the Endpoint, which started feeding this EVD at sequence {@code from}
     * ({@link #bindingFrom}), stopped feeding it. Events of it still queued keep it. Only the
     * records written since {@code from}, and not yet reused, can hold it: a connection that
     * completed a few DTOs into a large EVD shared by many costs its free a few records, not the ring.
     *
     * @return the records looked at
     */
    int forget(SimEndpoint ep, long from) {
        producers.lock();
        try {
            Ring r = ring;
            long h = (long) HEAD.getAcquire(this);
            long t = (long) TAIL.getOpaque(this);
            int looked = 0;
            // records below t - slots were reused, those below first never written to this ring;
            // those from h on are queued
            for (long s = Math.max(Math.max(from, r.first), t - (r.mask + 1L)); s < h; s++) {
                int i = r.index(s);
                if (r.refs[2 * i] == ep) {
                    r.refs[2 * i] = null;
                }
                looked++;
            }
            return looked;
        } finally {
            producers.unlock();
        }
    }

    /**
     * The EVD is freed: the events queued are lost (dat_evd_free(3DAT)), and what a dequeue would
     * have given back of theirs goes back now: an Endpoint's own receive slot, an SRQ buffer that
     * would otherwise count as outstanding for good. The records let go of their objects. The
     * caller marked the EVD freed first, so a producer that claims after this loses its event.
     */
    void discard() {
        List<SimSrq> buffers = new ArrayList<>();
        producers.lock();
        consumers.lock();
        try {
            Ring r = ring;
            long h = (long) HEAD.getOpaque(this);
            long t = (long) TAIL.getOpaque(this);
            for (long s = h; s < t; s++) {
                int i = r.index(s);
                long kind = r.words[i * WORDS + KIND];
                int number = (int) (kind >>> 32);
                if (number == EventNumber.DTO_COMPLETION_EVENT || number == IbExtension.IB_DTO_EVENT) {
                    SimEndpoint ep = (SimEndpoint) r.refs[2 * i];
                    if ((kind & OWN_RECEIVE) != 0 && ep != null) {
                        ep.receives.reaped();
                    }
                    if (r.refs[2 * i + 1] != null) {
                        buffers.add((SimSrq) r.refs[2 * i + 1]);
                    }
                }
                r.refs[2 * i] = null;
                r.refs[2 * i + 1] = null;
                r.addresses[i] = null;
            }
            HEAD.setRelease(this, t);
        } finally {
            consumers.unlock();
            producers.unlock();
        }
        for (SimSrq srq : buffers) {
            srq.reaped();
        }
    }

    /**
     * dat_evd_resize(3DAT): a ring of {@code qlen} records holding the queued events, each under
     * its sequence, which runs on ({@link #bindingFrom}).
     *
     * @return the events queued, or -1 when more than {@code qlen} are (nothing changed)
     */
    int resize(int qlen) {
        Ring fresh = new Ring(qlen);
        producers.lock();
        consumers.lock();
        try {
            long h = (long) HEAD.getOpaque(this);
            int n = (int) ((long) TAIL.getOpaque(this) - h);
            if (n > qlen) {
                return -1;
            }
            Ring old = ring;
            for (long s = h; s < h + n; s++) {
                int from = old.index(s);
                int to = fresh.index(s);
                System.arraycopy(old.words, from * WORDS, fresh.words, to * WORDS, WORDS);
                fresh.refs[2 * to] = old.refs[2 * from];
                fresh.refs[2 * to + 1] = old.refs[2 * from + 1];
                fresh.addresses[to] = old.addresses[from];
                fresh.extensions[to] = old.extensions[from];
            }
            fresh.first = h;
            headCache = h;
            ring = fresh; // under both locks: neither side reads it without its lock but isEmpty, which rereads
            return n;
        } finally {
            consumers.unlock();
            producers.unlock();
        }
    }
}
