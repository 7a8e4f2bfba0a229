package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.tcp.TcpPair.transport;
import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.*;

import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.CloseFlag;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.api.RmrTriplet;
import java.io.DataInputStream;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Faults of the far side of a TCP connection, with a liveness timeout of 300 ms: a peer that
 * accepts and then neither reads nor writes (stalled, half-open), a reset, and an idle but live
 * pair that keepalives hold together. Every posted DTO is accounted for.
 */
@Timeout(60)
class TcpFaultTest {

    private final Fabric fa = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=300");
    private final Fabric.Side a = fa.new Side("tcpF", null, 1 << 20);
    private ServerSocket raw;
    private Socket rawPeer;

    @AfterEach
    void close() throws Exception {
        if (rawPeer != null) {
            rawPeer.close();
        }
        if (raw != null) {
            raw.close();
        }
        fa.close();
    }

    /** A raw TCP "IA" that accepts one connection request and then does what the test says. */
    private CompletableFuture<Socket> rawAcceptor() throws Exception {
        raw = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
        return CompletableFuture.supplyAsync(() -> {
            try {
                Socket s = raw.accept();
                DataInputStream in = new DataInputStream(s.getInputStream());
                byte[] h = new byte[TcpFrame.HEADER_BYTES];
                in.readFully(h);
                in.skipNBytes(ByteBuffer.wrap(h).getInt(4));
                ByteBuffer accept = ByteBuffer.allocate(TcpFrame.HEADER_BYTES);
                TcpFrame.encode(accept, TcpFrame.ACCEPT, 0, 0, 0, 0, 0);
                s.getOutputStream().write(accept.array());
                return s;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private void connectToRaw(CompletableFuture<Socket> peer) throws Exception {
        a.ep.connect(new java.net.InetSocketAddress(raw.getInetAddress(), raw.getLocalPort()), 1, Fabric.WAIT, null,
                Qos.BEST_EFFORT, 0);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        rawPeer = peer.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aPeerThatStopsReadingAndWriting_breaksWithinTheTimeout_everyDtoFlushed() throws Exception {
        connectToRaw(rawAcceptor());
        ok(a.ep.postRecv(0, null, -1, 0));
        // 32 MiB of RDMA writes: more than the socket buffers hold, so the writer blocks
        int posted = 0;
        for (int i = 0; i < 32; i++) {
            ok(a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 1 << 20)}, i,
                    new RmrTriplet(1234, 0x1000, 1 << 20), 0));
            posted++;
        }
        DatEvent c = a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(c.endpoint()).isSameAs(a.ep);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertFlushedInOrder(posted);
    }

    /**
     * The writer's write call fails on memory gone (an arena closed under a request in its
     * batch) while a flush holds the Endpoint's lock and waits for that write call to end
     * ({@code awaitWriteCall}, as a disconnect or a break does): the call counts as ended before
     * the writer takes the Endpoint's lock to fail the request, else each waits for the other
     * for good. The batch stalls on a peer that reads nothing; the arena closes between two write
     * calls; the test takes the Endpoint's lock; the peer reads, and the writer's next call fails.
     */
    @Test
    void aWriteCallFailingOnMemoryGone_whileAFlushWaitsForIt_endsForTheFlush() throws Exception {
        connectToRaw(rawAcceptor());
        TcpConnection wire = transport(a).connections().iterator().next();
        java.lang.foreign.Arena doomedArena = java.lang.foreign.Arena.ofShared();
        var doomed = a.ia.registerMemory(doomedArena.allocate(4096), a.pz, dat.api.MemPrivileges.ALL);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        Thread writeLockHolder = WireHooks.holdingTheWriteLock(wire, release);
        int writes = 8; // 8 MiB, then the doomed request: one gathered batch, more than the socket takes
        try {
            for (int i = 0; i < writes; i++) {
                ok(a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 1 << 20)}, i,
                        new RmrTriplet(1234, 0x1000, 1 << 20), 0));
            }
            ok(a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(doomed, 0, 4096)}, writes, new RmrTriplet(1234, 0x1000, 4096), 0));
        } finally {
            release.countDown();
            writeLockHolder.join(5_000);
        }
        Thread.sleep(200); // the writer fills the socket and waits for room, between two write calls
        for (long deadline = System.nanoTime() + 5_000_000_000L;;) {
            try {
                doomedArena.close();
                break;
            } catch (IllegalStateException inAWriteCall) {
                assertThat(System.nanoTime() - deadline).as("the arena closed within 5 s").isNegative();
                Thread.sleep(1);
            }
        }
        SimEndpoint ep = (SimEndpoint) a.ep;
        SpinLock lock = ep.acquire();
        Thread flush = null;
        try {
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    rawPeer.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
                } catch (java.io.IOException closed) {
                    // the connection broke
                }
            });
            assertThat(awaitThreadIn("localMemoryGone")).as("the writer, its call failed, waits for the Endpoint's lock").isTrue();
            flush = Thread.ofPlatform().daemon().start(wire::awaitWriteCall);
            flush.join(5_000);
            assertThat(flush.isAlive()).as("a flush waiting for the failed write call is still waiting").isFalse();
        } finally {
            lock.unlock();
        }
        for (int i = 0; i < writes; i++) {
            DatEvent d = a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(d.userCookie()).isEqualTo(i);
            assertThat(d.status()).as("write %d, never acknowledged", i).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        }
        DatEvent d = a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
        assertThat(d.userCookie()).isEqualTo(writes);
        assertThat(d.status()).as("the request whose memory went away").isEqualTo(DtoCompletionStatus.ERR_LOCAL_PROTECTION);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /** Waits up to 5 s for a thread whose stack holds a call of {@code method}; whether one came. */
    private static boolean awaitThreadIn(String method) throws InterruptedException {
        for (long deadline = System.nanoTime() + 5_000_000_000L; System.nanoTime() < deadline;) {
            for (StackTraceElement[] stack : Thread.getAllStackTraces().values()) {
                for (StackTraceElement frame : stack) {
                    if (frame.getMethodName().equals(method)) {
                        return true;
                    }
                }
            }
            Thread.sleep(5);
        }
        return false;
    }

    /** Writes 0 to {@code posted - 1} completed flushed, in posting order, nothing more; then the posted receive, flushed. */
    private void assertFlushedInOrder(int posted) {
        for (int i = 0; i < posted; i++) {
            DatEvent d = a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(d.userCookie()).isEqualTo(i);
            assertThat(d.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        }
        assertThat(a.reqEvd.dequeue(a.event)).isNotZero();
        assertThat(a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    /**
     * A peer that stops reading but keeps sending (NOPs, a keepalive every 60 ms, well within the
     * 300 ms timeout): the frames it sends prove it alive, so only the writer's lack of progress
     * on the full socket (back-pressure) can break the connection, within the timeout; every
     * write completes flushed, in posting order.
     */
    @Test
    void aPeerThatStopsReadingButKeepsSending_breaksOnTheStuckWriter_everyDtoFlushed() throws Exception {
        connectToRaw(rawAcceptor());
        Socket peer = rawPeer;
        java.util.concurrent.atomic.AtomicInteger nops = new java.util.concurrent.atomic.AtomicInteger();
        Thread sender = Thread.ofPlatform().daemon().start(() -> {
            byte[] nop = header(TcpFrame.NOP, 0, 0, 0, 0, 0);
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    peer.getOutputStream().write(nop);
                    nops.incrementAndGet();
                    Thread.sleep(60);
                }
            } catch (java.io.IOException | InterruptedException closed) {
                // the IA closed the connection, or the test ended
            }
        });
        try {
            ok(a.ep.postRecv(0, null, -1, 0));
            long start = System.nanoTime();
            // 32 MiB of RDMA writes: more than the socket buffers hold, so the writer blocks
            int posted = 32;
            for (int i = 0; i < posted; i++) {
                ok(a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 1 << 20)}, i,
                        new RmrTriplet(1234, 0x1000, 1 << 20), 0));
            }
            DatEvent c = awaitBroken(a, start, 300);
            assertThat(c.endpoint()).isSameAs(a.ep);
            assertThat(nops.get()).as("NOPs the peer sent meanwhile").isGreaterThan(3);
            assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
            assertFlushedInOrder(posted);
        } finally {
            sender.interrupt();
            sender.join(5_000);
        }
    }

    /**
     * Waits for the connection event of {@code side}, which must be BROKEN and come within a
     * bound generous for a loaded machine, ten timeouts and two seconds from {@code since}, yet
     * finite: without the liveness check the connection would never break.
     */
    private static DatEvent awaitBroken(Fabric.Side side, long since, long timeoutMs) {
        long boundMs = 10 * timeoutMs + 2_000;
        long leftMicros = Math.max(0, boundMs * 1000 - (System.nanoTime() - since) / 1000);
        int rc = side.connEvd.await(leftMicros, 1, side.event);
        long afterMs = (System.nanoTime() - since) / 1_000_000;
        assertThat(DatReturn.describe(rc)).as("a connection event within %d ms (timeout %d ms)", boundMs, timeoutMs)
                .isEqualTo(DatReturn.describe(DatReturn.SUCCESS));
        assertThat(EventNumber.name(side.event.eventNumber())).isEqualTo(EventNumber.name(EventNumber.CONNECTION_EVENT_BROKEN));
        assertThat(afterMs).as("ms to the break (timeout %d ms)", timeoutMs).isLessThan(boundMs);
        return side.event;
    }

    @Test
    void aHalfOpenConnection_silentPeer_breaksWithinTheTimeout() throws Exception {
        CompletableFuture<Socket> peer = rawAcceptor();
        long silentSince = System.nanoTime(); // at most this long before the ACCEPT, its last frame
        connectToRaw(peer);
        ok(a.ep.postRecv(0, null, 1, 0));
        awaitBroken(a, silentSince, 300);
        assertThat(a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    @Test
    void aConnectionReset_breaksIt_everyDtoFlushed() throws Exception {
        connectToRaw(rawAcceptor());
        ok(a.ep.postRecv(0, null, 1, 0));
        ok(a.ep.postSend(0, null, 2, 0));
        rawPeer.setSoLinger(true, 0);
        rawPeer.close(); // RST
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    @Test
    void anIdleLivePair_isHeldTogetherByKeepalives() throws Exception {
        Fabric fb = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=300");
        try {
            Fabric.Side b = fb.new Side("tcpK", null, 4096);
            b.ia.createPublicServicePoint(3, b.crEvd, PspFlag.CONSUMER);
            a.ep.connect(b.address(), 3, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
            b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(b.ep, null);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            // idle for five timeouts: the NOPs keep both sides alive
            assertThat(DatReturn.typeOf(a.connEvd.await(1_500_000, 1, a.event))).isEqualTo(DatReturn.TIMEOUT_EXPIRED);
            assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
            assertThat(b.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
            ok(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 64)}, 1, 0));
            ok(a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 2, 0));
            assertThat(b.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            a.ep.disconnect(CloseFlag.ABRUPT);
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        } finally {
            fb.close();
        }
    }

    /** Reads one frame (header and payload) from the raw peer's side, skipping NOPs; returns the header. */
    private static ByteBuffer frame(DataInputStream in) throws Exception {
        for (;;) {
            byte[] h = new byte[TcpFrame.HEADER_BYTES];
            in.readFully(h);
            ByteBuffer header = ByteBuffer.wrap(h);
            in.skipNBytes(Integer.toUnsignedLong(header.getInt(4)));
            if (header.get(3) != TcpFrame.NOP) {
                return header;
            }
        }
    }

    /** Connects {@code side}'s Endpoint to a raw acceptor; returns the peer's input, past the READY_TO_USE. */
    private DataInputStream connectToRawAndReadReady(Fabric.Side side) throws Exception {
        CompletableFuture<Socket> peer = rawAcceptor();
        side.ep.connect(new java.net.InetSocketAddress(raw.getInetAddress(), raw.getLocalPort()), 1, Fabric.WAIT, null,
                Qos.BEST_EFFORT, 0);
        side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        rawPeer = peer.get(10, TimeUnit.SECONDS);
        DataInputStream in = new DataInputStream(rawPeer.getInputStream());
        assertThat(frame(in).get(3)).isEqualTo((byte) TcpFrame.READY_TO_USE);
        return in;
    }

    private static void ack(Socket peer, long seq) throws Exception {
        ByteBuffer ack = ByteBuffer.allocate(TcpFrame.HEADER_BYTES);
        TcpFrame.encode(ack, TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, seq, 0);
        peer.getOutputStream().write(ack.array());
    }

    /**
     * A successful ACK is cumulative: one ACK for the third of three RDMA writes completes all
     * three, in order; an ACK beyond the requests in flight is a protocol error that breaks the
     * connection, with the request in flight flushed. (Its own IA, with the default liveness
     * timeout: the raw peer sends nothing else.)
     */
    @Test
    void aCumulativeAckCompletesEveryWriteUpToIt() throws Exception {
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0")) {
            Fabric.Side w = f.new Side("tcpW", null, 1 << 16);
            DataInputStream in = connectToRawAndReadReady(w);
            for (int i = 0; i < 3; i++) {
                ok(w.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(w.lmr, 0, 64)}, 10 + i, new RmrTriplet(1234, 0x1000, 64), 0));
            }
            for (int i = 0; i < 3; i++) {
                ByteBuffer h = frame(in);
                assertThat(h.get(3)).isEqualTo((byte) TcpFrame.RDMA_WRITE);
                assertThat(h.getLong(16)).isEqualTo(i);
            }
            ack(rawPeer, 2);
            for (int i = 0; i < 3; i++) {
                DatEvent d = w.expect(w.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
                assertThat(d.userCookie()).isEqualTo(10 + i);
                assertThat(d.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                assertThat(d.transferredLength()).isEqualTo(64);
            }
            ok(w.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(w.lmr, 0, 64)}, 20, new RmrTriplet(1234, 0x1000, 64), 0));
            assertThat(frame(in).getLong(16)).isEqualTo(3);
            ack(rawPeer, 9); // nothing with that sequence number is in flight
            w.expect(w.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
            DatEvent d = w.expect(w.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(d.userCookie()).isEqualTo(20);
            assertThat(d.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        }
    }

    /**
     * Once an abrupt dat_ep_disconnect has completed its requests FLUSHED, their buffers are the
     * consumer's again: the writer reads no more of them. A batch's frames not yet begun are not
     * sent, and a frame begun cannot be finished without its memory, so the connection ends in
     * the middle of it (the peer finds the stream cut). The consumer then fills its buffers with
     * new bytes; the peer, reading at last, must never get one of them.
     */
    @Test
    void requestsFlushedByAnAbruptDisconnect_areReadNoMore() throws Exception {
        int size = 8 << 20; // more than a fresh loopback socket takes at once
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0")) {
            Fabric.Side w = f.new Side("tcpP", null, 2 * size);
            w.mem.fill((byte) 0x11);
            DataInputStream in = connectToRawAndReadReady(w);
            ok(w.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(w.lmr, 0, size)}, 1, new RmrTriplet(1234, 0x1000, size), 0));
            for (int i = 0; i < 4; i++) {
                ok(w.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(w.lmr, size + i * (1L << 20), 1 << 20)}, 2 + i,
                        new RmrTriplet(1234, 0x1000, 1 << 20), 0));
            }
            Thread.sleep(200); // the writer fills the socket buffers and waits for the peer
            w.ep.disconnect(CloseFlag.ABRUPT);
            for (int i = 0; i < 5; i++) {
                DatEvent d = w.expect(w.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
                assertThat(d.userCookie()).isEqualTo(1 + i);
                assertThat(d.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
            }
            w.mem.fill((byte) 0x22); // the consumer's buffers again, and its new bytes
            byte[] chunk = new byte[1 << 16];
            long got = 0;
            boolean leaked = false;
            try {
                for (int n; (n = in.read(chunk)) > 0;) {
                    for (int k = 0; k < n; k++) {
                        leaked |= chunk[k] == 0x22;
                    }
                    got += n;
                }
            } catch (java.net.SocketException reset) {
                // the connection cut in the middle of a frame may end with a reset
            }
            assertThat(leaked).as("bytes the consumer wrote after the flush reached the peer").isFalse();
            assertThat(got).as("bytes the peer got after READY_TO_USE").isLessThan(size + TcpFrame.HEADER_BYTES);
        }
    }

    /**
     * An RDMA write larger than the socket takes at once (the peer is not reading yet) arrives
     * whole once the peer reads, byte for byte, and the request behind it in a frame of its own
     * right after; one ACK completes both.
     */
    @Test
    void aWriteLargerThanTheSocketTakes_arrivesWholeByteForByte_thenTheNextFrame() throws Exception {
        int size = 8 << 20; // more than a fresh loopback socket takes at once
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0")) {
            Fabric.Side w = f.new Side("tcpP", null, size);
            for (int i = 0; i < size; i++) {
                w.mem.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + (i >>> 16)));
            }
            DataInputStream in = connectToRawAndReadReady(w);
            ok(w.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(w.lmr, 0, size)}, 1, new RmrTriplet(1234, 0x1000, size), 0));
            ok(w.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(w.lmr, 8, 16)}, 2, new RmrTriplet(1234, 0x1000, 16), 0));
            byte[] h = new byte[TcpFrame.HEADER_BYTES];
            in.readFully(h);
            ByteBuffer header = ByteBuffer.wrap(h);
            assertThat(header.get(3)).isEqualTo((byte) TcpFrame.RDMA_WRITE);
            assertThat(Integer.toUnsignedLong(header.getInt(4))).isEqualTo(size);
            assertThat(header.getLong(16)).isZero();
            byte[] payload = in.readNBytes(size);
            for (int i = 0; i < size; i++) {
                if (payload[i] != (byte) (i * 31 + (i >>> 16))) {
                    throw new AssertionError("payload byte " + i + " differs");
                }
            }
            in.readFully(h);
            assertThat(header.get(3)).isEqualTo((byte) TcpFrame.RDMA_WRITE);
            assertThat(header.getInt(4)).isEqualTo(16);
            assertThat(header.getLong(16)).isEqualTo(1);
            assertThat(in.readNBytes(16)).isEqualTo(java.util.Arrays.copyOfRange(payload, 8, 24));
            ack(rawPeer, 1);
            for (int cookie = 1; cookie <= 2; cookie++) {
                DatEvent d = w.expect(w.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
                assertThat(d.userCookie()).isEqualTo(cookie);
                assertThat(d.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            }
        }
    }

    /** A socket that connects to the IA and never sends its connection request is closed after the timeout. */
    @Test
    void aConnectionWithoutARequestIsClosedAfterTheTimeout() throws Exception {
        try (Socket silent = new Socket(InetAddress.getByName("127.0.0.1"), a.address().getPort())) {
            silent.setSoTimeout(10_000);
            long start = System.nanoTime();
            assertThat(silent.getInputStream().read()).as("the IA closes the silent connection").isEqualTo(-1);
            // never before the timeout (the socket was accepted at most a moment before start)
            assertThat(System.nanoTime() - start).as("closed after the 300 ms timeout").isGreaterThan(290_000_000L);
        }
        // the IA keeps accepting
        try (Socket another = new Socket(InetAddress.getByName("127.0.0.1"), a.address().getPort())) {
            assertThat(another.isConnected()).isTrue();
        }
    }

    /** A raw active peer connected to {@code a}'s Endpoint: the CONNECT_REQUEST, the accept, READY_TO_USE. */
    private Socket rawActivePeer() throws Exception {
        return rawActivePeer(a);
    }

    /** A raw active peer connected to {@code side}'s Endpoint. */
    private static Socket rawActivePeer(Fabric.Side side) throws Exception {
        side.ia.createPublicServicePoint(5, side.crEvd, PspFlag.CONSUMER);
        Socket s = new Socket(InetAddress.getByName("127.0.0.1"), side.address().getPort());
        s.setSoTimeout(10_000);
        s.getOutputStream().write(header(TcpFrame.CONNECT_REQUEST, 0, 0, 1, 0, 5));
        side.expect(side.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(side.ep, null);
        DataInputStream in = new DataInputStream(s.getInputStream());
        assertThat(frame(in).get(3)).isEqualTo((byte) TcpFrame.ACCEPT);
        s.getOutputStream().write(header(TcpFrame.READY_TO_USE, 0, 0, 0, 0, 0));
        side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        return s;
    }

    private static byte[] header(int op, long len, int ctx, int aux, long seq, long addr) {
        ByteBuffer b = ByteBuffer.allocate(TcpFrame.HEADER_BYTES + (int) len);
        TcpFrame.encode(b, op, len, ctx, aux, seq, addr);
        return b.array();
    }

    /**
     * A send that finds no receive is refused as receiver-not-ready (an ACK with STATUS_RNR); the
     * target drops what follows until the initiator sends that send again, which then lands in the
     * receive posted meanwhile.
     */
    @Test
    void aSendWithoutAReceiveIsRefusedAsNotReadyAndLandsWhenSentAgain() throws Exception {
        try (Socket s = rawActivePeer()) {
            rawPeer = s;
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] send0 = header(TcpFrame.SEND, 8, 0, 0, 0, 0);
            java.util.Arrays.fill(send0, TcpFrame.HEADER_BYTES, send0.length, (byte) 7);
            s.getOutputStream().write(send0);
            ByteBuffer nak = frame(in);
            assertThat(nak.get(3)).isEqualTo((byte) TcpFrame.ACK);
            assertThat(nak.getInt(12)).isEqualTo(TcpFrame.STATUS_RNR);
            assertThat(nak.getLong(16)).isZero();
            s.getOutputStream().write(header(TcpFrame.SEND, 8, 0, 0, 1, 0)); // sent before the NAK arrived: dropped
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 42, 0));
            s.getOutputStream().write(send0); // the retransmission
            ByteBuffer ack = frame(in);
            assertThat(ack.getInt(12)).isEqualTo(TcpFrame.STATUS_OK);
            assertThat(ack.getLong(16)).isZero();
            DatEvent r = a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(r.userCookie()).isEqualTo(42);
            assertThat(r.transferredLength()).isEqualTo(8);
            assertThat(a.mem.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 7);
        }
    }

    /**
     * Deferrable requests ({@link TcpFrame#ACK_DEFERRABLE}, sent by an initiator with many in
     * flight): the target holds their ACK when its socket runs dry, sends it when an ACK_REQUEST
     * comes or once it holds {@link TcpFrame#ACKS_HELD_MAX}, and answers a request that is not
     * deferrable once drained; each ACK is cumulative.
     */
    @Test
    void deferrableWritesAreAcknowledgedOnRequest_orAtTheHeldMaximum() throws Exception {
        // an IA of its own, without keepalives within the test: a NOP the target sent would take
        // the held ACK along (the writer sends what the response ring holds whenever it writes)
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=3600000")) {
            Fabric.Side t = f.new Side("tcpD", null, 1 << 16);
            Socket s = rawActivePeer(t);
            rawPeer = s;
            DataInputStream in = new DataInputStream(s.getInputStream());
            for (int seq = 0; seq < 3; seq++) {
                s.getOutputStream().write(write(t, seq, TcpFrame.ACK_DEFERRABLE));
            }
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (t.mem.get(ValueLayout.JAVA_BYTE, 2 * 8) != 3 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(t.mem.get(ValueLayout.JAVA_BYTE, 2 * 8)).as("the third write landed").isEqualTo((byte) 3);
            s.setSoTimeout(200);
            assertThatThrownBy(() -> frame(in)).as("the ACK is held").isInstanceOf(SocketTimeoutException.class);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(header(TcpFrame.ACK_REQUEST, 0, 0, 0, 0, 0));
            assertAck(frame(in), 2);
            for (int seq = 3; seq < 3 + TcpFrame.ACKS_HELD_MAX; seq++) {
                s.getOutputStream().write(write(t, seq, TcpFrame.ACK_DEFERRABLE));
            }
            assertAck(frame(in), 2 + TcpFrame.ACKS_HELD_MAX); // the maximum reached: no request needed
            int last = 3 + TcpFrame.ACKS_HELD_MAX;
            s.getOutputStream().write(write(t, last, 0));
            assertAck(frame(in), last);
            for (int seq = 0; seq <= last; seq++) {
                assertThat(t.mem.get(ValueLayout.JAVA_BYTE, seq * 8L)).isEqualTo((byte) (seq + 1));
            }
            assertThat(t.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
    }

    /** An 8-byte RDMA write of the value seq + 1 to bytes [8 seq, 8 seq + 8) of {@code side}'s memory. */
    private static byte[] write(Fabric.Side side, int seq, int aux) {
        RmrTriplet target = RmrTriplet.of(side.lmr, seq * 8L, 8);
        byte[] frame = header(TcpFrame.RDMA_WRITE, 8, target.rmrContext(), aux, seq, target.targetAddress());
        java.util.Arrays.fill(frame, TcpFrame.HEADER_BYTES, frame.length, (byte) (seq + 1));
        return frame;
    }

    private static void assertAck(ByteBuffer frame, long seq) {
        assertThat(frame.get(3)).as("opcode").isEqualTo((byte) TcpFrame.ACK);
        assertThat(frame.getInt(12)).as("status").isEqualTo(TcpFrame.STATUS_OK);
        assertThat(frame.getLong(16)).as("seq").isEqualTo(seq);
    }

    /**
     * The initiator marks a request deferrable once {@link TcpFrame#ACKS_HELD_MAX} are in flight
     * with it, and when an ACK leaves fewer in flight behind a deferrable one, asks for the held
     * ACKs with an ACK_REQUEST: a burst of 20 writes completes with two ACKs.
     */
    @Test
    void anInitiatorDefersTheAcksBeyondTheHeldMaximum_andAsksForThemWhenFewerAreInFlight() throws Exception {
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0")) {
            Fabric.Side w = f.new Side("tcpW", null, 1 << 16);
            DataInputStream in = connectToRawAndReadReady(w);
            int burst = 20;
            for (int i = 0; i < burst; i++) {
                ok(w.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(w.lmr, 0, 64)}, i, new RmrTriplet(1234, 0x1000, 64), 0));
            }
            for (int i = 0; i < burst; i++) {
                ByteBuffer h = frame(in);
                assertThat(h.get(3)).isEqualTo((byte) TcpFrame.RDMA_WRITE);
                assertThat(h.getLong(16)).isEqualTo(i);
                assertThat((h.getInt(12) & TcpFrame.ACK_DEFERRABLE) != 0).as("write " + i + " deferrable")
                        .isEqualTo(i + 1 >= TcpFrame.ACKS_HELD_MAX);
            }
            ack(rawPeer, TcpFrame.ACKS_HELD_MAX - 1);
            assertThat(frame(in).get(3)).as("the initiator asks for the rest").isEqualTo((byte) TcpFrame.ACK_REQUEST);
            ack(rawPeer, burst - 1);
            for (int i = 0; i < burst; i++) {
                DatEvent d = w.expect(w.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
                assertThat(d.userCookie()).isEqualTo(i);
                assertThat(d.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            }
            assertThat(w.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
    }

    /**
     * While the target has no receive for the peer's send it still reads: a peer that then goes
     * silent (half-open) breaks the connection within the liveness timeout.
     */
    @Test
    void aPeerThatGoesSilentWhileTheTargetHasNoReceiveBreaksWithinTheTimeout() throws Exception {
        try (Socket s = rawActivePeer()) {
            rawPeer = s;
            s.getOutputStream().write(header(TcpFrame.SEND, 8, 0, 0, 0, 0));
            assertThat(frame(new DataInputStream(s.getInputStream())).getInt(12)).isEqualTo(TcpFrame.STATUS_RNR);
            long silentSince = System.nanoTime(); // the SEND, the peer's last frame, was read before the RNR went out
            awaitBroken(a, silentSince, 300);
            assertThat(System.nanoTime() - silentSince).as("broken after the 300 ms timeout, not before").isGreaterThan(290_000_000L);
            assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        }
    }

    /**
     * A reset while a send's payload is read into the receive the target took for it: that
     * receive completes flushed, as the one still queued does (none is dropped).
     */
    @Test
    void aResetMidSend_flushesTheReceiveTheTargetTook() throws Exception {
        Socket s = rawActivePeer();
        rawPeer = s;
        ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 1, 0));
        ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 64, 64)}, 2, 0));
        byte[] send = header(TcpFrame.SEND, 64, 0, 0, 0, 0);
        s.getOutputStream().write(send, 0, TcpFrame.HEADER_BYTES + 8); // 8 of its 64 bytes
        s.getOutputStream().flush();
        Thread.sleep(50); // the target takes the receive and waits for the rest
        s.setSoLinger(true, 0);
        s.close(); // RST
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        for (long cookie = 1; cookie <= 2; cookie++) {
            DatEvent r = a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(r.userCookie()).as("receive %d", cookie).isEqualTo(cookie);
            assertThat(r.status()).as("receive %d", cookie).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        }
    }

    /**
     * An abrupt disconnect while an RDMA read's response lands: once the read has completed
     * flushed its buffer is the consumer's again, and the rest of the response, which the peer
     * sends after, does not land in it.
     */
    @Test
    void anAbruptDisconnectMidReadResponse_leavesTheFlushedReadsBufferAlone() throws Exception {
        try (Socket s = rawActivePeer()) {
            rawPeer = s;
            DataInputStream in = new DataInputStream(s.getInputStream());
            a.mem.asSlice(0, 64).fill((byte) 0);
            ok(a.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 1, RmrTriplet.of(a.lmr, 1024, 64), 0));
            ByteBuffer request = frame(in);
            assertThat(request.get(3)).isEqualTo((byte) TcpFrame.RDMA_READ_REQUEST);
            byte[] response = header(TcpFrame.RDMA_READ_RESPONSE, 64, 0, TcpFrame.STATUS_OK, request.getLong(16), 0);
            sendFirstBytesToA(s, response);

            a.ep.disconnect(CloseFlag.ABRUPT);
            DatEvent read = a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(read.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
            byte[] atCompletion = a.mem.asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE);
            a.mem.asSlice(0, 64).fill((byte) 0x33); // the consumer reuses its buffer

            sendTheRest(s, response);
            s.shutdownOutput(); // the initiator reads the rest, then the end, and closes
            awaitNoConnection(transport(a));
            assertThat(atCompletion).as("the first 8 bytes landed before the flush")
                    .startsWith(0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A);
            assertThat(a.mem.asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE)).as("the buffer after the flushed completion")
                    .containsOnly((byte) 0x33);
        }
    }

    /**
     * An abrupt disconnect while a send lands in the receive taken for it: that receive completes
     * flushed, once, before the receive posted after it, and the rest of the send, which the peer
     * sends after, does not land in its buffer.
     */
    @Test
    void anAbruptDisconnectMidSend_flushesTheReceiveItTook_firstAndOnce() throws Exception {
        try (Socket s = rawActivePeer()) {
            rawPeer = s;
            a.mem.asSlice(0, 128).fill((byte) 0);
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 1, 0));
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 64, 64)}, 2, 0));
            byte[] send = header(TcpFrame.SEND, 64, 0, 0, 0, 0);
            sendFirstBytesToA(s, send);

            a.ep.disconnect(CloseFlag.ABRUPT);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            for (long cookie = 1; cookie <= 2; cookie++) {
                DatEvent r = a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
                assertThat(r.userCookie()).as("receive %d", cookie).isEqualTo(cookie);
                assertThat(r.status()).as("receive %d", cookie).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
            }
            a.mem.asSlice(0, 64).fill((byte) 0x33); // the consumer reuses the first receive's buffer

            sendTheRest(s, send);
            s.shutdownOutput(); // the target reads the rest, then the end, and closes
            awaitNoConnection(transport(a));
            assertThat(a.recvEvd.dequeue(a.event)).as("no further receive completion").isNotZero();
            assertThat(a.mem.asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE)).as("the buffer after the flushed completion")
                    .containsOnly((byte) 0x33);
        }
    }

    /**
     * A peer that goes on after the DISCONNECT, with its connection still open, no longer reaches
     * the Endpoint's memory once the Endpoint is connected anew, to another peer: its RDMA write
     * is refused, and lands nowhere.
     */
    @Test
    void aDisconnectedPeerCannotWriteIntoTheEndpointConnectedAnew() throws Exception {
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=3600000")) {
            Fabric.Side side = f.new Side("tcpN", null, 4096);
            try (Socket old = rawActivePeer(side)) {
                DataInputStream oldIn = new DataInputStream(old.getInputStream());
                side.ep.disconnect(CloseFlag.ABRUPT);
                side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                assertThat(frame(oldIn).get(3)).isEqualTo((byte) TcpFrame.DISCONNECT);
                side.ep.reset();
                try (Socket anew = new Socket(InetAddress.getByName("127.0.0.1"), side.address().getPort())) {
                    anew.getOutputStream().write(header(TcpFrame.CONNECT_REQUEST, 0, 0, 1, 0, 5));
                    side.expect(side.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(side.ep, null);
                    assertThat(frame(new DataInputStream(anew.getInputStream())).get(3)).isEqualTo((byte) TcpFrame.ACCEPT);
                    anew.getOutputStream().write(header(TcpFrame.READY_TO_USE, 0, 0, 0, 0, 0));
                    side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);

                    side.mem.asSlice(0, 8).fill((byte) 0);
                    RmrTriplet target = RmrTriplet.of(side.lmr, 0, 8);
                    byte[] write = header(TcpFrame.RDMA_WRITE, 8, target.rmrContext(), 0, 0, target.targetAddress());
                    java.util.Arrays.fill(write, TcpFrame.HEADER_BYTES, write.length, (byte) 0x77);
                    old.getOutputStream().write(write);
                    old.getOutputStream().flush();
                    TcpTransport t = transport(side);
                    long deadline = System.nanoTime() + 5_000_000_000L;
                    while (t.connections().size() > 1 && System.nanoTime() - deadline < 0) {
                        Thread.sleep(10); // the old connection refuses the write and closes
                    }
                    assertThat(t.connections()).as("the new connection alone").hasSize(1);
                    assertThat(side.mem.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0);
                    assertThat(side.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
                }
            }
        }
    }

    /**
     * Fills the frame's payload with 0x5A, sends its header and the first 8 payload bytes, and
     * waits until a has landed them at offset 0 (it then waits for the rest).
     */
    private void sendFirstBytesToA(Socket s, byte[] frame) throws Exception {
        java.util.Arrays.fill(frame, TcpFrame.HEADER_BYTES, frame.length, (byte) 0x5A);
        s.getOutputStream().write(frame, 0, TcpFrame.HEADER_BYTES + 8);
        s.getOutputStream().flush();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (a.mem.get(ValueLayout.JAVA_BYTE, 7) != 0x5A && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertThat(a.mem.get(ValueLayout.JAVA_BYTE, 7)).as("the first 8 bytes landed").isEqualTo((byte) 0x5A);
    }

    private static void sendTheRest(Socket s, byte[] frame) throws Exception {
        s.getOutputStream().write(frame, TcpFrame.HEADER_BYTES + 8, frame.length - TcpFrame.HEADER_BYTES - 8);
        s.getOutputStream().flush();
    }

    /**
     * A frame that takes longer than the liveness timeout to arrive, its bytes coming all along (a
     * large frame on a slow link), is not taken for a dead peer: 40 bytes, one every 25 ms, one
     * second against the 300 ms timeout.
     */
    @Test
    void aFrameSlowerThanTheTimeout_whileItsBytesFlow_isNotBroken() throws Exception {
        try (Socket s = rawActivePeer()) {
            rawPeer = s;
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 1, 0));
            byte[] send = header(TcpFrame.SEND, 40, 0, 0, 0, 0);
            for (int i = TcpFrame.HEADER_BYTES; i < send.length; i++) {
                send[i] = (byte) i;
            }
            java.io.OutputStream out = s.getOutputStream();
            out.write(send, 0, TcpFrame.HEADER_BYTES);
            for (int i = TcpFrame.HEADER_BYTES; i < send.length; i++) {
                Thread.sleep(25);
                out.write(send[i]);
                out.flush();
            }
            DatEvent r = a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(r.transferredLength()).isEqualTo(40);
            assertThat(a.mem.get(ValueLayout.JAVA_BYTE, 39)).isEqualTo(send[TcpFrame.HEADER_BYTES + 39]);
            assertThat(a.connEvd.dequeue(a.event)).as("no connection event: not broken").isNotZero();
            assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
    }

    /**
     * After its last word (a REJECT, a DISCONNECT: both with the FIN), the IA gives a peer that
     * never closes its side the liveness timeout, then closes the connection: a silent or vanished
     * peer keeps no thread and socket.
     */
    @Test
    void aRejectedPeerThatNeverCloses_isClosedAfterTheTimeout() throws Exception {
        try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), a.address().getPort())) {
            rawPeer = s;
            s.setSoTimeout(10_000);
            s.getOutputStream().write(header(TcpFrame.CONNECT_REQUEST, 0, 0, 1, 0, 99)); // no listener on 99
            DataInputStream in = new DataInputStream(s.getInputStream());
            assertThat(frame(in).get(3)).isEqualTo((byte) TcpFrame.REJECT);
            assertThat(in.read()).as("the FIN after the REJECT").isEqualTo(-1);
            awaitNoConnection(transport(a));
        }
    }

    /**
     * A peer that trickles a frame to a consumer running the agent from its dat_evd_wait (each
     * byte proof of life): the consumer lands what comes and never waits for the rest. Its wait
     * ends on time, and the frame, which takes ten liveness timeouts to come but is never silent
     * for one, lands whole on a connection that stays up, as when the agent's thread meets it
     * alone ({@link #aFrameSlowerThanTheTimeout_whileItsBytesFlow_isNotBroken}).
     */
    @Test
    void aFrameTricklingToAWaitingConsumer_theWaitEndsOnTime_andTheFrameLands() throws Exception {
        try (Socket s = rawActivePeer()) {
            rawPeer = s;
            feedReceiveEvd(s);
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 2, 0));
            TimedWait wait = new TimedWait(a.recvEvd, 200_000);
            awaitDriven(a.recvEvd, true);
            byte[] send = header(TcpFrame.SEND, 64, 0, 0, 1, 0);
            for (int i = TcpFrame.HEADER_BYTES; i < send.length; i++) {
                send[i] = (byte) (i * 7);
            }
            java.io.OutputStream out = s.getOutputStream();
            out.write(send, 0, TcpFrame.HEADER_BYTES);
            out.flush();
            for (int i = TcpFrame.HEADER_BYTES; i < send.length; i++) {
                Thread.sleep(50); // a byte each 50 ms: 3.2 s for the frame, the timeout 300 ms
                out.write(send[i]);
                out.flush();
            }
            wait.assertTimedOutAfter200Ms();
            DatEvent r = a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(r.userCookie()).isEqualTo(2);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(r.transferredLength()).isEqualTo(64);
            for (int i = 0; i < 64; i++) {
                assertThat(a.mem.get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i).isEqualTo(send[TcpFrame.HEADER_BYTES + i]);
            }
            assertThat(a.connEvd.dequeue(a.event)).as("no connection event: not broken").isNotZero();
            assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
    }

    /**
     * A consumer running the agent from its dat_evd_wait lands what the socket holds and never
     * waits for more: a send larger than the frame reader reads ahead, all of it received,
     * completes; of the next, half received, that half lands and nothing completes; the rest
     * completes it once it comes, whoever runs the agent then. The test holds the agent's role as
     * the agent's thread would (the drives, on the same thread, still take it), so that only the
     * drives read until it lets go.
     */
    @Test
    void aDrivingConsumer_landsWhatTheSocketHolds_withoutWaitingForTheRest() throws Exception {
        // its own IA: the raw peer is silent between its frames, and no pause of the test may reach the liveness timeout
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=3600000")) {
            Fabric.Side a = f.new Side("tcpD", null, 1 << 20);
            try (Socket s = rawActivePeer(a)) {
                rawPeer = s;
                feedReceiveEvd(a, s);
                int length = 48 << 10; // beyond the read-ahead
                ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, length)}, 2, 0));
                ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, length, length)}, 3, 0));
                byte[] whole = header(TcpFrame.SEND, length, 0, 0, 1, 0);
                byte[] halved = header(TcpFrame.SEND, length, 0, 0, 2, 0);
                for (int i = TcpFrame.HEADER_BYTES; i < whole.length; i++) {
                    whole[i] = (byte) (i | 1);
                    halved[i] = (byte) (i * 3 | 1);
                }
                SimEvd evd = (SimEvd) a.recvEvd;
                TcpConnection connection = transport(a).connections().iterator().next();
                IoAgent agent = transport(a).agent();
                java.io.OutputStream out = s.getOutputStream();
                DatEvent got = new DatEvent();
                long readBefore = connection.framesReadByConsumers();
                agent.lockRoleForTest();
                try {
                    out.write(whole);
                    out.flush();
                    awaitReceived(connection, whole.length);
                    assertThat(agent.drive(evd, false, System.nanoTime() - 1)).as("drove").isTrue();
                    ok(a.recvEvd.dequeue(got));
                    assertThat(got.userCookie()).isEqualTo(2);
                    assertThat(got.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                    assertThat(got.transferredLength()).isEqualTo(length);
                    assertThat(connection.framesReadByConsumers()).as("frames read by consumers").isEqualTo(readBefore + 1);

                    out.write(halved, 0, TcpFrame.HEADER_BYTES + length / 2);
                    out.flush();
                    awaitReceived(connection, TcpFrame.HEADER_BYTES + length / 2);
                    assertThat(agent.drive(evd, false, System.nanoTime() - 1)).as("drove").isTrue();
                    assertThat(a.recvEvd.dequeue(got)).as("no completion yet").isNotEqualTo(DatReturn.SUCCESS);
                    assertThat(connection.framesReadByConsumers()).as("frames read by consumers").isEqualTo(readBefore + 2);
                    assertThat(a.mem.get(ValueLayout.JAVA_BYTE, length)).as("the half received landed")
                            .isEqualTo(halved[TcpFrame.HEADER_BYTES]);
                } finally {
                    agent.role().unlock();
                    agent.roleReleased();
                }
                out.write(halved, TcpFrame.HEADER_BYTES + length / 2, length - length / 2);
                out.flush();
                DatEvent r = a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
                assertThat(r.userCookie()).isEqualTo(3);
                assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                assertThat(r.transferredLength()).isEqualTo(length);
                for (int i = 0; i < length; i++) {
                    assertThat(a.mem.get(ValueLayout.JAVA_BYTE, i)).isEqualTo(whole[TcpFrame.HEADER_BYTES + i]);
                    assertThat(a.mem.get(ValueLayout.JAVA_BYTE, length + i)).isEqualTo(halved[TcpFrame.HEADER_BYTES + i]);
                }
                assertThat(a.connEvd.dequeue(a.event)).as("no connection event").isNotZero();
            }
        }
    }

    /** Waits until the connection's socket holds at least {@code bytes} received and not read. */
    private static void awaitReceived(TcpConnection connection, long bytes) throws Exception {
        for (long deadline = System.nanoTime() + 5_000_000_000L;
                connection.bytesInReceiveQueue() < bytes && System.nanoTime() < deadline;) {
            Thread.sleep(1);
        }
        assertThat(connection.bytesInReceiveQueue()).as("bytes in the receive queue").isGreaterThanOrEqualTo(bytes);
    }

    /**
     * A large frame that a live peer sends more slowly than the liveness timeout allows a waiting
     * consumer (a slow link, not a hostile peer): the consumer lands what comes and never waits
     * for the rest, so its dat_evd_wait ends at its timeout, not when the frame does, and the
     * connection does not break; the write lands whole and the peer gets its ACK.
     */
    @Test
    void aLargeFrameArrivingSlowly_neitherHoldsTheWaitNorBreaks() throws Exception {
        int length = 2 << 20;
        java.lang.foreign.MemorySegment target = fa.memory(length);
        try (Socket s = rawActivePeer(); var window = a.ia.registerMemory(target, a.pz, dat.api.MemPrivileges.ALL)) {
            rawPeer = s;
            feedReceiveEvd(s);
            DataInputStream in = new DataInputStream(s.getInputStream());
            assertThat(frame(in).getLong(16)).as("the send's ACK").isZero();
            TimedWait wait = new TimedWait(a.recvEvd, 200_000);
            awaitDriven(a.recvEvd, true);
            byte[] write = header(TcpFrame.RDMA_WRITE, length, window.rmrContext(), 0, 1, window.registeredAddress());
            java.util.Arrays.fill(write, TcpFrame.HEADER_BYTES, write.length, (byte) 0x3C);
            java.io.OutputStream out = s.getOutputStream();
            out.write(write, 0, TcpFrame.HEADER_BYTES);
            out.flush();
            int chunk = 64 << 10;
            boolean closedByTheIa = false;
            for (int at = TcpFrame.HEADER_BYTES; at < write.length && !closedByTheIa; at += chunk) {
                Thread.sleep(40); // 32 chunks: 1.3 s for the frame, the timeout 300 ms
                try {
                    out.write(write, at, Math.min(chunk, write.length - at));
                    out.flush();
                } catch (java.io.IOException e) {
                    closedByTheIa = true;
                }
            }
            wait.thread.join(5_000);
            assertThat(closedByTheIa).as("the IA closed the connection while the frame came").isFalse();
            wait.assertTimedOutAfter200Ms();
            ByteBuffer ack = frame(in);
            assertThat(ack.get(3)).isEqualTo((byte) TcpFrame.ACK);
            assertThat(ack.getLong(16)).as("the ACK's sequence number").isEqualTo(1);
            assertThat(ack.getInt(12)).as("the ACK's status").isEqualTo(TcpFrame.STATUS_OK);
            assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
            assertThat(a.connEvd.dequeue(a.event)).as("no connection event").isNotZero();
            for (long k = 0; k < length; k += 4096) {
                assertThat(target.get(ValueLayout.JAVA_BYTE, k)).isEqualTo((byte) 0x3C);
            }
            assertThat(target.get(ValueLayout.JAVA_BYTE, length - 1)).isEqualTo((byte) 0x3C);

            // a consumer whose wait outlasts such a frame runs the agent through it, and the send behind it ends the wait
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 2, 0));
            TimedWait longWait = new TimedWait(a.recvEvd, 10_000_000);
            awaitDriven(a.recvEvd, true);
            write[TcpFrame.HEADER_BYTES] = 0x4B;
            ByteBuffer.wrap(write).putLong(16, 2); // seq 2
            out.write(write, 0, TcpFrame.HEADER_BYTES);
            out.flush();
            for (int at = TcpFrame.HEADER_BYTES; at < write.length; at += chunk) {
                Thread.sleep(5);
                out.write(write, at, Math.min(chunk, write.length - at));
                out.flush();
            }
            assertThat(frame(in).getLong(16)).as("the second write's ACK").isEqualTo(2);
            awaitDriven(a.recvEvd, true);
            long readByConsumers = transport(a).framesReadByConsumers();
            out.write(header(TcpFrame.SEND, 8, 0, 0, 3, 0));
            out.flush();
            longWait.thread.join(5_000);
            Codes.isType(longWait.code, DatReturn.SUCCESS);
            assertThat(longWait.got.userCookie()).isEqualTo(2);
            assertThat(transport(a).framesReadByConsumers()).as("frames the waiting consumer read").isGreaterThan(readByConsumers);
            assertThat(target.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x4B);
        }
    }

    /**
     * The I/O agent waits for the rest of a large payload with the socket's low-water mark
     * ({@link ReceiveLowWater}) at what it still needs, and sets the mark back to one byte as each
     * such wait ends: a small frame that comes later, alone, wakes it. Left at the payload's size,
     * the mark kept it asleep until the liveness timeout broke the connection and flushed the
     * receive. Nothing here waits in dat_evd_wait, so only the agent reads.
     */
    @Test
    void aSmallFrameAfterALargeOne_wakesTheAgent_theLowWaterMarkBackAtOneByte() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ReceiveLowWater.available(), ReceiveLowWater::unavailableReason);
        int length = 1 << 20;
        java.lang.foreign.MemorySegment target = fa.memory(length);
        try (Socket s = rawActivePeer(); var window = a.ia.registerMemory(target, a.pz, dat.api.MemPrivileges.ALL)) {
            rawPeer = s;
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] write = header(TcpFrame.RDMA_WRITE, length, window.rmrContext(), 0, 0, window.registeredAddress());
            java.util.Arrays.fill(write, TcpFrame.HEADER_BYTES, write.length, (byte) 0x5D);
            java.io.OutputStream out = s.getOutputStream();
            long raised = transport(a).lowWaterWaits();
            out.write(write, 0, TcpFrame.HEADER_BYTES + length / 2);
            out.flush();
            // the first half landed: the agent waits for the other, 512 KiB, the mark raised
            for (long deadline = System.nanoTime() + 5_000_000_000L;
                    target.get(ValueLayout.JAVA_BYTE, length / 2 - 1) != 0x5D && System.nanoTime() < deadline;) {
                Thread.sleep(1);
            }
            Thread.sleep(20);
            out.write(write, TcpFrame.HEADER_BYTES + length / 2, length / 2);
            out.flush();
            ByteBuffer ack = frame(in);
            assertThat(transport(a).lowWaterWaits()).as("waits with the mark up").isGreaterThan(raised);
            assertThat(ack.get(3)).isEqualTo((byte) TcpFrame.ACK);
            assertThat(ack.getInt(12)).as("the write's status").isEqualTo(TcpFrame.STATUS_OK);
            assertThat(target.get(ValueLayout.JAVA_BYTE, length - 1)).isEqualTo((byte) 0x5D);

            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 7, 0));
            Thread.sleep(100); // the agent waits between frames (a third of the timeout)
            out.write(header(TcpFrame.SEND, 8, 0, 0, 1, 0));
            out.flush();
            DatEvent r = new DatEvent();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (a.recvEvd.dequeue(r) != DatReturn.SUCCESS && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(r.eventNumber()).isEqualTo(EventNumber.DTO_COMPLETION_EVENT);
            assertThat(r.userCookie()).isEqualTo(7);
            assertThat(r.status()).as("the receive of the small send").isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(a.connEvd.dequeue(a.event)).as("no connection event: not broken").isNotZero();
            assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
    }

    /** A send from the raw peer {@code s} lands in a receive of a's: the connection feeds a's receive EVD, whose waiters may read it. */
    private void feedReceiveEvd(Socket s) throws Exception {
        feedReceiveEvd(a, s);
    }

    /**
     * As {@link #feedReceiveEvd(Socket)}, for {@code side}; the send's sequence number is 0.
     * Returns once the EVD knows its feeder, which the connection notes after the completion.
     */
    private static void feedReceiveEvd(Fabric.Side side, Socket s) throws Exception {
        ok(side.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(side.lmr, 0, 64)}, 1, 0));
        s.getOutputStream().write(header(TcpFrame.SEND, 8, 0, 0, 0, 0));
        assertThat(side.expect(side.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        SimEvd evd = (SimEvd) side.recvEvd;
        for (long deadline = System.nanoTime() + 5_000_000_000L; evd.driver() == null && System.nanoTime() < deadline;) {
            Thread.sleep(1);
        }
        assertThat(evd.driver()).as("the receive EVD's driver").isNotNull();
    }

    /**
     * A consumer in a 200 ms dat_evd_wait on {@code side}'s receive EVD, reading the connection
     * from it: once it is driving, {@code frames} are written from the raw peer. The wait must
     * end on time, TIMEOUT_EXPIRED in 150-1000 ms, whatever the frames make the connection do.
     *
     * @return the frames the consumer read meanwhile
     */
    private static long framesReadByAWaitEndingOnTime(Fabric.Side side, Socket peer, byte[] frames) throws Exception {
        TcpConnection connection = ((TcpTransport) ((SimIa) side.ia).adapter().transport()).connections().iterator().next();
        long readBefore = connection.framesReadByConsumers();
        long[] codeAndMs = {-1, -1};
        Thread waiter = Thread.ofPlatform().start(() -> {
            long began = System.nanoTime();
            codeAndMs[0] = side.recvEvd.await(200_000, 1, new DatEvent());
            codeAndMs[1] = (System.nanoTime() - began) / 1_000_000;
        });
        awaitDriven(side.recvEvd, true);
        peer.getOutputStream().write(frames);
        peer.getOutputStream().flush();
        waiter.join(5_000);
        assertThat(codeAndMs[1]).as("ms in dat_evd_wait(200 ms); -1: not returned in 5 s").isBetween(150L, 1_000L);
        Codes.isType((int) codeAndMs[0], DatReturn.TIMEOUT_EXPIRED);
        return connection.framesReadByConsumers() - readBefore;
    }

    /**
     * A peer that requests more RDMA reads than the response ring holds (256) and reads nothing
     * of the responses, while a consumer reads the connection from its dat_evd_wait: the consumer
     * hands on the request that finds the ring full, at its header, so its wait ends on time
     * (not when the connection breaks, as a wait for a slot would); the I/O agent waits for
     * the slot, and once the peer reads, every response comes, in order, on a connection that
     * stayed up.
     */
    @Test
    void aConsumerMeetingAFullResponseRing_handsTheRequestOn_itsWaitEndingOnTime() throws Exception {
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=5000")) {
            Fabric.Side side = f.new Side("tcpQ", null, 1 << 20);
            try (Socket s = rawActivePeer(side)) {
                feedReceiveEvd(side, s);
                int requests = 400; // 100 MiB of responses: the socket takes a few MiB, the ring 256 more
                int length = 256 << 10;
                ByteBuffer frames = ByteBuffer.allocate(requests * TcpFrame.HEADER_BYTES);
                for (int i = 1; i <= requests; i++) {
                    RmrTriplet source = RmrTriplet.of(side.lmr, (long) (i % 4) * length, length);
                    frames.put(header(TcpFrame.RDMA_READ_REQUEST, 0, source.rmrContext(), length, i, source.targetAddress()));
                }
                assertThat(framesReadByAWaitEndingOnTime(side, s, frames.array())).as("requests the consumer handled")
                        .isBetween(1L, requests - 1L);
                DataInputStream in = new DataInputStream(s.getInputStream());
                assertThat(frame(in).getLong(16)).as("the send's ACK").isZero();
                for (int i = 1; i <= requests; i++) {
                    ByteBuffer response = frame(in);
                    assertThat(response.get(3)).as("response %d", i).isEqualTo((byte) TcpFrame.RDMA_READ_RESPONSE);
                    assertThat(response.getLong(16)).as("its sequence number").isEqualTo(i);
                    assertThat(response.getInt(12)).as("its status").isEqualTo(TcpFrame.STATUS_OK);
                    assertThat(Integer.toUnsignedLong(response.getInt(4))).as("its length").isEqualTo(length);
                }
                assertThat(side.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
                assertThat(side.connEvd.dequeue(side.event)).as("no connection event").isNotZero();
            }
        }
    }

    /**
     * An access refused by a consumer reading the connection from its dat_evd_wait, while the
     * writer cannot send the refusal (the peer reads none of the RDMA reads it requested): the
     * consumer does not wait for the writer, its wait ends on time; the I/O agent gives the
     * writer its time and then breaks the Endpoint, as
     * {@link #aRefusalTheWriterCannotSend_stillBreaksTheEndpoint} when it met the refusal itself.
     */
    @Test
    void aConsumerRefusingAnAccess_leavesTheEndToTheAgent_itsWaitEndingOnTime() throws Exception {
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=3600000")) {
            Fabric.Side side = f.new Side("tcpR", null, 16 << 20);
            try (Socket s = rawActivePeer(side)) {
                feedReceiveEvd(side, s);
                int reads = 16; // 16 MiB: more than the socket takes while the peer reads nothing
                ByteBuffer frames = ByteBuffer.allocate((reads + 1) * TcpFrame.HEADER_BYTES);
                for (int i = 0; i < reads; i++) {
                    RmrTriplet source = RmrTriplet.of(side.lmr, (long) i << 20, 1 << 20);
                    frames.put(header(TcpFrame.RDMA_READ_REQUEST, 0, source.rmrContext(), 1 << 20, i + 1, source.targetAddress()));
                }
                frames.put(header(TcpFrame.RDMA_WRITE, 0, 0x7777, 0, reads + 1, 0)); // an unknown RMR context
                assertThat(framesReadByAWaitEndingOnTime(side, s, frames.array())).as("frames the consumer handled, the refused one too")
                        .isEqualTo(reads + 1L);
                // else the writer sent the refusal at once, and the test would prove nothing
                assertThat(side.connEvd.dequeue(side.event)).as("not broken yet: the writer cannot send the refusal").isNotZero();
                DatEvent c = side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
                assertThat(c.endpoint()).isSameAs(side.ep);
                assertThat(side.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
            }
        }
    }

    /** Waits until a consumer reads the connection from its wait on {@code evd}, or no longer does. */
    private static void awaitDriven(dat.api.EventDispatcher evd, boolean driven) throws InterruptedException {
        for (long deadline = System.nanoTime() + 5_000_000_000L;
                (((SimEvd) evd).drivenBy() != null) != driven && System.nanoTime() < deadline;) {
            Thread.sleep(1);
        }
        assertThat(((SimEvd) evd).drivenBy() != null).as("a consumer reads the connection from its wait").isEqualTo(driven);
    }

    /** A connection request that trickles in, a byte at a time, must still come whole within the timeout. */
    @Test
    void aConnectionRequestTricklingIn_isClosedAfterTheTimeout() throws Exception {
        try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), a.address().getPort())) {
            rawPeer = s;
            s.setSoTimeout(100);
            byte[] request = header(TcpFrame.CONNECT_REQUEST, 0, 0, 1, 0, 5);
            boolean closedByTheIa = false;
            for (int i = 0; i < 20 && !closedByTheIa; i++) { // 2 s; the timeout is 300 ms
                try {
                    s.getOutputStream().write(request[i]);
                    closedByTheIa = s.getInputStream().read() < 0;
                } catch (SocketTimeoutException stillOpen) {
                    // a byte each 100 ms
                } catch (java.io.IOException reset) {
                    closedByTheIa = true;
                }
            }
            assertThat(closedByTheIa).as("closed before the request's 20th byte").isTrue();
            awaitNoConnection(transport(a));
        }
    }

    @Test
    void aPeerThatNeverAnswersADisconnect_isClosedAfterTheTimeout() throws Exception {
        try (Socket s = rawActivePeer()) {
            rawPeer = s;
            DataInputStream in = new DataInputStream(s.getInputStream());
            a.ep.disconnect(CloseFlag.GRACEFUL);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertThat(frame(in).get(3)).isEqualTo((byte) TcpFrame.DISCONNECT);
            assertThat(in.read()).as("the FIN after the DISCONNECT").isEqualTo(-1);
            awaitNoConnection(transport(a)); // the peer stays silent and open
        }
    }


    private static void awaitNoConnection(TcpTransport t) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!t.connections().isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        assertThat(t.connections()).as("the IA's connections, 5 s after the peer fell silent (timeout 300 ms)").isEmpty();
    }

    /**
     * An access refused while the writer cannot send the refusal (the peer reads nothing: here
     * RDMA reads of 8 MiB it never takes), with keepalives too slow to help: the reader does not
     * leave the Endpoint CONNECTED on a closed connection, it breaks it.
     */
    @Test
    void aRefusalTheWriterCannotSend_stillBreaksTheEndpoint() throws Exception {
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=3600000")) {
            Fabric.Side side = f.new Side("tcpR", null, 8 << 20);
            try (Socket s = rawActivePeer(side)) {
                java.io.OutputStream out = s.getOutputStream();
                for (int i = 0; i < 8; i++) {
                    RmrTriplet source = RmrTriplet.of(side.lmr, (long) i << 20, 1 << 20);
                    out.write(header(TcpFrame.RDMA_READ_REQUEST, 0, source.rmrContext(), 1 << 20, i, source.targetAddress()));
                }
                out.write(header(TcpFrame.RDMA_WRITE, 0, 0x7777, 0, 8, 0)); // an unknown RMR context
                out.flush();
                DatEvent c = side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
                assertThat(c.endpoint()).isSameAs(side.ep);
                assertThat(side.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
            }
        }
    }

    /** A dat_evd_wait on its own thread: the code it returned and how long it took. */
    private static final class TimedWait {
        final DatEvent got = new DatEvent();
        final Thread thread;
        volatile int code = -1;
        volatile long returnedAfterMs = -1;

        TimedWait(dat.api.EventDispatcher evd, long timeoutMicros) {
            thread = Thread.ofPlatform().start(() -> {
                long began = System.nanoTime();
                code = evd.await(timeoutMicros, 1, got);
                returnedAfterMs = (System.nanoTime() - began) / 1_000_000;
            });
        }

        /** The wait of 200 ms ended on its timeout, at about that time. */
        void assertTimedOutAfter200Ms() throws InterruptedException {
            thread.join(5_000);
            Codes.isType(code, DatReturn.TIMEOUT_EXPIRED);
            assertThat(returnedAfterMs).as("ms in dat_evd_wait(200 ms)").isBetween(150L, 1_000L);
        }
    }
}
