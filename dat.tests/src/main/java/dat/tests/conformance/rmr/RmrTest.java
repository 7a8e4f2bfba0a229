package dat.tests.conformance.rmr;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.HandleType;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.RemoteMemoryRegion;
import dat.api.RmrParamMask;
import dat.api.RmrParams;
import dat.api.RmrTriplet;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.DataPattern;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.rdma.RemoteAccess;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.DisplayName;

/**
 * dat_rmr_create(3DAT), dat_rmr_bind(3DAT), dat_rmr_query(3DAT), dat_rmr_free(3DAT): memory windows,
 * which dapltest never binds and unbinds. Skipped where the IA has no RMRs ({@code max_rmrs} is 0).
 * The passive side binds an RMR over its buffer through its Endpoint; the active side uses the
 * context for RDMA.
 */
class RmrTest {

    private static final int REMOTE = MemPrivileges.REMOTE_READ | MemPrivileges.REMOTE_WRITE;

    /** Binds an RMR of the passive side over part of its buffer and waits for the bind completion. */
    static int bind(IaUnderTest t, Connection c, RemoteMemoryRegion rmr, long offset, long length, int privileges, long cookie) {
        int context = rmr.bind(LmrTriplet.of(c.passive.lmr, offset, length), privileges, c.passive.ep, cookie, CompletionFlags.DEFAULT);
        DatEvent done = t.event(c.passive.requestEvd, EventNumber.RMR_BIND_COMPLETION_EVENT, "the RMR bind completion");
        t.check(done.status() == DtoCompletionStatus.SUCCESS, "the RMR bind: expected DAT_RMR_BIND_SUCCESS, got "
                + DtoCompletionStatus.name(done.status()));
        return context;
    }

    static RmrTriplet window(Connection c, int context, long offset, long length) {
        return new RmrTriplet(context, c.passive.lmr.registeredAddress() + offset, length);
    }

    /**
     * An RDMA Write through a context that the target must refuse: a protection violation at once,
     * or DAT_DTO_ERR_REMOTE_ACCESS (or the status a provider declares under
     * {@link RemoteAccess#REMOTE_ACCESS_ERROR}, its Endpoint then disconnected).
     */
    static void expectWriteRefused(IaUnderTest t, Connection c, RmrTriplet remote, String what) {
        int code = c.active.ep.postRdmaWrite(1, c.active.iov(0, remote.segmentLength()), 99, remote, CompletionFlags.DEFAULT);
        RemoteAccess.expectRefused(t, c, code, DatReturn.PROTECTION_VIOLATION, what);
    }

    @ConformanceTest
    @DisplayName("dat_rmr_create(3DAT) DAT_SUCCESS: creates an unbound RMR in the PZ")
    void create(IaUnderTest t) {
        t.requireRmrs();
        ProtectionZone pz = t.pz();
        RemoteMemoryRegion rmr = pz.createRemoteMemoryRegion();
        assertThat(rmr.handleType()).as(t.at("handle type")).isEqualTo(HandleType.RMR);
        RmrParams params = rmr.query(RmrParamMask.IA_HANDLE | RmrParamMask.PZ_HANDLE);
        assertThat(params.ia()).as(t.at("ia_handle")).isSameAs(t.ia());
        assertThat(params.pz()).as(t.at("pz_handle")).isSameAs(pz);
    }

    @ConformanceTest
    @DisplayName("dat_rmr_create(3DAT) DAT_INVALID_HANDLE: a freed PZ")
    void createFreedPz(IaUnderTest t) {
        t.requireRmrs();
        ProtectionZone pz = t.pz();
        pz.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_rmr_create in a freed PZ", () -> pz.createRemoteMemoryRegion());
    }

    @ConformanceTest
    @DisplayName("dat_rmr_bind(3DAT) DAT_SUCCESS: the bind completes on the request EVD and the new context admits remote RDMA Writes")
    void bindAndWrite(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connect();
        RemoteMemoryRegion rmr = c.passive.pz.createRemoteMemoryRegion();
        int context = rmr.bind(LmrTriplet.of(c.passive.lmr, 4096, 1024), REMOTE, c.passive.ep, 0x77, CompletionFlags.DEFAULT);
        DatEvent done = t.event(c.passive.requestEvd, EventNumber.RMR_BIND_COMPLETION_EVENT, "the RMR bind completion");
        assertThat(done.rmr()).as(t.at("rmr_handle of the bind completion")).isSameAs(rmr);
        assertThat(done.userCookie()).as(t.at("user_cookie of the bind completion")).isEqualTo(0x77);
        assertThat(done.status()).as(t.at("status of the bind completion")).isEqualTo(DtoCompletionStatus.SUCCESS);
        RmrParams params = rmr.query();
        assertThat(params.rmrContext()).as(t.at("rmr_context of the bound RMR")).isEqualTo(context);
        assertThat(params.memPrivileges()).as(t.at("mem_privileges of the bound RMR")).isEqualTo(REMOTE);
        DataPattern.fill(c.active.buffer().asSlice(0, 1024), 71);
        t.expectSuccess(c.active.ep.postRdmaWrite(1, c.active.iov(0, 1024), 1, window(c, context, 4096, 1024), CompletionFlags.DEFAULT),
                "dat_ep_post_rdma_write through the RMR");
        t.success(c.active.requestEvd, "the RDMA Write through the RMR");
        t.verify(c.passive.buffer().asSlice(4096, 1024), 71, 0, "the bytes written through the RMR");
    }

    @ConformanceTest
    @DisplayName("dat_rmr_bind(3DAT) DAT_SUCCESS: the window admits nothing outside its range")
    void windowBounds(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connect();
        RemoteMemoryRegion rmr = c.passive.pz.createRemoteMemoryRegion();
        int context = bind(t, c, rmr, 4096, 1024, REMOTE, 1);
        try {
            expectWriteRefused(t, c, window(c, context, 4096 + 1000, 64), "an RDMA Write running past the RMR's window");
        } finally { // also where the refusal is the provider's declared one
            t.check(c.passive.buffer().get(ValueLayout.JAVA_BYTE, 4096 + 1024) == 0,
                    "the refused RDMA Write changed memory past the window");
        }
    }

    @ConformanceTest
    @DisplayName("dat_rmr_bind(3DAT) DAT_SUCCESS: after a rebind the previous context fails with a protection violation")
    void rebindInvalidatesOldContext(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connect();
        RemoteMemoryRegion rmr = c.passive.pz.createRemoteMemoryRegion();
        int first = bind(t, c, rmr, 0, 512, REMOTE, 1);
        int second = bind(t, c, rmr, 1024, 512, REMOTE, 2);
        t.expectSuccess(c.active.ep.postRdmaWrite(1, c.active.iov(0, 64), 1, window(c, second, 1024, 64), CompletionFlags.DEFAULT),
                "dat_ep_post_rdma_write through the new context");
        t.success(c.active.requestEvd, "the RDMA Write through the new context");
        expectWriteRefused(t, c, window(c, first, 0, 64), "an RDMA Write through the context the rebind replaced");
    }

    @ConformanceTest
    @DisplayName("dat_rmr_bind(3DAT) DAT_SUCCESS: a segment length of zero unbinds the RMR; its context then fails")
    void unbind(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connect();
        RemoteMemoryRegion rmr = c.passive.pz.createRemoteMemoryRegion();
        int context = bind(t, c, rmr, 0, 512, REMOTE, 1);
        bind(t, c, rmr, 0, 0, REMOTE, 2);
        expectWriteRefused(t, c, window(c, context, 0, 64), "an RDMA Write through the context of an unbound RMR");
    }

    @ConformanceTest
    @DisplayName("dat_rmr_bind(3DAT) DAT_SUCCESS: a window with remote read privilege only refuses RDMA Writes")
    void readOnlyWindow(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connect();
        RemoteMemoryRegion rmr = c.passive.pz.createRemoteMemoryRegion();
        int context = bind(t, c, rmr, 0, 512, MemPrivileges.REMOTE_READ, 1);
        expectWriteRefused(t, c, window(c, context, 0, 64), "an RDMA Write through a read-only window");
    }

    @ConformanceTest
    @DisplayName("dat_rmr_bind(3DAT) DAT_SUCCESS: on a disconnected Endpoint the bind is flushed at once")
    void bindDisconnected(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connect();
        c.passive.ep.disconnect(CloseFlag.ABRUPT);
        t.event(c.passive.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED");
        t.awaitState(c.passive.ep, EpState.DISCONNECTED, "after the disconnect");
        RemoteMemoryRegion rmr = c.passive.pz.createRemoteMemoryRegion();
        rmr.bind(LmrTriplet.of(c.passive.lmr, 0, 512), REMOTE, c.passive.ep, 5, CompletionFlags.DEFAULT);
        DatEvent done = t.event(c.passive.requestEvd, EventNumber.RMR_BIND_COMPLETION_EVENT, "the bind posted when disconnected");
        t.check(done.status() == DtoCompletionStatus.ERR_FLUSHED, "a bind posted when disconnected: expected DAT_DTO_ERR_FLUSHED, got "
                + DtoCompletionStatus.name(done.status()));
    }

    @ConformanceTest
    @DisplayName("dat_rmr_bind(3DAT) DAT_INVALID_PARAMETER: the segment exceeds the limits of the LMR")
    void bindBeyondLmr(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connect();
        RemoteMemoryRegion rmr = c.passive.pz.createRemoteMemoryRegion();
        long size = c.passive.lmr.registeredSize();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_rmr_bind of a segment past the LMR's end",
                () -> rmr.bind(LmrTriplet.of(c.passive.lmr, size - 64, 128), REMOTE, c.passive.ep, 1, CompletionFlags.DEFAULT));
    }

    @ConformanceTest
    @DisplayName("dat_rmr_bind(3DAT) DAT_INVALID_STATE: the Endpoint is unconnected")
    void bindUnconnected(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connection().create();
        RemoteMemoryRegion rmr = c.passive.pz.createRemoteMemoryRegion();
        t.expectError(DatReturn.INVALID_STATE, "dat_rmr_bind through an unconnected Endpoint",
                () -> rmr.bind(LmrTriplet.of(c.passive.lmr, 0, 64), REMOTE, c.passive.ep, 1, CompletionFlags.DEFAULT));
    }

    @ConformanceTest
    @DisplayName("dat_rmr_bind(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void bindFreedEp(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connect();
        RemoteMemoryRegion rmr = c.passive.pz.createRemoteMemoryRegion();
        c.passive.ep.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_rmr_bind through a freed Endpoint",
                () -> rmr.bind(LmrTriplet.of(c.passive.lmr, 0, 64), REMOTE, c.passive.ep, 1, CompletionFlags.DEFAULT));
    }

    @ConformanceTest
    @DisplayName("dat_rmr_bind(3DAT) DAT_PRIVILEGES_VIOLATION: remote write over an LMR without local write privilege")
    void bindWithoutLmrPrivilege(IaUnderTest t) {
        // The page requires it of providers whose transport needs RMR and LMR privileges to match;
        // the binding's Javadoc of bind requires the RMR's privileges within the LMR's. An LMR with
        // local read only violates both readings.
        t.requireRmrs();
        Connection c = t.connect();
        LocalMemoryRegion readOnly = t.lmr(c.passive.ia, c.passive.pz, 4096, MemPrivileges.LOCAL_READ);
        RemoteMemoryRegion rmr = c.passive.pz.createRemoteMemoryRegion();
        t.expectError(DatReturn.PRIVILEGES_VIOLATION, "dat_rmr_bind with remote write over a local-read-only LMR",
                () -> rmr.bind(LmrTriplet.of(readOnly, 0, 64), MemPrivileges.REMOTE_WRITE, c.passive.ep, 1, CompletionFlags.DEFAULT));
    }

    @ConformanceTest
    @DisplayName("dat_rmr_bind(3DAT) DAT_PROTECTION_VIOLATION: the Endpoint is in another PZ than the RMR")
    void bindOtherPz(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connect();
        ProtectionZone other = c.passive.ia.createProtectionZone();
        RemoteMemoryRegion rmr = other.createRemoteMemoryRegion();
        LocalMemoryRegion lmr = t.lmr(c.passive.ia, other, 4096, MemPrivileges.ALL);
        t.expectError(DatReturn.PROTECTION_VIOLATION, "dat_rmr_bind through an Endpoint of another PZ",
                () -> rmr.bind(LmrTriplet.of(lmr, 0, 64), REMOTE, c.passive.ep, 1, CompletionFlags.DEFAULT));
    }

    @ConformanceTest
    @DisplayName("dat_rmr_query(3DAT) DAT_SUCCESS: a bound RMR reports its LMR segment, privileges and context")
    void query(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connect();
        RemoteMemoryRegion rmr = c.passive.pz.createRemoteMemoryRegion();
        int context = bind(t, c, rmr, 256, 512, MemPrivileges.REMOTE_READ, 1);
        RmrParams params = rmr.query(RmrParamMask.ALL);
        assertThat(params.lmrTriplet().segmentLength()).as(t.at("the bound segment's length")).isEqualTo(512);
        assertThat(params.lmrTriplet().virtualAddress()).as(t.at("the bound segment's address"))
                .isEqualTo(c.passive.lmr.registeredAddress() + 256);
        assertThat(params.memPrivileges()).as(t.at("mem_privileges")).isEqualTo(MemPrivileges.REMOTE_READ);
        assertThat(params.rmrContext()).as(t.at("rmr_context")).isEqualTo(context);
    }

    @ConformanceTest
    @DisplayName("dat_rmr_query(3DAT) DAT_INVALID_PARAMETER: a mask with undefined bits")
    void queryBadMask(IaUnderTest t) {
        t.requireRmrs();
        RemoteMemoryRegion rmr = t.pz().createRemoteMemoryRegion();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_rmr_query with rmr_param_mask 0x20", () -> rmr.query(0x20));
    }

    @ConformanceTest
    @DisplayName("dat_rmr_query(3DAT) DAT_INVALID_HANDLE: a freed RMR")
    void queryFreed(IaUnderTest t) {
        t.requireRmrs();
        RemoteMemoryRegion rmr = t.pz().createRemoteMemoryRegion();
        rmr.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_rmr_query of a freed RMR", () -> rmr.query());
    }

    @ConformanceTest
    @DisplayName("dat_rmr_free(3DAT) DAT_SUCCESS: freeing a bound RMR unbinds it; its context then fails")
    void freeBound(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connect();
        RemoteMemoryRegion rmr = c.passive.pz.createRemoteMemoryRegion();
        int context = bind(t, c, rmr, 0, 512, REMOTE, 1);
        rmr.close();
        assertThat(rmr.isOpen()).as(t.at("the freed RMR")).isFalse();
        expectWriteRefused(t, c, window(c, context, 0, 64), "an RDMA Write through a freed RMR's context");
        c.passive.lmr.close();
    }

    @ConformanceTest
    @DisplayName("dat_ep_free(3DAT) DAT_SUCCESS: the Endpoint an RMR is bound through can be freed; the RMR stays a handle to query and free")
    void freeEndpointOfBoundRmr(IaUnderTest t) {
        t.requireRmrs();
        Connection c = t.connect();
        RemoteMemoryRegion rmr = c.passive.pz.createRemoteMemoryRegion();
        bind(t, c, rmr, 0, 512, REMOTE, 1);
        c.passive.ep.close();
        assertThat(c.passive.ep.isOpen()).as(t.at("the freed Endpoint")).isFalse();
        RmrParams params = rmr.query(RmrParamMask.IA_HANDLE | RmrParamMask.PZ_HANDLE);
        assertThat(params.pz()).as(t.at("pz_handle of the RMR after its Endpoint was freed")).isSameAs(c.passive.pz);
        rmr.close();
        assertThat(rmr.isOpen()).as(t.at("the freed RMR")).isFalse();
    }

    @ConformanceTest
    @DisplayName("dat_rmr_free(3DAT) DAT_INVALID_HANDLE: freeing a freed RMR is the Java binding's no-op and the handle stays invalid")
    void freeTwice(IaUnderTest t) {
        t.requireRmrs();
        RemoteMemoryRegion rmr = t.pz().createRemoteMemoryRegion();
        rmr.close();
        rmr.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_rmr_query of a twice-freed RMR", () -> rmr.query());
    }
}
