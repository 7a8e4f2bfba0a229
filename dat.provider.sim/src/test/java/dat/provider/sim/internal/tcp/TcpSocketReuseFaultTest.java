package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Socket reuse against a peer the test plays with a plain socket ({@link SocketReuse}): the end of
 * a connection is its DISCONNECT, nothing after it; a request refused after it does not stop the
 * hand-over; an idle socket that turns out dead, or that brings bytes, gives way to a fresh socket;
 * a peer that never answers the DISCONNECT loses the socket.
 */
@Timeout(60)
class TcpSocketReuseFaultTest {

    private static final long QUALIFIER = 9;
    /** How long the plain peer waits for a frame or a connection. */
    private static final int PEER_WAIT_MS = 10_000;

    private final Fabric fa = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0");
    private final Fabric.Side a = fa.new Side("tcpA", null, 1 << 16);
    private Fabric fc;

    @AfterEach
    void close() {
        fa.close();
        if (fc != null) {
            fc.close();
        }
    }


    // ---------------------------------------------------------------------------------------------
    // the plain peer
    // ---------------------------------------------------------------------------------------------

    /** A frame's header as the plain peer read it (its payload skipped). */
    private record Header(int op, int context, int aux, long seq) {
    }

    private static void write(Socket s, int op, int ctx, int aux, long seq, long addr, byte[] payload) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(TcpFrame.HEADER_BYTES + payload.length);
        TcpFrame.encode(b, op, payload.length, ctx, aux, seq, addr);
        b.put(payload);
        s.getOutputStream().write(b.array());
    }

    private static void write(Socket s, int op, int ctx, int aux, long seq, long addr) throws IOException {
        write(s, op, ctx, aux, seq, addr, new byte[0]);
    }

    /** The next frame's header, its payload skipped; {@code null} at the end of the stream or a reset. */
    private static Header read(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        byte[] h;
        try {
            h = in.readNBytes(TcpFrame.HEADER_BYTES);
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            return null; // reset
        }
        if (h.length < TcpFrame.HEADER_BYTES) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(h);
        in.skipNBytes(Integer.toUnsignedLong(b.getInt(4)));
        return new Header(h[3], b.getInt(8), b.getInt(12), b.getLong(16));
    }

    /**
     * The plain peer as the active side on {@code s}: a CONNECT_REQUEST that offers reuse, the
     * consumer's accept into {@code ep}, the ACCEPT (which takes the offer; nothing before it),
     * READY_TO_USE; {@code ep} is ESTABLISHED when this returns.
     */
    private static void request(Socket s, Fabric.Side side, Endpoint ep) throws IOException {
        write(s, TcpFrame.CONNECT_REQUEST, TcpFrame.WITH_REUSE, 1, 0, QUALIFIER);
        side.expect(side.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(ep, null);
        Header accept = read(s);
        assertThat(accept).as("the answer").isNotNull();
        assertThat(TcpFrame.opcodeName(accept.op())).isEqualTo(TcpFrame.opcodeName(TcpFrame.ACCEPT));
        assertThat(accept.aux() & TcpFrame.ACCEPT_REUSE).as("reuse taken").isNotZero();
        write(s, TcpFrame.READY_TO_USE, 0, 0, 0, 0);
        side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    private static Socket connectTo(Fabric.Side side) throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), side.address().getPort()));
        s.setSoTimeout(PEER_WAIT_MS);
        return s;
    }

    /** The plain peer as the passive side: the next socket's CONNECT_REQUEST (reuse offered), answered by {@code answer}. */
    private static Socket serve(ServerSocket listener, int answer, int aux) throws IOException {
        Socket s = listener.accept();
        s.setTcpNoDelay(true);
        s.setSoTimeout(PEER_WAIT_MS);
        Header req = read(s);
        assertThat(req).as("the request").isNotNull();
        assertThat(req.op()).isEqualTo(TcpFrame.CONNECT_REQUEST);
        assertThat(req.context() & TcpFrame.WITH_REUSE).as("reuse offered").isNotZero();
        write(s, answer, 0, aux, 0, 0);
        if (answer == TcpFrame.ACCEPT) {
            assertThat(read(s).op()).isEqualTo(TcpFrame.READY_TO_USE);
        }
        return s;
    }

    private static ServerSocket listener() throws IOException {
        ServerSocket l = new ServerSocket(0, 8, InetAddress.getByName("127.0.0.1"));
        l.setSoTimeout(PEER_WAIT_MS);
        return l;
    }

    private void connectA(ServerSocket listener) {
        a.ep.connect(new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort()), QUALIFIER, Fabric.WAIT, null,
                Qos.BEST_EFFORT, 0);
    }

    /**
     * IA A connects to the plain peer, which accepts with reuse; A disconnects, the peer answers
     * with its DISCONNECT, and A keeps the socket idle.
     *
     * @return the peer's end of the idle socket
     */
    private Socket idleSocketToPlainPeer(ServerSocket listener) throws Exception {
        return idleSocketToPlainPeer(listener, new byte[0]);
    }

    /** As {@link #idleSocketToPlainPeer(ServerSocket)}, the peer's DISCONNECT followed by {@code after} in the same write. */
    private Socket idleSocketToPlainPeer(ServerSocket listener, byte[] after) throws Exception {
        connectA(listener);
        Socket s = serve(listener, TcpFrame.ACCEPT, TcpFrame.ACCEPT_REUSE);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.ep.disconnect(CloseFlag.ABRUPT);
        assertThat(read(s).op()).isEqualTo(TcpFrame.DISCONNECT);
        ByteBuffer b = ByteBuffer.allocate(TcpFrame.HEADER_BYTES + after.length);
        TcpFrame.encode(b, TcpFrame.DISCONNECT, 0, 0, 0, 0, 0);
        s.getOutputStream().write(b.put(after).array()); // one write: one segment on the loopback
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        for (long deadline = System.nanoTime() + Fabric.WAIT * 1_000; transport(a).idleSocketCount() != 1;) {
            assertThat(System.nanoTime() - deadline).as("the socket idles").isNegative();
            Thread.sleep(1);
        }
        a.ep.reset();
        return s;
    }

    /**
     * Runs {@code beforeConnect} while A's I/O agent is held in a task of the test's, then A's
     * dat_ep_connect to the plain peer from that task: the agent cannot have looked at the idle
     * socket since, so the connect meets what {@code beforeConnect} did to it. Production never
     * connects on the agent's thread (a consumer's thread does, while the agent runs): here the
     * connect does the same work (the CM lock, the read of the idle socket, the request's write),
     * except that an idle socket it closes is forgotten at once instead of by a task of the
     * agent's, and what it leaves to the agent (a failed write, the readiness) runs after it.
     */
    private void connectWhileTheAgentLooksAway(ServerSocket listener, ThrowingRunnable beforeConnect) throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        CountDownLatch connected = new CountDownLatch(1);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        assertThat(transport(a).agent().execute(() -> {
            held.countDown();
            try {
                done.await();
                connectA(listener);
            } catch (Throwable t) {
                failed.set(t);
            } finally {
                connected.countDown();
            }
        })).isTrue();
        held.await();
        try {
            beforeConnect.run();
        } finally {
            done.countDown();
        }
        connected.await();
        assertThat(failed.get()).as("the connect on the agent").isNull();
    }

    /** A's connection is on {@code s}: A's disconnect sends its DISCONNECT there. */
    private void endsOn(Socket s) throws IOException {
        a.ep.disconnect(CloseFlag.ABRUPT);
        Header h = read(s);
        assertThat(h).as("A's DISCONNECT").isNotNull();
        assertThat(h.op()).isEqualTo(TcpFrame.DISCONNECT);
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private interface PeerSocketAction {
        void on(Socket peerEnd) throws Exception;
    }

    // ---------------------------------------------------------------------------------------------
    // the passive side's end
    // ---------------------------------------------------------------------------------------------

    /**
     * An RDMA read request that reaches the passive side after its DISCONNECT (the peer sent it
     * before it read the DISCONNECT) is dropped unanswered, and reading goes on: the peer's
     * DISCONNECT hands the socket over and its next CONNECT_REQUEST is served, answered by an
     * ACCEPT with nothing of the first connection before it.
     */
    @Test
    void aReadRequestAfterThisSidesDisconnect_doesNotStopTheHandOver() throws Exception {
        Fabric.Side b = a; // the passive side is an IA of the fabric; the plain peer is active
        b.ia.createPublicServicePoint(QUALIFIER, b.crEvd, PspFlag.CONSUMER);
        try (Socket s = connectTo(b)) {
            request(s, b, b.ep);
            b.ep.disconnect(CloseFlag.ABRUPT);
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertThat(read(s).op()).isEqualTo(TcpFrame.DISCONNECT);
            write(s, TcpFrame.RDMA_READ_REQUEST, 1, 8, 0, 0); // a window that is gone with the Endpoint
            write(s, TcpFrame.DISCONNECT, 0, 0, 0, 0);
            b.ep.reset();
            request(s, b, b.ep); // the ACCEPT is the first frame after the DISCONNECT
            assertThat(transport(b).violations.get()).isZero();
        }
    }

    /**
     * A DISCONNECT that finds the output busy is queued as the connection's last frame: what the
     * passive side owed before it (an ACK) goes first, and nothing of the connection follows it,
     * not even answers to the requests the peer sent meanwhile, nor a NOP the liveness check
     * queues the moment the DISCONNECT was left to the agent ({@link Output#lastLeft}): a frame
     * and an end marker queued in two steps let that NOP in between them, onto the next connection.
     */
    @Test
    void aDisconnectQueuedBehindABusyOutput_isTheLastFrameOfItsConnection() throws Exception {
        Fabric.Side b = a;
        b.ia.createPublicServicePoint(QUALIFIER, b.crEvd, PspFlag.CONSUMER);
        assertThat(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 64)}, 1, CompletionFlags.DEFAULT))
                .isEqualTo(DatReturn.SUCCESS);
        try (Socket s = connectTo(b)) {
            request(s, b, b.ep);
            TcpConnection c = transport(b).connections().getFirst();
            write(s, TcpFrame.SEND, 0, 0, 0, 0, new byte[8]);
            assertThat(b.next(b.recvEvd).userCookie()).isEqualTo(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread holder = WireHooks.holdingTheWriteLock(c, release);
            ByteBuffer nop = ByteBuffer.allocate(TcpFrame.HEADER_BYTES);
            TcpFrame.encode(nop, TcpFrame.NOP, 0, 0, 0, 0, 0);
            c.output.lastLeft = () -> c.output.enqueue(nop.flip()); // as ConnectionChecks' SEND_NOP
            b.ep.disconnect(CloseFlag.ABRUPT); // the output is busy: queued for the agent
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            write(s, TcpFrame.SEND, 0, 0, 1, 0, new byte[8]); // after the end: dropped, unanswered
            write(s, TcpFrame.ACK_REQUEST, 0, 0, 0, 0);
            release.countDown();
            holder.join();
            Header h;
            while ((h = read(s)) != null && h.op() == TcpFrame.ACK) {
                assertThat(h.seq()).as("the ACK owed before the end").isZero();
            }
            assertThat(h).isNotNull();
            assertThat(TcpFrame.opcodeName(h.op())).isEqualTo(TcpFrame.opcodeName(TcpFrame.DISCONNECT));
            write(s, TcpFrame.DISCONNECT, 0, 0, 0, 0);
            b.ep.reset();
            request(s, b, b.ep); // the ACCEPT is the first frame after the DISCONNECT
        }
    }

    /**
     * A peer that answers this side's DISCONNECT with NOPs forever, never with its DISCONNECT,
     * loses the socket: the closing wait is bounded (twice the timeout), however much it sends.
     */
    @Test
    void aPeerThatSendsNopsInsteadOfItsDisconnect_losesTheSocket() throws Exception {
        fc = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=200");
        Fabric.Side b = fc.new Side("tcpC", null, 1 << 16);
        b.ia.createPublicServicePoint(QUALIFIER, b.crEvd, PspFlag.CONSUMER);
        try (Socket s = connectTo(b)) {
            request(s, b, b.ep);
            b.ep.disconnect(CloseFlag.ABRUPT);
            assertThat(read(s).op()).isEqualTo(TcpFrame.DISCONNECT);
            s.setSoTimeout(5);
            boolean closed = false;
            for (long deadline = System.nanoTime() + 20_000_000_000L; !closed && System.nanoTime() < deadline;) {
                try {
                    write(s, TcpFrame.NOP, 0, 0, 0, 0);
                    closed = s.getInputStream().read() < 0;
                } catch (SocketTimeoutException e) {
                    // still open: another NOP
                } catch (IOException e) {
                    closed = true; // reset
                }
            }
            assertThat(closed).as("the IA closed the socket of a peer that keeps sending NOPs").isTrue();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the active side's idle socket
    // ---------------------------------------------------------------------------------------------

    /** An idle socket whose peer closed it, not yet noticed: the connect goes over a fresh socket and succeeds. */
    @Test
    void anIdleSocketThePeerClosed_givesWayToAFreshSocket() throws Exception {
        aFreshSocketSucceedsAfter(Socket::close);
    }

    /**
     * An idle socket reset by its peer, not yet noticed: the request's write would fail; the
     * connect goes over a fresh socket instead of staying pending.
     */
    @Test
    void anIdleSocketThePeerReset_givesWayToAFreshSocket() throws Exception {
        aFreshSocketSucceedsAfter(first -> {
            first.setSoLinger(true, 0);
            first.close();
        });
    }

    /**
     * Bytes that came on an idle socket (a peer must send nothing there) are never taken for the
     * next connect's answer: the socket is closed and the connect goes over a fresh one, whose
     * answer (a rejection) is the one reported.
     */
    @Test
    void bytesOnAnIdleSocket_areNeverTakenForTheAnswer() throws Exception {
        try (ServerSocket l = listener()) {
            Socket first = idleSocketToPlainPeer(l); // closed by the test: its end is what the test is about
            connectWhileTheAgentLooksAway(l, () -> write(first, TcpFrame.ACCEPT, 0, TcpFrame.ACCEPT_REUSE, 0, 0));
            try (Socket fresh = serve(l, TcpFrame.REJECT, TcpFrame.REJECT_PEER)) {
                a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
                assertThat(read(fresh)).as("the rejected attempt's socket closed").isNull();
            }
            assertThat(read(first)).as("the stale socket closed").isNull();
            first.close();
        }
    }

    /**
     * An idle socket whose write fails though the read before it finds nothing wrong (this side's
     * output is shut): the failed write of the request gives way to a fresh socket instead of
     * leaving the connect pending. The peer waits {@link #PEER_WAIT_MS} for that socket.
     */
    @Test
    void anIdleSocketWhoseWriteFails_givesWayToAFreshSocket() throws Exception {
        aFreshSocketSucceedsAfter(first -> transport(a).connections().getFirst().channel().shutdownOutput());
    }

    /**
     * A's idle socket to a plain peer, damaged by {@code damage} (given the peer's end) while A's
     * agent cannot notice: A's connect goes over a fresh socket, is ESTABLISHED, and ends there.
     */
    private void aFreshSocketSucceedsAfter(PeerSocketAction damage) throws Exception {
        try (ServerSocket l = listener()) {
            Socket first = idleSocketToPlainPeer(l); // closed by the test: its end is what the test is about
            connectWhileTheAgentLooksAway(l, () -> damage.on(first));
            try (Socket fresh = serve(l, TcpFrame.ACCEPT, TcpFrame.ACCEPT_REUSE)) {
                a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                endsOn(fresh);
            }
            first.close();
        }
    }

    /**
     * Bytes that came with the peer's DISCONNECT, in the same read, are held by the reader, not
     * in the socket: an idle socket holding them (an ACCEPT) is closed, never read for the next
     * connect's answer, and the connect goes over a fresh socket, whose rejection is reported.
     */
    @Test
    void bytesReadWithThePeersDisconnect_areNeverTakenForTheAnswer() throws Exception {
        ByteBuffer accept = ByteBuffer.allocate(TcpFrame.HEADER_BYTES);
        TcpFrame.encode(accept, TcpFrame.ACCEPT, 0, 0, TcpFrame.ACCEPT_REUSE, 0, 0);
        try (ServerSocket l = listener(); Socket first = idleSocketToPlainPeer(l, accept.array())) {
            connectA(l);
            try (Socket fresh = serve(l, TcpFrame.REJECT, TcpFrame.REJECT_PEER)) {
                a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
                assertThat(read(fresh)).as("the rejected attempt's socket closed").isNull();
            }
            assertThat(read(first)).as("the socket holding bytes closed").isNull();
        }
    }

    /**
     * A peer that closes the reused socket on reading the request (it had timed the socket out):
     * nothing of the answer came, so the connect goes on over a fresh socket and succeeds.
     */
    @Test
    void aReusedSocketThatEndsBeforeAnyAnswer_isRetriedOnAFreshSocket() throws Exception {
        try (ServerSocket l = listener()) {
            Socket first = idleSocketToPlainPeer(l); // closed by the test: its end is what the test is about
            connectA(l);
            assertThat(read(first).op()).isEqualTo(TcpFrame.CONNECT_REQUEST);
            first.close();
            try (Socket fresh = serve(l, TcpFrame.ACCEPT, TcpFrame.ACCEPT_REUSE)) {
                a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                endsOn(fresh);
            }
            assertThat(a.ia.query().iaAttributes().transportAttributes()).containsEntry("tcp.reused", "1");
        }
    }
}
