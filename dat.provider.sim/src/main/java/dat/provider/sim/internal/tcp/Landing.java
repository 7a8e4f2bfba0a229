package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.core.AtomicOperand;
import dat.provider.sim.internal.core.RemoteWindow;
import dat.provider.sim.internal.core.SimLmr;
import dat.provider.sim.internal.core.Wr;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The payload of the frame the receiver reads now, on its way into memory: a send's into the
 * receive taken for it, an RDMA read response's into the read's local buffers, an RDMA write's
 * into its window, an atomic's operands or result into a scratch buffer of the connection's (then
 * applied to the window, or stored in the local buffer, as one fenced step), or nowhere (a
 * payload skipped). It lands one non-blocking read (or copy from
 * the read-ahead) at a time and goes on when the socket brings more, so it never waits.
 *
 * <p><b>Fences.</b> Each copy happens in {@link #COPYING}, entered from {@link #WAITING} after the
 * copy's checks (the LMR not freed, the window valid, the Endpoint still connected through this
 * connection), and publishes the range it writes. So a flush ({@link #abandon}), a revocation
 * ({@link #awaitCopiesThrough}) or a free ({@link #copyingInto}) waits out at most the copy in
 * progress, never the peer, and no byte lands after it.
 */
final class Landing {

    /** What {@link #advance} found. */
    static final int LANDED = 0;
    /** The socket holds no more for now: called again when it is readable. */
    static final int NEED_MORE = 1;
    /** The window was revoked or its memory freed meanwhile: refused as at the header. */
    static final int WINDOW_GONE = 2;
    /** A flush abandoned the landing, or the Endpoint disconnected: the rest is skipped. */
    static final int DROPPED = 3;
    /** The stream ended inside the payload. */
    static final int STREAM_ENDED = 4;
    /** An LMR of the destination was freed or its memory closed. */
    static final int MEMORY_GONE = 5;

    // the landing states (see the class comment)
    static final int NONE = 0;
    static final int WAITING = 1;
    static final int COPYING = 2;
    static final int ABANDONED = 3;

    /** Where the payload goes. */
    enum Kind { SKIP, RECEIVE, READ, WINDOW, SCRATCH }

    private final AtomicInteger state = new AtomicInteger();
    private final TcpFrameReader reader;
    private final MemoryView view = new MemoryView();
    private Kind kind;
    /** The receive or read whose segments the payload fills. */
    private Wr buffers;
    private int segment;
    private long left;
    private ByteBuffer dst;
    private SimLmr lmr;
    /** The window an RDMA write lands in, while {@link #state} is not NONE. */
    private volatile RemoteWindow window;
    /** The Endpoint's side that must still be connected (an RDMA write's), or {@code null}. */
    private TcpWire through;
    /** Whether the landing is into a receive (a flush then completes it), not a read's buffers. */
    private boolean intoReceive;
    // the range a copy writes now, [from, to) native addresses, 0 when none; "to" first cleared, "from" first set
    private volatile long from;
    private volatile long to;
    /** A free marked the view stale: it goes before the next landing makes a new one. */
    private volatile boolean viewStale;
    /** Where an atomic's operands (target side) or result (initiator side) land. */
    private final ByteBuffer scratch = ByteBuffer.allocate(TcpFrame.ATOMIC_PAYLOAD_BYTES);
    /** The target side of an atomic: the operand's offset in {@link #window}. */
    private long atomicOffset;
    /** The value {@link #applyAtomic} found before the operation. */
    private long previous;

    Landing(TcpFrameReader reader) {
        this.reader = reader;
    }

    /** Whether a payload is being landed or skipped. */
    boolean active() {
        return kind != null;
    }

    /** The kind of the landing in progress, or {@code null}. */
    Kind kind() {
        return kind;
    }

    /** The rest of the frame's payload is skipped. */
    void skip() {
        kind = Kind.SKIP;
    }

    /**
     * Under the Endpoint's lock: a receive (or the RDMA read at the head of the queue) is handed to
     * the receiver; its payload may land in its buffers from now on, until a flush abandons it.
     */
    void handedOver(boolean receive) {
        intoReceive = receive;
        state.setRelease(WAITING);
    }

    /**
     * Under the Endpoint's lock: the receive handed over completes now, while the receiver may
     * still skip the rest of its frame; a flush meanwhile must not complete it again.
     */
    void handedBack() {
        state.setRelease(NONE);
    }

    /** Starts landing the payload in the segments of a receive or read handed over. */
    void intoSegments(Wr into, boolean receive) {
        dropViewIfStale();
        kind = receive ? Kind.RECEIVE : Kind.READ;
        buffers = into;
        segment = 0;
        left = reader.payloadLeft();
        dst = null;
    }

    /** Starts landing an RDMA write's payload in its window, checked at the header. */
    void intoWindow(RemoteWindow w, TcpWire wire, long offset, long length) {
        dropViewIfStale();
        kind = Kind.WINDOW;
        through = wire;
        window = w;
        lmr = null;
        left = length;
        MemorySegment memory = w.windowMemory();
        dst = view.of(memory, offset, length);
        intoReceive = false;
        state.setRelease(WAITING); // publishes window and through to a flush or revocation
    }

    /**
     * Starts landing an atomic's result (initiator side): its 8 bytes into the scratch buffer,
     * then {@link #storeResult} into the atomic's local buffer, handed over as a read's is.
     */
    void intoScratch() {
        kind = Kind.SCRATCH;
        scratch.clear().limit(TcpFrame.ATOMIC_RESULT_BYTES);
    }

    /**
     * Starts landing an atomic's operands (target side), its window checked at the header:
     * {@link #applyAtomic} then applies it at {@code offset} of the window.
     */
    void atomicInto(RemoteWindow w, TcpWire wire, long offset) {
        kind = Kind.SCRATCH;
        scratch.clear().limit(TcpFrame.ATOMIC_PAYLOAD_BYTES);
        through = wire;
        window = w;
        lmr = null;
        atomicOffset = offset;
        intoReceive = false;
        state.setRelease(WAITING); // publishes window and through to a flush or revocation
    }

    /**
     * Target side, the operands landed: applies the atomic {@code op} ({@link TcpFrame#FETCH_AND_ADD}
     * or {@link TcpFrame#COMPARE_AND_SWAP}) to the window, as one fenced step; the value before it
     * is {@link #previous()}.
     *
     * @return {@link #LANDED}, {@link #DROPPED} (the Endpoint left: unanswered) or {@link #WINDOW_GONE}
     */
    int applyAtomic(int op) {
        long operand = scratch.getLong(0);
        long swap = scratch.getLong(Long.BYTES);
        if (!state.compareAndSet(WAITING, COPYING)) {
            return DROPPED;
        }
        try {
            MemorySegment memory = window.windowMemory();
            from = memory.address() + atomicOffset; // the range first, then the checks (see copy)
            to = from + Long.BYTES;
            if (!through.connected()) {
                return DROPPED;
            }
            if (!window.windowValid()) {
                return WINDOW_GONE;
            }
            previous = AtomicOperand.apply(op == TcpFrame.FETCH_AND_ADD ? Wr.Request.FETCH_AND_ADD : Wr.Request.CMP_AND_SWAP,
                    operand, swap, memory, atomicOffset);
            return LANDED;
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            return WINDOW_GONE; // the memory's arena closed
        } finally {
            to = 0;
            from = 0;
            state.compareAndSet(COPYING, WAITING);
        }
    }

    /** The value before the atomic {@link #applyAtomic} applied. */
    long previous() {
        return previous;
    }

    /**
     * Initiator side, an atomic's result landed: stores it in the 8-byte local buffer (segment 0
     * of {@code into}) as one fenced step, as a read's copy is.
     *
     * @return {@link #LANDED}, {@link #DROPPED} (a flush took the atomic) or {@link #MEMORY_GONE}
     */
    int storeResult(Wr into) {
        long value = scratch.getLong(0);
        if (!state.compareAndSet(WAITING, COPYING)) {
            return DROPPED;
        }
        try {
            SimLmr target = into.lmrs[0];
            MemorySegment memory = target.memory();
            from = memory.address() + into.offsets[0];
            to = from + Long.BYTES;
            if (target.isFreed()) {
                return MEMORY_GONE;
            }
            memory.set(ValueLayout.JAVA_LONG_UNALIGNED, into.offsets[0], value);
            return LANDED;
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            return MEMORY_GONE;
        } finally {
            to = 0;
            from = 0;
            state.compareAndSet(COPYING, WAITING);
        }
    }

    /**
     * Lands what the socket holds now.
     *
     * @return {@link #LANDED} (the payload is consumed: handled or skipped), {@link #NEED_MORE},
     *     {@link #WINDOW_GONE}, {@link #DROPPED} (the rest then skipped), {@link #STREAM_ENDED} or
     *     {@link #MEMORY_GONE}
     * @throws IOException when the channel fails
     */
    int advance(SocketChannel ch, Liveness liveness) throws IOException {
        if (kind == Kind.SKIP) {
            return skipRest(ch, liveness);
        }
        if (kind == Kind.SCRATCH) {
            return landScratch(ch, liveness);
        }
        for (;;) {
            if (kind != Kind.WINDOW && (dst == null || !dst.hasRemaining())) {
                if (left == 0 || segment == buffers.segments) {
                    return finish(ch, liveness);
                }
                lmr = buffers.lmrs[segment];
                long n = Math.min(left, buffers.lengths[segment]);
                try {
                    dst = view.of(lmr.memory(), buffers.offsets[segment], n);
                } catch (IllegalStateException | IndexOutOfBoundsException e) {
                    return MEMORY_GONE;
                }
                segment++;
                left -= n;
            }
            if (!dst.hasRemaining() || reader.payloadLeft() == 0) {
                if (kind == Kind.WINDOW) {
                    return finish(ch, liveness);
                }
                continue;
            }
            int r = copy(ch);
            if (r != LANDED) {
                return r;
            }
            liveness.read(); // proof of life mid-frame too: a frame may take longer than the timeout
        }
    }

    /** One copy into {@link #dst}, in COPYING; {@link #LANDED} when it moved bytes. */
    private int copy(SocketChannel ch) throws IOException {
        if (!state.compareAndSet(WAITING, COPYING)) {
            return dropped();
        }
        int n;
        try {
            // the range first, the checks after: a free that marked its LMR after these checks
            // finds the copy in its range (copyingInto), one that marked it before is seen here
            long address = kind == Kind.WINDOW ? window.windowMemory().address() : lmr.memory().address();
            from = address + dst.position();
            to = address + dst.limit();
            if (through != null && !through.connected()) {
                state.setRelease(WAITING);
                return dropped();
            }
            if (window != null && !window.windowValid()) {
                state.setRelease(WAITING);
                return WINDOW_GONE;
            }
            if (lmr != null && lmr.isFreed()) {
                state.setRelease(WAITING);
                return MEMORY_GONE;
            }
            n = reader.readPayload(ch, dst);
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            state.setRelease(WAITING);
            return MEMORY_GONE; // the memory's arena closed
        } catch (IOException e) {
            state.setRelease(WAITING); // the connection ends: a flush must find no copy in progress
            throw e;
        } finally {
            to = 0;
            from = 0;
        }
        // after the copy: a flush that then abandons the landing comes after it
        state.compareAndSet(COPYING, WAITING);
        if (n < 0) {
            return STREAM_ENDED;
        }
        if (n == 0) {
            return NEED_MORE;
        }
        return LANDED;
    }

    /** Reads an atomic's operands or result into the scratch buffer (memory of the connection's: no fence). */
    private int landScratch(SocketChannel ch, Liveness liveness) throws IOException {
        while (scratch.hasRemaining()) {
            int n = reader.readPayload(ch, scratch);
            if (n < 0) {
                return STREAM_ENDED;
            }
            if (n == 0) {
                return NEED_MORE;
            }
            liveness.read();
        }
        scratch.flip();
        return LANDED;
    }

    /** A flush abandoned the landing, or the Endpoint left: the rest of the payload is skipped. */
    private int dropped() {
        kind = Kind.SKIP;
        return DROPPED;
    }

    private int finish(SocketChannel ch, Liveness liveness) throws IOException {
        if (reader.payloadLeft() > 0) {
            kind = Kind.SKIP; // more payload than the destination takes: a read response of a flushed read
            return skipRest(ch, liveness);
        }
        return LANDED;
    }

    private int skipRest(SocketChannel ch, Liveness liveness) throws IOException {
        long before = reader.payloadLeft();
        try {
            return reader.skipPayload(ch) ? LANDED : NEED_MORE;
        } catch (TcpFrameReader.Truncated cut) {
            return STREAM_ENDED;
        } finally {
            if (reader.payloadLeft() != before) {
                liveness.read();
            }
        }
    }

    /** The frame is done: no landing. */
    void end() {
        kind = null;
        buffers = null;
        dst = null;
        lmr = null;
        window = null;
        through = null;
        state.setRelease(NONE);
    }

    /** Whether a flush abandoned the landing into a receive or read. */
    boolean abandoned() {
        return state.get() == ABANDONED;
    }

    /**
     * The Endpoint flushes (under its lock, this connection no longer its wire): returns once no
     * payload can land any more in the buffers of a receive or read handed to the receiver, so
     * that they may complete flushed. Waits at most for one copy in progress, never for the peer.
     *
     * @return whether the landing was into a receive (which the caller completes flushed)
     */
    boolean abandon() {
        for (int spins = 0;; spins++) {
            int s = state.get();
            if (s == NONE || s == ABANDONED) {
                return false;
            }
            if (s == WAITING && state.compareAndSet(WAITING, ABANDONED)) {
                return intoReceive;
            }
            if (s == COPYING) {
                backOff(spins);
            }
        }
    }

    /**
     * {@code w} was revoked (its {@code windowValid} is false already): returns once no copy
     * through it is in progress; copies that follow check the window first and find it gone.
     */
    void awaitCopiesThrough(RemoteWindow w) {
        for (int spins = 0; state.get() == COPYING && window == w; spins++) {
            backOff(spins);
        }
    }

    /** Whether a copy in progress writes into [start, end): what dat_lmr_free's fence waits for. */
    boolean copyingInto(long start, long end) {
        long t = to; // "to" before "from": a copy sets "from" first and clears "to" first
        long f = from;
        return state.get() == COPYING && t != 0 && f < end && start < t;
    }

    /** A free happened: the cached view goes (at once if idle, else before the next landing). */
    void viewStale() {
        viewStale = true;
    }

    /** By the role's holder, between frames (no landing uses the view). */
    void dropViewIfStale() {
        if (viewStale && kind == null) {
            viewStale = false;
            view.forget();
        }
    }

    /**
     * A wait for another thread's copy or write call in progress (one system call at most): spins
     * a little, then parks 10 us at a time.
     */
    static void backOff(int spins) {
        if (spins < 100) {
            Thread.onSpinWait();
        } else {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000);
        }
    }
}
