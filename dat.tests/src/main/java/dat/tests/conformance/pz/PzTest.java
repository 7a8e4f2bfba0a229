package dat.tests.conformance.pz;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EvdFlags;
import dat.api.HandleType;
import dat.api.InterfaceAdapter;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.PzParamMask;
import dat.api.RemoteMemoryRegion;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import org.junit.jupiter.api.DisplayName;

/** dat_pz_create(3DAT), dat_pz_query(3DAT), dat_pz_free(3DAT). */
class PzTest {

    @ConformanceTest
    @DisplayName("dat_pz_create(3DAT) DAT_SUCCESS: creates a PZ of the IA")
    void create(IaUnderTest t) {
        ProtectionZone pz = t.ia().createProtectionZone();
        assertThat(pz.handleType()).as(t.at("the handle type of the new PZ")).isEqualTo(HandleType.PZ);
        assertThat(pz.isOpen()).as(t.at("the new PZ is open")).isTrue();
    }

    @ConformanceTest
    @DisplayName("dat_pz_create(3DAT) DAT_INVALID_HANDLE: the IA is closed")
    void createOnClosedIa(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        ia.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_pz_create on a closed IA", () -> ia.createProtectionZone());
    }

    @ConformanceTest
    @DisplayName("dat_pz_query(3DAT) DAT_SUCCESS: reports the IA the PZ belongs to")
    void query(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        assertThat(pz.query(PzParamMask.IA_HANDLE).ia()).as(t.at("ia_handle of the PZ")).isSameAs(t.ia());
        assertThat(pz.query().ia()).as(t.at("ia_handle of the PZ, all parameters")).isSameAs(t.ia());
    }

    @ConformanceTest
    @DisplayName("dat_pz_query(3DAT) DAT_INVALID_PARAMETER: a mask with undefined bits")
    void queryBadMask(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_pz_query with pz_param_mask 0x2", () -> pz.query(0x2));
    }

    @ConformanceTest
    @DisplayName("dat_pz_query(3DAT) DAT_INVALID_HANDLE: a freed PZ")
    void queryFreed(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        pz.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_pz_query of a freed PZ", () -> pz.query());
    }

    @ConformanceTest
    @DisplayName("dat_pz_free(3DAT) DAT_SUCCESS: frees an unused PZ, whose handle then fails")
    void free(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        pz.close();
        assertThat(pz.isOpen()).as(t.at("the freed PZ")).isFalse();
        t.expectError(DatReturn.INVALID_HANDLE, "creating an RMR in a freed PZ", () -> pz.createRemoteMemoryRegion());
    }

    @ConformanceTest
    @DisplayName("dat_pz_free(3DAT) DAT_SUCCESS: a PZ is free again once the Endpoint and LMR using it are freed")
    void freeAfterUsers(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        LocalMemoryRegion lmr = t.lmr(pz, 4096, MemPrivileges.ALL);
        Endpoint ep = t.ep(pz, t.evd(EvdFlags.DTO), t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION));
        ep.close();
        lmr.close();
        pz.close();
        assertThat(pz.isOpen()).as(t.at("the PZ after its users were freed")).isFalse();
    }

    @ConformanceTest
    @DisplayName("dat_pz_free(3DAT) DAT_INVALID_STATE: the PZ is in use by an Endpoint")
    void inUseByEp(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        t.ep(pz, t.evd(EvdFlags.DTO), t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION));
        t.expectError(DatReturn.INVALID_STATE, "dat_pz_free of a PZ with an Endpoint", () -> pz.close());
        assertThat(pz.isOpen()).as(t.at("the PZ after the refused free")).isTrue();
    }

    @ConformanceTest
    @DisplayName("dat_pz_free(3DAT) DAT_INVALID_STATE: the PZ is in use by an LMR")
    void inUseByLmr(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        t.lmr(pz, 4096, MemPrivileges.LOCAL_READ);
        t.expectError(DatReturn.INVALID_STATE, "dat_pz_free of a PZ with an LMR", () -> pz.close());
    }

    @ConformanceTest
    @DisplayName("dat_pz_free(3DAT) DAT_INVALID_STATE: the PZ is in use by an RMR")
    void inUseByRmr(IaUnderTest t) {
        t.requireRmrs();
        ProtectionZone pz = t.pz();
        RemoteMemoryRegion rmr = pz.createRemoteMemoryRegion();
        t.expectError(DatReturn.INVALID_STATE, "dat_pz_free of a PZ with an RMR", () -> pz.close());
        rmr.close();
        pz.close();
    }

    @ConformanceTest
    @DisplayName("dat_pz_free(3DAT) DAT_INVALID_STATE: the PZ is in use by an SRQ")
    void inUseBySrq(IaUnderTest t) {
        // The page names Endpoints, LMRs and RMRs; an SRQ holds its PZ the same way (dat_srq_create(3DAT)).
        t.requireSrq();
        ProtectionZone pz = t.pz();
        SharedReceiveQueue srq = t.ia().createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(4).maxRecvIov(1).build());
        t.expectError(DatReturn.INVALID_STATE, "dat_pz_free of a PZ with an SRQ", () -> pz.close());
        srq.close();
        pz.close();
    }

    @ConformanceTest
    @DisplayName("dat_pz_free(3DAT) DAT_INVALID_HANDLE: freeing a freed PZ is the Java binding's no-op and the handle stays invalid")
    void freeTwice(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        pz.close();
        pz.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_pz_query of a twice-freed PZ", () -> pz.query());
    }
}
