package dat.provider.sim.internal.core;

import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.SimIaFactory;
import dat.provider.sim.internal.ThreadLimit;

import static dat.provider.sim.internal.Codes.isType;
import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.Codes.throwsCode;
import static dat.provider.sim.internal.Codes.throwsType;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.AsyncErrorReason;
import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.LmrTriplet;
import dat.api.PspFlag;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.api.SrqParams;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** dat_srq_*, dat_ep_create_with_srq, dat_ep_recv_query, dat_ep_set_watermark, and the hot swap. */
@Timeout(30)
class SrqHotSwapTest {

    /** An SRQ on sim1 shared by two Endpoints, each connected to an Endpoint on sim0. */
    private static final class SrqRig {
        final Fabric.Side a;
        final Fabric.Side b;
        final SharedReceiveQueue srq;
        final Endpoint b1;
        final Endpoint b2;
        final Endpoint a2;

        SrqRig(Fabric f, int lowWatermark) {
            this(f, lowWatermark, 8);
        }

        SrqRig(Fabric f, int lowWatermark, int size) {
            a = f.new Side("sim0", null, 4096);
            b = f.new Side("sim1", null, 4096);
            srq = b.ia.createSharedReceiveQueue(b.pz, SrqAttributes.builder().maxRecvDtos(size).maxRecvIov(2).lowWatermark(lowWatermark).build());
            b1 = b.ia.createEndpointWithSrq(b.pz, b.recvEvd, b.reqEvd, b.connEvd, srq, EpAttributes.providerDefaults());
            b2 = b.ia.createEndpointWithSrq(b.pz, b.recvEvd, b.reqEvd, b.connEvd, srq, EpAttributes.providerDefaults());
            a2 = a.ia.createEndpoint(a.pz, a.recvEvd, a.reqEvd, a.connEvd, null);
            b.ia.createPublicServicePoint(1, b.crEvd, PspFlag.CONSUMER);
            a.ep.connect(b.address(), 1, Fabric.WAIT, null, 0, 0);
            b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(b1, null);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            a2.connect(b.address(), 1, Fabric.WAIT, null, 0, 0);
            b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(b2, null);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void dat_srq_post_recv_buffersServeEveryEndpoint_and_dat_srq_query_countsThem() {
        try (Fabric f = new Fabric()) {
            SrqRig r = new SrqRig(f, 0);
            for (int i = 0; i < 3; i++) {
                ok(r.srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(r.b.lmr, i * 100, 100)}, i));
            }
            SrqParams q = r.srq.query();
            assertThat(q.maxRecvDtos()).isEqualTo(8);
            assertThat(q.availableDtoCount()).isEqualTo(3);
            assertThat(q.outstandingDtoCount()).isEqualTo(3);
            r.a.mem.set(java.lang.foreign.ValueLayout.JAVA_INT, 0, 1234);
            ok(r.a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(r.a.lmr, 0, 4)}, 1, 0));
            ok(r.a2.postSend(1, new LmrTriplet[] {LmrTriplet.of(r.a.lmr, 0, 4)}, 2, 0));
            assertThat(r.srq.query().availableDtoCount()).isEqualTo(1);
            assertThat(r.srq.query().outstandingDtoCount()).as("until the completions are reaped").isEqualTo(3);
            DatEvent e = r.b.expect(r.b.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(e.endpoint()).isSameAs(r.b1);
            assertThat(e.userCookie()).isEqualTo(0);
            assertThat(r.b.mem.get(java.lang.foreign.ValueLayout.JAVA_INT, 0)).isEqualTo(1234);
            assertThat(r.b.expect(r.b.recvEvd, EventNumber.DTO_COMPLETION_EVENT).endpoint()).isSameAs(r.b2);
            assertThat(r.srq.query().outstandingDtoCount()).isEqualTo(1);
            isType(r.b1.postRecv(0, null, 1, 0), DatReturn.INVALID_STATE);
            assertThat(r.b1.recvQuery().nbufsAllocated()).isZero();
        }
    }

    /**
     * An SRQ whose size is no power of two (its ring has four slots for three receives) is full at
     * three, and serves its buffers in posting order lap after lap of its ring, and after a resize
     * that moves the buffers it holds into a larger ring.
     */
    @Test
    void anSrqOfThreeReceives_isFullAtThree_andServesItsBuffersInOrder_acrossLapsAndAResize() {
        try (Fabric f = new Fabric()) {
            SrqRig r = new SrqRig(f, 0, 3);
            long posted = 0;
            long served = 0;
            for (int lap = 0; lap < 10; lap++) {
                for (int i = 0; i < 3; i++) {
                    ok(r.srq.postRecv(0, null, posted++));
                }
                isType(r.srq.postRecv(0, null, posted), DatReturn.INSUFFICIENT_RESOURCES);
                for (int i = 0; i < 3; i++) {
                    ok(r.a.ep.postSend(0, null, i, CompletionFlags.SUPPRESS));
                    assertThat(r.b.expect(r.b.recvEvd, EventNumber.DTO_COMPLETION_EVENT).userCookie()).isEqualTo(served++);
                }
            }
            ok(r.srq.postRecv(0, null, posted++));
            ok(r.srq.postRecv(0, null, posted++));
            r.srq.resize(5);
            SrqParams q = r.srq.query();
            assertThat(q.maxRecvDtos()).isEqualTo(5);
            assertThat(q.availableDtoCount()).isEqualTo(2);
            for (int i = 0; i < 3; i++) {
                ok(r.srq.postRecv(0, null, posted++));
            }
            isType(r.srq.postRecv(0, null, posted), DatReturn.INSUFFICIENT_RESOURCES);
            for (int i = 0; i < 5; i++) {
                ok(r.a.ep.postSend(0, null, i, CompletionFlags.SUPPRESS));
                assertThat(r.b.expect(r.b.recvEvd, EventNumber.DTO_COMPLETION_EVENT).userCookie()).isEqualTo(served++);
            }
            assertThat(served).isEqualTo(posted);
        }
    }

    @Test
    void dat_srq_post_recv_aSendWaitingForABufferGoesOnWhenOneIsPosted() {
        try (Fabric f = new Fabric()) {
            SrqRig r = new SrqRig(f, 0);
            ok(r.a.ep.postSend(0, null, 1, 0));
            isType(r.a.reqEvd.dequeue(r.a.event), DatReturn.QUEUE_EMPTY);
            ok(r.srq.postRecv(0, null, 5));
            assertThat(r.a.expect(r.a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(r.b.expect(r.b.recvEvd, EventNumber.DTO_COMPLETION_EVENT).userCookie()).isEqualTo(5);
        }
    }

    @Test
    void dat_srq_post_recv_errorCodes() {
        try (Fabric f = new Fabric()) {
            SrqRig r = new SrqRig(f, 0);
            for (int i = 0; i < 8; i++) {
                ok(r.srq.postRecv(0, null, i));
            }
            isType(r.srq.postRecv(0, null, 9), DatReturn.INSUFFICIENT_RESOURCES);
            SharedReceiveQueue other = r.b.ia.createSharedReceiveQueue(r.b.pz, SrqAttributes.builder().maxRecvDtos(4).build());
            isType(other.postRecv(1, new LmrTriplet[] {LmrTriplet.of(r.b.lmr, 4090, 100)}, 1), DatReturn.INVALID_PARAMETER);
            var pz2 = r.b.ia.createProtectionZone();
            var lmr2 = r.b.ia.registerMemory(f.memory(64), pz2, 0x33);
            isType(other.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr2, 0, 8)}, 1), DatReturn.PROTECTION_VIOLATION);
            var readOnly = r.b.ia.registerMemory(f.memory(64), r.b.pz, 0x01);
            isType(other.postRecv(1, new LmrTriplet[] {LmrTriplet.of(readOnly, 0, 8)}, 1), DatReturn.PRIVILEGES_VIOLATION);
            other.close();
            isType(other.postRecv(0, null, 1), DatReturn.INVALID_HANDLE);
        }
    }

    @Test
    void dat_srq_create_errorCodes_and_free_INVALID_STATE_whileUsed() {
        try (Fabric f = new Fabric()) {
            SrqRig r = new SrqRig(f, 0);
            throwsType(() -> r.b.ia.createSharedReceiveQueue(r.b.pz, SrqAttributes.builder().maxRecvDtos(0).build()),
                    DatReturn.INVALID_PARAMETER);
            throwsType(() -> r.b.ia.createSharedReceiveQueue(r.b.pz, SrqAttributes.builder().maxRecvDtos(4).lowWatermark(5).build()),
                    DatReturn.INVALID_PARAMETER);
            throwsType(() -> r.b.ia.createSharedReceiveQueue(r.b.pz, null), DatReturn.INVALID_PARAMETER);
            throwsCode(() -> r.b.ia.createSharedReceiveQueue(r.a.pz, SrqAttributes.builder().maxRecvDtos(4).build()),
                    DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_PZ);
            throwsType(() -> r.b.ia.createEndpointWithSrq(r.b.pz, null, null, null, r.srq, null), DatReturn.INVALID_PARAMETER);
            throwsCode(r.srq::close, DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_SRQ_IN_USE);
            throwsCode(() -> r.srq.query(0x100), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
            var ia = f.factory.openIa(new dat.api.spi.IaOpenRequest("simS", 8, null, "max_srqs=1"));
            var pz = ia.createProtectionZone();
            SharedReceiveQueue only = ia.createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(2).build());
            throwsCode(() -> ia.createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(2).build()),
                    DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_SRQ);
            only.close();
            throwsCode(only::query, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_SRQ);
        }
    }

    @Test
    void dat_srq_resize_INVALID_STATE_belowOutstandingOrLowWatermark() {
        try (Fabric f = new Fabric()) {
            SrqRig r = new SrqRig(f, 2);
            for (int i = 0; i < 4; i++) {
                ok(r.srq.postRecv(0, null, i));
            }
            throwsType(() -> r.srq.resize(3), DatReturn.INVALID_STATE);
            throwsType(() -> r.srq.resize(0), DatReturn.INVALID_PARAMETER);
            r.srq.resize(16);
            assertThat(r.srq.query().maxRecvDtos()).isEqualTo(16);
            assertThat(r.srq.query().availableDtoCount()).isEqualTo(4);
            ok(r.a.ep.postSend(0, null, 1, 0));
            assertThat(r.b.expect(r.b.recvEvd, EventNumber.DTO_COMPLETION_EVENT).userCookie()).isEqualTo(0);
        }
    }

    @Test
    void dat_srq_set_lw_raisesTheLowWatermarkEventOncePerSetting() {
        try (Fabric f = new Fabric()) {
            SrqRig r = new SrqRig(f, 0);
            EventDispatcher async = r.b.ia.query().asyncEvd();
            for (int i = 0; i < 4; i++) {
                ok(r.srq.postRecv(0, null, i));
            }
            throwsType(() -> r.srq.setLowWatermark(9), DatReturn.INVALID_PARAMETER);
            r.srq.setLowWatermark(3);
            isType(async.dequeue(r.b.event), DatReturn.QUEUE_EMPTY);
            ok(r.a.ep.postSend(0, null, 1, 0)); // 4 -> 3
            isType(async.dequeue(r.b.event), DatReturn.QUEUE_EMPTY);
            ok(r.a.ep.postSend(0, null, 2, 0)); // 3 -> 2: below
            ok(async.dequeue(r.b.event));
            assertThat(r.b.event.asyncHandle()).isSameAs(r.srq);
            assertThat(r.b.event.asyncReason()).isEqualTo(AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT);
            ok(r.a.ep.postSend(0, null, 3, 0)); // once per setting
            isType(async.dequeue(r.b.event), DatReturn.QUEUE_EMPTY);
            r.srq.setLowWatermark(2); // 1 available < 2: at once
            ok(async.dequeue(r.b.event));
            assertThat(r.b.event.asyncReason()).isEqualTo(AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT);
        }
    }

    @Test
    void dat_ep_set_watermark_softHighWatermarkEvent_and_INVALID_PARAMETER() {
        try (Fabric f = new Fabric()) {
            Fabric.Pair p = f.new Pair();
            throwsType(() -> p.b.ep.setWatermark(-5, DatConstants.WATERMARK_INFINITE), DatReturn.INVALID_PARAMETER);
            p.b.ep.setWatermark(1, DatConstants.WATERMARK_INFINITE);
            ok(p.b.ep.postRecv(0, null, 1, 0));
            EventDispatcher async = p.b.ia.query().asyncEvd();
            isType(async.dequeue(p.b.event), DatReturn.QUEUE_EMPTY);
            ok(p.b.ep.postRecv(0, null, 2, 0));
            ok(async.dequeue(p.b.event));
            assertThat(p.b.event.asyncHandle()).isSameAs(p.b.ep);
            assertThat(p.b.event.asyncReason()).isEqualTo(AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT);
            assertThat(p.b.ep.recvQuery().nbufsAllocated()).isEqualTo(2);
        }
    }

    /**
     * A receive completion lost to an overflowed recv EVD gives its SRQ buffer back: the buffer
     * stays outstanding only until its completion is dequeued (dat_srq_query(3DAT)), and a lost
     * one never is. Otherwise dat_srq_post_recv would refuse a buffer for it for good.
     */
    @Test
    void anOverflowedRecvEvd_givesTheSrqBufferOfTheLostCompletionBack() {
        try (Fabric f = new Fabric()) {
            Fabric.Side a = f.new Side("sim0", null, 4096);
            Fabric.Side b = f.new Side("sim1", null, 4096);
            SharedReceiveQueue srq = b.ia.createSharedReceiveQueue(b.pz, SrqAttributes.builder().maxRecvDtos(2).build());
            EventDispatcher small = b.ia.createEventDispatcher(1, null, EvdFlags.DTO);
            twoSendsIntoTheSrq(a, b, srq, small);
            b.expect(b.ia.query().asyncEvd(), EventNumber.ASYNC_ERROR_EVD_OVERFLOW); // the second completion was lost
            assertThat(b.expect(small, EventNumber.DTO_COMPLETION_EVENT).userCookie()).isEqualTo(1);
            isType(small.dequeue(b.event), DatReturn.QUEUE_EMPTY);
            assertThat(srq.query().outstandingDtoCount()).isZero();
            ok(srq.postRecv(0, null, 3));
            ok(srq.postRecv(0, null, 4));
        }
    }

    /**
     * An Endpoint of {@code b} on {@code srq} (receive EVD {@code recvEvd}) connected to {@code a}'s,
     * two SRQ buffers posted (cookies 1, 2), and two sends of {@code a} completed into them.
     */
    private static Endpoint twoSendsIntoTheSrq(Fabric.Side a, Fabric.Side b, SharedReceiveQueue srq, EventDispatcher recvEvd) {
        Endpoint onSrq = b.ia.createEndpointWithSrq(b.pz, recvEvd, b.reqEvd, b.connEvd, srq, EpAttributes.providerDefaults());
        establish(a, b, onSrq);
        ok(srq.postRecv(0, null, 1));
        ok(srq.postRecv(0, null, 2));
        ok(a.ep.postSend(0, null, 11, 0));
        ok(a.ep.postSend(0, null, 12, 0));
        a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
        a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
        return onSrq;
    }

    /**
     * dat_evd_free(3DAT) loses the events queued: the SRQ buffers of the receive completions among
     * them stop counting as outstanding, or the SRQ would refuse posts and resizes for them for good.
     */
    @Test
    void aRecvEvdFreedWithCompletionsQueued_givesTheirSrqBuffersBack() {
        try (Fabric f = new Fabric()) {
            Fabric.Side a = f.new Side("sim0", null, 4096);
            Fabric.Side b = f.new Side("sim1", null, 4096);
            SharedReceiveQueue srq = b.ia.createSharedReceiveQueue(b.pz, SrqAttributes.builder().maxRecvDtos(2).build());
            EventDispatcher held = b.ia.createEventDispatcher(4, null, EvdFlags.DTO);
            Endpoint onSrq = twoSendsIntoTheSrq(a, b, srq, held);
            assertThat(srq.query().outstandingDtoCount()).as("two completions queued, not dequeued").isEqualTo(2);
            onSrq.close();
            held.close();
            assertThat(srq.query().outstandingDtoCount()).isZero();
            ok(srq.postRecv(0, null, 3));
            ok(srq.postRecv(0, null, 4));
            srq.resize(4);
        }
    }

    /**
     * dat_ep_modify(3DAT) of srq_soft_hw sets the soft high watermark that is armed, not only the
     * value dat_ep_query reports: set to 0 before connecting, the first SRQ buffer the Endpoint
     * takes raises the event.
     */
    @Test
    void dat_ep_modify_srqSoftHighWatermark_armsTheWatermark() {
        try (Fabric f = new Fabric()) {
            Fabric.Side a = f.new Side("sim0", null, 4096);
            Fabric.Side b = f.new Side("sim1", null, 4096);
            SharedReceiveQueue srq = b.ia.createSharedReceiveQueue(b.pz, SrqAttributes.builder().maxRecvDtos(4).build());
            Endpoint onSrq = b.ia.createEndpointWithSrq(b.pz, b.recvEvd, b.reqEvd, b.connEvd, srq, EpAttributes.providerDefaults());
            assertThat(onSrq.query().attributes().srqSoftHighWatermark()).isEqualTo(DatConstants.WATERMARK_INFINITE);
            onSrq.modify(EpParamMask.EP_ATTR_SRQ_SOFT_HW, EpParams.builder().attributes(EpAttributes.builder().srqSoftHighWatermark(0).build()).build());
            assertThat(onSrq.query().attributes().srqSoftHighWatermark()).isZero();
            establish(a, b, onSrq);
            ok(srq.postRecv(0, null, 1));
            ok(a.ep.postSend(0, null, 11, 0));
            assertThat(b.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT).userCookie()).isEqualTo(1);
            DatEvent e = b.expect(b.ia.query().asyncEvd(), EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR);
            assertThat(e.asyncHandle()).isSameAs(onSrq);
            assertThat(e.asyncReason()).isEqualTo(AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT);
        }
    }

    /**
     * dat_ep_set_watermark(3DAT): "when EP takes a buffer from the SRQ" beyond the hard watermark
     * the connection breaks, on both sides; the buffer taken completes flushed (and is no longer
     * outstanding once dequeued), the send flushed too.
     */
    @Test
    void dat_ep_set_watermark_anSrqBufferTakenBeyondTheHardWatermarkBreaksTheConnection() {
        try (Fabric f = new Fabric()) {
            Fabric.Side a = f.new Side("sim0", null, 4096);
            Fabric.Side b = f.new Side("sim1", null, 4096);
            SharedReceiveQueue srq = b.ia.createSharedReceiveQueue(b.pz, SrqAttributes.builder().maxRecvDtos(4).build());
            Endpoint onSrq = b.ia.createEndpointWithSrq(b.pz, b.recvEvd, b.reqEvd, b.connEvd, srq, EpAttributes.providerDefaults());
            onSrq.setWatermark(DatConstants.WATERMARK_INFINITE, 0);
            establish(a, b, onSrq);
            ok(srq.postRecv(0, null, 1));
            ok(a.ep.postSend(0, null, 11, 0));
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
            DatEvent r = b.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(r.userCookie()).isEqualTo(1);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
            assertThat(srq.query().outstandingDtoCount()).isZero();
            assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
            assertThat(b.expect(b.ia.query().asyncEvd(), EventNumber.ASYNC_ERROR_EP_BROKEN).asyncHandle()).isSameAs(onSrq);
        }
    }

    @Test
    void hotSwap_everyIaFailsCatastrophically_dtosFlush_handlesDie_waitersWake_threadEnds() throws Exception {
        Fabric f = new Fabric();
        Fabric.Pair p = f.new Pair();
        ok(p.b.ep.postRecv(0, null, 11, 0));
        ok(p.a.ep.postSend(0, null, 12, 0));
        ok(p.a.ep.postSend(0, null, 13, 0)); // waits for a receive
        EventDispatcher async = p.a.ia.query().asyncEvd();
        EventDispatcher sw = p.b.ia.createEventDispatcher(4, null, EvdFlags.SOFTWARE);
        AtomicInteger waitRc = new AtomicInteger();
        Thread waiter = Thread.ofPlatform().start(() -> waitRc.set(sw.await(DatConstants.TIMEOUT_INFINITE, 1, new DatEvent())));
        Thread.sleep(50);
        assertThat(f.factory.shutdown()).as("the provider thread ends").isTrue();
        waiter.join(5000);
        assertThat(waiter.isAlive()).isFalse();
        isType(waitRc.get(), DatReturn.ABORT);
        // the catastrophic event and the flushed DTO can still be read, then the handles answer INVALID_HANDLE
        ok(async.dequeue(p.a.event));
        assertThat(p.a.event.eventNumber()).isEqualTo(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC);
        assertThat(p.a.event.asyncHandle()).isSameAs(p.a.ia);
        ok(p.a.reqEvd.dequeue(p.a.event));
        assertThat(p.a.event.userCookie()).isEqualTo(12);
        ok(p.a.reqEvd.dequeue(p.a.event));
        assertThat(p.a.event.userCookie()).isEqualTo(13);
        assertThat(p.a.event.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        isType(p.a.reqEvd.dequeue(p.a.event), DatReturn.INVALID_HANDLE);
        isType(p.a.ep.postSend(0, null, 1, 0), DatReturn.INVALID_HANDLE);
        throwsType(p.a.ia::query, DatReturn.INVALID_HANDLE);
        throwsType(p.b.pz::query, DatReturn.INVALID_HANDLE);
        assertThat(p.a.ia.isOpen()).isFalse();
        throwsType(() -> f.open("sim0"), DatReturn.PROVIDER_NOT_FOUND);
        p.a.ia.close(); // releases what is left, never throws
        f.arena.close();
    }

    /** a's Endpoint connects to b's PSP 1, b accepts into {@code passive}: established on both sides. */
    private static void establish(Fabric.Side a, Fabric.Side b, Endpoint passive) {
        b.ia.createPublicServicePoint(1, b.crEvd, PspFlag.CONSUMER);
        a.ep.connect(b.address(), 1, Fabric.WAIT, null, 0, 0);
        b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(passive, null);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }
}
