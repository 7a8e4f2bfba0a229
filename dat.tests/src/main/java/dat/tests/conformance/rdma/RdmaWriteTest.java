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
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.DisplayName;

/** dat_ep_post_rdma_write(3DAT). */
class RdmaWriteTest {

    static void syncForRead(IaUnderTest t, Connection.Side side, long offset, long length) {
        if (t.provider().lmrSyncRequired()) {
            side.ia.syncRdmaWrite(side.iov(offset, length), 1);
        }
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_SUCCESS: every byte lands in the remote buffer; the remote consumer gets no event")
    void write(IaUnderTest t) {
        Connection c = t.connect();
        DataPattern.fill(c.active.buffer().asSlice(0, 5000), 31);
        t.expectSuccess(c.active.ep.postRdmaWrite(1, c.active.iov(0, 5000), 0xAB, c.passive.remote(8192, 5000), CompletionFlags.DEFAULT),
                "dat_ep_post_rdma_write of 5000 bytes");
        DatEvent done = t.success(c.active.requestEvd, "the RDMA Write's completion");
        assertThat(done.userCookie()).as(t.at("user_cookie of the RDMA Write completion")).isEqualTo(0xAB);
        assertThat(done.endpoint()).as(t.at("ep_handle of the RDMA Write completion")).isSameAs(c.active.ep);
        syncForRead(t, c.passive, 8192, 5000);
        t.verify(c.passive.buffer().asSlice(8192, 5000), 31, 0, "the written bytes at the target");
        t.noEvent(c.passive.recvEvd, "a receive event at the target of an RDMA Write");
        t.noEvent(c.passive.requestEvd, "a request event at the target of an RDMA Write");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_SUCCESS: the local segments are gathered in order into the remote buffer")
    void gather(IaUnderTest t) {
        Connection c = t.connect();
        int segments = Math.min(3, c.active.ep.query().attributes().maxRdmaWriteIov());
        segments = Math.max(1, segments);
        LmrTriplet[] iov = new LmrTriplet[segments];
        long total = 0;
        for (int i = 0; i < segments; i++) {
            long length = 300 + 100L * i;
            DataPattern.fill(c.active.buffer().asSlice(2000L * i, length), 40 + i);
            iov[i] = LmrTriplet.of(c.active.lmr, 2000L * i, length);
            total += length;
        }
        t.expectSuccess(c.active.ep.postRdmaWrite(segments, iov, 1, c.passive.remote(0, total), CompletionFlags.DEFAULT),
                "dat_ep_post_rdma_write of " + segments + " segments");
        t.success(c.active.requestEvd, "the RDMA Write's completion");
        syncForRead(t, c.passive, 0, total);
        long at = 0;
        for (int i = 0; i < segments; i++) {
            long length = 300 + 100L * i;
            t.verify(c.passive.buffer().asSlice(at, length), 40 + i, 0, "segment " + i + " at the target");
            at += length;
        }
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_SUCCESS: on a disconnected Endpoint the RDMA Write is flushed at once")
    void disconnected(IaUnderTest t) {
        Connection c = t.connect();
        c.active.ep.disconnect(CloseFlag.ABRUPT);
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED");
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "after the disconnect");
        t.expectSuccess(c.active.ep.postRdmaWrite(1, c.active.iov(0, 64), 3, c.passive.remote(0, 64), CompletionFlags.DEFAULT),
                "dat_ep_post_rdma_write when disconnected");
        DatEvent flushed = t.completion(c.active.requestEvd, "the RDMA Write posted when disconnected");
        t.check(flushed.status() == DtoCompletionStatus.ERR_FLUSHED, "an RDMA Write posted when disconnected: expected DAT_DTO_ERR_FLUSHED, got "
                + DtoCompletionStatus.name(flushed.status()));
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_INVALID_STATE: the Endpoint is unconnected")
    void unconnected(IaUnderTest t) {
        Connection c = t.connection().create();
        t.expectCode(DatReturn.INVALID_STATE, c.active.ep.postRdmaWrite(1, c.active.iov(0, 64), 1, c.passive.remote(0, 64),
                CompletionFlags.DEFAULT), "dat_ep_post_rdma_write on an unconnected Endpoint");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_INVALID_PARAMETER: a local segment pointing to memory outside its LMR")
    void outsideLmr(IaUnderTest t) {
        Connection c = t.connect();
        long size = c.active.lmr.registeredSize();
        t.expectCode(DatReturn.INVALID_PARAMETER, c.active.ep.postRdmaWrite(1, c.active.iov(size - 8, 64), 1, c.passive.remote(0, 64),
                CompletionFlags.DEFAULT), "dat_ep_post_rdma_write from a segment running past its LMR");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_INVALID_PARAMETER: DAT_COMPLETION_SOLICITED_WAIT_FLAG, which only a request that completes a receive of the peer may carry")
    void solicitedWaitFlag(IaUnderTest t) {
        Connection c = t.connect();
        t.expectCode(DatReturn.INVALID_PARAMETER, c.active.ep.postRdmaWrite(1, c.active.iov(0, 64), 1, c.passive.remote(0, 64),
                CompletionFlags.SOLICITED_WAIT), "dat_ep_post_rdma_write with DAT_COMPLETION_SOLICITED_WAIT_FLAG");
        t.noEvent(c.active.requestEvd, "a completion of the refused post");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_INVALID_PARAMETER: a remote buffer of negative length")
    void negativeRemoteLength(IaUnderTest t) {
        Connection c = t.connect();
        t.expectCode(DatReturn.INVALID_PARAMETER, c.active.ep.postRdmaWrite(1, c.active.iov(0, 64), 1, c.passive.remote(0, -64),
                CompletionFlags.DEFAULT), "dat_ep_post_rdma_write into a remote buffer of length -64");
        t.noEvent(c.active.requestEvd, "a completion of the refused RDMA Write");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void freed(IaUnderTest t) {
        Connection c = t.connect();
        c.active.ep.close();
        t.expectCode(DatReturn.INVALID_HANDLE, c.active.ep.postRdmaWrite(1, c.active.iov(0, 64), 1, c.passive.remote(0, 64),
                CompletionFlags.DEFAULT), "dat_ep_post_rdma_write on a freed Endpoint");
        t.expectCode(DatReturn.INVALID_HANDLE, c.active.ep.postRdmaWrite(1, c.active.iov(0, 64), 1, null, CompletionFlags.DEFAULT),
                "dat_ep_post_rdma_write on a freed Endpoint to no remote buffer: the handle is named first");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_LENGTH_ERROR: the remote buffer is too small for the local data")
    void remoteTooSmall(IaUnderTest t) {
        Connection c = t.connect();
        t.expectCode(DatReturn.LENGTH_ERROR, c.active.ep.postRdmaWrite(1, c.active.iov(0, 256), 1, c.passive.remote(0, 128),
                CompletionFlags.DEFAULT), "dat_ep_post_rdma_write of 256 bytes into a 128-byte remote buffer");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_PROTECTION_VIOLATION: a local LMR in another PZ than the Endpoint")
    void localOtherPz(IaUnderTest t) {
        Connection c = t.connect();
        LocalMemoryRegion foreign = t.lmr(c.active.ia, c.active.ia.createProtectionZone(), 4096, MemPrivileges.ALL);
        t.expectCode(DatReturn.PROTECTION_VIOLATION, c.active.ep.postRdmaWrite(1, IaUnderTest.iov(foreign, 0, 64), 1,
                c.passive.remote(0, 64), CompletionFlags.DEFAULT), "dat_ep_post_rdma_write from an LMR of another PZ");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_PROTECTION_VIOLATION: the rmr_context is of another PZ than the remote Endpoint")
    void remoteOtherPz(IaUnderTest t) {
        Connection c = t.connect();
        LocalMemoryRegion foreign = t.lmr(c.passive.ia, c.passive.ia.createProtectionZone(), 4096, MemPrivileges.ALL);
        int code = c.active.ep.postRdmaWrite(1, c.active.iov(0, 64), 1, RmrTriplet.of(foreign, 0, 64), CompletionFlags.DEFAULT);
        RemoteAccess.expectRefusedOtherPz(t, c, code, "an RDMA Write into an LMR of another PZ than the remote Endpoint");
        t.check(foreign.memory().get(ValueLayout.JAVA_BYTE, 0) == 0, "the refused RDMA Write changed the target memory");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_PRIVILEGES_VIOLATION: a local LMR without local read privilege")
    void localNoRead(IaUnderTest t) {
        Connection c = t.connect();
        LocalMemoryRegion writeOnly = t.lmr(c.active.ia, c.active.pz, 4096, MemPrivileges.LOCAL_WRITE);
        t.expectCode(DatReturn.PRIVILEGES_VIOLATION, c.active.ep.postRdmaWrite(1, IaUnderTest.iov(writeOnly, 0, 64), 1,
                c.passive.remote(0, 64), CompletionFlags.DEFAULT), "dat_ep_post_rdma_write from an LMR without local read");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_PRIVILEGES_VIOLATION: the rmr_context lacks remote write privilege")
    void remoteNoWrite(IaUnderTest t) {
        Connection c = t.connect();
        LocalMemoryRegion readOnly = t.lmr(c.passive.ia, c.passive.pz, 4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE
                | MemPrivileges.REMOTE_READ);
        int code = c.active.ep.postRdmaWrite(1, c.active.iov(0, 64), 1, RmrTriplet.of(readOnly, 0, 64), CompletionFlags.DEFAULT);
        RemoteAccess.expectRefused(t, c, code, DatReturn.PRIVILEGES_VIOLATION, "an RDMA Write into memory without remote write");
        t.check(readOnly.memory().get(ValueLayout.JAVA_BYTE, 0) == 0, "the refused RDMA Write changed the target memory");
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_SUCCESS: a remote range outside the target LMR completes with DAT_DTO_ERR_REMOTE_ACCESS")
    void remoteOutOfBounds(IaUnderTest t) {
        Connection c = t.connect();
        long size = c.passive.lmr.registeredSize();
        int code = c.active.ep.postRdmaWrite(1, c.active.iov(0, 64), 1, c.passive.remote(size - 16, 64), CompletionFlags.DEFAULT);
        RemoteAccess.expectRefused(t, c, code, DatReturn.PROTECTION_VIOLATION, "an RDMA Write running past the target LMR");
    }

    @ConformanceTest
    @DisplayName("dat_lmr_free(3DAT) DAT_SUCCESS: an RDMA Write to a freed LMR's rmr_context fails with DAT_DTO_ERR_REMOTE_ACCESS")
    void freedTarget(IaUnderTest t) {
        Connection c = t.connect();
        LocalMemoryRegion target = t.lmr(c.passive.ia, c.passive.pz, 4096, MemPrivileges.ALL);
        RmrTriplet remote = RmrTriplet.of(target, 0, 64);
        target.close();
        int code = c.active.ep.postRdmaWrite(1, c.active.iov(0, 64), 1, remote, CompletionFlags.DEFAULT);
        RemoteAccess.expectRefused(t, c, code, DatReturn.PROTECTION_VIOLATION, "an RDMA Write to a freed LMR");
    }
}
