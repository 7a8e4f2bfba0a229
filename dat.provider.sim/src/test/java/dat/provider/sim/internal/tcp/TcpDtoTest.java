package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.Dtos.drain;
import static dat.provider.sim.internal.tcp.Dtos.dto;
import static dat.provider.sim.internal.tcp.Dtos.fill;
import static dat.provider.sim.internal.tcp.Dtos.iov;
import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.api.RmrTriplet;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DTOs over the TCP transport between two providers: send/recv (SRQ too), RDMA write and read
 * with byte verification, the target side's checks, watermarks, fences and flushes, with the
 * completions of the in-JVM path.
 */
@Timeout(60)
class TcpDtoTest extends OnTcpPair {

    /**
     * An Endpoint that breaks its connection itself (here: a hard receive watermark set below the
     * receives it holds) breaks it for the TCP peer too, as in one JVM: the peer sees BROKEN, not
     * DISCONNECTED.
     */
    @Test
    void aBreakTheEndpointMakes_reachesTheTcpPeerAsBroken() {
        connect(b.ep);
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 1, 0));
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 64, 64)), 2, 0));
        b.ep.setWatermark(dat.api.DatConstants.WATERMARK_INFINITE, 1);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    /** As in one JVM (DtoTest): a receive posted beyond the hard watermark breaks the connection, for the TCP peer too. */
    @Test
    void aReceivePostedBeyondTheHardWatermark_breaksTheConnection_overTcp() {
        connect(b.ep);
        b.ep.setWatermark(dat.api.DatConstants.WATERMARK_INFINITE, 1);
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 1, 0));
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 64, 64)), 2, 0));
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    /**
     * As in one JVM (DtoTest): receives preposted beyond the hard watermark break the connection
     * once established; the active side here (its READY_TO_USE goes out before the break), the
     * passive side in the next test.
     */
    @Test
    void receivesPrepostedBeyondTheHardWatermark_breakTheConnectionOnceEstablished_activeSide_overTcp() {
        prepostBeyondTheHardWatermarkAndConnect(a, b);
    }

    @Test
    void receivesPrepostedBeyondTheHardWatermark_breakTheConnectionOnceEstablished_passiveSide_overTcp() {
        prepostBeyondTheHardWatermarkAndConnect(b, a);
    }

    /** Two receives on {@code side}'s Endpoint, its hard watermark 1, then a and b connect: both sides break, {@code side} first. */
    private void prepostBeyondTheHardWatermarkAndConnect(Fabric.Side side, Fabric.Side peer) {
        ok(side.ep.postRecv(0, null, 1, 0));
        ok(side.ep.postRecv(0, null, 2, 0));
        side.ep.setWatermark(dat.api.DatConstants.WATERMARK_INFINITE, 1);
        connect(b.ep);
        side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        peer.expect(peer.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /**
     * As in one JVM (SrqHotSwapTest): an SRQ buffer the reader takes beyond the hard watermark
     * breaks the connection for the TCP peer too; the buffer and the send complete flushed.
     */
    @Test
    void anSrqBufferTakenBeyondTheHardWatermark_breaksTheConnection_overTcp() {
        SharedReceiveQueue srq = b.ia.createSharedReceiveQueue(b.pz, SrqAttributes.builder().maxRecvDtos(4).build());
        Endpoint onSrq = b.ia.createEndpointWithSrq(b.pz, b.recvEvd, b.reqEvd, b.connEvd, srq, EpAttributes.providerDefaults());
        onSrq.setWatermark(dat.api.DatConstants.WATERMARK_INFINITE, 0);
        connect(onSrq);
        ok(srq.postRecv(0, null, 1));
        ok(a.ep.postSend(0, null, 11, 0));
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        DatEvent r = dto(b, true);
        assertThat(r.userCookie()).isEqualTo(1);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(srq.query().outstandingDtoCount()).isZero();
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    @Test
    void send_scattersIntoTheReceive_withBothCompletions() {
        connect(b.ep);
        fill(a.mem, 0, 10, 1);
        fill(a.mem, 100, 25, 2);
        fill(a.mem, 200, 5, 3);
        ok(b.ep.postRecv(3, iov(LmrTriplet.of(b.lmr, 1000, 12), LmrTriplet.of(b.lmr, 2000, 12), LmrTriplet.of(b.lmr, 3000, 100)), 1, 0));
        ok(a.ep.postSend(3, iov(LmrTriplet.of(a.lmr, 0, 10), LmrTriplet.of(a.lmr, 100, 25), LmrTriplet.of(a.lmr, 200, 5)), 2,
                CompletionFlags.SOLICITED_WAIT));
        DatEvent r = dto(b, true);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(r.transferredLength()).isEqualTo(40);
        assertThat(r.userCookie()).isEqualTo(1);
        Fabric.assertGatheredAndScattered(a, b);
        DatEvent s = dto(a, false);
        assertThat(s.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(s.transferredLength()).isEqualTo(40);
        assertThat(s.userCookie()).isEqualTo(2);
    }

    @Test
    void aSendBeforeAReceiveWaitsForIt_inOrderWithLaterRequests_andManyMessagesArriveInOrder() {
        connect(b.ep);
        fill(a.mem, 0, 8, 5);
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, 0));
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, RmrTriplet.of(b.lmr, 500, 8), 0));
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 8)), 3, 0));
        assertThat(dto(a, false).userCookie()).isEqualTo(1);
        assertThat(dto(a, false).userCookie()).isEqualTo(2);
        assertThat(b.mem.asSlice(500, 8).mismatch(a.mem.asSlice(0, 8))).isEqualTo(-1);
        assertThat(dto(b, true).userCookie()).isEqualTo(3);
        // 2,000 messages of varying size through a window of 16 receives
        SplittableRandom rnd = new SplittableRandom(11);
        int n = 2_000;
        for (int i = 0; i < 16; i++) {
            ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 8192 + i * 1024L, 1024)), i, 0));
        }
        int sent = 0;
        int received = 0;
        int sendsDone = 0;
        while (received < n) {
            while (sent < n && sent - sendsDone < 32) {
                int len = 1 + rnd.nextInt(1024);
                int slot = sent % 32;
                a.mem.asSlice(16384 + slot * 1024L, len).fill((byte) sent);
                ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 16384 + slot * 1024L, len)), len, 0));
                sent++;
            }
            if (received == sent) {
                // every message sent has landed; the window is full of sends not acknowledged yet
                assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                sendsDone++;
                continue;
            }
            DatEvent r = dto(b, true);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            long off = 8192 + r.userCookie() * 1024L;
            int len = (int) r.transferredLength();
            for (int k = 0; k < len; k++) {
                assertThat(b.mem.get(ValueLayout.JAVA_BYTE, off + k)).isEqualTo((byte) received);
            }
            received++;
            ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, off, 1024)), r.userCookie(), 0));
            while (a.reqEvd.dequeue(a.event) == 0) {
                assertThat(a.event.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                sendsDone++;
            }
        }
    }

    @Test
    void aPingPongWhoseEchoRepostsItsReceiveAfterReplying_completesEverySend() throws Exception {
        // the echo side replies before it reposts its receive, so the next ping can find no
        // receive (receiver not ready) and is sent again: every send still completes, in order
        connect(b.ep);
        int rounds = 3000;
        int[] echoed = {0};
        int pinged = 0;
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 0, 0));
        ok(a.ep.postRecv(1, iov(LmrTriplet.of(a.lmr, 4096, 64)), 0, 0));
        Thread echo = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < rounds; i++) {
                DatEvent got = dto(b, true);
                assertThat(got.status()).as("echo receive %d", i).isEqualTo(DtoCompletionStatus.SUCCESS);
                ok(b.ep.postSend(1, iov(LmrTriplet.of(b.lmr, 0, got.transferredLength())), i, 0));
                ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 0, 0));
                echoed[0] += drain(b.reqEvd); // as dat perf's server does: the ACKs may come later
            }
        });
        for (int i = 0; i < rounds; i++) {
            a.mem.set(ValueLayout.JAVA_INT, 0, i);
            ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), i, 0));
            DatEvent got = dto(a, true);
            assertThat(got.status()).as("reply %d", i).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(a.mem.get(ValueLayout.JAVA_INT, 4096)).as("the reply to ping %d", i).isEqualTo(i);
            ok(a.ep.postRecv(1, iov(LmrTriplet.of(a.lmr, 4096, 64)), 0, 0));
            pinged += drain(a.reqEvd);
        }
        echo.join(10_000);
        assertThat(echo.isAlive()).isFalse();
        for (long deadline = System.nanoTime() + 5_000_000_000L; (pinged < rounds || echoed[0] < rounds) && System.nanoTime() < deadline;) {
            pinged += drain(a.reqEvd);
            echoed[0] += drain(b.reqEvd);
        }
        assertThat(pinged).as("pings completed").isEqualTo(rounds);
        assertThat(echoed[0]).as("replies completed").isEqualTo(rounds);
    }

    @Test
    void aReceiveTooSmall_LOCAL_LENGTH_andREMOTE_RESPONDER_thenBothBreak() {
        connect(b.ep);
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 4)), 1, 0));
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 4)), 2, 0));
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 3, 0));
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_LENGTH);
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_RESPONDER);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    @Test
    void srqReceivesTakeSendsOverTcp() {
        SharedReceiveQueue srq = b.ia.createSharedReceiveQueue(b.pz, SrqAttributes.builder().maxRecvDtos(8).maxRecvIov(2).build());
        Endpoint onSrq = b.ia.createEndpointWithSrq(b.pz, b.recvEvd, b.reqEvd, b.connEvd, srq, EpAttributes.providerDefaults());
        connect(onSrq);
        fill(a.mem, 0, 64, 9);
        // the send arrives before any SRQ buffer: it waits for one
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 64)), 1, 0));
        ok(srq.postRecv(1, iov(LmrTriplet.of(b.lmr, 4096, 128)), 77));
        DatEvent r = dto(b, true);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(r.userCookie()).isEqualTo(77);
        assertThat(r.transferredLength()).isEqualTo(64);
        assertThat(b.mem.asSlice(4096, 64).mismatch(a.mem.asSlice(0, 64))).isEqualTo(-1);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
    }

    /** As in one JVM (SrqHotSwapTest): dat_ep_modify of srq_soft_hw arms the soft high watermark. */
    @Test
    void dat_ep_modify_srqSoftHighWatermark_armsTheWatermark_overTcp() {
        SharedReceiveQueue srq = b.ia.createSharedReceiveQueue(b.pz, SrqAttributes.builder().maxRecvDtos(4).build());
        Endpoint onSrq = b.ia.createEndpointWithSrq(b.pz, b.recvEvd, b.reqEvd, b.connEvd, srq, EpAttributes.providerDefaults());
        onSrq.modify(dat.api.EpParamMask.EP_ATTR_SRQ_SOFT_HW,
                dat.api.EpParams.builder().attributes(EpAttributes.builder().srqSoftHighWatermark(0).build()).build());
        connect(onSrq);
        ok(srq.postRecv(0, null, 1));
        ok(a.ep.postSend(0, null, 11, 0));
        assertThat(dto(b, true).userCookie()).isEqualTo(1);
        DatEvent e = b.expect(b.ia.query().asyncEvd(), EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR);
        assertThat(e.asyncHandle()).isSameAs(onSrq);
        assertThat(e.asyncReason()).isEqualTo(dat.api.AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT);
    }

    /** A private field of the connection once set (non-null, non-zero), read under the lock that guards it; 5 s at most. */
    private static Object awaitField(TcpConnection wire, String name) throws ReflectiveOperationException, InterruptedException {
        java.lang.reflect.Field f = TcpConnection.class.getDeclaredField(name);
        f.setAccessible(true);
        java.lang.reflect.Field lock = TcpConnection.class.getDeclaredField("dataPathLock");
        lock.setAccessible(true);
        for (long deadline = System.nanoTime() + 5_000_000_000L;; Thread.sleep(1)) {
            Object value;
            synchronized (lock.get(wire)) {
                value = f.get(wire);
            }
            if ((value != null && !Integer.valueOf(0).equals(value)) || System.nanoTime() > deadline) {
                return value;
            }
        }
    }

    /** {@code n} segments of {@code len} bytes, {@code stride} apart from {@code base}. */
    private static LmrTriplet[] segments(LocalMemoryRegion lmr, long base, int n, int len, int stride) {
        LmrTriplet[] t = new LmrTriplet[n];
        for (int i = 0; i < n; i++) {
            t[i] = LmrTriplet.of(lmr, base + (long) i * stride, len);
        }
        return t;
    }

    private static void assertSegmentsEqual(MemorySegment to, long toBase, MemorySegment from, long fromBase, int n, int len, int stride) {
        for (int i = 0; i < n; i++) {
            assertThat(to.asSlice(toBase + (long) i * stride, len).mismatch(from.asSlice(fromBase + (long) i * stride, len)))
                    .as("segment %d", i).isEqualTo(-1);
        }
    }

    @Test
    void anAcceptingEndpointWithMoreSegmentsThanTheDefault_sendsReceivesAndReadsThemAll() throws Exception {
        // the passive side allocates its copies of requests and receives while its consumer
        // decides, for the default attributes (8 segments); this accepting Endpoint's hold 12
        int n = 12;
        int len = 100;
        int stride = 128;
        EpAttributes wide = EpAttributes.builder().maxRecvIov(n).maxRequestIov(n).build();
        Endpoint active = a.ia.createEndpoint(a.pz, a.recvEvd, a.reqEvd, a.connEvd, wide);
        Endpoint passive = b.ia.createEndpoint(b.pz, b.recvEvd, b.reqEvd, b.connEvd, wide);
        b.ia.createPublicServicePoint(101, b.crEvd, PspFlag.CONSUMER);
        active.connect(b.address(), 101, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        var request = b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest();
        // the accept after the passive side's early allocation, so that it has to grow it
        TcpConnection wire = transport(b).connections().iterator().next();
        assertThat(awaitField(wire, "responses")).as("the data path allocated early").isNotNull();
        assertThat(awaitField(wire, "scratchRecvIov")).isEqualTo(8);
        request.accept(passive, null);
        assertThat(awaitField(wire, "scratchRecvIov")).isEqualTo(n);
        assertThat(awaitField(wire, "scratchRequestIov")).isEqualTo(n);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        fill(a.mem, 0, n * stride, 31);
        fill(b.mem, 8192, n * stride, 32);
        fill(b.mem, 16384, n * stride, 33);
        // a to b: the passive side's receive copy
        ok(passive.postRecv(n, segments(b.lmr, 0, n, len, stride), 1, 0));
        ok(active.postSend(n, segments(a.lmr, 0, n, len, stride), 2, 0));
        assertThat(dto(b, true).transferredLength()).isEqualTo((long) n * len);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertSegmentsEqual(b.mem, 0, a.mem, 0, n, len, stride);
        // b to a: the passive side's request copy, and the active side's receive copy
        ok(active.postRecv(n, segments(a.lmr, 8192, n, len, stride), 3, 0));
        ok(passive.postSend(n, segments(b.lmr, 8192, n, len, stride), 4, 0));
        assertThat(dto(a, true).transferredLength()).isEqualTo((long) n * len);
        assertThat(dto(b, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertSegmentsEqual(a.mem, 8192, b.mem, 8192, n, len, stride);
        // b reads from a into 12 segments: the passive side's copy of the read it scatters
        fill(a.mem, 24576, n * len, 34);
        ok(passive.postRdmaRead(n, segments(b.lmr, 16384, n, len, stride), 5, RmrTriplet.of(a.lmr, 24576, (long) n * len), 0));
        DatEvent r = dto(b, false);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        for (int i = 0; i < n; i++) {
            assertThat(b.mem.asSlice(16384 + (long) i * stride, len).mismatch(a.mem.asSlice(24576 + (long) i * len, len)))
                    .as("read segment %d", i).isEqualTo(-1);
        }
        active.disconnect(CloseFlag.ABRUPT);
    }

    @Test
    void rdmaWriteAndRead_moveTheBytes_withoutTheTargetConsumerCallingIn() {
        connect(b.ep);
        fill(a.mem, 0, 30_000, 21);
        ok(a.ep.postRdmaWrite(2, iov(LmrTriplet.of(a.lmr, 0, 10_000), LmrTriplet.of(a.lmr, 10_000, 20_000)), 1,
                RmrTriplet.of(b.lmr, 1000, 30_000), 0));
        DatEvent w = dto(a, false);
        assertThat(w.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(w.transferredLength()).isEqualTo(30_000);
        assertThat(b.mem.asSlice(1000, 30_000).mismatch(a.mem.asSlice(0, 30_000))).isEqualTo(-1);
        fill(b.mem, 40_000, 20_000, 22);
        ok(a.ep.postRdmaRead(2, iov(LmrTriplet.of(a.lmr, 32_000, 5_000), LmrTriplet.of(a.lmr, 40_000, 15_000)), 2,
                RmrTriplet.of(b.lmr, 40_000, 20_000), 0));
        DatEvent r = dto(a, false);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(r.transferredLength()).isEqualTo(20_000);
        assertThat(a.mem.asSlice(32_000, 5_000).mismatch(b.mem.asSlice(40_000, 5_000))).isEqualTo(-1);
        assertThat(a.mem.asSlice(40_000, 15_000).mismatch(b.mem.asSlice(45_000, 15_000))).isEqualTo(-1);
        // a zero-length write and read complete too
        ok(a.ep.postRdmaWrite(0, null, 3, RmrTriplet.of(b.lmr, 0, 0), 0));
        ok(a.ep.postRdmaRead(0, null, 4, RmrTriplet.of(b.lmr, 0, 0), 0));
        assertThat(dto(a, false).userCookie()).isEqualTo(3);
        assertThat(dto(a, false).userCookie()).isEqualTo(4);
        assertThat(b.recvEvd.dequeue(b.event)).as("one-sided: nothing on the target").isNotZero();
    }

    @Test
    void rdmaWrite_REMOTE_ACCESS_outsideTheRegion_breaksBoth_andTouchesNothing() {
        connect(b.ep);
        fill(a.mem, 0, 16, 3);
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 16)), 1, RmrTriplet.of(b.lmr, (1 << 16) - 8, 16), 0));
        ok(b.ep.postRecv(0, null, 9, 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThat(b.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, (1 << 16) - 8)).isZero();
    }

    @Test
    void rdma_REMOTE_ACCESS_forAForgedContext_andTheRequestsBehindAreFlushed() {
        connect(b.ep);
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1,
                new RmrTriplet(b.lmr.rmrContext() ^ 1, b.lmr.registeredAddress(), 8), 0));
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, 0));
        Fabric.assertRefusedThenFlushed(a);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    @Test
    void rdma_REMOTE_ACCESS_withoutTheRemotePrivilege_orForAnotherPz() {
        LocalMemoryRegion readOnly = b.ia.registerMemory(fb.memory(64), b.pz,
                MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_READ);
        connect(b.ep);
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, RmrTriplet.of(readOnly, 0, 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, RmrTriplet.of(readOnly, 0, 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    @Test
    void rdmaRead_REMOTE_ACCESS_forAnLmrOfAnotherPz() {
        LocalMemoryRegion elsewhere = b.ia.registerMemory(fb.memory(64), b.ia.createProtectionZone(), MemPrivileges.ALL);
        connect(b.ep);
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, RmrTriplet.of(elsewhere, 0, 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    @Test
    void disconnectFlushesEveryPostedDto() {
        connect(b.ep);
        ok(a.ep.postRecv(0, null, 1, 0));
        // a send with no receive on the far side waits; the disconnect flushes it
        ok(a.ep.postSend(0, null, 2, 0));
        a.ep.disconnect(CloseFlag.ABRUPT);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(dto(a, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        DatEvent s = dto(a, false);
        assertThat(s.userCookie()).isEqualTo(2);
        assertThat(s.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        // The far side may already hold the send, waiting for a receive with everything behind it
        // (the DISCONNECT too): it learns of the disconnect once that send is through. A known gap:
        // an RNR-waiting target does not see the disconnect sooner.
        ok(b.ep.postRecv(0, null, 3, 0));
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    /**
     * A target IA whose own max_rdma_size is smaller than the initiator's serves the larger
     * writes and reads that fit its window, as in one JVM: its maxima bound what it initiates,
     * not what it serves; its frame reader does not take such a frame for a protocol violation.
     */
    @Test
    void aTargetWithASmallerMaxRdmaSize_servesLargerWritesAndReads() {
        try (Fabric small = new Fabric(ProviderSettings.defaults().limits(), TcpPair.NO_KEEPALIVES + " max_rdma_size=4096 max_message_size=4096")) {
            Fabric.Side t = small.new Side("tcpSmall", null, 1 << 16);
            t.ia.createPublicServicePoint(31, t.crEvd, PspFlag.CONSUMER);
            a.ep.connect(t.address(), 31, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
            t.expect(t.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(t.ep, null);
            t.expect(t.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            a.mem.asSlice(0, 8192).fill((byte) 7);
            ok(a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 8192)}, 1, RmrTriplet.of(t.lmr, 0, 8192), 0));
            assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(t.mem.asSlice(0, 8192).mismatch(a.mem.asSlice(0, 8192))).isEqualTo(-1);
            ok(a.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 16384, 8192)}, 2, RmrTriplet.of(t.lmr, 0, 8192), 0));
            assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(a.mem.asSlice(16384, 8192).mismatch(t.mem.asSlice(0, 8192))).isEqualTo(-1);
            assertThat(t.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
    }

    /**
     * A request posted with DAT_COMPLETION_BARRIER_FENCE_FLAG starts once the RDMA reads before it
     * completed, as in one JVM: a send from the buffer a read fills carries the read's bytes, and
     * a write to the memory a read reads does not change what the read returns (pipelined regardless,
     * the send would carry the buffer's old bytes).
     */
    @Test
    void aFencedRequestWaitsForTheReadsBeforeIt() {
        connect(b.ep);
        for (int round = 0; round < 20; round++) {
            byte old = (byte) (2 * round + 1);
            byte fresh = (byte) (2 * round + 2);
            b.mem.asSlice(0, 64).fill(old);
            a.mem.asSlice(0, 64).fill((byte) 0);
            a.mem.asSlice(1024, 64).fill(fresh);
            ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 4096, 64)), round, 0));
            // read b[0,64) into a[0,64); then, fenced, send a[0,64) and write a[1024,1088) over b[0,64)
            ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 64)), 1, RmrTriplet.of(b.lmr, 0, 64), 0));
            ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 64)), 2, CompletionFlags.BARRIER_FENCE));
            ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 1024, 64)), 3, RmrTriplet.of(b.lmr, 0, 64),
                    CompletionFlags.BARRIER_FENCE));
            for (int i = 1; i <= 3; i++) {
                DatEvent e = dto(a, false);
                assertThat(e.userCookie()).isEqualTo(i);
                assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            }
            assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            for (int k = 0; k < 64; k++) {
                assertThat(a.mem.get(ValueLayout.JAVA_BYTE, k)).as("round %d: the read's byte %d", round, k).isEqualTo(old);
                assertThat(b.mem.get(ValueLayout.JAVA_BYTE, 4096 + k)).as("round %d: the sent byte %d", round, k).isEqualTo(old);
                assertThat(b.mem.get(ValueLayout.JAVA_BYTE, k)).as("round %d: the written byte %d", round, k).isEqualTo(fresh);
            }
        }
    }
}
