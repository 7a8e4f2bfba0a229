package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.core.RemoteWindow;
import dat.provider.sim.internal.core.Wr;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * What one connection writes, in this order: what a write left unfinished, the answers queued
 * before this side's end, a control frame (CM frames, DISCONNECT, REJECT, NOP, the FIN), the
 * answers ({@link Responses}), an ACK_REQUEST, then the Endpoint's requests ({@link Transmitter}).
 * A frame begun is finished before anything else; ACKs that fall due while a batch of requests is
 * written go out between two of its frames.
 *
 * <p><b>Who writes.</b> Whichever thread has something to send and finds the output idle writes
 * it itself with one non-blocking write, under {@link #lock}: a posting thread its small request
 * (with the ACK it owes the peer in the same write), the agent an ACK, a consumer in
 * dat_cr_accept its ACCEPT. What the socket does not take, and everything that finds the output
 * busy, is left to the I/O agent ({@link IoAgent#flushSoon}), which goes on when the socket is
 * writable. Nothing here blocks: inline writers only try the lock.
 */
final class Output {

    /** What a flush found. */
    static final int IDLE = 0;
    static final int BLOCKED = 1;
    /** The output is shut down (the FIN, or a refusal after which the connection ends). */
    static final int END = 2;
    /** The output wrote the last frame of a connection whose socket is reused. */
    static final int LAST_WRITTEN = 3;

    /** The marker of the FIN in the control queue. */
    private static final ByteBuffer FIN = ByteBuffer.allocate(0);
    /** The payload of an answer without one (an ACK): nothing to write, so no writer changes it. */
    private static final ByteBuffer NO_PAYLOAD = ByteBuffer.allocateDirect(0);
    /** Frames no larger than this go out inline from a posting thread. */
    static final long INLINE_BYTES = 64 * 1024;
    /**
     * A posting thread writes its request inline only while fewer requests than this are in
     * flight (a ping-pong, a write and the send that announces it): a deeper pipeline is left to
     * the agent, which gathers the frames queued behind each other into one write.
     */
    static final int INLINE_MAX_IN_FLIGHT = 4;

    private final TcpConnection c;
    /**
     * Held for each write call by every thread that writes to the channel. Package-private: a
     * test holds it to make requests queue for the agent.
     */
    final ReentrantLock lock = new ReentrantLock();
    private final ConcurrentLinkedQueue<ByteBuffer> control = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean flushQueued = new AtomicBoolean();
    /** A buffer a write left unfinished (a control frame, an ACK, an inline frame: copies). */
    private ByteBuffer pending;
    /** A reused socket's last frame (its DISCONNECT): once written whole, the output is done. */
    private volatile ByteBuffer lastFrame;
    /** A test's seam: runs once {@link #sendLast} left the frame to the agent; a no-op in production. */
    Runnable lastLeft = () -> { };
    /** The answer being written, with the buffers of its gathering write. */
    private Responses.Response answer;
    private final ByteBuffer[] headerAndPayload = new ByteBuffer[2];
    private boolean answerBreaks;
    /** The window a write call sends a read response from now: a revocation waits for the call. */
    private volatile RemoteWindow respondingFrom;
    // the range of the read response being written, [from, to), 0 when none
    private volatile long answerFrom;
    private volatile long answerTo;
    private final MemoryView answerView = new MemoryView();
    /** The payload of an atomic's answer: the value before the operation, big-endian. */
    private final ByteBuffer atomicResult = ByteBuffer.allocateDirect(TcpFrame.ATOMIC_RESULT_BYTES).order(ByteOrder.BIG_ENDIAN);
    /** The output waits for the socket (the agent set OP_WRITE); the agent's. */
    private boolean waitingForSocket;
    /** Responses must not wait for the end of a batch: set before the agent is kicked for them. */
    private volatile boolean responsesDue;
    /** {@link #responsesDue}, as the transmitter asks before each write call of a batch. */
    private final BooleanSupplier responsesDueNow = () -> responsesDue;
    /** An ACK_REQUEST waits (see {@link TcpWire#complete}). */
    private volatile boolean ackRequestDue;
    /** A free marked the cached views of consumer memory stale: they go once no frame uses them. */
    private volatile boolean viewsStale;
    /** The output is done: FIN sent, or the connection's last answer (a refusal) written. */
    private volatile boolean ended;
    private volatile boolean finQueued;
    private ByteBuffer header;
    private ByteBuffer ackHeader;
    /** An inline request's frame, after the ACK that goes with it; allocated on first use. */
    private ByteBuffer inlineFrame;
    private final MemoryView inlineView = new MemoryView();
    /** The ACKs written between two frames of a batch, for tests and statistics. */
    private volatile int acksBetweenFrames;
    /** A shared-memory connection's doorbell (a NOP) that found the output busy: the agent writes it. */
    private volatile boolean doorbellDue;
    /** The doorbell's frame, written whole or left pending. */
    private final ByteBuffer doorbellFrame = ByteBuffer.allocateDirect(TcpFrame.HEADER_BYTES).order(ByteOrder.BIG_ENDIAN);
    /** Doorbells rung, for tests and statistics. */
    private volatile long doorbells;

    Output(TcpConnection connection) {
        this.c = connection;
    }

    /** Allocates the header buffers; before the data path is used. */
    void allocate() {
        if (header == null) {
            header = ByteBuffer.allocateDirect(TcpFrame.HEADER_BYTES).order(ByteOrder.BIG_ENDIAN);
            ackHeader = ByteBuffer.allocateDirect(TcpFrame.HEADER_BYTES).order(ByteOrder.BIG_ENDIAN);
        }
    }

    boolean finQueued() {
        return finQueued;
    }

    boolean ended() {
        return ended;
    }

    int acksBetweenFrames() {
        return acksBetweenFrames;
    }

    long doorbells() {
        return doorbells;
    }

    /**
     * A shared-memory connection's doorbell: the peer's agent sleeps with its rings armed, a NOP
     * wakes it. Written by the calling thread with one non-blocking write when the output is idle,
     * else by the agent. Never blocks; allocates nothing.
     */
    void doorbell() {
        doorbells++;
        if (lock.tryLock()) {
            try {
                if (idle()) {
                    ByteBuffer b = nopFrame();
                    c.channel().write(b);
                    c.liveness.wrote();
                    if (!b.hasRemaining()) {
                        return;
                    }
                    pending = b; // the socket is full: the agent finishes it
                }
            } catch (IOException e) {
                // the agent meets the failure and ends the connection
            } finally {
                unlock();
            }
        }
        doorbellDue = true;
        kick();
    }

    private ByteBuffer nopFrame() {
        ByteBuffer b = doorbellFrame.clear();
        TcpFrame.encode(b, TcpFrame.NOP, 0, 0, 0, 0, 0);
        return b.flip();
    }

    // ---------------------------------------------------------------------------------------------
    // what other parts hand in (any thread)
    // ---------------------------------------------------------------------------------------------

    /**
     * A connection-management frame: written by the calling thread when the output is idle, so
     * that the setup's next step does not wait for the agent; else, or what the socket does not
     * take, left to it. Never blocks.
     */
    void sendControl(ByteBuffer frame) {
        if (lock.tryLock()) {
            try {
                if (idle()) {
                    c.channel().write(frame);
                    c.liveness.wrote();
                    if (frame.hasRemaining()) {
                        pending = frame;
                        kick();
                    }
                    return;
                }
            } catch (IOException e) {
                // queued instead: the agent meets the failure and ends the connection
            } finally {
                unlock();
            }
        }
        enqueue(frame);
    }

    /** Queues a control frame for the agent. */
    void enqueue(ByteBuffer frame) {
        control.add(frame);
        kick();
    }

    /**
     * The DISCONNECT of a connection whose socket is reused, its last frame: written by the
     * calling thread when the output is idle and no answer is owed before it, and the output is
     * then done; else, or for what the socket did not take, left to the agent as one entry that
     * ends the output the moment it is written whole ({@link #lastFrame}): nothing can come
     * between the frame and the end, and nothing follows. Never blocks.
     *
     * @return whether it was written whole here (the caller tells {@link SocketReuse#endWritten})
     */
    boolean sendLast(ByteBuffer frame) {
        lastFrame = frame;
        if (lock.tryLock()) {
            try {
                Responses r = c.responses;
                if (idle() && (r == null || !r.beforeEndPending())) {
                    c.channel().write(frame);
                    c.liveness.wrote();
                    if (!frame.hasRemaining()) {
                        ended = true;
                        return true;
                    }
                    pending = frame;
                    kick();
                    lastLeft.run();
                    return false;
                }
            } catch (IOException e) {
                // queued instead: the agent meets the failure and ends the connection
            } finally {
                unlock();
            }
        }
        enqueue(frame);
        lastLeft.run();
        return false;
    }

    /** Queues the FIN: the output shuts down after what is queued. */
    void queueFin() {
        finQueued = true;
        enqueue(FIN);
    }

    /** The agent writes what there is, soon (unless the output waits for the socket, which wakes it anyway). */
    void kick() {
        // while the output waits for the socket the flag stays set: its readiness flushes anyway
        if (flushQueued.compareAndSet(false, true)) {
            c.agent().flushSoon(this);
        }
    }

    /** Responses are due that must not wait for the end of a batch: the agent writes them (flag first). */
    void kickForResponses() {
        responsesDue = true;
        if (flushQueued.compareAndSet(false, true)) {
            c.agent().flushSoon(this);
        }
    }

    /** Under the Endpoint's lock: the writer sends an ACK_REQUEST after the requests already written. */
    void requestAcks() {
        ackRequestDue = true;
        kick();
    }

    // ---------------------------------------------------------------------------------------------
    // the agent's flush
    // ---------------------------------------------------------------------------------------------

    /** {@link #lock} by spinning: its holder writes without blocking, and a waiting lock() allocates a queue node. */
    private void lockWithoutQueueing() {
        for (int spins = 0; !lock.tryLock(); spins++) {
            if (spins < 200) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    /** On the agent's thread: a flush it was asked for, or the socket became writable. */
    void flushFromAgent() {
        flushQueued.set(false);
        if (c.isClosed() || ended) {
            return;
        }
        int r;
        lockWithoutQueueing();
        try {
            r = ended ? IDLE : flush(); // an end written inline while this waited for the lock: nothing follows it
        } catch (IOException e) {
            c.writeFailed(e);
            return;
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            c.memoryGoneMidFrame(); // a source's memory went away (its arena closed, a window revoked)
            return;
        } finally {
            unlock();
        }
        boolean wait = r == BLOCKED;
        if (wait) {
            flushQueued.set(true); // kicks are free until the socket is writable, which flushes
        }
        if (wait != waitingForSocket) {
            waitingForSocket = wait;
            c.liveness.waiting(wait);
            c.writeInterest(wait);
        }
        if (!wait) {
            c.resumeReading(); // answers went: a receiver that paused for a full ring goes on
            if (viewsStale) {
                dropViewsUnlessTaken();
            }
        }
        if (r == END) {
            c.outputEnded();
        } else if (r == LAST_WRITTEN) {
            c.reuse.endWritten();
        }
    }

    /**
     * Under the lock: writes in the order of the class comment until nothing is left or the
     * socket takes no more.
     */
    private int flush() throws IOException {
        SocketChannel ch = c.channel();
        for (;;) {
            if (pending != null) {
                if (!writeWhole(ch, pending)) {
                    return BLOCKED;
                }
                boolean last = pending == lastFrame;
                pending = null;
                if (last) {
                    ended = true;
                    return LAST_WRITTEN;
                }
                continue;
            }
            if (answer != null) {
                if (!continueAnswer(ch)) {
                    return BLOCKED;
                }
                if (ended) {
                    return END;
                }
                continue;
            }
            TcpWire wire = c.wire();
            if (c.transmitter.inProgress()) {
                int r = c.transmitter.write(ch, wire, c.liveness, responsesDueNow);
                if (r == Transmitter.BLOCKED) {
                    return BLOCKED;
                }
                if (r == Transmitter.ACKS_DUE) {
                    writeDueAcks();
                }
                continue;
            }
            // the answers queued before this side's end first: an ACK held in the ring answers a
            // request the receiver handled, and must reach the peer before the DISCONNECT or the
            // break's FIN, or the peer flushes a send its target delivered
            Responses answers = c.responses; // none before the data path is allocated
            if (answers != null && answers.beforeEndPending() && startAnswer()) {
                continue;
            }
            ByteBuffer b = control.poll();
            if (b == FIN) {
                ch.shutdownOutput();
                ended = true;
                return END;
            }
            if (b != null) {
                pending = b;
                continue;
            }
            if (doorbellDue) {
                doorbellDue = false;
                pending = nopFrame();
                continue;
            }
            if (answers != null && startAnswer()) {
                continue;
            }
            if (ackRequestDue) {
                // after every request already written, the deferrable one the ACKs are held for included
                ackRequestDue = false;
                header.clear();
                TcpFrame.encode(header, TcpFrame.ACK_REQUEST, 0, 0, 0, 0, 0);
                pending = header.flip();
                continue;
            }
            if (wire == null || c.backoff.active()) {
                return IDLE; // an RNR backoff: the agent's timer flushes when it ends
            }
            if (!c.transmitter.gather(wire, c.backoff)) {
                return IDLE;
            }
        }
    }

    /** Writes {@code b} as far as the socket takes it; whether it went whole. */
    private boolean writeWhole(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.write(b) == 0) {
                return false;
            }
            c.liveness.progressed();
        }
        c.liveness.wrote();
        return true;
    }

    /** Between two frames of a batch: the bare ACKs at the head of the ring go out. */
    private void writeDueAcks() {
        responsesDue = false;
        int written = 0;
        while (c.responses.headIsPlainAck() && pending == null) {
            Responses.Response r = c.responses.takeHead(true, false);
            if (r == null) {
                break;
            }
            ByteBuffer ack = encodeAck(r.seq, r.status);
            c.responses.headWritten();
            pending = copyOf(ack);
            written++;
            try {
                if (writeWhole(c.channel(), pending)) {
                    pending = null;
                }
            } catch (IOException e) {
                // the batch's next write meets it too
                break;
            }
        }
        acksBetweenFrames += written;
    }

    private static ByteBuffer copyOf(ByteBuffer b) {
        ByteBuffer copy = ByteBuffer.allocate(b.remaining());
        copy.put(b).flip();
        return copy;
    }

    /**
     * Starts writing the head answer, if any: a read response's header and bytes (its window
     * checked again: one freed or revoked since the request was read is refused as it would
     * have been then), an atomic's result, an ACK's header.
     */
    private boolean startAnswer() {
        Responses.Response r = c.responses.takeHead(false, false);
        if (r == null) {
            return false;
        }
        long len = r.op == TcpFrame.RDMA_READ_RESPONSE && r.status == TcpFrame.STATUS_OK ? r.length : 0;
        int status = r.status;
        boolean breakAfter = r.breakAfter;
        ByteBuffer data = null;
        if (len > 0 && r.atomic) {
            data = atomicResult.clear().putLong(r.value).flip();
        } else if (len > 0) {
            MemorySegment memory = r.window.windowMemory();
            answerFrom = memory.address() + r.offset;
            answerTo = memory.address() + r.offset + len;
            if (!r.window.windowValid() || !memory.scope().isAlive()) {
                clearAnswerRange();
                len = 0;
                status = TcpFrame.STATUS_REMOTE_ACCESS;
                breakAfter = true;
            } else {
                data = answerView.of(memory, r.offset, len);
            }
        }
        header.clear();
        TcpFrame.encode(header, r.op, len, 0, status, r.seq, 0);
        headerAndPayload[0] = header.flip();
        headerAndPayload[1] = data == null ? NO_PAYLOAD : data;
        answer = r;
        answerBreaks = breakAfter;
        return true;
    }

    /** Writes what the socket takes of the answer; whether it went whole. */
    private boolean continueAnswer(SocketChannel ch) throws IOException {
        RemoteWindow w = answerBreaks ? null : answer.window;
        while (headerAndPayload[0].hasRemaining() || headerAndPayload[1].hasRemaining()) {
            long n;
            respondingFrom = w;
            try {
                // after the volatile store: a revocation that looks later waits for this call
                if (w != null && headerAndPayload[1].capacity() > 0 && !w.windowValid()) {
                    throw new IllegalStateException("the window was revoked while a read response was sent from it");
                }
                n = ch.write(headerAndPayload);
            } finally {
                respondingFrom = null;
            }
            if (n == 0) {
                return false;
            }
            c.liveness.progressed();
        }
        c.liveness.wrote();
        headerAndPayload[0] = null;
        headerAndPayload[1] = null;
        clearAnswerRange();
        answer = null;
        c.responses.headWritten();
        if (answerBreaks) {
            // the peer has its answer: it breaks on it; this side breaks now, and the connection ends
            ch.shutdownOutput();
            ended = true;
            c.refusalSent();
        }
        return true;
    }

    private void clearAnswerRange() {
        answerTo = 0;
        answerFrom = 0;
    }

    /**
     * Under the lock, the connection closed and the agent is done with it: what was being written
     * goes, and with it the ranges of consumer memory a fence would wait for.
     */
    void abandon() {
        if (answer != null) {
            answer = null;
            headerAndPayload[0] = null;
            headerAndPayload[1] = null;
        }
        clearAnswerRange();
        pending = null;
        c.transmitter.abandon();
    }

    // ---------------------------------------------------------------------------------------------
    // inline writes
    // ---------------------------------------------------------------------------------------------

    /** Under the lock: whether an inline writer may write now (open, nothing unfinished or queued before it). */
    private boolean idle() {
        return !c.isClosed() && !ended && pending == null && answer == null && control.isEmpty()
                && !c.transmitter.inProgress();
    }

    /**
     * A posting thread, right after it queued a request that is its Endpoint's only one not yet
     * on the wire: writes it itself when the output is idle and the frame is small (one segment,
     * at most {@link #INLINE_BYTES}), with the ACK the peer is owed in the same write; else, or
     * for what the socket did not take, the agent writes. Never blocks, never throws: a failed
     * write breaks the connection, as the agent's would.
     */
    void transmitInline(TcpWire wire) {
        if (c.backoff.active() || !lock.tryLock()) {
            kick(); // an RNR backoff runs, or another writer is at work
            return;
        }
        boolean wake = true;
        IOException failed = null;
        boolean memoryGone = false;
        try {
            if (!idle() || c.wire() != wire || header == null) {
                return;
            }
            // the ACK due to the peer (a ping-pong has one: for the message this one answers)
            // goes in the same write as the request, so the peer wakes once for both
            ByteBuffer ack = takeAck(true);
            if (ack == null && !flushAcksLocked()) {
                return; // the answers ahead go first, from the agent
            }
            Wr.Request r = c.transmitter.inlineRequest();
            long seq = wire.nextTransmit(r, 1, INLINE_BYTES);
            if (seq < 0) {
                wake = seq == TcpWire.TOO_LARGE;
                if (ack != null && !writeAckNow(ack)) {
                    wake = true;
                }
                return;
            }
            ByteBuffer frame = inlineFrame(r, ack, seq, wire);
            // a flush since nextTransmit completed this request FLUSHED, and its buffer may hold
            // the consumer's new bytes by now: the copy goes nowhere (reading it did no harm; a
            // copy that saw new bytes sees the flush too, whose store came before them)
            VarHandle.loadLoadFence();
            if (!wire.connected()) {
                frame.limit(ack == null ? 0 : TcpFrame.HEADER_BYTES); // the ACK alone, if one was taken
            }
            c.channel().write(frame);
            c.liveness.wrote();
            if (frame.hasRemaining()) {
                pending = frame;
                return;
            }
            wake = wire.untransmitted(); // posted meanwhile, by a thread that found the lock taken
        } catch (IOException x) {
            failed = x;
        } catch (IllegalStateException | IndexOutOfBoundsException x) {
            memoryGone = true;
        } finally {
            unlock();
            if (failed == null && !memoryGone && wake) {
                kick();
            }
        }
        if (failed != null) {
            c.writeFailed(failed);
        } else if (memoryGone) {
            c.memoryGoneMidFrame();
        }
    }

    /**
     * The ACK (if any), the request's header and its payload copied into one buffer of the
     * connection's: one write, consumer memory no longer needed once copied (a free may proceed),
     * and no view of it in a gathering write.
     */
    private ByteBuffer inlineFrame(Wr.Request r, ByteBuffer ack, long seq, TcpWire wire) throws IOException {
        Transmitter.encode(header, r, seq);
        boolean hasPayload = !r.readsRemote() && r.segments == 1;
        long bytes = (ack != null ? TcpFrame.HEADER_BYTES : 0) + TcpFrame.HEADER_BYTES
                + (hasPayload ? r.lengths[0] : r.atomic() ? TcpFrame.ATOMIC_PAYLOAD_BYTES : 0);
        ByteBuffer b = inlineFrame;
        if (b == null || b.capacity() < bytes) {
            b = ByteBuffer.allocateDirect(Math.max(4096, Integer.highestOneBit((int) bytes - 1) << 1));
            inlineFrame = b;
        }
        b.clear();
        if (ack != null) {
            b.put(ack);
        }
        b.put(header);
        if (r.atomic()) {
            b.putLong(r.operand).putLong(r.swap);
        } else if (hasPayload) {
            try {
                b.put(c.transmitter.publishedInline(inlineView, r.lmrs[0], r.offsets[0], r.lengths[0]));
            } catch (IllegalStateException | IndexOutOfBoundsException x) {
                throw Transmitter.localMemoryGone(wire, seq);
            } finally {
                c.transmitter.clearInline();
            }
        }
        r.release();
        return b.flip();
    }

    /**
     * The receiver (the agent) answers a request at once when the output is idle (nothing queued,
     * no answer ahead of it), with one non-blocking write.
     *
     * @return whether it was written (or begun, for the agent to finish); {@code false}: queue it
     */
    boolean respondNow(long seq, int status) {
        if (!lock.tryLock()) {
            return false;
        }
        try {
            if (finQueued || header == null || !idle() || !flushAcksLocked()) {
                return false; // answers go out in order: this one is queued behind the others
            }
            writeAckNow(encodeAck(seq, status));
            c.responses.paid();
            return true;
        } catch (IOException x) {
            return false; // queued instead: the agent meets the failure and ends the connection
        } finally {
            unlock();
        }
    }

    /**
     * The receiver, when held ACKs are due: writes those at the head of the ring itself when the
     * output is idle, else leaves them to the agent (between two frames of a batch, if one is
     * being written).
     */
    void flushAcks() {
        if (!c.responses.any()) {
            return;
        }
        boolean done = false;
        if (lock.tryLock()) {
            try {
                done = idle() && header != null && flushAcksLocked();
            } catch (IOException x) {
                done = false; // the agent meets the failure too
            } finally {
                unlock();
            }
        }
        if (!done) {
            kickForResponses();
        }
    }

    /**
     * Under the lock, before an inline writer's own frame: writes the bare ACKs queued first, so
     * they are never starved by requests written inline and go out before any later request of
     * this side. Stops at an answer that is not a bare ACK: those are the agent's.
     *
     * @return whether the ring is empty and nothing is left unfinished
     */
    private boolean flushAcksLocked() throws IOException {
        for (;;) {
            ByteBuffer ack = takeAck(false);
            if (ack == null) {
                return !c.responses.any();
            }
            if (!writeAckNow(ack)) {
                return false;
            }
        }
    }

    /** Takes the head answer off the ring when it is a bare ACK (and, with {@code alone}, the only one), encoded. */
    private ByteBuffer takeAck(boolean alone) {
        Responses.Response r = c.responses.takeHead(true, alone);
        if (r == null) {
            return null;
        }
        ByteBuffer ack = encodeAck(r.seq, r.status);
        c.responses.headWritten();
        return ack;
    }

    /** One encoded ACK with one non-blocking write; what the socket does not take is left pending. */
    private boolean writeAckNow(ByteBuffer ack) throws IOException {
        c.channel().write(ack);
        c.liveness.wrote();
        if (ack.hasRemaining()) {
            pending = copyOf(ack);
            kick();
            return false;
        }
        return true;
    }

    private ByteBuffer encodeAck(long seq, int status) {
        ackHeader.clear();
        TcpFrame.encode(ackHeader, TcpFrame.ACK, 0, 0, status, seq, 0);
        return ackHeader.flip();
    }

    // ---------------------------------------------------------------------------------------------
    // fences
    // ---------------------------------------------------------------------------------------------

    /** Whether the answer being written sends bytes of [start, end), or a batch does: dat_lmr_free waits. */
    boolean sendsFrom(long start, long end) {
        long t = answerTo; // "to" before "from"
        long f = answerFrom;
        return t != 0 && f < end && start < t || c.transmitter.sendsFrom(start, end);
    }

    /** Whether a write call sends a read response from {@code w} now. */
    boolean respondingFrom(RemoteWindow w) {
        return respondingFrom == w;
    }

    /**
     * A free happened: the views of consumer memory the output caches go, now if the output is
     * idle, else as the writer that holds the lock lets go ({@link #unlock}): a freed LMR's memory
     * of an automatic arena is reclaimed only once nothing refers to it.
     */
    void viewsStale() {
        viewsStale = true;
        dropViewsUnlessTaken();
    }

    /** Lets go of the lock; drops the views a free marked stale meanwhile. */
    void unlock() {
        lock.unlock();
        if (viewsStale) {
            dropViewsUnlessTaken();
        }
    }

    private void dropViewsUnlessTaken() {
        while (viewsStale && !lock.isHeldByCurrentThread() && lock.tryLock()) {
            try {
                if (answer == null && !c.transmitter.inProgress()) {
                    viewsStale = false;
                    answerView.forget();
                    inlineView.forget();
                    c.transmitter.forgetViews();
                } else {
                    return; // a frame in progress uses them: dropped as it ends (flushFromAgent)
                }
            } finally {
                lock.unlock();
            }
        }
    }

}
