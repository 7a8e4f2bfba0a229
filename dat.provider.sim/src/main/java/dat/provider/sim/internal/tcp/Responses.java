package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.core.RemoteWindow;
import dat.provider.sim.internal.core.SpinLock;

/**
 * The target side's answers to the peer's requests, in the order of the requests: ACKs of sends
 * and RDMA writes (status OK, a refusal, receiver-not-ready) and RDMA read responses (of reads
 * from a window, and the results of atomics). A fixed
 * ring of {@link #CAPACITY} slots, so a peer that sends requests without reading the answers
 * stops its own reading (the receiver pauses while the ring is full, and TCP flow control pushes
 * back) instead of growing memory.
 *
 * <p><b>Held ACKs.</b> A successful ACK is cumulative, so one not yet being written absorbs the
 * next one ({@link #add}); successful ACKs wait in the ring until the receiver has read everything
 * the socket holds, or {@link TcpFrame#ACKS_HELD_MAX} were held, or ACKs for
 * {@link TcpFrame#ACK_HELD_BYTES} of payload: one ACK for a burst of requests. While every request
 * read since the last release was {@link TcpFrame#ACK_DEFERRABLE}, a drained socket does not
 * release them: only the count, the bytes, or an ACK_REQUEST do.
 *
 * <p>Guarded by {@link #lock}: the receiver adds on the agent's thread, the output takes on the
 * agent's or an inline writer's.
 */
final class Responses {

    /** Slots of the ring. */
    static final int CAPACITY = 256;

    /** One answer (a reused slot). */
    static final class Response {
        int op;
        long seq;
        int status;
        RemoteWindow window;
        long offset;
        long length;
        boolean breakAfter;
        /** An atomic's result: the payload is {@link #value}, not bytes of a window. */
        boolean atomic;
        long value;
    }

    private final SpinLock lock = new SpinLock();
    private final Response[] ring = new Response[CAPACITY];
    private int head;
    private int count;
    /** Whether the head is being written (no later ACK merges into it). */
    private boolean headTaken;
    /** Answers ever queued (merges not counted), and taken off once written. */
    private long queued;
    private long written;
    /** {@link #queued} when this side's DISCONNECT or break was queued: those go before it. */
    private volatile long beforeEnd;
    /**
     * The receiver completed a receive and its answer is not queued yet: it must go before an end
     * this side queues meanwhile (as a receive and its send complete together in one JVM). Set and
     * read under the Endpoint's lock.
     */
    private boolean owed;
    // the held-ACK policy (the receiver's: the agent's thread)
    private int heldAcks;
    private long heldBytes;
    /** A request read since the last release was not deferrable, or an ACK_REQUEST came. */
    boolean acksDue;

    Responses() {
        for (int i = 0; i < CAPACITY; i++) {
            ring[i] = new Response();
        }
    }

    /** Whether no slot is free: the receiver does not read a frame that may need one. */
    boolean full() {
        lock.lock();
        try {
            return count == CAPACITY;
        } finally {
            lock.unlock();
        }
    }

    /** Whether any answer waits. */
    boolean any() {
        lock.lock();
        try {
            return count != 0;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Queues an answer, or merges a successful ACK into the one before it (cumulative).
     *
     * @return whether it was queued or merged ({@code false}: the ring is full, which the
     *     receiver's check before the frame rules out)
     */
    boolean add(int op, long seq, int status, RemoteWindow window, long offset, long length, boolean breakAfter) {
        lock.lock();
        try {
            return addLocked(op, seq, status, window, offset, length, breakAfter);
        } finally {
            lock.unlock();
        }
    }

    private boolean addLocked(int op, long seq, int status, RemoteWindow window, long offset, long length, boolean breakAfter) {
        owed = false;
        if (op == TcpFrame.ACK && status == TcpFrame.STATUS_OK && !breakAfter && count > (headTaken ? 1 : 0)) {
            Response tail = ring[(head + count - 1) % CAPACITY];
            if (tail.op == TcpFrame.ACK && tail.status == TcpFrame.STATUS_OK && !tail.breakAfter && tail.seq + 1 == seq) {
                tail.seq = seq; // it now acknowledges both: one frame instead of two
                return true;
            }
        }
        if (count == CAPACITY) {
            return false;
        }
        Response r = ring[(head + count) % CAPACITY];
        r.op = op;
        r.seq = seq;
        r.status = status;
        r.window = window;
        r.offset = offset;
        r.length = length;
        r.breakAfter = breakAfter;
        r.atomic = false;
        count++;
        queued++;
        return true;
    }

    /**
     * Queues the successful answer to an atomic: an RDMA read response carrying the value before
     * the operation.
     *
     * @return whether it was queued ({@code false}: the ring is full, which the receiver's check
     *     before the frame rules out)
     */
    boolean addAtomicResult(long seq, long value) {
        lock.lock();
        try {
            if (!addLocked(TcpFrame.RDMA_READ_RESPONSE, seq, TcpFrame.STATUS_OK, null, 0, TcpFrame.ATOMIC_RESULT_BYTES, false)) {
                return false;
            }
            Response r = ring[(head + count - 1) % CAPACITY];
            r.atomic = true;
            r.value = value;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A successful ACK for {@code payloadBytes} was queued (lazily): whether the held ones must go
     * now (the held maximum reached).
     */
    boolean held(long payloadBytes) {
        heldBytes += payloadBytes;
        return ++heldAcks >= TcpFrame.ACKS_HELD_MAX || heldBytes >= TcpFrame.ACK_HELD_BYTES;
    }

    /** The held ACKs go out: the policy starts over. */
    void released() {
        heldAcks = 0;
        heldBytes = 0;
        acksDue = false;
    }

    /**
     * The head answer, marked as being written (no ACK merges into it any more), or {@code null}.
     *
     * @param plainAckOnly only a bare ACK (not a read response, not a refusal)
     * @param alone only when it is the only answer queued
     */
    Response takeHead(boolean plainAckOnly, boolean alone) {
        lock.lock();
        try {
            if (count == 0 || alone && count != 1) {
                return null;
            }
            Response r = ring[head];
            if (plainAckOnly && (r.op != TcpFrame.ACK || r.breakAfter)) {
                return null;
            }
            headTaken = true;
            return r;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the head is a bare ACK. */
    boolean headIsPlainAck() {
        lock.lock();
        try {
            return count != 0 && ring[head].op == TcpFrame.ACK && !ring[head].breakAfter;
        } finally {
            lock.unlock();
        }
    }

    /** The head taken by {@link #takeHead} was written: its slot is free. */
    void headWritten() {
        lock.lock();
        try {
            ring[head].window = null;
            headTaken = false;
            head = (head + 1) % CAPACITY;
            count--;
            written++;
        } finally {
            lock.unlock();
        }
    }

    /** Whether answers queued before this side's end are still to be written. */
    boolean beforeEndPending() {
        return written < beforeEnd;
    }

    /**
     * This side queues its end (a DISCONNECT, a break's FIN): the answers queued so far, and the
     * one owed for a receive just completed, go before it. Never blocks for long.
     */
    void markEnd() {
        lock.lock();
        try {
            beforeEnd = queued + (owed ? 1 : 0);
        } finally {
            lock.unlock();
        }
    }

    /** The answer owed was written at once, not queued. */
    void paid() {
        owed = false;
    }

    /** Under the Endpoint's lock, as the receiver completes a receive: its answer follows (see {@link #owed}). */
    void owe() {
        owed = true;
    }
}
