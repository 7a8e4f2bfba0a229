package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.CloseFlag;
import dat.api.ConnectionRequest;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpCreatorForPsp;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Endpoints the provider creates for the requests of a PSP created with {@code DAT_PSP_PROVIDER}
 * (dat_psp_create(3DAT)), on {@code ofi-tcp-lo}: what the conformance suite cannot see from the
 * API, namely whose they are after a reject and what an accept needs of them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProviderCreatedEndpointTest extends LoopbackPairTest {

    private PublicServicePoint psp;

    @BeforeEach
    void createProviderPsp() {
        psp = ia.createPublicServicePointAny(crEvd, PspFlag.PROVIDER);
    }

    /** A request at the PSP from a new Endpoint of the IA. */
    private ConnectionRequest request(Endpoint requester) {
        requester.connect(address(), psp.connQual(), WAIT, null, 0, 0);
        DatEvent arrival = await(crEvd);
        assertThat(arrival.eventNumber()).isEqualTo(EventNumber.CONNECTION_REQUEST_EVENT);
        return arrival.connectionRequest();
    }

    @Test
    void theIaDeclaresThatItCreatesEndpointsIfAsked() {
        assertThat(ia.query().providerAttributes().epCreator()).isEqualTo(EpCreatorForPsp.IFASKED);
        assertThat(ia.query().providerAttributes().providerSpecificAttributes())
                .containsKey(dat.api.ProviderAttributes.DEVIATION_PREFIX + "provider_ep_attributes");
    }

    @Test
    void aRejectedRequestsEndpointIsFreedByTheProvider() {
        OfiIa ofi = (OfiIa) ia;
        Endpoint requester = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        ConnectionRequest cr = request(requester);
        Endpoint provided = cr.query().localEp();
        assertThat(ofi.eps).contains((OfiEp) provided);
        assertThatThrownBy(provided::close).isInstanceOfSatisfying(DatException.class,
                e -> assertThat(e.subtype()).isEqualTo(DatReturn.INVALID_STATE_EP_TENTCONNPENDING));
        cr.reject();
        assertThat(ofi.eps).containsExactly((OfiEp) requester);
        assertThatThrownBy(provided::query).isInstanceOfSatisfying(DatException.class,
                e -> assertThat(e.type()).isEqualTo(DatReturn.INVALID_HANDLE));
        assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
    }

    @Test
    void anAcceptOnTheEndpointWithoutPz_failsWithoutEffect_thenSucceedsOnceItHasOne() {
        Endpoint requester = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        ConnectionRequest cr = request(requester);
        Endpoint provided = cr.query().localEp();
        assertThatThrownBy(() -> cr.accept(null, null)).isInstanceOfSatisfying(DatException.class, e -> {
            assertThat(e.type()).isEqualTo(DatReturn.INVALID_PARAMETER);
            assertThat(e.subtype()).isEqualTo(DatReturn.INVALID_ARG2);
        });
        assertThat(provided.query().state()).isEqualTo(EpState.TENTATIVE_CONNECTION_PENDING);
        assertThat(cr.query().localEp()).isSameAs(provided); // the request is still pending
        provided.modify(EpParamMask.PZ_HANDLE | EpParamMask.RECV_EVD_HANDLE | EpParamMask.REQUEST_EVD_HANDLE
                | EpParamMask.CONNECT_EVD_HANDLE, EpParams.builder().pz(pz).recvEvd(dtoEvd).requestEvd(dtoEvd).connectEvd(connEvd).build());
        cr.accept(null, null);
        assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(provided.query().state()).isEqualTo(EpState.CONNECTED);
        requester.disconnect(CloseFlag.ABRUPT);
        await(connEvd);
        await(connEvd);
        provided.close(); // the consumer's since the accept
        assertThat(((OfiIa) ia).eps).containsExactly((OfiEp) requester);
    }

    @Test
    void aReceiveBeforeItHasAPz_isRefused_soThatTheConsumerCanStillGiveItOne() {
        Endpoint requester = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        ConnectionRequest cr = request(requester);
        Endpoint provided = cr.query().localEp();
        int refused = provided.postRecv(0, new dat.api.LmrTriplet[0], 1, dat.api.CompletionFlags.DEFAULT);
        assertThat(DatReturn.typeOf(refused)).isEqualTo(DatReturn.INVALID_STATE);
        assertThat(DatReturn.subtypeOf(refused)).isEqualTo(DatReturn.INVALID_STATE_EP_TENTCONNPENDING);
        provided.modify(EpParamMask.PZ_HANDLE, EpParams.builder().pz(pz).build());
        assertThat(provided.postRecv(0, new dat.api.LmrTriplet[0], 1, dat.api.CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
        cr.reject();
    }

    @Test
    void aHandoffToAPspWhoseBacklogIsFull_refusesTheRequestAndFreesItsEndpoint() throws InterruptedException {
        OfiIa ofi = (OfiIa) ia;
        EventDispatcher fullEvd = ia.createEventDispatcher(1, null, EvdFlags.CR);
        PublicServicePoint full = ia.createPublicServicePointAny(fullEvd, PspFlag.PROVIDER);
        Endpoint first = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        first.connect(address(), full.connQual(), WAIT, null, 0, 0);
        long deadline = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(WAIT);
        while (!((OfiEvd) fullEvd).isFull() && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // the event thread queues the first request; nobody takes it
        }
        assertThat(((OfiEvd) fullEvd).isFull()).as("the first request fills the PSP's backlog").isTrue();
        Endpoint second = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        ConnectionRequest cr = request(second);
        cr.handoff(full.connQual());
        assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        assertThat(ofi.eps).hasSize(3); // the two requesters and the Endpoint of the request still queued at the full PSP
    }
}
