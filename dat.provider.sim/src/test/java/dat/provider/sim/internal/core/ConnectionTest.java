package dat.provider.sim.internal.core;

import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.SimIaFactory;

import static dat.provider.sim.internal.Codes.isType;
import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.Codes.throwsCode;
import static dat.provider.sim.internal.Codes.throwsType;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.ConnectionRequest;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.LmrTriplet;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.Qos;
import dat.api.ReservedServicePoint;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The EP state machine (DAT12-FACTS 3.4): dat_ep_connect, dup_connect, disconnect, reset, free, PSP/RSP/CR. */
@Timeout(30)
class ConnectionTest {

    private final Fabric f = new Fabric();
    private final Fabric.Side a = f.new Side("sim0", null, 4096);
    private final Fabric.Side b = f.new Side("sim1", null, 4096);

    @AfterEach
    void close() {
        f.close();
    }

    private void connect(Endpoint ep, long qual, long timeout) {
        ep.connect(b.address(), qual, timeout, null, Qos.BEST_EFFORT, 0);
    }

    /** a.ep connected to b.ep through a consumer PSP on {@code qual}, as a.ep sees it established. */
    private void establish(long qual) {
        b.ia.createPublicServicePoint(qual, b.crEvd, PspFlag.CONSUMER);
        connect(a.ep, qual, Fabric.WAIT);
        request().accept(b.ep, null);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    private ConnectionRequest request() {
        return b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest();
    }

    /** The reference for {@link TcpConnectionTest}: private data is checked against the sender's own maximum only. */
    @Test
    void privateDataBeyondThePeersMaximum_arrives() {
        try (Fabric g = new Fabric(ProviderSettings.defaults().limits(), "max_private_data=64")) {
            Fabric.privateDataBeyondThePeersMaximumArrives(g.new Side("small", null, 4096), g.new Side("sim1", null, 4096));
        }
    }

    @Test
    void dat_ep_create_startsUnconnected_andQueryReportsItsParameters() {
        EpParams q = a.ep.query();
        assertThat(q.state()).isEqualTo(EpState.UNCONNECTED);
        assertThat(q.ia()).isSameAs(a.ia);
        assertThat(q.pz()).isSameAs(a.pz);
        assertThat(q.recvEvd()).isSameAs(a.recvEvd);
        assertThat(q.requestEvd()).isSameAs(a.reqEvd);
        assertThat(q.connectEvd()).isSameAs(a.connEvd);
        assertThat(q.attributes().maxRecvDtos()).isPositive();
        assertThat(q.attributes().maxMessageSize()).isPositive();
        throwsCode(() -> a.ep.query(1L << 40), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
    }

    @Test
    void dat_ep_create_errorCodes() {
        throwsCode(() -> a.ia.createEndpoint(a.pz, a.connEvd, null, null, null), DatReturn.INVALID_HANDLE,
                DatReturn.INVALID_HANDLE_EVD_RECV);
        throwsCode(() -> a.ia.createEndpoint(a.pz, null, a.crEvd, null, null), DatReturn.INVALID_HANDLE,
                DatReturn.INVALID_HANDLE_EVD_REQUEST);
        throwsCode(() -> a.ia.createEndpoint(a.pz, null, null, a.recvEvd, null), DatReturn.INVALID_HANDLE,
                DatReturn.INVALID_HANDLE_EVD_CONN);
        throwsCode(() -> a.ia.createEndpoint(b.pz, null, null, null, null), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_PZ);
        throwsType(() -> a.ia.createEndpoint(a.pz, null, null, null, EpAttributes.builder().maxRecvDtos(1 << 30).build()),
                DatReturn.INVALID_PARAMETER);
        throwsType(() -> a.ia.createEndpoint(a.pz, null, null, null, EpAttributes.builder().maxRequestIov(1000).build()),
                DatReturn.INVALID_PARAMETER);
        throwsType(() -> a.ia.createEndpoint(a.pz, null, null, null, EpAttributes.builder().requestCompletionFlags(0x2).build()),
                DatReturn.INVALID_PARAMETER);
        throwsType(() -> a.ia.createEndpoint(a.pz, null, null, null, EpAttributes.builder().qos(Qos.PREMIUM).build()),
                DatReturn.MODEL_NOT_SUPPORTED);
    }

    @Test
    void dat_ep_create_INSUFFICIENT_RESOURCES_pastMaxEps() {
        var ia = f.factory.openIa(new dat.api.spi.IaOpenRequest("simEp", 8, null, "max_eps=2"));
        var pz = ia.createProtectionZone();
        Endpoint first = ia.createEndpoint(pz, null, null, null, null);
        ia.createEndpoint(pz, null, null, null, null);
        throwsCode(() -> ia.createEndpoint(pz, null, null, null, null), DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_TEP);
        first.close();
        ia.createEndpoint(pz, null, null, null, null);
    }

    @Test
    void dat_ep_connect_establishes_withPrivateDataBothWays() {
        ConnectionRequest request = Fabric.connectWithPrivateDataBothWays(a, b);
        throwsType(request::query, DatReturn.INVALID_HANDLE);
    }

    @Test
    void dat_ep_connect_UNREACHABLE_forAnAddressOutsideTheFabric() throws Exception {
        a.ep.connect(new InetSocketAddress(InetAddress.getByName("127.78.1.1"), 0), 1, Fabric.WAIT, null, 0, 0);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_UNREACHABLE);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    @Test
    void dat_ep_connect_NON_PEER_REJECTED_whenNobodyListens() {
        connect(a.ep, 4242, Fabric.WAIT);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    @Test
    void dat_ep_connect_NON_PEER_REJECTED_afterThePspIsFreed() {
        b.ia.createPublicServicePoint(9, b.crEvd, PspFlag.CONSUMER).close();
        connect(a.ep, 9, Fabric.WAIT);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
    }

    @Test
    void dat_ep_connect_NON_PEER_REJECTED_whenTheBacklogIsFull() {
        EventDispatcher tiny = b.ia.createEventDispatcher(1, null, EvdFlags.CR);
        b.ia.createPublicServicePoint(10, tiny, PspFlag.CONSUMER);
        Endpoint second = a.ia.createEndpoint(a.pz, null, null, a.connEvd, null);
        connect(a.ep, 10, Fabric.WAIT);
        assertThat(b.next(tiny).eventNumber()).isEqualTo(EventNumber.CONNECTION_REQUEST_EVENT);
        ConnectionRequest held = b.event.connectionRequest();
        // refill the single slot with a second request, the third finds the backlog full
        Endpoint third = a.ia.createEndpoint(a.pz, null, null, a.connEvd, null);
        connect(second, 10, Fabric.WAIT);
        connect(third, 10, Fabric.WAIT);
        DatEvent e = a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        assertThat(e.endpoint()).isSameAs(third);
        held.reject();
    }

    @Test
    void dat_ep_connect_PEER_REJECTED_whenTheConsumerRejects() {
        b.ia.createPublicServicePoint(11, b.crEvd, PspFlag.CONSUMER);
        connect(a.ep, 11, Fabric.WAIT);
        ConnectionRequest cr = request();
        cr.reject();
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        throwsCode(cr::reject, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_CR);
    }

    @Test
    void dat_ep_connect_TIMED_OUT_whenThePassiveSideNeverAnswers_thenAcceptGivesACCEPT_COMPLETION_ERROR() {
        b.ia.createPublicServicePoint(12, b.crEvd, PspFlag.CONSUMER);
        connect(a.ep, 12, 50_000);
        ConnectionRequest cr = request();
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_TIMED_OUT);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        ok(b.ep.postRecv(0, null, 1, 0));
        cr.accept(b.ep, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThat(b.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    @Test
    void dat_ep_connect_INVALID_ADDRESS_forAMalformedAddress() {
        throwsType(() -> a.ep.connect(InetSocketAddress.createUnresolved("nowhere.invalid", 1), 1, Fabric.WAIT, null, 0, 0),
                DatReturn.INVALID_ADDRESS);
        throwsType(() -> a.ep.connect(new InetSocketAddress(0), 1, Fabric.WAIT, null, 0, 0), DatReturn.INVALID_ADDRESS);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.UNCONNECTED);
    }

    @Test
    void dat_ep_connect_MODEL_NOT_SUPPORTED_forAnUnsupportedQos_INVALID_PARAMETER_forBadArguments() {
        throwsType(() -> a.ep.connect(b.address(), 1, Fabric.WAIT, null, Qos.PREMIUM, 0), DatReturn.MODEL_NOT_SUPPORTED);
        throwsType(() -> a.ep.connect(b.address(), 1, Fabric.WAIT, null, 0, dat.api.ConnectFlags.MULTIPATH),
                DatReturn.MODEL_NOT_SUPPORTED);
        throwsType(() -> a.ep.connect(b.address(), 1, Fabric.WAIT, new byte[257], 0, 0), DatReturn.INVALID_PARAMETER);
        throwsType(() -> a.ep.connect(b.address(), 1, 0, null, 0, 0), DatReturn.INVALID_PARAMETER);
        throwsType(() -> a.ep.connect(null, 1, Fabric.WAIT, null, 0, 0), DatReturn.INVALID_PARAMETER);
        throwsType(() -> a.ep.connect(b.address(), 1, Fabric.WAIT, null, 0x40, 0), DatReturn.INVALID_PARAMETER);
    }

    @Test
    void dat_ep_connect_NON_PEER_REJECTED_whenTheRemoteIaLacksTheQos() {
        var remote = f.factory.openIa(new dat.api.spi.IaOpenRequest("simQ", 8, null, "qos=best_effort"));
        EventDispatcher crEvd = remote.createEventDispatcher(4, null, EvdFlags.CR);
        remote.createPublicServicePoint(1, crEvd, PspFlag.CONSUMER);
        a.ep.connect(remote.query().iaAttributes().iaAddress(), 1, Fabric.WAIT, null, Qos.LOW_LATENCY, 0);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
    }

    @Test
    void dat_ep_connect_INVALID_STATE_unlessUnconnected() {
        b.ia.createPublicServicePoint(13, b.crEvd, PspFlag.CONSUMER);
        connect(a.ep, 13, DatConstants.TIMEOUT_INFINITE);
        assertThat(a.ep.getStatus().state()).isIn(EpState.ACTIVE_CONNECTION_PENDING);
        throwsCode(() -> connect(a.ep, 13, Fabric.WAIT), DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EP_ACTCONNPENDING);
        request().reject();
    }

    @Test
    void dat_ep_disconnect_duringActiveConnectionPendingAbortsIt() {
        b.ia.createPublicServicePoint(14, b.crEvd, PspFlag.CONSUMER);
        ok(a.ep.postRecv(0, null, 3, 0));
        connect(a.ep, 14, DatConstants.TIMEOUT_INFINITE);
        ConnectionRequest cr = request();
        a.ep.disconnect(CloseFlag.GRACEFUL);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThat(a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        cr.accept(b.ep, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
    }

    @Test
    void dat_ep_disconnect_INVALID_STATE_inUnconnectedReservedPassiveTentative_andNoOpWhenDisconnected() {
        throwsCode(() -> a.ep.disconnect(CloseFlag.ABRUPT), DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EP_UNCONNECTED);
        ReservedServicePoint rsp = b.ia.createReservedServicePoint(15, b.ep, b.crEvd);
        throwsCode(() -> b.ep.disconnect(CloseFlag.ABRUPT), DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EP_RESERVED);
        connect(a.ep, 15, Fabric.WAIT);
        ConnectionRequest cr = request();
        throwsCode(() -> b.ep.disconnect(CloseFlag.ABRUPT), DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EP_PASSCONNPENDING);
        throwsCode(() -> a.ep.disconnect(null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        cr.reject();
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        a.ep.disconnect(CloseFlag.ABRUPT); // DISCONNECTED: no-op
        assertThat(rsp.isOpen()).isFalse();
    }

    @Test
    void dat_rsp_create_reservesTheEndpoint_theRequestMovesItToPassivePending_rejectReturnsItUnconnected() {
        ReservedServicePoint rsp = b.ia.createReservedServicePoint(16, b.ep, b.crEvd);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.RESERVED);
        assertThat(rsp.query().ep()).isSameAs(b.ep);
        assertThat(rsp.query().connQual()).isEqualTo(16);
        throwsCode(b.ep::close, DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EP_RESERVED);
        connect(a.ep, 16, Fabric.WAIT);
        DatEvent e = b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
        assertThat(e.servicePoint()).isNull();
        assertThat(rsp.isOpen()).as("the request destroys the RSP").isFalse();
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.PASSIVE_CONNECTION_PENDING);
        assertThat(e.connectionRequest().query().localEp()).isSameAs(b.ep);
        throwsCode(b.ep::close, DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EP_PASSCONNPENDING);
        e.connectionRequest().reject();
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.UNCONNECTED);
    }

    @Test
    void dat_rsp_acceptWithNullUsesTheReservedEndpoint() {
        b.ia.createReservedServicePoint(17, b.ep, b.crEvd);
        connect(a.ep, 17, Fabric.WAIT);
        request().accept(null, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    @Test
    void dat_rsp_create_errorCodes_and_free_returnsTheEndpoint() {
        b.ia.createPublicServicePoint(18, b.crEvd, PspFlag.CONSUMER);
        throwsType(() -> b.ia.createReservedServicePoint(18, b.ep, b.crEvd), DatReturn.CONN_QUAL_IN_USE);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.UNCONNECTED);
        throwsCode(() -> b.ia.createReservedServicePoint(19, b.ep, b.recvEvd), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_CR);
        ReservedServicePoint rsp = b.ia.createReservedServicePoint(19, b.ep, b.crEvd);
        throwsType(() -> b.ia.createReservedServicePoint(20, b.ep, b.crEvd), DatReturn.INVALID_STATE);
        throwsCode(() -> rsp.query(0x10), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        rsp.close();
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.UNCONNECTED);
        throwsCode(rsp::query, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_RSP);
    }

    @Test
    void dat_psp_create_errorCodes_query_and_free() {
        PublicServicePoint psp = b.ia.createPublicServicePoint(21, b.crEvd, PspFlag.CONSUMER);
        assertThat(psp.query().connQual()).isEqualTo(21);
        assertThat(psp.query().evd()).isSameAs(b.crEvd);
        assertThat(psp.query().flag()).isEqualTo(PspFlag.CONSUMER);
        throwsType(() -> b.ia.createPublicServicePoint(21, b.crEvd, PspFlag.CONSUMER), DatReturn.CONN_QUAL_IN_USE);
        throwsCode(() -> b.ia.createPublicServicePoint(22, b.recvEvd, PspFlag.CONSUMER), DatReturn.INVALID_HANDLE,
                DatReturn.INVALID_HANDLE_EVD_CR);
        throwsType(() -> b.ia.createPublicServicePoint(22, b.crEvd, null), DatReturn.INVALID_PARAMETER);
        throwsCode(() -> psp.query(0x10), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        throwsCode(b.crEvd::close, DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_IN_USE);
        psp.close();
        throwsCode(psp::query, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_PSP);
        b.ia.createPublicServicePoint(21, b.crEvd, PspFlag.CONSUMER); // the qualifier is free again
    }

    @Test
    void dat_psp_create_any_picksAFreeQualifier_and_CONN_QUAL_UNAVAILABLE() {
        {
            SimIaFactory small = new SimIaFactory(new ProviderSettings(java.util.List.of("sim0"), SimLimits.defaults(), "sleeping",
                    1000, 5000, 2));
            var ia = small.openIa(new dat.api.spi.IaOpenRequest("sim0", 8, null, ""));
            EventDispatcher crEvd = ia.createEventDispatcher(4, null, EvdFlags.CR);
            PublicServicePoint p1 = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
            PublicServicePoint p2 = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
            assertThat(p1.connQual()).isNotEqualTo(p2.connQual()).isBetween(5000L, 5001L);
            assertThat(p1.query().connQual()).isEqualTo(p1.connQual());
            throwsType(() -> ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER), DatReturn.CONN_QUAL_UNAVAILABLE);
            p1.close();
            ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
            assertThat(small.shutdown()).isTrue();
        }
    }

    @Test
    void dat_psp_create_PROVIDER_flagGivesATentativeEndpointTheConsumerConfiguresAndAccepts() {
        b.ia.createPublicServicePoint(23, b.crEvd, PspFlag.PROVIDER);
        connect(a.ep, 23, Fabric.WAIT);
        DatEvent e = b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
        ConnectionRequest cr = e.connectionRequest();
        Endpoint provided = cr.query().localEp();
        assertThat(provided).isNotNull();
        EpParams q = provided.query();
        assertThat(q.state()).isEqualTo(EpState.TENTATIVE_CONNECTION_PENDING);
        assertThat(q.pz()).isNull();
        assertThat(q.connectEvd()).isNull();
        throwsCode(provided::close, DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EP_TENTCONNPENDING);
        provided.modify(EpParamMask.PZ_HANDLE | EpParamMask.CONNECT_EVD_HANDLE | EpParamMask.RECV_EVD_HANDLE,
                EpParams.builder().pz(b.pz).connectEvd(b.connEvd).recvEvd(b.recvEvd).build());
        throwsType(() -> cr.accept(b.ep, null), DatReturn.INVALID_PARAMETER); // not the provided Endpoint
        cr.accept(null, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(provided.getStatus().state()).isEqualTo(EpState.CONNECTED);
    }

    @Test
    void dat_psp_PROVIDER_rejectGivesTheEndpointBackToTheProvider() {
        b.ia.createPublicServicePoint(24, b.crEvd, PspFlag.PROVIDER);
        connect(a.ep, 24, Fabric.WAIT);
        ConnectionRequest cr = request();
        Endpoint provided = cr.query().localEp();
        cr.reject();
        assertThat(provided.isOpen()).isFalse();
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
    }

    @Test
    void dat_cr_accept_errorCodes() {
        b.ia.createPublicServicePoint(25, b.crEvd, PspFlag.CONSUMER);
        connect(a.ep, 25, Fabric.WAIT);
        ConnectionRequest cr = request();
        throwsType(() -> cr.accept(b.ep, new byte[257]), DatReturn.INVALID_PARAMETER);
        throwsType(() -> cr.accept(null, null), DatReturn.INVALID_PARAMETER);
        throwsCode(() -> cr.accept(a.ep, null), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EP);
        Endpoint reserved = b.ia.createEndpoint(b.pz, null, null, null, null);
        b.ia.createReservedServicePoint(26, reserved, b.crEvd);
        throwsType(() -> cr.accept(reserved, null), DatReturn.INVALID_STATE);
        throwsCode(() -> cr.query(0x20), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        cr.accept(b.ep, null);
        throwsCode(() -> cr.accept(b.ep, null), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_CR);
    }

    @Test
    void dat_cr_handoff_movesTheRequestToAnotherServicePoint_and_INVALID_PARAMETER() {
        b.ia.createPublicServicePoint(27, b.crEvd, PspFlag.CONSUMER);
        EventDispatcher other = b.ia.createEventDispatcher(4, null, EvdFlags.CR);
        b.ia.createPublicServicePoint(28, other, PspFlag.CONSUMER);
        connect(a.ep, 27, Fabric.WAIT);
        ConnectionRequest cr = request();
        throwsCode(() -> cr.handoff(99), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        cr.handoff(28);
        throwsCode(cr::reject, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_CR);
        DatEvent e = b.expect(other, EventNumber.CONNECTION_REQUEST_EVENT);
        assertThat(e.connQual()).isEqualTo(28);
        e.connectionRequest().accept(b.ep, null);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    @Test
    void dat_ep_dup_connect_connectsToTheSameRemoteEnd() {
        establish(29);
        Endpoint dup = a.ia.createEndpoint(a.pz, null, null, a.connEvd, null);
        Endpoint idle = a.ia.createEndpoint(a.pz, null, null, null, null);
        throwsType(() -> dup.dupConnect(idle, Fabric.WAIT, null, 0), DatReturn.INVALID_STATE);
        throwsType(() -> dup.dupConnect(b.ep, Fabric.WAIT, null, 0), DatReturn.INVALID_HANDLE);
        dup.dupConnect(a.ep, Fabric.WAIT, new byte[] {1}, Qos.BEST_EFFORT);
        DatEvent e = b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
        assertThat(e.connQual()).isEqualTo(29);
        Endpoint other = b.ia.createEndpoint(b.pz, null, null, b.connEvd, null);
        e.connectionRequest().accept(other, null);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    @Test
    void dat_ep_disconnect_graceful_waitsForRequests_DISCONNECT_PENDING() {
        establish(30);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        LmrTriplet[] src = {LmrTriplet.of(a.lmr, 0, 8)};
        ok(a.ep.postSend(1, src, 1, 0)); // no receive posted: waits
        assertThat(a.ep.getStatus().requestIdle()).isFalse();
        a.ep.disconnect(CloseFlag.GRACEFUL);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECT_PENDING);
        isType(a.ep.postSend(1, src, 2, 0), DatReturn.INVALID_STATE);
        a.ep.disconnect(CloseFlag.GRACEFUL); // no effect
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECT_PENDING);
        ok(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 8)}, 9, 0));
        assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    @Test
    void dat_ep_disconnect_abruptFromDisconnectPendingFlushes() {
        Fabric.Pair p = f.new Pair();
        LmrTriplet[] src = {LmrTriplet.of(p.a.lmr, 0, 8)};
        ok(p.a.ep.postSend(1, src, 1, 0));
        p.a.ep.disconnect(CloseFlag.GRACEFUL);
        p.a.ep.disconnect(CloseFlag.ABRUPT);
        assertThat(p.a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    @Test
    void dat_ep_disconnect_flushesPostedReceivesOnBothSides() {
        Fabric.Pair p = f.new Pair();
        ok(p.b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(p.b.lmr, 0, 8)}, 5, 0));
        p.a.ep.disconnect(CloseFlag.ABRUPT);
        DatEvent e = p.b.expect(p.b.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
        assertThat(e.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(e.userCookie()).isEqualTo(5);
        p.b.expect(p.b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
    }

    @Test
    void dat_ep_reset_returnsADisconnectedEndpointToUnconnected_andItConnectsAgain() {
        Fabric.Pair p = f.new Pair();
        throwsCode(p.a.ep::reset, DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EP_CONNECTED);
        p.a.ep.disconnect(CloseFlag.ABRUPT);
        p.a.expect(p.a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        p.a.ep.reset();
        assertThat(p.a.ep.getStatus().state()).isEqualTo(EpState.UNCONNECTED);
        p.a.ep.reset(); // no-op
        p.b.ep.reset();
        p.a.ep.connect(p.b.address(), 1000, Fabric.WAIT, null, 0, 0);
        p.b.expect(p.b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(p.b.ep, null);
        p.a.expect(p.a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(p.b.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
    }

    @Test
    void dat_ep_free_ofAConnectedEndpointDisconnectsThePeer() {
        Fabric.Pair p = f.new Pair();
        ok(p.a.ep.postRecv(0, null, 1, 0));
        p.a.ep.close();
        assertThat(p.a.ep.isOpen()).isFalse();
        p.b.expect(p.b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(p.b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        throwsCode(p.a.ep::getStatus, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EP);
        isType(p.a.ep.postSend(0, null, 0, 0), DatReturn.INVALID_HANDLE);
        p.a.ep.close();
    }

    @Test
    void dat_ep_modify_stateRules() {
        Fabric.Pair p = f.new Pair();
        EpParams params = EpParams.builder().pz(p.a.pz).attributes(EpAttributes.builder().maxRecvDtos(8).build()).build();
        throwsType(() -> p.a.ep.modify(EpParamMask.EP_ATTR_MAX_RECV_DTOS, params), DatReturn.INVALID_STATE);
        throwsType(() -> p.a.ep.modify(EpParamMask.PZ_HANDLE, params), DatReturn.INVALID_STATE);
        throwsType(() -> p.a.ep.modify(EpParamMask.EP_STATE, params), DatReturn.INVALID_PARAMETER);
        throwsType(() -> p.a.ep.modify(EpParamMask.REMOTE_IA_ADDRESS_PTR, params), DatReturn.INVALID_PARAMETER);
        throwsType(() -> p.a.ep.modify(EpParamMask.PZ_HANDLE, null), DatReturn.INVALID_PARAMETER);
        Endpoint fresh = p.a.ia.createEndpoint(p.a.pz, null, null, null, null);
        fresh.modify(EpParamMask.EP_ATTR_MAX_RECV_DTOS | EpParamMask.REQUEST_EVD_HANDLE,
                EpParams.builder().requestEvd(p.a.reqEvd).attributes(EpAttributes.builder().maxRecvDtos(8).build()).build());
        assertThat(fresh.query().attributes().maxRecvDtos()).isEqualTo(8);
        assertThat(fresh.query().requestEvd()).isSameAs(p.a.reqEvd);
        throwsType(() -> fresh.modify(EpParamMask.EP_ATTR_MAX_RECV_DTOS,
                EpParams.builder().attributes(EpAttributes.builder().maxRecvDtos(1 << 30).build()).build()), DatReturn.INVALID_PARAMETER);
    }

    @Test
    void dat_ep_get_status_reportsIdleness() {
        Fabric.Pair p = f.new Pair();
        assertThat(p.b.ep.getStatus().recvIdle()).isTrue();
        ok(p.b.ep.postRecv(0, null, 1, 0));
        assertThat(p.b.ep.getStatus().recvIdle()).isFalse();
        assertThat(p.b.ep.getStatus().requestIdle()).isTrue();
    }
}
