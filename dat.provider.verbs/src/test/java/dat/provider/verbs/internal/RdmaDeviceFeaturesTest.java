package dat.provider.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dat.api.AsyncErrorReason;
import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.MemoryType;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.RegionDescription;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.api.SrqParams;
import dat.api.spi.DatIaFactory;
import dat.api.spi.IaOpenRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the verbs provider does beyond the conformance suite's reach, on a real device (the
 * soft-RoCE VM in CI; skipped by assumption where there is none): static registry parameters in
 * OFED's forms, finite Endpoint watermarks, the SRQ counts of dat_srq_query, a DTO EVD that grows
 * with completions queued, SHARED_VIRTUAL cookies, and the memory window probe's declaration.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RdmaDeviceFeaturesTest {

    private static final long WAIT = TimeUnit.SECONDS.toMicros(10);
    private static VerbsRuntime runtime;

    @TempDir
    Path temp;

    private DatIaFactory factory;
    private InterfaceAdapter ia;
    private ProtectionZone pz;
    private EventDispatcher dtoEvd;
    private EventDispatcher connEvd;
    private EventDispatcher crEvd;
    private Arena arena;

    @BeforeAll
    static void start() {
        runtime = VerbsRuntime.start();
    }

    @AfterAll
    static void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    @BeforeEach
    void open() {
        assumeTrue(!runtime.factories().isEmpty(), () -> "no RDMA device: " + runtime.unavailableReason());
        factory = runtime.factories().get(0);
        ia = factory.openIa(new IaOpenRequest((String) factory.properties().get("dat.ia.name"), 16, null, ""));
        pz = ia.createProtectionZone();
        dtoEvd = ia.createEventDispatcher(64, null, EvdFlags.DTO);
        connEvd = ia.createEventDispatcher(16, null, EvdFlags.CONNECTION);
        crEvd = ia.createEventDispatcher(16, null, EvdFlags.CR);
        arena = Arena.ofShared();
    }

    @AfterEach
    void close() {
        if (ia != null) {
            ia.close();
        }
        if (arena != null) {
            arena.close();
        }
    }

    private InetSocketAddress address() {
        return ia.query().iaAttributes().iaAddress();
    }

    private DatEvent await(EventDispatcher evd) {
        DatEvent event = new DatEvent();
        int rc = evd.await(WAIT, 1, event);
        assertThat(rc).as("await: %s", DatReturn.describe(rc)).isEqualTo(DatReturn.SUCCESS);
        return event;
    }

    private Endpoint[] connect() {
        PublicServicePoint psp = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        Endpoint client = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        Endpoint server = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        client.connect(address(), psp.connQual(), WAIT, null, 0, 0);
        await(crEvd).connectionRequest().accept(server, null);
        assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.close();
        return new Endpoint[] {client, server};
    }

    @Test
    void staticRegistryParametersInOfedsFormsOpenTheIaOnTheirPort() throws IOException {
        DevicePort port = ((VerbsIaFactory) factory).port();
        NetworkInterface netdev = NetworkInterface.getByInetAddress(port.address());
        assertThat(netdev).as("the netdev of %s", port.address()).isNotNull();
        for (String params : new String[] {netdev.getName() + " 0", port.address().getHostAddress() + " 0",
            port.deviceName() + " " + port.port()}) {
            factory.init(new dat.api.ProviderInfo("ofa-v2-conf", 1, 2, false), params);
            try (InterfaceAdapter configured = factory.openIa(new IaOpenRequest("ofa-v2-conf", 8, null, params))) {
                assertThat(configured.name()).isEqualTo("ofa-v2-conf");
                assertThat(configured.query().iaAttributes().iaAddress().getAddress()).as("the IA address of \"%s\"", params)
                        .isEqualTo(port.address());
            }
        }
        assertThatThrownBy(() -> factory.init(new dat.api.ProviderInfo("ofa-v2-ib9", 1, 2, false), "ib9 0"))
                .isInstanceOf(DatException.class)
                .satisfies(e -> assertThat(((DatException) e).type()).isEqualTo(DatReturn.PROVIDER_NOT_FOUND));
    }

    @Test
    void aSoftWatermarkRaisesAnEventOnceAndAHardOneBreaksTheConnection() {
        Endpoint[] pair = connect();
        LocalMemoryRegion buffer = ia.registerMemory(arena.allocate(4096, 64), pz, MemPrivileges.ALL);
        EventDispatcher async = ia.query().asyncEvd();
        Endpoint server = pair[1];
        server.setWatermark(2, DatConstants.WATERMARK_INFINITE);
        for (int i = 0; i < 4; i++) {
            assertThat(server.postRecv(1, new LmrTriplet[] {LmrTriplet.of(buffer, i * 64L, 64)}, i, CompletionFlags.DEFAULT))
                    .isEqualTo(DatReturn.SUCCESS);
        }
        DatEvent soft = await(async);
        assertThat(soft.asyncHandle()).isSameAs(server);
        assertThat(soft.asyncReason()).isEqualTo(AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT);
        DatEvent none = new DatEvent();
        assertThat(async.dequeue(none)).as("one soft watermark event per setting").isNotEqualTo(DatReturn.SUCCESS);

        server.setWatermark(DatConstants.WATERMARK_INFINITE, 3); // 4 buffers held: over it at once
        DatEvent broken = await(connEvd);
        assertThat(broken.eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(broken.endpoint()).isSameAs(server);
        assertThat(await(async).eventNumber()).isEqualTo(EventNumber.ASYNC_ERROR_EP_BROKEN);
    }

    @Test
    void srqQueryReportsTheSizeGivenAndTheReceivesAvailableAndOutstanding() {
        SharedReceiveQueue srq = ia.createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(10).maxRecvIov(1).build());
        LocalMemoryRegion buffers = ia.registerMemory(arena.allocate(4096, 64), pz, MemPrivileges.ALL);
        for (int i = 0; i < 3; i++) {
            assertThat(srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(buffers, i * 256L, 256)}, i)).isEqualTo(DatReturn.SUCCESS);
        }
        SrqParams posted = srq.query();
        assertThat(posted.maxRecvDtos()).as("at least the size asked for").isGreaterThanOrEqualTo(10);
        assertThat(posted.availableDtoCount()).isEqualTo(3);
        assertThat(posted.outstandingDtoCount()).isEqualTo(3);

        PublicServicePoint psp = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        Endpoint client = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        EventDispatcher srqEvd = ia.createEventDispatcher(16, null, EvdFlags.DTO);
        Endpoint server = ia.createEndpointWithSrq(pz, srqEvd, dtoEvd, connEvd, srq, dat.api.EpAttributes.providerDefaults());
        client.connect(address(), psp.connQual(), WAIT, null, 0, 0);
        await(crEvd).connectionRequest().accept(server, null);
        await(connEvd);
        await(connEvd);
        assertThat(client.postSend(1, new LmrTriplet[] {LmrTriplet.of(buffers, 2048, 8)}, 9, 0)).isEqualTo(DatReturn.SUCCESS);
        assertThat(await(dtoEvd).status()).isZero(); // the send
        int more = srqEvd.await(WAIT, 1, new DatEvent()); // the receive, dequeued
        assertThat(more).isEqualTo(DatReturn.SUCCESS);
        SrqParams after = srq.query();
        assertThat(after.availableDtoCount()).isEqualTo(2);
        assertThat(after.outstandingDtoCount()).isEqualTo(2);
    }

    @Test
    void aDtoEvdGrowsWithItsCompletionsKept() {
        EventDispatcher small = ia.createEventDispatcher(4, null, EvdFlags.DTO);
        PublicServicePoint psp = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        Endpoint client = ia.createEndpoint(pz, dtoEvd, small, connEvd, null);
        Endpoint server = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        client.connect(address(), psp.connQual(), WAIT, null, 0, 0);
        await(crEvd).connectionRequest().accept(server, null);
        await(connEvd);
        await(connEvd);
        LocalMemoryRegion buffer = ia.registerMemory(arena.allocate(4096, 64), pz, MemPrivileges.ALL);
        dat.api.RmrTriplet target = dat.api.RmrTriplet.of(buffer, 2048, 8);
        for (int i = 0; i < 3; i++) {
            assertThat(client.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(buffer, 0, 8)}, i, target, 0)).isEqualTo(DatReturn.SUCCESS);
        }
        DatEvent first = await(small); // polls the CQ: the completions sit in the EVD's ring now
        assertThat(first.userCookie()).isZero();
        int before = small.query().qlen();
        small.resize(before + 1000);
        assertThat(small.query().qlen()).isEqualTo(before + 1000);
        assertThat(await(small).userCookie()).as("completions queued before the resize, in order").isEqualTo(1);
        assertThat(await(small).userCookie()).isEqualTo(2);
        for (int i = 0; i < 64; i++) {
            assertThat(client.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(buffer, 0, 8)}, 100 + i, target, 0))
                    .isEqualTo(DatReturn.SUCCESS);
        }
        for (int i = 0; i < 64; i++) {
            assertThat(await(small).userCookie()).isEqualTo(100 + i);
        }
    }

    @Test
    void sharedVirtualRegistrationsOfOneCookieNameOneRegion() throws IOException {
        byte[] cookie = new byte[40];
        cookie[0] = 7;
        try (FileChannel file = FileChannel.open(temp.resolve("shared"), StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE); Arena mapping = Arena.ofShared()) {
            MemorySegment mapped = file.map(FileChannel.MapMode.READ_WRITE, 0, 8192, mapping);
            LocalMemoryRegion first = ia.registerMemory(MemoryType.SHARED_VIRTUAL, RegionDescription.sharedMemory(mapped, cookie), 8192,
                    pz, MemPrivileges.ALL);
            LocalMemoryRegion second = ia.registerMemory(MemoryType.SHARED_VIRTUAL, RegionDescription.sharedMemory(mapped, cookie),
                    8192, pz, MemPrivileges.ALL);
            assertThatThrownBy(() -> ia.registerMemory(MemoryType.SHARED_VIRTUAL,
                    RegionDescription.sharedMemory(mapped.asSlice(4096), cookie), 4096, pz, MemPrivileges.ALL))
                    .as("the cookie names other memory").isInstanceOf(DatException.class)
                    .satisfies(e -> assertThat(((DatException) e).type()).isEqualTo(DatReturn.INVALID_STATE));
            first.close();
            second.close();
            LocalMemoryRegion elsewhere = ia.registerMemory(MemoryType.SHARED_VIRTUAL,
                    RegionDescription.sharedMemory(mapped.asSlice(4096), cookie), 4096, pz, MemPrivileges.ALL);
            elsewhere.close(); // the cookie was free again once its registrations were gone
        }
    }

    @Test
    void theWindowProbeDeclaresWhatTheDeviceDoes() {
        DevicePort port = ((VerbsIaFactory) factory).port();
        assumeTrue(port.windowType() > 0, "the device has no memory windows");
        java.util.Map<String, String> declared = ia.query().providerAttributes().providerSpecificAttributes();
        assertThat(declared.get("rmr")).startsWith("memory windows of type " + port.windowType());
        assertThat(ia.query().iaAttributes().maxRmrs()).isPositive();
        boolean enforced = ((VerbsIa) ia).windowBoundsEnforced();
        System.out.println("RdmaDeviceFeaturesTest: " + port.deviceName() + " windows of type " + port.windowType() + ", bounds "
                + (enforced ? "enforced by the device" : "not enforced by the device: each bind uses an MR of the window's range"));
        assertThat(declared.containsKey("verbs.window_bounds")).isEqualTo(!enforced);
    }
}
