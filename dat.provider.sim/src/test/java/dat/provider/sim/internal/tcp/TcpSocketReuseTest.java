package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import java.lang.foreign.ValueLayout;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The sockets of ended connections carry the next connection between the same two IAs
 * ({@link SocketReuse}): without a frame of the connection before, without the sockets of a peer
 * gone while they idled, and without one left open when the IA closes.
 */
@Timeout(60)
class TcpSocketReuseTest {

    private static final String TCP = "tcp=127.0.0.1:0";
    static final long QUALIFIER = 9;

    final Fabric fa = new Fabric(ProviderSettings.defaults().limits(), iaParams());
    final Fabric fb = new Fabric(ProviderSettings.defaults().limits(), iaParams());
    final Fabric.Side a = fa.new Side("tcpA", null, 1 << 16);
    final Fabric.Side b = fb.new Side("tcpB", null, 1 << 16);
    boolean aClosed;
    boolean bClosed;

    /** The two IAs' {@code ia_params}. */
    String iaParams() {
        return TCP;
    }

    @AfterEach
    void close() {
        if (!aClosed) {
            fa.close();
        }
        if (!bClosed) {
            fb.close();
        }
    }


    /** Waits, up to the fabric's wait, for {@code condition}; whether it came. */
    static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        for (long deadline = System.nanoTime() + Fabric.WAIT * 1_000; !condition.getAsBoolean();) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }

    Endpoint connect(Endpoint active, Endpoint passive) {
        active.connect(b.address(), QUALIFIER, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(passive, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        return active;
    }

    void disconnectBoth(Endpoint by, Fabric.Side side, Fabric.Side other) {
        by.disconnect(CloseFlag.ABRUPT);
        side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        other.expect(other.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
    }

    /** b listens, a connects to it and disconnects: the active IA keeps the socket, which is returned. */
    private SocketChannel connectedOnceThenIdle() throws InterruptedException {
        b.ia.createPublicServicePoint(QUALIFIER, b.crEvd, PspFlag.CONSUMER);
        connect(a.ep, b.ep);
        disconnectBoth(a.ep, a, b);
        assertThat(eventually(() -> transport(a).idleSocketCount() == 1)).as("the active IA keeps the socket").isTrue();
        return transport(a).connections().iterator().next().channel();
    }

    static void drain(dat.api.EventDispatcher evd) {
        DatEvent e = new DatEvent();
        while (evd.dequeue(e) == DatReturn.SUCCESS) {
            // flushed completions of the connection that ended
        }
    }

    /**
     * The second connection between the two IAs goes over the first one's socket, from either
     * side's disconnect: the active IA keeps one idle socket, and the passive IA accepts no new one.
     */
    @Test
    void theNextConnectionToAnIa_goesOverTheSocketOfTheLast() throws InterruptedException {
        SocketChannel first = connectedOnceThenIdle();
        a.ep.reset();
        b.ep.reset();
        connect(a.ep, b.ep);
        assertThat(transport(a).idleSocketCount()).as("the connect took the idle socket").isZero();
        assertThat(a.ia.query().iaAttributes().transportAttributes()).containsEntry("tcp.reused", "1");
        assertThat(transport(a).connections()).singleElement().satisfies(c -> assertThat(c.channel()).isSameAs(first));
        // the passive side ends it this time
        disconnectBoth(b.ep, b, a);
        assertThat(eventually(() -> transport(a).idleSocketCount() == 1)).as("kept again").isTrue();
        assertThat(transport(a).connections()).singleElement().satisfies(c -> assertThat(c.channel()).isSameAs(first));
        assertThat(eventually(() -> transport(b).connections().size() == 1)).as("the passive IA's one socket").isTrue();
        assertThat(transport(a).violations.get() + transport(b).violations.get()).isZero();
    }

    /**
     * Sends in flight when the first connection ends never reach the second one on the same
     * socket: its first receive gets the second connection's own message, and no frame of the
     * first is taken for a violation.
     */
    @Test
    void aReusedSocket_neverDeliversAFrameOfThePreviousConnection() throws InterruptedException {
        b.ia.createPublicServicePoint(QUALIFIER, b.crEvd, PspFlag.CONSUMER);
        long slot = 64;
        for (int i = 0; i < 8; i++) {
            assertThat(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, i * slot, slot)}, i, CompletionFlags.DEFAULT))
                    .isEqualTo(DatReturn.SUCCESS);
        }
        connect(a.ep, b.ep);
        a.mem.asSlice(0, slot).fill((byte) 1);
        for (int i = 0; i < 12; i++) {
            // more than the receives: the rest are refused as not ready, and retried, when the end comes
            assertThat(a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, slot)}, i, CompletionFlags.DEFAULT))
                    .isEqualTo(DatReturn.SUCCESS);
        }
        disconnectBoth(a.ep, a, b);
        assertThat(eventually(() -> transport(a).idleSocketCount() == 1)).isTrue();
        drain(a.reqEvd);
        drain(b.recvEvd);
        a.ep.reset();
        b.ep.reset();
        b.mem.fill((byte) 0);
        assertThat(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, slot)}, 100, CompletionFlags.DEFAULT))
                .isEqualTo(DatReturn.SUCCESS);
        connect(a.ep, b.ep);
        assertThat(transport(a).idleSocketCount()).isZero();
        a.mem.asSlice(0, slot).fill((byte) 2);
        assertThat(a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 8)}, 200, CompletionFlags.DEFAULT))
                .isEqualTo(DatReturn.SUCCESS);
        DatEvent received = b.next(b.recvEvd);
        assertThat(received.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(received.userCookie()).isEqualTo(100);
        assertThat(received.transferredLength()).as("the second connection's send, not one of the first's").isEqualTo(8);
        assertThat(b.mem.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 2);
        DatEvent sent = a.next(a.reqEvd);
        assertThat(sent.userCookie()).isEqualTo(200);
        assertThat(sent.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(transport(a).violations.get() + transport(b).violations.get()).as("violations").isZero();
    }

    /**
     * A peer IA that closes while the socket idles: the idle socket goes at once, and the next
     * connect to its address finds nobody listening.
     */
    @Test
    void aPeerThatClosesWhileTheSocketIdles_takesTheSocketWithIt() throws InterruptedException {
        SocketChannel idle = connectedOnceThenIdle();
        java.net.InetSocketAddress gone = b.address();
        fb.close();
        bClosed = true;
        assertThat(eventually(() -> transport(a).idleSocketCount() == 0 && !idle.isOpen())).as("the idle socket closed").isTrue();
        // the socket closes first; the agent then forgets its connection
        assertThat(eventually(() -> transport(a).connections().isEmpty())).as("the connection forgotten").isTrue();
        a.ep.reset();
        a.ep.connect(gone, QUALIFIER, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_UNREACHABLE);
        assertThat(transport(a).violations.get()).isZero();
    }

    /**
     * The close of the IA's last open instance closes its idle sockets (no connect of that IA can
     * take them any more), and the peer closes its ends without counting a violation.
     */
    @Test
    void theLastCloseOfTheIa_closesItsIdleSockets() throws InterruptedException {
        SocketChannel idle = connectedOnceThenIdle();
        TcpTransport activeSide = transport(a);
        a.ep.close();
        a.ia.close();
        assertThat(eventually(() -> activeSide.idleSocketCount() == 0 && !idle.isOpen())).as("the idle socket closed").isTrue();
        assertThat(eventually(() -> transport(b).connections().isEmpty())).as("the peer closed its end").isTrue();
        assertThat(activeSide.violations.get() + transport(b).violations.get()).as("violations").isZero();
    }

    /**
     * Connections set up at once each have their socket, and all of them idle once they end; the
     * IA's close closes every one, and the peer closes its ends without counting a violation.
     */
    @Test
    void idleSocketsAreClosedWithTheirIa() throws InterruptedException {
        b.ia.createPublicServicePoint(QUALIFIER, b.crEvd, PspFlag.CONSUMER);
        List<Endpoint> active = new ArrayList<>();
        List<Endpoint> passive = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            active.add(a.ia.createEndpoint(a.pz, a.recvEvd, a.reqEvd, a.connEvd, null));
            passive.add(b.ia.createEndpoint(b.pz, b.recvEvd, b.reqEvd, b.connEvd, null));
            connect(active.get(i), passive.get(i));
        }
        for (Endpoint e : active) {
            disconnectBoth(e, a, b);
        }
        assertThat(eventually(() -> transport(a).idleSocketCount() == 3)).as("three idle sockets").isTrue();
        List<SocketChannel> channels = transport(a).connections().stream().map(TcpConnection::channel).toList();
        assertThat(channels).hasSize(3).allMatch(SocketChannel::isOpen);
        TcpTransport passiveSide = transport(b);
        fa.close();
        aClosed = true;
        assertThat(channels).as("the idle sockets after the IA's close").noneMatch(SocketChannel::isOpen);
        assertThat(eventually(() -> passiveSide.connections().isEmpty())).as("the peer closed its ends").isTrue();
        assertThat(passiveSide.violations.get()).isZero();
    }
}
