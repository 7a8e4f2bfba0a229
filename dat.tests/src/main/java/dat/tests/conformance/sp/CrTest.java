package dat.tests.conformance.sp;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.ConnectionRequest;
import dat.api.CrParamMask;
import dat.api.CrParams;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpCreatorForPsp;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.internal.PrivateData;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;

/** dat_cr_query(3DAT), dat_cr_accept(3DAT), dat_cr_reject(3DAT), dat_cr_handoff(3DAT). */
class CrTest {

    private static final byte[] HELLO = "connect private data".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WELCOME = "accept private data".getBytes(StandardCharsets.US_ASCII);

    @ConformanceTest
    @DisplayName("dat_cr_query(3DAT) DAT_SUCCESS: the remote IA address, remote port qualifier and the requester's private data")
    void query(IaUnderTest t) {
        Connection c = t.connection().privateData(HELLO).create();
        ConnectionRequest cr = c.request();
        CrParams params = cr.query(CrParamMask.ALL);
        PrivateData.check(t, params.privateData(), HELLO, "private_data of the request");
        assertThat(params.remoteIaAddress()).as(t.at("remote_ia_address")).isNotNull();
        long activePortQual = c.active.ep.query(dat.api.EpParamMask.LOCAL_PORT_QUAL).localPortQual();
        assertThat(params.remotePortQual()).as(t.at("remote_port_qual is the active Endpoint's local port qualifier"))
                .isEqualTo(activePortQual);
        assertThat(params.localEp()).as(t.at("no local Endpoint for a DAT_PSP_CONSUMER PSP")).isNull();
        c.accept(cr);
    }

    @ConformanceTest
    @DisplayName("dat_cr_query(3DAT) DAT_INVALID_PARAMETER: a mask with undefined bits")
    void queryBadMask(IaUnderTest t) {
        ConnectionRequest cr = t.connection().create().request();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_cr_query with cr_param_mask 0x20", () -> cr.query(0x20));
    }

    @ConformanceTest
    @DisplayName("dat_cr_query(3DAT) DAT_INVALID_HANDLE: a request destroyed by dat_cr_reject")
    void queryRejected(IaUnderTest t) {
        ConnectionRequest cr = t.connection().create().request();
        cr.reject();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_cr_query of a rejected request", () -> cr.query());
    }

    @ConformanceTest
    @DisplayName("dat_cr_accept(3DAT) DAT_SUCCESS: both sides get ESTABLISHED; the requester gets the accept's private data, the passive side none")
    void accept(IaUnderTest t) {
        Connection c = t.connection().privateData(HELLO).acceptData(WELCOME).connect();
        PrivateData.check(t, c.activeEstablished().privateData(), WELCOME, "private data of the active side's ESTABLISHED event");
        assertThat(c.passiveEstablished().privateData()).as(t.at("private_data_size of the passive side's ESTABLISHED event is zero")).isEmpty();
        assertThat(c.activeEstablished().endpoint()).as(t.at("ep_handle of the active side's ESTABLISHED event")).isSameAs(c.active.ep);
        assertThat(c.passiveEstablished().endpoint()).as(t.at("ep_handle of the passive side's ESTABLISHED event")).isSameAs(c.passive.ep);
        t.expectState(c.active.ep, EpState.CONNECTED, "the active Endpoint after ESTABLISHED");
        t.expectState(c.passive.ep, EpState.CONNECTED, "the passive Endpoint after ESTABLISHED");
    }

    @ConformanceTest
    @DisplayName("dat_cr_accept(3DAT) DAT_SUCCESS: the accepted request is destroyed")
    void acceptDestroys(IaUnderTest t) {
        Connection c = t.connection().create();
        ConnectionRequest cr = c.request();
        c.accept(cr);
        t.expectError(DatReturn.INVALID_HANDLE, "dat_cr_query of an accepted request", () -> cr.query());
    }

    @ConformanceTest
    @DisplayName("dat_cr_accept(3DAT) DAT_INVALID_PARAMETER: more private data than max_private_data_size")
    void acceptTooMuchData(IaUnderTest t) {
        Connection c = t.connection().create();
        ConnectionRequest cr = c.request();
        byte[] tooMuch = new byte[t.provider().maxPrivateDataSize() + 1];
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_cr_accept with " + tooMuch.length + " bytes of private data",
                () -> cr.accept(c.passive.ep, tooMuch));
        c.accept(cr);
    }

    @ConformanceTest
    @DisplayName("dat_cr_accept(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void acceptFreedEp(IaUnderTest t) {
        Connection c = t.connection().create();
        ConnectionRequest cr = c.request();
        Endpoint spare = t.ep(c.passive.ia, c.passive.pz, c.passive.recvEvd, c.passive.requestEvd, c.passive.connectEvd);
        spare.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_cr_accept on a freed Endpoint", () -> cr.accept(spare, null));
        c.accept(cr);
    }

    @ConformanceTest
    @DisplayName("dat_cr_accept(3DAT) DAT_INVALID_HANDLE: a request destroyed by dat_cr_reject")
    void acceptRejected(IaUnderTest t) {
        Connection c = t.connection().create();
        ConnectionRequest cr = c.request();
        cr.reject();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_cr_accept of a rejected request", () -> cr.accept(c.passive.ep, null));
    }

    @ConformanceTest
    @DisplayName("dat_cr_reject(3DAT) DAT_SUCCESS: the requester gets PEER_REJECTED and is disconnected; the request is destroyed")
    void reject(IaUnderTest t) {
        Connection c = t.connection().create();
        ConnectionRequest cr = c.request();
        cr.reject();
        DatEvent event = t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED, "the requester's connection event");
        assertThat(event.endpoint()).as(t.at("ep_handle of the PEER_REJECTED event")).isSameAs(c.active.ep);
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "the rejected requester");
        t.expectState(c.passive.ep, EpState.UNCONNECTED, "the passive Endpoint, never offered");
    }

    @ConformanceTest
    @DisplayName("dat_cr_reject(3DAT) DAT_INVALID_HANDLE: a request already rejected")
    void rejectTwice(IaUnderTest t) {
        ConnectionRequest cr = t.connection().create().request();
        cr.reject();
        t.expectError(DatReturn.INVALID_HANDLE, "a second dat_cr_reject", () -> cr.reject());
    }

    @ConformanceTest
    @DisplayName("dat_cr_handoff(3DAT) DAT_SUCCESS: the Service Point on the other qualifier gets the request, which can be accepted there")
    void handoff(IaUnderTest t) {
        Connection c = t.connection().create();
        EventDispatcher otherEvd = t.evd(c.passive.ia, EvdFlags.CR);
        PublicServicePoint other = c.passive.ia.createPublicServicePointAny(otherEvd, PspFlag.CONSUMER);
        ConnectionRequest cr = c.request();
        cr.handoff(other.connQual());
        t.expectError(DatReturn.INVALID_HANDLE, "dat_cr_query of a handed-off request", () -> cr.query());
        DatEvent arrival = t.event(otherEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the request handed off to the other PSP");
        assertThat(arrival.servicePoint()).as(t.at("sp_handle of the handed-off request")).isSameAs(other);
        arrival.connectionRequest().accept(c.passive.ep, null);
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED after the handoff");
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the requester");
    }

    @ConformanceTest
    @DisplayName("dat_cr_handoff(3DAT) DAT_INVALID_PARAMETER: no Service Point listens on the qualifier")
    void handoffNowhere(IaUnderTest t) {
        Connection c = t.connection().create();
        ConnectionRequest cr = c.request();
        long nowhere = t.unusedConnQual(c.passive.ia);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_cr_handoff to a qualifier nobody listens on", () -> cr.handoff(nowhere));
        c.accept(cr);
    }

    @ConformanceTest
    @DisplayName("dat_cr_handoff(3DAT) DAT_INVALID_PARAMETER: the request's own qualifier is not another one; the request stays")
    void handoffToItsOwnQualifier(IaUnderTest t) {
        Connection c = t.connection().create();
        ConnectionRequest cr = c.request();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_cr_handoff to the qualifier the request came on", () -> cr.handoff(c.psp.connQual()));
        c.accept(cr);
    }

    @ConformanceTest
    @DisplayName("dat_cr_handoff(3DAT) DAT_SUCCESS: a request through an RSP handed off gives its reserved Endpoint back, unconnected")
    void handoffOfAnRspRequest(IaUnderTest t) {
        Connection c = t.connection().create();
        long qual = t.unusedConnQual(c.passive.ia);
        EventDispatcher rspEvd = t.evd(c.passive.ia, EvdFlags.CR);
        c.passive.ia.createReservedServicePoint(qual, c.passive.ep, rspEvd);
        EventDispatcher otherEvd = t.evd(c.passive.ia, EvdFlags.CR);
        PublicServicePoint other = c.passive.ia.createPublicServicePointAny(otherEvd, PspFlag.CONSUMER);
        c.connectActive(qual);
        ConnectionRequest cr = t.event(rspEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the request at the RSP").connectionRequest();
        cr.handoff(other.connQual());
        t.expectState(c.passive.ep, EpState.UNCONNECTED, "the RSP's Endpoint once its request was handed off");
        DatEvent arrival = t.event(otherEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the request handed off to the PSP");
        arrival.connectionRequest().accept(c.passive.ep, null);
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED on the Endpoint the RSP gave back");
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the requester");
    }

    @ConformanceTest
    @DisplayName("dat_cr_handoff(3DAT) DAT_SUCCESS: a request handed off to a PSP created with DAT_PSP_PROVIDER carries a Provider-created"
            + " Endpoint there, which accepts it")
    void handoffToAProviderPsp(IaUnderTest t) {
        t.requireSupported(t.provider().epCreator() != EpCreatorForPsp.NEVER, "Provider-created Endpoints for PSPs (ep_creator is NEVER)");
        Connection c = t.connection().create();
        PublicServicePoint other = c.providerPsp();
        ConnectionRequest cr = c.request();
        assertThat(cr.query().localEp()).as(t.at("the Endpoint of a request at a PSP created with DAT_PSP_CONSUMER")).isNull();
        cr.handoff(other.connQual());
        ConnectionRequest moved = t.event(c.providerCrEvd(), EventNumber.CONNECTION_REQUEST_EVENT, "the request handed off to the PSP")
                .connectionRequest();
        Endpoint provided = moved.query().localEp();
        assertThat(provided).as(t.at("the Provider-created Endpoint of the handed-off request")).isNotNull();
        t.expectState(provided, EpState.TENTATIVE_CONNECTION_PENDING, "the Provider-created Endpoint of the handed-off request");
        c.passive.adopt(provided);
        moved.accept(null, null);
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED on the Provider-created Endpoint");
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the requester");
    }

    @ConformanceTest
    @DisplayName("dat_cr_reject(3DAT) DAT_SUCCESS: a request that carries a Provider-created Endpoint; the requester gets PEER_REJECTED"
            + " and the PSP takes the next request")
    void rejectWithAProviderCreatedEp(IaUnderTest t) {
        t.requireSupported(t.provider().epCreator() != EpCreatorForPsp.NEVER, "Provider-created Endpoints for PSPs (ep_creator is NEVER)");
        Connection c = t.connection().create();
        ConnectionRequest cr = c.requestAtProviderPsp();
        cr.reject();
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED, "the requester of the rejected request");
        t.expectError(DatReturn.INVALID_HANDLE, "dat_cr_query of the rejected request", () -> cr.query());
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "after DAT_CONNECTION_EVENT_PEER_REJECTED");
        c.active.ep.reset();
        ConnectionRequest next = c.requestAtProviderPsp();
        Endpoint provided = next.query().localEp();
        t.expectState(provided, EpState.TENTATIVE_CONNECTION_PENDING, "the Provider-created Endpoint of the next request");
        c.passive.adopt(provided);
        next.accept(null, null);
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the requester, the second time");
    }

    @ConformanceTest
    @DisplayName("dat_cr_handoff(3DAT) DAT_INVALID_HANDLE: a request already rejected")
    void handoffRejected(IaUnderTest t) {
        Connection c = t.connection().create();
        ConnectionRequest cr = c.request();
        cr.reject();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_cr_handoff of a rejected request", () -> cr.handoff(c.psp.connQual()));
    }
}
