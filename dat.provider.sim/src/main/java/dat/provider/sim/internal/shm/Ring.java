package dat.provider.sim.internal.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * One single-producer, single-consumer ring of records in shared memory, as Agrona's one-to-one
 * ring buffer: a control block and {@code capacity} bytes of records. The producer writes whole
 * records behind its position and publishes them with one ordered store of the position
 * ({@code setRelease}); the consumer reads the position with {@code getAcquire}, handles the
 * records up to it and publishes its own position the same way. Each position has one writer, so
 * nothing here is a CAS, and the two live on separate cache lines (128 bytes apart, against the
 * adjacent-line prefetcher).
 *
 * <p>Control block (4096 bytes, in the host's byte order):
 * <pre>
 *   0  8  producer position   written by the producer
 *   8  8  acknowledged        request rings: the producer side's acknowledgement of the other
 *                             direction's requests (the sequence number after the last send or
 *                             write it completed); on the producer's line, so an answer and a
 *                             request travel in one cache line
 * 128  8  consumer position   written by the consumer
 * </pre>
 * Positions count bytes from 0 and only grow; a record at position {@code p} lies at
 * {@code p mod capacity} and never wraps: one that does not fit before the end follows a PADDING
 * record that fills it.
 *
 * <p>One object is one process's side of the ring: the producer's or the consumer's (the other
 * fields are unused). The peer may write anything into the shared memory, so every position read
 * is checked (it never goes back, the producer's is never more than a capacity ahead of the
 * consumer's) and every record header validated before use; a check that fails sets
 * {@link #violation()}, and the caller breaks the connection. Callers hold the connection's
 * Endpoint lock; a ring whose mapping was closed throws {@link IllegalStateException}.
 */
final class Ring {

    static final long PRODUCER = 0;
    static final long ACKNOWLEDGED = 8;
    static final long CONSUMER = 128;
    static final int CONTROL_BYTES = 4096;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    // the reasons a position or record is refused
    static final String POSITION_BACK = "a ring position went back";
    static final String POSITION_AHEAD = "a producer position more than a capacity ahead";
    static final String CONSUMER_AHEAD = "a consumer position ahead of the producer";
    static final String RECORD_OUTSIDE = "a record beyond the published position or the ring's end";
    static final String BAD_PADDING = "a padding record that does not reach the ring's end";

    private final MemorySegment control;
    private final MemorySegment data;
    private final long capacity;
    private final long mask;
    // the producer's side
    private long tail;
    private long headSeen;
    private long published;
    // the consumer's side
    private long head;
    private long tailSeen;
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
     * record if it would not fit before the ring's end.
     *
     * @return the record's position, or -1 when the ring is full (or the consumer's position is
     *     invalid: see {@link #violation()})
     */
    long claim(int length) {
        long needed = ShmRecord.aligned(length);
        long at = tail & mask;
        long pad = at + needed > capacity ? capacity - at : 0;
        if (tail + pad + needed - headSeen > capacity && !consumerMoved(pad + needed)) {
            return -1;
        }
        if (pad > 0) {
            data.set(ValueLayout.JAVA_INT, at, (int) pad);
            data.set(ValueLayout.JAVA_BYTE, at + ShmRecord.OPCODE, (byte) ShmRecord.PADDING);
            tail += pad;
        }
        return tail;
    }

    /** Bytes a record could take now without waiting for the consumer, padding aside. */
    long free() {
        long f = capacity - (tail - headSeen);
        if (f < capacity / 2) {
            consumerMoved(capacity);
            f = capacity - (tail - headSeen);
        }
        return f;
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

    /** The record claimed at {@link #claim} is written: the producer's position moves past it (not yet published). */
    void commit(int length) {
        tail += ShmRecord.aligned(length);
    }

    /** Writes a record header at position {@code p}. */
    void putHeader(long p, int length, int opcode, int flags, int context, int aux, long seq, long address, long total) {
        long o = p & mask;
        MemorySegment d = data;
        d.set(ValueLayout.JAVA_INT, o + ShmRecord.LENGTH, length);
        d.set(ValueLayout.JAVA_BYTE, o + ShmRecord.OPCODE, (byte) opcode);
        d.set(ValueLayout.JAVA_BYTE, o + ShmRecord.FLAGS, (byte) flags);
        d.set(ValueLayout.JAVA_SHORT, o + ShmRecord.RESERVED, (short) 0);
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

    /** Publishes the records committed: one ordered store. */
    void publish() {
        if (tail != published) {
            published = tail;
            LONG.setRelease(control, PRODUCER, tail);
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
     * Whether a record may be waiting: the producer's position differs from the one last seen, or
     * records seen are not handled yet. One plain read of shared memory when idle.
     */
    boolean pending() {
        return head != tailSeen || (long) LONG.getOpaque(control, PRODUCER) != tailSeen;
    }

    /**
     * Decodes the record at the consumer's position into {@code r}, skipping PADDING.
     *
     * @return whether a whole record is there; {@code false} with {@link #violation()} set when
     *     the producer's position or the record is invalid
     */
    boolean next(ShmRecord r) {
        for (;;) {
            if (head == tailSeen && !producerMoved()) {
                return false;
            }
            long at = head & mask;
            int length = data.get(ValueLayout.JAVA_INT, at);
            int opcode = data.get(ValueLayout.JAVA_BYTE, at + ShmRecord.OPCODE) & 0xFF;
            long space = Math.min(capacity - at, tailSeen - head);
            if (opcode == ShmRecord.PADDING) {
                if (length != capacity - at || length > tailSeen - head) {
                    violation = BAD_PADDING;
                    return false;
                }
                head += length;
                continue;
            }
            if (length < ShmRecord.HEADER_BYTES || ShmRecord.aligned(length) > space) {
                violation = RECORD_OUTSIDE;
                return false;
            }
            r.length = length;
            r.opcode = opcode;
            r.flags = data.get(ValueLayout.JAVA_BYTE, at + ShmRecord.FLAGS) & 0xFF;
            short reserved = data.get(ValueLayout.JAVA_SHORT, at + ShmRecord.RESERVED);
            r.context = data.get(ValueLayout.JAVA_INT, at + ShmRecord.CONTEXT);
            r.aux = data.get(ValueLayout.JAVA_INT, at + ShmRecord.AUX);
            r.seq = data.get(ValueLayout.JAVA_LONG, at + ShmRecord.SEQ);
            r.address = data.get(ValueLayout.JAVA_LONG, at + ShmRecord.ADDRESS);
            r.total = data.get(ValueLayout.JAVA_LONG, at + ShmRecord.TOTAL);
            if (reserved != 0) {
                r.opcode = -1; // refused by validate, as an unknown opcode
            }
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

    /** Reads the producer's position; whether records came. */
    private boolean producerMoved() {
        long t = (long) LONG.getAcquire(control, PRODUCER);
        if (t == tailSeen) {
            return false;
        }
        if (t < tailSeen) {
            violation = POSITION_BACK;
            return false;
        }
        if (t - head > capacity) {
            violation = POSITION_AHEAD;
            return false;
        }
        tailSeen = t;
        return true;
    }
}
