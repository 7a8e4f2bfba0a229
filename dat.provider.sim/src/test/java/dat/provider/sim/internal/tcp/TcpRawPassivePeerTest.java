package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.RawFrames.frame;
import static dat.provider.sim.internal.tcp.RawFrames.header;
import static dat.provider.sim.internal.tcp.RawPeers.awaitBroken;
import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.Qos;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import dat.provider.sim.internal.core.SimEndpoint;
import dat.provider.sim.internal.core.SpinLock;
import java.io.DataInputStream;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An active side against a passive peer played with a plain socket that accepts and then does
 * what the test says, with a liveness timeout of 300 ms: a peer that stops reading, goes silent or
 * resets breaks the connection, every DTO flushed in order; its ACKs, cumulative or asked for,
 * complete the writes; a write larger than the socket takes arrives whole, and requests flushed
 * are read no more.
 */
@Timeout(60)
class TcpRawPassivePeerTest extends AgainstRawPeer {

    private ServerSocket raw;

    @AfterEach
    void closeAcceptor() throws Exception {
        if (raw != null) {
            raw.close();
        }
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
}
