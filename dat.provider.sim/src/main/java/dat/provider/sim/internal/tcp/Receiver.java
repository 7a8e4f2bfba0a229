package dat.provider.sim.internal.tcp;

import dat.api.DtoCompletionStatus;
import dat.api.EventNumber;
import dat.provider.sim.internal.core.RemoteWindow;
import dat.provider.sim.internal.core.Wr;
import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * The frames of an established connection, read by the I/O agent: the target side of the peer's
 * requests (a send lands in the first posted receive, an RDMA write in its window, an RDMA read
 * is answered from its window, an atomic applied to its window and answered with the value before
 * it, an RDMA write with immediate data lands in its window and completes the first posted
 * receive) and the initiator side's responses (ACKs, RDMA read responses landing in the read's
 * buffers, an atomic's result in its local buffer). Each request is checked before one byte of it moves, as in one
 * JVM, and answered with exactly one response, in order. Payloads land straight in consumer
 * memory ({@link Landing}), one non-blocking read at a time: the receiver never waits inside a
 * frame, it returns and goes on when the socket is readable.
 *
 * <p>Anything the protocol does not allow at that point (a malformed header, a frame of the wrong
 * phase, a response to no request in flight, a truncated frame) ends this connection alone: the
 * local Endpoint gets {@link EventNumber#CONNECTION_EVENT_BROKEN}. A refused access is answered
 * with the refusal; nothing more is served, and the connection ends once the refusal is out.
 */
final class Receiver {

    /** A request's payload above this asks the kernel for one wake-up per megabyte. */
    private static final long LOW_WATER_FROM = ReceiveLowWater.MIN;

    private final TcpConnection c;
    private final TcpFrameReader reader;
    private final Landing landing;
    /** The target side: the sequence number of the send refused as receiver-not-ready, -1 when none. */
    private long notReadyFrom = -1;
    /** A refused access was answered: nothing more is read. */
    private volatile boolean refusing;
    private long refusingSince;
    /** The ring of answers is full: reading waits for the output to free a slot. */
    private boolean paused;
    // the frame whose payload lands now, for its completion
    private int frameOp;
    private long frameSeq;
    private long frameLength;
    private int frameAux;
    /** Whether the frame is a write with immediate data its sender solicited ({@link TcpFrame#solicitedWrite}). */
    private boolean frameSolicitedWrite;
    /** The receive the landing fills, and whether it is taken from the Endpoint and not completed. */
    private Wr.Recv rx;
    private boolean rxTaken;
    private Wr.Request rxRead;
    /** Frames read by consumers driving from their waits, for tests and statistics. */
    private volatile long framesReadByConsumers;
    /** The low-water mark is up, since then. */
    private long lowWaterSince;

    Receiver(TcpConnection connection, TcpFrameReader reader, Landing landing) {
        this.c = connection;
        this.reader = reader;
        this.landing = landing;
        this.flushIfStillDue = this::flushIfStillDue;
    }

    /** The data path's scratch buffers: a receive of {@code recvIov} segments, a read of {@code requestIov}. */
    void allocate(int requestIov, int recvIov) {
        if (rx == null || rx.lmrs.length < recvIov) {
            rx = new Wr.Recv(recvIov);
        }
        if (rxRead == null || rxRead.lmrs.length < requestIov) {
            rxRead = new Wr.Request(requestIov);
        }
    }

    /** The receive a flush completes when it abandons a landing into it. */
    Wr.Recv receive() {
        return rx;
    }

    boolean refusing() {
        return refusing;
    }

    long refusingSince() {
        return refusingSince;
    }

    /** Whether reading waits for a slot in the ring of answers. */
    boolean paused() {
        return paused;
    }

    void resume() {
        paused = false;
    }

    long framesReadByConsumers() {
        return framesReadByConsumers;
    }

    /** When the low-water mark went up, or 0. */
    long lowWaterSince() {
        return lowWaterSince;
    }

    /**
     * Reads and handles what the socket holds now.
     *
     * @param freshReadiness whether the socket was just reported readable (else the last read
     *     found it drained, and a header not read ahead waits for the next readiness)
     * @return {@code false} when the connection ended
     */
    boolean read(boolean freshReadiness) throws IOException {
        SocketChannel ch = c.channel();
        boolean first = freshReadiness;
        try {
            for (;;) {
                if (landing.active()) {
                    int r = landing.advance(ch, c.liveness);
                    if (r == Landing.NEED_MORE) {
                        awaitingPayload(ch);
                        return true;
                    }
                    if (!landed(r)) {
                        return false;
                    }
                    first = false;
                    continue;
                }
                lowerLowWater(ch);
                if (refusing || paused) {
                    return true;
                }
                int s = first ? reader.readHeader(ch) : reader.nextHeader(ch);
                first = false;
                if (s == TcpFrameReader.NEED_MORE) {
                    if (c.responses.acksDue) {
                        dueAcks();
                    }
                    return true;
                }
                c.liveness.read();
                if (c.agent().driven()) {
                    framesReadByConsumers++;
                }
                if (s == TcpFrameReader.READY && mayRespond(reader.frame.opcode) && c.responses.full()) {
                    reader.holdHeader(); // read again once the output freed a slot
                    paused = true;
                    c.readInterest(false);
                    c.responses.acksDue = true;
                    flushAcks();
                    return true;
                }
                if (!handle(s)) {
                    return false;
                }
            }
        } catch (IOException e) {
            completeTakenReceive(DtoCompletionStatus.ERR_FLUSHED);
            throw e;
        }
    }

    /** Whether a frame with this opcode may queue an answer. */
    private static boolean mayRespond(int opcode) {
        return opcode == TcpFrame.SEND || opcode == TcpFrame.RDMA_WRITE || opcode == TcpFrame.RDMA_READ_REQUEST
                || opcode == TcpFrame.ATOMIC_REQUEST || opcode == TcpFrame.RDMA_WRITE_IMMEDIATE;
    }

    /** Handles a header read; {@code false} when the connection ended. */
    private boolean handle(int s) {
        if (s == TcpFrameReader.EOF) {
            c.protocolEnd(reader.error()); // a header cut short; none between frames
            c.lost(c.endSaid() ? EventNumber.CONNECTION_EVENT_DISCONNECTED : EventNumber.CONNECTION_EVENT_BROKEN);
            return false;
        }
        if (s == TcpFrameReader.MALFORMED) {
            return violation(reader.error());
        }
        TcpFrame f = reader.frame;
        int opcode = f.opcode;
        if (c.sharedMemory() != null && opcode != TcpFrame.NOP && opcode != TcpFrame.DISCONNECT) {
            // the data moves through the rings: the control channel carries DISCONNECT and NOPs (doorbells) only
            return violation(f.name() + " on the control channel of a shared-memory connection");
        }
        if (notReadyFrom >= 0 && mayRespond(opcode)) {
            if (f.seq != notReadyFrom) {
                startSkip(opcode); // sent before the initiator learned of the RNR: it sends it again
                return true;
            }
            notReadyFrom = -1; // the retransmission
        }
        TcpWire w = c.wire();
        String why = switch (opcode) {
            case TcpFrame.DISCONNECT -> {
                c.peerDisconnected();
                yield ENDED;
            }
            case TcpFrame.SEND -> onSend(w);
            case TcpFrame.RDMA_WRITE, TcpFrame.RDMA_WRITE_IMMEDIATE -> onRdmaWrite(w, opcode);
            case TcpFrame.RDMA_READ_REQUEST -> onReadRequest(w);
            case TcpFrame.ATOMIC_REQUEST -> onAtomic(w);
            case TcpFrame.RDMA_READ_RESPONSE -> onReadResponse(w);
            case TcpFrame.ACK -> {
                String bad = w.complete(f.seq, f.aux, false);
                c.noteDriver(w.endpoint().requestEvd());
                yield bad;
            }
            case TcpFrame.NOP -> null; // proof of life, already noted
            case TcpFrame.ACK_REQUEST -> {
                c.responses.acksDue = true; // sent once the socket is drained, as for a request that is not deferrable
                yield null;
            }
            default -> "unexpected " + f.name() + " on an established connection";
        };
        if (why == null) {
            if (!landing.active()) {
                handled(opcode, f.aux);
            }
            return true;
        }
        if (why == ENDED) {
            return false;
        }
        return violation(why);
    }

    /** A frame is handled whole (its payload landed): its ACK may be due, its EVD noted. */
    private void handled(int opcode, int aux) {
        if ((opcode == TcpFrame.SEND || opcode == TcpFrame.RDMA_WRITE) && (aux & TcpFrame.ACK_DEFERRABLE) == 0
                || opcode == TcpFrame.RDMA_WRITE_IMMEDIATE) {
            // once handled, not at its header: a flush while the payload lands must not take the
            // due mark before this frame's ACK is held
            c.responses.acksDue = true;
        }
    }

    private boolean violation(String why) {
        c.protocolEnd(why);
        c.lost(EventNumber.CONNECTION_EVENT_BROKEN);
        return false;
    }

    /** The reason a handler gives when the connection ended. */
    private static final String ENDED = "";
    /** {@link #frameOp} of a send refused as receiver-not-ready, answered once its payload is skipped. */
    private static final int NOT_READY = -2;
    /** {@link #frameOp} of a refused request, answered once its payload is skipped. */
    private static final int REFUSE = -3;
    private int refusalOp;
    private int refusalStatus;

    private void startFrame(int op) {
        TcpFrame f = reader.frame;
        frameOp = op;
        frameSeq = f.seq;
        frameLength = f.payloadLength;
        frameAux = f.aux;
        frameSolicitedWrite = f.solicitedWrite;
    }

    private void startSkip(int op) {
        startFrame(op);
        frameOp = -1; // skipped: no answer
        landing.skip();
    }

    /** Target side of a send: into the first posted receive, straight from the socket. */
    private String onSend(TcpWire w) {
        startFrame(TcpFrame.SEND);
        if (!w.takeRecvForWire(rx)) {
            // receiver not ready: drop it and what follows until the initiator sends it again; the
            // receiver goes on reading, so the connection's liveness is still watched meanwhile.
            // Answered once its payload is skipped: a frame cut short is a violation, not answered
            notReadyFrom = frameSeq;
            frameOp = NOT_READY;
            landing.skip();
            return null;
        }
        rxTaken = true;
        if (!rx.memoryValid()) {
            // a segment's LMR freed or its memory closed, even one no byte would reach: as in one
            // JVM, the receive fails LOCAL_PROTECTION, the sender REMOTE_ACCESS, and both break
            completeTakenReceive(DtoCompletionStatus.ERR_LOCAL_PROTECTION);
            return refuse(TcpFrame.ACK, frameSeq, TcpFrame.STATUS_REMOTE_ACCESS);
        }
        if (frameLength > rx.total) {
            // the receiver sees LOCAL_LENGTH, the sender REMOTE_RESPONDER, and the connection breaks
            completeTakenReceive(DtoCompletionStatus.ERR_LOCAL_LENGTH);
            return refuse(TcpFrame.ACK, frameSeq, TcpFrame.STATUS_REMOTE_LENGTH);
        }
        landing.intoSegments(rx, true);
        return null;
    }

    /**
     * Target side of an RDMA write, with immediate data or without: checked, then read from the
     * socket into the registered memory; one with immediate data then takes the first posted
     * receive ({@link #writeImmediateDone}).
     */
    private String onRdmaWrite(TcpWire w, int opcode) {
        startFrame(opcode);
        TcpFrame f = reader.frame;
        RemoteWindow win = w.remoteWindow(f.context, f.address, f.payloadLength, true);
        if (win == null) {
            return refuse(TcpFrame.ACK, f.seq, TcpFrame.STATUS_REMOTE_ACCESS);
        }
        if (f.payloadLength == 0) {
            if (opcode == TcpFrame.RDMA_WRITE_IMMEDIATE) {
                writeImmediateDone(w);
            } else {
                acknowledge(f.seq, 0);
            }
            return null;
        }
        try {
            landing.intoWindow(win, w, f.address - win.memoryBase(), f.payloadLength);
        } catch (IllegalStateException | IndexOutOfBoundsException x) {
            landing.end();
            return refuse(TcpFrame.ACK, f.seq, TcpFrame.STATUS_REMOTE_ACCESS);
        }
        return null;
    }

    /** Target side of an RDMA read: checked, then the output sends the bytes from the registered memory. */
    private String onReadRequest(TcpWire w) {
        TcpFrame f = reader.frame;
        long len = Integer.toUnsignedLong(f.aux);
        if (c.reuse.ending()) {
            // sent before the peer read this side's DISCONNECT, which flushes it there: unanswered,
            // and reading goes on to the peer's DISCONNECT, the socket's hand-over
            return null;
        }
        RemoteWindow win = w.remoteWindow(f.context, f.address, len, false);
        if (win == null) {
            respond(TcpFrame.RDMA_READ_RESPONSE, f.seq, TcpFrame.STATUS_REMOTE_ACCESS, null, 0, 0, true);
            refused();
            return null;
        }
        respond(TcpFrame.RDMA_READ_RESPONSE, f.seq, TcpFrame.STATUS_OK, win, f.address - win.memoryBase(), len, false);
        return null;
    }

    /**
     * Target side of an atomic: its window checked for the remote-atomic privilege, its operands
     * read, then it is applied ({@link #frameDone}) and answered with the value before it.
     */
    private String onAtomic(TcpWire w) {
        startFrame(TcpFrame.ATOMIC_REQUEST);
        TcpFrame f = reader.frame;
        RemoteWindow win = w.remoteWindow(f.context, f.address, Long.BYTES, dat.api.ext.IbExtension.MEM_PRIV_REMOTE_ATOMIC);
        if (win == null) {
            return refuse(TcpFrame.RDMA_READ_RESPONSE, f.seq, TcpFrame.STATUS_REMOTE_ACCESS);
        }
        landing.atomicInto(win, w, f.address - win.memoryBase());
        return null;
    }

    /** The operands of the atomic at hand landed: applied to the window, and answered. */
    private boolean atomicDone() {
        int r = landing.applyAtomic(frameAux);
        landing.end();
        return switch (r) {
            case Landing.LANDED -> {
                c.responses.addAtomicResult(frameSeq, landing.previous());
                c.output.kickForResponses();
                yield true;
            }
            case Landing.DROPPED -> true; // the Endpoint disconnected: unanswered
            default -> refuse(TcpFrame.RDMA_READ_RESPONSE, frameSeq, TcpFrame.STATUS_REMOTE_ACCESS) == null;
        };
    }

    /**
     * The payload of a write with immediate data landed: the first posted receive completes with
     * the immediate data and the write's length. With none posted, the write is refused as
     * receiver-not-ready, as a send is: the initiator writes it again after its backoff (the bytes
     * written meanwhile are written again, as IB's RNR retry does).
     */
    private void writeImmediateDone(TcpWire w) {
        if (!w.takeRecvForWire(rx)) {
            notReadyFrom = frameSeq;
            respond(TcpFrame.ACK, frameSeq, TcpFrame.STATUS_RNR, null, 0, 0, false);
            return;
        }
        w.recvDoneImmediate(rx, frameLength, frameAux, frameSolicitedWrite);
        rx.release();
        c.noteDriver(w.endpoint().recvEvd());
        acknowledge(frameSeq, frameLength);
        handled(TcpFrame.RDMA_WRITE_IMMEDIATE, 0);
    }

    /** Initiator side: the data of an RDMA read, from the socket into the local buffers. */
    private String onReadResponse(TcpWire w) {
        startFrame(TcpFrame.RDMA_READ_RESPONSE);
        String why = w.readTarget(frameSeq, frameAux, frameLength, rxRead);
        if (why != null) {
            return why;
        }
        if (rxRead.segments > 0 && !rxRead.memoryValid()) {
            // a local segment's LMR freed or memory closed, even one no byte would reach: as in
            // one JVM, which checks every segment of the read
            landing.end();
            w.readLostItsMemory(frameSeq);
            c.close();
            return ENDED;
        }
        if (rxRead.atomic() && frameAux == TcpFrame.STATUS_OK) {
            landing.intoScratch(); // the result, stored in the local buffer once whole
        } else {
            landing.intoSegments(rxRead, false);
        }
        return null;
    }

    /**
     * A landing moved on.
     *
     * @return {@code false} when the connection ended
     */
    private boolean landed(int r) {
        switch (r) {
            case Landing.LANDED -> {
                return frameDone();
            }
            case Landing.DROPPED -> {
                if (frameOp == TcpFrame.SEND && landing.abandoned()) {
                    rxTaken = false; // the flush that abandoned the landing completed the receive
                }
                if (frameOp != TcpFrame.RDMA_READ_RESPONSE) {
                    frameOp = -1; // the Endpoint disconnected: the rest goes nowhere, and unanswered
                }
                return true; // the landing skips the rest
            }
            case Landing.WINDOW_GONE -> {
                landing.end();
                return refuse(TcpFrame.ACK, frameSeq, TcpFrame.STATUS_REMOTE_ACCESS) == null;
            }
            case Landing.MEMORY_GONE -> {
                landing.end();
                return memoryGone();
            }
            default -> {
                // the stream ended inside the payload
                int op = frameOp;
                landing.end();
                completeTakenReceive(DtoCompletionStatus.ERR_FLUSHED);
                return violation(op == TcpFrame.SEND ? "truncated send" : op == TcpFrame.RDMA_WRITE ? "truncated RDMA write"
                        : op == TcpFrame.RDMA_READ_RESPONSE ? "truncated read response"
                        : op == TcpFrame.ATOMIC_REQUEST ? "truncated atomic"
                        : op == TcpFrame.RDMA_WRITE_IMMEDIATE ? "truncated RDMA write with immediate data" : "truncated payload");
            }
        }
    }

    /** The destination's memory went away while the payload landed: as a protection error in one JVM. */
    private boolean memoryGone() {
        return memoryGoneAt(frameOp);
    }

    private boolean memoryGoneAt(int op) {
        switch (op) {
            case TcpFrame.SEND -> {
                completeTakenReceive(DtoCompletionStatus.ERR_LOCAL_PROTECTION);
                return refuse(TcpFrame.ACK, frameSeq, TcpFrame.STATUS_REMOTE_ACCESS) == null;
            }
            case TcpFrame.RDMA_READ_RESPONSE -> {
                // the read's LMR freed or its arena closed: not the peer's fault, so no protocol error
                c.wire().readLostItsMemory(frameSeq);
                c.close();
                return false;
            }
            default -> {
                return refuse(TcpFrame.ACK, frameSeq, TcpFrame.STATUS_REMOTE_ACCESS) == null;
            }
        }
    }

    /** The payload of the current frame is consumed: its completion and answer. */
    private boolean frameDone() {
        int op = frameOp;
        frameOp = 0;
        if (op == TcpFrame.ATOMIC_REQUEST) {
            return atomicDone();
        }
        // an atomic's result is stored while the landing still holds the atomic (a flush waits for it)
        int stored = op == TcpFrame.RDMA_READ_RESPONSE && rxRead.atomic() && frameAux == TcpFrame.STATUS_OK && rxRead.segments > 0
                ? landing.storeResult(rxRead) : Landing.LANDED;
        landing.end();
        switch (op) {
            case TcpFrame.SEND -> {
                completeTakenReceive(DtoCompletionStatus.SUCCESS);
                c.noteDriver(c.wire().endpoint().recvEvd());
                acknowledge(frameSeq, frameLength);
            }
            case TcpFrame.RDMA_WRITE -> acknowledge(frameSeq, frameLength);
            case TcpFrame.RDMA_WRITE_IMMEDIATE -> {
                writeImmediateDone(c.wire());
                return true;
            }
            case TcpFrame.RDMA_READ_RESPONSE -> {
                if (stored == Landing.MEMORY_GONE) {
                    rxRead.release();
                    return memoryGoneAt(TcpFrame.RDMA_READ_RESPONSE);
                }
                rxRead.release(); // the copy keeps no LMR, nor its memory, reachable
                String why = c.wire().complete(frameSeq, frameAux, true);
                c.noteDriver(c.wire().endpoint().requestEvd());
                if (why != null) {
                    return violation(why);
                }
            }
            case NOT_READY -> {
                respond(TcpFrame.ACK, frameSeq, TcpFrame.STATUS_RNR, null, 0, 0, false);
                return true;
            }
            case REFUSE -> {
                refusalSkipped();
                return true;
            }
            default -> {
                return true; // skipped
            }
        }
        handled(op, frameAux);
        return true;
    }

    /** Completes the receive taken for the current send, once. */
    private void completeTakenReceive(int status) {
        if (!rxTaken) {
            return;
        }
        rxTaken = false;
        boolean success = status == DtoCompletionStatus.SUCCESS;
        c.wire().recvDone(rx, status, success ? frameLength : 0, success && (frameAux & TcpFrame.SOLICITED) != 0);
        rx.release(); // the copy keeps no LMR, nor its memory, reachable
    }

    /**
     * Refuses the current request: its payload is skipped, then the refusal answered, after which
     * both sides break and nothing more is read. A frame cut short is a violation, not answered.
     */
    private String refuse(int op, long seq, int status) {
        landing.end();
        frameOp = REFUSE;
        frameSeq = seq;
        refusalOp = op;
        refusalStatus = status;
        landing.skip();
        return null;
    }

    /** The refused frame's payload is skipped: the refusal goes out. */
    private void refusalSkipped() {
        if (c.reuse.ending()) {
            // sent before the peer read this side's DISCONNECT, which flushes it there: unanswered,
            // and reading goes on to the peer's DISCONNECT, the socket's hand-over
            landing.end();
            frameOp = 0;
            return;
        }
        respond(refusalOp, frameSeq, refusalStatus, null, 0, 0, true);
        refused();
    }

    private void refused() {
        refusing = true;
        c.readInterest(false); // nothing more is read: the connection ends once the refusal is out
        refusingSince = System.nanoTime();
        landing.end();
        frameOp = 0;
    }

    /** Target side: the send or write {@code seq} of {@code payloadBytes} succeeded; its ACK waits in the ring. */
    private void acknowledge(long seq, long payloadBytes) {
        respond(TcpFrame.ACK, seq, TcpFrame.STATUS_OK, null, 0, payloadBytes, false);
    }

    /**
     * Queues an answer. A successful ACK is held (see {@link Responses}); any other goes at once:
     * written by this thread when the output is idle, else by the agent before the end of a batch.
     */
    private void respond(int op, long seq, int status, RemoteWindow window, long offset, long length, boolean breakAfter) {
        boolean lazy = op == TcpFrame.ACK && status == TcpFrame.STATUS_OK && !breakAfter;
        if (!lazy && op == TcpFrame.ACK && !breakAfter && c.output.respondNow(seq, status)) {
            return;
        }
        c.responses.add(op, seq, status, window, offset, lazy ? 0 : length, breakAfter);
        if (lazy) {
            if (c.responses.held(length)) {
                flushAcks();
            }
        } else {
            c.output.kickForResponses();
        }
    }

    /**
     * The socket is drained and held ACKs are due. A consumer reading from its wait leaves them
     * for its next request, which takes them into the same write (a ping-pong's reply carries the
     * ACK of the message it answers); the agent sends them after its lease if none comes.
     */
    private void dueAcks() {
        if (!c.agent().driven()) {
            flushAcks();
        } else if (!ackTimerArmed) {
            ackTimerArmed = true;
            c.agent().defer(flushIfStillDue);
        }
    }

    private boolean ackTimerArmed;
    /** Made once: a timer per drained socket allocates nothing. */
    private final Runnable flushIfStillDue;

    private void flushIfStillDue() {
        ackTimerArmed = false;
        if (c.responses.acksDue && !c.isClosed()) {
            flushAcks();
        }
    }

    /** The held ACKs go out: by this thread when the output is idle, else by the agent. */
    private void flushAcks() {
        c.responses.released();
        c.output.flushAcks();
    }

    /**
     * The payload goes on when the socket brings more: the ACKs for what was read go out now, and
     * a large rest raises the socket's low-water mark, so the kernel wakes the agent once per
     * megabyte instead of once per few segments.
     */
    private void awaitingPayload(SocketChannel ch) {
        if (c.responses.acksDue) {
            flushAcks();
        }
        long rest = reader.payloadOnTheSocket();
        if (rest >= LOW_WATER_FROM && c.lowWater() != null) {
            int mark = ReceiveLowWater.forPayload(rest);
            if (c.setLowWater(ch, mark) && lowWaterSince == 0) {
                lowWaterSince = System.nanoTime();
            }
        } else {
            lowerLowWater(ch);
        }
    }

    /** Sets the low-water mark back to one byte: between frames anything read is welcome. */
    void lowerLowWater(SocketChannel ch) {
        if (lowWaterSince != 0) {
            lowWaterSince = 0;
            c.setLowWater(ch, 1);
        }
    }
}
