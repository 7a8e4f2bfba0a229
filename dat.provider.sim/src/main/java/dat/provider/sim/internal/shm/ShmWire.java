package dat.provider.sim.internal.shm;

import dat.api.CompletionFlags;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.provider.sim.internal.core.SimEndpoint;
import dat.provider.sim.internal.core.SimLmr;
import dat.provider.sim.internal.core.Wire;
import dat.provider.sim.internal.core.Wr;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The Endpoint's side of one shared-memory connection: its requests as records of the request
 * ring it produces (numbered from 0, in queue order), and their completions from the peer's
 * acknowledgement word and response ring; the target side of the peer's requests is its
 * {@link ShmTarget}. Every method runs with the Endpoint's lock held (the {@link Wire} calls, and
 * {@link ShmSession#poll}), which also makes this side the one producer of its rings; none blocks.
 *
 * <p>Requests complete in order: a send, RDMA write or write with immediate data once the peer's
 * acknowledgement passes its sequence number, an RDMA read or atomic with its READ_RESPONSE, any
 * request with a NAK (the peer refused it, and the connection breaks). A request larger than a
 * fragment goes as a first record and CONTINUATIONs, as the ring makes room. A send or write of at
 * least {@link #BY_REFERENCE_FROM} bytes whose every segment lies in a file of {@code /dev/shm}
 * the peer has mapped goes by reference: one record of descriptors, and the peer copies the bytes
 * straight from the file.
 */
final class ShmWire implements Wire {

    /** Sends and writes from this size on go by reference when their memory allows. */
    static final long BY_REFERENCE_FROM = 32 * 1024;

    private static final int FULL = 1;
    private static final int ENDED = 2;
    private static final int DONE = 0;
    // what this side knows of a file it announced
    private static final byte ANNOUNCED = 1;
    private static final byte ACCEPTED = 2;
    private static final byte REFUSED = 3;

    final ShmSession session;
    final SimEndpoint ep;
    final ShmTarget target;
    private final Fences fences;
    private final SharedSources sources;
    private final Ring tx;
    private final Ring responses;
    private final Ring peerRequests;
    private final ShmRecord rec = new ShmRecord();
    private final long fragment;
    /** Requests on the ring, counted from the head; the last may be partly written ({@link #txLeft}). */
    private int txCount;
    private long txSeq;
    /** The sequence number of the head request: the next to complete. */
    private long rxSeq;
    private long txLeft;
    private long txDone;
    /** The peer's acknowledgement last read: sends and writes before it are done. */
    private long acked;
    /** A request waits for room in the ring. */
    private boolean blocked;
    /** Bytes of the head read's response landed. */
    private long readLanded;
    /** Which requests in flight hand memory by reference, by sequence number modulo its length. */
    private final boolean[] byReference;
    // the files announced to the peer, by id
    private final SharedSources.Source[] files = new SharedSources.Source[ShmRecord.MAX_FILES];
    private final byte[] fileState = new byte[ShmRecord.MAX_FILES];
    /** The Endpoint left this wire: nothing more is written. */
    private boolean left;
    /** Why the peer's records broke the connection, for the session to report once the lock is released. */
    private String violation;
    /** Records were published and the peer asked for a doorbell. */
    private boolean doorbellDue;

    ShmWire(ShmSession session, SimEndpoint ep, SharedSources sources) {
        this.session = session;
        this.ep = ep;
        this.fences = session.fences();
        this.sources = sources;
        RingFile f = session.file();
        this.tx = f.txRequests;
        this.responses = f.rxResponses;
        this.peerRequests = f.rxRequests;
        this.fragment = f.capacity() / 8;
        this.byReference = new boolean[Math.max(16, Integer.highestOneBit(Math.max(1, ep.attributes().maxRequestDtos())) * 2)];
        this.target = new ShmTarget(this, session, f);
    }

    // ---------------------------------------------------------------------------------------------
    // Wire: the Endpoint's calls, with its lock held
    // ---------------------------------------------------------------------------------------------

    @Override
    public boolean requestsQueued(SimEndpoint e, boolean posted) {
        if (!session.enter()) {
            return false; // the connection is over, and its end flushes the request
        }
        try {
            pump();
        } catch (InternalError x) {
            fail("the ring file was cut short");
        } finally {
            session.exit();
        }
        afterCoreCall();
        if (!doorbellDue) {
            return false;
        }
        doorbellDue = false;
        if (posted) {
            return true; // rung by transmitNow, once the lock is released
        }
        session.control().ringDoorbell();
        return false;
    }

    @Override
    public void transmitNow(SimEndpoint e) {
        session.control().ringDoorbell();
    }

    @Override
    public void receivesAvailable(SimEndpoint e) {
        if (!target.stalled() || !session.enter()) {
            return;
        }
        try {
            target.process(Integer.MAX_VALUE, false); // a send or write with immediate data waits for this receive
        } catch (InternalError x) {
            fail("the ring file was cut short");
        } finally {
            session.exit();
        }
        afterCoreCall();
        if (doorbellDue) {
            doorbellDue = false;
            session.control().ringDoorbell();
        }
    }

    /** After a call of the core's found a violation: this side breaks now, the report waits for the next poll. */
    private void afterCoreCall() {
        if (violation != null) {
            if (ep.connectedThrough(this)) {
                ep.breakConnection();
            }
            session.reportLater(takeViolation());
        }
    }

    @Override
    public SimEndpoint localPeer(SimEndpoint e) {
        return null;
    }

    @Override
    public Wr.Recv leave(SimEndpoint e, boolean broken) {
        if (session.enter()) {
            try {
                target.flushAcknowledgement(); // the sends that landed complete at the peer as given
            } catch (InternalError cutShort) {
                // the file cut short by the peer: it gets no acknowledgement, this side still leaves
            } finally {
                session.exit();
            }
        }
        left = true;
        txCount = 0;
        txLeft = 0;
        blocked = false;
        fences.shareEnded(true);
        Wr.Recv taken = target.leave();
        if (broken) {
            session.control().breakOff();
        } else {
            session.control().disconnect();
        }
        return taken;
    }

    // ---------------------------------------------------------------------------------------------
    // the session's calls, with the lock held
    // ---------------------------------------------------------------------------------------------

    /** Whether the Endpoint is still connected through this wire and may move bytes. */
    boolean live() {
        EpState s = ep.state();
        return !left && ep.connectedThrough(this) && (s == EpState.CONNECTED || s == EpState.DISCONNECT_PENDING);
    }

    /** Whether anything may be waiting: a record, an acknowledgement, room for what waits. No lock; inside the mappings ({@link MappingUsers}). */
    boolean pending() {
        return responses.pending() || peerRequests.pending() || peerRequests.acknowledged() != acked || blocked
                || target.waiting() || target.acknowledgementOwed();
    }

    /** Whether this side waits for the peer to make room (the peer rings no doorbell for it). */
    boolean waitingForSpace() {
        return blocked || target.waiting();
    }

    /**
     * One round: the peer's answers to this side's requests, the peer's requests, then what this
     * side can transmit now.
     *
     * @return the records handled and written, 0 when there was nothing
     */
    int process(int budget, boolean deferAck) {
        if (!live()) {
            return 0;
        }
        int work = answers();
        if (violation == null && live()) {
            work += target.process(budget, deferAck);
        }
        if (violation == null && live() && (blocked || txCount < ep.requestCount())) {
            long before = tx.tail();
            pump();
            work += tx.tail() != before ? 1 : 0;
        }
        if (violation != null && ep.connectedThrough(this)) {
            ep.breakConnection();
        }
        return work;
    }

    /** Before the connection is taken as lost: the answers the peer gave before its end complete as given. */
    void drain() {
        if (live()) {
            answers();
            if (violation != null && ep.connectedThrough(this)) {
                ep.breakConnection();
            }
        }
    }

    /** Why the peer's records broke the connection, taken once; {@code null} when none. */
    String takeViolation() {
        String v = violation;
        violation = null;
        return v;
    }

    /**
     * The peer's records break the connection. Kept only while the Endpoint has not left this
     * wire: once it left, the connection is over on this side, and a peer that reuses the ring
     * file for its next connection (socket reuse) may already have started its words again.
     */
    void fail(String why) {
        if (violation == null && !left) {
            violation = why;
        }
    }

    /** Under the lock: records were published; the peer may want its doorbell. */
    void published() {
        if (session.file().peerWantsDoorbell()) {
            doorbellDue = true;
        }
    }

    /** Whether a doorbell is due, taking it; with the lock held. */
    boolean takeDoorbell() {
        boolean due = doorbellDue;
        doorbellDue = false;
        return due;
    }

    // ---------------------------------------------------------------------------------------------
    // transmitting
    // ---------------------------------------------------------------------------------------------

    /** Writes the queued requests that fit into the ring, in order, and publishes them. */
    private void pump() {
        if (!live() || violation != null) {
            return;
        }
        boolean wrote = false;
        try {
            for (;;) {
                if (txLeft > 0) {
                    int r = continueRequest();
                    if (r != DONE) {
                        blocked = r == FULL;
                        break;
                    }
                    wrote = true;
                    continue;
                }
                if (txCount >= ep.requestCount()) {
                    blocked = false;
                    break;
                }
                Wr.Request wr = ep.requestAt(txCount);
                if (wr.op == Wr.Request.BIND) {
                    if (txCount != 0) {
                        blocked = false;
                        break; // completes in order, after the requests before it
                    }
                    ep.completeHead(DtoCompletionStatus.SUCCESS, 0);
                    if (ep.finishGraceful()) {
                        return;
                    }
                    continue;
                }
                if ((wr.flags & CompletionFlags.BARRIER_FENCE) != 0 && readInFlight()) {
                    blocked = false;
                    break; // starts once the reads and atomics before it completed
                }
                int r = start(wr);
                if (r != DONE) {
                    blocked = r == FULL;
                    break;
                }
                wrote = true;
            }
        } finally {
            if (wrote && !left) {
                target.flushAcknowledgement(); // before the requests' mark: the peer's round that finds them reads it too
                tx.publish();
                published();
            }
        }
        if (tx.violation() != null) {
            fail(tx.violation());
        }
    }

    private boolean readInFlight() {
        for (int i = 0; i < txCount; i++) {
            if (ep.requestAt(i).readsRemote()) {
                return true;
            }
        }
        return false;
    }

    /** The first record of a request; {@link #DONE} once it is on the ring. */
    private int start(Wr.Request wr) {
        int op = wr.op;
        long seq = txSeq;
        int r;
        if (op == Wr.Request.RDMA_READ) {
            r = header(ShmRecord.RDMA_READ_REQUEST, 0, wr.remoteContext, 0, seq, wr.remoteAddress, wr.remoteLength);
        } else if (wr.atomic()) {
            r = atomic(wr, seq);
        } else {
            int opcode = op == Wr.Request.SEND ? ShmRecord.SEND : op == Wr.Request.RDMA_WRITE ? ShmRecord.RDMA_WRITE
                    : ShmRecord.RDMA_WRITE_IMMEDIATE;
            int flags = (op == Wr.Request.SEND || op == Wr.Request.WRITE_IMMEDIATE) && (wr.flags & CompletionFlags.SOLICITED_WAIT) != 0
                    ? ShmRecord.SOLICITED : 0;
            int aux = op == Wr.Request.WRITE_IMMEDIATE ? wr.immediate : 0;
            int ctx = op == Wr.Request.SEND ? 0 : wr.remoteContext;
            long address = op == Wr.Request.SEND ? 0 : wr.remoteAddress;
            if (!wr.memoryValid()) {
                return localMemoryGone(wr);
            }
            byReference[(int) (seq & (byReference.length - 1))] = false;
            r = wr.total >= BY_REFERENCE_FROM ? byReference(wr, opcode, flags, ctx, aux, seq, address) : FULL;
            if (r == FULL) {
                r = byValue(wr, opcode, flags, ctx, aux, seq, address);
            }
        }
        if (r == DONE) {
            txCount++;
            txSeq++;
        }
        return r;
    }

    private int header(int opcode, int flags, int ctx, int aux, long seq, long address, long total) {
        long p = tx.claim(ShmRecord.HEADER_BYTES);
        if (p < 0) {
            return FULL;
        }
        tx.putHeader(p, ShmRecord.HEADER_BYTES, opcode, flags, ctx, aux, seq, address, total);
        tx.commit(ShmRecord.HEADER_BYTES);
        return DONE;
    }

    private int atomic(Wr.Request wr, long seq) {
        int length = ShmRecord.HEADER_BYTES + ShmRecord.ATOMIC_PAYLOAD_BYTES;
        long p = tx.claim(length);
        if (p < 0) {
            return FULL;
        }
        int aux = wr.op == Wr.Request.FETCH_AND_ADD ? ShmRecord.FETCH_AND_ADD : ShmRecord.COMPARE_AND_SWAP;
        tx.putHeader(p, length, ShmRecord.ATOMIC_REQUEST, 0, wr.remoteContext, aux, seq, wr.remoteAddress, ShmRecord.ATOMIC_RESULT_BYTES);
        long at = tx.offset(p) + ShmRecord.HEADER_BYTES;
        tx.data().set(ValueLayout.JAVA_LONG, at, wr.operand);
        tx.data().set(ValueLayout.JAVA_LONG, at + Long.BYTES, wr.swap);
        tx.commit(length);
        return DONE;
    }

    /** A send's or write's first fragment, its bytes copied into the ring. */
    private int byValue(Wr.Request wr, int opcode, int flags, int ctx, int aux, long seq, long address) {
        long n = Math.min(wr.total, fragment);
        int length = (int) (ShmRecord.HEADER_BYTES + n);
        long p = tx.claim(length);
        if (p < 0) {
            return FULL;
        }
        int more = n < wr.total ? ShmRecord.MORE : 0;
        tx.putHeader(p, length, opcode, flags | more, ctx, aux, seq, address, wr.total);
        int r = Copies.gather(wr, 0, tx.data(), tx.offset(p) + ShmRecord.HEADER_BYTES, n, fences);
        if (r != Copies.OK) {
            return copyFailed(wr, r);
        }
        tx.commit(length);
        txLeft = wr.total - n;
        txDone = n;
        return DONE;
    }

    /** The next fragment of the request last begun. */
    private int continueRequest() {
        Wr.Request wr = ep.requestAt(txCount - 1);
        long n = Math.min(txLeft, fragment);
        int length = (int) (ShmRecord.HEADER_BYTES + n);
        long p = tx.claim(length);
        if (p < 0) {
            return FULL;
        }
        tx.putHeader(p, length, ShmRecord.CONTINUATION, n < txLeft ? ShmRecord.MORE : 0, 0, 0, txSeq - 1, 0, 0);
        int r = Copies.gather(wr, txDone, tx.data(), tx.offset(p) + ShmRecord.HEADER_BYTES, n, fences);
        if (r != Copies.OK) {
            return copyFailed(wr, r);
        }
        tx.commit(length);
        txLeft -= n;
        txDone += n;
        return DONE;
    }

    private int copyFailed(Wr.Request wr, int r) {
        if (r == Copies.MEMORY_GONE) {
            return localMemoryGone(wr);
        }
        fail("the ring's mapping failed");
        return ENDED;
    }

    /**
     * A request's own memory went away while it was transmitted: it completes with
     * {@code DAT_DTO_ERR_LOCAL_PROTECTION} (as in one JVM) and the connection breaks (a record
     * begun cannot be taken back).
     */
    private int localMemoryGone(Wr.Request wr) {
        wr.failedWith = DtoCompletionStatus.ERR_LOCAL_PROTECTION;
        ep.breakConnection();
        return ENDED;
    }

    /**
     * A send or write by reference, when every segment lies in a file the peer mapped; else
     * {@link #FULL} (it goes by value), after announcing a file the peer has not heard of.
     */
    private int byReference(Wr.Request wr, int opcode, int flags, int ctx, int aux, long seq, long address) {
        if (wr.segments == 0) {
            return FULL;
        }
        for (int i = 0; i < wr.segments; i++) {
            SharedSources.Source s = sources.of(wr.lmrs[i]);
            if (s == null || fileId(s) < 0) {
                return FULL;
            }
        }
        int length = ShmRecord.HEADER_BYTES + wr.segments * ShmRecord.DESCRIPTOR_BYTES;
        long p = tx.claim(length);
        if (p < 0) {
            return FULL;
        }
        tx.putHeader(p, length, opcode, flags | ShmRecord.BY_REFERENCE, ctx, aux, seq, address, wr.total);
        MemorySegment d = tx.data();
        long at = tx.offset(p) + ShmRecord.HEADER_BYTES;
        for (int i = 0; i < wr.segments; i++) {
            SimLmr lmr = wr.lmrs[i];
            SharedSources.Source s = sources.of(lmr);
            d.set(ValueLayout.JAVA_INT, at, fileId(s));
            d.set(ValueLayout.JAVA_INT, at + 4, 0);
            d.set(ValueLayout.JAVA_LONG, at + 8, s.offset() + wr.offsets[i]);
            d.set(ValueLayout.JAVA_LONG, at + 16, wr.lengths[i]);
            fences.shareStarted(s.address() + wr.offsets[i], s.address() + wr.offsets[i] + wr.lengths[i]);
            at += ShmRecord.DESCRIPTOR_BYTES;
        }
        tx.commit(length);
        byReference[(int) (seq & (byReference.length - 1))] = true;
        return DONE;
    }

    /** The id of the file of {@code s} the peer accepted; -1 when none (announced now if it can be). */
    private int fileId(SharedSources.Source s) {
        int free = -1;
        for (int id = 0; id < files.length; id++) {
            SharedSources.Source f = files[id];
            if (f == null) {
                if (free < 0) {
                    free = id;
                }
            } else if (f.inode() == s.inode() && f.name().equals(s.name()) && f.size() >= s.size()) {
                return fileState[id] == ACCEPTED ? id : -1;
            }
        }
        if (free >= 0) {
            announce(free, s);
        }
        return -1;
    }

    /** A FILE record: the peer maps the file and answers (FILE_ANSWER); until then requests go by value. */
    private void announce(int id, SharedSources.Source s) {
        byte[] name = s.name().getBytes(StandardCharsets.US_ASCII);
        int length = ShmRecord.HEADER_BYTES + ShmRecord.FILE_FIXED_BYTES + name.length;
        long p = tx.claim(length);
        if (p < 0) {
            return;
        }
        tx.putHeader(p, length, ShmRecord.FILE, 0, id, 0, 0, 0, 0);
        long at = tx.offset(p) + ShmRecord.HEADER_BYTES;
        tx.data().set(ValueLayout.JAVA_LONG, at, s.inode());
        tx.data().set(ValueLayout.JAVA_LONG, at + 8, s.size());
        MemorySegment.copy(MemorySegment.ofArray(name), 0, tx.data(), at + ShmRecord.FILE_FIXED_BYTES, name.length);
        tx.commit(length);
        files[id] = s;
        fileState[id] = ANNOUNCED;
    }

    // ---------------------------------------------------------------------------------------------
    // the answers to this side's requests
    // ---------------------------------------------------------------------------------------------

    /** Completes what the peer acknowledged and the response records it wrote; the records handled. */
    private int answers() {
        int work = 0;
        if (peerRequests.acknowledged() != acked) {
            if (!readAcknowledgement()) {
                return work;
            }
            work++;
        }
        completeAcknowledged();
        while (live() && violation == null && responses.next(rec)) {
            String why = rec.validate(false, Integer.MAX_VALUE);
            if (why != null) {
                fail(why);
                break;
            }
            if (!answer()) {
                break;
            }
            responses.consume(rec);
            work++;
        }
        if (responses.violation() != null) {
            fail(responses.violation());
        }
        if (responses.release()) {
            published(); // room in the response ring: a target waiting for it may sleep armed
        }
        if (work > 0) {
            session.control().noteDriver(ep.requestEvd());
        }
        return work;
    }

    /** Reads the peer's acknowledgement: it only grows, up to the last request written whole. */
    private boolean readAcknowledgement() {
        long a = peerRequests.acknowledged();
        long whole = txLeft > 0 ? txSeq - 1 : txSeq;
        if (a < acked || a > whole) {
            fail("an acknowledgement of requests not sent (" + a + ", " + whole + " sent)");
            return false;
        }
        acked = a;
        return true;
    }

    /** Completes the sends and writes at the head that the acknowledgement covers. */
    private void completeAcknowledged() {
        boolean any = false;
        while (txCount > 0 && rxSeq < acked) {
            Wr.Request head = ep.requestAt(0);
            if (head.readsRemote()) {
                break; // its READ_RESPONSE comes
            }
            long len = head.total;
            takeHead();
            ep.completeHead(DtoCompletionStatus.SUCCESS, len);
            any = true;
        }
        if (any && !ep.finishGraceful()) {
            pump(); // a bind or a fenced request behind may go now
        }
    }

    /** One response record for the head request; whether it was handled (else the connection breaks). */
    private boolean answer() {
        if (rec.opcode == ShmRecord.FILE_ANSWER) {
            int id = rec.context;
            if (fileState[id] != ANNOUNCED) {
                fail("an answer to a file not announced");
                return false;
            }
            fileState[id] = rec.aux == ShmRecord.FILE_ACCEPTED ? ACCEPTED : REFUSED;
            return true;
        }
        if (rec.seq != rxSeq && rec.opcode != ShmRecord.CONTINUATION) {
            // the acknowledgement of the sends before it was published first
            if (!readAcknowledgement()) {
                return false;
            }
            completeAcknowledged();
        }
        if (txCount == 0 || rec.seq != rxSeq || !live()) {
            fail("a response to no request in flight (seq " + rec.seq + ")");
            return false;
        }
        Wr.Request head = ep.requestAt(0);
        switch (rec.opcode) {
            case ShmRecord.NAK -> {
                if (head.readsRemote() || readLanded > 0) {
                    fail("a NAK for a read");
                    return false;
                }
                takeHead();
                ep.completeHead(rec.aux == ShmRecord.STATUS_REMOTE_ACCESS ? DtoCompletionStatus.ERR_REMOTE_ACCESS
                        : DtoCompletionStatus.ERR_REMOTE_RESPONDER, 0);
                ep.breakConnection();
                return false;
            }
            case ShmRecord.READ_RESPONSE -> {
                long expected = head.atomic() ? ShmRecord.ATOMIC_RESULT_BYTES : head.remoteLength;
                if (!head.readsRemote() || readLanded > 0 || (rec.aux == ShmRecord.STATUS_OK && rec.total != expected)) {
                    fail("a read response of the wrong kind or length for seq " + rec.seq);
                    return false;
                }
                if (rec.aux != ShmRecord.STATUS_OK) {
                    takeHead();
                    ep.completeHead(DtoCompletionStatus.ERR_REMOTE_ACCESS, 0);
                    ep.breakConnection();
                    return false;
                }
                return land(head, expected);
            }
            default -> { // CONTINUATION
                if (!head.readsRemote() || readLanded == 0) {
                    fail("a continuation of no response");
                    return false;
                }
                return land(head, head.remoteLength);
            }
        }
    }

    /** A read response's fragment into the head read's buffers; the read completes with the last. */
    private boolean land(Wr.Request head, long total) {
        int n = rec.payload();
        if (readLanded + n > total || (readLanded + n < total) != rec.more()) {
            fail("a read response longer or shorter than the read");
            return false;
        }
        int r = Copies.scatter(responses.data(), responses.payloadOffset(), n, head, readLanded, fences);
        if (r != Copies.OK) {
            if (r == Copies.SHARED_GONE) {
                fail("the ring's mapping failed");
                return false;
            }
            // the read's LMR freed or its memory closed: as in one JVM
            takeHead();
            ep.completeHead(DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0);
            ep.breakConnection();
            return false;
        }
        readLanded += n;
        if (readLanded == total) {
            takeHead();
            ep.completeHead(DtoCompletionStatus.SUCCESS, total);
            completeAcknowledged();
        }
        return true;
    }

    /** The head request's answer came: it is no longer in flight. */
    private void takeHead() {
        if (byReference[(int) (rxSeq & (byReference.length - 1))]) {
            byReference[(int) (rxSeq & (byReference.length - 1))] = false;
            fences.shareEnded(false);
        }
        txCount--;
        rxSeq++;
        readLanded = 0;
    }
}
