package dat.tests.conformance.dto;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.DataPattern;
import dat.tests.conformance.internal.IaUnderTest;
import org.junit.jupiter.api.DisplayName;

/** dat_ep_post_send(3DAT). */
class PostSendTest {

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: every byte arrives; both completions carry the cookie, the Endpoint and the length")
    void send(IaUnderTest t) {
        Connection c = t.connect();
        DataPattern.fill(c.active.buffer().asSlice(0, 1000), 11);
        t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(0, 4096), 0xBEEF, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 1000), 0xCAFE, CompletionFlags.DEFAULT), "dat_ep_post_send of 1000 bytes");
        DatEvent sent = t.success(c.active.requestEvd, "the send's completion");
        assertThat(sent.userCookie()).as(t.at("user_cookie of the send completion")).isEqualTo(0xCAFE);
        assertThat(sent.endpoint()).as(t.at("ep_handle of the send completion")).isSameAs(c.active.ep);
        assertThat(sent.evd()).as(t.at("evd_handle of the send completion")).isSameAs(c.active.requestEvd);
        DatEvent received = t.success(c.passive.recvEvd, "the receive's completion");
        assertThat(received.userCookie()).as(t.at("user_cookie of the receive completion")).isEqualTo(0xBEEF);
        assertThat(received.endpoint()).as(t.at("ep_handle of the receive completion")).isSameAs(c.passive.ep);
        assertThat(received.transferredLength()).as(t.at("transferred_length of the receive completion")).isEqualTo(1000);
        t.verify(c.passive.buffer().asSlice(0, 1000), 11, 0, "the received bytes");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: the IOV segments are gathered in order into one message")
    void gather(IaUnderTest t) {
        Connection c = t.connect();
        int segments = Math.min(3, c.active.ep.query().attributes().maxRequestIov());
        LmrTriplet[] iov = new LmrTriplet[segments];
        long total = 0;
        for (int i = 0; i < segments; i++) {
            long length = 100 + 50L * i;
            long offset = 1000L * (i + 1);
            DataPattern.fill(c.active.buffer().asSlice(offset, length), 20 + i);
            iov[i] = LmrTriplet.of(c.active.lmr, offset, length);
            total += length;
        }
        t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(0, 4096), 1, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        t.expectSuccess(c.active.ep.postSend(segments, iov, 2, CompletionFlags.DEFAULT), "dat_ep_post_send of " + segments + " segments");
        t.success(c.active.requestEvd, "the send's completion");
        DatEvent received = t.success(c.passive.recvEvd, "the receive's completion");
        assertThat(received.transferredLength()).as(t.at("transferred_length of the gathered message")).isEqualTo(total);
        long at = 0;
        for (int i = 0; i < segments; i++) {
            long length = 100 + 50L * i;
            t.verify(c.passive.buffer().asSlice(at, length), 20 + i, 0, "segment " + i + " of the gathered message");
            at += length;
        }
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: a message of zero size, with no segments and a NULL IOV")
    void zeroLength(IaUnderTest t) {
        Connection c = t.connect();
        t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(0, 64), 1, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        t.expectSuccess(c.active.ep.postSend(0, null, 2, CompletionFlags.DEFAULT), "dat_ep_post_send of 0 segments");
        t.success(c.active.requestEvd, "the zero-size send's completion");
        DatEvent received = t.success(c.passive.recvEvd, "the receive of the zero-size message");
        assertThat(received.transferredLength()).as(t.at("transferred_length of a zero-size message")).isZero();
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: messages arrive, and complete, in the order they were posted")
    void order(IaUnderTest t) {
        Connection c = t.connect();
        int count = Math.min(8, c.passive.ep.query().attributes().maxRecvDtos());
        count = Math.min(count, c.active.ep.query().attributes().maxRequestDtos());
        for (int i = 0; i < count; i++) {
            t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(i * 256L, 256), 100 + i, CompletionFlags.DEFAULT), "dat_ep_post_recv " + i);
        }
        for (int i = 0; i < count; i++) {
            DataPattern.fill(c.active.buffer().asSlice(i * 256L, 256), 300 + i);
            t.expectSuccess(c.active.ep.postSend(1, c.active.iov(i * 256L, 256), i, CompletionFlags.DEFAULT), "dat_ep_post_send " + i);
        }
        for (int i = 0; i < count; i++) {
            assertThat(t.success(c.active.requestEvd, "send " + i).userCookie()).as(t.at("send completions in posting order")).isEqualTo(i);
            DatEvent received = t.success(c.passive.recvEvd, "receive " + i);
            assertThat(received.userCookie()).as(t.at("receives complete in posting order")).isEqualTo(100 + i);
            t.verify(c.passive.buffer().asSlice(i * 256L, 256), 300 + i, 0, "message " + i + " in receive " + i);
        }
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: on a disconnected Endpoint the send is flushed at once to the request EVD")
    void disconnected(IaUnderTest t) {
        Connection c = t.connect();
        c.active.ep.disconnect(CloseFlag.ABRUPT);
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED");
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "after the disconnect");
        t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 64), 9, CompletionFlags.DEFAULT), "dat_ep_post_send when disconnected");
        DatEvent flushed = t.completion(c.active.requestEvd, "the send posted when disconnected");
        t.check(flushed.status() == DtoCompletionStatus.ERR_FLUSHED, "a send posted when disconnected: expected DAT_DTO_ERR_FLUSHED, got "
                + DtoCompletionStatus.name(flushed.status()));
        assertThat(flushed.userCookie()).as(t.at("user_cookie of the flushed send")).isEqualTo(9);
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_INVALID_STATE: the Endpoint is unconnected")
    void unconnected(IaUnderTest t) {
        Connection c = t.connection().create();
        t.expectCode(DatReturn.INVALID_STATE, c.active.ep.postSend(1, c.active.iov(0, 64), 1, CompletionFlags.DEFAULT),
                "dat_ep_post_send on an unconnected Endpoint");
        t.noEvent(c.active.requestEvd, "a completion of the refused send");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_INVALID_STATE: the Endpoint's connect is pending")
    void pending(IaUnderTest t) {
        Connection c = t.connection().create();
        c.connectActive(c.psp.connQual());
        t.expectCode(DatReturn.INVALID_STATE, c.active.ep.postSend(1, c.active.iov(0, 64), 1, CompletionFlags.DEFAULT),
                "dat_ep_post_send on an active-connection-pending Endpoint");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_INVALID_PARAMETER: an IOV segment pointing to memory outside its LMR")
    void outsideLmr(IaUnderTest t) {
        Connection c = t.connect();
        long size = c.active.lmr.registeredSize();
        t.expectCode(DatReturn.INVALID_PARAMETER, c.active.ep.postSend(1, c.active.iov(size - 16, 64), 1, CompletionFlags.DEFAULT),
                "dat_ep_post_send of a segment running 48 bytes past its LMR");
        t.expectCode(DatReturn.INVALID_PARAMETER, c.active.ep.postSend(1,
                new LmrTriplet[] {new LmrTriplet(c.active.lmr.lmrContext(), c.active.lmr.registeredAddress() - 4096, 64)}, 1,
                CompletionFlags.DEFAULT), "dat_ep_post_send of a segment before its LMR");
        t.noEvent(c.active.requestEvd, "a completion of a refused send");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_INVALID_PARAMETER: num_segments negative (argument 2) or beyond the IOV (argument 3)")
    void badCount(IaUnderTest t) {
        Connection c = t.connect();
        t.expectCode(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2,
                c.active.ep.postSend(-1, c.active.iov(0, 64), 1, CompletionFlags.DEFAULT), "dat_ep_post_send of -1 segments");
        t.expectCode(DatReturn.INVALID_PARAMETER, c.active.ep.postSend(2, c.active.iov(0, 64), 1, CompletionFlags.DEFAULT),
                "dat_ep_post_send of 2 segments of a 1-entry IOV");
        t.expectCode(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3,
                c.active.ep.postSend(1, new LmrTriplet[0], 1, CompletionFlags.DEFAULT), "dat_ep_post_send of 1 segment of an empty IOV");
        t.expectCode(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3,
                c.active.ep.postSend(1, null, 1, CompletionFlags.DEFAULT), "dat_ep_post_send of 1 segment and no IOV");
        t.noEvent(c.active.requestEvd, "a completion of a refused send");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_INVALID_PARAMETER: more segments than the Endpoint's max_request_iov")
    void tooManySegments(IaUnderTest t) {
        Connection c = t.connect();
        int max = c.active.ep.query().attributes().maxRequestIov();
        t.requireFeasible(max < 4096, "max_request_iov is " + max);
        LmrTriplet[] iov = new LmrTriplet[max + 1];
        for (int i = 0; i < iov.length; i++) {
            iov[i] = LmrTriplet.of(c.active.lmr, i, 1);
        }
        t.expectCode(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, c.active.ep.postSend(iov.length, iov, 1, CompletionFlags.DEFAULT),
                "dat_ep_post_send of " + iov.length + " segments with max_request_iov " + max);
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_INVALID_PARAMETER: DAT_COMPLETION_UNSIGNALLED_FLAG on an Endpoint not configured for it")
    void unsignalledNotConfigured(IaUnderTest t) {
        Connection c = t.connect();
        t.expectCode(DatReturn.INVALID_PARAMETER, c.active.ep.postSend(1, c.active.iov(0, 64), 1, CompletionFlags.UNSIGNALLED),
                "dat_ep_post_send with DAT_COMPLETION_UNSIGNALLED_FLAG on a default Endpoint");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_INVALID_PARAMETER: undefined completion flag bits")
    void badFlags(IaUnderTest t) {
        Connection c = t.connect();
        t.expectCode(DatReturn.INVALID_PARAMETER, c.active.ep.postSend(1, c.active.iov(0, 64), 1, 0x40),
                "dat_ep_post_send with completion_flags 0x40");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void freed(IaUnderTest t) {
        Connection c = t.connect();
        c.active.ep.close();
        t.expectCode(DatReturn.INVALID_HANDLE, c.active.ep.postSend(1, c.active.iov(0, 64), 1, CompletionFlags.DEFAULT),
                "dat_ep_post_send on a freed Endpoint");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_PROTECTION_VIOLATION: the LMR of a segment is in another PZ than the Endpoint")
    void otherPz(IaUnderTest t) {
        Connection c = t.connect();
        LocalMemoryRegion foreign = t.lmr(c.active.ia, c.active.ia.createProtectionZone(), 4096, MemPrivileges.ALL);
        t.expectCode(DatReturn.PROTECTION_VIOLATION, c.active.ep.postSend(1, IaUnderTest.iov(foreign, 0, 64), 1, CompletionFlags.DEFAULT),
                "dat_ep_post_send from an LMR of another PZ");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_PRIVILEGES_VIOLATION: the LMR of a segment lacks local read privilege")
    void noLocalRead(IaUnderTest t) {
        Connection c = t.connect();
        LocalMemoryRegion writeOnly = t.lmr(c.active.ia, c.active.pz, 4096, MemPrivileges.LOCAL_WRITE);
        t.expectCode(DatReturn.PRIVILEGES_VIOLATION, c.active.ep.postSend(1, IaUnderTest.iov(writeOnly, 0, 64), 1, CompletionFlags.DEFAULT),
                "dat_ep_post_send from an LMR without DAT_MEM_PRIV_LOCAL_READ_FLAG");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_PRIVILEGES_VIOLATION: the LMR context of a segment is invalid")
    void invalidContext(IaUnderTest t) {
        Connection c = t.connect();
        LocalMemoryRegion freed = t.lmr(c.active.ia, c.active.pz, 4096, MemPrivileges.ALL);
        LmrTriplet[] iov = IaUnderTest.iov(freed, 0, 64);
        freed.close();
        int code = c.active.ep.postSend(1, iov, 1, CompletionFlags.DEFAULT);
        // dat_lmr_free(3DAT) calls a DTO on a destroyed LMR a protection violation: either code is accepted.
        t.check(DatReturn.typeOf(code) == DatReturn.PRIVILEGES_VIOLATION || DatReturn.typeOf(code) == DatReturn.PROTECTION_VIOLATION,
                "dat_ep_post_send naming a freed LMR's context: expected DAT_PRIVILEGES_VIOLATION, got " + DatReturn.describe(code));
    }
}
