package dat.tests.conformance.rdma;

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
import dat.api.RmrTriplet;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.DataPattern;
import dat.tests.conformance.internal.IaUnderTest;
import org.junit.jupiter.api.DisplayName;

/** dat_ep_post_rdma_read(3DAT), skipped where the IA supports no RDMA Read. */
class RdmaReadTest {

    static void syncForRemoteRead(IaUnderTest t, Connection.Side side, long offset, long length) {
        if (t.provider().lmrSyncRequired()) {
            side.ia.syncRdmaRead(side.iov(offset, length), 1);
        }
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_SUCCESS: every byte of the remote buffer arrives; the remote consumer gets no event")
    void read(IaUnderTest t) {
        t.requireRdmaRead();
        Connection c = t.connect();
        DataPattern.fill(c.passive.buffer().asSlice(1000, 6000), 51);
        syncForRemoteRead(t, c.passive, 1000, 6000);
        t.expectSuccess(c.active.ep.postRdmaRead(1, c.active.iov(20_000, 6000), 0xCD, c.passive.remote(1000, 6000), CompletionFlags.DEFAULT),
                "dat_ep_post_rdma_read of 6000 bytes");
        DatEvent done = t.success(c.active.requestEvd, "the RDMA Read's completion");
        assertThat(done.userCookie()).as(t.at("user_cookie of the RDMA Read completion")).isEqualTo(0xCD);
        assertThat(done.endpoint()).as(t.at("ep_handle of the RDMA Read completion")).isSameAs(c.active.ep);
        t.verify(c.active.buffer().asSlice(20_000, 6000), 51, 0, "the bytes read");
        t.noEvent(c.passive.recvEvd, "a receive event at the target of an RDMA Read");
        t.noEvent(c.passive.requestEvd, "a request event at the target of an RDMA Read");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_SUCCESS: the local segments are filled in order")
    void scatter(IaUnderTest t) {
        t.requireRdmaRead();
        Connection c = t.connect();
        int segments = Math.max(1, Math.min(3, c.active.ep.query().attributes().maxRdmaReadIov()));
        LmrTriplet[] iov = new LmrTriplet[segments];
        long total = 0;
        for (int i = 0; i < segments; i++) {
            iov[i] = LmrTriplet.of(c.active.lmr, 4000L * i, 500);
            total += 500;
        }
        DataPattern.fill(c.passive.buffer().asSlice(0, total), 61);
        syncForRemoteRead(t, c.passive, 0, total);
        t.expectSuccess(c.active.ep.postRdmaRead(segments, iov, 1, c.passive.remote(0, total), CompletionFlags.DEFAULT),
                "dat_ep_post_rdma_read into " + segments + " segments");
        t.success(c.active.requestEvd, "the RDMA Read's completion");
        for (int i = 0; i < segments; i++) {
            t.verify(c.active.buffer().asSlice(4000L * i, 500), 61, 500L * i, "segment " + i + " of the read");
        }
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_SUCCESS: on a disconnected Endpoint the RDMA Read is flushed at once")
    void disconnected(IaUnderTest t) {
        t.requireRdmaRead();
        Connection c = t.connect();
        c.active.ep.disconnect(CloseFlag.ABRUPT);
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED");
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "after the disconnect");
        t.expectSuccess(c.active.ep.postRdmaRead(1, c.active.iov(0, 64), 3, c.passive.remote(0, 64), CompletionFlags.DEFAULT),
                "dat_ep_post_rdma_read when disconnected");
        DatEvent flushed = t.completion(c.active.requestEvd, "the RDMA Read posted when disconnected");
        t.check(flushed.status() == DtoCompletionStatus.ERR_FLUSHED, "an RDMA Read posted when disconnected: expected DAT_DTO_ERR_FLUSHED, got "
                + DtoCompletionStatus.name(flushed.status()));
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_INVALID_STATE: the Endpoint is unconnected")
    void unconnected(IaUnderTest t) {
        t.requireRdmaRead();
        Connection c = t.connection().create();
        t.expectCode(DatReturn.INVALID_STATE, c.active.ep.postRdmaRead(1, c.active.iov(0, 64), 1, c.passive.remote(0, 64),
                CompletionFlags.DEFAULT), "dat_ep_post_rdma_read on an unconnected Endpoint");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_INVALID_PARAMETER: a local segment pointing to memory outside its LMR")
    void outsideLmr(IaUnderTest t) {
        t.requireRdmaRead();
        Connection c = t.connect();
        long size = c.active.lmr.registeredSize();
        t.expectCode(DatReturn.INVALID_PARAMETER, c.active.ep.postRdmaRead(1, c.active.iov(size - 8, 64), 1, c.passive.remote(0, 64),
                CompletionFlags.DEFAULT), "dat_ep_post_rdma_read into a segment running past its LMR");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_INVALID_PARAMETER: DAT_COMPLETION_SOLICITED_WAIT_FLAG, which only a request that completes a receive of the peer may carry")
    void solicitedWaitFlag(IaUnderTest t) {
        Connection c = t.connect();
        t.expectCode(DatReturn.INVALID_PARAMETER, c.active.ep.postRdmaRead(1, c.active.iov(0, 64), 1, c.passive.remote(0, 64),
                CompletionFlags.SOLICITED_WAIT), "dat_ep_post_rdma_read with DAT_COMPLETION_SOLICITED_WAIT_FLAG");
        t.noEvent(c.active.requestEvd, "a completion of the refused post");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_INVALID_PARAMETER: a remote buffer of negative length")
    void negativeRemoteLength(IaUnderTest t) {
        t.requireRdmaRead();
        Connection c = t.connect();
        t.expectCode(DatReturn.INVALID_PARAMETER, c.active.ep.postRdmaRead(1, c.active.iov(0, 64), 1, c.passive.remote(0, -64),
                CompletionFlags.DEFAULT), "dat_ep_post_rdma_read from a remote buffer of length -64");
        t.noEvent(c.active.requestEvd, "a completion of the refused RDMA Read");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void freed(IaUnderTest t) {
        t.requireRdmaRead();
        Connection c = t.connect();
        c.active.ep.close();
        t.expectCode(DatReturn.INVALID_HANDLE, c.active.ep.postRdmaRead(1, c.active.iov(0, 64), 1, c.passive.remote(0, 64),
                CompletionFlags.DEFAULT), "dat_ep_post_rdma_read on a freed Endpoint");
        t.expectCode(DatReturn.INVALID_HANDLE, c.active.ep.postRdmaRead(1, c.active.iov(0, 64), 1, null, CompletionFlags.DEFAULT),
                "dat_ep_post_rdma_read on a freed Endpoint from no remote buffer: the handle is named first");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_LENGTH_ERROR: the local buffer is too small for the remote data")
    void localTooSmall(IaUnderTest t) {
        t.requireRdmaRead();
        Connection c = t.connect();
        t.expectCode(DatReturn.LENGTH_ERROR, c.active.ep.postRdmaRead(1, c.active.iov(0, 128), 1, c.passive.remote(0, 256),
                CompletionFlags.DEFAULT), "dat_ep_post_rdma_read of 256 remote bytes into 128 local bytes");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_PROTECTION_VIOLATION: a local LMR in another PZ than the Endpoint")
    void localOtherPz(IaUnderTest t) {
        t.requireRdmaRead();
        Connection c = t.connect();
        LocalMemoryRegion foreign = t.lmr(c.active.ia, c.active.ia.createProtectionZone(), 4096, MemPrivileges.ALL);
        t.expectCode(DatReturn.PROTECTION_VIOLATION, c.active.ep.postRdmaRead(1, IaUnderTest.iov(foreign, 0, 64), 1,
                c.passive.remote(0, 64), CompletionFlags.DEFAULT), "dat_ep_post_rdma_read into an LMR of another PZ");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_PRIVILEGES_VIOLATION: a local LMR without local write privilege")
    void localNoWrite(IaUnderTest t) {
        t.requireRdmaRead();
        Connection c = t.connect();
        LocalMemoryRegion readOnly = t.lmr(c.active.ia, c.active.pz, 4096, MemPrivileges.LOCAL_READ);
        t.expectCode(DatReturn.PRIVILEGES_VIOLATION, c.active.ep.postRdmaRead(1, IaUnderTest.iov(readOnly, 0, 64), 1,
                c.passive.remote(0, 64), CompletionFlags.DEFAULT), "dat_ep_post_rdma_read into an LMR without local write");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_PRIVILEGES_VIOLATION: the rmr_context lacks remote read privilege")
    void remoteNoRead(IaUnderTest t) {
        t.requireRdmaRead();
        Connection c = t.connect();
        LocalMemoryRegion writeOnly = t.lmr(c.passive.ia, c.passive.pz, 4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE
                | MemPrivileges.REMOTE_WRITE);
        int code = c.active.ep.postRdmaRead(1, c.active.iov(0, 64), 1, RmrTriplet.of(writeOnly, 0, 64), CompletionFlags.DEFAULT);
        RemoteAccess.expectRefused(t, c, code, DatReturn.PRIVILEGES_VIOLATION, "an RDMA Read of memory without remote read");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_PROTECTION_VIOLATION: the rmr_context is of another PZ than the remote Endpoint")
    void remoteOtherPz(IaUnderTest t) {
        t.requireRdmaRead();
        Connection c = t.connect();
        LocalMemoryRegion foreign = t.lmr(c.passive.ia, c.passive.ia.createProtectionZone(), 4096, MemPrivileges.ALL);
        int code = c.active.ep.postRdmaRead(1, c.active.iov(0, 64), 1, RmrTriplet.of(foreign, 0, 64), CompletionFlags.DEFAULT);
        RemoteAccess.expectRefusedOtherPz(t, c, code, "an RDMA Read of an LMR of another PZ than the remote Endpoint");
    }
}
