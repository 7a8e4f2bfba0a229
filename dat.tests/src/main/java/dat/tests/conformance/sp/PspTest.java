package dat.tests.conformance.sp;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.ConnectionRequest;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.EpCreatorForPsp;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.PspFlag;
import dat.api.PspParamMask;
import dat.api.PspParams;
import dat.api.PublicServicePoint;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import org.junit.jupiter.api.DisplayName;

/** dat_psp_create(3DAT), dat_psp_create_any(3DAT), dat_psp_query(3DAT), dat_psp_free(3DAT). */
class PspTest {

    @ConformanceTest
    @DisplayName("dat_psp_create(3DAT) DAT_SUCCESS: listens on the qualifier and delivers a connection request to its EVD")
    void create(IaUnderTest t) {
        Connection c = t.connection().create();
        long qual = t.unusedConnQual(c.passive.ia);
        EventDispatcher crEvd = t.evd(c.passive.ia, EvdFlags.CR);
        PublicServicePoint psp = c.passive.ia.createPublicServicePoint(qual, crEvd, PspFlag.CONSUMER);
        assertThat(psp.connQual()).as(t.at("the PSP's connection qualifier")).isEqualTo(qual);
        c.connectActive(qual);
        DatEvent arrival = t.event(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the connection request at the PSP");
        assertThat(arrival.servicePoint()).as(t.at("sp_handle of the arrival")).isSameAs(psp);
        assertThat(arrival.connQual()).as(t.at("conn_qual of the arrival")).isEqualTo(qual);
        assertThat(arrival.connectionRequest()).as(t.at("cr_handle of the arrival")).isNotNull();
        c.accept(arrival.connectionRequest());
    }

    @ConformanceTest
    @DisplayName("dat_psp_create(3DAT) DAT_SUCCESS: the PSP is persistent: it delivers one request after another")
    void persistent(IaUnderTest t) {
        Connection first = t.connection().create();
        first.establish();
        Connection second = t.connection().create();
        second.active.ep.connect(t.address(first.passive.ia), first.psp.connQual(), IaUnderTest.EVENT_TIMEOUT_MICROS, null,
                dat.api.Qos.BEST_EFFORT, dat.api.ConnectFlags.DEFAULT);
        DatEvent arrival = t.event(first.crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the second connection request at the PSP");
        arrival.connectionRequest().reject();
        t.event(second.active.connectEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED, "the rejection of the second request");
    }

    @ConformanceTest
    @DisplayName("dat_psp_create(3DAT) DAT_CONN_QUAL_IN_USE: another PSP listens on the qualifier")
    void qualifierInUse(IaUnderTest t) {
        PublicServicePoint psp = t.ia().createPublicServicePointAny(t.evd(EvdFlags.CR), PspFlag.CONSUMER);
        t.expectError(DatReturn.CONN_QUAL_IN_USE, "dat_psp_create on the qualifier of another PSP",
                () -> t.ia().createPublicServicePoint(psp.connQual(), t.evd(EvdFlags.CR), PspFlag.CONSUMER));
    }

    @ConformanceTest
    @DisplayName("dat_psp_create(3DAT) DAT_CONN_QUAL_IN_USE: an RSP listens on the qualifier")
    void qualifierInUseByRsp(IaUnderTest t) {
        long qual = t.unusedConnQual(t.ia());
        t.ia().createReservedServicePoint(qual, t.ep(), t.evd(EvdFlags.CR));
        t.expectError(DatReturn.CONN_QUAL_IN_USE, "dat_psp_create on the qualifier of an RSP",
                () -> t.ia().createPublicServicePoint(qual, t.evd(EvdFlags.CR), PspFlag.CONSUMER));
    }

    @ConformanceTest
    @DisplayName("dat_psp_create(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void freedEvd(IaUnderTest t) {
        EventDispatcher crEvd = t.evd(EvdFlags.CR);
        crEvd.close();
        long qual = t.unusedConnQual(t.ia());
        t.expectError(DatReturn.INVALID_HANDLE, "dat_psp_create with a freed EVD",
                () -> t.ia().createPublicServicePoint(qual, crEvd, PspFlag.CONSUMER));
    }

    @ConformanceTest
    @DisplayName("dat_psp_create(3DAT) DAT_INVALID_HANDLE: the IA is closed")
    void closedIa(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        EventDispatcher crEvd = ia.createEventDispatcher(t.qlen(), null, EvdFlags.CR);
        long qual = t.unusedConnQual(ia);
        ia.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_psp_create on a closed IA", () -> ia.createPublicServicePoint(qual, crEvd, PspFlag.CONSUMER));
    }

    @ConformanceTest
    @DisplayName("dat_psp_create(3DAT) DAT_INVALID_PARAMETER: no psp_flags")
    void noFlag(IaUnderTest t) {
        long qual = t.unusedConnQual(t.ia());
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_psp_create with a null psp_flags",
                () -> t.ia().createPublicServicePoint(qual, t.evd(EvdFlags.CR), null));
    }

    @ConformanceTest
    @DisplayName("dat_psp_create(3DAT) DAT_MODEL_NOT_SUPPORTED: a psp_flags value the provider's EP creator attribute rules out")
    void createUnsupportedFlag(IaUnderTest t) {
        PspFlag unsupported = flagRuledOut(t);
        long qual = t.unusedConnQual(t.ia());
        t.expectError(DatReturn.MODEL_NOT_SUPPORTED, "dat_psp_create with " + unsupported + " when ep_creator is "
                + t.provider().epCreator(), () -> t.ia().createPublicServicePoint(qual, t.evd(EvdFlags.CR), unsupported));
    }

    @ConformanceTest
    @DisplayName("dat_psp_create_any(3DAT) DAT_SUCCESS: allocates an unused qualifier, different for each PSP, on which it listens")
    void createAny(IaUnderTest t) {
        Connection c = t.connection().create();
        PublicServicePoint other = c.passive.ia.createPublicServicePointAny(t.evd(c.passive.ia, EvdFlags.CR), PspFlag.CONSUMER);
        assertThat(other.connQual()).as(t.at("the qualifiers of two PSPs created with dat_psp_create_any")).isNotEqualTo(c.psp.connQual());
        assertThat(c.psp.query().connQual()).as(t.at("the conn_qual dat_psp_query reports")).isEqualTo(c.psp.connQual());
        c.establish();
    }

    @ConformanceTest
    @DisplayName("dat_psp_create_any(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void createAnyFreedEvd(IaUnderTest t) {
        EventDispatcher crEvd = t.evd(EvdFlags.CR);
        crEvd.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_psp_create_any with a freed EVD", () -> t.ia().createPublicServicePointAny(crEvd, PspFlag.CONSUMER));
    }

    @ConformanceTest
    @DisplayName("dat_psp_create_any(3DAT) DAT_INVALID_PARAMETER: no psp_flags")
    void createAnyNoFlag(IaUnderTest t) {
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_psp_create_any with a null psp_flags",
                () -> t.ia().createPublicServicePointAny(t.evd(EvdFlags.CR), null));
    }

    @ConformanceTest
    @DisplayName("dat_psp_create_any(3DAT) DAT_MODEL_NOT_SUPPORTED: a psp_flags value the provider's EP creator attribute rules out")
    void createAnyUnsupportedFlag(IaUnderTest t) {
        PspFlag unsupported = flagRuledOut(t);
        t.expectError(DatReturn.MODEL_NOT_SUPPORTED, "dat_psp_create_any with " + unsupported + " when ep_creator is "
                + t.provider().epCreator(), () -> t.ia().createPublicServicePointAny(t.evd(EvdFlags.CR), unsupported));
    }

    @ConformanceTest
    @DisplayName("dat_psp_create(3DAT) DAT_SUCCESS: with DAT_PSP_PROVIDER the request carries a provider-created Endpoint in the tentative state")
    void providerCreatedEp(IaUnderTest t) {
        t.requireSupported(t.provider().epCreator() != EpCreatorForPsp.NEVER, "Provider-created Endpoints for PSPs (ep_creator is NEVER)");
        Connection c = t.connection().create();
        ConnectionRequest cr = c.requestAtProviderPsp();
        var localEp = cr.query().localEp();
        assertThat(localEp).as(t.at("the Provider-created Endpoint of the request")).isNotNull();
        t.expectState(localEp, EpState.TENTATIVE_CONNECTION_PENDING, "the Provider-created Endpoint of a pending request");
        // "All Endpoints created by the Provider have DAT_HANDLE_NULL for the Protection Zone and all Event Dispatchers."
        var params = localEp.query();
        assertThat(params.pz()).as(t.at("the PZ of the Provider-created Endpoint")).isNull();
        assertThat(params.connectEvd()).as(t.at("the connect EVD of the Provider-created Endpoint")).isNull();
        c.passive.adopt(localEp);
        cr.accept(null, null);
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED on the Provider-created Endpoint");
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the active side");
        t.expectState(localEp, EpState.CONNECTED, "the accepted Provider-created Endpoint");
    }

    @ConformanceTest
    @DisplayName("dat_psp_query(3DAT) DAT_SUCCESS: reports the IA, qualifier, EVD and flags")
    void query(IaUnderTest t) {
        EventDispatcher crEvd = t.evd(EvdFlags.CR);
        PublicServicePoint psp = t.ia().createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        PspParams params = psp.query(PspParamMask.ALL);
        assertThat(params.ia()).as(t.at("ia_handle")).isSameAs(t.ia());
        assertThat(params.connQual()).as(t.at("conn_qual")).isEqualTo(psp.connQual());
        assertThat(params.evd()).as(t.at("evd_handle")).isSameAs(crEvd);
        assertThat(params.flag()).as(t.at("psp_flags")).isEqualTo(PspFlag.CONSUMER);
    }

    @ConformanceTest
    @DisplayName("dat_psp_query(3DAT) DAT_INVALID_PARAMETER: a mask with undefined bits")
    void queryBadMask(IaUnderTest t) {
        PublicServicePoint psp = t.ia().createPublicServicePointAny(t.evd(EvdFlags.CR), PspFlag.CONSUMER);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_psp_query with psp_param_mask 0x10", () -> psp.query(0x10));
    }

    @ConformanceTest
    @DisplayName("dat_psp_query(3DAT) DAT_INVALID_HANDLE: a freed PSP")
    void queryFreed(IaUnderTest t) {
        PublicServicePoint psp = t.ia().createPublicServicePointAny(t.evd(EvdFlags.CR), PspFlag.CONSUMER);
        psp.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_psp_query of a freed PSP", () -> psp.query());
    }

    @ConformanceTest
    @DisplayName("dat_psp_free(3DAT) DAT_SUCCESS: later requests on the qualifier are rejected as if no one listened, and the qualifier is free again")
    void free(IaUnderTest t) {
        Connection c = t.connection().create();
        long qual = c.psp.connQual();
        c.psp.close();
        c.connectActive(qual);
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, "the connect to a freed PSP's qualifier");
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "after DAT_CONNECTION_EVENT_NON_PEER_REJECTED");
        c.passive.ia.createPublicServicePoint(qual, t.evd(c.passive.ia, EvdFlags.CR), PspFlag.CONSUMER);
    }

    @ConformanceTest
    @DisplayName("dat_psp_free(3DAT) DAT_SUCCESS: connection requests already delivered stay valid and can be accepted")
    void freeKeepsRequests(IaUnderTest t) {
        Connection c = t.connection().create();
        ConnectionRequest cr = c.request();
        c.psp.close();
        c.accept(cr);
        t.expectState(c.active.ep, EpState.CONNECTED, "the active Endpoint of a request accepted after its PSP was freed");
    }

    @ConformanceTest
    @DisplayName("dat_psp_free(3DAT) DAT_INVALID_HANDLE: freeing a freed PSP is the Java binding's no-op and the handle stays invalid")
    void freeTwice(IaUnderTest t) {
        PublicServicePoint psp = t.ia().createPublicServicePointAny(t.evd(EvdFlags.CR), PspFlag.CONSUMER);
        psp.close();
        psp.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_psp_query of a twice-freed PSP", () -> psp.query());
    }

    /** The PSP flag the provider's ep_creator attribute rules out, or a skip when it allows both. */
    static PspFlag flagRuledOut(IaUnderTest t) {
        EpCreatorForPsp creator = t.provider().epCreator();
        t.requireFeasible(creator != EpCreatorForPsp.IFASKED, "ep_creator is IFASKED: both psp_flags values are supported");
        return creator == EpCreatorForPsp.NEVER ? PspFlag.PROVIDER : PspFlag.CONSUMER;
    }
}
