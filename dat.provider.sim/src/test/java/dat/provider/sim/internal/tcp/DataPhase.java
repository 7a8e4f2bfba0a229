package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.RawFrames.LIMITS;
import static dat.provider.sim.internal.tcp.RawFrames.header;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EvdFlags;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.RemoteMemoryRegion;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Fabric;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The target's side of the data-phase fuzz and the attacker that drives it, with the valid frames
 * it sends (its malformed ones: {@link MalformedDataFrames}, its flipped ones:
 * {@link FlippedDataFrames}). The target's Endpoints are in a PZ of their own, with EVDs of their
 * own (the good pair's are another thread's); its memory holds the windows the attacker may
 * reach, between guard bytes:
 *
 * <pre>
 * [W, +W_LEN)      read and write through an LMR; write only through a second one
 * [B, +B_LEN)      an LMR of local access only, with an RMR bound over its middle
 *                  [B + BOUND, +BOUND_LEN) anew for each connection: read and write there
 *                  (around it, guard bytes that the RMR's own memory holds)
 * [RO, +RO_LEN)    remote read only; never changes
 * [R, +R_LEN)      local only: the receives, the target's own sends and reads
 * </pre>
 */
final class DataPhase {

    static final int W = 1024;
    static final int W_LEN = 1024;
    static final int B = 2048;
    static final int B_LEN = 1024;
    static final int BOUND = 256;
    static final int BOUND_LEN = 512;
    static final int RO = 3072;
    static final int RO_LEN = 256;
    static final int R = 4096;
    static final int R_LEN = 1024;
    static final int SIZE = 6144;

    /** Where a context lets a peer reach: {@code length} bytes from {@code address}, at {@code offset} of the memory. */
    record Window(int context, long address, int offset, int length) {}

    /** A receive posted on a raw peer's Endpoint, at {@code offset} of the local area. */
    record Recv(long cookie, int offset, int length) {}

    /** A frame: a header and {@code payload}. */
    static byte[] frame(int op, int ctx, int aux, long seq, long addr, byte[] payload) {
        byte[] f = header(op, payload.length, ctx, aux, seq, addr, payload.length);
        System.arraycopy(payload, 0, f, TcpFrame.HEADER_BYTES, payload.length);
        return f;
    }

    /** What the fuzz sent and saw. */
    static final class Tally {
        long frames;
        long valid;
        long malformed;
        long refused;
        long counted;
        long flips;
        long flipsServed;
        long flipsCounted;
        long flipsRefused;
        long connections;
        final java.util.Map<String, Long> kinds = new java.util.TreeMap<>();

        @Override
        public String toString() {
            return frames + " frames on " + connections + " connections: " + valid + " valid, " + malformed
                    + " malformed by construction (" + counted + " counted as violations, " + refused + " refused), " + flips
                    + " bit-flipped (" + flipsServed + " served, " + flipsCounted + " counted, " + flipsRefused
                    + " refused, the rest valid but ending their connections)";
        }
    }

    final Tally tally = new Tally();
    final SplittableRandom rnd;
    private final AttackedIa attacked;
    /** The IA under attack. */
    final Fabric.Side target;
    private final ProtectionZone pz;
    final EventDispatcher recvEvd;
    final EventDispatcher reqEvd;
    final EventDispatcher connEvd;
    private final EventDispatcher crEvd;
    /** This thread's events: the Sides' are the good pair's, on another thread. */
    final DatEvent event = new DatEvent();
    final MemorySegment memory;
    /** What {@link #memory} must hold outside W and the RMR's range: guard bytes (random), RO, and R where nothing of the peer landed. */
    private final byte[] expected = new byte[SIZE];
    final LocalMemoryRegion whole;
    private final LocalMemoryRegion underRmr;
    private final LocalMemoryRegion writeOnly;
    private final LocalMemoryRegion readOnly;
    final LocalMemoryRegion local;
    private final RemoteMemoryRegion rmr;
    private int boundContext;
    /** Windows valid once: the RMR's earlier binds, LMRs over W since freed. */
    final List<Window> stale = new ArrayList<>();
    long cookies;
    private final MalformedDataFrames malformedFrames;
    private final FlippedDataFrames flippedFrames;

    DataPhase(AttackedIa attacked, SplittableRandom rnd) {
        this.attacked = attacked;
        target = attacked.target;
        pz = target.ia.createProtectionZone();
        recvEvd = evd(EvdFlags.DTO);
        reqEvd = evd(EvdFlags.DTO | EvdFlags.RMR_BIND);
        connEvd = evd(EvdFlags.CONNECTION);
        crEvd = evd(EvdFlags.CR);
        memory = attacked.pair.fb.memory(SIZE);
        this.rnd = rnd;
        target.ia.createPublicServicePoint(2, crEvd, PspFlag.CONSUMER);
        rnd.nextBytes(expected);
        MemorySegment.copy(MemorySegment.ofArray(expected), 0, memory, 0, SIZE);
        int mp = MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE;
        whole = target.ia.registerMemory(memory.asSlice(W, W_LEN), pz, MemPrivileges.ALL);
        writeOnly = target.ia.registerMemory(memory.asSlice(W, W_LEN), pz, mp | MemPrivileges.REMOTE_WRITE);
        underRmr = target.ia.registerMemory(memory.asSlice(B, B_LEN), pz, mp);
        readOnly = target.ia.registerMemory(memory.asSlice(RO, RO_LEN), pz, MemPrivileges.READ);
        local = target.ia.registerMemory(memory.asSlice(R, R_LEN), pz, mp);
        rmr = pz.createRemoteMemoryRegion();
        malformedFrames = new MalformedDataFrames(this);
        flippedFrames = new FlippedDataFrames(this);
    }

    private static final int QLEN = 16;

    private EventDispatcher evd(int flags) {
        return target.ia.createEventDispatcher(QLEN, null, flags);
    }

    /** The TCP transport of the IA under attack. */
    TcpTransport transport() {
        return attacked.transport();
    }

    /** Lets go of the last event this side dequeued, which holds its Endpoint, before a footprint is taken. */
    void dropLastEvent() {
        event.clear();
    }

    Window whole() {
        return new Window(whole.rmrContext(), whole.registeredAddress(), W, W_LEN);
    }

    Window bound() {
        return new Window(boundContext, underRmr.registeredAddress() + BOUND, B + BOUND, BOUND_LEN);
    }

    Window writeOnly() {
        return new Window(writeOnly.rmrContext(), writeOnly.registeredAddress(), W, W_LEN);
    }

    Window readOnly() {
        return new Window(readOnly.rmrContext(), readOnly.registeredAddress(), RO, RO_LEN);
    }

    Window writable() {
        return switch (rnd.nextInt(3)) {
            case 0 -> whole();
            case 1 -> bound();
            default -> writeOnly();
        };
    }

    Window readable() {
        return switch (rnd.nextInt(3)) {
            case 0 -> whole();
            case 1 -> bound();
            default -> readOnly();
        };
    }

    /** The contexts that are valid now (an LMR of local access only has none: 0). */
    java.util.Set<Integer> live() {
        return java.util.Set.of(whole.rmrContext(), writeOnly.rmrContext(), readOnly.rmrContext(), boundContext, target.lmr.rmrContext());
    }

    /** Connections until {@code frames} more frames were sent. */
    void run(long frames) throws Exception {
        for (long end = tally.frames + frames; tally.frames < end;) {
            connection();
        }
    }

    /** One raw peer: valid frames, flipped ones, until a malformed one (or a DISCONNECT) ends it. */
    private void connection() throws Exception {
        Endpoint ep = target.ia.createEndpoint(pz, recvEvd, reqEvd, connEvd, null);
        try (Socket s = attacked.rawPeer(ep, 0, crEvd, connEvd, event)) {
            Link l = new Link(ep, s);
            rebind(ep);
            while (!l.ended) {
                int r = rnd.nextInt(100);
                if (r < 60) {
                    valid(l);
                } else if (r < 78) {
                    flippedFrames.flipped(l);
                } else if (r < 98) {
                    malformedFrames.hostile(l, malformedFrames.malformed(l));
                } else {
                    disconnect(l);
                }
            }
        }
        ep.close();
        checkMemory();
        tally.connections++;
    }

    /** Binds the RMR anew through {@code ep}; its earlier context and, now and then, a freed LMR's go stale. */
    private void rebind(Endpoint ep) {
        if (boundContext != 0) {
            stale(bound());
        }
        boundContext = rmr.bind(LmrTriplet.of(underRmr, BOUND, BOUND_LEN), MemPrivileges.REMOTE_READ
                | MemPrivileges.REMOTE_WRITE, ep, ++cookies, 0);
        assertThat(Fabric.Side.expect(reqEvd, EventNumber.RMR_BIND_COMPLETION_EVENT, event).status())
                .isEqualTo(DtoCompletionStatus.SUCCESS);
        if (tally.connections % 8 == 0) {
            LocalMemoryRegion freed = target.ia.registerMemory(memory.asSlice(W, W_LEN), pz, MemPrivileges.ALL);
            stale(new Window(freed.rmrContext(), freed.registeredAddress(), W, W_LEN));
            freed.close();
        }
    }

    private void stale(Window w) {
        stale.add(w);
        if (stale.size() > 64) {
            stale.remove(0);
        }
    }

    /** The raw peer of one connection. */
    final class Link {
        final Endpoint ep;
        final Socket s;
        final java.io.OutputStream out;
        final InputStream in;
        long seq = 1;
        /** Receives posted on the Endpoint and not completed, oldest first. */
        final java.util.ArrayDeque<Recv> recvs = new java.util.ArrayDeque<>();
        /** The cookie of the target's request that a malformed or flipped frame answers, else 0. */
        long pendingRequest;
        /** Where in R its answer (a read response) may land, else -1. */
        int pendingOffset = -1;
        int pendingLength;
        /** How it completed when the connection ended: not successfully. */
        int pendingStatus;
        boolean ended;

        Link(Endpoint ep, Socket s) throws IOException {
            this.ep = ep;
            this.s = s;
            this.out = s.getOutputStream();
            this.in = s.getInputStream();
        }

        /** The headers sent, for the messages of failures. */
        final List<String> sent = new ArrayList<>();

        void send(byte[] frame) throws IOException {
            sent(frame);
            out.write(frame);
            tally.frames++;
        }

        void sent(byte[] frame) {
            sent.add(HexFormat.of().formatHex(frame, 0, Math.min(frame.length, TcpFrame.HEADER_BYTES)));
        }

        /**
         * The target's next frame but NOPs, {@code null} at the end of the stream or a reset.
         * Its NOPs do not extend the wait: a frame the target does not end the connection on
         * within 5 s is one it took for valid (its liveness timeout, 10 s, would end it
         * later, a violation too).
         */
        TcpFrame nextOrEnd() throws IOException {
            long deadline = System.nanoTime() + 5_000_000_000L;
            for (;;) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    throw new AssertionError("the target neither answered nor ended the connection in 5 s after " + String.join(" ", sent));
                }
                s.setSoTimeout((int) left);
                byte[] h;
                try {
                    h = in.readNBytes(TcpFrame.HEADER_BYTES);
                } catch (SocketTimeoutException e) {
                    continue;
                } catch (java.net.SocketException reset) {
                    return null;
                }
                if (h.length < TcpFrame.HEADER_BYTES) {
                    return null;
                }
                TcpFrame f = new TcpFrame();
                assertThat(f.decode(ByteBuffer.wrap(h), LIMITS)).as("a frame of the target's").isNull();
                if (f.opcode != TcpFrame.NOP) {
                    s.setSoTimeout(5_000); // for its payload
                    return f;
                }
            }
        }

        /** The target's answer to a valid request: {@code op} for {@code seq} with {@code status}; its payload is next. */
        TcpFrame answer(int op, long seq, int status) throws IOException {
            TcpFrame a = nextOrEnd();
            if (a == null) {
                DatEvent e = new DatEvent();
                throw new AssertionError("the connection ended before the answer to request " + seq + " (event "
                        + (connEvd.dequeue(e) == DatReturn.SUCCESS ? EventNumber.name(e.eventNumber()) : "none")
                        + ", violations " + transport().violations.get() + ") after " + String.join(" ", sent));
            }
            assertThat(TcpFrame.opcodeName(a.opcode)).as("the answer to request %d", seq).isEqualTo(TcpFrame.opcodeName(op));
            assertThat(a.seq).isEqualTo(seq);
            assertThat(a.aux).as("the status of the answer to request %d", seq).isEqualTo(status);
            return a;
        }
    }

    byte[] bytes(int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    Recv postRecv(Link l, int length) {
        Recv r = new Recv(++cookies, rnd.nextInt(R_LEN - length + 1), length);
        ok(l.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(local, r.offset, r.length)}, r.cookie, 0));
        l.recvs.add(r);
        return r;
    }

    /** The oldest receive completed with {@code len} bytes, {@code data} when not {@code null}. */
    void received(Link l, long len, byte[] data) {
        Recv r = l.recvs.poll();
        DatEvent e = Fabric.Side.expect(recvEvd, EventNumber.DTO_COMPLETION_EVENT, event);
        assertThat(e.userCookie()).isEqualTo(r.cookie);
        assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(e.transferredLength()).isEqualTo(len);
        if (data != null) {
            assertThat(memory.asSlice(R + r.offset, len).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(data);
        }
        landed(R + r.offset, len);
    }

    /** Bytes of R that a send or the target's read legitimately changed. */
    void landed(long offset, long len) {
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, offset, expected, (int) offset, (int) len);
    }

    /** Nothing outside W changed but where the peer's sends and the target's reads landed. */
    private void checkMemory() {
        landed(W, W_LEN); // the attacker's to write
        landed(B + BOUND, BOUND_LEN);
        assertThat(memory.mismatch(MemorySegment.ofArray(expected)))
                .as("the first byte changed outside the windows, at offset (W %d, RO %d, R %d)", W, RO, R).isEqualTo(-1);
    }

    // -----------------------------------------------------------------------------------------
    // valid frames

    private void valid(Link l) throws IOException {
        switch (rnd.nextInt(10)) {
            case 0, 1 -> write(l, writable(), false);
            case 2 -> write(l, whole(), true);
            case 3, 4 -> read(l, readable());
            case 5 -> sendIntoReceive(l);
            case 6 -> sendNotReady(l);
            case 7 -> {
                l.send(header(rnd.nextBoolean() ? TcpFrame.NOP : TcpFrame.ACK_REQUEST, 0, 0, 0, 0, 0, 0));
                tally.valid++;
            }
            case 8 -> targetSend(l);
            default -> targetRead(l);
        }
    }

    /** An RDMA write inside {@code w}; deferrable, its ACK asked for with an ACK_REQUEST. */
    private void write(Link l, Window w, boolean deferrable) throws IOException {
        int off = rnd.nextInt(w.length + 1);
        byte[] data = bytes(rnd.nextInt(Math.min(256, w.length - off) + 1));
        long seq = l.seq++;
        l.send(frame(TcpFrame.RDMA_WRITE, w.context, deferrable ? TcpFrame.ACK_DEFERRABLE : 0, seq, w.address + off, data));
        if (deferrable) {
            l.send(header(TcpFrame.ACK_REQUEST, 0, 0, 0, 0, 0, 0));
        }
        l.answer(TcpFrame.ACK, seq, TcpFrame.STATUS_OK);
        assertThat(memory.asSlice(w.offset + off, data.length).toArray(ValueLayout.JAVA_BYTE)).as("written").isEqualTo(data);
        tally.valid += deferrable ? 2 : 1;
    }

    /** An RDMA read inside {@code w}: the bytes there come back. */
    private void read(Link l, Window w) throws IOException {
        int off = rnd.nextInt(w.length + 1);
        int len = rnd.nextInt(Math.min(512, w.length - off) + 1);
        long seq = l.seq++;
        l.send(header(TcpFrame.RDMA_READ_REQUEST, 0, w.context, len, seq, w.address + off, 0));
        assertThat(l.answer(TcpFrame.RDMA_READ_RESPONSE, seq, TcpFrame.STATUS_OK).payloadLength).isEqualTo(len);
        assertThat(l.in.readNBytes(len)).as("read").isEqualTo(memory.asSlice(w.offset + off, len).toArray(ValueLayout.JAVA_BYTE));
        tally.valid++;
    }

    /** A send that fits the oldest receive posted (one is posted if there is none). */
    private void sendIntoReceive(Link l) throws IOException {
        Recv r = l.recvs.isEmpty() ? postRecv(l, 1 + rnd.nextInt(320)) : l.recvs.peek();
        byte[] data = bytes(rnd.nextInt(r.length + 1));
        long seq = l.seq++;
        l.send(frame(TcpFrame.SEND, 0, rnd.nextBoolean() ? TcpFrame.SOLICITED : 0, seq, 0, data));
        l.answer(TcpFrame.ACK, seq, TcpFrame.STATUS_OK);
        received(l, data.length, data);
        tally.valid++;
    }

    /** A send before any receive: receiver not ready; once one is posted, the same send again lands. */
    private void sendNotReady(Link l) throws IOException {
        if (!l.recvs.isEmpty()) {
            sendIntoReceive(l);
            return;
        }
        byte[] data = bytes(rnd.nextInt(257));
        long seq = l.seq++;
        byte[] f = frame(TcpFrame.SEND, 0, 0, seq, 0, data);
        l.send(f);
        l.answer(TcpFrame.ACK, seq, TcpFrame.STATUS_RNR);
        postRecv(l, Math.max(1, data.length + rnd.nextInt(64)));
        l.send(f);
        l.answer(TcpFrame.ACK, seq, TcpFrame.STATUS_OK);
        received(l, data.length, data);
        tally.valid += 2;
    }

    /** The target's Endpoint posts a send from R; the peer takes it and acknowledges it. */
    private void targetSend(Link l) throws IOException {
        long cookie = ++cookies;
        TcpFrame f = targetSendPosted(l, cookie);
        l.send(header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, f.seq, 0, 0));
        requestDone(cookie, true);
        tally.valid++;
    }

    /** Posts a send of the target's, and takes it: its header (its payload checked). */
    TcpFrame targetSendPosted(Link l, long cookie) throws IOException {
        int len = 1 + rnd.nextInt(256);
        int off = rnd.nextInt(R_LEN - len + 1);
        ok(l.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(local, off, len)}, cookie, 0));
        TcpFrame f = l.nextOrEnd();
        assertThat(f).as("the target's send").isNotNull();
        assertThat(TcpFrame.opcodeName(f.opcode)).isEqualTo("SEND");
        assertThat(f.payloadLength).isEqualTo(len);
        assertThat(l.in.readNBytes(len)).isEqualTo(memory.asSlice(R + off, len).toArray(ValueLayout.JAVA_BYTE));
        return f;
    }

    /** The target's Endpoint posts an RDMA read into R; the peer answers it with random bytes, which land. */
    private void targetRead(Link l) throws IOException {
        long cookie = ++cookies;
        TcpFrame f = targetReadPosted(l, cookie);
        byte[] data = bytes(f.aux);
        l.send(frame(TcpFrame.RDMA_READ_RESPONSE, 0, TcpFrame.STATUS_OK, f.seq, 0, data));
        requestDone(cookie, true);
        int off = (int) (readAt - local.registeredAddress());
        assertThat(memory.asSlice(R + off, data.length).toArray(ValueLayout.JAVA_BYTE)).as("read into R").isEqualTo(data);
        landed(R + off, data.length);
        tally.valid++;
    }

    /** The local address of the target's last read. */
    long readAt;

    /** Posts a read of the target's, and takes its request; {@code aux} is its length. */
    TcpFrame targetReadPosted(Link l, long cookie) throws IOException {
        int len = 1 + rnd.nextInt(256);
        int off = rnd.nextInt(R_LEN - len + 1);
        int context = rnd.nextInt();
        long address = rnd.nextLong();
        readAt = local.registeredAddress() + off;
        ok(l.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(local, off, len)}, cookie, new RmrTriplet(context, address, len), 0));
        TcpFrame f = l.nextOrEnd();
        assertThat(f).as("the target's read").isNotNull();
        assertThat(TcpFrame.opcodeName(f.opcode)).isEqualTo("RDMA_READ_REQUEST");
        assertThat(f.context).isEqualTo(context);
        assertThat(f.address).isEqualTo(address);
        assertThat(f.aux).isEqualTo(len);
        return f;
    }

    /** The target's request {@code cookie} completed: successfully, or not (flushed, or failed); its status. */
    private int requestDone(long cookie, boolean success) {
        DatEvent e = Fabric.Side.expect(reqEvd, EventNumber.DTO_COMPLETION_EVENT, event);
        assertThat(e.userCookie()).isEqualTo(cookie);
        if (success) {
            assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        } else {
            assertThat(e.status()).isNotEqualTo(DtoCompletionStatus.SUCCESS);
        }
        return e.status();
    }

    /** A graceful end: DISCONNECT; the target's Endpoint is DISCONNECTED, nothing counted. */
    private void disconnect(Link l) throws IOException {
        long before = transport().violations.get();
        l.send(header(TcpFrame.DISCONNECT, 0, 0, 0, 0, 0, 0));
        tally.valid++;
        for (TcpFrame a : rest(l)) {
            assertThat(TcpFrame.opcodeName(a.opcode)).as("after a DISCONNECT").isEqualTo("DISCONNECT");
        }
        ended(l, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(transport().violations.get() - before).as("violations counted for a DISCONNECT").isZero();
    }

    /**
     * The connection ended with {@code eventNumber} on the target's Endpoint, now DISCONNECTED;
     * the receives still posted complete, not successfully. A receive whose send was cut may
     * hold some of it: its buffer was the peer's to write.
     */
    void ended(Link l, int eventNumber) {
        assertThat(EventNumber.name(ended(l, false))).isEqualTo(EventNumber.name(eventNumber));
    }

    /**
     * {@link #ended(Link, int)}, with BROKEN or DISCONNECTED: which. After a {@code flipped}
     * frame, which may have been a send that landed before the end, the oldest receive may have
     * completed successfully.
     */
    int ended(Link l, boolean flipped) {
        DatEvent e = Fabric.Side.next(connEvd, event);
        assertThat(e.endpoint()).isSameAs(l.ep);
        int eventNumber = e.eventNumber();
        assertThat(EventNumber.name(eventNumber)).isIn(EventNumber.name(EventNumber.CONNECTION_EVENT_BROKEN),
                EventNumber.name(EventNumber.CONNECTION_EVENT_DISCONNECTED));
        assertThat(l.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        l.ended = true;
        for (Recv r; (r = l.recvs.poll()) != null; flipped = false) {
            DatEvent c = Fabric.Side.expect(recvEvd, EventNumber.DTO_COMPLETION_EVENT, event);
            assertThat(c.userCookie()).isEqualTo(r.cookie);
            if (!flipped || c.status() != DtoCompletionStatus.SUCCESS) {
                assertThat(c.status()).isNotEqualTo(DtoCompletionStatus.SUCCESS);
            }
            landed(R + r.offset, r.length);
        }
        if (l.pendingRequest != 0) {
            l.pendingStatus = requestDone(l.pendingRequest, false);
            if (l.pendingOffset >= 0) {
                landed(R + l.pendingOffset, l.pendingLength); // some of a cut response may have landed
            }
        }
        return eventNumber;
    }

    /** The rest of the target's frames, until the end of the stream; their payloads skipped. */
    List<TcpFrame> rest(Link l) throws IOException {
        List<TcpFrame> answers = new ArrayList<>();
        try {
            for (TcpFrame a; (a = l.nextOrEnd()) != null && skipped(l, a);) {
                answers.add(a);
            }
        } catch (AssertionError notEnded) {
            throw new AssertionError("the connection goes on after answers " + answers + ": " + notEnded.getMessage(), notEnded);
        }
        return answers;
    }

    /** Skips the payload of {@code a}: whether it came whole (not cut by a reset or the end). */
    boolean skipped(Link l, TcpFrame a) throws IOException {
        try {
            l.in.skipNBytes(a.payloadLength);
            return true;
        } catch (java.net.SocketException | java.io.EOFException reset) {
            return false;
        }
    }
}
