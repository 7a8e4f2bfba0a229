package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.LocalMemoryRegion;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.SharedReceiveQueue;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;

/**
 * The rig of the tests that connect Endpoints of one {@code ofi-tcp-lo} IA to each other: a PZ,
 * one DTO EVD for every Endpoint, a connection EVD and a CR EVD for each test, and the connect
 * through a PSP on the IA's own address.
 */
abstract class LoopbackPairTest extends LoopbackIaTest {

    static final long WAIT = TimeUnit.SECONDS.toMicros(10);

    ProtectionZone pz;
    EventDispatcher dtoEvd;
    EventDispatcher connEvd;
    EventDispatcher crEvd;
    final DatEvent event = new DatEvent();

    @BeforeEach
    void openObjects() {
        pz = ia.createProtectionZone();
        dtoEvd = ia.createEventDispatcher(256, null, EvdFlags.DTO);
        connEvd = ia.createEventDispatcher(16, null, EvdFlags.CONNECTION);
        crEvd = ia.createEventDispatcher(16, null, EvdFlags.CR);
    }

    InetSocketAddress address() {
        return ia.query().iaAttributes().iaAddress();
    }

    LocalMemoryRegion lmr(long size, int privileges) {
        return ia.registerMemory(arena.allocate(size, 4096), pz, privileges);
    }

    DatEvent await(EventDispatcher evd) {
        int rc = evd.await(WAIT, 1, event);
        assertThat(rc).as("await: %s", DatReturn.describe(rc)).isEqualTo(DatReturn.SUCCESS);
        return event;
    }

    /** A connected pair: [0] the active side, [1] the passive side. */
    Endpoint[] connect(byte[] requestData, byte[] acceptData) {
        PublicServicePoint psp = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        Endpoint active = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        Endpoint passive = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        active.connect(address(), psp.connQual(), WAIT, requestData, 0, 0);
        DatEvent request = await(crEvd);
        assertThat(request.eventNumber()).isEqualTo(EventNumber.CONNECTION_REQUEST_EVENT);
        assertThat(request.connectionRequest().query(0).privateData()).isEqualTo(requestData == null ? new byte[0] : requestData);
        request.connectionRequest().accept(passive, acceptData);
        byte[] seen = null;
        for (int established = 0; established < 2; established++) {
            DatEvent e = await(connEvd);
            assertThat(e.eventNumber()).as("%s", e).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            if (e.endpoint() == active) {
                seen = e.privateData();
            }
        }
        assertThat(seen).isEqualTo(acceptData == null ? new byte[0] : acceptData);
        psp.close();
        assertThat(active.query().state()).isEqualTo(EpState.CONNECTED);
        assertThat(passive.query().state()).isEqualTo(EpState.CONNECTED);
        return new Endpoint[] {active, passive};
    }

    /**
     * A pair whose passive side is an Endpoint of {@code srq}, receiving on {@code recvEvd}, with
     * {@code attributes}: [0] the active side, [1] the SRQ's Endpoint.
     */
    Endpoint[] connectToSrq(SharedReceiveQueue srq, EventDispatcher recvEvd, EpAttributes attributes) {
        PublicServicePoint psp = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        Endpoint active = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        Endpoint passive = ia.createEndpointWithSrq(pz, recvEvd, dtoEvd, connEvd, srq, attributes);
        active.connect(address(), psp.connQual(), WAIT, null, 0, 0);
        await(crEvd).connectionRequest().accept(passive, null);
        for (int established = 0; established < 2; established++) {
            assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
        psp.close();
        return new Endpoint[] {active, passive};
    }
}
