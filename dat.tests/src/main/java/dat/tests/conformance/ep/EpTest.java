package dat.tests.conformance.ep;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.AsyncErrorReason;
import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.ConnectionRequest;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpCreatorForPsp;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EpRecvInfo;
import dat.api.EpState;
import dat.api.EpStatus;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import org.junit.jupiter.api.DisplayName;

/**
 * dat_ep_free(3DAT), dat_ep_query(3DAT), dat_ep_modify(3DAT), dat_ep_get_status(3DAT),
 * dat_ep_reset(3DAT), dat_ep_recv_query(3DAT), dat_ep_set_watermark(3DAT).
 */
class EpTest {

    @ConformanceTest
    @DisplayName("dat_ep_free(3DAT) DAT_SUCCESS: frees an unconnected Endpoint, whose handle then fails")
    void free(IaUnderTest t) {
        Endpoint ep = t.ep();
        ep.close();
        assertThat(ep.isOpen()).as(t.at("the freed Endpoint")).isFalse();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_get_status of a freed Endpoint", () -> ep.getStatus());
    }

    @ConformanceTest
    @DisplayName("dat_ep_free(3DAT) DAT_SUCCESS: frees an Endpoint with posted receives")
    void freeWithPostedReceive(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        LocalMemoryRegion lmr = t.lmr(pz, 4096, MemPrivileges.ALL);
        Endpoint ep = t.ep(pz, t.evd(EvdFlags.DTO), t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION));
        t.expectSuccess(ep.postRecv(1, IaUnderTest.iov(lmr, 0, 64), 1, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        ep.close();
        assertThat(ep.isOpen()).as(t.at("the freed Endpoint")).isFalse();
    }

    @ConformanceTest
    @DisplayName("dat_ep_free(3DAT) DAT_INVALID_STATE: the Endpoint is reserved by an RSP")
    void freeReserved(IaUnderTest t) {
        Endpoint ep = t.ep();
        var rsp = t.ia().createReservedServicePoint(t.unusedConnQual(t.ia()), ep, t.evd(EvdFlags.CR));
        t.expectError(DatReturn.INVALID_STATE, "dat_ep_free of a reserved Endpoint", () -> ep.close());
        rsp.close();
        ep.close();
    }

    @ConformanceTest
    @DisplayName("dat_ep_free(3DAT) DAT_INVALID_STATE: the Endpoint is in the passive connection pending state")
    void freePassivePending(IaUnderTest t) {
        Connection c = t.connection().create();
        long qual = t.unusedConnQual(c.passive.ia);
        EventDispatcher crEvd = t.evd(c.passive.ia, EvdFlags.CR);
        c.passive.ia.createReservedServicePoint(qual, c.passive.ep, crEvd);
        c.connectActive(qual);
        ConnectionRequest cr = t.event(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the request at the RSP").connectionRequest();
        t.expectError(DatReturn.INVALID_STATE, "dat_ep_free of a passive-connection-pending Endpoint", () -> c.passive.ep.close());
        cr.reject();
        t.expectState(c.passive.ep, EpState.UNCONNECTED, "the reserved Endpoint after dat_cr_reject");
        c.passive.ep.close();
    }

    @ConformanceTest
    @DisplayName("dat_ep_free(3DAT) DAT_INVALID_STATE: the Endpoint is in the tentative connection pending state")
    void freeTentative(IaUnderTest t) {
        t.requireSupported(t.provider().epCreator() != EpCreatorForPsp.NEVER, "Provider-created Endpoints for PSPs (ep_creator is NEVER)");
        ConnectionRequest cr = t.connection().create().requestAtProviderPsp();
        Endpoint tentative = cr.query().localEp();
        t.expectError(DatReturn.INVALID_STATE, "dat_ep_free of a tentative-connection-pending Endpoint", () -> tentative.close());
        cr.reject();
    }

    @ConformanceTest
    @DisplayName("dat_ep_free(3DAT) DAT_INVALID_HANDLE: freeing a freed Endpoint is the Java binding's no-op and the handle stays invalid")
    void freeTwice(IaUnderTest t) {
        Endpoint ep = t.ep();
        ep.close();
        ep.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_query of a twice-freed Endpoint", () -> ep.query());
    }

    @ConformanceTest
    @DisplayName("dat_ep_query(3DAT) DAT_SUCCESS: a connected Endpoint reports its state, local and remote addresses and port qualifiers")
    void queryConnected(IaUnderTest t) {
        Connection c = t.connect();
        EpParams active = c.active.ep.query();
        EpParams passive = c.passive.ep.query();
        assertThat(active.state()).as(t.at("ep_state of the connected active Endpoint")).isEqualTo(EpState.CONNECTED);
        assertThat(active.remoteIaAddress()).as(t.at("remote_ia_address of the active Endpoint")).isEqualTo(t.address(c.passive.ia));
        assertThat(passive.remoteIaAddress()).as(t.at("remote_ia_address of the passive Endpoint")).isEqualTo(t.address(c.active.ia));
        assertThat(active.remotePortQual()).as(t.at("remote_port_qual of the active Endpoint is the passive Endpoint's local port"))
                .isEqualTo(passive.localPortQual());
        assertThat(passive.remotePortQual()).as(t.at("remote_port_qual of the passive Endpoint is the active Endpoint's local port"))
                .isEqualTo(active.localPortQual());
        assertThat(active.localIaAddress()).as(t.at("local_ia_address of the active Endpoint")).isEqualTo(t.address(c.active.ia));
    }

    @ConformanceTest
    @DisplayName("dat_ep_query(3DAT) DAT_SUCCESS: the masked parameters are returned")
    void queryMasked(IaUnderTest t) {
        Endpoint ep = t.ep();
        assertThat(ep.query(EpParamMask.EP_STATE).state()).as(t.at("ep_state asked for by mask")).isEqualTo(EpState.UNCONNECTED);
        assertThat(ep.query(EpParamMask.EP_ATTR_MAX_RECV_DTOS).attributes().maxRecvDtos()).as(t.at("max_recv_dtos asked for by mask"))
                .isGreaterThanOrEqualTo(t.epAttributes().maxRecvDtos());
    }

    @ConformanceTest
    @DisplayName("dat_ep_query(3DAT) DAT_INVALID_PARAMETER: a mask with undefined bits")
    void queryBadMask(IaUnderTest t) {
        Endpoint ep = t.ep();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_query with ep_param_mask 0x800", () -> ep.query(0x800L));
    }

    @ConformanceTest
    @DisplayName("dat_ep_query(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void queryFreed(IaUnderTest t) {
        Endpoint ep = t.ep();
        ep.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_query of a freed Endpoint", () -> ep.query());
    }

    @ConformanceTest
    @DisplayName("dat_ep_modify(3DAT) DAT_SUCCESS: attributes and EVDs change in the unconnected state, only those the mask names")
    void modify(IaUnderTest t) {
        Endpoint ep = t.ep();
        EpAttributes before = ep.query().attributes();
        int recvDtos = Math.max(1, Math.min(8, t.attributes().maxDtoPerEp()));
        EventDispatcher newRecv = t.evd(EvdFlags.DTO);
        ProtectionZone newPz = t.pz();
        EpParams change = EpParams.builder().pz(newPz).recvEvd(newRecv)
                .attributes(before.toBuilder().maxRecvDtos(recvDtos).maxRequestDtos(1).build()).build();
        ep.modify(EpParamMask.PZ_HANDLE | EpParamMask.RECV_EVD_HANDLE | EpParamMask.EP_ATTR_MAX_RECV_DTOS, change);
        EpParams after = ep.query();
        assertThat(after.pz()).as(t.at("pz_handle after dat_ep_modify")).isSameAs(newPz);
        assertThat(after.recvEvd()).as(t.at("recv_evd_handle after dat_ep_modify")).isSameAs(newRecv);
        assertThat(after.attributes().maxRecvDtos()).as(t.at("max_recv_dtos after dat_ep_modify")).isGreaterThanOrEqualTo(recvDtos);
        assertThat(after.attributes().maxRequestDtos()).as(t.at("max_request_dtos, not in the mask, is unchanged"))
                .isEqualTo(before.maxRequestDtos());
    }

    @ConformanceTest
    @DisplayName("dat_ep_modify(3DAT) DAT_INVALID_PARAMETER: the mask names a parameter that cannot be modified (the state)")
    void modifyState(IaUnderTest t) {
        Endpoint ep = t.ep();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_modify of ep_state",
                () -> ep.modify(EpParamMask.EP_STATE, EpParams.builder().state(EpState.CONNECTED).build()));
        t.expectState(ep, EpState.UNCONNECTED, "the Endpoint after the refused dat_ep_modify");
    }

    @ConformanceTest
    @DisplayName("dat_ep_modify(3DAT) DAT_INVALID_PARAMETER: a mask with undefined bits")
    void modifyBadMask(IaUnderTest t) {
        Endpoint ep = t.ep();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_modify with ep_param_mask 0x800", () -> ep.modify(0x800L, ep.query()));
    }

    @ConformanceTest
    @DisplayName("dat_ep_modify(3DAT) DAT_INVALID_STATE: max_recv_dtos of a connected Endpoint")
    void modifyConnected(IaUnderTest t) {
        Connection c = t.connect();
        EpParams params = c.active.ep.query();
        EpParams change = params.toBuilder().attributes(params.attributes().toBuilder().maxRecvDtos(1).build()).build();
        t.expectError(DatReturn.INVALID_STATE, "dat_ep_modify of max_recv_dtos in the connected state",
                () -> c.active.ep.modify(EpParamMask.EP_ATTR_MAX_RECV_DTOS, change));
    }

    @ConformanceTest
    @DisplayName("dat_ep_modify(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void modifyFreed(IaUnderTest t) {
        Endpoint ep = t.ep();
        EpParams params = ep.query();
        ep.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_modify of a freed Endpoint", () -> ep.modify(EpParamMask.EP_ATTR_MAX_RECV_DTOS, params));
    }

    @ConformanceTest
    @DisplayName("dat_ep_get_status(3DAT) DAT_SUCCESS: the state, and whether receives and requests are outstanding")
    void status(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        LocalMemoryRegion lmr = t.lmr(pz, 4096, MemPrivileges.ALL);
        Endpoint ep = t.ep(pz, t.evd(EvdFlags.DTO), t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION));
        EpStatus idle = ep.getStatus();
        assertThat(idle.state()).as(t.at("ep_state of a new Endpoint")).isEqualTo(EpState.UNCONNECTED);
        assertThat(idle.recvIdle()).as(t.at("recv_idle without receives")).isTrue();
        assertThat(idle.requestIdle()).as(t.at("request_idle without requests")).isTrue();
        t.expectSuccess(ep.postRecv(1, IaUnderTest.iov(lmr, 0, 64), 1, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        assertThat(ep.getStatus().recvIdle()).as(t.at("recv_idle with a posted receive")).isFalse();
    }

    @ConformanceTest
    @DisplayName("dat_ep_get_status(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void statusFreed(IaUnderTest t) {
        Endpoint ep = t.ep();
        ep.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_get_status of a freed Endpoint", () -> ep.getStatus());
    }

    @ConformanceTest
    @DisplayName("dat_ep_reset(3DAT) DAT_SUCCESS: a disconnected Endpoint becomes unconnected and can connect again")
    void reset(IaUnderTest t) {
        Connection c = t.connect();
        c.active.ep.disconnect(CloseFlag.ABRUPT);
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED at the active side");
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "after DAT_CONNECTION_EVENT_DISCONNECTED");
        c.active.ep.reset();
        t.expectState(c.active.ep, EpState.UNCONNECTED, "after dat_ep_reset");
        Connection again = t.connection().create();
        c.active.ep.connect(t.address(again.passive.ia), again.psp.connQual(), IaUnderTest.EVENT_TIMEOUT_MICROS, null,
                dat.api.Qos.BEST_EFFORT, dat.api.ConnectFlags.DEFAULT);
        ConnectionRequest cr = t.event(again.crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the new request of the reset Endpoint")
                .connectionRequest();
        cr.accept(again.passive.ep, null);
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED for the reset Endpoint");
    }

    @ConformanceTest
    @DisplayName("dat_ep_reset(3DAT) DAT_SUCCESS: on an unconnected Endpoint it is a no-op that leaves posted receives alone")
    void resetUnconnected(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        LocalMemoryRegion lmr = t.lmr(pz, 4096, MemPrivileges.ALL);
        EventDispatcher recv = t.evd(EvdFlags.DTO);
        Endpoint ep = t.ep(pz, recv, t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION));
        t.expectSuccess(ep.postRecv(1, IaUnderTest.iov(lmr, 0, 64), 1, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        ep.reset();
        t.expectState(ep, EpState.UNCONNECTED, "after dat_ep_reset of an unconnected Endpoint");
        assertThat(ep.getStatus().recvIdle()).as(t.at("the preposted receive is still outstanding")).isFalse();
        t.noEvent(recv, "a completion of the preposted receive");
    }

    @ConformanceTest
    @DisplayName("dat_ep_reset(3DAT) DAT_INVALID_STATE: the Endpoint is connected")
    void resetConnected(IaUnderTest t) {
        Connection c = t.connect();
        t.expectError(DatReturn.INVALID_STATE, "dat_ep_reset of a connected Endpoint", () -> c.active.ep.reset());
    }

    @ConformanceTest
    @DisplayName("dat_ep_reset(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void resetFreed(IaUnderTest t) {
        Endpoint ep = t.ep();
        ep.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_reset of a freed Endpoint", () -> ep.reset());
    }

    @ConformanceTest
    @DisplayName("dat_ep_recv_query(3DAT) DAT_SUCCESS: the buffers allocated to the Endpoint, never more than their span")
    void recvQuery(IaUnderTest t) {
        t.requireSupported(t.provider().epRecvInfoSupported() != 0, "dat_ep_recv_query (ep_recv_info_supported is 0)");
        ProtectionZone pz = t.pz();
        LocalMemoryRegion lmr = t.lmr(pz, 4096, MemPrivileges.ALL);
        Endpoint ep = t.ep(pz, t.evd(EvdFlags.DTO), t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION));
        for (int i = 0; i < 2; i++) {
            t.expectSuccess(ep.postRecv(1, IaUnderTest.iov(lmr, i * 64L, 64), i, CompletionFlags.DEFAULT), "dat_ep_post_recv " + i);
        }
        EpRecvInfo info = ep.recvQuery();
        // "When an EP does not use SRQ, a buffer is allocated as soon as it is posted."
        if (info.nbufsAllocated() != DatConstants.VALUE_UNKNOWN) {
            assertThat(info.nbufsAllocated()).as(t.at("nbufs_allocated after two posted receives")).isEqualTo(2);
            if (info.bufsAllocSpan() != DatConstants.VALUE_UNKNOWN) {
                assertThat(info.bufsAllocSpan()).as(t.at("bufs_alloc_span is never less than nbufs_allocated"))
                        .isGreaterThanOrEqualTo(info.nbufsAllocated());
            }
        }
    }

    @ConformanceTest
    @DisplayName("dat_ep_recv_query(3DAT) DAT_MODEL_NOT_SUPPORTED: the provider declares no receive info support")
    void recvQueryUnsupported(IaUnderTest t) {
        t.requireFeasible(t.provider().epRecvInfoSupported() == 0, "the provider supports dat_ep_recv_query");
        Endpoint ep = t.ep();
        // "When the Provider does not support both of these counts, the return value ... can be
        // DAT_MODEL_NOT_SUPPORTED"; otherwise each count it cannot give is DAT_VALUE_UNKNOWN.
        try {
            EpRecvInfo info = ep.recvQuery();
            assertThat(info.nbufsAllocated()).as(t.at("nbufs_allocated without support")).isEqualTo(DatConstants.VALUE_UNKNOWN);
            assertThat(info.bufsAllocSpan()).as(t.at("bufs_alloc_span without support")).isEqualTo(DatConstants.VALUE_UNKNOWN);
        } catch (DatException e) {
            t.check(e.type() == DatReturn.MODEL_NOT_SUPPORTED, "dat_ep_recv_query without support: expected DAT_MODEL_NOT_SUPPORTED, got "
                    + DatReturn.describe(e.code()));
        }
    }

    @ConformanceTest
    @DisplayName("dat_ep_recv_query(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void recvQueryFreed(IaUnderTest t) {
        Endpoint ep = t.ep();
        ep.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_recv_query of a freed Endpoint", () -> ep.recvQuery());
    }

    @ConformanceTest
    @DisplayName("dat_ep_set_watermark(3DAT) DAT_SUCCESS: DAT_WATERMARK_INFINITE for both, in any state")
    void setWatermark(IaUnderTest t) {
        t.requireSupported(t.provider().srqWatermarksSupported() != 0, "watermarks (srq_watermarks_supported is 0)");
        Endpoint ep = t.ep();
        ep.setWatermark(DatConstants.WATERMARK_INFINITE, DatConstants.WATERMARK_INFINITE);
        Connection c = t.connect();
        c.active.ep.setWatermark(DatConstants.WATERMARK_INFINITE, DatConstants.WATERMARK_INFINITE);
    }

    @ConformanceTest
    @DisplayName("dat_ep_set_watermark(3DAT) DAT_SUCCESS: the async EVD gets the soft high watermark event once per setting, when"
            + " the receive buffers held exceed it")
    void softWatermark(IaUnderTest t) {
        t.requireSupported(t.provider().srqWatermarksSupported() != 0, "watermarks (srq_watermarks_supported is 0)");
        Connection.Side side = t.connect().passive;
        EventDispatcher async = side.ia.query().asyncEvd();
        side.ep.setWatermark(2, DatConstants.WATERMARK_INFINITE);
        postReceives(t, side, 0, 2);
        t.noEvent(async, "a soft watermark event with 2 receives held, not above 2");
        postReceives(t, side, 2, 1);
        DatEvent event = t.event(async, "the soft watermark event when the third receive is held");
        assertThat(event.asyncHandle()).as(t.at("the handle of the soft watermark event")).isSameAs(side.ep);
        assertThat(event.asyncReason()).as(t.at("the reason of the event")).isEqualTo(AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT);
        postReceives(t, side, 3, 1);
        t.noEvent(async, "a second soft watermark event for one setting");
        side.ep.setWatermark(2, DatConstants.WATERMARK_INFINITE);
        event = t.event(async, "the soft watermark event of a new setting below the 4 receives held");
        assertThat(event.asyncHandle()).as(t.at("the handle of the second setting's event")).isSameAs(side.ep);
        assertThat(side.ep.getStatus().state()).as(t.at("the Endpoint after soft watermark events")).isEqualTo(EpState.CONNECTED);
    }

    @ConformanceTest
    @DisplayName("dat_ep_set_watermark(3DAT) DAT_SUCCESS: a connected Endpoint that holds more receive buffers than the hard high"
            + " watermark is broken, its receives flushed")
    void hardWatermark(IaUnderTest t) {
        t.requireSupported(t.provider().srqWatermarksSupported() != 0, "watermarks (srq_watermarks_supported is 0)");
        Connection.Side side = t.connect().passive;
        postReceives(t, side, 0, 2);
        side.ep.setWatermark(DatConstants.WATERMARK_INFINITE, 3);
        postReceives(t, side, 2, 1);
        t.noEvent(side.connectEvd, "a connection event with 3 receives held, not above the hard watermark 3");
        postReceives(t, side, 3, 1);
        expectBrokenAndFlushed(t, side, 4, "when the fourth receive is held");
    }

    @ConformanceTest
    @DisplayName("dat_ep_set_watermark(3DAT) DAT_SUCCESS: an Endpoint over its hard high watermark before it connects is broken"
            + " as the connection is established")
    void hardWatermarkAtEstablish(IaUnderTest t) {
        t.requireSupported(t.provider().srqWatermarksSupported() != 0, "watermarks (srq_watermarks_supported is 0)");
        // the passive side: its connection is established after the active side's, so both see ESTABLISHED first
        Connection c = t.connection().create();
        postReceives(t, c.passive, 0, 2);
        c.passive.ep.setWatermark(DatConstants.WATERMARK_INFINITE, 1);
        t.noEvent(c.passive.connectEvd, "a connection event before the Endpoint connects");
        c.establish();
        expectBrokenAndFlushed(t, c.passive, 2, "after ESTABLISHED, 2 receives held over the hard watermark 1");
    }

    /** Posts {@code count} 64-byte receives into the side's buffer, cookies from {@code first}. */
    private static void postReceives(IaUnderTest t, Connection.Side side, int first, int count) {
        for (int i = first; i < first + count; i++) {
            t.expectSuccess(side.ep.postRecv(1, side.iov(i * 64L, 64), i, CompletionFlags.DEFAULT), "dat_ep_post_recv " + i);
        }
    }

    /** The side's connection broke {@code when}: its BROKEN event, then the {@code held} receives it held, flushed. */
    private static void expectBrokenAndFlushed(IaUnderTest t, Connection.Side side, int held, String when) {
        DatEvent broken = t.event(side.connectEvd, EventNumber.CONNECTION_EVENT_BROKEN, "DAT_CONNECTION_EVENT_BROKEN " + when);
        assertThat(broken.endpoint()).as(t.at("the Endpoint of the broken event")).isSameAs(side.ep);
        for (int i = 0; i < held; i++) {
            DatEvent flushed = t.completion(side.recvEvd, "a receive held when the connection broke " + when);
            assertThat(flushed.status()).as(t.at("the status of receive " + i + " held when the connection broke"))
                    .isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        }
    }

    @ConformanceTest
    @DisplayName("dat_ep_set_watermark(3DAT) DAT_MODEL_NOT_SUPPORTED: the provider declares no watermark support")
    void setWatermarkUnsupported(IaUnderTest t) {
        // DAT 1.2 has no Endpoint watermark attribute of its own: srq_watermarks_supported is read as
        // covering the SRQ low watermark and the Endpoint high watermarks alike.
        t.requireFeasible(t.provider().srqWatermarksSupported() == 0, "the provider supports watermarks");
        Endpoint ep = t.ep();
        t.expectError(DatReturn.MODEL_NOT_SUPPORTED, "dat_ep_set_watermark without watermark support",
                () -> ep.setWatermark(4, DatConstants.WATERMARK_INFINITE));
    }

    @ConformanceTest
    @DisplayName("dat_ep_set_watermark(3DAT) DAT_INVALID_PARAMETER: a negative watermark other than DAT_WATERMARK_INFINITE")
    void setWatermarkNegative(IaUnderTest t) {
        t.requireSupported(t.provider().srqWatermarksSupported() != 0, "watermarks (srq_watermarks_supported is 0)");
        Endpoint ep = t.ep();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_set_watermark with a soft watermark of -5",
                () -> ep.setWatermark(-5, DatConstants.WATERMARK_INFINITE));
    }

    @ConformanceTest
    @DisplayName("dat_ep_set_watermark(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void setWatermarkFreed(IaUnderTest t) {
        Endpoint ep = t.ep();
        ep.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_set_watermark of a freed Endpoint",
                () -> ep.setWatermark(DatConstants.WATERMARK_INFINITE, DatConstants.WATERMARK_INFINITE));
    }
}
