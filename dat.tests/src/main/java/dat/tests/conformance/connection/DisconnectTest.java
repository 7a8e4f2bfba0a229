package dat.tests.conformance.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;

/** dat_ep_disconnect(3DAT). */
class DisconnectTest {

    @ConformanceTest
    @DisplayName("dat_ep_disconnect(3DAT) DAT_SUCCESS: abrupt: both sides get DISCONNECTED and end in DAT_EP_STATE_DISCONNECTED")
    void abrupt(IaUnderTest t) {
        Connection c = t.connect();
        c.active.ep.disconnect(CloseFlag.ABRUPT);
        DatEvent local = t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED at the disconnecting side");
        assertThat(local.endpoint()).as(t.at("ep_handle of the DISCONNECTED event")).isSameAs(c.active.ep);
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED at the peer");
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "the disconnecting Endpoint");
        t.awaitState(c.passive.ep, EpState.DISCONNECTED, "the peer Endpoint");
    }

    @ConformanceTest
    @DisplayName("dat_ep_disconnect(3DAT) DAT_SUCCESS: abrupt at once after the active side's ESTABLISHED: the passive side gets"
            + " ESTABLISHED, then DISCONNECTED")
    void abruptAtOnceAfterEstablished(IaUnderTest t) {
        Connection c = t.connection().create().establishAtActiveSide();
        c.active.ep.disconnect(CloseFlag.ABRUPT);
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED at the disconnecting side");
        // the connection was established at the active side: the accepting side saw it established too
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED,
                "DAT_CONNECTION_EVENT_ESTABLISHED at the passive side, whose peer disconnected at once");
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED at the peer");
        t.awaitState(c.passive.ep, EpState.DISCONNECTED, "the peer Endpoint");
    }

    @ConformanceTest
    @DisplayName("dat_ep_disconnect(3DAT) DAT_SUCCESS: graceful: both sides get DISCONNECTED after outstanding requests completed")
    void graceful(IaUnderTest t) {
        Connection c = t.connect();
        t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(0, 256), 1, CompletionFlags.DEFAULT), "dat_ep_post_recv at the peer");
        t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 256), 2, CompletionFlags.DEFAULT), "dat_ep_post_send");
        c.active.ep.disconnect(CloseFlag.GRACEFUL);
        DatEvent send = t.completion(c.active.requestEvd, "the send posted before the graceful disconnect");
        assertThat(DtoCompletionStatus.name(send.status())).as(t.at("a send outstanding at a graceful disconnect is completed first"))
                .isEqualTo("DAT_DTO_SUCCESS");
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED at the disconnecting side");
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED at the peer");
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "after a graceful disconnect");
    }

    @ConformanceTest
    @DisplayName("dat_ep_disconnect(3DAT) DAT_SUCCESS: the passive side may disconnect too")
    void passiveSide(IaUnderTest t) {
        Connection c = t.connect();
        c.passive.ep.disconnect(CloseFlag.ABRUPT);
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED at the passive side");
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED at the active side");
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "the active Endpoint after the peer disconnected");
    }

    @ConformanceTest
    @DisplayName("dat_ep_disconnect(3DAT) DAT_SUCCESS: posted receives of both Endpoints are flushed, with their cookies")
    void flushesReceives(IaUnderTest t) {
        Connection c = t.connect();
        for (int i = 0; i < 3; i++) {
            t.expectSuccess(c.active.ep.postRecv(1, c.active.iov(i * 128L, 128), 100 + i, CompletionFlags.DEFAULT), "dat_ep_post_recv " + i);
            t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(i * 128L, 128), 200 + i, CompletionFlags.DEFAULT),
                    "dat_ep_post_recv at the peer " + i);
        }
        c.active.ep.disconnect(CloseFlag.ABRUPT);
        Set<Long> activeCookies = new HashSet<>();
        Set<Long> passiveCookies = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            DatEvent a = t.completion(c.active.recvEvd, "flushed receive " + i);
            t.check(a.status() == DtoCompletionStatus.ERR_FLUSHED, "a receive outstanding at disconnect: expected DAT_DTO_ERR_FLUSHED, got "
                    + DtoCompletionStatus.name(a.status()));
            assertThat(a.endpoint()).as(t.at("ep_handle of the flushed receive")).isSameAs(c.active.ep);
            activeCookies.add(a.userCookie());
            DatEvent p = t.completion(c.passive.recvEvd, "flushed receive at the peer " + i);
            t.check(p.status() == DtoCompletionStatus.ERR_FLUSHED, "a receive outstanding at the peer's disconnect: expected"
                    + " DAT_DTO_ERR_FLUSHED, got " + DtoCompletionStatus.name(p.status()));
            passiveCookies.add(p.userCookie());
        }
        assertThat(activeCookies).as(t.at("the cookies of the flushed receives")).containsExactlyInAnyOrder(100L, 101L, 102L);
        assertThat(passiveCookies).as(t.at("the cookies of the peer's flushed receives")).containsExactlyInAnyOrder(200L, 201L, 202L);
    }

    @ConformanceTest
    @DisplayName("dat_ep_disconnect(3DAT) DAT_SUCCESS: disconnecting a disconnected Endpoint is a no-op")
    void disconnectTwice(IaUnderTest t) {
        Connection c = t.connect();
        c.active.ep.disconnect(CloseFlag.ABRUPT);
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED");
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "after the disconnect");
        c.active.ep.disconnect(CloseFlag.ABRUPT);
        c.active.ep.disconnect(CloseFlag.GRACEFUL);
        t.expectState(c.active.ep, EpState.DISCONNECTED, "after disconnecting a disconnected Endpoint");
        t.noEvent(c.active.connectEvd, "a second DISCONNECTED event");
    }

    @ConformanceTest
    @DisplayName("dat_ep_disconnect(3DAT) DAT_SUCCESS: during DAT_EP_STATE_ACTIVE_CONNECTION_PENDING it aborts the connect and flushes receives")
    void abortsConnect(IaUnderTest t) {
        Connection c = t.connection().create();
        t.expectSuccess(c.active.ep.postRecv(1, c.active.iov(0, 64), 5, CompletionFlags.DEFAULT), "dat_ep_post_recv before connecting");
        c.connectActive(c.psp.connQual());
        c.active.ep.disconnect(CloseFlag.ABRUPT);
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "after disconnecting during the connection establishment");
        DatEvent flushed = t.completion(c.active.recvEvd, "the preposted receive");
        t.check(flushed.status() == DtoCompletionStatus.ERR_FLUSHED, "the preposted receive of an aborted connect: expected"
                + " DAT_DTO_ERR_FLUSHED, got " + DtoCompletionStatus.name(flushed.status()));
    }

    @ConformanceTest
    @DisplayName("dat_ep_disconnect(3DAT) DAT_INVALID_STATE: the Endpoint is unconnected")
    void unconnected(IaUnderTest t) {
        Endpoint ep = t.ep();
        t.expectError(DatReturn.INVALID_STATE, "dat_ep_disconnect of an unconnected Endpoint", () -> ep.disconnect(CloseFlag.ABRUPT));
    }

    @ConformanceTest
    @DisplayName("dat_ep_disconnect(3DAT) DAT_INVALID_STATE: the Endpoint is reserved by an RSP")
    void reserved(IaUnderTest t) {
        Endpoint ep = t.ep();
        t.ia().createReservedServicePoint(t.unusedConnQual(t.ia()), ep, t.evd(EvdFlags.CR));
        t.expectError(DatReturn.INVALID_STATE, "dat_ep_disconnect of a reserved Endpoint", () -> ep.disconnect(CloseFlag.ABRUPT));
    }

    @ConformanceTest
    @DisplayName("dat_ep_disconnect(3DAT) DAT_INVALID_PARAMETER: no disconnect flag")
    void noFlag(IaUnderTest t) {
        Connection c = t.connect();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_disconnect with a null disconnect_flags", () -> c.active.ep.disconnect(null));
        t.expectState(c.active.ep, EpState.CONNECTED, "after the refused disconnect");
    }

    @ConformanceTest
    @DisplayName("dat_ep_disconnect(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void freed(IaUnderTest t) {
        Endpoint ep = t.ep();
        ep.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_disconnect of a freed Endpoint", () -> ep.disconnect(CloseFlag.ABRUPT));
    }
}
