package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.tcp.TcpPair.transport;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.PingPongAllocation;
import dat.provider.sim.internal.core.*;

import static dat.provider.sim.internal.Codes.isType;
import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.api.RmrTriplet;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DTOs over the TCP transport between two providers: send/recv (SRQ too), RDMA write and read
 * with byte verification, and the target side's checks, with the completions of the in-JVM path.
 */
@Timeout(60)
class TcpDtoTest {

    /**
     * No keepalive within a test's run: a lost wake-up of a writer would otherwise end after a
     * keepalive NOP (a third of the timeout) instead of failing the 5 s wait for the next event.
     */
    private static final String TCP = "tcp=127.0.0.1:0 tcp_timeout_ms=3600000";

    private final TcpPair pair = new TcpPair(TCP, "tcpA", "tcpB", 1 << 16);
    private final Fabric fa = pair.fa;
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

    private static LmrTriplet[] iov(LmrTriplet... t) {
        return t;
    }

    private static void fill(MemorySegment m, long off, int len, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < len; i++) {
            m.set(ValueLayout.JAVA_BYTE, off + i, (byte) r.nextInt());
        }
    }

    private DatEvent dto(Fabric.Side s, boolean recv) {
        return s.expect(recv ? s.recvEvd : s.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
    }

    /**
     * An Endpoint that breaks its connection itself (here: a hard receive watermark set below the
     * receives it holds) breaks it for the TCP peer too, as in one JVM: the peer sees BROKEN, not
     * DISCONNECTED.
     */
    @Test
    void aBreakTheEndpointMakes_reachesTheTcpPeerAsBroken() {
        connect(b.ep);
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 1, 0));
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 64, 64)), 2, 0));
        b.ep.setWatermark(dat.api.DatConstants.WATERMARK_INFINITE, 1);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    /** As in one JVM (DtoTest): a receive posted beyond the hard watermark breaks the connection, for the TCP peer too. */
    @Test
    void aReceivePostedBeyondTheHardWatermark_breaksTheConnection_overTcp() {
        connect(b.ep);
        b.ep.setWatermark(dat.api.DatConstants.WATERMARK_INFINITE, 1);
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 1, 0));
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 64, 64)), 2, 0));
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    /**
     * As in one JVM (DtoTest): receives preposted beyond the hard watermark break the connection
     * once established; the active side here (its READY_TO_USE goes out before the break), the
     * passive side in the next test.
     */
    @Test
    void receivesPrepostedBeyondTheHardWatermark_breakTheConnectionOnceEstablished_activeSide_overTcp() {
        prepostBeyondTheHardWatermarkAndConnect(a, b);
    }

    @Test
    void receivesPrepostedBeyondTheHardWatermark_breakTheConnectionOnceEstablished_passiveSide_overTcp() {
        prepostBeyondTheHardWatermarkAndConnect(b, a);
    }

    /** Two receives on {@code side}'s Endpoint, its hard watermark 1, then a and b connect: both sides break, {@code side} first. */
    private void prepostBeyondTheHardWatermarkAndConnect(Fabric.Side side, Fabric.Side peer) {
        ok(side.ep.postRecv(0, null, 1, 0));
        ok(side.ep.postRecv(0, null, 2, 0));
        side.ep.setWatermark(dat.api.DatConstants.WATERMARK_INFINITE, 1);
        connect(b.ep);
        side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        peer.expect(peer.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /**
     * As in one JVM (SrqHotSwapTest): an SRQ buffer the reader takes beyond the hard watermark
     * breaks the connection for the TCP peer too; the buffer and the send complete flushed.
     */
    @Test
    void anSrqBufferTakenBeyondTheHardWatermark_breaksTheConnection_overTcp() {
        SharedReceiveQueue srq = b.ia.createSharedReceiveQueue(b.pz, SrqAttributes.builder().maxRecvDtos(4).build());
        Endpoint onSrq = b.ia.createEndpointWithSrq(b.pz, b.recvEvd, b.reqEvd, b.connEvd, srq, EpAttributes.providerDefaults());
        onSrq.setWatermark(dat.api.DatConstants.WATERMARK_INFINITE, 0);
        connect(onSrq);
        ok(srq.postRecv(0, null, 1));
        ok(a.ep.postSend(0, null, 11, 0));
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        DatEvent r = dto(b, true);
        assertThat(r.userCookie()).isEqualTo(1);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(srq.query().outstandingDtoCount()).isZero();
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    @Test
    void send_scattersIntoTheReceive_withBothCompletions() {
        connect(b.ep);
        fill(a.mem, 0, 10, 1);
        fill(a.mem, 100, 25, 2);
        fill(a.mem, 200, 5, 3);
        ok(b.ep.postRecv(3, iov(LmrTriplet.of(b.lmr, 1000, 12), LmrTriplet.of(b.lmr, 2000, 12), LmrTriplet.of(b.lmr, 3000, 100)), 1, 0));
        ok(a.ep.postSend(3, iov(LmrTriplet.of(a.lmr, 0, 10), LmrTriplet.of(a.lmr, 100, 25), LmrTriplet.of(a.lmr, 200, 5)), 2,
                CompletionFlags.SOLICITED_WAIT));
        DatEvent r = dto(b, true);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(r.transferredLength()).isEqualTo(40);
        assertThat(r.userCookie()).isEqualTo(1);
        Fabric.assertGatheredAndScattered(a, b);
        DatEvent s = dto(a, false);
        assertThat(s.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(s.transferredLength()).isEqualTo(40);
        assertThat(s.userCookie()).isEqualTo(2);
    }

    @Test
    void aSendBeforeAReceiveWaitsForIt_inOrderWithLaterRequests_andManyMessagesArriveInOrder() {
        connect(b.ep);
        fill(a.mem, 0, 8, 5);
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, 0));
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, RmrTriplet.of(b.lmr, 500, 8), 0));
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 8)), 3, 0));
        assertThat(dto(a, false).userCookie()).isEqualTo(1);
        assertThat(dto(a, false).userCookie()).isEqualTo(2);
        assertThat(b.mem.asSlice(500, 8).mismatch(a.mem.asSlice(0, 8))).isEqualTo(-1);
        assertThat(dto(b, true).userCookie()).isEqualTo(3);
        // 2,000 messages of varying size through a window of 16 receives
        SplittableRandom rnd = new SplittableRandom(11);
        int n = 2_000;
        for (int i = 0; i < 16; i++) {
            ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 8192 + i * 1024L, 1024)), i, 0));
        }
        int sent = 0;
        int received = 0;
        int sendsDone = 0;
        while (received < n) {
            while (sent < n && sent - sendsDone < 32) {
                int len = 1 + rnd.nextInt(1024);
                int slot = sent % 32;
                a.mem.asSlice(16384 + slot * 1024L, len).fill((byte) sent);
                ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 16384 + slot * 1024L, len)), len, 0));
                sent++;
            }
            if (received == sent) {
                // every message sent has landed; the window is full of sends not acknowledged yet
                assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                sendsDone++;
                continue;
            }
            DatEvent r = dto(b, true);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            long off = 8192 + r.userCookie() * 1024L;
            int len = (int) r.transferredLength();
            for (int k = 0; k < len; k++) {
                assertThat(b.mem.get(ValueLayout.JAVA_BYTE, off + k)).isEqualTo((byte) received);
            }
            received++;
            ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, off, 1024)), r.userCookie(), 0));
            while (a.reqEvd.dequeue(a.event) == 0) {
                assertThat(a.event.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                sendsDone++;
            }
        }
    }

    /**
     * A consumer reading the connection from its dat_evd_wait ends its wait when a parked one
     * would be woken: an unsolicited receive of an Endpoint with SOLICITED_WAIT receives does not
     * end it, the solicited one does, and the wait then returns the first queued, as in one JVM.
     */
    @Test
    void aConsumerReadingTheConnection_isNotWokenByAnUnsolicitedReceive_butByTheSolicitedOne() throws Exception {
        b.ep.close(); // dat_ep_create(3DAT): every receive stream of b's EVD must have SOLICITED_WAIT too
        Endpoint solicited = b.ia.createEndpoint(b.pz, b.recvEvd, b.reqEvd, b.connEvd,
                EpAttributes.builder().recvCompletionFlags(CompletionFlags.SOLICITED_WAIT).build());
        connect(solicited);
        ok(solicited.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 10, 0));
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 0, CompletionFlags.SOLICITED_WAIT));
        assertThat(dto(b, true).userCookie()).isEqualTo(10);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(((SimEvd) b.recvEvd).driver()).as("the receive EVD\'s driver").isNotNull();
        ok(solicited.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 11, 0));
        ok(solicited.postRecv(1, iov(LmrTriplet.of(b.lmr, 64, 64)), 12, 0));
        DatEvent got = new DatEvent();
        int[] rc = {-1};
        Thread waiter = Thread.ofPlatform().start(() -> rc[0] = b.recvEvd.await(dat.api.DatConstants.TIMEOUT_INFINITE, 1, got));
        try {
            awaitDriving(b.recvEvd, waiter::isAlive);
            long readBefore = transport(b).framesReadByConsumers();
            ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, 0)); // unsolicited
            assertThat(dto(a, false).userCookie()).isEqualTo(1);
            Thread.sleep(100);
            assertThat(transport(b).framesReadByConsumers()).as("frames b's waiting consumer read").isGreaterThan(readBefore);
            assertThat(waiter.isAlive()).as("the wait goes on after an unsolicited receive").isTrue();
            ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, CompletionFlags.SOLICITED_WAIT));
            waiter.join(10_000);
            assertThat(waiter.isAlive()).as("the solicited receive ended the wait").isFalse();
        } finally {
            waiter.interrupt();
        }
        ok(rc[0]);
        assertThat(got.userCookie()).isEqualTo(11);
        assertThat(got.moreEvents()).isEqualTo(1);
        ok(b.recvEvd.dequeue(got));
        assertThat(got.userCookie()).isEqualTo(12);
    }

    /**
     * dat_evd_set_unwaitable(3DAT) releases a consumer reading the connection, even if cleared at
     * once (five rounds: a driver that looks before the clear could see the unwaitable state anyway).
     */
    @Test
    void setUnwaitableThenClearAtOnce_releasesAConsumerReadingTheConnection() throws Exception {
        connectAndFeed();
        for (int round = 0; round < 5; round++) {
            int[] rc = {-1};
            Thread waiter = Thread.ofPlatform().start(() -> rc[0] = b.recvEvd.await(dat.api.DatConstants.TIMEOUT_INFINITE, 1, new DatEvent()));
            try {
                awaitDriving(b.recvEvd, waiter::isAlive);
                Thread.sleep(20); // most likely waiting on the socket by now
                b.recvEvd.setUnwaitable();
                b.recvEvd.clearUnwaitable();
                waiter.join(10_000);
                assertThat(waiter.isAlive()).as("the waiter was released, round %d", round).isFalse();
            } finally {
                waiter.interrupt();
            }
            assertThat(dat.api.DatReturn.describe(rc[0])).isEqualTo(dat.api.DatReturn.describe(
                    dat.api.DatReturn.error(dat.api.DatReturn.INVALID_STATE, dat.api.DatReturn.INVALID_STATE_EVD_UNWAITABLE)));
        }
        aSendStillArrives(5);
    }

    /**
     * The driver an EVD notes is its IA's I/O agent, not a connection: an EVD keeps no connection
     * (nor its Endpoint and buffers) reachable once that connection closed.
     */
    @Test
    void anEvdsDriverIsItsIasAgent_whichKeepsNoClosedConnection() {
        connectAndFeed();
        TcpConnection connection = transport(b).connections().iterator().next();
        assertThat(((SimEvd) b.recvEvd).driver()).as("the receive EVD's driver").isInstanceOf(IoAgent.class);
        connection.close();
        for (long deadline = System.nanoTime() + 5_000_000_000L;
                transport(b).connections().contains(connection) && System.nanoTime() < deadline;) {
            Thread.onSpinWait();
        }
        assertThat(transport(b).connections()).as("the agent's connections after the close").doesNotContain(connection);
        assertThat(((SimEvd) b.recvEvd).driver()).as("the receive EVD's driver after the close").isInstanceOf(IoAgent.class);
    }

    /**
     * A drive whose wait is over before it looked at the socket (a wait of 1 us, say) still reads
     * it once, without waiting: else a run of such waits, each renewing the agent's lease, leaves
     * the socket unread. The test holds the agent's role as the agent's thread would (the drives,
     * on the same thread, still take it), so that only the drives can read.
     */
    @Test
    void aDriveWhoseWaitIsOverBeforeItLooked_stillReadsTheSocketOnce() {
        connectAndFeed();
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 6, 0));
        IoAgent agent = transport(b).agent();
        DatEvent got = new DatEvent();
        int rc;
        int drives = 0;
        agent.lockRoleForTest();
        try {
            ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 0, 0));
            // ends as soon as the message is read; the bound only stops a drive that never reads it
            // (a host that stalls the VM for seconds must not fail it)
            long end = System.nanoTime() + 30_000_000_000L;
            do {
                assertThat(agent.drive((SimEvd) b.recvEvd, false, System.nanoTime() - 1)).as("drove").isTrue();
                drives++;
                rc = b.recvEvd.dequeue(got);
            } while (rc != dat.api.DatReturn.SUCCESS && System.nanoTime() < end);
        } finally {
            agent.role().unlock();
            agent.roleReleased();
        }
        ok(rc);
        assertThat(got.userCookie()).as("after %d drives", drives).isEqualTo(6);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
    }

    @Test
    void aPingPongWhoseEchoRepostsItsReceiveAfterReplying_completesEverySend() throws Exception {
        // the echo side replies before it reposts its receive, so the next ping can find no
        // receive (receiver not ready) and is sent again: every send still completes, in order
        connect(b.ep);
        int rounds = 3000;
        int[] echoed = {0};
        int pinged = 0;
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 0, 0));
        ok(a.ep.postRecv(1, iov(LmrTriplet.of(a.lmr, 4096, 64)), 0, 0));
        Thread echo = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < rounds; i++) {
                DatEvent got = dto(b, true);
                assertThat(got.status()).as("echo receive %d", i).isEqualTo(DtoCompletionStatus.SUCCESS);
                ok(b.ep.postSend(1, iov(LmrTriplet.of(b.lmr, 0, got.transferredLength())), i, 0));
                ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 0, 0));
                echoed[0] += drain(b.reqEvd); // as dat perf's server does: the ACKs may come later
            }
        });
        for (int i = 0; i < rounds; i++) {
            a.mem.set(ValueLayout.JAVA_INT, 0, i);
            ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), i, 0));
            DatEvent got = dto(a, true);
            assertThat(got.status()).as("reply %d", i).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(a.mem.get(ValueLayout.JAVA_INT, 4096)).as("the reply to ping %d", i).isEqualTo(i);
            ok(a.ep.postRecv(1, iov(LmrTriplet.of(a.lmr, 4096, 64)), 0, 0));
            pinged += drain(a.reqEvd);
        }
        echo.join(10_000);
        assertThat(echo.isAlive()).isFalse();
        for (long deadline = System.nanoTime() + 5_000_000_000L; (pinged < rounds || echoed[0] < rounds) && System.nanoTime() < deadline;) {
            pinged += drain(a.reqEvd);
            echoed[0] += drain(b.reqEvd);
        }
        assertThat(pinged).as("pings completed").isEqualTo(rounds);
        assertThat(echoed[0]).as("replies completed").isEqualTo(rounds);
    }

    // ---------------------------------------------------------------------------------------------
    // a consumer waiting on an EVD runs its IA's I/O agent (IoAgent.drive)
    // ---------------------------------------------------------------------------------------------


    /** The first send makes b's I/O agent b's receive EVD's driver: b's next waits run it themselves. */
    private void connectAndFeed() {
        connect(b.ep);
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 0, 0));
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 0, 0));
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(((SimEvd) b.recvEvd).driver()).as("the receive EVD\'s driver").isNotNull();
    }

    /** A connection that closed is reachable from no EVD: the EVD does not keep it, its Endpoint and buffers. */
    @Test
    void aClosedConnectionIsReachableFromNoEvd() {
        connectAndFeed();
        a.ep.disconnect(dat.api.CloseFlag.GRACEFUL);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        for (long deadline = System.nanoTime() + 5_000_000_000L;
                !(transport(a).connections().isEmpty() && transport(b).connections().isEmpty()) && System.nanoTime() < deadline;) {
            Thread.onSpinWait();
        }
        // the EVDs' driver is the agent, whose connections are all that it keeps
        assertThat(((SimEvd) b.recvEvd).driver()).as("b's receive EVD's driver").isSameAs(transport(b).agent());
        assertThat(((SimEvd) a.reqEvd).driver()).as("a's request EVD's driver").isSameAs(transport(a).agent());
    }

    /** Waits until a consumer thread reads a connection from its dat_evd_wait on {@code evd}, while {@code waiterWaits}. */
    private static void awaitDriving(dat.api.EventDispatcher evd, java.util.function.BooleanSupplier waiterWaits)
            throws InterruptedException {
        SimEvd waitedOn = (SimEvd) evd;
        for (long deadline = System.nanoTime() + 5_000_000_000L; waitedOn.drivenBy() == null && System.nanoTime() < deadline;) {
            assertThat(waiterWaits.getAsBoolean()).as("the waiter still waits").isTrue();
            Thread.sleep(1);
        }
        assertThat(waitedOn.drivenBy()).as("the waiter reads the connection").isNotNull();
    }

    @Test
    void inAPingPong_theWaitingConsumersReadTheirConnectionThemselves() {
        connect(b.ep);
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 0, 0));
        Thread echo = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 500; i++) {
                ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 64 * ((i + 1) % 2), 64)), 0, 0));
                DatEvent got = dto(b, true);
                assertThat(got.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                ok(b.ep.postSend(1, iov(LmrTriplet.of(b.lmr, 64 * (i % 2), got.transferredLength())), i, 0));
                drain(b.reqEvd);
            }
        });
        ok(a.ep.postRecv(1, iov(LmrTriplet.of(a.lmr, 4096, 64)), 0, 0));
        for (int i = 0; i < 500; i++) {
            a.mem.set(ValueLayout.JAVA_INT, 0, i);
            ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), i, 0));
            assertThat(dto(a, true).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(a.mem.get(ValueLayout.JAVA_INT, 4096)).as("the reply to ping %d", i).isEqualTo(i);
            ok(a.ep.postRecv(1, iov(LmrTriplet.of(a.lmr, 4096, 64)), 0, 0));
            drain(a.reqEvd);
        }
        assertThat(transport(a).framesReadByConsumers()).as("frames a's waiting consumer read").isPositive();
        assertThat(transport(b).framesReadByConsumers()).as("frames b's waiting consumer read").isPositive();
    }

    /**
     * Connects {@code x} to {@code y} and feeds each side's request EVD from the connection (one
     * small write each way, acknowledged), so that a wait on either runs the IA's agent
     * ({@link IoAgent#drive}).
     */
    private static void connectLarge(Fabric.Side x, Fabric.Side y) {
        y.ia.createPublicServicePoint(200, y.crEvd, PspFlag.CONSUMER);
        x.ep.connect(y.address(), 200, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        y.expect(y.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(y.ep, null);
        y.expect(y.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        x.expect(x.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        for (Fabric.Side[] pair : new Fabric.Side[][] {{x, y}, {y, x}}) {
            ok(pair[0].ep.postRdmaWrite(1, iov(LmrTriplet.of(pair[0].lmr, 0, 8)), 0, RmrTriplet.of(pair[1].lmr, 0, 8), 0));
            assertThat(pair[0].expect(pair[0].reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            SimEvd evd = (SimEvd) pair[0].reqEvd;
            // noted by the reader right after it posted the completion
            for (long deadline = System.nanoTime() + 5_000_000_000L; evd.driver() == null && System.nanoTime() < deadline;) {
                Thread.onSpinWait();
            }
            assertThat(evd.driver()).as("the request EVD's driver").isNotNull();
        }
    }

    /**
     * A thread that waits on {@code s}'s request EVD for {@code count} successful completions,
     * returned once it reads the connection; its outcome (a failed wait, a failed completion)
     * comes with {@link java.util.concurrent.FutureTask#get}.
     */
    private static java.util.concurrent.FutureTask<Void> waitingConsumer(Fabric.Side s, int count) throws InterruptedException {
        java.util.concurrent.FutureTask<Void> waits = new java.util.concurrent.FutureTask<>(() -> {
            DatEvent e = new DatEvent();
            for (int i = 0; i < count; i++) {
                succeeded(s.reqEvd.await(Fabric.WAIT, 1, e));
                assertThat(e.status()).as("completion %d of %s", i, s.ia).isEqualTo(DtoCompletionStatus.SUCCESS);
            }
            return null;
        });
        Thread.ofPlatform().name("waiter-" + s.ia).start(waits);
        awaitDriving(s.reqEvd, () -> !waits.isDone());
        return waits;
    }

    @Test
    void largeWritesAndReadsBothWays_whileBothConsumersWait_arriveIntact() throws Exception {
        // RDMA writes over the inline limit (the writer thread's), read requests written inline
        // by the posting thread and RDMA read responses, both ways at once, while each consumer
        // reads its connection from dat_evd_wait: each frame goes between two others, never into
        // one, and every byte arrives
        int chunk = 256 * 1024;
        int chunks = 8;
        long quarter = (long) chunk * chunks;
        // each side's memory: [0] what it writes, [1] what the peer writes, [2] what the peer reads, [3] what it reads
        Fabric.Side x = fa.new Side("tcpX", null, 4 * quarter);
        Fabric.Side y = fb.new Side("tcpY", null, 4 * quarter);
        connectLarge(x, y);
        for (Fabric.Side s : new Fabric.Side[] {x, y}) {
            fill(s.mem, 0, (int) quarter, s == x ? 11 : 21);
            fill(s.mem, 2 * quarter, (int) quarter, s == x ? 12 : 22);
        }
        var xWaits = waitingConsumer(x, 2 * chunks);
        var yWaits = waitingConsumer(y, 2 * chunks);
        for (int i = 0; i < chunks; i++) {
            long at = (long) i * chunk;
            for (Fabric.Side[] pair : new Fabric.Side[][] {{x, y}, {y, x}}) {
                Fabric.Side s = pair[0];
                Fabric.Side peer = pair[1];
                ok(s.ep.postRdmaWrite(1, iov(LmrTriplet.of(s.lmr, at, chunk)), i, RmrTriplet.of(peer.lmr, quarter + at, chunk), 0));
                ok(s.ep.postRdmaRead(1, iov(LmrTriplet.of(s.lmr, 3 * quarter + at, chunk)), 100 + i,
                        RmrTriplet.of(peer.lmr, 2 * quarter + at, chunk), 0));
            }
        }
        xWaits.get(30, java.util.concurrent.TimeUnit.SECONDS); // a failed wait or completion fails the test here
        yWaits.get(30, java.util.concurrent.TimeUnit.SECONDS);
        for (Fabric.Side[] pair : new Fabric.Side[][] {{x, y}, {y, x}}) {
            Fabric.Side s = pair[0];
            Fabric.Side peer = pair[1];
            assertThat(peer.mem.asSlice(quarter, quarter).mismatch(s.mem.asSlice(0, quarter))).as("%s's writes", s.ia).isEqualTo(-1);
            assertThat(s.mem.asSlice(3 * quarter, quarter).mismatch(peer.mem.asSlice(2 * quarter, quarter))).as("what %s read", s.ia)
                    .isEqualTo(-1);
            assertThat(s.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
    }

    @Test
    void crossingWrites_eachLargerThanTheSocketsHold_completeWhileBothConsumersWait() throws Exception {
        // each side's frame is more than the sockets hold, and each consumer reads its connection
        // while the other side's frame arrives: whoever waits for the rest of a frame must not be
        // what the peer waits for to send it (a design where a reading consumer also had to
        // write its own frame, and only between frames, deadlocked here)
        long size = 64L << 20; // more than a loopback socket's send and receive buffers hold (4 + 32 MiB here)
        Fabric.Side x = fa.new Side("tcpX", null, 2 * size);
        Fabric.Side y = fb.new Side("tcpY", null, 2 * size);
        connectLarge(x, y);
        for (Fabric.Side s : new Fabric.Side[] {x, y}) {
            long seed = s == x ? 0x9E3779B97F4A7C15L : 0xC2B2AE3D27D4EB4FL;
            for (long i = 0; i < size; i += 8) {
                s.mem.set(ValueLayout.JAVA_LONG_UNALIGNED, i, (i + 1) * seed);
            }
        }
        var xWaits = waitingConsumer(x, 1);
        var yWaits = waitingConsumer(y, 1);
        ok(x.ep.postRdmaWrite(1, iov(LmrTriplet.of(x.lmr, 0, size)), 1, RmrTriplet.of(y.lmr, size, size), 0));
        ok(y.ep.postRdmaWrite(1, iov(LmrTriplet.of(y.lmr, 0, size)), 1, RmrTriplet.of(x.lmr, size, size), 0));
        xWaits.get(30, java.util.concurrent.TimeUnit.SECONDS); // a failed wait or completion fails the test here
        yWaits.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(y.mem.asSlice(size, size).mismatch(x.mem.asSlice(0, size))).as("x's write in y").isEqualTo(-1);
        assertThat(x.mem.asSlice(size, size).mismatch(y.mem.asSlice(0, size))).as("y's write in x").isEqualTo(-1);
    }

    @Test
    void aPingPongOverTcp_allocatesNothingOnTheConsumerThread() throws Exception {
        // the consumer posts (its small send written inline), waits (reading the connection
        // itself) and reposts: none of it may allocate, as in one JVM (DESIGN: the data path)
        connect(b.ep);
        LmrTriplet[] ping = {LmrTriplet.of(a.lmr, 0, 64)};
        LmrTriplet[] reply = {LmrTriplet.of(a.lmr, 4096, 64)};
        assertPingPongAllocatesNothing(new LmrTriplet[][] {ping}, new LmrTriplet[][] {reply});
    }

    /**
     * As {@link #aPingPongOverTcp_allocatesNothingOnTheConsumerThread}, with the consumer's
     * messages and replies in turn in two LMRs each: the connection keeps the views of the last
     * few segments it moved bytes of. With one view per role, each change of LMR made a new one.
     */
    @Test
    void aPingPongWhoseBuffersAlternateBetweenLmrs_allocatesNothingOnTheConsumerThread() throws Exception {
        connect(b.ep);
        LocalMemoryRegion second = a.ia.registerMemory(fa.memory(8192), a.pz, MemPrivileges.ALL);
        LmrTriplet[][] pings = {{LmrTriplet.of(a.lmr, 0, 64)}, {LmrTriplet.of(second, 0, 64)}};
        LmrTriplet[][] replies = {{LmrTriplet.of(second, 4096, 64)}, {LmrTriplet.of(a.lmr, 4096, 64)}};
        assertPingPongAllocatesNothing(pings, replies);
    }

    /** a pings b (an echo) 1000 times a round, message i from pings[i % n], its reply into replies[i % n]. */
    private void assertPingPongAllocatesNothing(LmrTriplet[][] pings, LmrTriplet[][] replies) throws Exception {
        PingPongAllocation.Result allocated = PingPongAllocation.measure(a, b, pings, replies);
        assertThat(transport(a).framesReadByConsumers()).as("frames the consumer read itself").isPositive();
        // one object per round trip would be 16 KB at least; what is left is the JIT settling
        assertThat(allocated.best()).as("bytes allocated by 1000 round trips in the best round of: " + allocated.rounds()).isLessThan(1024);
    }

    /** A return code check that allocates nothing unless it fails. */
    private static void succeeded(int rc) {
        if (rc != dat.api.DatReturn.SUCCESS) {
            throw new AssertionError(dat.api.DatReturn.describe(rc));
        }
    }

    @Test
    void aRequestWhoseMemoryIsFreedBeforeItIsSentAgain_completesLOCAL_PROTECTION_andTheConnectionBreaks() throws Exception {
        connect(b.ep);
        // b posts no receive: the send is refused (receiver not ready) and sent again and again,
        // the backoff doubling to 10 ms; its memory is freed meanwhile, and the next transmission
        // finds it gone: as in one JVM, the request completes with a protection error
        LocalMemoryRegion doomed = a.ia.registerMemory(a.mem.asSlice(32_768, 4096), a.pz, MemPrivileges.ALL);
        ok(a.ep.postSend(1, iov(LmrTriplet.of(doomed, 0, 64)), 61, 0));
        Thread.sleep(100);
        doomed.close();
        DatEvent done = dto(a, false);
        assertThat(done.userCookie()).isEqualTo(61);
        assertThat(done.status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_PROTECTION);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    @Test
    void aConsumerThatStopsWaiting_leavesTheConnectionToTheAgentsThread() {
        connectAndFeed();
        // b's consumer waited last and now calls in no more
        bsAgentServesOneSidedOperationsAndASendFromA();
    }

    @Test
    void aConsumerInALongWait_doesNotMakeTheAgentsThreadPoll_whichTakesOverWhenTheWaitEnds() throws InterruptedException {
        connectAndFeed();
        TcpTransport t = transport(b);
        long looks = 0;
        boolean drove = false;
        // a wait that finds the agent's thread in its cycle parks instead of running it: then it is tried again
        for (int attempt = 0; attempt < 5 && !drove; attempt++) {
            Thread.sleep(20);
            long before = t.agentLooksWhileDriven();
            long drives = t.drivesBegun();
            // nothing comes: b's consumer runs the agent from its wait for all of it
            isType(b.recvEvd.await(600_000, 1, new DatEvent()), dat.api.DatReturn.TIMEOUT_EXPIRED);
            drove = t.drivesBegun() > drives;
            looks = t.agentLooksWhileDriven() - before;
        }
        assertThat(drove).as("b's waiting consumer ran the agent").isTrue();
        // a look per millisecond would be about 600; the agent's thread parks after a few, until the driver leaves
        assertThat(looks).as("the agent's thread's looks while b's consumer waited 600 ms").isLessThan(60);
        // the driver woke it when it left: b's agent's thread serves the connection again
        bsAgentServesOneSidedOperationsAndASendFromA();
    }

    /** a's one-sided operations and its send complete while b's consumer calls in no more: b's agent's thread serves them. */
    private void bsAgentServesOneSidedOperationsAndASendFromA() {
        fill(a.mem, 0, 5000, 41);
        fill(b.mem, 20_000, 3000, 42);
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 30_000, 64)), 7, 0));
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 5000)), 1, RmrTriplet.of(b.lmr, 10_000, 5000), 0));
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 8000, 3000)), 2, RmrTriplet.of(b.lmr, 20_000, 3000), 0));
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 64)), 3, 0));
        for (int cookie = 1; cookie <= 3; cookie++) {
            DatEvent done = dto(a, false);
            assertThat(done.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(done.userCookie()).isEqualTo(cookie);
        }
        assertThat(b.mem.asSlice(10_000, 5000).mismatch(a.mem.asSlice(0, 5000))).isEqualTo(-1);
        assertThat(a.mem.asSlice(8000, 3000).mismatch(b.mem.asSlice(20_000, 3000))).isEqualTo(-1);
        DatEvent received = new DatEvent();
        assertThat(b.recvEvd.dequeue(received)).as("b's receive completed while b waited on nothing").isEqualTo(dat.api.DatReturn.SUCCESS);
        assertThat(received.userCookie()).isEqualTo(7);
    }

    @Test
    void anEventFromAnotherConnection_wakesAConsumerReadingThisOne() throws Exception {
        connectAndFeed();
        // a second connection into b, its Endpoint on the same receive EVD
        Endpoint a2 = a.ia.createEndpoint(a.pz, a.recvEvd, a.reqEvd, a.connEvd, null);
        Endpoint b2 = b.ia.createEndpoint(b.pz, b.recvEvd, b.reqEvd, b.connEvd, null);
        a2.connect(b.address(), 100, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(b2, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        ok(b2.postRecv(1, iov(LmrTriplet.of(b.lmr, 1000, 64)), 22, 0));
        DatEvent got = new DatEvent();
        int[] rc = {-1};
        // a wait longer than the test's: only the post's wake-up ends it in time
        Thread waiter = Thread.ofPlatform().start(() -> rc[0] = b.recvEvd.await(120_000_000L, 1, got));
        try {
            awaitDriving(b.recvEvd, waiter::isAlive); // reading the first connection, on which nothing comes
            ok(a2.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 16)), 5, 0));
            waiter.join(10_000);
            assertThat(waiter.isAlive()).as("the waiter woke for the event of the other connection").isFalse();
        } finally {
            waiter.interrupt();
        }
        ok(rc[0]);
        assertThat(got.userCookie()).isEqualTo(22);
        assertThat(got.endpoint()).isSameAs(b2);
    }

    @Test
    void aTimedWaitReadingTheConnection_endsWithTIMEOUT_EXPIRED() {
        connectAndFeed();
        isType(b.recvEvd.await(30_000, 1, new DatEvent()), dat.api.DatReturn.TIMEOUT_EXPIRED);
        aSendStillArrives(3);
    }

    /**
     * A timed wait shorter than a millisecond that reads the connection ends at its timeout, not
     * at the next whole millisecond, which is all a select can time: the driver parks the rest of
     * the wait precisely and leaves the socket to the agent's thread meanwhile. Waits of
     * 200 us until ten read the connection; their median must stay under a millisecond, which
     * every such wait took when the select's timeout was rounded up.
     */
    @Test
    void aTimedWaitShorterThanAMillisecond_readingTheConnection_endsAtItsTimeout() {
        connectAndFeed();
        assertThat(medianOfDrivenWaits(200, 20)).as("median us in dat_evd_wait(200 us)").isLessThan(1000);
        aSendStillArrives(3);
    }

    /**
     * A timed wait of a few milliseconds that reads the connection selects for the whole
     * milliseconds left and then parks the rest, under a millisecond, not its whole timeout again
     * (a park for the time left before the select, once, made a wait of 5 ms last 10).
     */
    @Test
    void aTimedWaitOfAFewMilliseconds_readingTheConnection_endsAtItsTimeout() {
        connectAndFeed();
        assertThat(medianOfDrivenWaits(5_000, 10)).as("median us in dat_evd_wait(5 ms)").isLessThan(8_000);
        aSendStillArrives(3);
    }

    /**
     * Waits for {@code timeoutMicros} on b's receive EVD, on which nothing comes, until
     * {@code waits / 2} of the waits ran the agent (a wait that finds the agent's thread in the
     * role parks instead; on a loaded machine more of them do), at most {@code waits * 10} times;
     * each must end TIMEOUT_EXPIRED, no sooner than its timeout. Returns the median length of
     * those that ran the agent.
     */
    private long medianOfDrivenWaits(long timeoutMicros, int waits) {
        TcpTransport wire = transport(b);
        java.util.List<Long> drivenMicros = new java.util.ArrayList<>();
        for (int i = 0; i < waits * 10 && drivenMicros.size() < waits / 2; i++) {
            long drives = wire.drivesBegun();
            long start = System.nanoTime();
            isType(b.recvEvd.await(timeoutMicros, 1, new DatEvent()), dat.api.DatReturn.TIMEOUT_EXPIRED);
            long took = (System.nanoTime() - start) / 1000;
            assertThat(took).as("us in dat_evd_wait(%d us)", timeoutMicros).isGreaterThanOrEqualTo(timeoutMicros);
            if (wire.drivesBegun() > drives) {
                drivenMicros.add(took);
            }
        }
        assertThat(drivenMicros).as("waits that read the connection").hasSizeGreaterThanOrEqualTo(waits / 2);
        java.util.Collections.sort(drivenMicros);
        long median = drivenMicros.get(drivenMicros.size() / 2);
        System.out.printf("dat_evd_wait(%d us), driven: %s us%n", timeoutMicros, drivenMicros);
        return median;
    }

    /**
     * A long timed wait that runs the agent selects for the whole milliseconds left, never past its
     * deadline, with nothing coming on the connection: it ends TIMEOUT_EXPIRED, on time.
     */
    @Test
    void aLongTimedWaitReadingTheConnection_endsWithTIMEOUT_EXPIRED_onTime() throws Exception {
        connectAndFeed();
        long timeoutMicros = 200_000;
        int drivenWaits = 0;
        // a wait that finds the agent's thread holding the role parks instead: such a try does not count
        for (int tries = 0; drivenWaits < 2 && tries < 10; tries++) {
            int[] rc = {-1};
            long[] took = {-1};
            Thread waiter = Thread.ofPlatform().start(() -> {
                long start = System.nanoTime();
                rc[0] = b.recvEvd.await(timeoutMicros, 1, new DatEvent());
                took[0] = System.nanoTime() - start;
            });
            boolean sawDriving = false;
            for (long end = System.nanoTime() + 10_000_000_000L; waiter.isAlive() && System.nanoTime() < end;) {
                sawDriving |= ((SimEvd) b.recvEvd).drivenBy() != null;
                Thread.sleep(1);
            }
            waiter.join(1_000);
            assertThat(waiter.isAlive()).as("the wait ended").isFalse();
            isType(rc[0], dat.api.DatReturn.TIMEOUT_EXPIRED);
            assertThat(took[0]).as("the wait lasted its timeout, and ended soon after").isBetween(timeoutMicros * 1000,
                    timeoutMicros * 1000 + 3_000_000_000L);
            if (sawDriving) {
                drivenWaits++;
            }
        }
        assertThat(drivenWaits).as("waits that ran the agent").isEqualTo(2);
        aSendStillArrives(3);
    }

    /** A send from a into a receive b posts now arrives: the connection still serves. */
    private void aSendStillArrives(long cookie) {
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), cookie, 0));
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 0, 0));
        assertThat(dto(b, true).userCookie()).isEqualTo(cookie);
    }

    @Test
    void interruptingAConsumerReadingTheConnection_INTERRUPTED_CALL() throws Exception {
        connectAndFeed();
        int[] rc = {-1};
        Thread waiter = Thread.ofPlatform().start(() -> rc[0] = b.recvEvd.await(dat.api.DatConstants.TIMEOUT_INFINITE, 1, new DatEvent()));
        awaitDriving(b.recvEvd, waiter::isAlive);
        waiter.interrupt();
        waiter.join(10_000);
        isType(rc[0], dat.api.DatReturn.INTERRUPTED_CALL);
        aSendStillArrives(4); // the interrupt did not break the connection
    }

    /**
     * A consumer that comes to wait while the agent's thread holds the role (in its cycle) runs the
     * agent itself once the role is free, rather than leaving it to the agent's thread for the
     * rest of its wait.
     */
    @Test
    void aConsumerRefusedTheRole_runsTheAgentOnceItIsFree() throws Exception {
        connectAndFeed();
        IoAgent agent = transport(b).agent();
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 7, 0));
        DatEvent got = new DatEvent();
        int[] rc = {-1};
        Thread waiter;
        agent.lockRoleForTest(); // as the agent's thread in its cycle
        try {
            waiter = Thread.ofPlatform().start(() -> rc[0] = b.recvEvd.await(Fabric.WAIT, 1, got));
            Thread.sleep(100);
            assertThat(((SimEvd) b.recvEvd).drivenBy()).as("refused the role").isNull();
        } finally {
            agent.role().unlock();
            agent.roleReleased();
        }
        awaitDriving(b.recvEvd, waiter::isAlive);
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 8, 0));
        waiter.join(10_000);
        ok(rc[0]);
        assertThat(got.userCookie()).isEqualTo(7);
    }

    /**
     * A consumer refused the role that takes it on its next try has had its request answered: once
     * it lets go, the agent's thread gives no lease for that request, and serves the sockets when
     * the consumer's own lease ends. A request left standing renewed the lease at the thread's
     * looks, each time past the end of its park; under a stream of connections a frame that came
     * while nobody waited then waited up to half a second for other work to reach the agent. Twenty
     * rounds, since whether the thread looks within the lease depends on its park.
     */
    @Test
    void aRequestForTheRoleThatWasAnswered_leavesTheSocketsToTheAgentsThread() throws Exception {
        connectAndFeed();
        IoAgent agent = transport(b).agent();
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 11, 0));
        int rounds = 20;
        Thread.sleep(5); // the feeding consumer's lease is over
        long leases = agent.leasesForRequests();
        long cycles = agent.cycles() - agent.drivenCycles();
        for (int round = 0; round < rounds; round++) {
            agent.lockRoleForTest(); // refused or not, then taken: a consumer's request answered
            try {
                // that consumer's drive, over at once (its wait ended), leaves it the lease
                assertThat(agent.drive((SimEvd) b.recvEvd, false, System.nanoTime() - 1)).as("drove").isTrue();
            } finally {
                agent.role().unlock();
                agent.roleReleased();
            }
            Thread.sleep(5); // the consumer's lease (1 ms) ends: the agent's thread takes the sockets back
        }
        // a lease answers a request made during one of the thread's cycles: one at most per cycle
        long given = agent.leasesForRequests() - leases;
        assertThat(given).as("leases the agent's thread gave for %d requests", rounds)
                .isLessThanOrEqualTo(agent.cycles() - agent.drivenCycles() - cycles);
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 0, 0));
        // nobody waits on the EVD: only the agent's thread reads the socket
        DatEvent got = new DatEvent();
        int rc;
        long end = System.nanoTime() + 20_000_000_000L;
        while ((rc = b.recvEvd.dequeue(got)) != dat.api.DatReturn.SUCCESS && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        ok(rc);
        assertThat(got.userCookie()).isEqualTo(11);
    }

    @Test
    void thePeerDisconnectingWhileAConsumerReads_flushesItsReceiveToIt() throws Exception {
        connectAndFeed();
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 9, 0));
        DatEvent got = new DatEvent();
        int[] rc = {-1};
        Thread waiter = Thread.ofPlatform().start(() -> rc[0] = b.recvEvd.await(Fabric.WAIT, 1, got));
        awaitDriving(b.recvEvd, waiter::isAlive);
        a.ep.disconnect(CloseFlag.GRACEFUL);
        waiter.join(10_000);
        ok(rc[0]);
        assertThat(got.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(got.userCookie()).isEqualTo(9);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
    }

    /** Takes the send completions queued now; every one must be a success. */
    private static int drain(dat.api.EventDispatcher evd) {
        DatEvent event = new DatEvent();
        int n = 0;
        while (evd.dequeue(event) == dat.api.DatReturn.SUCCESS) {
            assertThat(event.status()).as("a send completion").isEqualTo(DtoCompletionStatus.SUCCESS);
            n++;
        }
        return n;
    }

    @Test
    void aReceiveTooSmall_LOCAL_LENGTH_andREMOTE_RESPONDER_thenBothBreak() {
        connect(b.ep);
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 4)), 1, 0));
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 4)), 2, 0));
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 3, 0));
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_LENGTH);
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_RESPONDER);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
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

    @Test
    void srqReceivesTakeSendsOverTcp() {
        SharedReceiveQueue srq = b.ia.createSharedReceiveQueue(b.pz, SrqAttributes.builder().maxRecvDtos(8).maxRecvIov(2).build());
        Endpoint onSrq = b.ia.createEndpointWithSrq(b.pz, b.recvEvd, b.reqEvd, b.connEvd, srq, EpAttributes.providerDefaults());
        connect(onSrq);
        fill(a.mem, 0, 64, 9);
        // the send arrives before any SRQ buffer: it waits for one
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 64)), 1, 0));
        ok(srq.postRecv(1, iov(LmrTriplet.of(b.lmr, 4096, 128)), 77));
        DatEvent r = dto(b, true);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(r.userCookie()).isEqualTo(77);
        assertThat(r.transferredLength()).isEqualTo(64);
        assertThat(b.mem.asSlice(4096, 64).mismatch(a.mem.asSlice(0, 64))).isEqualTo(-1);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
    }

    /** As in one JVM (SrqHotSwapTest): dat_ep_modify of srq_soft_hw arms the soft high watermark. */
    @Test
    void dat_ep_modify_srqSoftHighWatermark_armsTheWatermark_overTcp() {
        SharedReceiveQueue srq = b.ia.createSharedReceiveQueue(b.pz, SrqAttributes.builder().maxRecvDtos(4).build());
        Endpoint onSrq = b.ia.createEndpointWithSrq(b.pz, b.recvEvd, b.reqEvd, b.connEvd, srq, EpAttributes.providerDefaults());
        onSrq.modify(dat.api.EpParamMask.EP_ATTR_SRQ_SOFT_HW,
                dat.api.EpParams.builder().attributes(EpAttributes.builder().srqSoftHighWatermark(0).build()).build());
        connect(onSrq);
        ok(srq.postRecv(0, null, 1));
        ok(a.ep.postSend(0, null, 11, 0));
        assertThat(dto(b, true).userCookie()).isEqualTo(1);
        DatEvent e = b.expect(b.ia.query().asyncEvd(), EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR);
        assertThat(e.asyncHandle()).isSameAs(onSrq);
        assertThat(e.asyncReason()).isEqualTo(dat.api.AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT);
    }

    /**
     * The consumer that waited last holds the agent's lease: the requests of a deep pipeline it
     * posts then wake nobody and wait for its next wait. Whether it waits again (its drive writes
     * them) or only polls from then on (the agent's thread writes them once the lease ends), every
     * request completes, in order, its bytes intact.
     */
    @Test
    void aDeepPipelinePostedByTheConsumerThatWaitedLast_goesOut_whetherItWaitsAgainOrOnlyPolls() {
        connect(b.ep);
        fill(a.mem, 0, 40 * 256, 51);
        for (boolean waitsAgain : new boolean[] {true, false}) {
            int base = waitsAgain ? 0 : 20;
            // a waits (drives) for one write: it then holds the lease
            ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, base * 256L, 256)), base, RmrTriplet.of(b.lmr, 20_000 + base * 256L, 256), 0));
            assertThat(dto(a, false).userCookie()).isEqualTo(base);
            for (int i = base + 1; i < base + 20; i++) {
                ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, i * 256L, 256)), i, RmrTriplet.of(b.lmr, 20_000 + i * 256L, 256), 0));
            }
            for (int i = base + 1; i < base + 20; i++) {
                DatEvent d;
                if (waitsAgain) {
                    d = dto(a, false);
                } else {
                    long giveUp = System.nanoTime() + 60_000_000_000L; // a hang guard, not a timed assertion
                    while (a.reqEvd.dequeue(a.event) != dat.api.DatReturn.SUCCESS) {
                        assertThat(System.nanoTime() - giveUp).as("write " + i + " completed for a consumer that only polls").isNegative();
                        Thread.onSpinWait(); // polls: never drives the agent
                    }
                    d = a.event;
                }
                assertThat(d.eventNumber()).isEqualTo(EventNumber.DTO_COMPLETION_EVENT);
                assertThat(d.userCookie()).isEqualTo(i);
                assertThat(d.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            }
        }
        assertThat(b.mem.asSlice(20_000, 40 * 256).mismatch(a.mem.asSlice(0, 40 * 256))).isEqualTo(-1);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
    }

    /**
     * A pipeline queued for the writer thread (held back here by holding the connection's write
     * lock while posting) leaves in gathering writes of several frames, headers and payload
     * segments straight from consumer memory: 40 requests, RDMA writes of one to three segments,
     * sends of two and RDMA reads, arrive intact and complete in order.
     */
    @Test
    void aQueuedPipelineIsGatheredIntoWritesOfSeveralFrames_andArrivesIntactInOrder() throws Exception {
        connect(b.ep);
        TcpConnection wire = transport(a).connections().iterator().next();
        fill(a.mem, 0, 20_000, 31);
        fill(b.mem, 60_000, 5 * 100, 32);
        int requests = 40;
        for (int k = 0; k < 5; k++) {
            ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 40_000 + k * 500, 500)), 100 + k, 0));
        }
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = WireHooks.holdingTheWriteLock(wire, release);
        try {
            for (int i = 0; i < requests; i++) {
                if (i % 8 == 7) {
                    int k = i / 8;
                    ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 25_000 + k * 200, 100)), i,
                            RmrTriplet.of(b.lmr, 60_000 + k * 100, 100), 0));
                } else if (i % 8 == 3) {
                    ok(a.ep.postSend(2, source(i, 2), i, 0));
                } else {
                    LmrTriplet[] src = source(i, 1 + i % 3);
                    ok(a.ep.postRdmaWrite(src.length, src, i, RmrTriplet.of(b.lmr, 20_000 + i * 500, total(src)), 0));
                }
            }
        } finally {
            release.countDown();
            holder.join();
        }
        for (int i = 0; i < requests; i++) {
            DatEvent d = dto(a, false);
            assertThat(d.userCookie()).isEqualTo(i);
            assertThat(d.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        for (int k = 0; k < 5; k++) {
            DatEvent r = dto(b, true);
            assertThat(r.userCookie()).isEqualTo(100 + k);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        for (int i = 0; i < requests; i++) {
            if (i % 8 == 7) {
                int k = i / 8;
                assertThat(a.mem.asSlice(25_000 + k * 200, 100).mismatch(b.mem.asSlice(60_000 + k * 100, 100))).isEqualTo(-1);
            } else {
                int segments = i % 8 == 3 ? 2 : 1 + i % 3;
                long at = i % 8 == 3 ? 40_000 + (i / 8) * 500 : 20_000 + i * 500;
                for (int j = 0; j < segments; j++) {
                    int length = 50 + 25 * j + i;
                    assertThat(b.mem.asSlice(at, length).mismatch(a.mem.asSlice(i * 400L + j * 130L, length)))
                            .as("request " + i + ", segment " + j).isEqualTo(-1);
                    at += length;
                }
            }
        }
        assertThat(wire.largestBatch()).as("frames in the largest gathering write").isBetween(2, 16);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
    }

    /**
     * RDMA writes of 1 MiB queued together go out in gathering writes of several frames (what a
     * stream of large frames costs beyond the copy is the writer's system calls), and an ACK that
     * falls due while such a batch is written goes out between two of its frames, not behind the
     * whole batch: the peer's requests wait for it.
     */
    @Test
    void megabyteWritesQueuedTogether_areGathered_andAnAckDueMeanwhileGoesBetweenTheirFrames() throws Exception {
        int chunk = 1 << 20;
        int chunks = 16;
        long span = (long) chunk * chunks;
        // each side's memory: [0, span) x's writes (x: the source, y: the target), [span, span + 8) y's write
        Fabric.Side x = fa.new Side("tcpX", null, span + 8);
        Fabric.Side y = fb.new Side("tcpY", null, span + 8);
        connectLarge(x, y);
        TcpConnection wire = transport(x).connections().iterator().next();
        fill(x.mem, 0, (int) span, 41);
        fill(y.mem, span, 8, 42);
        // the ACK must fall due while x's batch is on its way: y's write goes from a thread of its
        // own once the batch is, and is read within microseconds, where the batch takes
        // milliseconds; tried again, should the batch have been quicker
        for (int attempt = 0; attempt < 20 && wire.acksBetweenFrames() == 0; attempt++) {
            CountDownLatch release = new CountDownLatch(1);
            Thread holder = WireHooks.holdingTheWriteLock(wire, release);
            java.util.concurrent.FutureTask<Integer> yWrites = new java.util.concurrent.FutureTask<>(() -> {
                for (long deadline = System.nanoTime() + 5_000_000_000L; !wire.transmitter.inProgress() && System.nanoTime() < deadline;) {
                    Thread.yield();
                }
                // x's reader reads it while x's writer writes the batch: x owes its ACK at once
                return y.ep.postRdmaWrite(1, iov(LmrTriplet.of(y.lmr, span, 8)), 100, RmrTriplet.of(x.lmr, span, 8), 0);
            });
            try {
                for (int i = 0; i < chunks; i++) {
                    long at = (long) i * chunk;
                    ok(x.ep.postRdmaWrite(1, iov(LmrTriplet.of(x.lmr, at, chunk)), i, RmrTriplet.of(y.lmr, at, chunk), 0));
                }
                Thread.ofPlatform().start(yWrites);
            } finally {
                release.countDown();
                holder.join();
            }
            ok(yWrites.get(10, java.util.concurrent.TimeUnit.SECONDS));
            DatEvent answered = dto(y, false);
            assertThat(answered.userCookie()).isEqualTo(100);
            assertThat(answered.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            for (int i = 0; i < chunks; i++) {
                DatEvent d = dto(x, false);
                assertThat(d.userCookie()).isEqualTo(i);
                assertThat(d.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            }
        }
        assertThat(wire.largestBatch()).as("1 MiB frames in the largest gathering write").isGreaterThan(1);
        assertThat(wire.acksBetweenFrames()).as("ACKs x wrote between two frames of a batch").isPositive();
        assertThat(y.mem.asSlice(0, span).mismatch(x.mem.asSlice(0, span))).as("x's writes in y").isEqualTo(-1);
        assertThat(x.mem.asSlice(span, 8).mismatch(y.mem.asSlice(span, 8))).as("y's write in x").isEqualTo(-1);
        assertThat(x.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        assertThat(y.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
    }

    /**
     * The memory of one frame in a gathered batch goes away (its arena closes) before the writer
     * writes the batch: that request, not the frame the write began with, completes with
     * LOCAL_PROTECTION as in one JVM; the connection breaks, so what follows is flushed.
     */
    @Test
    void aFrameWhoseMemoryWentAwayInAGatheredBatch_isTheOneThatCompletesLOCAL_PROTECTION() throws Exception {
        connect(b.ep);
        TcpConnection wire = transport(a).connections().iterator().next();
        Arena doomedArena = Arena.ofShared();
        MemorySegment doomedMemory = doomedArena.allocate(4096);
        LocalMemoryRegion doomed = a.ia.registerMemory(doomedMemory, a.pz, MemPrivileges.ALL);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = WireHooks.holdingTheWriteLock(wire, release);
        try {
            for (int i = 0; i < 6; i++) {
                LmrTriplet src = i == 4 ? LmrTriplet.of(doomed, 0, 1000) : LmrTriplet.of(a.lmr, i * 1000L, 1000);
                ok(a.ep.postRdmaWrite(1, iov(src), i, RmrTriplet.of(b.lmr, 20_000 + i * 1000L, 1000), 0));
            }
            doomedArena.close();
        } finally {
            release.countDown();
            holder.join();
        }
        for (int i = 0; i < 6; i++) {
            DatEvent d = dto(a, false);
            assertThat(d.userCookie()).isEqualTo(i);
            if (i < 4) {
                // written before the failure: acknowledged, or flushed by the break before the ACK came
                assertThat(d.status()).as("request " + i).isIn(DtoCompletionStatus.SUCCESS, DtoCompletionStatus.ERR_FLUSHED);
            } else {
                assertThat(d.status()).as("request " + i).isEqualTo(i == 4 ? DtoCompletionStatus.ERR_LOCAL_PROTECTION : DtoCompletionStatus.ERR_FLUSHED);
            }
        }
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /**
     * A connection keeps no view of freed memory: after dat_lmr_free, memory of an automatic arena
     * that moved both ways (written inline, gathered by the writer, read into by the target and
     * out of by a read response) can be reclaimed once the consumer drops it.
     */
    @Test
    void freedMemoryOfAnAutomaticArena_isNotKeptReachableByTheConnections() throws Exception {
        connect(b.ep);
        java.lang.ref.WeakReference<MemorySegment.Scope> scopeA = new java.lang.ref.WeakReference<>(moveBothWays(a, b));
        java.lang.ref.WeakReference<MemorySegment.Scope> scopeB = new java.lang.ref.WeakReference<>(moveBothWays(b, a));
        collectUntilCleared(scopeA, scopeB);
        assertThat(scopeA.get()).as("the initiator's freed memory is reclaimed").isNull();
        assertThat(scopeB.get()).as("the target's freed memory is reclaimed").isNull();
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
    }

    /**
     * A free that finds a role taken (here the write lock, as a writer in the middle of a frame
     * holds it) leaves the views to the holder, which drops them as it lets go: the memory is
     * reclaimed though the connection then goes quiet (no next write would drop them).
     */
    @Test
    void freedMemory_isNotKeptReachable_whenTheFreeFoundTheWriteLockTaken() throws Exception {
        connect(b.ep);
        TcpConnection wire = transport(a).connections().iterator().next();
        java.lang.ref.WeakReference<MemorySegment.Scope> scope = new java.lang.ref.WeakReference<>(writtenFromAndFreed(wire));
        collectUntilCleared(scope);
        assertThat(scope.get()).as("the freed memory is reclaimed").isNull();
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
    }

    /** Runs the garbage collector until every reference is cleared, for 10 s at most (the caller asserts). */
    private static void collectUntilCleared(java.lang.ref.WeakReference<?>... refs) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (java.util.Arrays.stream(refs).anyMatch(r -> r.get() != null) && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
    }

    /** A batch of writes from fresh automatic memory (gathered by the writer), then its LMR freed while a thread holds the write lock. */
    private MemorySegment.Scope writtenFromAndFreed(TcpConnection wire) throws Exception {
        MemorySegment memory = Arena.ofAuto().allocate(64 * 1024);
        LocalMemoryRegion lmr = a.ia.registerMemory(memory, a.pz, MemPrivileges.ALL);
        // posted while the write lock is held, so that no post writes inline and the writer gathers
        // them (once, 20 posts that each found fewer than 4 requests in flight all went inline)
        CountDownLatch posted = new CountDownLatch(1);
        Thread poster = WireHooks.holdingTheWriteLock(wire, posted);
        try {
            for (int i = 0; i < 20; i++) {
                ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(lmr, i * 1000L, 1000)), i, RmrTriplet.of(b.lmr, i * 1000L, 1000), 0));
            }
        } finally {
            posted.countDown();
            poster.join();
        }
        for (int i = 0; i < 20; i++) {
            assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        assertThat(wire.largestBatch()).as("the writer gathered frames (views of the memory)").isGreaterThan(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = WireHooks.holdingTheWriteLock(wire, release);
        lmr.close();
        release.countDown();
        holder.join();
        return memory.scope();
    }

    /**
     * Over an LMR of fresh automatic memory of {@code from}: an inline write, a batch of writes, a
     * write into it and a read out of it by {@code to}; then frees the LMR.
     *
     * @return the memory's scope, which nothing else holds
     */
    private MemorySegment.Scope moveBothWays(Fabric.Side from, Fabric.Side to) throws Exception {
        MemorySegment memory = Arena.ofAuto().allocate(64 * 1024);
        LocalMemoryRegion lmr = from.ia.registerMemory(memory, from.pz, MemPrivileges.ALL);
        for (int i = 0; i < 20; i++) {
            ok(from.ep.postRdmaWrite(1, iov(LmrTriplet.of(lmr, i * 1000L, 1000)), i, RmrTriplet.of(to.lmr, i * 1000L, 1000), 0));
        }
        ok(to.ep.postRdmaWrite(1, iov(LmrTriplet.of(to.lmr, 0, 3000)), 30, RmrTriplet.of(lmr, 40_000, 3000), 0));
        ok(to.ep.postRdmaRead(1, iov(LmrTriplet.of(to.lmr, 8000, 3000)), 31, RmrTriplet.of(lmr, 40_000, 3000), 0));
        for (int i = 0; i < 20; i++) {
            assertThat(dto(from, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        for (int i = 0; i < 2; i++) {
            assertThat(dto(to, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        MemorySegment.Scope scope = memory.scope();
        lmr.close();
        return scope;
    }

    /** The source segments of request {@code i}: {@code n}, segment j of 50 + 25 j + i bytes at 400 i + 130 j. */
    private LmrTriplet[] source(int i, int n) {
        LmrTriplet[] t = new LmrTriplet[n];
        for (int j = 0; j < n; j++) {
            t[j] = LmrTriplet.of(a.lmr, i * 400L + j * 130L, 50 + 25 * j + i);
        }
        return t;
    }

    private static long total(LmrTriplet[] t) {
        long n = 0;
        for (LmrTriplet s : t) {
            n += s.segmentLength();
        }
        return n;
    }

    /** A private field of the connection once set (non-null, non-zero), read under the lock that guards it; 5 s at most. */
    private static Object awaitField(TcpConnection wire, String name) throws ReflectiveOperationException, InterruptedException {
        java.lang.reflect.Field f = TcpConnection.class.getDeclaredField(name);
        f.setAccessible(true);
        java.lang.reflect.Field lock = TcpConnection.class.getDeclaredField("dataPathLock");
        lock.setAccessible(true);
        for (long deadline = System.nanoTime() + 5_000_000_000L;; Thread.sleep(1)) {
            Object value;
            synchronized (lock.get(wire)) {
                value = f.get(wire);
            }
            if ((value != null && !Integer.valueOf(0).equals(value)) || System.nanoTime() > deadline) {
                return value;
            }
        }
    }

    /** {@code n} segments of {@code len} bytes, {@code stride} apart from {@code base}. */
    private static LmrTriplet[] segments(LocalMemoryRegion lmr, long base, int n, int len, int stride) {
        LmrTriplet[] t = new LmrTriplet[n];
        for (int i = 0; i < n; i++) {
            t[i] = LmrTriplet.of(lmr, base + (long) i * stride, len);
        }
        return t;
    }

    private static void assertSegmentsEqual(MemorySegment to, long toBase, MemorySegment from, long fromBase, int n, int len, int stride) {
        for (int i = 0; i < n; i++) {
            assertThat(to.asSlice(toBase + (long) i * stride, len).mismatch(from.asSlice(fromBase + (long) i * stride, len)))
                    .as("segment %d", i).isEqualTo(-1);
        }
    }

    @Test
    void anAcceptingEndpointWithMoreSegmentsThanTheDefault_sendsReceivesAndReadsThemAll() throws Exception {
        // the passive side allocates its copies of requests and receives while its consumer
        // decides, for the default attributes (8 segments); this accepting Endpoint's hold 12
        int n = 12;
        int len = 100;
        int stride = 128;
        EpAttributes wide = EpAttributes.builder().maxRecvIov(n).maxRequestIov(n).build();
        Endpoint active = a.ia.createEndpoint(a.pz, a.recvEvd, a.reqEvd, a.connEvd, wide);
        Endpoint passive = b.ia.createEndpoint(b.pz, b.recvEvd, b.reqEvd, b.connEvd, wide);
        b.ia.createPublicServicePoint(101, b.crEvd, PspFlag.CONSUMER);
        active.connect(b.address(), 101, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        var request = b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest();
        // the accept after the passive side's early allocation, so that it has to grow it
        TcpConnection wire = transport(b).connections().iterator().next();
        assertThat(awaitField(wire, "responses")).as("the data path allocated early").isNotNull();
        assertThat(awaitField(wire, "scratchRecvIov")).isEqualTo(8);
        request.accept(passive, null);
        assertThat(awaitField(wire, "scratchRecvIov")).isEqualTo(n);
        assertThat(awaitField(wire, "scratchRequestIov")).isEqualTo(n);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        fill(a.mem, 0, n * stride, 31);
        fill(b.mem, 8192, n * stride, 32);
        fill(b.mem, 16384, n * stride, 33);
        // a to b: the passive side's receive copy
        ok(passive.postRecv(n, segments(b.lmr, 0, n, len, stride), 1, 0));
        ok(active.postSend(n, segments(a.lmr, 0, n, len, stride), 2, 0));
        assertThat(dto(b, true).transferredLength()).isEqualTo((long) n * len);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertSegmentsEqual(b.mem, 0, a.mem, 0, n, len, stride);
        // b to a: the passive side's request copy, and the active side's receive copy
        ok(active.postRecv(n, segments(a.lmr, 8192, n, len, stride), 3, 0));
        ok(passive.postSend(n, segments(b.lmr, 8192, n, len, stride), 4, 0));
        assertThat(dto(a, true).transferredLength()).isEqualTo((long) n * len);
        assertThat(dto(b, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertSegmentsEqual(a.mem, 8192, b.mem, 8192, n, len, stride);
        // b reads from a into 12 segments: the passive side's copy of the read it scatters
        fill(a.mem, 24576, n * len, 34);
        ok(passive.postRdmaRead(n, segments(b.lmr, 16384, n, len, stride), 5, RmrTriplet.of(a.lmr, 24576, (long) n * len), 0));
        DatEvent r = dto(b, false);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        for (int i = 0; i < n; i++) {
            assertThat(b.mem.asSlice(16384 + (long) i * stride, len).mismatch(a.mem.asSlice(24576 + (long) i * len, len)))
                    .as("read segment %d", i).isEqualTo(-1);
        }
        active.disconnect(CloseFlag.ABRUPT);
    }

    @Test
    void rdmaWriteAndRead_moveTheBytes_withoutTheTargetConsumerCallingIn() {
        connect(b.ep);
        fill(a.mem, 0, 30_000, 21);
        ok(a.ep.postRdmaWrite(2, iov(LmrTriplet.of(a.lmr, 0, 10_000), LmrTriplet.of(a.lmr, 10_000, 20_000)), 1,
                RmrTriplet.of(b.lmr, 1000, 30_000), 0));
        DatEvent w = dto(a, false);
        assertThat(w.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(w.transferredLength()).isEqualTo(30_000);
        assertThat(b.mem.asSlice(1000, 30_000).mismatch(a.mem.asSlice(0, 30_000))).isEqualTo(-1);
        fill(b.mem, 40_000, 20_000, 22);
        ok(a.ep.postRdmaRead(2, iov(LmrTriplet.of(a.lmr, 32_000, 5_000), LmrTriplet.of(a.lmr, 40_000, 15_000)), 2,
                RmrTriplet.of(b.lmr, 40_000, 20_000), 0));
        DatEvent r = dto(a, false);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(r.transferredLength()).isEqualTo(20_000);
        assertThat(a.mem.asSlice(32_000, 5_000).mismatch(b.mem.asSlice(40_000, 5_000))).isEqualTo(-1);
        assertThat(a.mem.asSlice(40_000, 15_000).mismatch(b.mem.asSlice(45_000, 15_000))).isEqualTo(-1);
        // a zero-length write and read complete too
        ok(a.ep.postRdmaWrite(0, null, 3, RmrTriplet.of(b.lmr, 0, 0), 0));
        ok(a.ep.postRdmaRead(0, null, 4, RmrTriplet.of(b.lmr, 0, 0), 0));
        assertThat(dto(a, false).userCookie()).isEqualTo(3);
        assertThat(dto(a, false).userCookie()).isEqualTo(4);
        assertThat(b.recvEvd.dequeue(b.event)).as("one-sided: nothing on the target").isNotZero();
    }

    @Test
    void rdmaWrite_REMOTE_ACCESS_outsideTheRegion_breaksBoth_andTouchesNothing() {
        connect(b.ep);
        fill(a.mem, 0, 16, 3);
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 16)), 1, RmrTriplet.of(b.lmr, (1 << 16) - 8, 16), 0));
        ok(b.ep.postRecv(0, null, 9, 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThat(b.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, (1 << 16) - 8)).isZero();
    }

    @Test
    void rdma_REMOTE_ACCESS_forAForgedContext_andTheRequestsBehindAreFlushed() {
        connect(b.ep);
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1,
                new RmrTriplet(b.lmr.rmrContext() ^ 1, b.lmr.registeredAddress(), 8), 0));
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, 0));
        Fabric.assertRefusedThenFlushed(a);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    @Test
    void rdma_REMOTE_ACCESS_withoutTheRemotePrivilege_orForAnotherPz() {
        LocalMemoryRegion readOnly = b.ia.registerMemory(fb.memory(64), b.pz,
                MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_READ);
        connect(b.ep);
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, RmrTriplet.of(readOnly, 0, 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, RmrTriplet.of(readOnly, 0, 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    @Test
    void rdmaRead_REMOTE_ACCESS_forAnLmrOfAnotherPz() {
        LocalMemoryRegion elsewhere = b.ia.registerMemory(fb.memory(64), b.ia.createProtectionZone(), MemPrivileges.ALL);
        connect(b.ep);
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, RmrTriplet.of(elsewhere, 0, 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    @Test
    void disconnectFlushesEveryPostedDto() {
        connect(b.ep);
        ok(a.ep.postRecv(0, null, 1, 0));
        // a send with no receive on the far side waits; the disconnect flushes it
        ok(a.ep.postSend(0, null, 2, 0));
        a.ep.disconnect(CloseFlag.ABRUPT);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(dto(a, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        DatEvent s = dto(a, false);
        assertThat(s.userCookie()).isEqualTo(2);
        assertThat(s.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        // The far side may already hold the send, waiting for a receive with everything behind it
        // (the DISCONNECT too): it learns of the disconnect once that send is through. A known gap
        // (docs/sim-provider.md, "What is left"): an RNR-waiting target does not see the disconnect sooner.
        ok(b.ep.postRecv(0, null, 3, 0));
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    /**
     * A target IA whose own max_rdma_size is smaller than the initiator's serves the larger
     * writes and reads that fit its window, as in one JVM: its maxima bound what it initiates,
     * not what it serves; its frame reader does not take such a frame for a protocol violation.
     */
    @Test
    void aTargetWithASmallerMaxRdmaSize_servesLargerWritesAndReads() {
        try (Fabric small = new Fabric(ProviderSettings.defaults().limits(), TCP + " max_rdma_size=4096 max_message_size=4096")) {
            Fabric.Side t = small.new Side("tcpSmall", null, 1 << 16);
            t.ia.createPublicServicePoint(31, t.crEvd, PspFlag.CONSUMER);
            a.ep.connect(t.address(), 31, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
            t.expect(t.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(t.ep, null);
            t.expect(t.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            a.mem.asSlice(0, 8192).fill((byte) 7);
            ok(a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 8192)}, 1, RmrTriplet.of(t.lmr, 0, 8192), 0));
            assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(t.mem.asSlice(0, 8192).mismatch(a.mem.asSlice(0, 8192))).isEqualTo(-1);
            ok(a.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 16384, 8192)}, 2, RmrTriplet.of(t.lmr, 0, 8192), 0));
            assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(a.mem.asSlice(16384, 8192).mismatch(t.mem.asSlice(0, 8192))).isEqualTo(-1);
            assertThat(t.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
    }

    /**
     * A receive one of whose segments' LMR was freed fails LOCAL_PROTECTION, and the send
     * REMOTE_ACCESS, even when the message is too short to reach that segment: as in one JVM,
     * which checks every segment of the receive.
     */
    @Test
    void aReceiveWithAFreedSegment_failsLocalProtection_evenWhereNoByteReachesIt() {
        connect(b.ep);
        LocalMemoryRegion spare = b.ia.registerMemory(fb.memory(64), b.pz, MemPrivileges.ALL);
        ok(b.ep.postRecv(2, iov(LmrTriplet.of(b.lmr, 0, 8), LmrTriplet.of(spare, 0, 64)), 5, 0));
        spare.close();
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 4)), 6, 0));
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_PROTECTION);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
    }

    /**
     * A send the target has delivered (its receive completed SUCCESS) completes SUCCESS at the
     * initiator too, however soon the target disconnects afterwards: as in one JVM, where the two
     * complete together. Here the target's consumer reads the send itself and disconnects as its
     * wait returns; its ACK for the send, held in the response ring as ACKs are, went out after
     * the DISCONNECT, that is never, and the initiator flushed the send.
     */
    @Test
    void aSendTheTargetDelivered_completesSuccess_thoughTheTargetDisconnectsAtOnce() throws Exception {
        connectAndFeed(); // b's consumer reads the connection itself while it waits
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 11, 0));
        DatEvent got = new DatEvent();
        java.util.concurrent.atomic.AtomicInteger code = new java.util.concurrent.atomic.AtomicInteger(-1);
        Thread waiter = Thread.ofPlatform().start(() -> {
            code.set(b.recvEvd.await(Fabric.WAIT, 1, got));
            b.ep.disconnect(CloseFlag.ABRUPT); // at once, before anything else runs on this side
        });
        awaitDriving(b.recvEvd, waiter::isAlive);
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 21, 0));
        waiter.join(10_000);
        assertThat(code.get()).isEqualTo(dat.api.DatReturn.SUCCESS);
        assertThat(got.userCookie()).isEqualTo(11);
        assertThat(got.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        DatEvent s = dto(a, false);
        assertThat(s.userCookie()).isEqualTo(21);
        assertThat(DtoCompletionStatus.name(s.status())).as("the delivered send")
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.SUCCESS));
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
    }

    /**
     * An RDMA read one of whose local segments' LMR was freed fails LOCAL_PROTECTION when its
     * response comes, even where no byte would reach that segment, as in one JVM (which checks
     * every segment of the read), and breaks the connection.
     */
    @Test
    void aReadWithAFreedLocalSegment_failsLocalProtection_evenWhereNoByteReachesIt() {
        connect(b.ep);
        LocalMemoryRegion spare = a.ia.registerMemory(fa.memory(64), a.pz, MemPrivileges.ALL);
        TcpConnection target = transport(b).connections().iterator().next();
        target.output.lock.lock(); // b's output holds the response back until the LMR is freed
        try {
            ok(a.ep.postRdmaRead(2, iov(LmrTriplet.of(a.lmr, 0, 64), LmrTriplet.of(spare, 0, 64)), 7,
                    RmrTriplet.of(b.lmr, 0, 64), 0));
            spare.close();
        } finally {
            target.output.unlock();
        }
        target.kick(); // the connection may be gone already: the response went out at the unlock
        DatEvent r = dto(a, false);
        assertThat(r.userCookie()).isEqualTo(7);
        assertThat(DtoCompletionStatus.name(r.status())).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_LOCAL_PROTECTION));
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /**
     * A request posted with DAT_COMPLETION_BARRIER_FENCE_FLAG starts once the RDMA reads before it
     * completed, as in one JVM: a send from the buffer a read fills carries the read's bytes, and
     * a write to the memory a read reads does not change what the read returns (pipelined regardless,
     * the send would carry the buffer's old bytes).
     */
    @Test
    void aFencedRequestWaitsForTheReadsBeforeIt() {
        connect(b.ep);
        for (int round = 0; round < 20; round++) {
            byte old = (byte) (2 * round + 1);
            byte fresh = (byte) (2 * round + 2);
            b.mem.asSlice(0, 64).fill(old);
            a.mem.asSlice(0, 64).fill((byte) 0);
            a.mem.asSlice(1024, 64).fill(fresh);
            ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 4096, 64)), round, 0));
            // read b[0,64) into a[0,64); then, fenced, send a[0,64) and write a[1024,1088) over b[0,64)
            ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 64)), 1, RmrTriplet.of(b.lmr, 0, 64), 0));
            ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 64)), 2, CompletionFlags.BARRIER_FENCE));
            ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 1024, 64)), 3, RmrTriplet.of(b.lmr, 0, 64),
                    CompletionFlags.BARRIER_FENCE));
            for (int i = 1; i <= 3; i++) {
                DatEvent e = dto(a, false);
                assertThat(e.userCookie()).isEqualTo(i);
                assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            }
            assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            for (int k = 0; k < 64; k++) {
                assertThat(a.mem.get(ValueLayout.JAVA_BYTE, k)).as("round %d: the read's byte %d", round, k).isEqualTo(old);
                assertThat(b.mem.get(ValueLayout.JAVA_BYTE, 4096 + k)).as("round %d: the sent byte %d", round, k).isEqualTo(old);
                assertThat(b.mem.get(ValueLayout.JAVA_BYTE, k)).as("round %d: the written byte %d", round, k).isEqualTo(fresh);
            }
        }
    }
}
