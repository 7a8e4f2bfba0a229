package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.Dtos.dto;
import static dat.provider.sim.internal.tcp.Dtos.iov;
import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.Wr;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A defect planted on purpose in a connection's reader: the connection ends through the I/O
 * agent's catch-all, both sides break instead of leaving their consumers waiting, and every
 * receive completes flushed.
 */
@Timeout(60)
class TcpReaderDefectTest {

    private final TcpPair pair = new TcpPair(TcpPair.NO_KEEPALIVES, "tcpA", "tcpB", 1 << 16);
    private final Fabric fb = pair.fb;
    private final Fabric.Side a = pair.a;
    private final Fabric.Side b = pair.b;

    /** The I/O agent's log, where its catch-all reports a connection that ends on an unexpected exception. */
    private static final java.util.logging.Logger AGENT_LOG = java.util.logging.Logger.getLogger(IoAgent.class.getName());
    /** What the catch-all logged while a defect planted on purpose ({@link #plantDefect}) was hit, else {@code null}. */
    private java.util.List<java.util.logging.LogRecord> plantedDefectLog;
    private java.util.logging.Handler plantedDefectCapture;

    @AfterEach
    void close() {
        try {
            pair.close(); // checks that no connection ended on an unexpected exception but a planted defect's
        } finally {
            if (plantedDefectCapture != null) {
                AGENT_LOG.removeHandler(plantedDefectCapture);
                AGENT_LOG.setUseParentHandlers(true);
            }
        }
    }

    private void connect(Endpoint passive) {
        pair.connect(100, passive);
    }

    @Test
    void anUnexpectedExceptionOnTheReader_breaksBothSides_insteadOfLeavingThemWaiting() throws Exception {
        connect(b.ep);
        plantDefect("receiver.rx", new Wr.Recv(1)); // the receiver's copy of a receive, too small for the receive it takes
        ok(b.ep.postRecv(2, iov(LmrTriplet.of(b.lmr, 0, 8), LmrTriplet.of(b.lmr, 64, 8)), 1, 0));
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 128, 8)), 2, 0));
        sendIntoTheDefect();
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertPlantedDefectHit(ArrayIndexOutOfBoundsException.class);
    }

    /**
     * A defect after the reader took a receive for a send (its payload view gone, on purpose) breaks
     * the connection, and the receive it held completes flushed as the queued one does: none is lost.
     */
    @Test
    void aDefectWhileASendLands_flushesTheReceiveItTook() throws Exception {
        connect(b.ep);
        plantDefect("landing.view", null);
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 8)), 1, 0));
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 64, 8)), 2, 0));
        sendIntoTheDefect();
        assertPlantedDefectHit(NullPointerException.class);
    }

    /**
     * A defect while a delivered connection request waits for the consumer's answer (the requester
     * then gone) fails the attempt as a failed socket would: the accept that comes later completes
     * with ACCEPT_COMPLETION_ERROR (dat_cr_accept(3DAT)) instead of leaving the Endpoint pending.
     */
    @Test
    void aDefectWhileARequestAwaitsItsAnswer_failsTheLaterAccept_insteadOfLeavingItPending() throws Exception {
        b.ia.createPublicServicePoint(100, b.crEvd, dat.api.PspFlag.CONSUMER);
        a.ep.connect(b.address(), 100, dat.api.DatConstants.TIMEOUT_INFINITE, null, dat.api.Qos.BEST_EFFORT, 0);
        dat.api.ConnectionRequest request = b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest();
        plantDefect("handshake.phase", null);
        a.ep.disconnect(dat.api.CloseFlag.ABRUPT); // a's socket closes: b's agent reads it into the defect
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (transport(b).agent().unexpectedEnds() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        request.accept(b.ep, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertPlantedDefectHit(NullPointerException.class);
    }

    /** The connection ended through the I/O agent's catch-all, on the planted defect's exception. */
    private void assertPlantedDefectHit(Class<? extends Throwable> planted) {
        assertThat(transport(b).agent().unexpectedEnds()).as("b's connections that ended on an unexpected exception").isOne();
        assertThat(plantedDefectLog).as("the catch-all's reports").hasSize(1);
        assertThat(plantedDefectLog.get(0).getThrown()).isInstanceOf(planted);
    }

    /**
     * A defect on purpose: a field of a part of b's connection ("receiver.rx", "landing.view") set by
     * reflection. The I/O agent's report of it is captured (the build's output then shows a report
     * of an unexpected exception only for a real defect), and {@link #close} checks it came once.
     */
    private void plantDefect(String path, Object value) throws ReflectiveOperationException {
        java.util.List<java.util.logging.LogRecord> log = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        plantedDefectLog = log;
        plantedDefectCapture = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                log.add(r);
            }

            @Override
            public void flush() {
                // nothing buffered
            }

            @Override
            public void close() {
                // nothing held
            }
        };
        AGENT_LOG.addHandler(plantedDefectCapture);
        AGENT_LOG.setUseParentHandlers(false);
        fb.expectUnexpectedEnds(1);
        Object owner = transport(b).connections().iterator().next();
        String[] names = path.split("\\.");
        for (int i = 0; i < names.length; i++) {
            java.lang.reflect.Field f = owner.getClass().getDeclaredField(names[i]);
            f.setAccessible(true);
            if (i == names.length - 1) {
                f.set(owner, value);
            } else {
                owner = f.get(owner);
            }
        }
    }

    /** a's send meets b's defect: both sides break; the send and b's receives 1 and 2 complete flushed. */
    private void sendIntoTheDefect() {
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 3, 0));
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(dto(a, false).status()).as("the send, never acknowledged").isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertEveryReceiveFlushed(b, 1, 2);
    }

    /** The receive completions of a side, in order: these cookies, each flushed, and no more. */
    private void assertEveryReceiveFlushed(Fabric.Side side, long... cookies) {
        for (long cookie : cookies) {
            DatEvent r = dto(side, true);
            assertThat(r.userCookie()).as("receive %d", cookie).isEqualTo(cookie);
            assertThat(r.status()).as("receive %d", cookie).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        }
        assertThat(side.recvEvd.dequeue(new DatEvent())).as("no other receive completion").isNotEqualTo(dat.api.DatReturn.SUCCESS);
    }
}
