package dat.tests.conformance.dto;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EventNumber;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.DataPattern;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.internal.Waiters;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;

/** The completion flags of dat_ep_post_send(3DAT) and dat_ep_post_rdma_read(3DAT), each skipped where the provider does not support it. */
class CompletionFlagsTest {

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: DAT_COMPLETION_SUPPRESS_FLAG suppresses the completion event of a successful send")
    void suppress(IaUnderTest t) {
        t.requireSupported(t.supportsCompletionFlag(CompletionFlags.SUPPRESS), "DAT_COMPLETION_SUPPRESS_FLAG (completion_flags_supported)");
        Connection c = t.connect();
        t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(0, 64), 1, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(64, 64), 2, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 64), 10, CompletionFlags.SUPPRESS), "a suppressed dat_ep_post_send");
        t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 64), 11, CompletionFlags.DEFAULT), "a default dat_ep_post_send");
        DatEvent completion = t.success(c.active.requestEvd, "the completion after the suppressed send");
        assertThat(completion.userCookie()).as(t.at("the only send completion is the unsuppressed one's")).isEqualTo(11);
        t.success(c.passive.recvEvd, "the suppressed send's message");
        t.success(c.passive.recvEvd, "the default send's message");
        t.noEvent(c.active.requestEvd, "a completion of the suppressed send");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: DAT_COMPLETION_UNSIGNALLED_FLAG is accepted on an Endpoint whose request completion flags allow it")
    void unsignalled(IaUnderTest t) {
        Connection c = t.unsignalledConnection();
        t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(0, 64), 1, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        DataPattern.fill(c.active.buffer().asSlice(0, 64), 5);
        t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 64), 10, CompletionFlags.UNSIGNALLED), "an unsignalled dat_ep_post_send");
        t.success(c.passive.recvEvd, "the unsignalled send's message");
        t.verify(c.passive.buffer().asSlice(0, 64), 5, 0, "the unsignalled send's bytes");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: DAT_COMPLETION_UNSIGNALLED_FLAG is a non-notification completion: the successful"
            + " send's event is still queued")
    void unsignalledCompletionIsQueued(IaUnderTest t) {
        Connection c = t.unsignalledConnection();
        t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(0, 64), 1, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 64), 10, CompletionFlags.UNSIGNALLED), "an unsignalled dat_ep_post_send");
        t.success(c.passive.recvEvd, "the unsignalled send's message");
        // dequeued, not awaited: the completion need not wake a waiter, but it must be there
        DatEvent completion = new DatEvent();
        long deadline = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(IaUnderTest.EVENT_TIMEOUT_MICROS);
        int code;
        while ((code = c.active.requestEvd.dequeue(completion)) != DatReturn.SUCCESS && System.nanoTime() < deadline) {
            Waiters.sleepMillis(1);
        }
        t.expectSuccess(code, "dat_evd_dequeue of the unsignalled send's completion");
        assertThat(completion.eventNumber()).as(t.at("the event of the unsignalled send")).isEqualTo(EventNumber.DTO_COMPLETION_EVENT);
        assertThat(completion.userCookie()).as(t.at("user_cookie of the unsignalled send's completion")).isEqualTo(10);
        assertThat(completion.status()).as(t.at("its status")).isEqualTo(DtoCompletionStatus.SUCCESS);
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: DAT_COMPLETION_SOLICITED_WAIT_FLAG delivers the message to the matching receive")
    void solicitedWait(IaUnderTest t) {
        t.requireSupported(t.supportsCompletionFlag(CompletionFlags.SOLICITED_WAIT), "DAT_COMPLETION_SOLICITED_WAIT_FLAG (completion_flags_supported)");
        Connection c = t.connect();
        t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(0, 64), 1, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 64), 10, CompletionFlags.SOLICITED_WAIT), "a solicited dat_ep_post_send");
        t.success(c.active.requestEvd, "the solicited send's completion");
        t.success(c.passive.recvEvd, "the solicited send's message");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_SUCCESS: a send with DAT_COMPLETION_BARRIER_FENCE_FLAG completes after the earlier RDMA Read")
    void barrierFence(IaUnderTest t) {
        t.requireSupported(t.supportsCompletionFlag(CompletionFlags.BARRIER_FENCE), "DAT_COMPLETION_BARRIER_FENCE_FLAG (completion_flags_supported)");
        t.requireRdmaRead();
        Connection c = t.connect();
        DataPattern.fill(c.passive.buffer().asSlice(4096, 512), 9);
        t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(0, 64), 1, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        t.expectSuccess(c.active.ep.postRdmaRead(1, c.active.iov(4096, 512), 20, c.passive.remote(4096, 512), CompletionFlags.DEFAULT),
                "dat_ep_post_rdma_read");
        t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 64), 21, CompletionFlags.BARRIER_FENCE), "a fenced dat_ep_post_send");
        assertThat(t.success(c.active.requestEvd, "the first request completion").userCookie()).as(t.at("the RDMA Read completes first"))
                .isEqualTo(20);
        assertThat(t.success(c.active.requestEvd, "the second request completion").userCookie()).as(t.at("the fenced send completes second"))
                .isEqualTo(21);
        t.verify(c.active.buffer().asSlice(4096, 512), 9, 0, "the bytes read before the fenced send");
        t.success(c.passive.recvEvd, "the fenced send's message");
    }
}
