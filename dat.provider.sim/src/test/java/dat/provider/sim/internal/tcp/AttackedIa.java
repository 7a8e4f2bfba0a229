package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.RawFrames.header;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.PspFlag;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.SimIa;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * The scene of the hostile-peer tests: a live TCP IA under attack ({@link #target}), the passive
 * side of a well-behaved pair that keeps exchanging data with it, and raw sockets connected to it
 * as peers of its Endpoints.
 */
final class AttackedIa implements AutoCloseable {

    private static final String TCP = "tcp=127.0.0.1:0";

    final TcpPair pair = new TcpPair(TCP, "tcpG", "tcpT", 1 << 16);
    /** The IA under attack (passive side of the good pair). */
    final Fabric.Side target = pair.b;
    final Fabric.Side good = pair.a;

    /**
     * Closes both providers; checks too that a peer's frame, however hostile, ended its connection
     * through the wire's checks: none through the I/O agent's catch-all for a defect (which only logs).
     */
    @Override
    public void close() {
        pair.close();
    }

    TcpTransport transport() {
        return ((TcpTransport) ((SimIa) target.ia).adapter().transport());
    }

    void connectGoodPair() {
        pair.connect(1, target.ep);
    }

    /** One round of the good pair: a send into a receive and an RDMA write, bytes verified. */
    void goodRound(int round) {
        good.mem.asSlice(0, 256).fill((byte) round);
        ok(target.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(target.lmr, 1024, 256)}, round, 0));
        ok(good.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(good.lmr, 0, 256)}, round, 0));
        ok(good.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(good.lmr, 0, 256)}, round,
                RmrTriplet.of(target.lmr, 4096, 256), 0));
        DatEvent r = target.expect(target.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
        assertThat(r.status()).as("good round %d: the receive", round).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(good.expect(good.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).as("good round %d: the send", round)
                .isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(good.expect(good.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).as("good round %d: the write", round)
                .isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(target.mem.asSlice(1024, 256).mismatch(good.mem.asSlice(0, 256))).isEqualTo(-1);
        assertThat(target.mem.asSlice(4096, 256).mismatch(good.mem.asSlice(0, 256))).isEqualTo(-1);
    }

    /** The target's PSP on qualifier 2, which {@link #rawPeer} connects to, and an Endpoint to accept into. */
    Endpoint endpointForRawPeer() {
        target.ia.createPublicServicePoint(2, target.crEvd, PspFlag.CONSUMER);
        return target.ia.createEndpoint(target.pz, target.recvEvd, target.reqEvd, target.connEvd, null);
    }

    /**
     * A raw peer connected to {@code ep} of the target: CONNECT_REQUEST on qualifier 2, the
     * target's accept, READY_TO_USE; the target's Endpoint is ESTABLISHED when this returns.
     */
    Socket rawPeer(Endpoint ep) throws IOException {
        return rawPeer(ep, 0);
    }

    /** {@link #rawPeer(Endpoint)} with a socket receive buffer of {@code receiveBuffer} bytes (0: the default). */
    Socket rawPeer(Endpoint ep, int receiveBuffer) throws IOException {
        return rawPeer(ep, receiveBuffer, target.crEvd, target.connEvd, target.event);
    }

    /**
     * {@link #rawPeer(Endpoint, int)} for a PSP on qualifier 2 that posts to {@code crEvd} and an
     * Endpoint whose connection events go to {@code connEvd}, waiting into {@code e}.
     */
    Socket rawPeer(Endpoint ep, int receiveBuffer, EventDispatcher crEvd, EventDispatcher connEvd, DatEvent e)
            throws IOException {
        Socket s = new Socket();
        if (receiveBuffer > 0) {
            s.setReceiveBufferSize(receiveBuffer); // before the connect: it sets the window offered
        }
        s.setTcpNoDelay(true); // frames written in pieces go out at once, not after the peer's delayed ACK
        s.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), target.address().getPort()));
        s.setSoTimeout(10_000);
        s.getOutputStream().write(header(TcpFrame.CONNECT_REQUEST, 0, 0, 1, 0, 2, 0));
        Fabric.Side.expect(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, e).connectionRequest().accept(ep, null);
        assertThat(s.getInputStream().readNBytes(TcpFrame.HEADER_BYTES)[3]).isEqualTo((byte) TcpFrame.ACCEPT);
        s.getOutputStream().write(header(TcpFrame.READY_TO_USE, 0, 0, 0, 0, 0, 0));
        assertThat(Fabric.Side.expect(connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, e).endpoint()).isSameAs(ep);
        return s;
    }
}
