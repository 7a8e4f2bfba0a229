package dat.provider.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.MemoryType;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.RegionDescription;
import dat.api.RemoteMemoryRegion;
import dat.api.RmrParams;
import dat.api.RmrTriplet;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.api.SrqParams;
import dat.api.spi.IaOpenRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.NetworkInterface;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the verbs provider does beyond the conformance suite's reach, on a real device (the
 * soft-RoCE VM in CI; skipped by assumption where there is none): static registry parameters in
 * OFED's forms, the SRQ counts of dat_srq_query, a DTO EVD that grows
 * with completions queued, SHARED_VIRTUAL cookies, and the memory window probe's declaration.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RdmaDeviceFeaturesTest extends DeviceIaTest {

    private static final long WAIT = TimeUnit.SECONDS.toMicros(10);

    @TempDir
    Path temp;


    private DatEvent await(EventDispatcher evd) {
        DatEvent event = new DatEvent();
        int rc = evd.await(WAIT, 1, event);
        assertThat(rc).as("await: %s", DatReturn.describe(rc)).isEqualTo(DatReturn.SUCCESS);
        return event;
    }

    private Endpoint[] connect() {
        return connect(dtoEvd, connEvd);
    }

    /** A client and a server Endpoint of the test's PZ, connected, with the given EVDs. */
    private Endpoint[] connect(EventDispatcher dto, EventDispatcher conn) {
        PublicServicePoint psp = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        Endpoint client = ia.createEndpoint(pz, dto, dto, conn, null);
        Endpoint server = ia.createEndpoint(pz, dto, dto, conn, null);
        client.connect(address(), psp.connQual(), WAIT, null, 0, 0);
        await(crEvd).connectionRequest().accept(server, null);
        assertThat(await(conn).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(await(conn).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.close();
        return new Endpoint[] {client, server};
    }

    /** Binds {@code rmr} over {@code [offset, offset + 1024)} through {@code ep} and waits for the bind's completion. */
    private int bindAndAwait(RemoteMemoryRegion rmr, LocalMemoryRegion buffers, long offset, Endpoint ep, EventDispatcher dto) {
        int context = rmr.bind(LmrTriplet.of(buffers, offset, 1024), MemPrivileges.REMOTE_WRITE, ep, 9, CompletionFlags.DEFAULT);
        DatEvent done = await(dto);
        assertThat(done.eventNumber()).isEqualTo(EventNumber.RMR_BIND_COMPLETION_EVENT);
        assertThat(done.status()).as("the bind's status").isZero();
        return context;
    }

    /**
     * Asserts that a type 2 window's RMR reads unbound, and that it binds again through a new
     * connection whose client then writes through the new context.
     */
    private void assertReleasedAndBindsAgain(RemoteMemoryRegion rmr, LocalMemoryRegion buffers) {
        RmrParams released = rmr.query();
        assertThat(released.rmrContext()).as("the context of a window whose QP is gone").isZero();
        assertThat(released.lmrTriplet().segmentLength()).as("the bound length of a window whose QP is gone").isZero();
        EventDispatcher dto = ia.createEventDispatcher(64, null, EvdFlags.DTO);
        EventDispatcher conn = ia.createEventDispatcher(16, null, EvdFlags.CONNECTION);
        Endpoint[] next = connect(dto, conn);
        int context = bindAndAwait(rmr, buffers, 1024, next[1], dto);
        buffers.memory().asSlice(4096, 64).fill((byte) 0x5a);
        int rc = next[0].postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(buffers, 4096, 64)}, 11,
                new RmrTriplet(context, buffers.registeredAddress() + 1024, 64), CompletionFlags.DEFAULT);
        assertThat(rc).as(DatReturn.describe(rc)).isEqualTo(DatReturn.SUCCESS);
        assertThat(await(dto).status()).as("the RDMA Write through the window bound again").isZero();
        assertThat(buffers.memory().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 1024 + 63)).isEqualTo((byte) 0x5a);
        rmr.close();
    }

    /**
     * dat_ep_free of the Endpoint a type 2 window is bound through: the window goes with the QP
     * (the kernel holds a QP while a window is bound through it), and the RMR binds again.
     */
    @Test
    void freeingAnEndpointReleasesTheWindowsBoundThroughIt_andTheRmrBindsAgain() {
        assumeTrue(ia.query().iaAttributes().maxRmrs() > 0 && ((VerbsIa) ia).windowType() == 2, "no type 2 memory windows on this device");
        EventDispatcher dto = ia.createEventDispatcher(64, null, EvdFlags.DTO);
        EventDispatcher conn = ia.createEventDispatcher(16, null, EvdFlags.CONNECTION);
        Endpoint[] first = connect(dto, conn);
        LocalMemoryRegion buffers = ia.registerMemory(arena.allocate(8192, 64), pz, MemPrivileges.ALL);
        RemoteMemoryRegion rmr = pz.createRemoteMemoryRegion();
        assertThat(bindAndAwait(rmr, buffers, 0, first[1], dto)).isNotZero();
        first[1].close();
        first[0].close();
        assertReleasedAndBindsAgain(rmr, buffers);
    }

    /**
     * dat_ep_modify that re-creates the QP of an Endpoint a type 2 window is bound through
     * (disconnected and reset): the window goes with the old QP, and the RMR binds again.
     */
    @Test
    void reCreatingTheQpOfAnEndpointReleasesTheWindowsBoundThroughIt() {
        assumeTrue(ia.query().iaAttributes().maxRmrs() > 0 && ((VerbsIa) ia).windowType() == 2, "no type 2 memory windows on this device");
        EventDispatcher dto = ia.createEventDispatcher(64, null, EvdFlags.DTO);
        EventDispatcher conn = ia.createEventDispatcher(16, null, EvdFlags.CONNECTION);
        Endpoint[] first = connect(dto, conn);
        LocalMemoryRegion buffers = ia.registerMemory(arena.allocate(8192, 64), pz, MemPrivileges.ALL);
        RemoteMemoryRegion rmr = pz.createRemoteMemoryRegion();
        bindAndAwait(rmr, buffers, 0, first[1], dto);
        first[1].disconnect(dat.api.CloseFlag.ABRUPT);
        DatEvent event = await(conn);
        while (event.eventNumber() != EventNumber.CONNECTION_EVENT_DISCONNECTED || event.endpoint() != first[1]) {
            event = await(conn);
        }
        first[1].reset();
        EpParams params = first[1].query();
        first[1].modify(EpParamMask.EP_ATTR_MAX_RECV_DTOS,
                EpParams.builder().attributes(params.attributes().toBuilder().maxRecvDtos(params.attributes().maxRecvDtos() + 1).build())
                        .build());
        assertReleasedAndBindsAgain(rmr, buffers);
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

    /** Connects a client on the test's EVDs to {@code server}, made by the caller. */
    private Endpoint connectTo(Endpoint server, dat.api.EpAttributes clientAttributes) {
        PublicServicePoint psp = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        Endpoint client = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, clientAttributes);
        client.connect(address(), psp.connQual(), WAIT, null, 0, 0);
        await(crEvd).connectionRequest().accept(server, null);
        assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.close();
        return client;
    }

    /**
     * An SRQ Endpoint created without a receive EVD (no interest in receive events,
     * dat_ep_create_with_srq(3DAT)): the SRQ buffers its receives took still come back, and its own
     * sends still complete with their cookies.
     */
    @Test
    void anSrqEndpointWithoutARecvEvd_givesTheSrqBuffersItsReceivesTookBack() {
        SharedReceiveQueue srq = ia.createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(4).maxRecvIov(1).build());
        LocalMemoryRegion buffers = ia.registerMemory(arena.allocate(8192, 64), pz, MemPrivileges.ALL);
        for (int i = 0; i < 4; i++) {
            assertThat(srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(buffers, i * 256L, 256)}, i)).isEqualTo(DatReturn.SUCCESS);
        }
        Endpoint server = ia.createEndpointWithSrq(pz, null, dtoEvd, connEvd, srq, dat.api.EpAttributes.providerDefaults());
        Endpoint client = connectTo(server, null);
        assertThat(client.postRecv(1, new LmrTriplet[] {LmrTriplet.of(buffers, 4096, 256)}, 50, CompletionFlags.DEFAULT))
                .isEqualTo(DatReturn.SUCCESS);
        for (int i = 0; i < 4; i++) {
            assertThat(client.postSend(1, new LmrTriplet[] {LmrTriplet.of(buffers, 6144, 8)}, 10 + i, 0)).isEqualTo(DatReturn.SUCCESS);
            DatEvent sent = await(dtoEvd);
            assertThat(sent.status()).isZero();
            assertThat(sent.userCookie()).isEqualTo(10 + i);
        }
        // the server's post drains the private CQ its receives completed on
        assertThat(server.postSend(1, new LmrTriplet[] {LmrTriplet.of(buffers, 6400, 8)}, 20, 0)).isEqualTo(DatReturn.SUCCESS);
        java.util.Set<Long> cookies = new java.util.HashSet<>();
        for (int i = 0; i < 2; i++) {
            DatEvent e = await(dtoEvd);
            assertThat(e.status()).as("%s", e).isZero();
            cookies.add(e.userCookie());
        }
        assertThat(cookies).as("the server's send and the client's receive").containsExactlyInAnyOrder(20L, 50L);
        assertThat(srq.query().outstandingDtoCount()).as("buffers the server's receives took").isZero();
        for (int i = 0; i < 4; i++) {
            assertThat(srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(buffers, i * 256L, 256)}, 30 + i)).isEqualTo(DatReturn.SUCCESS);
        }
    }

    /** A bind posted on an Endpoint without a request EVD completes all the same: the RMR can be freed. */
    @Test
    void aBindOnAnEndpointWithoutARequestEvd_completes_andTheRmrCanBeFreed() {
        assumeTrue(ia.query().iaAttributes().maxRmrs() > 0, "no memory windows on this device");
        Endpoint server = ia.createEndpoint(pz, dtoEvd, null, connEvd, null);
        Endpoint client = connectTo(server, null);
        LocalMemoryRegion buffers = ia.registerMemory(arena.allocate(8192, 64), pz, MemPrivileges.ALL);
        dat.api.RemoteMemoryRegion rmr = pz.createRemoteMemoryRegion();
        assertThat(rmr.bind(LmrTriplet.of(buffers, 0, 1024), MemPrivileges.REMOTE_WRITE, server, 7, CompletionFlags.DEFAULT))
                .isNotZero();
        for (int i = 0; i < 2; i++) {
            assertThat(client.postRecv(1, new LmrTriplet[] {LmrTriplet.of(buffers, 4096 + i * 256L, 256)}, 50 + i,
                    CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
        }
        // the send goes after the bind on the server's queue, so the bind completed before the
        // client's receive of it; the next post drains the completions no EVD takes
        assertThat(server.postSend(1, new LmrTriplet[] {LmrTriplet.of(buffers, 6400, 8)}, 20, 0)).isEqualTo(DatReturn.SUCCESS);
        assertThat(await(dtoEvd).userCookie()).as("the client's first receive").isEqualTo(50);
        assertThat(server.postSend(1, new LmrTriplet[] {LmrTriplet.of(buffers, 6400, 8)}, 21, 0)).isEqualTo(DatReturn.SUCCESS);
        assertThat(await(dtoEvd).userCookie()).as("the client's second receive").isEqualTo(51);
        rmr.close(); // DAT_INVALID_STATE while the window counts a bind in flight
        client.close();
    }

    /** max_rdma_write_iov is honoured above max_request_iov: the queue pair takes that many segments. */
    @Test
    void anRdmaWriteOfAsManySegmentsAsMaxRdmaWriteIov_goesOut() {
        dat.api.EpAttributes attributes = dat.api.EpAttributes.builder().maxRequestIov(1).maxRdmaReadIov(1).maxRdmaWriteIov(8).build();
        Endpoint server = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        Endpoint client = connectTo(server, attributes);
        assertThat(client.query().attributes().maxRdmaWriteIov()).isEqualTo(8);
        LocalMemoryRegion local = ia.registerMemory(arena.allocate(8192, 64), pz, MemPrivileges.ALL);
        LocalMemoryRegion remote = ia.registerMemory(arena.allocate(8192, 64), pz, MemPrivileges.ALL);
        LmrTriplet[] iov = new LmrTriplet[8];
        for (int i = 0; i < 8; i++) {
            local.memory().asSlice(i * 512L, 64).fill((byte) (i + 1));
            iov[i] = LmrTriplet.of(local, i * 512L, 64);
        }
        int rc = client.postRdmaWrite(8, iov, 3, dat.api.RmrTriplet.of(remote, 0, 512), CompletionFlags.DEFAULT);
        assertThat(rc).as(DatReturn.describe(rc)).isEqualTo(DatReturn.SUCCESS);
        DatEvent e = await(dtoEvd);
        assertThat(e.status()).isZero();
        assertThat(e.transferredLength()).isEqualTo(512);
        for (int i = 0; i < 8; i++) {
            assertThat(remote.memory().get(java.lang.foreign.ValueLayout.JAVA_BYTE, i * 64L)).isEqualTo((byte) (i + 1));
        }
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
