package dat.provider.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.AsyncErrorReason;
import dat.api.CompletionFlags;
import dat.api.ConnectionRequest;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.RmrTriplet;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.api.spi.DatIaFactory;
import dat.api.spi.IaOpenRequest;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The verbs provider against a real RDMA device: the real kernel RDMA stack, libibverbs,
 * librdmacm and a real driver. CI runs it inside the QEMU soft-RoCE VM (rxe0 on a dummy netdev);
 * where no device exists (this host's kernel has no RDMA) every test is skipped by assumption.
 * Both ends of each connection are in one IA, connected through rdma_cm to the IA's own address.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RdmaDeviceTest extends DeviceIaTest {

    private static final long WAIT = TimeUnit.SECONDS.toMicros(10);

    private final DatEvent event = new DatEvent();

    private LocalMemoryRegion lmr(long size, int privileges) {
        return ia.registerMemory(arena.allocate(size, 4096), pz, privileges);
    }

    private DatEvent await(EventDispatcher evd) {
        int rc = evd.await(WAIT, 1, event);
        assertThat(rc).as("await: %s", DatReturn.describe(rc)).isEqualTo(DatReturn.SUCCESS);
        return event;
    }

    /** A connected pair: [0] the active side, [1] the passive side. */
    private Endpoint[] connect(byte[] requestData, byte[] acceptData) {
        return connect(requestData, acceptData, dtoEvd);
    }

    private Endpoint[] connect(byte[] requestData, byte[] acceptData, EventDispatcher clientRequestEvd) {
        PublicServicePoint psp = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        Endpoint client = ia.createEndpoint(pz, dtoEvd, clientRequestEvd, connEvd, null);
        Endpoint server = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        client.connect(address(), psp.connQual(), WAIT, requestData, 0, 0);
        DatEvent cr = await(crEvd);
        assertThat(cr.eventNumber()).isEqualTo(EventNumber.CONNECTION_REQUEST_EVENT);
        assertThat(cr.servicePoint()).isSameAs(psp);
        assertArea(cr.connectionRequest().query().privateData(), requestData, 56);
        cr.connectionRequest().accept(server, acceptData);
        boolean clientUp = false;
        boolean serverUp = false;
        while (!(clientUp && serverUp)) {
            DatEvent e = await(connEvd);
            assertThat(e.eventNumber()).as("%s", e).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            if (e.endpoint() == client) {
                clientUp = true;
                assertArea(e.privateData(), acceptData, 196);
            } else {
                assertThat(e.endpoint()).isSameAs(server);
                serverUp = true;
            }
        }
        assertThat(client.getStatus().state()).isEqualTo(EpState.CONNECTED);
        assertThat(server.getStatus().state()).isEqualTo(EpState.CONNECTED);
        psp.close();
        return new Endpoint[] {client, server};
    }

    /** Private data as OFED's cma provider hands it over: the whole area of the CM message, the sent bytes first. */
    private static void assertArea(byte[] received, byte[] sent, int areaSize) {
        byte[] expected = new byte[areaSize];
        if (sent != null) {
            System.arraycopy(sent, 0, expected, 0, sent.length);
        }
        assertThat(received).as("the private-data area").containsExactly(expected);
    }

    /** The IA's event thread, made on the consumer's thread of dat_ia_open, takes none of its settings. */
    @Test
    void theEventThreadOfAnIaOpenedOnAConsumersThread_takesNoneOfItsSettings() throws InterruptedException {
        String name = (String) factory.properties().get("dat.ia.name");
        java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
        java.util.concurrent.atomic.AtomicReference<InterfaceAdapter> opened = new java.util.concurrent.atomic.AtomicReference<>();
        Thread consumer = Thread.ofPlatform().priority(Thread.MAX_PRIORITY)
                .unstarted(() -> opened.set(factory.openIa(new IaOpenRequest(name, 16, null, ""))));
        consumer.setContextClassLoader(new ClassLoader(null) {
        });
        consumer.start();
        consumer.join(10_000);
        assertThat(opened.get()).as("the IA opened").isNotNull();
        try {
            java.util.List<Thread> started = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> !before.contains(t) && t.getName().equals("dat-verbs-" + name)).toList();
            assertThat(started).hasSize(1).allSatisfy(t -> {
                assertThat(t.getContextClassLoader()).isSameAs(VerbsIa.class.getClassLoader());
                assertThat(t.getPriority()).isEqualTo(Thread.NORM_PRIORITY);
                assertThat(t.isDaemon()).isTrue();
            });
        } finally {
            opened.get().close();
        }
    }

    @Test
    void connectAcceptWithPrivateDataThenDisconnect() {
        Endpoint[] pair = connect(new byte[] {1, 2, 3}, new byte[] {9, 8});
        pair[0].disconnect(dat.api.CloseFlag.ABRUPT);
        int disconnected = 0;
        while (disconnected < 2) {
            DatEvent e = await(connEvd);
            assertThat(e.eventNumber()).as("%s", e).isEqualTo(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            disconnected++;
        }
        assertThat(pair[0].getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        pair[0].reset();
        assertThat(pair[0].getStatus().state()).isEqualTo(EpState.UNCONNECTED);
    }

    @Test
    void rejectReachesTheRequesterAsPeerRejected() {
        PublicServicePoint psp = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        Endpoint client = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        client.connect(address(), psp.connQual(), WAIT, new byte[] {7}, 0, 0);
        ConnectionRequest cr = await(crEvd).connectionRequest();
        cr.reject();
        DatEvent e = await(connEvd);
        assertThat(e.eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        assertThat(e.privateData()).as("the reject's area after OFED's version header").hasSize(144).containsOnly(0);
        assertThat(client.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThatThrownBy(() -> cr.accept(client, null)).isInstanceOf(DatException.class)
                .satisfies(x -> assertThat(((DatException) x).type()).isEqualTo(DatReturn.INVALID_HANDLE));
    }

    @Test
    void qualifiersAboveThePortSpaceConnectAsOfedMapsThem() {
        long qualifier = 110839; // rdma_cm port (110839 % 32001) + 33534 = 48370, as OFED uDAPL maps it
        PublicServicePoint psp = ia.createPublicServicePoint(qualifier, crEvd, PspFlag.CONSUMER);
        assertThat(psp.connQual()).isEqualTo(qualifier);
        Endpoint client = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        Endpoint server = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        client.connect(address(), qualifier, WAIT, null, 0, 0);
        DatEvent request = await(crEvd);
        assertThat(request.connQual()).isEqualTo(qualifier);
        request.connectionRequest().accept(server, null);
        assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThatThrownBy(() -> ia.createPublicServicePoint(48370, crEvd, PspFlag.CONSUMER)).as("the same rdma_cm port")
                .isInstanceOf(DatException.class)
                .satisfies(x -> assertThat(((DatException) x).type()).isEqualTo(DatReturn.CONN_QUAL_IN_USE));
        psp.close();
    }

    @Test
    void connectingToNoListenerIsNonPeerRejected() {
        Endpoint client = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        client.connect(address(), 4791 + 7, WAIT, null, 0, 0);
        DatEvent e = await(connEvd);
        assertThat(e.eventNumber()).isIn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED,
                EventNumber.CONNECTION_EVENT_UNREACHABLE);
    }

    @Test
    void sendAndReceiveCarryTheBytes() {
        Endpoint[] pair = connect(null, null);
        LocalMemoryRegion source = lmr(4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        LocalMemoryRegion target = lmr(4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        for (int i = 0; i < 1000; i++) {
            source.memory().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        }
        LmrTriplet[] recvIov = {LmrTriplet.of(target, 0, 4096)};
        LmrTriplet[] sendIov = {LmrTriplet.of(source, 0, 1000)};
        assertThat(pair[1].postRecv(1, recvIov, 11, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
        assertThat(pair[0].postSend(1, sendIov, 22, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
        boolean sent = false;
        boolean received = false;
        while (!(sent && received)) {
            DatEvent e = await(dtoEvd);
            assertThat(e.status()).as("%s", e).isEqualTo(DtoCompletionStatus.SUCCESS);
            if (e.userCookie() == 22) {
                sent = true;
                assertThat(e.endpoint()).isSameAs(pair[0]);
            } else {
                assertThat(e.userCookie()).isEqualTo(11);
                assertThat(e.endpoint()).isSameAs(pair[1]);
                assertThat(e.transferredLength()).isEqualTo(1000);
                received = true;
            }
        }
        assertThat(target.memory().asSlice(0, 1000).mismatch(source.memory().asSlice(0, 1000))).isEqualTo(-1);
    }

    @Test
    void rdmaWriteAndReadMoveTheBytesWithoutTheTarget() {
        Endpoint[] pair = connect(null, null);
        LocalMemoryRegion local = lmr(65536, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        LocalMemoryRegion remote = lmr(65536, MemPrivileges.ALL);
        for (int i = 0; i < 65536; i += 8) {
            local.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 31L);
        }
        LmrTriplet[] iov = {LmrTriplet.of(local, 0, 65536)};
        RmrTriplet target = RmrTriplet.of(remote, 0, 65536);
        assertThat(pair[0].postRdmaWrite(1, iov, 1, target, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
        DatEvent e = await(dtoEvd);
        assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(e.transferredLength()).isEqualTo(65536);
        assertThat(remote.memory().mismatch(local.memory())).isEqualTo(-1);

        remote.memory().fill((byte) 0x5A);
        assertThat(pair[0].postRdmaRead(1, iov, 2, target, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
        e = await(dtoEvd);
        assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(e.userCookie()).isEqualTo(2);
        assertThat(local.memory().mismatch(remote.memory())).isEqualTo(-1);
    }

    @Test
    void remoteAccessBeyondTheRegionCompletesWithAnError() {
        Endpoint[] pair = connect(null, null);
        LocalMemoryRegion local = lmr(8192, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        LocalMemoryRegion remote = lmr(4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE); // no remote write
        LmrTriplet[] iov = {LmrTriplet.of(local, 0, 4096)};
        assertThat(pair[0].postRdmaWrite(1, iov, 3, RmrTriplet.of(remote, 0, 4096), 0)).isEqualTo(DatReturn.SUCCESS);
        DatEvent e = await(dtoEvd);
        assertThat(e.status()).as("%s", e).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
    }

    @Test
    void badIovsAreRefusedBeforeAnyNativeCall() {
        Endpoint[] pair = connect(null, null);
        LocalMemoryRegion readOnly = lmr(4096, MemPrivileges.LOCAL_READ);
        ProtectionZone otherPz = ia.createProtectionZone();
        LocalMemoryRegion foreign = ia.registerMemory(arena.allocate(4096, 4096), otherPz, MemPrivileges.ALL);
        Endpoint ep = pair[0];
        assertThat(DatReturn.typeOf(ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(readOnly, 4000, 200)}, 0, 0)))
                .isEqualTo(DatReturn.INVALID_PARAMETER);
        assertThat(DatReturn.typeOf(ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(readOnly, -8, 16)}, 0, 0)))
                .isEqualTo(DatReturn.INVALID_PARAMETER);
        assertThat(DatReturn.typeOf(ep.postSend(1, new LmrTriplet[] {new LmrTriplet(0x7777_7777, 0, 16)}, 0, 0)))
                .isEqualTo(DatReturn.PRIVILEGES_VIOLATION);
        assertThat(DatReturn.typeOf(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(readOnly, 0, 16)}, 0, 0)))
                .isEqualTo(DatReturn.PRIVILEGES_VIOLATION);
        assertThat(DatReturn.typeOf(ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(foreign, 0, 16)}, 0, 0)))
                .isEqualTo(DatReturn.PROTECTION_VIOLATION);
        assertThat(DatReturn.typeOf(ep.postSend(99, new LmrTriplet[1], 0, 0))).isEqualTo(DatReturn.INVALID_PARAMETER);
        assertThat(DatReturn.typeOf(ep.postSend(1, null, 0, 0))).isEqualTo(DatReturn.INVALID_PARAMETER);
        assertThat(DatReturn.typeOf(ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(readOnly, 0, 4096)}, 0,
                new RmrTriplet(1, 0, 16), 0))).isEqualTo(DatReturn.LENGTH_ERROR);
        assertThat(dtoEvd.dequeue(event)).isEqualTo(DatReturn.error(DatReturn.QUEUE_EMPTY, 0));
        foreign.close();
        otherPz.close();
    }

    @Test
    void freedHandlesAnswerInvalidHandle() {
        Endpoint ep = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        LocalMemoryRegion lmr = lmr(4096, MemPrivileges.ALL);
        ep.close();
        ep.close();
        assertThat(DatReturn.typeOf(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 16)}, 0, 0)))
                .isEqualTo(DatReturn.INVALID_HANDLE);
        lmr.close();
        assertThatThrownBy(lmr::query).isInstanceOf(DatException.class);
        assertThatCode(pz::close).doesNotThrowAnyException();
        assertThat(DatReturn.typeOf(dtoEvd.dequeue(event))).isEqualTo(DatReturn.QUEUE_EMPTY);
        dtoEvd.close();
        assertThat(DatReturn.typeOf(dtoEvd.dequeue(event))).isEqualTo(DatReturn.INVALID_HANDLE);
    }

    @Test
    void evdWaitTimesOutAndPostedSoftwareEventsArrive() {
        EventDispatcher evd = ia.createEventDispatcher(4, null, EvdFlags.SOFTWARE | EvdFlags.DTO);
        assertThat(evd.await(20_000, 1, event)).isEqualTo(DatReturn.error(DatReturn.TIMEOUT_EXPIRED, 0));
        Object payload = new Object();
        assertThat(evd.postSoftwareEvent(payload)).isEqualTo(DatReturn.SUCCESS);
        assertThat(evd.await(WAIT, 1, event)).isEqualTo(DatReturn.SUCCESS);
        assertThat(event.eventNumber()).isEqualTo(EventNumber.SOFTWARE_EVENT);
        assertThat(event.softwarePointer()).isSameAs(payload);
    }

    @Test
    void cnoWakesOnACompletionOfAnAttachedEvd() throws Exception {
        var cno = ia.createNotificationObject(null);
        EventDispatcher evd = ia.createEventDispatcher(64, cno, EvdFlags.DTO);
        Endpoint[] pair = connect(null, null, evd);
        LocalMemoryRegion buffer = lmr(4096, MemPrivileges.ALL);
        assertThatThrownBy(() -> cno.await(50_000)).isInstanceOf(DatException.class)
                .satisfies(x -> assertThat(((DatException) x).type()).isEqualTo(DatReturn.QUEUE_EMPTY));
        Thread poster = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
            pair[0].postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(buffer, 0, 64)}, 5, RmrTriplet.of(buffer, 1024, 64), 0);
        });
        assertThat(cno.await(WAIT)).isSameAs(evd);
        poster.join();
        assertThat(evd.dequeue(event)).isEqualTo(DatReturn.SUCCESS);
        assertThat(event.userCookie()).isEqualTo(5);
        // dat_evd_wait(3DAT): a consumer may wait on an EVD with a CNO; the next event wakes it.
        assertThat(pair[0].postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(buffer, 0, 64)}, 6, RmrTriplet.of(buffer, 2048, 64), 0))
                .isEqualTo(DatReturn.SUCCESS);
        assertThat(evd.await(WAIT, 1, event)).isEqualTo(DatReturn.SUCCESS);
        assertThat(event.userCookie()).isEqualTo(6);
    }

    /** A CQ overrun by completions nobody dequeues loses them: its IBV_EVENT_CQ_ERR is the EVD's overflow. */
    @Test
    void anOverrunCqIsAnEvdOverflowOnTheAsyncEvd() {
        EventDispatcher small = ia.createEventDispatcher(4, null, EvdFlags.DTO);
        Endpoint[] pair = connect(null, null, small);
        LocalMemoryRegion buffer = lmr(4096, MemPrivileges.ALL);
        int posted = 0;
        while (posted < 64 && pair[0].postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(buffer, 0, 8)}, posted,
                RmrTriplet.of(buffer, 1024, 8), 0) == DatReturn.SUCCESS) {
            posted++; // the device may fail the QP once its CQ overran
        }
        assertThat(posted).as("writes posted, each asking for a completion").isGreaterThan(8);
        EventDispatcher async = ia.query().asyncEvd();
        DatEvent e = await(async);
        while (e.eventNumber() != EventNumber.ASYNC_ERROR_EVD_OVERFLOW) {
            assertThat(e.eventNumber()).as("%s", e).isEqualTo(EventNumber.ASYNC_ERROR_EP_BROKEN);
            e = await(async);
        }
        assertThat(e.asyncHandle()).isSameAs(small);
        assertThat(e.asyncReason()).isEqualTo(AsyncErrorReason.EVD_OVERFLOW_ERROR);
    }

    @Test
    void sharedReceiveQueueFeedsEndpointsAndRaisesTheLowWatermark() {
        SharedReceiveQueue srq = ia.createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(16).maxRecvIov(1).build());
        PublicServicePoint psp = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        Endpoint client = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        Endpoint server = ia.createEndpointWithSrq(pz, dtoEvd, dtoEvd, connEvd, srq, dat.api.EpAttributes.providerDefaults());
        LocalMemoryRegion buffers = lmr(16 * 256, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        for (int i = 0; i < 4; i++) {
            assertThat(srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(buffers, i * 256L, 256)}, 100 + i))
                    .isEqualTo(DatReturn.SUCCESS);
        }
        srq.setLowWatermark(3);
        assertThat(DatReturn.typeOf(server.postRecv(1, new LmrTriplet[] {LmrTriplet.of(buffers, 0, 16)}, 0, 0)))
                .isEqualTo(DatReturn.INVALID_STATE);
        client.connect(address(), psp.connQual(), WAIT, null, 0, 0);
        await(crEvd).connectionRequest().accept(server, null);
        await(connEvd);
        await(connEvd);
        LocalMemoryRegion source = lmr(256, MemPrivileges.LOCAL_READ);
        source.memory().set(ValueLayout.JAVA_INT, 0, 0xCAFE);
        assertThat(client.postSend(1, new LmrTriplet[] {LmrTriplet.of(source, 0, 4)}, 1, 0)).isEqualTo(DatReturn.SUCCESS);
        assertThat(client.postSend(1, new LmrTriplet[] {LmrTriplet.of(source, 0, 4)}, 2, 0)).isEqualTo(DatReturn.SUCCESS);
        int receives = 0;
        int sends = 0;
        while (receives + sends < 4) {
            DatEvent e = await(dtoEvd);
            assertThat(e.status()).as("%s", e).isEqualTo(DtoCompletionStatus.SUCCESS);
            if (e.endpoint() == server) {
                assertThat(e.userCookie()).isBetween(100L, 103L);
                assertThat(e.transferredLength()).isEqualTo(4);
                receives++;
            } else {
                sends++;
            }
        }
        assertThat(buffers.memory().get(ValueLayout.JAVA_INT, 0)).isEqualTo(0xCAFE);
        EventDispatcher async = ia.query().asyncEvd();
        DatEvent e = await(async);
        assertThat(e.asyncHandle()).isSameAs(srq);
        assertThat(e.asyncReason()).isEqualTo(AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT);
        assertThatThrownBy(srq::close).isInstanceOf(DatException.class);
    }

    @Test
    void postAndPollAllocateNothing() {
        Endpoint[] pair = connect(null, null);
        LocalMemoryRegion buffer = lmr(8192, MemPrivileges.ALL);
        LmrTriplet[] iov = {LmrTriplet.of(buffer, 0, 64)};
        RmrTriplet target = RmrTriplet.of(buffer, 4096, 64);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().threadId();
        long allocated = Long.MAX_VALUE;
        StringBuilder rounds = new StringBuilder();
        for (int round = 0; round < 8 && allocated > 0; round++) {
            long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < 2000; i++) {
                int rc = pair[0].postRdmaWrite(1, iov, i, target, 0);
                if (rc != DatReturn.SUCCESS) {
                    throw new AssertionError(DatReturn.describe(rc));
                }
                while (dtoEvd.dequeue(event) != DatReturn.SUCCESS) {
                    Thread.onSpinWait();
                }
            }
            long bytes = threads.getThreadAllocatedBytes(id) - before;
            rounds.append(bytes).append(' ');
            allocated = Math.min(allocated, bytes);
        }
        System.out.println("RdmaDeviceTest: post RDMA write + dequeue, bytes allocated per round of 2000 operations: "
                + rounds.toString().trim());
        // one object per operation would be at least 16 B x 2000; what is left is the JIT settling (deoptimization)
        assertThat(allocated).as("bytes allocated by 2000 post+poll in the best round").isLessThan(1024);
    }

    @Test
    void providerStopWithOpenIasFailsThemCatastrophically() throws Exception {
        VerbsRuntime own = VerbsRuntime.start();
        DatIaFactory stopping = own.factories().get(0); // of its own runtime, not the rig's factory
        InterfaceAdapter doomed = stopping.openIa(new IaOpenRequest((String) stopping.properties().get("dat.ia.name"), 8, null, ""));
        ProtectionZone doomedPz = doomed.createProtectionZone();
        EventDispatcher evd = doomed.createEventDispatcher(16, null, EvdFlags.DTO);
        EventDispatcher conn = doomed.createEventDispatcher(16, null, EvdFlags.CONNECTION | EvdFlags.CR);
        Endpoint ep = doomed.createEndpoint(doomedPz, evd, evd, conn, null);
        LocalMemoryRegion lmr = doomed.registerMemory(arena.allocate(4096, 4096), doomedPz, MemPrivileges.ALL);
        assertThat(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 64)}, 1, 0)).isEqualTo(DatReturn.SUCCESS);
        EventDispatcher async = doomed.query().asyncEvd();
        DatEvent asyncEvent = new DatEvent();
        int[] waitResult = new int[2];
        Thread asyncWaiter = Thread.ofPlatform().start(() ->
                waitResult[0] = async.await(DatConstants.TIMEOUT_INFINITE, 1, asyncEvent));
        Thread dtoWaiter = Thread.ofPlatform().start(() ->
                waitResult[1] = evd.await(DatConstants.TIMEOUT_INFINITE, 1, new DatEvent()));
        Thread.sleep(300);
        own.close();
        asyncWaiter.join(10_000);
        dtoWaiter.join(10_000);
        assertThat(asyncWaiter.isAlive()).isFalse();
        assertThat(dtoWaiter.isAlive()).isFalse();
        assertThat(waitResult[0]).isEqualTo(DatReturn.SUCCESS);
        assertThat(asyncEvent.eventNumber()).isEqualTo(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC);
        assertThat(DatReturn.typeOf(waitResult[1])).isIn(DatReturn.ABORT, DatReturn.INVALID_HANDLE);
        assertThat(doomed.isOpen()).isFalse();
        assertThat(DatReturn.typeOf(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 64)}, 1, 0)))
                .isEqualTo(DatReturn.INVALID_HANDLE);
        assertThatThrownBy(doomed::createProtectionZone).isInstanceOf(DatException.class);
        assertThat(stopping.properties()).isNotEmpty();
        assertThatThrownBy(() -> stopping.openIa(new IaOpenRequest("ofa-v2-x", 8, null, ""))).isInstanceOf(DatException.class);
    }
}
