package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.isType;
import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.DrivenWaits.awaitDriving;
import static dat.provider.sim.internal.tcp.DrivenWaits.connectAndFeed;
import static dat.provider.sim.internal.tcp.Dtos.dto;
import static dat.provider.sim.internal.tcp.Dtos.fill;
import static dat.provider.sim.internal.tcp.Dtos.iov;
import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.SimEvd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The I/O agent's role between the consumers that wait and the agent's own thread: a drive whose
 * wait is over still reads the socket once, a consumer refused the role runs the agent once it is
 * free, the agent's thread takes the sockets back when no consumer waits, and the requests posted
 * by the consumer that waited last go out whether it waits again or only polls.
 */
@Timeout(60)
class TcpAgentRoleTest extends OnTcpPair {

    /**
     * A drive whose wait is over before it looked at the socket (a wait of 1 us, say) still reads
     * it once, without waiting: else a run of such waits, each renewing the agent's lease, leaves
     * the socket unread. The test holds the agent's role as the agent's thread would (the drives,
     * on the same thread, still take it), so that only the drives can read.
     */
    @Test
    void aDriveWhoseWaitIsOverBeforeItLooked_stillReadsTheSocketOnce() {
        connectAndFeed(pair);
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
    void aConsumerThatStopsWaiting_leavesTheConnectionToTheAgentsThread() {
        connectAndFeed(pair);
        // b's consumer waited last and now calls in no more
        bsAgentServesOneSidedOperationsAndASendFromA();
    }

    @Test
    void aConsumerInALongWait_doesNotMakeTheAgentsThreadPoll_whichTakesOverWhenTheWaitEnds() throws InterruptedException {
        connectAndFeed(pair);
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

    /**
     * A consumer that comes to wait while the agent's thread holds the role (in its cycle) runs the
     * agent itself once the role is free, rather than leaving it to the agent's thread for the
     * rest of its wait.
     */
    @Test
    void aConsumerRefusedTheRole_runsTheAgentOnceItIsFree() throws Exception {
        connectAndFeed(pair);
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
        connectAndFeed(pair);
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
}
