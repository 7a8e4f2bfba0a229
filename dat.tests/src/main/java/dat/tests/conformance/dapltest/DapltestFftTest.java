package dat.tests.conformance.dapltest;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.ConnectionRequest;
import dat.api.ConsumerNotificationObject;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.MemoryType;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.RegionDescription;
import dat.api.RemoteMemoryRegion;
import dat.api.ReservedServicePoint;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.internal.PrivateData;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;

/**
 * The 35 functional feature test (FFT) cases dapltest implements for uDAPL ({@code dapltest -T F
 * -f feature caseN}), one test each, in the Java binding: hwconn 1-4, endpoint 1-3, pz 1-3, mem
 * 1-5, connmgt 1-2, queryinfo 1-18. Cases that pass a NULL handle in C pass a freed handle here,
 * the Java equivalent; freeing it is the binding's no-op.
 */
class DapltestFftTest {

    // hwconn ---------------------------------------------------------------------------------

    @ConformanceTest
    @DisplayName("dat_ia_open(3DAT) DAT_SUCCESS: dapltest FFT hwconn 1: open and close the IA")
    void hwconn1(IaUnderTest t) {
        InterfaceAdapter ia = t.track(t.registry().openIa(t.iaName()));
        ia.close(CloseFlag.GRACEFUL);
        assertThat(ia.isOpen()).as(t.at("the closed IA")).isFalse();
    }

    @ConformanceTest
    @DisplayName("dat_ia_open(3DAT) DAT_PROVIDER_NOT_FOUND: dapltest FFT hwconn 2: open a bad device name")
    void hwconn2(IaUnderTest t) {
        t.expectError(DatReturn.PROVIDER_NOT_FOUND, "dat_ia_open of a bad device name", () -> t.track(t.registry().openIa("dapltest-bad-device-name")));
    }

    @ConformanceTest
    @DisplayName("dat_ia_close(3DAT) DAT_INVALID_HANDLE: dapltest FFT hwconn 3: close an invalid IA handle (a closed one)")
    void hwconn3(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        ia.close();
        ia.close(CloseFlag.ABRUPT);
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ia_query of the closed IA", () -> ia.query());
    }

    @ConformanceTest
    @DisplayName("dat_ia_close(3DAT) DAT_SUCCESS: dapltest FFT hwconn 4: close an IA with a live Endpoint")
    void hwconn4(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        Endpoint ep = ia.createEndpoint(ia.createProtectionZone(), null, null, null, t.epAttributes());
        ia.close(CloseFlag.ABRUPT);
        assertThat(ep.isOpen()).as(t.at("the Endpoint of the closed IA")).isFalse();
    }

    // endpoint -------------------------------------------------------------------------------

    @ConformanceTest
    @DisplayName("dat_ep_create(3DAT) DAT_SUCCESS: dapltest FFT endpoint 1: create and destroy an Endpoint")
    void endpoint1(IaUnderTest t) {
        Endpoint ep = t.ep();
        ep.close();
        assertThat(ep.isOpen()).as(t.at("the freed Endpoint")).isFalse();
    }

    @ConformanceTest
    @DisplayName("dat_ep_create(3DAT) DAT_INVALID_HANDLE: dapltest FFT endpoint 2: create an Endpoint with a freed PZ")
    void endpoint2(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        pz.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_create with a freed PZ", () -> t.ep(pz, null, null, null));
    }

    @ConformanceTest
    @DisplayName("dat_ep_free(3DAT) DAT_SUCCESS: dapltest FFT endpoint 3: free an Endpoint with a posted descriptor")
    void endpoint3(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        LocalMemoryRegion lmr = t.lmr(pz, 4096, MemPrivileges.ALL);
        Endpoint ep = t.ep(pz, t.evd(EvdFlags.DTO), t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION));
        t.expectSuccess(ep.postRecv(1, IaUnderTest.iov(lmr, 0, 256), 1, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        ep.close();
        assertThat(ep.isOpen()).as(t.at("the freed Endpoint")).isFalse();
    }

    // pz -------------------------------------------------------------------------------------

    @ConformanceTest
    @DisplayName("dat_pz_create(3DAT) DAT_SUCCESS: dapltest FFT pz 1: create and destroy a PZ")
    void pz1(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        pz.close();
        assertThat(pz.isOpen()).as(t.at("the freed PZ")).isFalse();
    }

    @ConformanceTest
    @DisplayName("dat_pz_free(3DAT) DAT_INVALID_STATE: dapltest FFT pz 2: free a PZ an Endpoint uses")
    void pz2(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        t.ep(pz, null, null, null);
        t.expectError(DatReturn.INVALID_STATE, "dat_pz_free of a PZ with an Endpoint", () -> pz.close());
    }

    @ConformanceTest
    @DisplayName("dat_pz_free(3DAT) DAT_INVALID_STATE: dapltest FFT pz 3: free a PZ an LMR uses")
    void pz3(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        t.lmr(pz, 4096, MemPrivileges.LOCAL_READ);
        t.expectError(DatReturn.INVALID_STATE, "dat_pz_free of a PZ with an LMR", () -> pz.close());
    }

    // mem ------------------------------------------------------------------------------------

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_SUCCESS: dapltest FFT mem 1: a typical registration, local privileges")
    void mem1(IaUnderTest t) {
        LocalMemoryRegion lmr = t.lmr(t.pz(), 64 * 1024, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        assertThat(lmr.registeredSize()).as(t.at("registered_size")).isGreaterThanOrEqualTo(64 * 1024);
        lmr.close();
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_SUCCESS: dapltest FFT mem 2: a typical registration, every privilege")
    void mem2(IaUnderTest t) {
        LocalMemoryRegion lmr = t.lmr(t.pz(), 1024 * 1024, MemPrivileges.ALL);
        assertThat(lmr.registeredSize()).as(t.at("registered_size")).isGreaterThanOrEqualTo(1024 * 1024);
        lmr.close();
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_SUCCESS: dapltest FFT mem 3: a registration of size 0 succeeds or is an invalid parameter")
    void mem3(IaUnderTest t) {
        // The page does not forbid an empty region; a provider may register it or refuse it, nothing else.
        MemorySegment memory = t.memory(64);
        try {
            LocalMemoryRegion lmr = t.ia().registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(memory.asSlice(0, 0)), 0, t.pz(),
                    MemPrivileges.ALL);
            lmr.close();
        } catch (DatException e) {
            t.check(e.type() == DatReturn.INVALID_PARAMETER, "dat_lmr_create of 0 bytes: expected success or DAT_INVALID_PARAMETER, got "
                    + DatReturn.describe(e.code()));
        }
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INVALID_HANDLE: dapltest FFT mem 4: a registration without a PZ")
    void mem4(IaUnderTest t) {
        MemorySegment memory = t.memory(4096);
        t.expectError(DatReturn.INVALID_HANDLE, "dat_lmr_create with a NULL PZ", () -> t.ia().registerMemory(memory, null, MemPrivileges.ALL));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_free(3DAT) DAT_INVALID_HANDLE: dapltest FFT mem 5: free an invalid LMR handle (a freed one)")
    void mem5(IaUnderTest t) {
        LocalMemoryRegion lmr = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        lmr.close();
        lmr.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_lmr_query of the freed LMR", () -> lmr.query());
    }

    // connmgt --------------------------------------------------------------------------------

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_TIMEOUT_EXPIRED: dapltest FFT connmgt 1: the wait lasts its timeout (lower bound)")
    void connmgt1(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.CONNECTION);
        long start = System.nanoTime();
        t.expectCode(DatReturn.TIMEOUT_EXPIRED, evd.await(300_000, 1, new DatEvent()), "dat_evd_wait of 300 ms on a connection EVD");
        assertThat(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start)).as(t.at("µs waited for a 300 ms timeout"))
                .isGreaterThanOrEqualTo(300_000 - 1_000);
    }

    @ConformanceTest
    @DisplayName("dat_evd_wait(3DAT) DAT_TIMEOUT_EXPIRED: dapltest FFT connmgt 2: a timeout of zero returns at once")
    void connmgt2(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.CONNECTION);
        t.expectCode(DatReturn.TIMEOUT_EXPIRED, evd.await(0, 1, new DatEvent()), "dat_evd_wait with timeout 0");
    }

    // queryinfo ------------------------------------------------------------------------------

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_SUCCESS: dapltest FFT queryinfo 1: IA")
    void queryinfo1(IaUnderTest t) {
        assertThat(t.ia().query().iaAttributes().adapterName()).as(t.at("adapter name")).isEqualTo(t.iaName());
    }

    @ConformanceTest
    @DisplayName("dat_cno_query(3DAT) DAT_SUCCESS: dapltest FFT queryinfo 2: CNO")
    void queryinfo2(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        assertThat(cno.query().ia()).as(t.at("ia_handle")).isSameAs(t.ia());
    }

    @ConformanceTest
    @DisplayName("dat_evd_query(3DAT) DAT_SUCCESS: dapltest FFT queryinfo 3: EVD")
    void queryinfo3(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.DTO);
        assertThat(evd.query().flags() & EvdFlags.DTO).as(t.at("evd_flags")).isEqualTo(EvdFlags.DTO);
    }

    @ConformanceTest
    @DisplayName("dat_psp_query(3DAT) DAT_SUCCESS: dapltest FFT queryinfo 4: PSP")
    void queryinfo4(IaUnderTest t) {
        PublicServicePoint psp = t.ia().createPublicServicePointAny(t.evd(EvdFlags.CR), PspFlag.CONSUMER);
        assertThat(psp.query().connQual()).as(t.at("conn_qual")).isEqualTo(psp.connQual());
    }

    @ConformanceTest
    @DisplayName("dat_rsp_query(3DAT) DAT_SUCCESS: dapltest FFT queryinfo 5: RSP")
    void queryinfo5(IaUnderTest t) {
        Endpoint ep = t.ep();
        ReservedServicePoint rsp = t.ia().createReservedServicePoint(t.unusedConnQual(t.ia()), ep, t.evd(EvdFlags.CR));
        assertThat(rsp.query().ep()).as(t.at("ep_handle")).isSameAs(ep);
    }

    @ConformanceTest
    @DisplayName("dat_cr_query(3DAT) DAT_SUCCESS: dapltest FFT queryinfo 6: CR")
    void queryinfo6(IaUnderTest t) {
        var c = t.connection().privateData(new byte[] {1, 2, 3}).create();
        ConnectionRequest cr = c.request();
        PrivateData.check(t, cr.query().privateData(), new byte[] {1, 2, 3}, "private_data");
        c.accept(cr);
    }

    @ConformanceTest
    @DisplayName("dat_ep_query(3DAT) DAT_SUCCESS: dapltest FFT queryinfo 7: EP")
    void queryinfo7(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        Endpoint ep = t.ep(pz, null, null, null);
        assertThat(ep.query().pz()).as(t.at("pz_handle")).isSameAs(pz);
    }

    @ConformanceTest
    @DisplayName("dat_pz_query(3DAT) DAT_SUCCESS: dapltest FFT queryinfo 8: PZ")
    void queryinfo8(IaUnderTest t) {
        assertThat(t.pz().query().ia()).as(t.at("ia_handle")).isSameAs(t.ia());
    }

    @ConformanceTest
    @DisplayName("dat_lmr_query(3DAT) DAT_SUCCESS: dapltest FFT queryinfo 9: LMR")
    void queryinfo9(IaUnderTest t) {
        LocalMemoryRegion lmr = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        assertThat(lmr.query().lmrContext()).as(t.at("lmr_context")).isEqualTo(lmr.lmrContext());
    }

    @ConformanceTest
    @DisplayName("dat_rmr_query(3DAT) DAT_SUCCESS: dapltest FFT queryinfo 10: RMR")
    void queryinfo10(IaUnderTest t) {
        t.requireRmrs();
        ProtectionZone pz = t.pz();
        RemoteMemoryRegion rmr = pz.createRemoteMemoryRegion();
        assertThat(rmr.query().pz()).as(t.at("pz_handle")).isSameAs(pz);
    }

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_INVALID_PARAMETER: dapltest FFT queryinfo 11: IA, bad mask")
    void queryinfo11(IaUnderTest t) {
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ia_query with a bad mask", () -> t.ia().query(-1L, 0));
    }

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_INVALID_HANDLE: dapltest FFT queryinfo 12: IA, invalid handle")
    void queryinfo12(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        ia.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ia_query of a closed IA", () -> ia.query());
    }

    @ConformanceTest
    @DisplayName("dat_evd_query(3DAT) DAT_INVALID_PARAMETER: dapltest FFT queryinfo 13: EVD, bad mask")
    void queryinfo13(IaUnderTest t) {
        EventDispatcher evd = t.evd(EvdFlags.DTO);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_evd_query with a bad mask", () -> evd.query(-1));
    }

    @ConformanceTest
    @DisplayName("dat_ep_query(3DAT) DAT_INVALID_PARAMETER: dapltest FFT queryinfo 14: EP, bad mask")
    void queryinfo14(IaUnderTest t) {
        Endpoint ep = t.ep();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_query with a bad mask", () -> ep.query(-1L));
    }

    @ConformanceTest
    @DisplayName("dat_pz_query(3DAT) DAT_INVALID_PARAMETER: dapltest FFT queryinfo 15: PZ, bad mask")
    void queryinfo15(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_pz_query with a bad mask", () -> pz.query(-1));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_query(3DAT) DAT_INVALID_HANDLE: dapltest FFT queryinfo 16: LMR, invalid handle")
    void queryinfo16(IaUnderTest t) {
        LocalMemoryRegion lmr = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        lmr.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_lmr_query of a freed LMR", () -> lmr.query());
    }

    @ConformanceTest
    @DisplayName("dat_psp_query(3DAT) DAT_INVALID_HANDLE: dapltest FFT queryinfo 17: PSP, invalid handle")
    void queryinfo17(IaUnderTest t) {
        PublicServicePoint psp = t.ia().createPublicServicePointAny(t.evd(EvdFlags.CR), PspFlag.CONSUMER);
        psp.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_psp_query of a freed PSP", () -> psp.query());
    }

    @ConformanceTest
    @DisplayName("dat_cno_query(3DAT) DAT_INVALID_PARAMETER: dapltest FFT queryinfo 18: CNO, bad mask")
    void queryinfo18(IaUnderTest t) {
        ConsumerNotificationObject cno = t.ia().createNotificationObject(null);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_cno_query with a bad mask", () -> cno.query(-1));
    }
}
