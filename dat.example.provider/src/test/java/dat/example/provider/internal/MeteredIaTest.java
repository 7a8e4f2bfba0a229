package dat.example.provider.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.ConnectFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpParams;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.ProviderInfo;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.Qos;
import dat.api.ext.IaStatistics;
import dat.api.ext.IaStatisticsSnapshot;
import dat.api.ext.Operation;
import dat.registry.DatRegistries;
import dat.registry.StandaloneRegistry;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The decoration outside OSGi: a metered factory over the sim provider, in a plain-Java registry.
 * The consumer sees only decorating handles, in events and query results alike; the counters see
 * every post and completion; when the metered provider leaves, the IA fails on its own.
 */
@Timeout(30)
class MeteredIaTest {

    private final StandaloneRegistry registry = DatRegistries.create();
    private final MeteredFactory factory = new MeteredFactory("metered-sim0", "sim0", registry);
    private final Arena arena = Arena.ofShared();

    MeteredIaTest() {
        registry.addProvider(new DatIaFactoryWithProperties(factory), new ProviderInfo("metered-sim0", 1, 2, true));
    }

    /** Gives the factory the properties the registry wants of an added provider. */
    private record DatIaFactoryWithProperties(MeteredFactory factory) implements dat.api.spi.DatIaFactory {
        @Override
        public InterfaceAdapter openIa(dat.api.spi.IaOpenRequest request) {
            return factory.openIa(request);
        }

        @Override
        public Map<String, Object> properties() {
            return Map.of("dat.provider.name", "metered", "dat.transport", "sim");
        }
    }

    @AfterEach
    void free() {
        registry.close();
        arena.close();
    }

    /** One side of a connection: PZ, EVDs, buffer, Endpoint. */
    private final class Side {
        final InterfaceAdapter ia;
        final ProtectionZone pz;
        final EventDispatcher recvEvd;
        final EventDispatcher requestEvd;
        final EventDispatcher connectEvd;
        final LocalMemoryRegion lmr;
        final Endpoint ep;

        Side(InterfaceAdapter ia) {
            this.ia = ia;
            pz = ia.createProtectionZone();
            recvEvd = ia.createEventDispatcher(32, null, EvdFlags.DTO);
            requestEvd = ia.createEventDispatcher(32, null, EvdFlags.DTO);
            connectEvd = ia.createEventDispatcher(8, null, EvdFlags.CONNECTION);
            lmr = ia.registerMemory(arena.allocate(4096), pz, MemPrivileges.ALL);
            ep = ia.createEndpoint(pz, recvEvd, requestEvd, connectEvd, null);
        }
    }

    private static DatEvent await(EventDispatcher evd, int eventNumber) {
        DatEvent event = new DatEvent();
        assertThat(DatReturn.describe(evd.await(5_000_000, 1, event))).isEqualTo(DatReturn.describe(DatReturn.SUCCESS));
        assertThat(EventNumber.name(event.eventNumber())).isEqualTo(EventNumber.name(eventNumber));
        return event;
    }

    private static void connect(Side active, Side passive) {
        EventDispatcher crEvd = passive.ia.createEventDispatcher(4, null, EvdFlags.CR);
        PublicServicePoint psp = passive.ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        active.ep.connect(passive.ia.query().iaAttributes().iaAddress(), psp.connQual(), 5_000_000, null, Qos.BEST_EFFORT,
                ConnectFlags.DEFAULT);
        DatEvent request = await(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
        assertThat(request.connectionRequest()).isInstanceOf(MeteredCr.class);
        assertThat(request.servicePoint()).isSameAs(psp);
        assertThat(request.evd()).isSameAs(crEvd);
        request.connectionRequest().accept(passive.ep, null);
        assertThat(await(passive.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED).endpoint()).isSameAs(passive.ep);
        assertThat(await(active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED).endpoint()).isSameAs(active.ep);
    }

    @Test
    void theConsumerSeesOnlyItsOwnHandlesAndTheCountersSeeEverything() {
        try (InterfaceAdapter a = registry.openIa("metered-sim0"); InterfaceAdapter b = registry.openIa("metered-sim0")) {
            assertThat(a).isInstanceOf(MeteredIa.class);
            assertThat(a.name()).isEqualTo("metered-sim0");
            assertThat(a.query().iaAttributes().adapterName()).isEqualTo("metered-sim0");
            assertThat(a.query().providerAttributes().providerName()).isEqualTo("metered");
            Side active = new Side(a);
            Side passive = new Side(b);
            EpParams params = active.ep.query();
            assertThat(params.ia()).isSameAs(a);
            assertThat(params.pz()).isSameAs(active.pz);
            assertThat(params.recvEvd()).isSameAs(active.recvEvd);
            assertThat(active.lmr.query().pz()).isSameAs(active.pz);
            connect(active, passive);

            LmrTriplet[] send = {LmrTriplet.of(active.lmr, 0, 100)};
            LmrTriplet[] recv = {LmrTriplet.of(passive.lmr, 0, 4096)};
            for (int i = 0; i < 10; i++) {
                assertThat(passive.ep.postRecv(1, recv, i, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
                assertThat(active.ep.postSend(1, send, i, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
                DatEvent sent = await(active.requestEvd, EventNumber.DTO_COMPLETION_EVENT);
                assertThat(sent.endpoint()).isSameAs(active.ep);
                assertThat(sent.evd()).isSameAs(active.requestEvd);
                DatEvent received = await(passive.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
                assertThat(received.endpoint()).isSameAs(passive.ep);
                assertThat(received.transferredLength()).isEqualTo(100);
            }
            assertThat(DatReturn.typeOf(active.ep.postSend(1, send, 0, 0xFF))).isEqualTo(DatReturn.INVALID_PARAMETER);

            IaStatisticsSnapshot sender = a.extension(IaStatistics.class).orElseThrow().snapshot();
            assertThat(sender.posted().get(Operation.SEND)).isEqualTo(10);
            assertThat(sender.postedBytes().get(Operation.SEND)).isEqualTo(1000);
            assertThat(sender.completions()).isEqualTo(10);
            assertThat(sender.completedBytes()).isEqualTo(1000);
            assertThat(sender.postErrors()).containsExactly(Map.entry(DatReturn.INVALID_PARAMETER, 1L));
            IaStatisticsSnapshot receiver = b.extension(IaStatistics.class).orElseThrow().snapshot();
            assertThat(receiver.posted().get(Operation.RECEIVE)).isEqualTo(10);
            assertThat(receiver.postedBytes().get(Operation.RECEIVE)).isEqualTo(40960);
            assertThat(receiver.completions()).isEqualTo(10);
            assertThat(receiver.completedBytes()).isEqualTo(1000);
        }
    }

    @Test
    void whenTheMeteredProviderLeavesTheIaFailsFlushesAndReleases() throws Exception {
        InterfaceAdapter a = registry.openIa("metered-sim0");
        InterfaceAdapter b = registry.openIa("metered-sim0");
        try {
            Side active = new Side(a);
            Side passive = new Side(b);
            connect(active, passive);
            LmrTriplet[] recv = {LmrTriplet.of(passive.lmr, 0, 64)};
            for (int i = 0; i < 3; i++) {
                assertThat(passive.ep.postRecv(1, recv, i, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
            }

            EventDispatcher asyncEvd = b.query().asyncEvd();

            factory.leave(Duration.ofMillis(300));

            assertThat(b.isOpen()).isFalse();
            DatEvent catastrophe = await(asyncEvd, EventNumber.ASYNC_ERROR_IA_CATASTROPHIC);
            assertThat(catastrophe.asyncHandle()).isSameAs(b);
            for (int i = 0; i < 3; i++) {
                DatEvent flushed = await(passive.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
                assertThat(flushed.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
                assertThat(flushed.endpoint()).isSameAs(passive.ep);
            }
            assertThat(DatReturn.typeOf(passive.ep.postRecv(1, recv, 9, CompletionFlags.DEFAULT))).isEqualTo(DatReturn.INVALID_HANDLE);
            DatEvent event = new DatEvent();
            // after the grace period the underlying IA is closed: waits end, calls answer DAT_INVALID_HANDLE
            long deadline = System.nanoTime() + 5_000_000_000L;
            int status;
            do {
                status = passive.recvEvd.await(100_000, 1, event);
            } while (DatReturn.typeOf(status) == DatReturn.TIMEOUT_EXPIRED && System.nanoTime() < deadline);
            assertThat(DatReturn.typeName(status)).isIn(DatReturn.typeName(DatReturn.INVALID_HANDLE), DatReturn.typeName(DatReturn.ABORT));
            assertThat(b.extension(IaStatistics.class).orElseThrow().snapshot().flushed()).isEqualTo(3);
            // each failed IA closes its underlying IA on a grace thread of its own: a's may still run
            while (factory.openCount() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(factory.openCount()).as("IAs of the factory open after the grace period").isZero();
        } finally {
            a.close();
            b.close();
        }
    }
}
