package dat.provider.sim.internal.shm;

import dat.api.DtoCompletionStatus;
import dat.api.MemPrivileges;
import dat.api.ext.IbExtension;
import dat.provider.sim.internal.core.AtomicOperand;
import dat.provider.sim.internal.core.RemoteWindow;
import dat.provider.sim.internal.core.SimEndpoint;
import dat.provider.sim.internal.core.Wr;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The target side of one shared-memory connection: the peer's requests, read from its request
 * ring in order, checked as in one JVM before a byte moves, executed, and answered: sends and
 * writes with this side's acknowledgement word ({@link #finish}: at the round's end or with this
 * side's next requests; large ones as they land), reads and atomics
 * with READ_RESPONSE records, refusals with a NAK (or a READ_RESPONSE with status
 * REMOTE_ACCESS), after which this side breaks. Runs under the Endpoint's lock, like the wire.
 *
 * <p>A send (or a write with immediate data) that finds no receive posted waits at the head of
 * the ring, unconsumed, with everything behind it, until a receive is posted
 * ({@link ShmWire#receivesAvailable}): the infinite receiver-not-ready retry of an RC queue pair,
 * as in one JVM, with nothing sent again. A request whose answer finds the response ring full
 * waits the same way until the peer makes room.
 */
final class ShmTarget {

    /** What handling one record gave. */
    private static final int CONSUMED = 0;
    private static final int STALLED = 1;
    private static final int ENDED = 2;
    /** Sends and writes of this size on are acknowledged as they land, not at the round's end. */
    static final long ACK_AT_ONCE_FROM = 32 * 1024;

    private final ShmWire wire;
    private final SimEndpoint ep;
    private final ShmSession session;
    private final Fences fences;
    private final PeerFiles peerFiles;
    private final Ring requests;
    private final Ring answers;
    private final ShmRecord rec = new ShmRecord();
    private final long fragment;
    /** The receive a send or write with immediate data lands in, taken from the Endpoint. */
    private final Wr.Recv rx;
    private boolean rxTaken;
    /** The peer's next request's sequence number. */
    private long expected;
    /** This side's acknowledgement: the sequence number after the last send or write done, and the one published. */
    private long ack;
    private long ackPublished;
    // the request landing now, in fragments
    private int landOp;
    private long landSeq;
    private long landTotal;
    private long landDone;
    private int landAux;
    private boolean landSolicited;
    private RemoteWindow landWindow;
    private long landOffset;
    // the read response being written
    private boolean responding;
    private long respSeq;
    private RemoteWindow respWindow;
    private long respOffset;
    private long respTotal;
    private long respDone;
    // the refusal to write, after which this side breaks
    private boolean refusing;
    private int refuseOp;
    private int refuseStatus;
    private long refuseSeq;
    private long refusingSince;
    /** A send waits for a receive, or an answer for room. */
    private boolean stalled;
    private boolean stalledForRoom;

    ShmTarget(ShmWire wire, ShmSession session, RingFile file) {
        this.wire = wire;
        this.ep = wire.ep;
        this.session = session;
        this.fences = session.fences();
        this.peerFiles = session.peerFiles();
        this.requests = file.rxRequests;
        this.answers = file.txResponses;
        this.fragment = file.capacity() / 8;
        this.rx = new Wr.Recv(ep.recvIovLimit());
    }

    /** Whether a send waits for a receive. */
    boolean stalled() {
        return stalled;
    }

    /** Whether an answer waits for room in the response ring, or a refusal to go out. */
    boolean waiting() {
        return stalledForRoom || responding || refusing;
    }

    /**
     * The Endpoint leaves: the receive taken for a send in progress is the caller's to complete
     * flushed (no byte lands in it any more: landing happens under the same lock).
     */
    Wr.Recv leave() {
        responding = false;
        respWindow = null;
        landWindow = null;
        refusing = false;
        if (rxTaken) {
            rxTaken = false;
            return rx;
        }
        return null;
    }

    /**
     * Handles the peer's requests: at most {@code budget} records.
     *
     * @param deferAck whether the acknowledgement of small requests may wait for this side's next
     *     publication or round ({@link #finish}): only on the I/O agent's thread, which polls again
     *     before it sleeps; a consumer's round publishes it, since its thread may not poll again soon
     * @return the records handled and answers written
     */
    int process(int budget, boolean deferAck) {
        stalled = false;
        stalledForRoom = false;
        long ackBefore = ack;
        int work = 0;
        try {
            while (work < budget && wire.live()) {
                if (refusing) {
                    writeRefusal();
                    return work + 1;
                }
                if (responding) {
                    if (!respond()) {
                        break;
                    }
                    work++;
                    continue;
                }
                if (!requests.next(rec)) {
                    if (requests.violation() != null) {
                        wire.fail(requests.violation());
                    }
                    break;
                }
                String why = rec.validate(true, Integer.MAX_VALUE);
                if (why != null) {
                    wire.fail(why);
                    break;
                }
                int r = handle();
                if (r == STALLED) {
                    break;
                }
                if (r == ENDED) {
                    return work + 1;
                }
                requests.consume(rec);
                work++;
            }
        } finally {
            finish(deferAck && ack != ackBefore); // an acknowledgement owed from an earlier round goes now
        }
        return work;
    }

    /**
     * The round's end: records consumed and answers given go to the peer, the acknowledgement
     * before the responses (an initiator that meets a response ahead of its head request reads the
     * acknowledgement once more, and must find the requests before it acknowledged). The
     * acknowledgement of small sends and writes alone waits for this side's next publication
     * ({@link #flushAcknowledgement}: the peer's round that finds those requests reads it too) or the next
     * round, whoever polls, unless the peer sleeps on its doorbell.
     *
     * @param mayDefer whether the acknowledgement may wait: it moved in this round (a round that
     *     finds one owed publishes it), and this side does not break
     */
    private void finish(boolean mayDefer) {
        boolean owed = ack != ackPublished;
        boolean defer = owed && mayDefer && !answers.unpublished() && !session.file().peerSleeps();
        // room made in the request ring counts: a producer waiting for it may sleep armed
        boolean any = requests.release() | answers.unpublished() || owed && !defer;
        if (!defer) {
            flushAcknowledgement();
        }
        answers.publish();
        if (any) {
            wire.published();
        }
    }

    /** Whether an acknowledgement waits for the next publication or round. */
    boolean acknowledgementOwed() {
        return ack != ackPublished;
    }

    /** Publishes the acknowledgement if it moved; with the lock held. */
    void flushAcknowledgement() {
        if (ack != ackPublished) {
            ackPublished = ack;
            session.file().txRequests.acknowledge(ack);
        }
    }

    /** One record at the head of the request ring. */
    private int handle() {
        int op = rec.opcode;
        if (op == ShmRecord.FILE) {
            return file();
        }
        if (op == ShmRecord.CONTINUATION) {
            if (landOp == 0 || rec.seq != landSeq) {
                return violation("a continuation of no request in progress");
            }
            return land();
        }
        if (landOp != 0) {
            return violation("a new request before the last one's fragments");
        }
        if (rec.seq != expected) {
            return violation("request seq " + rec.seq + " where " + expected + " was due");
        }
        return switch (op) {
            case ShmRecord.SEND -> send();
            case ShmRecord.RDMA_WRITE -> write();
            case ShmRecord.RDMA_READ_REQUEST -> read();
            case ShmRecord.ATOMIC_REQUEST -> atomic();
            default -> writeImmediate();
        };
    }

    private int violation(String why) {
        wire.fail(why);
        return ENDED;
    }

    // ---------------------------------------------------------------------------------------------
    // the requests
    // ---------------------------------------------------------------------------------------------

    /**
     * A send: into the first posted receive (or an SRQ buffer), which must be alive and large
     * enough. A send whole in its record lands straight in the receive where it lies in the
     * receive ring, completed before the lock is let go, as in one JVM; a send in fragments or by
     * reference lands in a copy of the receive ({@link #rx}), since the ring may move on meanwhile.
     */
    private int send() {
        boolean whole = !rec.more() && (rec.flags & ShmRecord.BY_REFERENCE) == 0;
        Wr.Recv rv = takeReceive(whole);
        if (rv == null) {
            return STALLED;
        }
        // a segment's LMR freed or its memory closed: the receive fails LOCAL_PROTECTION, the sender REMOTE_ACCESS
        int unfit = !rv.memoryValid() ? DtoCompletionStatus.ERR_LOCAL_PROTECTION
                : rec.total > rv.total ? DtoCompletionStatus.ERR_LOCAL_LENGTH : DtoCompletionStatus.SUCCESS;
        if (unfit != DtoCompletionStatus.SUCCESS) {
            completeReceive(rv, unfit, 0, false);
            return refuse(ShmRecord.NAK, unfit == DtoCompletionStatus.ERR_LOCAL_PROTECTION ? ShmRecord.STATUS_REMOTE_ACCESS
                    : ShmRecord.STATUS_REMOTE_LENGTH);
        }
        landSolicited = (rec.flags & ShmRecord.SOLICITED) != 0;
        if (whole) {
            return landWhole(rv);
        }
        begin(ShmRecord.SEND, null, 0);
        return land();
    }

    /** The send whole in the current record, into the receive {@code rv} taken in place; completed here. */
    private int landWhole(Wr.Recv rv) {
        int n = rec.payload(); // the whole message: validated against the total
        int r = Copies.scatter(requests.data(), requests.payloadOffset(), n, rv, 0, fences);
        if (r == Copies.SHARED_GONE) {
            completeReceive(rv, DtoCompletionStatus.ERR_FLUSHED, 0, false);
            return session.alive() ? violation("a shared mapping failed under a copy") : ENDED;
        }
        if (r == Copies.MEMORY_GONE) {
            completeReceive(rv, DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0, false);
            return refuse(ShmRecord.NAK, ShmRecord.STATUS_REMOTE_ACCESS);
        }
        expected++;
        completeReceive(rv, DtoCompletionStatus.SUCCESS, n, landSolicited);
        ack = rec.seq + 1;
        if (n >= ACK_AT_ONCE_FROM) {
            flushAcknowledgement();
        }
        return CONSUMED;
    }

    /** An RDMA write: the window checked for the whole range, then the bytes land in it. */
    private int write() {
        RemoteWindow w = window(rec.total, MemPrivileges.REMOTE_WRITE);
        if (w == null) {
            return refuse(ShmRecord.NAK, ShmRecord.STATUS_REMOTE_ACCESS);
        }
        begin(ShmRecord.RDMA_WRITE, w, rec.address - w.memoryBase());
        return land();
    }

    /** An RDMA write with immediate data: the window checked; a receive taken (or it waits); the bytes land. */
    private int writeImmediate() {
        RemoteWindow w = window(rec.total, MemPrivileges.REMOTE_WRITE);
        if (w == null) {
            return refuse(ShmRecord.NAK, ShmRecord.STATUS_REMOTE_ACCESS);
        }
        if (takeReceive(false) == null) {
            return STALLED;
        }
        begin(ShmRecord.RDMA_WRITE_IMMEDIATE, w, rec.address - w.memoryBase());
        landAux = rec.aux;
        landSolicited = (rec.flags & ShmRecord.SOLICITED) != 0;
        return land();
    }

    /** An RDMA read: the window checked; the answer is written from it as the response ring makes room. */
    private int read() {
        RemoteWindow w = window(rec.total, MemPrivileges.REMOTE_READ);
        if (w == null) {
            return refuse(ShmRecord.READ_RESPONSE, ShmRecord.STATUS_REMOTE_ACCESS);
        }
        expected++;
        responding = true;
        respSeq = rec.seq;
        respWindow = w;
        respOffset = rec.address - w.memoryBase();
        respTotal = rec.total;
        respDone = 0;
        return CONSUMED;
    }

    /** An atomic: checked for the remote-atomic privilege, applied as one CPU atomic, answered with the value before it. */
    private int atomic() {
        RemoteWindow w = window(Long.BYTES, IbExtension.MEM_PRIV_REMOTE_ATOMIC);
        if (w == null) {
            return refuse(ShmRecord.READ_RESPONSE, ShmRecord.STATUS_REMOTE_ACCESS);
        }
        int length = ShmRecord.HEADER_BYTES + ShmRecord.ATOMIC_RESULT_BYTES;
        long p = answers.claim(length);
        if (p < 0) {
            return roomLacking();
        }
        long at = requests.payloadOffset();
        long operand = requests.data().get(ValueLayout.JAVA_LONG, at);
        long swap = requests.data().get(ValueLayout.JAVA_LONG, at + Long.BYTES);
        long offset = rec.address - w.memoryBase();
        MemorySegment memory;
        long previous;
        try {
            memory = w.windowMemory();
            fences.mark(w);
            try {
                if (!w.windowValid()) {
                    return refuse(ShmRecord.READ_RESPONSE, ShmRecord.STATUS_REMOTE_ACCESS);
                }
                previous = AtomicOperand.apply(rec.aux == ShmRecord.FETCH_AND_ADD ? Wr.Request.FETCH_AND_ADD : Wr.Request.CMP_AND_SWAP,
                        operand, swap, memory, offset);
            } finally {
                fences.unmark();
            }
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            return refuse(ShmRecord.READ_RESPONSE, ShmRecord.STATUS_REMOTE_ACCESS); // the memory's arena closed
        }
        answers.putHeader(p, length, ShmRecord.READ_RESPONSE, 0, 0, ShmRecord.STATUS_OK, rec.seq, 0, ShmRecord.ATOMIC_RESULT_BYTES);
        answers.data().set(ValueLayout.JAVA_LONG, answers.offset(p) + ShmRecord.HEADER_BYTES, previous);
        answers.commit(length);
        expected++;
        return CONSUMED;
    }

    /**
     * The target side's checks of the in-JVM path ({@link SimEndpoint#remoteWindow}: context,
     * IA, PZ, the remote privilege {@code needed}, bounds, memory alive), and that the Endpoint is
     * still connected through this connection.
     */
    private RemoteWindow window(long length, int needed) {
        RemoteWindow w = ep.remoteWindow(rec.context, rec.address, length, needed);
        return w != null && ep.connectedThrough(wire) ? w : null;
    }

    /** A FILE record: the peer's file mapped if it is what it says, and the answer written. */
    private int file() {
        long p = answers.claim(ShmRecord.HEADER_BYTES);
        if (p < 0) {
            return roomLacking();
        }
        long at = requests.payloadOffset();
        MemorySegment d = requests.data();
        long inode = d.get(ValueLayout.JAVA_LONG, at);
        long size = d.get(ValueLayout.JAVA_LONG, at + 8);
        byte[] name = d.asSlice(at + ShmRecord.FILE_FIXED_BYTES, rec.payload() - ShmRecord.FILE_FIXED_BYTES)
                .toArray(ValueLayout.JAVA_BYTE);
        String why = peerFiles.announce(rec.context, inode, size, new String(name, StandardCharsets.US_ASCII));
        if (why == PeerFiles.DUPLICATE) {
            return violation(why);
        }
        answers.putHeader(p, ShmRecord.HEADER_BYTES, ShmRecord.FILE_ANSWER, 0, rec.context,
                why == null ? ShmRecord.FILE_ACCEPTED : ShmRecord.FILE_REFUSED, 0, 0, 0);
        answers.commit(ShmRecord.HEADER_BYTES);
        return CONSUMED;
    }

    // ---------------------------------------------------------------------------------------------
    // landing
    // ---------------------------------------------------------------------------------------------

    /**
     * The first posted receive (or an SRQ buffer): {@code inPlace}, as it lies in the receive
     * ring, to be completed before the lock is let go; else its copy {@link #rx}, which the
     * Endpoint still counts as posted until it completes.
     *
     * @return the receive, or {@code null} when there is none: the request waits for one
     */
    private Wr.Recv takeReceive(boolean inPlace) {
        Wr.Recv rv = inPlace ? ep.takeRecv() : ep.takeRecvInto(rx) ? rx : null;
        if (rv == null) {
            stalled = ep.connectedThrough(wire); // else taking it broke the connection (an SRQ's hard watermark)
        } else if (rv == rx) {
            rxTaken = true;
        }
        return rv;
    }

    private void begin(int op, RemoteWindow w, long offset) {
        landOp = op;
        landSeq = rec.seq;
        landTotal = rec.total;
        landDone = 0;
        landWindow = w;
        landOffset = offset;
        expected++;
    }

    /** The current record's bytes (or the bytes its descriptors name) into the request's destination. */
    private int land() {
        int r;
        long n;
        if ((rec.flags & ShmRecord.BY_REFERENCE) != 0) {
            n = rec.total;
            r = landByReference();
            if (r < 0) {
                return ENDED;
            }
        } else {
            n = rec.payload();
            if (landDone + n > landTotal || (landDone + n < landTotal) != rec.more()) {
                return violation("fragments longer or shorter than their request");
            }
            r = landOp == ShmRecord.SEND ? Copies.scatter(requests.data(), requests.payloadOffset(), n, rx, landDone, fences)
                    : Copies.intoWindow(requests.data(), requests.payloadOffset(), landWindow, landOffset + landDone, n, fences);
        }
        if (r == Copies.SHARED_GONE) {
            return session.alive() ? violation("a shared mapping failed under a copy") : ENDED;
        }
        if (r == Copies.MEMORY_GONE) {
            return memoryGone();
        }
        landDone += n;
        if (landDone == landTotal) {
            landed();
        }
        return CONSUMED;
    }

    /** The descriptors of a by-reference record, each copied from the peer's file; the copy status, or -1 (a violation). */
    private int landByReference() {
        MemorySegment d = requests.data();
        long at = requests.payloadOffset();
        int count = rec.payload() / ShmRecord.DESCRIPTOR_BYTES;
        long sum = 0;
        for (int i = 0; i < count; i++, at += ShmRecord.DESCRIPTOR_BYTES) {
            int id = d.get(ValueLayout.JAVA_INT, at);
            long offset = d.get(ValueLayout.JAVA_LONG, at + 8);
            long length = d.get(ValueLayout.JAVA_LONG, at + 16);
            MemorySegment file = peerFiles.range(id, offset, length);
            if (file == null || d.get(ValueLayout.JAVA_INT, at + 4) != 0 || length > rec.total - sum) {
                wire.fail("a descriptor outside the files announced, or longer than its request");
                return -1;
            }
            int r = landOp == ShmRecord.SEND ? Copies.scatter(file, offset, length, rx, sum, fences)
                    : Copies.intoWindow(file, offset, landWindow, landOffset + sum, length, fences);
            if (r != Copies.OK) {
                return r;
            }
            sum += length;
        }
        if (sum != rec.total) {
            wire.fail("descriptors that do not add up to their request");
            return -1;
        }
        return Copies.OK;
    }

    /** The request's bytes all landed: its completion and acknowledgement. */
    private void landed() {
        int op = landOp;
        landOp = 0;
        landWindow = null;
        if (op == ShmRecord.SEND) {
            completeReceive(DtoCompletionStatus.SUCCESS, landTotal);
        } else if (op == ShmRecord.RDMA_WRITE_IMMEDIATE) {
            rxTaken = false;
            ep.completeRecvImmediate(rx, DtoCompletionStatus.SUCCESS, landTotal, landAux, landSolicited);
            rx.release();
            session.control().noteDriver(ep.recvEvd());
        }
        ack = landSeq + 1;
        if (landTotal >= ACK_AT_ONCE_FROM) {
            flushAcknowledgement(); // the initiator's window refills while the round copies the requests behind this one
        }
    }

    /** The destination's memory went away (its LMR freed, its arena closed, its window revoked): refused, as in one JVM. */
    private int memoryGone() {
        if (landOp == ShmRecord.SEND) {
            completeReceive(DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0);
        } else if (rxTaken) {
            completeReceive(DtoCompletionStatus.ERR_FLUSHED, 0); // a write with immediate data's receive
        }
        landOp = 0;
        landWindow = null;
        return refuse(ShmRecord.NAK, ShmRecord.STATUS_REMOTE_ACCESS);
    }

    /** Completes the copy {@link #rx} of the receive a request lands in, if it holds one. */
    private void completeReceive(int status, long length) {
        if (rxTaken) {
            completeReceive(rx, status, length, status == DtoCompletionStatus.SUCCESS && landSolicited);
        }
    }

    /** Completes a receive taken: one in place, or the copy {@link #rx}, which then lets go of its LMRs. */
    private void completeReceive(Wr.Recv rv, int status, long length, boolean solicited) {
        if (rv == rx) {
            rxTaken = false;
        }
        ep.completeRecv(rv, status, length, solicited);
        if (rv == rx) {
            rx.release();
        }
        session.control().noteDriver(ep.recvEvd());
    }

    // ---------------------------------------------------------------------------------------------
    // answers
    // ---------------------------------------------------------------------------------------------

    /** The next fragment of the read response; whether it went (else it waits for room). */
    private boolean respond() {
        long n = Math.min(respTotal - respDone, fragment);
        int length = (int) (ShmRecord.HEADER_BYTES + n);
        long p = answers.claim(length);
        if (p < 0) {
            roomLacking();
            return false;
        }
        int more = respDone + n < respTotal ? ShmRecord.MORE : 0;
        if (respDone == 0) {
            answers.putHeader(p, length, ShmRecord.READ_RESPONSE, more, 0, ShmRecord.STATUS_OK, respSeq, 0, respTotal);
        } else {
            answers.putHeader(p, length, ShmRecord.CONTINUATION, more, 0, 0, respSeq, 0, 0);
        }
        int r = Copies.fromWindow(respWindow, respOffset + respDone, answers.data(), answers.offset(p) + ShmRecord.HEADER_BYTES, n,
                fences);
        if (r != Copies.OK) {
            responding = false;
            respWindow = null;
            if (respDone == 0 && r == Copies.MEMORY_GONE) {
                // freed or revoked since the request was read: refused as it would have been then
                refuseSeq = respSeq;
                refusing = true;
                refuseOp = ShmRecord.READ_RESPONSE;
                refuseStatus = ShmRecord.STATUS_REMOTE_ACCESS;
                refusingSince = System.nanoTime();
                return true;
            }
            // revoked in the middle of a response begun: the connection breaks
            wire.fail(r == Copies.MEMORY_GONE ? "the window of a read response in progress was revoked" : "the ring's mapping failed");
            return false;
        }
        answers.commit(length);
        respDone += n;
        if (respDone == respTotal) {
            responding = false;
            respWindow = null;
        }
        return true;
    }

    /** No room in the answers ring: wait for the peer to consume, unless the position it gave was refused. */
    private int roomLacking() {
        String why = answers.violation();
        if (why != null) {
            return violation(why);
        }
        stalledForRoom = true;
        return STALLED;
    }

    /**
     * Refuses the current request: the refusal is written (as soon as there is room), after which
     * both sides break and nothing more is read.
     */
    private int refuse(int op, int status) {
        refusing = true;
        refuseOp = op;
        refuseStatus = status;
        refuseSeq = rec.seq;
        refusingSince = System.nanoTime();
        requests.consume(rec);
        writeRefusal();
        return ENDED;
    }

    /** Writes the refusal with the acknowledgements before it, then breaks; within 2 s, or it breaks anyway. */
    private void writeRefusal() {
        long p = answers.claim(ShmRecord.HEADER_BYTES);
        String refused = answers.violation(); // a consumer position the peer gave that no room will follow
        if (p < 0 && refused == null && System.nanoTime() - refusingSince < 2_000_000_000L) {
            stalledForRoom = true;
            return;
        }
        refusing = false;
        if (p >= 0) {
            answers.putHeader(p, ShmRecord.HEADER_BYTES, refuseOp, 0, 0, refuseStatus, refuseSeq, 0, 0);
            answers.commit(ShmRecord.HEADER_BYTES);
        } else if (refused != null) {
            wire.fail(refused);
        }
        finish(false);
        ep.breakConnection();
    }
}
