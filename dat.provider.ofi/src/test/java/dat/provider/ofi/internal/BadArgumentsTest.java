package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.ConsumerNotificationObject;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.MemoryType;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.RegionDescription;
import dat.api.RmrTriplet;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.api.spi.DatIaFactory;
import dat.api.spi.IaOpenRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A bad argument on every call of the ofi provider's handles gives the exact DAT code (type and,
 * where the pages name one, subtype), as a return value on the data path and a
 * {@link DatException} on the control path; freed handles answer {@code DAT_INVALID_HANDLE}. None
 * reaches libfabric with memory it could misuse.
 */
class BadArgumentsTest extends LoopbackIaTest {

    private ProtectionZone pz;
    private EventDispatcher dto;
    private EventDispatcher conn;

    @BeforeEach
    void openObjects() {
        pz = ia.createProtectionZone();
        dto = ia.createEventDispatcher(64, null, EvdFlags.DTO);
        conn = ia.createEventDispatcher(16, null, EvdFlags.CONNECTION | EvdFlags.CR);
    }

    private static void expect(Runnable call, int type, int subtype) {
        Throwable thrown = catchThrowable(call::run);
        assertThat(thrown).isInstanceOf(DatException.class);
        DatException e = (DatException) thrown;
        assertThat(DatReturn.typeName(DatReturn.typeOf(e.code()))).as(e.getMessage()).isEqualTo(DatReturn.typeName(type));
        if (subtype >= 0) {
            assertThat(DatReturn.subtypeOf(e.code())).as(e.getMessage()).isEqualTo(subtype);
        }
    }

    private static void expect(int code, int type, int subtype) {
        assertThat(DatReturn.typeName(DatReturn.typeOf(code))).as(DatReturn.describe(code)).isEqualTo(DatReturn.typeName(type));
        if (subtype >= 0) {
            assertThat(DatReturn.subtypeOf(code)).as(DatReturn.describe(code)).isEqualTo(subtype);
        }
    }

    @Test
    void theIaRefusesBadArguments() {
        // dat_ia_query(3DAT)'s masks are its third and fifth arguments
        expect(() -> ia.query(-1L, 0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        expect(() -> ia.query(0, -1L), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
        expect(() -> ia.createEventDispatcher(0, null, EvdFlags.DTO), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(() -> ia.createEventDispatcher(Integer.MAX_VALUE, null, EvdFlags.DTO), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(() -> ia.createEventDispatcher(8, null, 0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4);
        expect(() -> ia.registerMemory(null, RegionDescription.virtual(arena.allocate(64)), 64, pz, 0), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG2);
        expect(() -> ia.registerMemory(MemorySegment.ofArray(new byte[64]), pz, MemPrivileges.LOCAL_READ), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG3);
        MemorySegment memory = arena.allocate(4096);
        expect(() -> ia.registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(memory), 0, pz, MemPrivileges.LOCAL_READ),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4);
        expect(() -> ia.registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(memory), 8192, pz, MemPrivileges.LOCAL_READ),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4);
        expect(() -> ia.registerMemory(memory, pz, 0x4000_0000), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6);
        expect(() -> ia.registerMemory(memory, null, MemPrivileges.LOCAL_READ), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_PZ);
        expect(() -> ia.createPublicServicePoint(0, conn, PspFlag.CONSUMER), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(() -> ia.createPublicServicePoint(70_000, conn, PspFlag.CONSUMER), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(() -> ia.createPublicServicePointAny(dto, PspFlag.CONSUMER), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_CR);
        expect(() -> ia.createPublicServicePointAny(conn, null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4);
        expect(() -> ia.createEndpoint(null, dto, dto, conn, null), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_PZ);
        expect(() -> ia.createEndpoint(pz, conn, dto, conn, null), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_RECV);
        expect(() -> ia.createEndpoint(pz, dto, dto, dto, null), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_CONN);
        expect(() -> ia.createEndpoint(pz, dto, dto, conn, EpAttributes.providerDefaults().toBuilder().maxRecvDtos(1 << 30).build()),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6);
        // values no stream may be configured with, whatever the device allows
        EpAttributes defaults = EpAttributes.providerDefaults();
        expect(() -> ia.createEndpoint(pz, dto, dto, conn, defaults.toBuilder().requestCompletionFlags(CompletionFlags.SOLICITED_WAIT).build()),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6);
        expect(() -> ia.createEndpoint(pz, dto, dto, conn,
                defaults.toBuilder().requestCompletionFlags(CompletionFlags.SUPPRESS | CompletionFlags.UNSIGNALLED).build()),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6);
        expect(() -> ia.createEndpoint(pz, dto, dto, conn, defaults.toBuilder().recvCompletionFlags(CompletionFlags.SUPPRESS).build()),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6);
        expect(() -> ia.createEndpoint(pz, dto, dto, conn, defaults.toBuilder().qos(0x4000_0000).build()), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG6);
        expect(() -> ia.createEndpoint(pz, dto, dto, conn, defaults.toBuilder().srqSoftHighWatermark(-5).build()),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6);
        SharedReceiveQueue srq = ia.createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(8).maxRecvIov(1).build());
        expect(() -> ia.createEndpointWithSrq(pz, dto, dto, conn, srq, defaults.toBuilder().maxRecvIov(1 << 20).build()),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG7);
        srq.close();
        expect(() -> ia.createSharedReceiveQueue(pz, null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        expect(() -> ia.createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(0).build()), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG3);
        expect(() -> ia.close(null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(() -> ia.syncRdmaRead(null, 1), DatReturn.INVALID_PARAMETER, -1);
    }

    @Test
    void endpointsRefuseBadArguments() {
        Endpoint ep = ia.createEndpoint(pz, dto, dto, conn, null);
        LocalMemoryRegion lmr = ia.registerMemory(arena.allocate(4096), pz, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        LmrTriplet[] iov = {LmrTriplet.of(lmr, 0, 64)};
        expect(ep.postRecv(-1, iov, 1, 0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(ep.postRecv(2, iov, 1, 0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        expect(ep.postRecv(1, null, 1, 0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        expect(ep.postRecv(1, iov, 1, CompletionFlags.SUPPRESS), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
        expect(ep.postRecv(1, new LmrTriplet[] {new LmrTriplet(987654, 0, 8)}, 1, 0), DatReturn.PRIVILEGES_VIOLATION, -1);
        expect(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 4090, 64)}, 1, 0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        expect(ep.postRecv(1, new LmrTriplet[] {new LmrTriplet(lmr.lmrContext(), lmr.registeredAddress(), -5)}, 1, 0),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        expect(ep.postSend(1, iov, 1, 0), DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EP_UNCONNECTED);
        expect(ep.postRdmaWrite(1, iov, 1, null, 0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
        expect(ep.postRdmaRead(1, iov, 1, null, 0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
        expect(() -> ep.connect(null, 1, 1000, null, 0, 0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(() -> ep.connect(InetSocketAddress.createUnresolved("nowhere.invalid", 0), 1, 1000, null, 0, 0), DatReturn.INVALID_ADDRESS,
                DatReturn.INVALID_ADDRESS_MALFORMED);
        expect(() -> ep.connect(new InetSocketAddress("0.0.0.0", 0), 1, 1000, null, 0, 0), DatReturn.INVALID_ADDRESS,
                DatReturn.INVALID_ADDRESS_UNSUPPORTED);
        InetSocketAddress self = ia.query().iaAttributes().iaAddress();
        expect(() -> ep.connect(self, 0, 1000, null, 0, 0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        expect(() -> ep.connect(self, 1, -1, null, 0, 0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4);
        expect(() -> ep.connect(self, 1, 1000, new byte[4096], 0, 0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
        expect(() -> ep.connect(self, 1, 1000, null, 0, -1), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG8);
        expect(() -> ep.disconnect(null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(() -> ep.disconnect(CloseFlag.ABRUPT), DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EP_UNCONNECTED);
        expect(() -> ep.query(-1L), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(() -> ep.modify(0, null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        expect(() -> ep.setWatermark(-5, -1), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        ep.close();
        expect(ep.postRecv(1, iov, 1, 0), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EP);
        expect(ep.postSend(0, null, 1, 0), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EP);
        expect(ep.postRdmaWrite(1, iov, 1, new RmrTriplet(1, 0, 8), 0), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EP);
        expect(() -> ep.connect(self, 1, 1000, null, 0, 0), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EP);
        expect(() -> ep.query(), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EP);
        expect(() -> ep.recvQuery(), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EP);
    }

    @Test
    void evdsAndOtherHandlesRefuseBadArguments() {
        DatEvent event = new DatEvent();
        expect(dto.dequeue(null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(dto.await(-2, 1, event), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(dto.await(1000, 0, event), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        expect(dto.await(1000, 65, event), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        expect(dto.await(1000, 1, null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4);
        expect(dto.poll(null, 1), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(dto.poll(e -> { }, -1), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        expect(dto.postSoftwareEvent(null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(() -> dto.resize(0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(() -> dto.query(-1), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        SharedReceiveQueue srq = ia.createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(8).maxRecvIov(1).build());
        expect(srq.postRecv(-1, null, 1), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(() -> srq.setLowWatermark(9), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(() -> srq.resize(0), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        expect(() -> pz.close(), DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_PZ_IN_USE);
        srq.close();
        expect(srq.postRecv(0, null, 1), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_SRQ);
        dto.close();
        expect(dto.dequeue(event), DatReturn.INVALID_HANDLE, -1);
        expect(() -> dto.query(), DatReturn.INVALID_HANDLE, -1);
        ia.close();
        expect(() -> ia.createProtectionZone(), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_IA);
        expect(() -> pz.query(), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_PZ);
        expect(conn.dequeue(event), DatReturn.INVALID_HANDLE, -1);
    }

    @Test
    void memoryThatCannotBeRegisteredIsRefusedBeforeLibfabricSeesIt() {
        Arena closed = Arena.ofShared();
        MemorySegment gone = closed.allocate(4096);
        closed.close();
        expect(() -> ia.registerMemory(gone, pz, MemPrivileges.LOCAL_READ), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment mine = confined.allocate(4096);
            expect(() -> ia.registerMemory(mine, pz, MemPrivileges.LOCAL_READ), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        }
        LocalMemoryRegion freed = ia.registerMemory(arena.allocate(4096), pz, MemPrivileges.LOCAL_READ);
        freed.close();
        expect(() -> ia.registerMemory(MemoryType.LMR, RegionDescription.ofLmr(freed), 0, pz, MemPrivileges.LOCAL_READ),
                DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_LMR);
    }

    @Test
    void aPostNamingMemoryWhoseArenaClosedIsRefused() {
        Arena own = Arena.ofShared();
        LocalMemoryRegion lmr = ia.registerMemory(own.allocate(4096), pz, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        Endpoint ep = ia.createEndpoint(pz, dto, dto, conn, null);
        LmrTriplet[] iov = {new LmrTriplet(lmr.lmrContext(), lmr.memory().address(), 64)};
        assertThat(ep.postRecv(1, iov, 1, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
        own.close();
        expect(ep.postRecv(1, iov, 2, CompletionFlags.DEFAULT), DatReturn.PRIVILEGES_VIOLATION, -1);
        ep.close();
        lmr.close();
    }

    @Test
    void anIaAsksForNoAsyncQueueLongerThanItsEvdsMayBe() {
        long most = ia.query().iaAttributes().maxEvdQlen();
        DatIaFactory factory = TcpLoopback.factory(runtime);
        expect(() -> factory.openIa(new IaOpenRequest(TcpLoopback.IA, Integer.MAX_VALUE, null, "")), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG2);
        if (most < Integer.MAX_VALUE) {
            expect(() -> factory.openIa(new IaOpenRequest(TcpLoopback.IA, (int) most + 1, null, "")), DatReturn.INVALID_PARAMETER,
                    DatReturn.INVALID_ARG2);
        }
        try (InterfaceAdapter another = factory.openIa(new IaOpenRequest(TcpLoopback.IA, (int) Math.min(most, 64), null, ""))) {
            assertThat(another.isOpen()).isTrue();
        }
    }

    @Test
    void aWaitProxyAgentThatThrowsStopsNeitherThePostNorTheWait() {
        ConsumerNotificationObject cno = ia.createNotificationObject(evd -> {
            throw new IllegalStateException("the consumer's agent fails");
        });
        EventDispatcher software = ia.createEventDispatcher(8, cno, EvdFlags.SOFTWARE);
        Thread self = Thread.currentThread();
        Thread.UncaughtExceptionHandler before = self.getUncaughtExceptionHandler();
        java.util.List<Throwable> reported = new java.util.ArrayList<>();
        self.setUncaughtExceptionHandler((thread, e) -> reported.add(e));
        try {
            assertThat(software.postSoftwareEvent("first")).isEqualTo(DatReturn.SUCCESS);
        } finally {
            self.setUncaughtExceptionHandler(before);
        }
        assertThat(reported).singleElement().extracting(Throwable::getMessage).isEqualTo("the consumer's agent fails");
        assertThat(cno.await(1_000_000)).isSameAs(software);
        DatEvent event = new DatEvent();
        assertThat(software.dequeue(event)).isEqualTo(DatReturn.SUCCESS);
        assertThat(event.softwarePointer()).isEqualTo("first");
        software.close();
        cno.close();
    }
}
