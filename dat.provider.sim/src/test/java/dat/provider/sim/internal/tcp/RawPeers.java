package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.tcp.RawFrames.frame;
import static dat.provider.sim.internal.tcp.RawFrames.header;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.EventNumber;
import dat.api.PspFlag;
import dat.provider.sim.internal.Fabric;
import java.io.DataInputStream;
import java.net.InetAddress;
import java.net.Socket;

/**
 * Peers played with plain sockets against a side's IA, for the fault tests: an active peer
 * connected to a side's Endpoint, and the waits for what the IA does to a peer that falls silent
 * (it breaks the Endpoint, it closes the connection).
 */
final class RawPeers {

    private RawPeers() {
    }

    /** A raw active peer connected to {@code side}'s Endpoint. */
    static Socket rawActivePeer(Fabric.Side side) throws Exception {
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

    /**
     * Waits for the connection event of {@code side}, which must be BROKEN and come within a
     * bound generous for a loaded machine, ten timeouts and two seconds from {@code since}, yet
     * finite: without the liveness check the connection would never break.
     */
    static DatEvent awaitBroken(Fabric.Side side, long since, long timeoutMs) {
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

    static void awaitNoConnection(TcpTransport t) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!t.connections().isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        assertThat(t.connections()).as("the IA's connections, 5 s after the peer fell silent (timeout 300 ms)").isEmpty();
    }
}
