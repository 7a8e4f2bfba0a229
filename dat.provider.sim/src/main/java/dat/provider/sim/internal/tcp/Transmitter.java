package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.core.SimLmr;
import dat.provider.sim.internal.core.Wr;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;

/**
 * The initiator side's requests on their way out: the Endpoint's queued requests gathered into
 * one gathering write (a batch) of up to {@link #BATCH_FRAMES} frames, headers from buffers of
 * the connection's and payloads from views of the consumer's memory, not copied. A pipeline of
 * small frames costs one system call, and one wake-up of the peer, per batch; a batch the socket
 * does not take at once goes on when it is writable. Used under the output's lock.
 *
 * <p><b>Fences.</b> The ranges of consumer memory a batch sends from stay published until it is
 * written ({@link #sendsFrom}): dat_lmr_free waits for them. Each write call runs with
 * {@link #writingRequests} set after the Endpoint was found still connected through this
 * connection, so a flush ({@link #awaitWriteCall}) waits out at most that call, and no byte of a
 * request goes out once the request completed flushed.
 */
final class Transmitter {

    /** The most frames one gathering write carries. */
    static final int BATCH_FRAMES = 16;
    /**
     * The payload bytes after which a batch takes no further frame. Large: beyond the copy, a stream
     * of large frames costs what each write costs, so a few frames per write beat one.
     */
    static final long BATCH_BYTES = 16L << 20;
    /** The buffers (headers and payload segments) of one gathering write, when max_iov is smaller. */
    private static final int BATCH_BUFFERS = 64;

    /** What {@link #write} found. */
    static final int DONE = 0;
    static final int BLOCKED = 1;
    /** Between two frames, with ACKs due: the caller writes them, then the batch goes on. */
    static final int ACKS_DUE = 2;

    private Wr.Request[] batch;
    /** The scratch request of an inline write. */
    private Wr.Request inline;
    // the range an inline write copies from now, [from, to), 0 when none
    private volatile long inlineFrom;
    private volatile long inlineTo;
    private ByteBuffer[] headers;
    /** An atomic's operands, per frame of the batch (its payload is not consumer memory). */
    private ByteBuffer[] operands;
    private long[] seqs;
    private ByteBuffer[] gather;
    private int[] frameOf;
    private MemoryView[] views;
    /**
     * The ranges [from, to) of the batch, one pair per gathered buffer (empty for a header), of
     * which the first {@link #rangeCount} are live: a pair is set before the count is raised past
     * it, and the count lowered to 0 after the batch, so a fence that reads a stale or newer pair
     * reads one whose bytes were done with, or not yet touched (the writer then finds the LMR freed).
     */
    private AtomicLongArray ranges;
    private volatile int rangeCount;
    private int frames;
    private int buffers;
    private int first;
    /** The request whose memory went away while the batch was gathered, -1 when none. */
    private long gone = -1;
    /** A write call reads the memory of requests now (see the class comment). */
    private volatile boolean writingRequests;
    /** The most frames one batch carried, for tests and statistics. */
    private volatile int largestBatch;

    /** Allocates the scratch requests and gathering arrays for requests of {@code iov} segments. */
    void allocate(int iov) {
        Wr.Request[] requests = new Wr.Request[BATCH_FRAMES];
        for (int i = 0; i < BATCH_FRAMES; i++) {
            requests[i] = new Wr.Request(iov);
        }
        if (headers == null) {
            headers = new ByteBuffer[BATCH_FRAMES];
            ByteBuffer all = ByteBuffer.allocateDirect(BATCH_FRAMES * TcpFrame.HEADER_BYTES);
            for (int i = 0; i < BATCH_FRAMES; i++) {
                headers[i] = all.slice(i * TcpFrame.HEADER_BYTES, TcpFrame.HEADER_BYTES).order(ByteOrder.BIG_ENDIAN);
            }
            seqs = new long[BATCH_FRAMES];
            operands = new ByteBuffer[BATCH_FRAMES];
            ByteBuffer allOperands = ByteBuffer.allocateDirect(BATCH_FRAMES * TcpFrame.ATOMIC_PAYLOAD_BYTES);
            for (int i = 0; i < BATCH_FRAMES; i++) {
                operands[i] = allOperands.slice(i * TcpFrame.ATOMIC_PAYLOAD_BYTES, TcpFrame.ATOMIC_PAYLOAD_BYTES)
                        .order(ByteOrder.BIG_ENDIAN);
            }
        }
        int n = Math.max(BATCH_BUFFERS, iov + 1);
        if (gather == null || gather.length < n) {
            MemoryView[] v = new MemoryView[n];
            for (int i = 0; i < n; i++) {
                v[i] = new MemoryView();
            }
            gather = new ByteBuffer[n];
            frameOf = new int[n];
            ranges = new AtomicLongArray(2 * n);
            views = v;
        }
        batch = requests;
        inline = new Wr.Request(iov);
    }

    /** The scratch request an inline writer takes its request into (under the output's lock). */
    Wr.Request inlineRequest() {
        return inline;
    }

    /**
     * An inline writer's view of [offset, offset + length) of {@code lmr}, its range published for
     * dat_lmr_free's fence before the LMR is checked ({@link #clearInline} after the copy).
     *
     * @throws IllegalStateException when the LMR is freed or its memory gone
     */
    ByteBuffer publishedInline(MemoryView view, SimLmr lmr, long offset, long length) {
        MemorySegment memory = lmr.memory();
        ByteBuffer source = view.of(memory, offset, length);
        inlineFrom = memory.address() + offset;
        inlineTo = memory.address() + offset + length;
        if (lmr.isFreed()) {
            throw new IllegalStateException("the LMR was freed");
        }
        return source;
    }

    void clearInline() {
        inlineTo = 0;
        inlineFrom = 0;
    }

    /** Whether a batch is being written, or a request whose memory went away waits to be reported by {@link #write}. */
    boolean inProgress() {
        return first < buffers || gone >= 0;
    }

    int largestBatch() {
        return largestBatch;
    }

    /**
     * Gathers the Endpoint's next requests into a batch. An RNR rewind while it gathers ends the
     * batch, so the refused send waits for its backoff.
     *
     * @return whether a batch is ready to write
     */
    boolean gather(TcpWire wire, RnrBackoff backoff) {
        int n = 0;
        int b = 0;
        long bytes = 0;
        for (;;) {
            Wr.Request r = batch[n];
            if (n > 0 && backoff.active()) {
                break; // the target refused a send meanwhile: what comes again waits for the backoff
            }
            long seq = n == 0 ? wire.nextTransmit(r) : wire.nextTransmit(r, gather.length - b - 1, BATCH_BYTES - bytes);
            if (seq < 0) {
                break;
            }
            seqs[n] = seq;
            ByteBuffer header = headers[n];
            encode(header, r, seq);
            // a header moves no consumer memory: its range is empty, so that a fence never waits
            // for the range an earlier batch's payload left in the slot
            ranges.set(2 * b, 0);
            ranges.set(2 * b + 1, 0);
            frameOf[b] = n;
            gather[b++] = header;
            n++;
            if (r.atomic()) {
                ranges.set(2 * b, 0);
                ranges.set(2 * b + 1, 0);
                frameOf[b] = n - 1;
                gather[b++] = putOperands(operands[n - 1], r);
            } else if (r.op != Wr.Request.RDMA_READ) {
                int before = b;
                try {
                    for (int i = 0; i < r.segments; i++) {
                        frameOf[b] = n - 1;
                        gather[b] = published(b, r.lmrs[i], r.offsets[i], r.lengths[i]);
                        b++;
                        bytes += r.lengths[i];
                    }
                } catch (IllegalStateException | IndexOutOfBoundsException x) {
                    // this frame cannot be sent: the ones gathered before it go, then the connection breaks
                    gone = seq;
                    n--;
                    for (int i = before - 1; i < b; i++) {
                        gather[i] = null;
                    }
                    b = before - 1;
                    break;
                }
            }
            if (n == batch.length || bytes >= BATCH_BYTES || b >= gather.length - 1) {
                break;
            }
        }
        frames = n;
        buffers = b;
        first = 0;
        if (n > largestBatch) {
            largestBatch = n;
        }
        if (b == 0 && gone < 0) {
            finish();
            return false;
        }
        return true; // a batch, or a request whose memory went away before any frame: write() reports it
    }

    /**
     * Writes what the socket takes of the batch. Once ACKs are due ({@code acksDue}, asked before
     * each write call: they may fall due while a batch the socket takes as fast as it comes is
     * written), only to the end of the current frame, so they go out after it and not after the
     * whole batch (the peer's window waits for them).
     *
     * @return {@link #DONE}, {@link #BLOCKED} or {@link #ACKS_DUE}
     * @throws IOException when the channel fails, or a request's memory went away (after that
     *     request was marked to complete LOCAL_PROTECTION): the connection breaks
     */
    int write(SocketChannel ch, TcpWire wire, Liveness liveness, BooleanSupplier acksDue) throws IOException {
        while (first < buffers) {
            boolean due = acksDue.getAsBoolean();
            int end = due ? endOfFrame(first) : buffers;
            long written;
            writingRequests = true;
            try {
                // after the volatile store: a flush that looks later waits for this call
                // (awaitWriteCall), and one that came before is seen here
                if (!wire.connected()) {
                    if (startsFrame(first)) {
                        finish(); // the requests left were completed FLUSHED: none of them goes
                        return DONE;
                    }
                    // a frame begun cannot be taken back, and its memory is the consumer's again
                    throw new IOException("the Endpoint disconnected in the middle of a frame");
                }
                written = ch.write(gather, first, end - first);
            } catch (IllegalStateException | IndexOutOfBoundsException x) {
                // the write call is over: said before the Endpoint's lock is taken, for a flush may
                // hold that lock while it waits for the call to end (awaitWriteCall)
                writingRequests = false;
                long seq = seqs[frameWithMemoryGone(frameOf[first], frameOf[end - 1])];
                finish();
                throw localMemoryGone(wire, seq);
            } finally {
                writingRequests = false;
            }
            if (written == 0) {
                return BLOCKED;
            }
            liveness.progressed();
            while (first < buffers && !gather[first].hasRemaining()) {
                first++;
            }
            if (first < buffers && first == end && due) {
                return ACKS_DUE;
            }
        }
        long lost = gone;
        finish();
        if (lost >= 0) {
            throw localMemoryGone(wire, lost);
        }
        return DONE;
    }

    /** The batch is over: its buffers, ranges and references to LMRs go. */
    private void finish() {
        for (int i = 0; i < buffers; i++) {
            gather[i] = null;
        }
        rangeCount = 0;
        for (int i = 0; i <= frames && i < batch.length; i++) {
            batch[i].release();
        }
        frames = 0;
        buffers = 0;
        first = 0;
        gone = -1;
    }

    /** The connection ends: a batch in progress goes (its requests are flushed by the Endpoint). */
    void abandon() {
        if (gather != null) {
            finish();
        }
    }

    /** Whether gathered buffer {@code b} is a frame's header with nothing of the frame written yet. */
    private boolean startsFrame(int b) {
        return (b == 0 || frameOf[b - 1] != frameOf[b]) && gather[b].position() == 0;
    }

    /** The gathered buffer after the last one of the frame that buffer {@code from} belongs to. */
    private int endOfFrame(int from) {
        int frame = frameOf[from];
        int end = from + 1;
        while (end < buffers && frameOf[end] == frame) {
            end++;
        }
        return end;
    }

    /**
     * The first frame in [{@code from}, {@code to}] whose local memory went away (its arena
     * closed, its LMR freed): the request that completes with LOCAL_PROTECTION, as in one JVM;
     * {@code from} when none is found.
     */
    private int frameWithMemoryGone(int from, int to) {
        for (int f = from; f <= to; f++) {
            Wr.Request r = batch[f];
            if (r.readsRemote()) {
                continue; // sends nothing from its local memory
            }
            for (int i = 0; i < r.segments; i++) {
                SimLmr lmr = r.lmrs[i];
                if (lmr.isFreed() || !lmr.memory().scope().isAlive()) {
                    return f;
                }
            }
        }
        return from;
    }

    /**
     * A request's local memory went away while it was transmitted: the frame cannot be finished,
     * so the connection breaks, and that request completes with {@code DAT_DTO_ERR_LOCAL_PROTECTION}
     * as in one JVM (the ones behind it flushed).
     */
    static IOException localMemoryGone(TcpWire wire, long seq) {
        wire.localMemoryGone(seq);
        return new IOException("the local memory of request " + seq + " went away while it was transmitted");
    }

    /**
     * A view of [offset, offset + length) of {@code lmr} for gathered buffer {@code index}, its
     * range published for dat_lmr_free's fence before the LMR is checked.
     *
     * @throws IllegalStateException when the LMR is freed or its memory gone
     */
    private ByteBuffer published(int index, SimLmr lmr, long offset, long length) {
        MemorySegment memory = lmr.memory();
        ByteBuffer source = views[index].of(memory, offset, length);
        long from = memory.address() + offset;
        ranges.set(2 * index, from);
        ranges.set(2 * index + 1, from + length);
        if (rangeCount <= index) {
            rangeCount = index + 1;
        }
        if (lmr.isFreed()) {
            throw new IllegalStateException("the LMR was freed");
        }
        return source;
    }

    /** Whether a range of the batch overlaps [start, end): what dat_lmr_free's fence waits for. */
    boolean sendsFrom(long start, long end) {
        long t = inlineTo; // "to" before "from": set "from" first, cleared "to" first
        long f = inlineFrom;
        if (t != 0 && f < end && start < t) {
            return true;
        }
        int n = rangeCount; // first: it was raised after the array was set
        AtomicLongArray r = ranges;
        if (n == 0 || r == null) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            long to = r.get(2 * i + 1);
            if (to != 0 && r.get(2 * i) < end && start < to) {
                return true;
            }
        }
        return false;
    }

    /**
     * The Endpoint flushes its requests (under its lock, this connection no longer its wire):
     * returns once no write call reads their memory, waiting out at most one non-blocking write.
     */
    void awaitWriteCall() {
        for (int spins = 0; writingRequests; spins++) {
            Landing.backOff(spins);
        }
    }

    /** Under the output's lock, no batch in progress: the cached views of consumer memory go. */
    void forgetViews() {
        if (views != null) {
            for (MemoryView v : views) {
                v.forget();
            }
        }
    }

    /** An atomic's payload, its two operands, into {@code into}, ready to write. */
    static ByteBuffer putOperands(ByteBuffer into, Wr.Request r) {
        return into.clear().putLong(r.operand).putLong(r.swap).flip();
    }

    /** The header of request {@code r} into {@code header}, ready to write. */
    static void encode(ByteBuffer header, Wr.Request r, long seq) {
        header.clear();
        int deferrable = r.ackDeferrable ? TcpFrame.ACK_DEFERRABLE : 0;
        switch (r.op) {
            case Wr.Request.SEND -> TcpFrame.encode(header, TcpFrame.SEND, r.total, 0,
                    ((r.flags & dat.api.CompletionFlags.SOLICITED_WAIT) != 0 ? TcpFrame.SOLICITED : 0) | deferrable, seq, 0);
            case Wr.Request.RDMA_WRITE -> TcpFrame.encode(header, TcpFrame.RDMA_WRITE, r.total, r.remoteContext, deferrable, seq,
                    r.remoteAddress);
            case Wr.Request.WRITE_IMMEDIATE -> TcpFrame.encode(header, (r.flags & dat.api.CompletionFlags.SOLICITED_WAIT) != 0
                    ? TcpFrame.RDMA_WRITE_IMMEDIATE_SOLICITED : TcpFrame.RDMA_WRITE_IMMEDIATE, r.total, r.remoteContext,
                    r.immediate, seq, r.remoteAddress);
            case Wr.Request.FETCH_AND_ADD, Wr.Request.CMP_AND_SWAP -> TcpFrame.encode(header, TcpFrame.ATOMIC_REQUEST,
                    TcpFrame.ATOMIC_PAYLOAD_BYTES, r.remoteContext,
                    r.op == Wr.Request.FETCH_AND_ADD ? TcpFrame.FETCH_AND_ADD : TcpFrame.COMPARE_AND_SWAP, seq, r.remoteAddress);
            default -> TcpFrame.encode(header, TcpFrame.RDMA_READ_REQUEST, 0, r.remoteContext, (int) r.remoteLength, seq,
                    r.remoteAddress);
        }
        header.flip();
    }
}
