package dat.provider.sim.internal.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * One single-producer, single-consumer ring of records in shared memory: a control block and
 * {@code capacity} bytes of records. Each record carries its own publication mark, as in Agrona's
 * ring buffers: the first 8 bytes of its header (length, opcode, flags; {@link ShmRecord#word}),
 * written last with one ordered store ({@code setRelease}), while a zero there means "nothing
 * yet". The consumer polls that word at its own position with {@code getAcquire}, so it finds a
 * record in the one cache line the record starts, and never reads a producer position. The
 * producer zeroes the word after each record it writes (the terminator) before it publishes, so
 * the consumer stops there until the next record is published over it, whatever an earlier lap
 * left in the ring. A batch of records is published with one ordered store: the mark of its first
 * record, written last (the records behind it carry theirs in plain stores, reached only through
 * it). The consumer publishes its position the same way, for the producer's flow control. Each
 * word has one writer, so nothing here is a CAS.
 *
 * <p>Control block (4096 bytes, in the host's byte order):
 * <pre>
 *   0  8  acknowledged        request rings: the producer side's acknowledgement of the other
 *                             direction's requests (the sequence number after the last send or
 *                             write it completed), written by the producer side
 * 128  8  consumer position   written by the consumer (128 bytes on: against the adjacent-line prefetcher)
 * </pre>
 * Positions count bytes from 0 and only grow; a record at position {@code p} lies at
 * {@code p mod capacity} and never wraps: one that does not fit before the end follows a PADDING
 * record that fills it. The producer keeps one line free behind its records for the terminator:
 * it writes up to a capacity less 64 bytes ahead of the consumer's position.
 *
 * <p>One object is one process's side of the ring: the producer's or the consumer's (the other
 * fields are unused). The peer may write anything into the shared memory, so every word read
 * is checked: the consumer's position never goes back nor passes the producer's; a record's mark
 * must describe a record within the ring's end (a PADDING one: reaching it, from past offset 0),
 * and its header is validated before use. A check that fails sets {@link #violation()}, and the
 * caller breaks the connection. Callers hold the connection's Endpoint lock (but for the look
 * whether anything is pending, which only reads), and are inside the connection's
 * {@link MappingUsers}, so the mapping stays while they read.
 */
final class Ring {

    static final long ACKNOWLEDGED = 0;
    static final long CONSUMER = 128;
    static final int CONTROL_BYTES = 4096;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    // the reasons a position or record is refused
    static final String POSITION_BACK = "a ring position went back";
    static final String CONSUMER_AHEAD = "a consumer position ahead of the producer";
    static final String RECORD_OUTSIDE = "a record mark whose length is too short or passes the ring's end";
    static final String BAD_PADDING = "a padding record that does not reach the ring's end";

    private final MemorySegment control;
    private final MemorySegment data;
    private final long capacity;
    private final long mask;
    // the producer's side
    private long tail;
    private long headSeen;
    /** The position of the first record not yet published, and its mark, withheld until {@link #publish}. */
    private long published;
    private long withheld;
    /** The mark of the record {@link #putHeader} wrote, for {@link #commit}. */
    private long header;
    // the consumer's side
    private long head;
    private long released;
    private String violation;

    /**
     * @param control the ring's control block
     * @param data its records, {@code capacity} bytes, a power of two
     */
    Ring(MemorySegment control, MemorySegment data) {
        this.control = control;
        this.data = data;
        this.capacity = data.byteSize();
        this.mask = capacity - 1;
    }

    /** The records' memory: a record at position {@code p} starts at {@link #offset}{@code (p)}. */
    MemorySegment data() {
        return data;
    }

    long capacity() {
        return capacity;
    }

    long offset(long position) {
        return position & mask;
    }

    /** Why a position or a record was refused, or {@code null}. */
    String violation() {
        return violation;
    }

    // ---------------------------------------------------------------------------------------------
    // the producer
    // ---------------------------------------------------------------------------------------------

    /**
     * Room for a record of {@code length} bytes at the producer's position, after a PADDING
     * record if it would not fit before the ring's end, and a line behind it for the terminator.
     *
     * @return the record's position, or -1 when the ring is full (or the consumer's position is
     *     invalid: see {@link #violation()})
     */
    long claim(int length) {
        long needed = ShmRecord.aligned(length);
        long at = tail & mask;
        long pad = at + needed > capacity ? capacity - at : 0;
        long room = pad + needed + ShmRecord.ALIGNMENT;
        if (tail + room - headSeen > capacity && !consumerMoved(room)) {
            return -1;
        }
        if (pad > 0) {
            mark(ShmRecord.word((int) pad, ShmRecord.PADDING, 0), pad);
        }
        return tail;
    }

    /** Reads the consumer's position; whether {@code needed} bytes are free now. */
    private boolean consumerMoved(long needed) {
        long h = (long) LONG.getAcquire(control, CONSUMER);
        if (h < headSeen) {
            violation = POSITION_BACK;
            return false;
        }
        if (h > tail) {
            violation = CONSUMER_AHEAD;
            return false;
        }
        headSeen = h;
        return tail + needed - h <= capacity;
    }

    /**
     * The record claimed at {@link #claim} is written (its header by {@link #putHeader}, then its
     * payload): the producer's position moves past it; it is published with the others of its
     * batch by {@link #publish}.
     */
    void commit(int length) {
        mark(header, ShmRecord.aligned(length));
    }

    /**
     * Ends the record at the producer's position with its mark: the terminator behind it first,
     * then the mark itself, withheld if it opens the batch.
     */
    private void mark(long word, long size) {
        long p = tail;
        data.set(ValueLayout.JAVA_LONG, (p + size) & mask, 0L);
        if (p == published) {
            withheld = word;
        } else {
            data.set(ValueLayout.JAVA_LONG, p & mask, word);
        }
        tail = p + size;
    }

    /** Writes a record header at position {@code p}, but for its mark, which {@link #commit} writes. */
    void putHeader(long p, int length, int opcode, int flags, int context, int aux, long seq, long address, long total) {
        long o = p & mask;
        MemorySegment d = data;
        header = ShmRecord.word(length, opcode, flags);
        d.set(ValueLayout.JAVA_INT, o + ShmRecord.CONTEXT, context);
        d.set(ValueLayout.JAVA_INT, o + ShmRecord.AUX, aux);
        d.set(ValueLayout.JAVA_LONG, o + ShmRecord.SEQ, seq);
        d.set(ValueLayout.JAVA_LONG, o + ShmRecord.ADDRESS, address);
        d.set(ValueLayout.JAVA_LONG, o + ShmRecord.TOTAL, total);
    }

    /** Whether records were committed and not yet published. */
    boolean unpublished() {
        return tail != published;
    }

    /** Publishes the records committed: one ordered store, the mark of the first. */
    void publish() {
        if (tail != published) {
            LONG.setRelease(data, published & mask, withheld);
            published = tail;
        }
    }

    /** Request rings: publishes this side's acknowledgement of the other direction's requests. */
    void acknowledge(long nextSeq) {
        LONG.setRelease(control, ACKNOWLEDGED, nextSeq);
    }

    /** The position up to which the producer wrote, published or not. */
    long tail() {
        return tail;
    }

    // ---------------------------------------------------------------------------------------------
    // the consumer
    // ---------------------------------------------------------------------------------------------

    /** Request rings, the consumer's side: the peer's acknowledgement of this side's requests. */
    long acknowledged() {
        return (long) LONG.getAcquire(control, ACKNOWLEDGED);
    }

    /**
     * Whether a record may be waiting: the mark at the consumer's position is not zero. One plain
     * read of the line the next record starts.
     */
    boolean pending() {
        return (long) LONG.getOpaque(data, head & mask) != 0;
    }

    /**
     * Decodes the record at the consumer's position into {@code r}, skipping PADDING.
     *
     * @return whether a whole record is there; {@code false} with {@link #violation()} set when
     *     its mark is invalid
     */
    boolean next(ShmRecord r) {
        for (;;) {
            long at = head & mask;
            long word = (long) LONG.getAcquire(data, at);
            if (word == 0) {
                return false;
            }
            int length = ShmRecord.length(word);
            int opcode = ShmRecord.opcode(word);
            if (opcode == ShmRecord.PADDING) {
                // never at offset 0: a padding there would send the consumer round the ring for ever
                if (at == 0 || length != capacity - at) {
                    violation = BAD_PADDING;
                    return false;
                }
                head += length;
                continue;
            }
            if (length < ShmRecord.HEADER_BYTES || ShmRecord.aligned(length) > capacity - at) {
                violation = RECORD_OUTSIDE;
                return false;
            }
            r.length = length;
            r.opcode = ShmRecord.reserved(word) != 0 ? -1 : opcode; // refused by validate, as an unknown opcode
            r.flags = ShmRecord.flags(word);
            r.context = data.get(ValueLayout.JAVA_INT, at + ShmRecord.CONTEXT);
            r.aux = data.get(ValueLayout.JAVA_INT, at + ShmRecord.AUX);
            r.seq = data.get(ValueLayout.JAVA_LONG, at + ShmRecord.SEQ);
            r.address = data.get(ValueLayout.JAVA_LONG, at + ShmRecord.ADDRESS);
            r.total = data.get(ValueLayout.JAVA_LONG, at + ShmRecord.TOTAL);
            return true;
        }
    }

    /** The offset in {@link #data()} of the payload of the record {@link #next} decoded. */
    long payloadOffset() {
        return (head & mask) + ShmRecord.HEADER_BYTES;
    }

    /** The record {@link #next} decoded is handled: the consumer's position moves past it (not yet released). */
    void consume(ShmRecord r) {
        head += ShmRecord.aligned(r.length);
    }

    /** The consumer's position back to 0, for the next connection of a kept file ({@link RingFile#restart}). */
    void restartConsumer() {
        LONG.setRelease(control, CONSUMER, 0L);
    }

    /**
     * Releases the records consumed to the producer: one ordered store.
     *
     * @return whether the position moved (the producer has more room)
     */
    boolean release() {
        if (head != released) {
            released = head;
            LONG.setRelease(control, CONSUMER, head);
            return true;
        }
        return false;
    }
}
