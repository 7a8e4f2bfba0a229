package dat.provider.sim.internal.core;

import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;

import static dat.provider.sim.internal.Codes.isType;
import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.Codes.throwsCode;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.RmrTriplet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** dat_ep_post_send/recv/rdma_read/rdma_write: data, completion flags and every return code. */
@Timeout(30)
class DtoTest {

    private final Fabric f = new Fabric();
    private final Fabric.Pair p = f.new Pair();
    private final Fabric.Side a = p.a;
    private final Fabric.Side b = p.b;

    @AfterEach
    void close() {
        f.close();
    }

    private static void fill(MemorySegment m, long offset, int len, int seed) {
        for (int i = 0; i < len; i++) {
            m.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (seed + i * 31));
        }
    }

    private static LmrTriplet[] iov(LmrTriplet... t) {
        return t;
    }

    private DatEvent sendCompletion() {
        return a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
    }

    private DatEvent recvCompletion() {
        return b.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
    }

    @Test
    void dat_ep_post_send_gathersAndPostRecvScattersFrontSegmentsFirst() {
        fill(a.mem, 0, 10, 1);
        fill(a.mem, 100, 25, 2);
        fill(a.mem, 200, 5, 3);
        ok(b.ep.postRecv(3, iov(LmrTriplet.of(b.lmr, 1000, 12), LmrTriplet.of(b.lmr, 2000, 12), LmrTriplet.of(b.lmr, 3000, 100)), 1, 0));
        ok(a.ep.postSend(3, iov(LmrTriplet.of(a.lmr, 0, 10), LmrTriplet.of(a.lmr, 100, 25), LmrTriplet.of(a.lmr, 200, 5)), 2, 0));
        DatEvent r = recvCompletion();
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(r.transferredLength()).isEqualTo(40);
        assertThat(r.endpoint()).isSameAs(b.ep);
        Fabric.assertGatheredAndScattered(a, b);
        assertThat(sendCompletion().transferredLength()).isEqualTo(40);
    }

    /**
     * A send that finds no receive and the receive posted at that moment from another thread: one
     * of the two carries the send on (the post's look at the stall flag after publishing, the
     * sender's second look at the ring after raising it), so every send completes, in order, with
     * its bytes; a lost wake-up leaves a send waiting and the wait for its completion times out.
     */
    @Test
    void dat_ep_post_recv_racingASendThatFindsNoReceive_neitherIsLost() throws Exception {
        int rounds = 20_000;
        java.util.concurrent.CompletableFuture<Void> receiver = java.util.concurrent.CompletableFuture.runAsync(() -> {
            DatEvent e = new DatEvent();
            java.util.SplittableRandom rnd = new java.util.SplittableRandom(7);
            for (int i = 0; i < rounds; i++) {
                for (int spin = rnd.nextInt(64); spin > 0; spin--) {
                    Thread.onSpinWait();
                }
                long at = 4096 + (i % 16) * 8L;
                ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, at, 8)), i, 0));
                Fabric.Side.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT, e);
                assertThat(e.userCookie()).isEqualTo(i);
                assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                assertThat(b.mem.get(ValueLayout.JAVA_LONG, at)).isEqualTo(i * 3L);
            }
        }, runnable -> {
            Thread t = new Thread(runnable, "racing-receiver");
            t.setDaemon(true);
            t.start();
        });
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(11);
        for (int i = 0; i < rounds; i++) {
            for (int spin = rnd.nextInt(64); spin > 0; spin--) {
                Thread.onSpinWait();
            }
            long at = (i % 16) * 8L;
            a.mem.set(ValueLayout.JAVA_LONG, at, i * 3L);
            ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, at, 8)), i, 0));
            DatEvent e = sendCompletion();
            assertThat(e.userCookie()).isEqualTo(i);
            assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        receiver.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(b.ep.recvQuery().nbufsAllocated()).isZero();
    }

    @Test
    void dat_ep_post_send_zeroLengthMessage() {
        ok(b.ep.postRecv(0, null, 1, 0));
        ok(a.ep.postSend(0, null, 2, 0));
        assertThat(recvCompletion().transferredLength()).isZero();
        assertThat(sendCompletion().status()).isEqualTo(DtoCompletionStatus.SUCCESS);
    }

    @Test
    void dat_ep_post_send_beforeAReceiveWaitsForIt_inOrderWithLaterRequests() {
        Fabric.assertASendWaitsForItsReceive_inOrderWithLaterRequests(a, b);
    }

    @Test
    void dat_ep_post_recv_DAT_DTO_ERR_LOCAL_LENGTH_whenTheMessageIsLarger_theSenderSeesARemoteError() {
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 4)), 1, 0));
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 4)), 2, 0));
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 3, 0));
        DatEvent r = recvCompletion();
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_LENGTH);
        assertThat(recvCompletion().status()).as("the connection broke: the rest is flushed").isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(sendCompletion().status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_RESPONDER);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    @Test
    void dat_ep_post_send_INVALID_PARAMETER_forASegmentOutsideItsLmr_orABadCount() {
        isType(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 65530, 10)), 1, 0), DatReturn.INVALID_PARAMETER);
        isType(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, -1, 10)), 1, 0), DatReturn.INVALID_PARAMETER);
        isType(a.ep.postSend(2, iov(LmrTriplet.of(a.lmr, 0, 10)), 1, 0), DatReturn.INVALID_PARAMETER);
        isType(a.ep.postSend(-1, null, 1, 0), DatReturn.INVALID_PARAMETER);
        isType(a.ep.postSend(9, new LmrTriplet[9], 1, 0), DatReturn.INVALID_PARAMETER); // more than max_request_iov
        isType(a.ep.postSend(0, null, 1, 0x100), DatReturn.INVALID_PARAMETER);
        isType(a.reqEvd.dequeue(a.event), DatReturn.QUEUE_EMPTY);
    }

    @Test
    void dat_ep_post_send_PROTECTION_VIOLATION_forAnLmrOfAnotherPz() {
        ProtectionZone other = a.ia.createProtectionZone();
        LocalMemoryRegion foreign = a.ia.registerMemory(f.memory(64), other, MemPrivileges.ALL);
        isType(a.ep.postSend(1, iov(LmrTriplet.of(foreign, 0, 8)), 1, 0), DatReturn.PROTECTION_VIOLATION);
        isType(b.ep.postRecv(1, iov(LmrTriplet.of(foreign, 0, 8)), 1, 0), DatReturn.PRIVILEGES_VIOLATION); // another IA's LMR
        isType(a.ep.postRecv(1, iov(LmrTriplet.of(foreign, 0, 8)), 1, 0), DatReturn.PROTECTION_VIOLATION);
        isType(a.ep.postRdmaRead(1, iov(LmrTriplet.of(foreign, 0, 8)), 1, RmrTriplet.of(b.lmr, 0, 8), 0),
                DatReturn.PROTECTION_VIOLATION);
    }

    @Test
    void dat_ep_post_send_PRIVILEGES_VIOLATION_forAnUnknownContextOrAMissingLocalPrivilege() {
        isType(a.ep.postSend(1, iov(new LmrTriplet(0x5eed, 0, 8)), 1, 0), DatReturn.PRIVILEGES_VIOLATION);
        LocalMemoryRegion writeOnly = a.ia.registerMemory(f.memory(64), a.pz, MemPrivileges.LOCAL_WRITE);
        LocalMemoryRegion readOnly = a.ia.registerMemory(f.memory(64), a.pz, MemPrivileges.LOCAL_READ);
        isType(a.ep.postSend(1, iov(LmrTriplet.of(writeOnly, 0, 8)), 1, 0), DatReturn.PRIVILEGES_VIOLATION);
        isType(a.ep.postRecv(1, iov(LmrTriplet.of(readOnly, 0, 8)), 1, 0), DatReturn.PRIVILEGES_VIOLATION);
        isType(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(writeOnly, 0, 8)), 1, RmrTriplet.of(b.lmr, 0, 8), 0),
                DatReturn.PRIVILEGES_VIOLATION);
        isType(a.ep.postRdmaRead(1, iov(LmrTriplet.of(readOnly, 0, 8)), 1, RmrTriplet.of(b.lmr, 0, 8), 0),
                DatReturn.PRIVILEGES_VIOLATION);
        LocalMemoryRegion freed = a.ia.registerMemory(f.memory(64), a.pz, MemPrivileges.ALL);
        LmrTriplet[] stale = iov(LmrTriplet.of(freed, 0, 8));
        freed.close();
        isType(a.ep.postSend(1, stale, 1, 0), DatReturn.PRIVILEGES_VIOLATION);
    }

    @Test
    void dat_ep_post_send_INVALID_STATE_unlessConnectedOrDisconnected_disconnectedFlushesAtOnce() {
        Endpoint idle = a.ia.createEndpoint(a.pz, a.recvEvd, a.reqEvd, null, null);
        isType(idle.postSend(0, null, 1, 0), DatReturn.INVALID_STATE);
        isType(idle.postRdmaWrite(0, null, 1, RmrTriplet.of(b.lmr, 0, 0), 0), DatReturn.INVALID_STATE);
        isType(idle.postRdmaRead(0, null, 1, RmrTriplet.of(b.lmr, 0, 0), 0), DatReturn.INVALID_STATE);
        a.ep.disconnect(dat.api.CloseFlag.ABRUPT);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        ok(a.ep.postSend(0, null, 9, 0));
        DatEvent e = sendCompletion();
        assertThat(e.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(e.userCookie()).isEqualTo(9);
        ok(a.ep.postRecv(0, null, 10, 0));
        assertThat(a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    @Test
    void dat_ep_post_recv_validInEveryState_preposedReceivesServeTheConnection() {
        try (Fabric g = new Fabric()) {
            Fabric.Side x = g.new Side("sim0", null, 4096);
            Fabric.Side y = g.new Side("sim1", null, 4096);
            ok(y.ep.postRecv(1, iov(LmrTriplet.of(y.lmr, 0, 16)), 77, 0)); // UNCONNECTED
            y.ia.createPublicServicePoint(1, y.crEvd, dat.api.PspFlag.CONSUMER);
            x.ep.connect(y.address(), 1, Fabric.WAIT, null, 0, 0);
            y.expect(y.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(y.ep, null);
            x.expect(x.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            ok(x.ep.postSend(1, iov(LmrTriplet.of(x.lmr, 0, 16)), 1, 0));
            assertThat(y.expect(y.recvEvd, EventNumber.DTO_COMPLETION_EVENT).userCookie()).isEqualTo(77);
        }
    }

    @Test
    void dat_ep_post_INSUFFICIENT_RESOURCES_pastMaxRecvAndRequestDtos() {
        try (Fabric g = new Fabric()) {
            Fabric.Pair q = g.new Pair(EpAttributes.builder().maxRecvDtos(2).maxRequestDtos(2).build(), 4096);
            ok(q.b.ep.postRecv(0, null, 1, 0));
            ok(q.b.ep.postRecv(0, null, 2, 0));
            isType(q.b.ep.postRecv(0, null, 3, 0), DatReturn.INSUFFICIENT_RESOURCES);
            ok(q.b.ep.postSend(0, null, 1, 0)); // no receive on the other side: both wait
            ok(q.b.ep.postSend(0, null, 2, 0));
            isType(q.b.ep.postSend(0, null, 3, 0), DatReturn.INSUFFICIENT_RESOURCES);
            ok(q.a.ep.postRecv(0, null, 4, 0));
            assertThat(q.b.expect(q.b.reqEvd, EventNumber.DTO_COMPLETION_EVENT).userCookie()).isEqualTo(1);
            ok(q.b.ep.postSend(0, null, 3, 0));
        }
    }

    /**
     * A receive ring kept full (dat_ep_post_recv(3DAT): max_recv_dtos outstanding): a receive
     * reposted once the completion of the first was dequeued takes the slot it freed, and the
     * post after it is refused again; the messages land in the order their receives were posted.
     */
    @Test
    void dat_ep_post_recv_aRepostAfterTheDequeueTakesTheFreedSlotAndNoMore() {
        try (Fabric g = new Fabric()) {
            Fabric.Pair q = g.new Pair(EpAttributes.builder().maxRecvDtos(3).build(), 4096);
            for (int i = 0; i < 3; i++) {
                ok(q.b.ep.postRecv(0, null, i, 0));
            }
            isType(q.b.ep.postRecv(0, null, 99, 0), DatReturn.INSUFFICIENT_RESOURCES);
            for (int round = 0; round < 10; round++) {
                ok(q.a.ep.postSend(0, null, round, CompletionFlags.SUPPRESS));
                assertThat(q.b.expect(q.b.recvEvd, EventNumber.DTO_COMPLETION_EVENT).userCookie()).isEqualTo(round);
                ok(q.b.ep.postRecv(0, null, 3 + round, 0));
                isType(q.b.ep.postRecv(0, null, 99, 0), DatReturn.INSUFFICIENT_RESOURCES);
            }
            assertThat(q.b.ep.recvQuery().nbufsAllocated()).isEqualTo(3);
        }
    }

    @Test
    void dat_completion_SUPPRESS_dropsTheEventOfASuccessfulRequest() {
        ok(b.ep.postRecv(0, null, 1, 0));
        ok(b.ep.postRecv(0, null, 2, 0));
        ok(a.ep.postSend(0, null, 1, CompletionFlags.SUPPRESS));
        ok(a.ep.postSend(0, null, 2, 0));
        assertThat(sendCompletion().userCookie()).isEqualTo(2);
        isType(a.reqEvd.dequeue(a.event), DatReturn.QUEUE_EMPTY);
        assertThat(recvCompletion().userCookie()).isEqualTo(1); // the receiver still sees both
    }

    @Test
    void dat_completion_UNSIGNALLED_needsTheEndpointAttribute_andDoesNotWakeAWaiter() throws Exception {
        isType(a.ep.postSend(0, null, 1, CompletionFlags.UNSIGNALLED), DatReturn.INVALID_PARAMETER);
        isType(b.ep.postRecv(0, null, 1, CompletionFlags.UNSIGNALLED), DatReturn.INVALID_PARAMETER);
        isType(a.ep.postRdmaWrite(0, null, 1, RmrTriplet.of(b.lmr, 0, 0), CompletionFlags.UNSIGNALLED), DatReturn.INVALID_PARAMETER);
        try (Fabric g = new Fabric()) {
            Fabric.Pair q = g.new Pair(EpAttributes.builder().requestCompletionFlags(CompletionFlags.UNSIGNALLED).build(), 4096);
            ok(q.b.ep.postRecv(0, null, 1, 0));
            ok(q.a.ep.postSend(0, null, 1, CompletionFlags.UNSIGNALLED));
            // the event is queued, but an unsignalled completion does not satisfy a wait by itself
            isType(q.a.reqEvd.await(20_000, 2, q.a.event), DatReturn.INVALID_STATE); // threshold > 1 on an unsignalled stream
            ok(q.a.reqEvd.dequeue(q.a.event));
            assertThat(q.a.event.userCookie()).isEqualTo(1);
        }
    }

    @Test
    void dat_completion_SOLICITED_WAIT_onlySolicitedReceivesNotify() throws Exception {
        try (Fabric g = new Fabric()) {
            Fabric.Pair q = g.new Pair(EpAttributes.builder().recvCompletionFlags(CompletionFlags.SOLICITED_WAIT).build(), 4096);
            assertThat(q.b.recvEvd.query().state() & dat.api.EvdState.CONFIG_SOLICITED).isNotZero();
            ok(q.b.ep.postRecv(0, null, 1, 0));
            ok(q.b.ep.postRecv(0, null, 2, 0));
            var cno = q.b.ia.createNotificationObject(null);
            q.b.recvEvd.modifyCno(cno);
            ok(q.a.ep.postSend(0, null, 1, 0));
            Codes.throwsType(() -> cno.await(20_000), DatReturn.QUEUE_EMPTY); // unsolicited: no notification
            ok(q.a.ep.postSend(0, null, 2, CompletionFlags.SOLICITED_WAIT));
            assertThat(cno.await(Fabric.WAIT)).isSameAs(q.b.recvEvd);
            ok(q.b.recvEvd.dequeue(q.b.event));
            ok(q.b.recvEvd.dequeue(q.b.event));
            assertThat(q.b.event.userCookie()).isEqualTo(2);
        }
    }

    @Test
    void dat_completion_BARRIER_FENCE_andEvdThresholdAreAccepted() {
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, RmrTriplet.of(b.lmr, 0, 8), 0));
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, RmrTriplet.of(b.lmr, 8, 8),
                CompletionFlags.BARRIER_FENCE | CompletionFlags.EVD_THRESHOLD));
        ok(a.reqEvd.await(Fabric.WAIT, 2, a.event));
        assertThat(a.event.userCookie()).isEqualTo(1);
        assertThat(a.event.moreEvents()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void dat_ep_post_rdma_write_LENGTH_ERROR_whenTheRemoteBufferIsSmaller() {
        isType(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 16)), 1, RmrTriplet.of(b.lmr, 0, 8), 0), DatReturn.LENGTH_ERROR);
        isType(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 16)), 1, null, 0), DatReturn.INVALID_PARAMETER);
    }

    @Test
    void dat_ep_post_rdma_read_LENGTH_ERROR_whenTheLocalBufferIsSmaller() {
        isType(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, RmrTriplet.of(b.lmr, 0, 16), 0), DatReturn.LENGTH_ERROR);
    }

    @Test
    void dat_ep_post_rdma_read_scattersIntoFrontSegments() {
        fill(b.mem, 4000, 30, 9);
        ok(a.ep.postRdmaRead(2, iov(LmrTriplet.of(a.lmr, 0, 20), LmrTriplet.of(a.lmr, 100, 20)), 1, RmrTriplet.of(b.lmr, 4000, 30), 0));
        DatEvent e = sendCompletion();
        assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(e.transferredLength()).isEqualTo(30);
        assertThat(a.mem.asSlice(0, 20).mismatch(b.mem.asSlice(4000, 20))).isEqualTo(-1);
        assertThat(a.mem.asSlice(100, 10).mismatch(b.mem.asSlice(4020, 10))).isEqualTo(-1);
    }

    @Test
    void dat_ep_post_rdma_write_ERR_REMOTE_ACCESS_outsideTheRemoteRegion_breaksTheConnection() {
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 16)), 1, RmrTriplet.of(b.lmr, (1 << 16) - 8, 16), 0));
        assertThat(sendCompletion().status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThat(b.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, (1 << 16) - 8)).isZero();
    }

    @Test
    void dat_ep_post_rdma_ERR_REMOTE_ACCESS_forAForgedContext() {
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, new RmrTriplet(b.lmr.rmrContext() ^ 1, b.lmr.registeredAddress(), 8), 0));
        assertThat(sendCompletion().status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
    }

    @Test
    void dat_ep_post_rdma_ERR_REMOTE_ACCESS_withoutTheRemotePrivilege() {
        LocalMemoryRegion noRemoteWrite = b.ia.registerMemory(f.memory(64), b.pz, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE
                | MemPrivileges.REMOTE_READ);
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, RmrTriplet.of(noRemoteWrite, 0, 8), 0));
        assertThat(sendCompletion().status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, RmrTriplet.of(noRemoteWrite, 0, 8), 0));
        assertThat(sendCompletion().status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
    }

    @Test
    void dat_ep_post_rdma_ERR_REMOTE_ACCESS_forARegionOfAnotherPzThanTheTargetEndpoint() {
        ProtectionZone other = b.ia.createProtectionZone();
        LocalMemoryRegion elsewhere = b.ia.registerMemory(f.memory(64), other, MemPrivileges.ALL);
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, RmrTriplet.of(elsewhere, 0, 8), 0));
        assertThat(sendCompletion().status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
    }

    @Test
    void dat_lmr_free_theRmrContextOfAFreedLmrIsRefused() {
        LocalMemoryRegion gone = b.ia.registerMemory(f.memory(64), b.pz, MemPrivileges.ALL);
        RmrTriplet remote = RmrTriplet.of(gone, 0, 8);
        gone.close();
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, remote, 0));
        assertThat(sendCompletion().status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
    }

    @Test
    void rdmaCompletesWhileTheTargetConsumerNeverCallsIn() throws Exception {
        fill(a.mem, 0, 1024, 3);
        Thread initiator = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 100; i++) {
                a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 1024)), i, RmrTriplet.of(b.lmr, 8192, 1024), 0);
                a.reqEvd.await(Fabric.WAIT, 1, new DatEvent());
            }
        });
        initiator.join(10_000);
        assertThat(initiator.isAlive()).isFalse();
        assertThat(b.mem.asSlice(8192, 1024).mismatch(a.mem.asSlice(0, 1024))).isEqualTo(-1);
    }

    /**
     * dat_ep_modify(3DAT) lowering max_recv_iov below the segments of a preposted receive is an
     * invalid attribute value (as fewer max_recv_dtos than are posted): DAT_INVALID_PARAMETER for
     * the ep_param argument, and nothing changes; the receive keeps its segments.
     */
    @Test
    void dat_ep_modify_maxRecvIovBelowAPostedReceive_INVALID_PARAMETER_andNothingChanges() {
        Endpoint fresh = b.ia.createEndpoint(b.pz, b.recvEvd, b.reqEvd, b.connEvd, EpAttributes.builder().maxRecvIov(4).build());
        ok(fresh.postRecv(3, iov(LmrTriplet.of(b.lmr, 0, 8), LmrTriplet.of(b.lmr, 8, 8), LmrTriplet.of(b.lmr, 16, 8)), 7, 0));
        EpParams two = EpParams.builder().attributes(EpAttributes.builder().maxRecvIov(2).maxRecvDtos(4).build()).build();
        throwsCode(() -> fresh.modify(EpParamMask.EP_ATTR_MAX_RECV_IOV | EpParamMask.EP_ATTR_MAX_RECV_DTOS, two),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        assertThat(fresh.query().attributes().maxRecvIov()).isEqualTo(4);
        assertThat(fresh.query().attributes().maxRecvDtos()).isNotEqualTo(4);
        assertThat(fresh.recvQuery().nbufsAllocated()).isEqualTo(1);
        fresh.modify(EpParamMask.EP_ATTR_MAX_RECV_IOV, EpParams.builder().attributes(EpAttributes.builder().maxRecvIov(3).build()).build());
        assertThat(fresh.query().attributes().maxRecvIov()).isEqualTo(3);
        fresh.close(); // flushes the receive, still whole
        DatEvent flushed = recvCompletion();
        assertThat(flushed.userCookie()).isEqualTo(7);
        assertThat(flushed.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    /**
     * dat_ep_set_watermark(3DAT): a connection breaks when the Endpoint holds more receive buffers
     * than the hard high watermark; without an SRQ a buffer is held from its post
     * (dat_ep_recv_query(3DAT)), so the post beyond it breaks the connection, on both sides, and
     * the receives complete flushed.
     */
    @Test
    void dat_ep_set_watermark_aReceivePostedBeyondTheHardWatermarkBreaksTheConnection() {
        b.ep.setWatermark(DatConstants.WATERMARK_INFINITE, 1);
        ok(b.ep.postRecv(0, null, 1, 0));
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        ok(b.ep.postRecv(0, null, 2, 0));
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        for (int cookie = 1; cookie <= 2; cookie++) {
            DatEvent r = recvCompletion();
            assertThat(r.userCookie()).isEqualTo(cookie);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        }
        assertThat(b.expect(b.ia.query().asyncEvd(), EventNumber.ASYNC_ERROR_EP_BROKEN).asyncHandle()).isSameAs(b.ep);
    }

    /**
     * "the Provider is ready to generate a connection broken event as soon as the connection is
     * established" (dat_ep_set_watermark(3DAT)): receives preposted beyond the hard watermark break
     * the connection right after ESTABLISHED, on both sides.
     */
    @Test
    void dat_ep_set_watermark_receivesPrepostedBeyondTheHardWatermarkBreakTheConnectionOnceEstablished() {
        Endpoint active = a.ia.createEndpoint(a.pz, a.recvEvd, a.reqEvd, a.connEvd, null);
        ok(active.postRecv(0, null, 1, 0));
        ok(active.postRecv(0, null, 2, 0));
        active.setWatermark(DatConstants.WATERMARK_INFINITE, 1);
        Endpoint passive = b.ia.createEndpoint(b.pz, b.recvEvd, b.reqEvd, b.connEvd, null);
        active.connect(b.address(), 1000, Fabric.WAIT, null, 0, 0);
        b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(passive, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN).endpoint()).isSameAs(active);
        assertThat(b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN).endpoint()).isSameAs(passive);
    }

    /**
     * The EVDs let go of an Endpoint once it is freed, for the collector to reclaim it: of the
     * completions dequeued before the free (their records are no longer queued) and of those its
     * free flushed, dequeued after it; also when the EVD was resized between the Endpoint's
     * binding and its free.
     */
    @Test
    void dat_ep_free_theEvdsLetGoOfTheEndpoint() throws InterruptedException {
        java.lang.ref.WeakReference<Endpoint> dequeuedBefore = freedWithACompletion(true, false);
        java.lang.ref.WeakReference<Endpoint> flushedByFree = freedWithACompletion(false, false);
        java.lang.ref.WeakReference<Endpoint> resizedBetween = freedWithACompletion(true, true);
        for (long deadline = System.nanoTime() + 10_000_000_000L;
                (dequeuedBefore.get() != null || flushedByFree.get() != null || resizedBetween.get() != null)
                        && System.nanoTime() < deadline;) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(dequeuedBefore.get()).as("an Endpoint whose completion was dequeued before its free").isNull();
        assertThat(flushedByFree.get()).as("an Endpoint whose free flushed its receive").isNull();
        assertThat(resizedBetween.get()).as("an Endpoint freed after its EVD was resized").isNull();
    }

    /**
     * An Endpoint on the EVDs of side a with one receive completed flushed and dequeued, before or
     * after its free; {@code resize}: its receive EVD resized before the free.
     */
    private java.lang.ref.WeakReference<Endpoint> freedWithACompletion(boolean dequeueFirst, boolean resize) {
        Endpoint ep = a.ia.createEndpoint(a.pz, a.recvEvd, a.reqEvd, a.connEvd, null);
        ok(ep.postRecv(0, null, 1, 0));
        DatEvent e = new DatEvent();
        if (dequeueFirst) {
            ep.connect(b.address(), 4321, Fabric.WAIT, null, 0, 0); // no PSP there: refused, the receive flushed
            Fabric.Side.next(a.connEvd, e);
            Fabric.Side.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT, e);
            if (resize) {
                a.recvEvd.resize(a.recvEvd.query().qlen() + 3);
            }
            ep.close();
        } else {
            ep.close();
            Fabric.Side.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT, e);
        }
        assertThat(e.endpoint()).isSameAs(ep);
        assertThat(e.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        e.clear();
        return new java.lang.ref.WeakReference<>(ep);
    }
}
