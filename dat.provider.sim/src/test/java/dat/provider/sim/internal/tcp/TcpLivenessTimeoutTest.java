package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.RawFrames.frame;
import static dat.provider.sim.internal.tcp.RawFrames.header;
import static dat.provider.sim.internal.tcp.RawPeers.awaitNoConnection;
import static dat.provider.sim.internal.tcp.RawPeers.rawActivePeer;
import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import java.io.DataInputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The liveness timeout (300 ms) around the data phase: a connection whose peer, played with a
 * plain socket, never sends its connection request, trickles it in, or never closes after the
 * IA's REJECT or DISCONNECT is closed after it; an idle live pair is held together by keepalives.
 */
@Timeout(60)
class TcpLivenessTimeoutTest extends AgainstRawPeer {

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
        try (Socket s = rawActivePeer(a)) {
            rawPeer = s;
            DataInputStream in = new DataInputStream(s.getInputStream());
            a.ep.disconnect(CloseFlag.GRACEFUL);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertThat(frame(in).get(3)).isEqualTo((byte) TcpFrame.DISCONNECT);
            assertThat(in.read()).as("the FIN after the DISCONNECT").isEqualTo(-1);
            awaitNoConnection(transport(a)); // the peer stays silent and open
        }
    }
}
