package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.core.*;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;

/**
 * Reads frames from one connection's byte stream, in two steps: {@link #readHeader} assembles and
 * validates a header (from as many partial reads as the socket gives), then the caller moves the
 * payload: {@link #readPayload} into a destination (a receive buffer, a registered target
 * segment) or {@link #skipPayload} through a small fixed scratch buffer. The payload length was
 * checked against the configured maxima before the header was reported, and neither step ever
 * allocates: the read-ahead and scratch buffers are allocated once per connection.
 *
 * <p>Reads ahead: a read for a header takes whatever the socket holds, up to
 * {@link #READ_AHEAD_BYTES}, so a small message (header and payload) and the frames behind it
 * cost one system call instead of one per header and per payload; payload bytes read ahead are
 * copied to their destination, the rest of a large payload is read straight into it. A length
 * field never sizes a read: a hostile "4 GiB follow" costs at most the read-ahead buffer.
 *
 * <p>Works on blocking and non-blocking channels alike ({@link #NEED_MORE} when a non-blocking read
 * found nothing). Not thread-safe: one reader per connection, used by one thread at a time.
 */
final class TcpFrameReader {

    /** A whole valid header is in {@link #frame}; its payload is next. */
    static final int READY = 1;
    /** A non-blocking read found no bytes yet; call again when readable. */
    static final int NEED_MORE = 0;
    /** The peer closed the stream (cleanly between frames, or mid-frame: see {@link #error()}). */
    static final int EOF = -1;
    /** The header is invalid; {@link #error()} says why. The connection must be torn down. */
    static final int MALFORMED = -2;

    private static final int SCRATCH_BYTES = 16 * 1024;
    /** The read-ahead: small frames fit many times over; a large payload's copy from it stays small. */
    static final int READ_AHEAD_BYTES = 8 * 1024;

    final TcpFrame frame = new TcpFrame();
    private final TcpFrame.Limits limits;
    /** Bytes read from the channel and not consumed yet, between position and limit. */
    private final ByteBuffer readAhead = ByteBuffer.allocateDirect(READ_AHEAD_BYTES).order(ByteOrder.BIG_ENDIAN).flip();
    /** The last read into {@link #readAhead} left room: the socket held no more then. */
    private boolean drained;
    private ByteBuffer scratch;
    private long payloadLeft;
    /** The header in {@link #frame} is read and validated, and handed on unhandled ({@link #holdHeader}). */
    private boolean held;
    private String error;
    private long frames;

    TcpFrameReader(TcpFrame.Limits limits) {
        this.limits = limits;
    }

    /** Why the last read failed, or {@code null}. */
    String error() {
        return error;
    }

    /** Whether bytes read from the socket wait here, not yet taken as a frame. */
    boolean holdsBytes() {
        return readAhead.hasRemaining() || held || payloadLeft != 0;
    }

    /** Payload bytes of the current frame not read yet. */
    long payloadLeft() {
        return payloadLeft;
    }

    /** Payload bytes of the current frame that are not read ahead yet: what its handler will read from the socket. */
    long payloadOnTheSocket() {
        return payloadLeft - Math.min(payloadLeft, readAhead.remaining());
    }

    /**
     * Keeps the header just read for the next reader: its next {@link #readHeader} (or
     * {@link #nextHeader}) answers {@link #READY} with this frame again, reading nothing. A
     * consumer reading the connection hands a frame that is still arriving on so, untouched, to the
     * I/O agent.
     */
    void holdHeader() {
        held = true;
    }

    /** Whether a header is held for the next reader ({@link #holdHeader}). */
    boolean holdsHeader() {
        return held;
    }

    /** Frames whose header was read and validated. */
    long frames() {
        return frames;
    }

    /**
     * Reads (the rest of) a header. Must not be called while payload is left.
     *
     * @param ch the channel
     * @return {@link #READY}, {@link #NEED_MORE}, {@link #EOF} or {@link #MALFORMED}
     * @throws IOException when the channel fails
     */
    int readHeader(ReadableByteChannel ch) throws IOException {
        return readHeader(ch, false);
    }

    /**
     * {@link #readHeader(ReadableByteChannel)}, except that it answers {@link #NEED_MORE} without a
     * read when the header is not read ahead and the last read found the socket drained: after a
     * frame, a reader about to wait for readiness saves the read that would find nothing (the
     * wait returns at once if bytes came meanwhile).
     */
    int nextHeader(ReadableByteChannel ch) throws IOException {
        return readHeader(ch, true);
    }

    private int readHeader(ReadableByteChannel ch, boolean trustDrained) throws IOException {
        if (held) {
            held = false;
            return READY;
        }
        if (payloadLeft != 0) {
            throw new IllegalStateException("payload of " + frame + " not consumed");
        }
        while (readAhead.remaining() < TcpFrame.HEADER_BYTES) {
            if (trustDrained && drained) {
                return NEED_MORE;
            }
            int n = fill(ch);
            if (n < 0) {
                if (readAhead.hasRemaining()) {
                    error = TcpFrame.TRUNCATED;
                }
                return EOF;
            }
            if (n == 0) {
                return NEED_MORE;
            }
        }
        String reason = frame.decode(readAhead, limits); // consumes the header's bytes
        if (reason != null) {
            error = reason;
            return MALFORMED;
        }
        frames++;
        payloadLeft = frame.payloadLength;
        return READY;
    }

    /** Reads what the channel holds into the read-ahead, after the bytes not consumed yet. */
    private int fill(ReadableByteChannel ch) throws IOException {
        readAhead.compact();
        int n;
        try {
            n = ch.read(readAhead);
        } finally {
            readAhead.flip();
        }
        drained = n >= 0 && readAhead.limit() < readAhead.capacity();
        return n;
    }

    /**
     * Reads payload bytes into {@code dst}, at most its remaining and at most what the frame has
     * left.
     *
     * @param ch the channel
     * @param dst the destination
     * @return bytes read (0 when a non-blocking read found nothing), or -1 when the stream ended
     *     inside the payload (truncated frame)
     * @throws IOException when the channel fails
     */
    int readPayload(ReadableByteChannel ch, ByteBuffer dst) throws IOException {
        if (payloadLeft == 0 || !dst.hasRemaining()) {
            return 0;
        }
        if (readAhead.hasRemaining()) {
            int n = (int) Math.min(Math.min(dst.remaining(), payloadLeft), readAhead.remaining());
            int aheadLimit = readAhead.limit();
            readAhead.limit(readAhead.position() + n);
            dst.put(readAhead);
            readAhead.limit(aheadLimit);
            payloadLeft -= n;
            return n;
        }
        drained = false; // read around the read-ahead: what the socket holds after it is unknown
        int limit = dst.limit();
        if (dst.remaining() > payloadLeft) {
            dst.limit(dst.position() + (int) payloadLeft);
        }
        try {
            int n = ch.read(dst);
            if (n < 0) {
                error = "truncated payload";
                return -1;
            }
            payloadLeft -= n;
            return n;
        } finally {
            dst.limit(limit);
        }
    }

    /**
     * Reads the frame's payload fully into {@code dst} (blocking channels).
     *
     * @return {@code false} when the stream ended first
     */
    boolean readPayloadFully(ReadableByteChannel ch, ByteBuffer dst) throws IOException {
        while (dst.hasRemaining() && payloadLeft > 0) {
            if (readPayload(ch, dst) < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads and drops the rest of the frame's payload (a send no receive can hold, a response to
     * a request that was flushed), through a fixed scratch buffer.
     *
     * @return {@code true} when the payload is consumed, {@code false} when a non-blocking read
     *     found nothing yet
     * @throws Truncated when the stream ends inside the payload
     * @throws IOException when the channel fails
     */
    boolean skipPayload(ReadableByteChannel ch) throws IOException {
        if (scratch == null && payloadLeft > 0) {
            scratch = ByteBuffer.allocateDirect(SCRATCH_BYTES);
        }
        while (payloadLeft > 0) {
            scratch.clear();
            int n = readPayload(ch, scratch);
            if (n < 0) {
                throw new Truncated(error);
            }
            if (n == 0) {
                return false;
            }
        }
        return true;
    }

    /** The stream ended inside a payload that {@link #skipPayload} skipped: the peer cut the frame short. */
    static final class Truncated extends IOException {

        private static final long serialVersionUID = 1L;

        Truncated(String reason) {
            super(reason);
        }
    }
}
