package dat.tests.conformance.sp;

import static org.assertj.core.api.Assertions.assertThat;

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
import dat.api.ReservedServicePoint;
import dat.api.RspParamMask;
import dat.api.RspParams;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import org.junit.jupiter.api.DisplayName;

/** dat_rsp_create(3DAT), dat_rsp_query(3DAT), dat_rsp_free(3DAT). */
class RspTest {

    @ConformanceTest
    @DisplayName("dat_rsp_create(3DAT) DAT_SUCCESS: reserves the Endpoint, which alone accepts the one request the RSP delivers")
    void create(IaUnderTest t) {
        Connection c = t.connection().create();
        long qual = t.unusedConnQual(c.passive.ia);
        EventDispatcher crEvd = t.evd(c.passive.ia, EvdFlags.CR);
        ReservedServicePoint rsp = c.passive.ia.createReservedServicePoint(qual, c.passive.ep, crEvd);
        t.expectState(c.passive.ep, EpState.RESERVED, "the Endpoint of a new RSP");
        c.connectActive(qual);
        DatEvent arrival = t.event(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the connection request at the RSP");
        assertThat(arrival.servicePoint()).as(t.at("sp_handle of a request through an RSP (the request destroys the RSP)")).isNull();
        assertThat(arrival.connQual()).as(t.at("conn_qual of the arrival")).isEqualTo(qual);
        ConnectionRequest cr = arrival.connectionRequest();
        assertThat(cr.query().localEp()).as(t.at("the request's local Endpoint is the reserved one")).isSameAs(c.passive.ep);
        t.awaitState(c.passive.ep, EpState.PASSIVE_CONNECTION_PENDING, "the reserved Endpoint once the request arrived");
        assertThat(rsp.isOpen()).as(t.at("the RSP after it generated its connection request")).isFalse();
        cr.accept(c.passive.ep, null);
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the reserved Endpoint");
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the active side");
    }

    @ConformanceTest
    @DisplayName("dat_rsp_create(3DAT) DAT_SUCCESS: the RSP generates at most one request; the next is rejected as if no one listened")
    void atMostOneRequest(IaUnderTest t) {
        Connection c = t.connection().create();
        long qual = t.unusedConnQual(c.passive.ia);
        EventDispatcher crEvd = t.evd(c.passive.ia, EvdFlags.CR);
        c.passive.ia.createReservedServicePoint(qual, c.passive.ep, crEvd);
        c.connectActive(qual);
        t.event(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the first connection request at the RSP");
        Connection second = t.connection().create();
        second.active.ep.connect(t.address(c.passive.ia), qual, IaUnderTest.EVENT_TIMEOUT_MICROS, null, dat.api.Qos.BEST_EFFORT,
                dat.api.ConnectFlags.DEFAULT);
        t.event(second.active.connectEvd, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, "a second connect to the RSP's qualifier");
    }

    @ConformanceTest
    @DisplayName("dat_rsp_create(3DAT) DAT_INVALID_STATE: the Endpoint is not unconnected (already reserved)")
    void reservedEp(IaUnderTest t) {
        Endpoint ep = t.ep();
        t.ia().createReservedServicePoint(t.unusedConnQual(t.ia()), ep, t.evd(EvdFlags.CR));
        long other = t.unusedConnQual(t.ia());
        t.expectError(DatReturn.INVALID_STATE, "dat_rsp_create with a reserved Endpoint",
                () -> t.ia().createReservedServicePoint(other, ep, t.evd(EvdFlags.CR)));
    }

    @ConformanceTest
    @DisplayName("dat_rsp_create(3DAT) DAT_INVALID_STATE: the Endpoint is connected")
    void connectedEp(IaUnderTest t) {
        Connection c = t.connect();
        long qual = t.unusedConnQual(c.active.ia);
        t.expectError(DatReturn.INVALID_STATE, "dat_rsp_create with a connected Endpoint",
                () -> c.active.ia.createReservedServicePoint(qual, c.active.ep, t.evd(c.active.ia, EvdFlags.CR)));
    }

    @ConformanceTest
    @DisplayName("dat_rsp_create(3DAT) DAT_CONN_QUAL_IN_USE: a PSP listens on the qualifier")
    void qualifierInUse(IaUnderTest t) {
        var psp = t.ia().createPublicServicePointAny(t.evd(EvdFlags.CR), PspFlag.CONSUMER);
        Endpoint ep = t.ep();
        t.expectError(DatReturn.CONN_QUAL_IN_USE, "dat_rsp_create on a PSP's qualifier",
                () -> t.ia().createReservedServicePoint(psp.connQual(), ep, t.evd(EvdFlags.CR)));
        t.expectState(ep, EpState.UNCONNECTED, "the Endpoint of the refused RSP");
    }

    @ConformanceTest
    @DisplayName("dat_rsp_create(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void freedEp(IaUnderTest t) {
        Endpoint ep = t.ep();
        ep.close();
        long qual = t.unusedConnQual(t.ia());
        t.expectError(DatReturn.INVALID_HANDLE, "dat_rsp_create with a freed Endpoint",
                () -> t.ia().createReservedServicePoint(qual, ep, t.evd(EvdFlags.CR)));
    }

    @ConformanceTest
    @DisplayName("dat_rsp_create(3DAT) DAT_INVALID_HANDLE: DAT_HANDLE_NULL for the Endpoint, whose Provider-created Endpoint could never be given a PZ")
    void nullEp(IaUnderTest t) {
        // An RSP's Endpoint goes RESERVED, then PASSIVE_CONNECTION_PENDING; dat_ep_modify(3DAT)
        // changes the PZ only in UNCONNECTED and TENTATIVE_CONNECTION_PENDING, so a
        // Provider-created one could be accepted but never move data: the page's DAT_INVALID_HANDLE.
        Connection c = t.connection().create();
        long qual = t.unusedConnQual(c.passive.ia);
        EventDispatcher crEvd = t.evd(c.passive.ia, EvdFlags.CR);
        DatException e = t.expectError(DatReturn.INVALID_HANDLE, "dat_rsp_create with DAT_HANDLE_NULL for ep_handle",
                () -> c.passive.ia.createReservedServicePoint(qual, null, crEvd));
        assertThat(e.subtype()).as(t.at("the argument DAT_INVALID_HANDLE names")).isEqualTo(DatReturn.INVALID_HANDLE_EP);
        c.connectActive(qual);
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, "a connect to the refused RSP's qualifier");
    }

    @ConformanceTest
    @DisplayName("dat_rsp_create(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void freedEvd(IaUnderTest t) {
        EventDispatcher crEvd = t.evd(EvdFlags.CR);
        crEvd.close();
        long qual = t.unusedConnQual(t.ia());
        t.expectError(DatReturn.INVALID_HANDLE, "dat_rsp_create with a freed EVD",
                () -> t.ia().createReservedServicePoint(qual, t.ep(), crEvd));
    }

    @ConformanceTest
    @DisplayName("dat_rsp_query(3DAT) DAT_SUCCESS: reports the IA, qualifier, EVD and Endpoint")
    void query(IaUnderTest t) {
        Endpoint ep = t.ep();
        EventDispatcher crEvd = t.evd(EvdFlags.CR);
        long qual = t.unusedConnQual(t.ia());
        ReservedServicePoint rsp = t.ia().createReservedServicePoint(qual, ep, crEvd);
        RspParams params = rsp.query(RspParamMask.ALL);
        assertThat(params.ia()).as(t.at("ia_handle")).isSameAs(t.ia());
        assertThat(params.connQual()).as(t.at("conn_qual")).isEqualTo(qual);
        assertThat(params.evd()).as(t.at("evd_handle")).isSameAs(crEvd);
        assertThat(params.ep()).as(t.at("ep_handle")).isSameAs(ep);
    }

    @ConformanceTest
    @DisplayName("dat_rsp_query(3DAT) DAT_INVALID_PARAMETER: a mask with undefined bits")
    void queryBadMask(IaUnderTest t) {
        ReservedServicePoint rsp = t.ia().createReservedServicePoint(t.unusedConnQual(t.ia()), t.ep(), t.evd(EvdFlags.CR));
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_rsp_query with rsp_param_mask 0x10", () -> rsp.query(0x10));
    }

    @ConformanceTest
    @DisplayName("dat_rsp_query(3DAT) DAT_INVALID_HANDLE: a freed RSP")
    void queryFreed(IaUnderTest t) {
        ReservedServicePoint rsp = t.ia().createReservedServicePoint(t.unusedConnQual(t.ia()), t.ep(), t.evd(EvdFlags.CR));
        rsp.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_rsp_query of a freed RSP", () -> rsp.query());
    }

    @ConformanceTest
    @DisplayName("dat_rsp_free(3DAT) DAT_SUCCESS: the Endpoint reverts to the consumer, unconnected, and later requests are rejected")
    void free(IaUnderTest t) {
        Connection c = t.connection().create();
        long qual = t.unusedConnQual(c.passive.ia);
        ReservedServicePoint rsp = c.passive.ia.createReservedServicePoint(qual, c.passive.ep, t.evd(c.passive.ia, EvdFlags.CR));
        rsp.close();
        t.expectState(c.passive.ep, EpState.UNCONNECTED, "the Endpoint of a freed RSP");
        c.connectActive(qual);
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, "a connect to a freed RSP's qualifier");
        c.passive.ep.close();
    }

    @ConformanceTest
    @DisplayName("dat_rsp_free(3DAT) DAT_INVALID_HANDLE: freeing a freed RSP is the Java binding's no-op and the handle stays invalid")
    void freeTwice(IaUnderTest t) {
        ReservedServicePoint rsp = t.ia().createReservedServicePoint(t.unusedConnQual(t.ia()), t.ep(), t.evd(EvdFlags.CR));
        rsp.close();
        rsp.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_rsp_query of a twice-freed RSP", () -> rsp.query());
    }
}
