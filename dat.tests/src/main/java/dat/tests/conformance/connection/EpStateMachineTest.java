package dat.tests.conformance.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.ConnectFlags;
import dat.api.ConnectionRequest;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.Qos;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.internal.Waiters;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;

/**
 * The Endpoint state machine (DAT12-FACTS §3.4, dat_ep_connect(3DAT), dat_cr_accept(3DAT),
 * dat_rsp_create(3DAT)): the transitions that the per-page tests do not already walk, and what
 * happens to a connection when the peer goes away.
 */
class EpStateMachineTest {

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_CONNECTION_EVENT_NON_PEER_REJECTED: no consumer listens on the qualifier; the Endpoint is disconnected")
    void nobodyListening(IaUnderTest t) {
        Connection c = t.connection().create();
        c.connectActive(t.unusedConnQual(c.passive.ia));
        DatEvent event = t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, "a connect nobody listens for");
        assertThat(event.endpoint()).as(t.at("ep_handle of the event")).isSameAs(c.active.ep);
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "after DAT_CONNECTION_EVENT_NON_PEER_REJECTED");
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_CONNECTION_EVENT_TIMED_OUT: the request is not accepted within the timeout; the Endpoint is disconnected")
    void timedOut(IaUnderTest t) {
        Connection c = t.connection().create();
        c.active.ep.connect(t.address(c.passive.ia), c.psp.connQual(), 200_000, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
        t.event(c.crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the request that is never answered");
        // The remote host responded (its consumer got the request), so the page's TIMED_OUT applies, not UNREACHABLE.
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_TIMED_OUT, "the outcome of a connect left unanswered past its timeout");
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "after DAT_CONNECTION_EVENT_TIMED_OUT");
    }

    @ConformanceTest
    @DisplayName("dat_cr_accept(3DAT) DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR: accepting after the requester timed out does not connect")
    void acceptAfterTimeout(IaUnderTest t) {
        Connection c = t.connection().create();
        c.active.ep.connect(t.address(c.passive.ia), c.psp.connQual(), 200_000, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
        ConnectionRequest cr = t.event(c.crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the request").connectionRequest();
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_TIMED_OUT, "the requester's timeout");
        // Either the accept fails at once, without effect on the Endpoint, or it fails later with
        // ACCEPT_COMPLETION_ERROR ("caused by the active side timeout expiration") and the Endpoint is disconnected.
        try {
            cr.accept(c.passive.ep, null);
        } catch (DatException e) {
            t.expectState(c.passive.ep, EpState.UNCONNECTED, "the Endpoint of an accept refused at once");
            return;
        }
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, "the outcome of the late accept");
        t.awaitState(c.passive.ep, EpState.DISCONNECTED, "after DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR");
    }

    @ConformanceTest
    @DisplayName("dat_psp_create(3DAT) DAT_CONNECTION_EVENT_NON_PEER_REJECTED: the PSP's backlog (its EVD's queue) is full")
    void backlogFull(IaUnderTest t) {
        Connection first = t.connection().create();
        EventDispatcher crEvd = first.passive.ia.createEventDispatcher(1, null, EvdFlags.CR);
        int backlog = crEvd.query().qlen();
        t.requireFeasible(backlog <= 16, "the PSP's EVD holds " + backlog + " requests; filling it takes too many Endpoints");
        PublicServicePoint psp = first.passive.ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        // one connect more than the backlog; the requests may arrive in any order (a wire reorders
        // them), so whichever comes last is the one refused, while the queue stays full
        List<Connection> connects = new ArrayList<>();
        for (int i = 0; i <= backlog; i++) {
            Connection c = i == 0 ? first : t.connection().create();
            c.connectActive(psp.connQual());
            connects.add(c);
        }
        DatEvent event = new DatEvent();
        Connection refused = null;
        long deadline = System.nanoTime() + IaUnderTest.EVENT_TIMEOUT_MICROS * 1000;
        while (refused == null && System.nanoTime() < deadline) {
            for (Connection c : connects) {
                if (c.active.connectEvd.dequeue(event) == DatReturn.SUCCESS) {
                    t.check(event.eventNumber() == EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, "the connect beyond the backlog of "
                            + backlog + " ended with " + EventNumber.name(event.eventNumber()) + ", not DAT_CONNECTION_EVENT_NON_PEER_REJECTED");
                    refused = c;
                    break;
                }
            }
            Waiters.sleepMillis(1);
        }
        t.check(refused != null, "no connect of " + (backlog + 1) + " to a PSP with a backlog of " + backlog
                + " got DAT_CONNECTION_EVENT_NON_PEER_REJECTED");
        for (Connection c : connects) {
            if (c != refused) {
                t.expectState(c.active.ep, EpState.ACTIVE_CONNECTION_PENDING, "a connect within the backlog, not yet accepted");
            }
        }
    }

    @ConformanceTest
    @DisplayName("dat_cr_accept(3DAT) DAT_SUCCESS: the accepting Endpoint is completion-pending or connected at once, connected after ESTABLISHED")
    void completionPending(IaUnderTest t) {
        Connection c = t.connection().create();
        ConnectionRequest cr = c.request();
        cr.accept(c.passive.ep, null);
        EpState state = c.passive.ep.getStatus().state();
        assertThat(state).as(t.at("the accepting Endpoint right after dat_cr_accept")).isIn(EpState.COMPLETION_PENDING, EpState.CONNECTED);
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the accepting side");
        t.expectState(c.passive.ep, EpState.CONNECTED, "the accepting Endpoint after ESTABLISHED");
    }

    @ConformanceTest
    @DisplayName("dat_cr_reject(3DAT) DAT_SUCCESS: a reserved Endpoint passes through passive-connection-pending back to unconnected")
    void reservedRejected(IaUnderTest t) {
        Connection c = t.connection().create();
        long qual = t.unusedConnQual(c.passive.ia);
        EventDispatcher crEvd = t.evd(c.passive.ia, EvdFlags.CR);
        t.expectState(c.passive.ep, EpState.UNCONNECTED, "before dat_rsp_create");
        c.passive.ia.createReservedServicePoint(qual, c.passive.ep, crEvd);
        t.expectState(c.passive.ep, EpState.RESERVED, "after dat_rsp_create");
        c.connectActive(qual);
        ConnectionRequest cr = t.event(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the request at the RSP").connectionRequest();
        t.awaitState(c.passive.ep, EpState.PASSIVE_CONNECTION_PENDING, "after the request arrived at the RSP");
        cr.reject();
        t.expectState(c.passive.ep, EpState.UNCONNECTED, "after dat_cr_reject (\"the Local Endpoint point transitions into Unconnected\")");
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED, "the requester's rejection");
    }

    @ConformanceTest
    @DisplayName("dat_ep_free(3DAT) DAT_SUCCESS: freeing a connected Endpoint breaks the connection; the peer ends disconnected")
    void peerFreed(IaUnderTest t) {
        Connection c = t.connect();
        c.passive.ep.close();
        DatEvent event = t.event(c.active.connectEvd, "the connection event when the peer Endpoint is freed");
        assertThat(event.eventNumber()).as(t.at("DISCONNECTED or BROKEN when the peer Endpoint is freed"))
                .isIn(EventNumber.CONNECTION_EVENT_DISCONNECTED, EventNumber.CONNECTION_EVENT_BROKEN);
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "the Endpoint whose peer was freed");
    }

    @ConformanceTest
    @DisplayName("dat_ep_free(3DAT) DAT_SUCCESS: the active Endpoint freed at once after its ESTABLISHED: the passive side gets"
            + " ESTABLISHED, then ends disconnected")
    void activeFreedAtOnceAfterEstablished(IaUnderTest t) {
        Connection c = t.connection().create().establishAtActiveSide();
        c.active.ep.close();
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED,
                "DAT_CONNECTION_EVENT_ESTABLISHED at the passive side, whose peer was freed at once");
        DatEvent event = t.event(c.passive.connectEvd, "the connection event when the peer Endpoint is freed");
        assertThat(event.eventNumber()).as(t.at("DISCONNECTED or BROKEN when the peer Endpoint is freed"))
                .isIn(EventNumber.CONNECTION_EVENT_DISCONNECTED, EventNumber.CONNECTION_EVENT_BROKEN);
        t.awaitState(c.passive.ep, EpState.DISCONNECTED, "the Endpoint whose peer was freed");
    }

    @ConformanceTest
    @DisplayName("dat_ia_close(3DAT) DAT_SUCCESS: closing the peer's IA breaks the connection; the Endpoint ends disconnected")
    void peerIaClosed(IaUnderTest t) {
        Connection c = t.connect();
        c.passive.ia.close(CloseFlag.ABRUPT);
        DatEvent event = t.event(c.active.connectEvd, "the connection event when the peer's IA is closed");
        assertThat(event.eventNumber()).as(t.at("DISCONNECTED or BROKEN when the peer's IA is closed"))
                .isIn(EventNumber.CONNECTION_EVENT_DISCONNECTED, EventNumber.CONNECTION_EVENT_BROKEN);
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "the Endpoint whose peer IA was closed");
    }

    @ConformanceTest
    @DisplayName("dat_ep_reset(3DAT) DAT_SUCCESS: a full cycle: connect, disconnect, reset, connect again, on one Endpoint")
    void cycle(IaUnderTest t) {
        Connection c = t.connect();
        for (int round = 0; round < 3; round++) {
            c.active.ep.disconnect(CloseFlag.ABRUPT);
            t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED in round " + round);
            t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "the peer's DISCONNECTED in round " + round);
            t.awaitState(c.active.ep, EpState.DISCONNECTED, "round " + round);
            t.awaitState(c.passive.ep, EpState.DISCONNECTED, "the peer in round " + round);
            c.active.ep.reset();
            c.passive.ep.reset();
            t.expectState(c.active.ep, EpState.UNCONNECTED, "after dat_ep_reset in round " + round);
            c.establish();
            t.expectState(c.active.ep, EpState.CONNECTED, "after reconnecting in round " + round);
        }
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_SUCCESS: many Endpoints of one IA connect to one PSP at once")
    void manyToOnePsp(IaUnderTest t) {
        Connection base = t.connection().create();
        int count = Math.min(8, t.attributes().maxEps() / 4);
        t.requireFeasible(count >= 2, "max_eps is too small for several connections");
        List<Endpoint> actives = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Endpoint active = t.ep(base.active.pz, base.active.recvEvd, base.active.requestEvd, base.active.connectEvd);
            active.connect(t.address(base.passive.ia), base.psp.connQual(), IaUnderTest.EVENT_TIMEOUT_MICROS, null, Qos.BEST_EFFORT,
                    ConnectFlags.DEFAULT);
            actives.add(active);
        }
        for (int i = 0; i < count; i++) {
            ConnectionRequest cr = t.event(base.crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "request " + i).connectionRequest();
            cr.accept(t.ep(base.passive.ia, base.passive.pz, base.passive.recvEvd, base.passive.requestEvd, base.passive.connectEvd), null);
        }
        for (int i = 0; i < count; i++) {
            t.event(base.active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED " + i);
        }
        for (Endpoint active : actives) {
            t.expectState(active, EpState.CONNECTED, "each of " + count + " Endpoints");
        }
    }
}
