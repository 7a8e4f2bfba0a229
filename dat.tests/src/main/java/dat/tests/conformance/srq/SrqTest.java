package dat.tests.conformance.srq;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.AsyncErrorReason;
import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpRecvInfo;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.HandleType;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.api.SrqParamMask;
import dat.api.SrqParams;
import dat.api.SrqState;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.FreedLmrReceive;
import dat.tests.conformance.internal.DataPattern;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.internal.SrqSetup;
import dat.tests.conformance.internal.Waiters;
import org.junit.jupiter.api.DisplayName;

/**
 * dat_srq_create(3DAT), dat_srq_post_recv(3DAT), dat_srq_query(3DAT), dat_srq_resize(3DAT),
 * dat_srq_set_lw(3DAT), dat_srq_free(3DAT), dat_ep_create_with_srq(3DAT): shared receive queues
 * with watermarks, which dapltest never uses. Skipped where {@code srq_supported} is false.
 */
class SrqTest {

    private static SharedReceiveQueue srq(IaUnderTest t, ProtectionZone pz, int size) {
        return t.ia().createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(size).maxRecvIov(1).build());
    }

    @ConformanceTest
    @DisplayName("dat_srq_create(3DAT) DAT_SUCCESS: an operational SRQ of at least the requested size, low watermark DAT_SRQ_LW_DEFAULT")
    void create(IaUnderTest t) {
        t.requireSrq();
        ProtectionZone pz = t.pz();
        SharedReceiveQueue srq = srq(t, pz, 8);
        assertThat(srq.handleType()).as(t.at("handle type")).isEqualTo(HandleType.SRQ);
        SrqParams params = srq.query();
        assertThat(params.state()).as(t.at("srq_state")).isEqualTo(SrqState.OPERATIONAL);
        assertThat(params.pz()).as(t.at("pz_handle")).isSameAs(pz);
        assertThat(params.ia()).as(t.at("ia_handle")).isSameAs(t.ia());
        assertThat(params.maxRecvDtos()).as(t.at("max_recv_dtos")).isGreaterThanOrEqualTo(8);
        assertThat(params.maxRecvIov()).as(t.at("max_recv_iov")).isGreaterThanOrEqualTo(1);
        assertThat(params.lowWatermark()).as(t.at("low_watermark")).isEqualTo(DatConstants.SRQ_LW_DEFAULT);
    }

    @ConformanceTest
    @DisplayName("dat_srq_create(3DAT) DAT_MODEL_NOT_SUPPORTED: the provider declares no SRQ support")
    void unsupported(IaUnderTest t) {
        t.requireFeasible(!t.provider().srqSupported(), "the provider supports SRQs");
        t.expectError(DatReturn.MODEL_NOT_SUPPORTED, "dat_srq_create without SRQ support", () -> srq(t, t.pz(), 8));
    }

    @ConformanceTest
    @DisplayName("dat_srq_create(3DAT) DAT_INVALID_HANDLE: a freed PZ")
    void createFreedPz(IaUnderTest t) {
        t.requireSrq();
        ProtectionZone pz = t.pz();
        pz.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_srq_create in a freed PZ", () -> srq(t, pz, 8));
    }

    @ConformanceTest
    @DisplayName("dat_srq_create(3DAT) DAT_INVALID_PARAMETER: more receives than the IA's max_recv_per_srq")
    void createTooLarge(IaUnderTest t) {
        t.requireSrq();
        int max = t.attributes().maxRecvPerSrq();
        t.requireFeasible(max < Integer.MAX_VALUE, "max_recv_per_srq is unbounded");
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_srq_create with max_recv_dtos " + (max + 1), () -> srq(t, t.pz(), max + 1));
    }

    @ConformanceTest
    @DisplayName("dat_ep_create_with_srq(3DAT) DAT_SUCCESS: the Endpoint's receives come from the SRQ and complete on its receive EVD")
    void receiveThroughSrq(IaUnderTest t) {
        SrqSetup s = new SrqSetup(t, 8).connect(t);
        assertThat(s.ep.query().srq()).as(t.at("srq_handle of the Endpoint")).isSameAs(s.srq);
        s.post(t, 0);
        s.send(t, 700, 81);
        DatEvent received = s.receive(t, "the receive from the SRQ");
        assertThat(received.endpoint()).as(t.at("ep_handle of the receive completion")).isSameAs(s.ep);
        assertThat(received.userCookie()).as(t.at("user_cookie of the SRQ receive")).isEqualTo(1000);
        assertThat(received.transferredLength()).as(t.at("transferred_length")).isEqualTo(700);
        t.verify(s.buffer.memory().asSlice(0, 700), 81, 0, "the bytes received into the SRQ buffer");
    }

    @ConformanceTest
    @DisplayName("dat_ep_recv_query(3DAT) DAT_SUCCESS: an Endpoint of an SRQ holds no buffer while none is taken, nor once its"
            + " receive completed")
    void recvQueryOfAnSrqEndpoint(IaUnderTest t) {
        t.requireSupported(t.provider().epRecvInfoSupported() != 0, "dat_ep_recv_query (ep_recv_info_supported is 0)");
        SrqSetup s = new SrqSetup(t, 8).connect(t);
        for (int i = 0; i < 4; i++) {
            s.post(t, i);
        }
        expectNoBufferHeld(t, s.ep.recvQuery(), "with four receives posted to the SRQ and no message sent");
        s.send(t, 64, 5);
        s.receive(t, "the receive from the SRQ");
        expectNoBufferHeld(t, s.ep.recvQuery(), "once the message's receive completed");
    }

    /**
     * "For EP that uses SRQ, a buffer is allocated to the EP when EP removes it from SRQ": none is
     * while no message lands; a count the provider cannot give is DAT_VALUE_UNKNOWN.
     */
    private static void expectNoBufferHeld(IaUnderTest t, EpRecvInfo info, String when) {
        if (info.nbufsAllocated() != DatConstants.VALUE_UNKNOWN) {
            assertThat(info.nbufsAllocated()).as(t.at("nbufs_allocated " + when)).isZero();
        }
        if (info.bufsAllocSpan() != DatConstants.VALUE_UNKNOWN) {
            assertThat(info.bufsAllocSpan()).as(t.at("bufs_alloc_span " + when)).isGreaterThanOrEqualTo(0);
        }
    }

    @ConformanceTest
    @DisplayName("dat_ep_create_with_srq(3DAT) DAT_SUCCESS: two Endpoints share one SRQ's receives")
    void sharedByTwo(IaUnderTest t) {
        SrqSetup first = new SrqSetup(t, 8).connect(t);
        var passive = first.connection.passive;
        EventDispatcher recv2 = t.evd(passive.ia, EvdFlags.DTO);
        EventDispatcher conn2 = t.evd(passive.ia, EvdFlags.CONNECTION);
        Endpoint second = passive.ia.createEndpointWithSrq(passive.pz, recv2, t.evd(passive.ia, EvdFlags.DTO), conn2, first.srq,
                t.epAttributes());
        var other = t.connection().create();
        other.active.ep.connect(t.address(passive.ia), first.connection.psp.connQual(), IaUnderTest.EVENT_TIMEOUT_MICROS, null,
                dat.api.Qos.BEST_EFFORT, dat.api.ConnectFlags.DEFAULT);
        t.event(first.connection.crEvd, dat.api.EventNumber.CONNECTION_REQUEST_EVENT, "the second request").connectionRequest()
                .accept(second, null);
        t.event(conn2, dat.api.EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the second SRQ Endpoint");
        // the active Endpoint is connected once its own event came (over rdma_cm it may come after the passive one's)
        t.event(other.active.connectEvd, dat.api.EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the second active Endpoint");
        first.post(t, 0);
        first.post(t, 1);
        first.send(t, 100, 1);
        DataPattern.fill(other.active.buffer().asSlice(0, 200), 2);
        t.expectSuccess(other.active.ep.postSend(1, other.active.iov(0, 200), 2, CompletionFlags.DEFAULT), "dat_ep_post_send to the second Endpoint");
        assertThat(first.receive(t, "the first Endpoint's receive").transferredLength()).as(t.at("the first message")).isEqualTo(100);
        DatEvent secondReceive = t.success(recv2, "the second Endpoint's receive");
        assertThat(secondReceive.endpoint()).as(t.at("ep_handle of the second receive")).isSameAs(second);
        assertThat(secondReceive.transferredLength()).as(t.at("the second message")).isEqualTo(200);
    }

    @ConformanceTest
    @DisplayName("dat_ep_create_with_srq(3DAT) DAT_SUCCESS: receives cannot be posted to the Endpoint itself (DAT_INVALID_STATE)")
    void noPostToSrqEndpoint(IaUnderTest t) {
        SrqSetup s = new SrqSetup(t, 8);
        t.expectCode(DatReturn.INVALID_STATE, s.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(s.buffer, 0, 64)}, 1, CompletionFlags.DEFAULT),
                "dat_ep_post_recv to an Endpoint that uses an SRQ");
    }

    @ConformanceTest
    @DisplayName("dat_ep_create_with_srq(3DAT) DAT_INVALID_PARAMETER: NULL Endpoint attributes")
    void nullAttributes(IaUnderTest t) {
        t.requireSrq();
        ProtectionZone pz = t.pz();
        SharedReceiveQueue srq = srq(t, pz, 8);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_create_with_srq with NULL ep_attributes",
                () -> t.ia().createEndpointWithSrq(pz, t.evd(EvdFlags.DTO), t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION), srq, null));
    }

    @ConformanceTest
    @DisplayName("dat_ep_create_with_srq(3DAT) DAT_INVALID_PARAMETER: a PZ that does not match the SRQ's, where the provider forbids it")
    void pzMismatch(IaUnderTest t) {
        t.requireSrq();
        t.requireFeasible(!t.provider().srqEpPzDifferenceSupported(), "the provider lets an Endpoint and its SRQ have different PZs");
        SharedReceiveQueue srq = srq(t, t.pz(), 8);
        ProtectionZone other = t.pz();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_create_with_srq in another PZ than the SRQ",
                () -> t.ia().createEndpointWithSrq(other, t.evd(EvdFlags.DTO), t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION), srq,
                        t.epAttributes()));
    }

    @ConformanceTest
    @DisplayName("dat_ep_create_with_srq(3DAT) DAT_INVALID_HANDLE: a freed SRQ")
    void freedSrq(IaUnderTest t) {
        t.requireSrq();
        ProtectionZone pz = t.pz();
        SharedReceiveQueue srq = srq(t, pz, 8);
        srq.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_create_with_srq with a freed SRQ",
                () -> t.ia().createEndpointWithSrq(pz, t.evd(EvdFlags.DTO), t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION), srq,
                        t.epAttributes()));
    }

    @ConformanceTest
    @DisplayName("dat_srq_post_recv(3DAT) DAT_SUCCESS: messages take the SRQ's buffers, completing in the order of the sends, every byte in place")
    void postRecv(IaUnderTest t) {
        SrqSetup s = new SrqSetup(t, 8).connect(t);
        for (int i = 0; i < 4; i++) {
            s.post(t, i);
        }
        java.util.Set<Long> cookies = new java.util.HashSet<>();
        for (int i = 0; i < 4; i++) {
            s.send(t, 100 + i, 90 + i);
            DatEvent received = s.receive(t, "message " + i);
            assertThat(received.transferredLength()).as(t.at("transferred_length of message " + i)).isEqualTo(100 + i);
            long slot = received.userCookie() - 1000;
            t.check(slot >= 0 && slot < 4 && cookies.add(received.userCookie()), "message " + i + " completed with cookie "
                    + received.userCookie() + ", not one of the four posted and unused buffers");
            t.verify(s.buffer.memory().asSlice(1024 * slot, 100 + i), 90 + i, 0, "message " + i + " in the SRQ buffer it took");
        }
    }

    @ConformanceTest
    @DisplayName("dat_srq_post_recv(3DAT) DAT_SUCCESS: a receive into an LMR freed after the post fails with"
            + " DAT_DTO_ERR_LOCAL_PROTECTION when its message arrives")
    void postIntoAnLmrFreedAfter(IaUnderTest t) {
        SrqSetup s = new SrqSetup(t, 4).connect(t);
        LocalMemoryRegion lmr = t.lmr(s.connection.passive.ia, s.connection.passive.pz, 4096, MemPrivileges.ALL);
        t.expectSuccess(s.srq.postRecv(1, IaUnderTest.iov(lmr, 0, 64), 7), "dat_srq_post_recv into the LMR");
        lmr.close();
        var active = s.connection.active;
        DataPattern.fill(active.buffer().asSlice(0, 64), 3);
        t.expectSuccess(active.ep.postSend(1, active.iov(0, 64), 2, CompletionFlags.DEFAULT), "dat_ep_post_send of 64 bytes");
        FreedLmrReceive.expectProtectionViolation(t, t.completion(s.recvEvd, "the SRQ receive into the freed LMR"), 7);
    }

    @ConformanceTest
    @DisplayName("dat_srq_post_recv(3DAT) DAT_INSUFFICIENT_RESOURCES: more receives than the SRQ holds")
    void postFull(IaUnderTest t) {
        t.requireSrq();
        ProtectionZone pz = t.pz();
        SharedReceiveQueue srq = srq(t, pz, 4);
        int size = srq.query().maxRecvDtos();
        t.requireFeasible(size <= 65_536, "the SRQ holds " + size);
        LocalMemoryRegion lmr = t.lmr(pz, 4096, MemPrivileges.ALL);
        LmrTriplet[] iov = {LmrTriplet.of(lmr, 0, 16)};
        for (int i = 0; i < size; i++) {
            t.expectSuccess(srq.postRecv(1, iov, i), "dat_srq_post_recv " + (i + 1) + " of " + size);
        }
        t.expectCode(DatReturn.INSUFFICIENT_RESOURCES, srq.postRecv(1, iov, size), "dat_srq_post_recv into a full SRQ of " + size);
    }

    @ConformanceTest
    @DisplayName("dat_srq_post_recv(3DAT) DAT_INVALID_PARAMETER: an IOV segment pointing to memory outside its LMR")
    void postOutsideLmr(IaUnderTest t) {
        t.requireSrq();
        ProtectionZone pz = t.pz();
        SharedReceiveQueue srq = srq(t, pz, 4);
        LocalMemoryRegion lmr = t.lmr(pz, 4096, MemPrivileges.ALL);
        long size = lmr.registeredSize();
        t.expectCode(DatReturn.INVALID_PARAMETER, srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, size - 8, 64)}, 1),
                "dat_srq_post_recv of a segment running past its LMR");
    }

    @ConformanceTest
    @DisplayName("dat_srq_post_recv(3DAT) DAT_PROTECTION_VIOLATION: the LMR of a segment is in another PZ than the SRQ")
    void postOtherPz(IaUnderTest t) {
        t.requireSrq();
        SharedReceiveQueue srq = srq(t, t.pz(), 4);
        LocalMemoryRegion foreign = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        t.expectCode(DatReturn.PROTECTION_VIOLATION, srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(foreign, 0, 64)}, 1),
                "dat_srq_post_recv into an LMR of another PZ");
    }

    @ConformanceTest
    @DisplayName("dat_srq_post_recv(3DAT) DAT_PRIVILEGES_VIOLATION: the LMR of a segment lacks local write privilege")
    void postNoLocalWrite(IaUnderTest t) {
        t.requireSrq();
        ProtectionZone pz = t.pz();
        SharedReceiveQueue srq = srq(t, pz, 4);
        LocalMemoryRegion readOnly = t.lmr(pz, 4096, MemPrivileges.LOCAL_READ);
        t.expectCode(DatReturn.PRIVILEGES_VIOLATION, srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(readOnly, 0, 64)}, 1),
                "dat_srq_post_recv into an LMR without local write");
    }

    @ConformanceTest
    @DisplayName("dat_srq_post_recv(3DAT) DAT_INVALID_HANDLE: a freed SRQ")
    void postFreed(IaUnderTest t) {
        t.requireSrq();
        ProtectionZone pz = t.pz();
        SharedReceiveQueue srq = srq(t, pz, 4);
        LocalMemoryRegion lmr = t.lmr(pz, 4096, MemPrivileges.ALL);
        srq.close();
        t.expectCode(DatReturn.INVALID_HANDLE, srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 64)}, 1), "dat_srq_post_recv to a freed SRQ");
    }

    @ConformanceTest
    @DisplayName("dat_srq_query(3DAT) DAT_SUCCESS: available and outstanding counts follow the page's example, or are DAT_VALUE_UNKNOWN")
    void queryCounts(IaUnderTest t) {
        SrqSetup s = new SrqSetup(t, 10).connect(t);
        for (int i = 0; i < 3; i++) {
            s.post(t, i);
        }
        expectCounts(t, s.srq, 3, 3, "3 receives posted");
        s.send(t, 64, 1);
        Waiters.sleepMillis(10);
        DatEvent received = s.receive(t, "the receive from the SRQ");
        t.check(received.transferredLength() == 64, "the received message's length");
        expectCounts(t, s.srq, 2, 2, "one message arrived and its completion was dequeued");
    }

    private static void expectCounts(IaUnderTest t, SharedReceiveQueue srq, int available, int outstanding, String when) {
        SrqParams params = srq.query(SrqParamMask.AVAILABLE_DTO_COUNT | SrqParamMask.OUTSTANDING_DTO_COUNT);
        if (t.provider().srqInfoSupported() == 0) {
            return; // the provider declares it cannot report the counts; any value, usually DAT_VALUE_UNKNOWN
        }
        if (params.availableDtoCount() != DatConstants.VALUE_UNKNOWN) {
            assertThat(params.availableDtoCount()).as(t.at("available_dto_count after " + when)).isEqualTo(available);
        }
        if (params.outstandingDtoCount() != DatConstants.VALUE_UNKNOWN) {
            assertThat(params.outstandingDtoCount()).as(t.at("outstanding_dto_count after " + when)).isEqualTo(outstanding);
        }
    }

    @ConformanceTest
    @DisplayName("dat_srq_query(3DAT) DAT_INVALID_PARAMETER: a mask with undefined bits")
    void queryBadMask(IaUnderTest t) {
        t.requireSrq();
        SharedReceiveQueue srq = srq(t, t.pz(), 4);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_srq_query with srq_param_mask 0x100", () -> srq.query(0x100));
    }

    @ConformanceTest
    @DisplayName("dat_srq_query(3DAT) DAT_INVALID_HANDLE: a freed SRQ")
    void queryFreed(IaUnderTest t) {
        t.requireSrq();
        SharedReceiveQueue srq = srq(t, t.pz(), 4);
        srq.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_srq_query of a freed SRQ", () -> srq.query());
    }

    @ConformanceTest
    @DisplayName("dat_srq_resize(3DAT) DAT_SUCCESS: the SRQ holds at least the new size, and no posted receive is lost")
    void resize(IaUnderTest t) {
        SrqSetup s = new SrqSetup(t, 4).connect(t);
        s.post(t, 0);
        int larger = Math.min(16, t.attributes().maxRecvPerSrq());
        s.srq.resize(larger);
        assertThat(s.srq.query().maxRecvDtos()).as(t.at("max_recv_dtos after dat_srq_resize to " + larger)).isGreaterThanOrEqualTo(larger);
        s.send(t, 64, 3);
        assertThat(s.receive(t, "the receive posted before the resize").userCookie()).as(t.at("the receive survived the resize")).isEqualTo(1000);
    }

    @ConformanceTest
    @DisplayName("dat_srq_resize(3DAT) DAT_INVALID_STATE: the new size is below the outstanding receives")
    void resizeBelowOutstanding(IaUnderTest t) {
        t.requireSrq();
        ProtectionZone pz = t.pz();
        SharedReceiveQueue srq = srq(t, pz, 8);
        LocalMemoryRegion lmr = t.lmr(pz, 4096, MemPrivileges.ALL);
        for (int i = 0; i < 4; i++) {
            t.expectSuccess(srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 64L * i, 64)}, i), "dat_srq_post_recv " + i);
        }
        t.expectError(DatReturn.INVALID_STATE, "dat_srq_resize to 2 with 4 receives posted", () -> srq.resize(2));
    }

    @ConformanceTest
    @DisplayName("dat_srq_resize(3DAT) DAT_INVALID_STATE: the new size is below the low watermark")
    void resizeBelowWatermark(IaUnderTest t) {
        t.requireSrq();
        t.requireSupported(t.provider().srqWatermarksSupported() != 0, "SRQ watermarks (srq_watermarks_supported is 0)");
        SharedReceiveQueue srq = srq(t, t.pz(), 8);
        srq.setLowWatermark(6);
        t.expectError(DatReturn.INVALID_STATE, "dat_srq_resize to 4 below the low watermark 6", () -> srq.resize(4));
    }

    @ConformanceTest
    @DisplayName("dat_srq_resize(3DAT) DAT_INVALID_PARAMETER: a negative size")
    void resizeNegative(IaUnderTest t) {
        t.requireSrq();
        SharedReceiveQueue srq = srq(t, t.pz(), 4);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_srq_resize to -1", () -> srq.resize(-1));
    }

    @ConformanceTest
    @DisplayName("dat_srq_resize(3DAT) DAT_INVALID_HANDLE: a freed SRQ")
    void resizeFreed(IaUnderTest t) {
        t.requireSrq();
        SharedReceiveQueue srq = srq(t, t.pz(), 4);
        srq.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_srq_resize of a freed SRQ", () -> srq.resize(8));
    }

    @ConformanceTest
    @DisplayName("dat_srq_set_lw(3DAT) DAT_SUCCESS: the async EVD gets the low watermark event once, when the SRQ falls below it")
    void lowWatermark(IaUnderTest t) {
        t.requireSupported(t.provider().srqWatermarksSupported() != 0, "SRQ watermarks (srq_watermarks_supported is 0)");
        SrqSetup s = new SrqSetup(t, 8).connect(t);
        EventDispatcher async = s.connection.passive.ia.query().asyncEvd();
        for (int i = 0; i < 4; i++) {
            s.post(t, i);
        }
        s.srq.setLowWatermark(3);
        assertThat(s.srq.query().lowWatermark()).as(t.at("low_watermark after dat_srq_set_lw")).isEqualTo(3);
        t.noEvent(async, "a low watermark event while 4 receives are on the SRQ");
        s.send(t, 64, 1);
        s.receive(t, "the first receive");
        t.noEvent(async, "a low watermark event with 3 receives on the SRQ, not below 3");
        s.send(t, 64, 2);
        s.receive(t, "the second receive");
        DatEvent event = t.event(async, "the low watermark event when 2 receives remain");
        assertThat(event.asyncHandle()).as(t.at("the handle of the low watermark event")).isSameAs(s.srq);
        assertThat(event.asyncReason()).as(t.at("the reason of the event")).isEqualTo(AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT);
        s.send(t, 64, 3);
        s.receive(t, "the third receive");
        t.noEvent(async, "a second low watermark event for one setting");
    }

    @ConformanceTest
    @DisplayName("dat_srq_set_lw(3DAT) DAT_SUCCESS: setting a low watermark above the receives on the SRQ raises the event at once")
    void lowWatermarkImmediate(IaUnderTest t) {
        t.requireSupported(t.provider().srqWatermarksSupported() != 0, "SRQ watermarks (srq_watermarks_supported is 0)");
        SrqSetup s = new SrqSetup(t, 8);
        EventDispatcher async = s.connection.passive.ia.query().asyncEvd();
        s.post(t, 0);
        s.srq.setLowWatermark(4);
        DatEvent event = t.event(async, "the low watermark event of a setting above the posted receives");
        assertThat(event.asyncHandle()).as(t.at("the handle of the low watermark event")).isSameAs(s.srq);
        assertThat(event.asyncReason()).as(t.at("the reason of the event")).isEqualTo(AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT);
    }

    @ConformanceTest
    @DisplayName("dat_srq_create(3DAT) DAT_SUCCESS: a low watermark other than DAT_SRQ_LW_DEFAULT raises the event at once, the new SRQ"
            + " holding no receive")
    void lowWatermarkAtCreate(IaUnderTest t) {
        t.requireSupported(t.provider().srqWatermarksSupported() != 0, "SRQ watermarks (srq_watermarks_supported is 0)");
        EventDispatcher async = t.ia().query().asyncEvd();
        SharedReceiveQueue srq = t.ia().createSharedReceiveQueue(t.pz(),
                SrqAttributes.builder().maxRecvDtos(4).maxRecvIov(1).lowWatermark(2).build());
        DatEvent event = t.event(async, "the low watermark event of an SRQ created with low_watermark 2");
        assertThat(event.asyncHandle()).as(t.at("the handle of the low watermark event")).isSameAs(srq);
        assertThat(event.asyncReason()).as(t.at("the reason of the event")).isEqualTo(AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT);
        assertThat(srq.query().lowWatermark()).as(t.at("low_watermark of the new SRQ")).isEqualTo(2);
        t.noEvent(async, "a second low watermark event for the one setting");
    }

    @ConformanceTest
    @DisplayName("dat_srq_set_lw(3DAT) DAT_INVALID_PARAMETER: the low watermark exceeds max_recv_dtos")
    void lowWatermarkTooHigh(IaUnderTest t) {
        t.requireSrq();
        t.requireSupported(t.provider().srqWatermarksSupported() != 0, "SRQ watermarks (srq_watermarks_supported is 0)");
        SharedReceiveQueue srq = srq(t, t.pz(), 4);
        int max = srq.query().maxRecvDtos();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_srq_set_lw to " + (max + 1) + " above max_recv_dtos " + max,
                () -> srq.setLowWatermark(max + 1));
    }

    @ConformanceTest
    @DisplayName("dat_srq_set_lw(3DAT) DAT_MODEL_NOT_SUPPORTED: the provider declares no SRQ watermark support")
    void lowWatermarkUnsupported(IaUnderTest t) {
        t.requireSrq();
        t.requireFeasible(t.provider().srqWatermarksSupported() == 0, "the provider supports SRQ watermarks");
        SharedReceiveQueue srq = srq(t, t.pz(), 4);
        t.expectError(DatReturn.MODEL_NOT_SUPPORTED, "dat_srq_set_lw without watermark support", () -> srq.setLowWatermark(2));
    }

    @ConformanceTest
    @DisplayName("dat_srq_set_lw(3DAT) DAT_INVALID_HANDLE: a freed SRQ")
    void lowWatermarkFreed(IaUnderTest t) {
        t.requireSrq();
        SharedReceiveQueue srq = srq(t, t.pz(), 4);
        srq.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_srq_set_lw of a freed SRQ", () -> srq.setLowWatermark(1));
    }

    @ConformanceTest
    @DisplayName("dat_srq_free(3DAT) DAT_SUCCESS: frees an SRQ no Endpoint uses")
    void free(IaUnderTest t) {
        t.requireSrq();
        SharedReceiveQueue srq = srq(t, t.pz(), 4);
        srq.close();
        assertThat(srq.isOpen()).as(t.at("the freed SRQ")).isFalse();
    }

    @ConformanceTest
    @DisplayName("dat_srq_free(3DAT) DAT_SRQ_IN_USE: an Endpoint uses the SRQ (DAT_INVALID_STATE, DAT_INVALID_STATE_SRQ_IN_USE)")
    void freeInUse(IaUnderTest t) {
        SrqSetup s = new SrqSetup(t, 4);
        t.expectError(DatReturn.INVALID_STATE, "dat_srq_free of an SRQ an Endpoint uses", () -> s.srq.close());
        s.ep.close();
        s.srq.close();
    }

    @ConformanceTest
    @DisplayName("dat_srq_free(3DAT) DAT_INVALID_HANDLE: freeing a freed SRQ is the Java binding's no-op and the handle stays invalid")
    void freeTwice(IaUnderTest t) {
        t.requireSrq();
        SharedReceiveQueue srq = srq(t, t.pz(), 4);
        srq.close();
        srq.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_srq_query of a twice-freed SRQ", () -> srq.query());
    }
}
