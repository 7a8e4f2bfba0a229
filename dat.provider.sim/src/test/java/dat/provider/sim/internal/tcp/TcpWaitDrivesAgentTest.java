package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.isType;
import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.DrivenWaits.awaitDriving;
import static dat.provider.sim.internal.tcp.DrivenWaits.connectAndFeed;
import static dat.provider.sim.internal.tcp.Dtos.dto;
import static dat.provider.sim.internal.tcp.Dtos.iov;
import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.Qos;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.SimEvd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A consumer waiting on an EVD runs its IA's I/O agent ({@link IoAgent#drive}), reading its
 * connections itself: what ends its wait (a solicited receive, dat_evd_set_unwaitable, an
 * interrupt, its timeout, on time, an event of another connection, the peer's disconnect), and
 * the EVD's driver, the agent, which keeps no closed connection.
 */
@Timeout(60)
class TcpWaitDrivesAgentTest extends OnTcpPair {

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
        connectAndFeed(pair);
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
        connectAndFeed(pair);
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

    /** A connection that closed is reachable from no EVD: the EVD does not keep it, its Endpoint and buffers. */
    @Test
    void aClosedConnectionIsReachableFromNoEvd() {
        connectAndFeed(pair);
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

    @Test
    void anEventFromAnotherConnection_wakesAConsumerReadingThisOne() throws Exception {
        connectAndFeed(pair);
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
        connectAndFeed(pair);
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
        connectAndFeed(pair);
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
        connectAndFeed(pair);
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
        connectAndFeed(pair);
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
        connectAndFeed(pair);
        int[] rc = {-1};
        Thread waiter = Thread.ofPlatform().start(() -> rc[0] = b.recvEvd.await(dat.api.DatConstants.TIMEOUT_INFINITE, 1, new DatEvent()));
        awaitDriving(b.recvEvd, waiter::isAlive);
        waiter.interrupt();
        waiter.join(10_000);
        isType(rc[0], dat.api.DatReturn.INTERRUPTED_CALL);
        aSendStillArrives(4); // the interrupt did not break the connection
    }

    @Test
    void thePeerDisconnectingWhileAConsumerReads_flushesItsReceiveToIt() throws Exception {
        connectAndFeed(pair);
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

    /**
     * A send the target has delivered (its receive completed SUCCESS) completes SUCCESS at the
     * initiator too, however soon the target disconnects afterwards: as in one JVM, where the two
     * complete together. Here the target's consumer reads the send itself and disconnects as its
     * wait returns; its ACK for the send, held in the response ring as ACKs are, went out after
     * the DISCONNECT, that is never, and the initiator flushed the send.
     */
    @Test
    void aSendTheTargetDelivered_completesSuccess_thoughTheTargetDisconnectsAtOnce() throws Exception {
        connectAndFeed(pair); // b's consumer reads the connection itself while it waits
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
}
