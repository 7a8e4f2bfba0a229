package dat.provider.sim.internal.core;

import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.SimIaFactory;
import dat.provider.sim.internal.ThreadLimit;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.Codes.throwsCode;
import static dat.provider.sim.internal.Codes.throwsType;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.InterfaceAdapter;
import dat.api.LmrParamMask;
import dat.api.LmrParams;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.MemoryType;
import dat.api.ProtectionZone;
import dat.api.RegionDescription;
import dat.api.RemoteMemoryRegion;
import dat.api.RmrParams;
import dat.api.RmrTriplet;
import dat.api.spi.IaOpenRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** dat_lmr_create/query/free, dat_lmr_sync_rdma_read/write, dat_rmr_create/bind/query/free. */
@Timeout(30)
class MemoryTest {

    private final Fabric f = new Fabric();

    @AfterEach
    void close() {
        f.close();
    }

    /** An RMR of {@code s}'s PZ bound to the first {@code length} bytes of its LMR for remote writes, its bind completed. */
    private static RemoteMemoryRegion boundForRemoteWrite(Fabric.Side s, long length) {
        RemoteMemoryRegion rmr = s.pz.createRemoteMemoryRegion();
        rmr.bind(LmrTriplet.of(s.lmr, 0, length), MemPrivileges.REMOTE_WRITE, s.ep, 1, 0);
        s.expect(s.reqEvd, EventNumber.RMR_BIND_COMPLETION_EVENT);
        return rmr;
    }

    @Test
    void dat_lmr_create_SUCCESS_virtual_reportsItsRangeAndContexts() {
        InterfaceAdapter ia = f.open("sim0");
        ProtectionZone pz = ia.createProtectionZone();
        MemorySegment m = f.memory(4096);
        LocalMemoryRegion lmr = ia.registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(m), 1000, pz, MemPrivileges.ALL);
        assertThat(lmr.registeredAddress()).isEqualTo(m.address());
        assertThat(lmr.registeredSize()).isEqualTo(1000);
        assertThat(lmr.lmrContext()).isNotZero();
        assertThat(lmr.rmrContext()).isNotZero();
        LmrParams q = lmr.query(LmrParamMask.ALL);
        assertThat(q.memType()).isEqualTo(MemoryType.VIRTUAL);
        assertThat(q.length()).isEqualTo(1000);
        assertThat(q.pz()).isSameAs(pz);
        assertThat(q.lmrContext()).isEqualTo(lmr.lmrContext());
    }

    @Test
    void dat_lmr_create_withoutRemotePrivilegesHasNoRmrContext() {
        InterfaceAdapter ia = f.open("sim0");
        LocalMemoryRegion lmr = ia.registerMemory(f.memory(64), ia.createProtectionZone(), MemPrivileges.LOCAL_READ);
        assertThat(lmr.rmrContext()).isZero();
    }

    @Test
    void dat_lmr_create_INVALID_PARAMETER_badLengthRegionOrPrivileges() {
        InterfaceAdapter ia = f.open("sim0");
        ProtectionZone pz = ia.createProtectionZone();
        MemorySegment m = f.memory(64);
        throwsCode(() -> ia.registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(m), 65, pz, 0x11),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4);
        throwsCode(() -> ia.registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(m), 0, pz, 0x11),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4);
        throwsCode(() -> ia.registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(m), 64, pz, 0x1000),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6);
        throwsCode(() -> ia.registerMemory(MemoryType.LMR, RegionDescription.virtual(m), 64, pz, 0x11),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        MemorySegment heap = MemorySegment.ofArray(new byte[64]);
        throwsCode(() -> ia.registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(heap), 64, pz, 0x11),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        // confined to this thread: the peer's posts and a TCP connection's threads could not reach it
        try (java.lang.foreign.Arena confined = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment mine = confined.allocate(64);
            throwsCode(() -> ia.registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(mine), 64, pz, 0x11),
                    DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        }
        try (java.lang.foreign.Arena shared = java.lang.foreign.Arena.ofShared()) {
            ia.registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(shared.allocate(64)), 64, pz, 0x11).close();
        }
        ia.registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(java.lang.foreign.Arena.ofAuto().allocate(64)), 64, pz, 0x11).close();
        ia.registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(java.lang.foreign.Arena.global().allocate(64)), 64, pz, 0x11).close();
        throwsCode(() -> ia.registerMemory(null, RegionDescription.virtual(m), 64, pz, 0x11),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
    }

    @Test
    void dat_lmr_create_INVALID_HANDLE_forAFreedPz() {
        InterfaceAdapter ia = f.open("sim0");
        ProtectionZone pz = ia.createProtectionZone();
        pz.close();
        throwsCode(() -> ia.registerMemory(f.memory(8), pz, 0x11), DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_PZ);
    }

    @Test
    void dat_lmr_create_INSUFFICIENT_RESOURCES_pastMaxLmrs() {
        InterfaceAdapter ia = f.factory.openIa(new IaOpenRequest("simL", 8, null, "max_lmrs=2"));
        ProtectionZone pz = ia.createProtectionZone();
        LocalMemoryRegion a = ia.registerMemory(f.memory(8), pz, 0x11);
        ia.registerMemory(f.memory(8), pz, 0x11);
        throwsCode(() -> ia.registerMemory(f.memory(8), pz, 0x11), DatReturn.INSUFFICIENT_RESOURCES,
                DatReturn.RESOURCE_MEMORY_REGION);
        a.close();
        ia.registerMemory(f.memory(8), pz, 0x11);
    }

    @Test
    void dat_lmr_create_LMR_sharesTheRegistrationWithAnotherPzAndPrivileges() {
        InterfaceAdapter ia = f.open("sim0");
        ProtectionZone pz1 = ia.createProtectionZone();
        ProtectionZone pz2 = ia.createProtectionZone();
        LocalMemoryRegion base = ia.registerMemory(f.memory(128), pz1, MemPrivileges.ALL);
        LocalMemoryRegion shared = ia.registerMemory(MemoryType.LMR, RegionDescription.ofLmr(base), 0, pz2, MemPrivileges.LOCAL_READ);
        assertThat(shared.registeredAddress()).isEqualTo(base.registeredAddress());
        assertThat(shared.registeredSize()).isEqualTo(128);
        assertThat(shared.query().pz()).isSameAs(pz2);
        throwsCode(base::close, DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_LMR_IN_USE);
        shared.close();
        base.close();
    }

    private MemorySegment mappedMemory(long size) throws java.io.IOException {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("sim-shared", ".mem");
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE,
                java.nio.file.StandardOpenOption.DELETE_ON_CLOSE)) {
            return channel.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, size, f.arena);
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    @Test
    void dat_lmr_create_SHARED_VIRTUAL_sameCookieSharesTheMemory_otherMemoryIsInvalidState() throws Exception {
        InterfaceAdapter ia = f.open("sim0");
        ProtectionZone pz = ia.createProtectionZone();
        MemorySegment m = mappedMemory(256);
        byte[] cookie = new byte[DatConstants.LMR_COOKIE_SIZE];
        cookie[39] = 7;
        LocalMemoryRegion a = ia.registerMemory(MemoryType.SHARED_VIRTUAL, RegionDescription.sharedMemory(m, cookie), 256, pz, 0x33);
        InterfaceAdapter other1 = f.open("sim1");
        LocalMemoryRegion b = other1.registerMemory(MemoryType.SHARED_VIRTUAL, RegionDescription.sharedMemory(m, cookie),
                256, other1.createProtectionZone(), 0x33);
        assertThat(b.registeredAddress()).isEqualTo(a.registeredAddress());
        MemorySegment other = mappedMemory(256);
        throwsType(() -> ia.registerMemory(MemoryType.SHARED_VIRTUAL, RegionDescription.sharedMemory(other, cookie), 256, pz, 0x33),
                DatReturn.INVALID_STATE);
        cookie[0] = 1; // another cookie is another region
        ia.registerMemory(MemoryType.SHARED_VIRTUAL, RegionDescription.sharedMemory(other, cookie), 256, pz, 0x33);
    }

    @Test
    void dat_lmr_create_INVALID_STATE_sharedVirtualOfMemoryThePlatformDidNotCreateShared() {
        InterfaceAdapter ia = f.open("sim0");
        byte[] cookie = new byte[DatConstants.LMR_COOKIE_SIZE];
        throwsType(() -> ia.registerMemory(MemoryType.SHARED_VIRTUAL, RegionDescription.sharedMemory(f.memory(64), cookie), 64,
                ia.createProtectionZone(), 0x33), DatReturn.INVALID_STATE);
    }

    @Test
    void dat_lmr_create_INSUFFICIENT_RESOURCES_atTheFullDefaultLimitQuickly() {
        InterfaceAdapter ia = f.open("sim0");
        ProtectionZone pz = ia.createProtectionZone();
        MemorySegment m = f.memory(64);
        int max = ia.query().iaAttributes().maxLmrs();
        for (int i = 0; i < max; i++) {
            ia.registerMemory(m, pz, MemPrivileges.ALL);
        }
        throwsCode(() -> ia.registerMemory(m, pz, MemPrivileges.ALL), DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY_REGION);
        ia.close();
    }

    @Test
    void dat_lmr_create_SO_VIRTUAL_isAccepted() {
        InterfaceAdapter ia = f.open("sim0");
        MemorySegment m = f.memory(64);
        LocalMemoryRegion lmr = ia.registerMemory(MemoryType.SO_VIRTUAL, RegionDescription.virtual(m), 64, ia.createProtectionZone(), 0x11);
        assertThat(lmr.query().memType()).isEqualTo(MemoryType.SO_VIRTUAL);
    }

    @Test
    void dat_lmr_query_INVALID_PARAMETER_and_INVALID_HANDLE() {
        InterfaceAdapter ia = f.open("sim0");
        LocalMemoryRegion lmr = ia.registerMemory(f.memory(8), ia.createProtectionZone(), 0x11);
        throwsCode(() -> lmr.query(0x400), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        lmr.close();
        throwsCode(lmr::query, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_LMR);
    }

    @Test
    void dat_lmr_free_INVALID_STATE_whileAnRmrIsBound() {
        try (Fabric g = new Fabric()) {
            Fabric.Pair p = g.new Pair();
            RemoteMemoryRegion rmr = boundForRemoteWrite(p.a, 64);
            throwsCode(p.a.lmr::close, DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_LMR_IN_USE);
            rmr.close();
            p.a.lmr.close();
            throwsCode(p.a.lmr::query, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_LMR);
        }
    }

    @Test
    void lmrContextsAreRandomAndNeverReusedWhileValid() {
        InterfaceAdapter ia = f.open("sim0");
        ProtectionZone pz = ia.createProtectionZone();
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            LocalMemoryRegion lmr = ia.registerMemory(f.memory(8), pz, MemPrivileges.ALL);
            assertThat(seen.add(lmr.lmrContext())).isTrue();
            assertThat(seen.add(lmr.rmrContext())).isTrue();
        }
        assertThat(seen).doesNotContain(0, 1, 2);
    }

    @Test
    void dat_lmr_sync_rdma_read_and_write_checkSegments() {
        InterfaceAdapter ia = f.open("sim0");
        LocalMemoryRegion lmr = ia.registerMemory(f.memory(64), ia.createProtectionZone(), 0x11);
        LmrTriplet[] good = {LmrTriplet.of(lmr, 0, 64)};
        ia.syncRdmaRead(good, 1);
        ia.syncRdmaWrite(good, 1);
        LmrTriplet[] bad = {LmrTriplet.of(lmr, 1, 64)};
        throwsType(() -> ia.syncRdmaRead(bad, 1), DatReturn.INVALID_PARAMETER);
        throwsType(() -> ia.syncRdmaWrite(bad, 1), DatReturn.INVALID_PARAMETER);
        throwsType(() -> ia.syncRdmaWrite(good, 2), DatReturn.INVALID_PARAMETER);
        LmrTriplet[] unknown = {new LmrTriplet(12345, 0, 8)};
        throwsType(() -> ia.syncRdmaRead(unknown, 1), DatReturn.INVALID_PARAMETER);
        ia.close();
        throwsType(() -> ia.syncRdmaRead(good, 1), DatReturn.INVALID_HANDLE);
    }

    @Test
    void dat_rmr_create_SUCCESS_unbound_and_INVALID_HANDLE_and_INSUFFICIENT_RESOURCES() {
        InterfaceAdapter ia = f.factory.openIa(new IaOpenRequest("simR", 8, null, "max_rmrs=1"));
        ProtectionZone pz = ia.createProtectionZone();
        RemoteMemoryRegion rmr = pz.createRemoteMemoryRegion();
        RmrParams q = rmr.query();
        assertThat(q.lmrTriplet()).isNull();
        assertThat(q.rmrContext()).isZero();
        throwsCode(pz::createRemoteMemoryRegion, DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY_REGION);
        rmr.close();
        throwsCode(rmr::query, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_RMR);
        ProtectionZone gone = ia.createProtectionZone();
        gone.close();
        throwsCode(gone::createRemoteMemoryRegion, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_PZ);
    }

    @Test
    void dat_rmr_query_INVALID_PARAMETER() {
        RemoteMemoryRegion rmr = f.open("sim0").createProtectionZone().createRemoteMemoryRegion();
        throwsCode(() -> rmr.query(0x40), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
    }

    @Test
    void dat_rmr_bind_completesOnTheRequestEvd_grantsRdma_andTheOldContextDiesAtOnce() {
        try (Fabric g = new Fabric()) {
            Fabric.Pair p = g.new Pair();
            RemoteMemoryRegion rmr = p.b.pz.createRemoteMemoryRegion();
            int ctx = rmr.bind(LmrTriplet.of(p.b.lmr, 100, 50), MemPrivileges.REMOTE_WRITE | MemPrivileges.REMOTE_READ, p.b.ep, 77, 0);
            DatEvent e = p.b.expect(p.b.reqEvd, EventNumber.RMR_BIND_COMPLETION_EVENT);
            assertThat(e.rmr()).isSameAs(rmr);
            assertThat(e.userCookie()).isEqualTo(77);
            assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(rmr.query().rmrContext()).isEqualTo(ctx);
            p.a.mem.set(ValueLayout.JAVA_INT, 0, 0x12345678);
            LmrTriplet[] src = {LmrTriplet.of(p.a.lmr, 0, 4)};
            ok(p.a.ep.postRdmaWrite(1, src, 1, new RmrTriplet(ctx, p.b.lmr.registeredAddress() + 120, 4), 0));
            assertThat(p.a.expect(p.a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(p.b.mem.get(ValueLayout.JAVA_INT, 120)).isEqualTo(0x12345678);
            // rebinding invalidates the old context at once
            int ctx2 = rmr.bind(LmrTriplet.of(p.b.lmr, 0, 10), MemPrivileges.REMOTE_READ, p.b.ep, 78, 0);
            assertThat(ctx2).isNotEqualTo(ctx);
            p.b.expect(p.b.reqEvd, EventNumber.RMR_BIND_COMPLETION_EVENT);
            ok(p.a.ep.postRdmaWrite(1, src, 2, new RmrTriplet(ctx, p.b.lmr.registeredAddress() + 120, 4), 0));
            assertThat(p.a.expect(p.a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
            p.a.expect(p.a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        }
    }

    @Test
    void dat_rmr_bind_unbindWithLengthZero() {
        try (Fabric g = new Fabric()) {
            Fabric.Pair p = g.new Pair();
            RemoteMemoryRegion rmr = boundForRemoteWrite(p.b, 50);
            rmr.bind(new LmrTriplet(0, 0, 0), 0, p.b.ep, 2, 0);
            p.b.expect(p.b.reqEvd, EventNumber.RMR_BIND_COMPLETION_EVENT);
            assertThat(rmr.query().lmrTriplet()).isNull();
            p.b.lmr.close(); // no longer in use
        }
    }

    @Test
    void dat_rmr_bind_errorCodes() {
        try (Fabric g = new Fabric()) {
            Fabric.Pair p = g.new Pair();
            RemoteMemoryRegion rmr = p.b.pz.createRemoteMemoryRegion();
            LmrTriplet t = LmrTriplet.of(p.b.lmr, 0, 64);
            throwsType(() -> rmr.bind(LmrTriplet.of(p.b.lmr, 1, 1 << 16), MemPrivileges.REMOTE_WRITE, p.b.ep, 1, 0),
                    DatReturn.INVALID_PARAMETER);
            throwsType(() -> rmr.bind(t, MemPrivileges.REMOTE_WRITE, p.b.ep, 1, dat.api.CompletionFlags.UNSIGNALLED),
                    DatReturn.INVALID_PARAMETER);
            ProtectionZone pz2 = p.b.ia.createProtectionZone();
            LocalMemoryRegion readOnly = p.b.ia.registerMemory(p.b.mem, p.b.pz, MemPrivileges.LOCAL_READ);
            throwsType(() -> rmr.bind(LmrTriplet.of(readOnly, 0, 8), MemPrivileges.REMOTE_WRITE, p.b.ep, 1, 0),
                    DatReturn.PRIVILEGES_VIOLATION);
            LocalMemoryRegion otherPz = p.b.ia.registerMemory(p.b.mem, pz2, MemPrivileges.ALL);
            throwsType(() -> rmr.bind(LmrTriplet.of(otherPz, 0, 8), MemPrivileges.REMOTE_WRITE, p.b.ep, 1, 0),
                    DatReturn.PROTECTION_VIOLATION);
            var unconnected = p.b.ia.createEndpoint(p.b.pz, null, p.b.reqEvd, null, null);
            throwsType(() -> rmr.bind(t, MemPrivileges.REMOTE_WRITE, unconnected, 1, 0), DatReturn.INVALID_STATE);
            rmr.close();
            throwsType(() -> rmr.bind(t, MemPrivileges.REMOTE_WRITE, p.b.ep, 1, 0), DatReturn.INVALID_HANDLE);
        }
    }

    @Test
    void dat_rmr_bind_onADisconnectedEndpointIsFlushed() {
        try (Fabric g = new Fabric()) {
            Fabric.Pair p = g.new Pair();
            p.a.ep.disconnect(dat.api.CloseFlag.ABRUPT);
            p.b.expect(p.b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertThat(p.b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
            RemoteMemoryRegion rmr = p.b.pz.createRemoteMemoryRegion();
            rmr.bind(LmrTriplet.of(p.b.lmr, 0, 8), MemPrivileges.REMOTE_WRITE, p.b.ep, 5, 0);
            DatEvent e = p.b.expect(p.b.reqEvd, EventNumber.RMR_BIND_COMPLETION_EVENT);
            assertThat(e.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
            rmr.close();
        }
    }

    @Test
    void closingTheMemoryOfAnLmrNeverCrashes_theDtoFails() {
        try (Fabric g = new Fabric()) {
            Fabric.Pair p = g.new Pair();
            Arena arena = Arena.ofShared();
            MemorySegment m = arena.allocate(64);
            LocalMemoryRegion lmr = p.a.ia.registerMemory(m, p.a.pz, MemPrivileges.ALL);
            arena.close();
            LmrTriplet[] src = {LmrTriplet.of(lmr, 0, 64)};
            ok(p.a.ep.postRdmaWrite(1, src, 1, RmrTriplet.of(p.b.lmr, 0, 64), 0));
            assertThat(p.a.expect(p.a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status())
                    .isEqualTo(DtoCompletionStatus.ERR_LOCAL_PROTECTION);
        }
    }
}
