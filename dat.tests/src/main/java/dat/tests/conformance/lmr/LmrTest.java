package dat.tests.conformance.lmr;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.DatReturn;
import dat.api.EventNumber;
import dat.api.InterfaceAdapter;
import dat.api.LmrParamMask;
import dat.api.LmrParams;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.MemoryType;
import dat.api.ProtectionZone;
import dat.api.RemoteMemoryRegion;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.FreedLmrReceive;
import dat.tests.conformance.internal.DataPattern;
import dat.tests.conformance.internal.IaUnderTest;
import org.junit.jupiter.api.DisplayName;

/** dat_lmr_query(3DAT), dat_lmr_free(3DAT), dat_lmr_sync_rdma_read(3DAT), dat_lmr_sync_rdma_write(3DAT). */
class LmrTest {

    @ConformanceTest
    @DisplayName("dat_lmr_query(3DAT) DAT_SUCCESS: reports the IA, type, region, length, PZ, privileges, contexts and registered range")
    void query(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        LocalMemoryRegion lmr = t.lmr(pz, 4096, MemPrivileges.ALL);
        LmrParams params = lmr.query(LmrParamMask.ALL);
        assertThat(params.ia()).as(t.at("ia_handle")).isSameAs(t.ia());
        assertThat(params.memType()).as(t.at("mem_type")).isEqualTo(MemoryType.VIRTUAL);
        assertThat(params.length()).as(t.at("length")).isEqualTo(4096);
        assertThat(params.pz()).as(t.at("pz_handle")).isSameAs(pz);
        assertThat(params.memPrivileges()).as(t.at("mem_privileges")).isEqualTo(MemPrivileges.ALL);
        assertThat(params.lmrContext()).as(t.at("lmr_context")).isEqualTo(lmr.lmrContext());
        assertThat(params.rmrContext()).as(t.at("rmr_context")).isEqualTo(lmr.rmrContext());
        assertThat(params.registeredAddress()).as(t.at("registered_address")).isEqualTo(lmr.registeredAddress());
        assertThat(params.registeredSize()).as(t.at("registered_size")).isEqualTo(lmr.registeredSize());
        assertThat(lmr.query(LmrParamMask.LMR_CONTEXT).lmrContext()).as(t.at("lmr_context asked for by mask"))
                .isEqualTo(lmr.lmrContext());
    }

    @ConformanceTest
    @DisplayName("dat_lmr_query(3DAT) DAT_INVALID_PARAMETER: a mask with undefined bits")
    void queryBadMask(IaUnderTest t) {
        LocalMemoryRegion lmr = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_query with lmr_param_mask 0x400", () -> lmr.query(0x400));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_query(3DAT) DAT_INVALID_HANDLE: a freed LMR")
    void queryFreed(IaUnderTest t) {
        LocalMemoryRegion lmr = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        lmr.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_lmr_query of a freed LMR", () -> lmr.query());
    }

    @ConformanceTest
    @DisplayName("dat_lmr_free(3DAT) DAT_SUCCESS: frees the LMR but not the memory, and a DTO using it afterwards fails")
    void free(IaUnderTest t) {
        Connection c = t.connect();
        LocalMemoryRegion lmr = t.lmr(c.active.ia, c.active.pz, 4096, MemPrivileges.ALL);
        LmrTriplet[] iov = IaUnderTest.iov(lmr, 0, 64);
        lmr.memory().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 42);
        lmr.close();
        assertThat(lmr.isOpen()).as(t.at("the freed LMR")).isFalse();
        assertThat(lmr.memory().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0)).as(t.at("the memory stays the consumer's"))
                .isEqualTo((byte) 42);
        // "Any DTO operation that uses the destroyed LMR ... shall fail and report a protection
        // violation"; dat_ep_post_send(3DAT) calls an invalid LMR a privileges violation: either is accepted.
        int code = c.active.ep.postSend(1, iov, 1, CompletionFlags.DEFAULT);
        t.check(DatReturn.typeOf(code) == DatReturn.PROTECTION_VIOLATION || DatReturn.typeOf(code) == DatReturn.PRIVILEGES_VIOLATION,
                "dat_ep_post_send from a freed LMR: expected DAT_PROTECTION_VIOLATION or DAT_PRIVILEGES_VIOLATION, got "
                        + DatReturn.describe(code));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_free(3DAT) DAT_SUCCESS: a receive posted into the LMR before the free fails with"
            + " DAT_DTO_ERR_LOCAL_PROTECTION when its message arrives")
    void freeUnderAPostedReceive(IaUnderTest t) {
        Connection c = t.connect();
        LocalMemoryRegion lmr = t.lmr(c.passive.ia, c.passive.pz, 4096, MemPrivileges.ALL);
        t.expectSuccess(c.passive.ep.postRecv(1, IaUnderTest.iov(lmr, 0, 64), 1, CompletionFlags.DEFAULT),
                "dat_ep_post_recv into the LMR");
        lmr.close();
        DataPattern.fill(c.active.buffer().asSlice(0, 64), 3);
        t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 64), 2, CompletionFlags.DEFAULT), "dat_ep_post_send of 64 bytes");
        FreedLmrReceive.expectProtectionViolation(t, t.completion(c.passive.recvEvd, "the receive into the freed LMR"), 1);
    }

    @ConformanceTest
    @DisplayName("dat_lmr_free(3DAT) DAT_INVALID_STATE: an RMR is bound to the LMR")
    void inUseByRmr(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connect();
        RemoteMemoryRegion rmr = c.active.pz.createRemoteMemoryRegion();
        rmr.bind(LmrTriplet.of(c.active.lmr, 0, 256), MemPrivileges.REMOTE_READ | MemPrivileges.REMOTE_WRITE, c.active.ep, 7,
                CompletionFlags.DEFAULT);
        t.event(c.active.requestEvd, EventNumber.RMR_BIND_COMPLETION_EVENT, "the RMR bind completion");
        t.expectError(DatReturn.INVALID_STATE, "dat_lmr_free of an LMR with a bound RMR", () -> c.active.lmr.close());
        assertThat(c.active.lmr.isOpen()).as(t.at("the LMR after the refused free")).isTrue();
        rmr.close();
        c.active.lmr.close();
    }

    @ConformanceTest
    @DisplayName("dat_lmr_free(3DAT) DAT_INVALID_HANDLE: freeing a freed LMR is the Java binding's no-op and the handle stays invalid")
    void freeTwice(IaUnderTest t) {
        LocalMemoryRegion lmr = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        lmr.close();
        lmr.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_lmr_query of a twice-freed LMR", () -> lmr.query());
    }

    @ConformanceTest
    @DisplayName("dat_lmr_sync_rdma_read(3DAT) DAT_SUCCESS: segments of several LMRs in different PZs")
    void syncRead(IaUnderTest t) {
        LocalMemoryRegion a = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        LocalMemoryRegion b = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        t.ia().syncRdmaRead(new LmrTriplet[] {LmrTriplet.of(a, 0, 4096), LmrTriplet.of(b, 100, 200)}, 2);
    }

    @ConformanceTest
    @DisplayName("dat_lmr_sync_rdma_read(3DAT) DAT_INVALID_PARAMETER: a segment outside its LMR")
    void syncReadOutside(IaUnderTest t) {
        LocalMemoryRegion lmr = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        long beyond = lmr.registeredSize();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_sync_rdma_read of a segment past the LMR's end",
                () -> t.ia().syncRdmaRead(new LmrTriplet[] {LmrTriplet.of(lmr, beyond - 8, 64)}, 1));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_sync_rdma_read(3DAT) DAT_INVALID_PARAMETER: an invalid LMR (a freed one's context)")
    void syncReadFreedLmr(IaUnderTest t) {
        LocalMemoryRegion lmr = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        LmrTriplet[] segments = {LmrTriplet.of(lmr, 0, 64)};
        lmr.close();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_sync_rdma_read of a freed LMR", () -> t.ia().syncRdmaRead(segments, 1));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_sync_rdma_read(3DAT) DAT_INVALID_HANDLE: the IA is closed")
    void syncReadClosedIa(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        LocalMemoryRegion lmr = t.lmr(ia, ia.createProtectionZone(), 4096, MemPrivileges.ALL);
        LmrTriplet[] segments = {LmrTriplet.of(lmr, 0, 64)};
        ia.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_lmr_sync_rdma_read on a closed IA", () -> ia.syncRdmaRead(segments, 1));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_sync_rdma_write(3DAT) DAT_SUCCESS: segments of several LMRs in different PZs")
    void syncWrite(IaUnderTest t) {
        LocalMemoryRegion a = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        LocalMemoryRegion b = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        t.ia().syncRdmaWrite(new LmrTriplet[] {LmrTriplet.of(a, 0, 4096), LmrTriplet.of(b, 4000, 96)}, 2);
    }

    @ConformanceTest
    @DisplayName("dat_lmr_sync_rdma_write(3DAT) DAT_INVALID_PARAMETER: a segment outside its LMR")
    void syncWriteOutside(IaUnderTest t) {
        LocalMemoryRegion lmr = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_sync_rdma_write of a segment before the LMR's start",
                () -> t.ia().syncRdmaWrite(new LmrTriplet[] {
                    new LmrTriplet(lmr.lmrContext(), lmr.registeredAddress() - 64, 128)}, 1));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_sync_rdma_write(3DAT) DAT_INVALID_PARAMETER: num_segments larger than the array")
    void syncWriteBadCount(IaUnderTest t) {
        LocalMemoryRegion lmr = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_sync_rdma_write of 2 segments of a 1-entry array",
                () -> t.ia().syncRdmaWrite(new LmrTriplet[] {LmrTriplet.of(lmr, 0, 64)}, 2));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_sync_rdma_write(3DAT) DAT_INVALID_HANDLE: the IA is closed")
    void syncWriteClosedIa(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        LocalMemoryRegion lmr = t.lmr(ia, ia.createProtectionZone(), 4096, MemPrivileges.ALL);
        LmrTriplet[] segments = {LmrTriplet.of(lmr, 0, 64)};
        ia.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_lmr_sync_rdma_write on a closed IA", () -> ia.syncRdmaWrite(segments, 1));
    }
}
