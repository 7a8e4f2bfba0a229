package dat.tests.conformance.limits;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatException;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.MemPrivileges;
import dat.api.MemoryType;
import dat.api.ProtectionZone;
import dat.api.RegionDescription;
import dat.api.SrqAttributes;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Timeout;

/**
 * The limit tests of dapltest ({@code -T L}: limit_pz, limit_evd, limit_ep, limit_lmr,
 * limit_size_lmr, ...): exhaust each constructor whose limit an IA attribute gives, expect
 * DAT_INSUFFICIENT_RESOURCES no later than one past the limit, then free one object and create
 * again. A limit above {@value #MOST} objects is not exhausted (skipped, saying so): the suite must
 * finish in bounded time and memory. Objects that other parts of the provider hold (an async EVD,
 * say) count against the limit, so the failure may come before it, never after.
 */
class LimitsTest {

    /** The most objects a limit test creates. */
    static final int MOST = 70_000;

    /** How long a limit test may spend creating objects before it gives up, skipped. */
    static final long BUDGET_NANOS = 20_000_000_000L;

    /** Exhausts a constructor on a fresh IA instance. */
    static void exhaust(IaUnderTest t, String page, String attribute, int limit, Supplier<DatHandle> create) {
        t.requireFeasible(limit > 0, attribute + " is " + limit);
        t.requireFeasible(limit <= MOST, attribute + " is " + limit + ", too many to create in bounded time and memory (the suite creates at most "
                + MOST + ")");
        List<DatHandle> created = new ArrayList<>();
        DatException refusal = null;
        long start = System.nanoTime();
        while (created.size() <= limit) {
            if ((created.size() & 255) == 0 && System.nanoTime() - start > BUDGET_NANOS) {
                int count = created.size();
                for (DatHandle handle : created.reversed()) {
                    handle.close();
                }
                t.requireFeasible(false, page + " created " + count + " of " + attribute + " = " + limit + " objects in "
                        + BUDGET_NANOS / 1_000_000_000L + " s; exhausting the limit takes too long");
            }
            try {
                created.add(create.get());
            } catch (DatException e) {
                refusal = e;
                break;
            }
        }
        if (refusal == null) {
            throw t.failure(page + " succeeded " + created.size() + " times, beyond " + attribute + " = " + limit);
        }
        t.check(refusal.type() == DatReturn.INSUFFICIENT_RESOURCES, page + " after " + created.size() + " objects (" + attribute + " = "
                + limit + "): expected DAT_INSUFFICIENT_RESOURCES, got " + DatReturn.describe(refusal.code()));
        t.check(!created.isEmpty(), page + " refused the first object although " + attribute + " is " + limit);
        created.removeLast().close();
        created.add(create.get()); // recovers: a freed object's resources are available again
        for (DatHandle handle : created.reversed()) {
            handle.close();
        }
        created.clear();
        create.get().close();
    }

    @ConformanceTest
    @DisplayName("dat_pz_create(3DAT) DAT_INSUFFICIENT_RESOURCES: beyond max_pzs, and recovery after a free (dapltest limit_pz)")
    @Timeout(300)
    void pzs(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        exhaust(t, "dat_pz_create", "max_pzs", t.attributes().maxPzs(), ia::createProtectionZone);
    }

    @ConformanceTest
    @DisplayName("dat_evd_create(udat.h) DAT_INSUFFICIENT_RESOURCES: beyond max_evds, and recovery after a free (dapltest limit_evd)")
    @Timeout(300)
    void evds(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        exhaust(t, "dat_evd_create", "max_evds", t.attributes().maxEvds(), () -> ia.createEventDispatcher(1, null, EvdFlags.SOFTWARE));
    }

    @ConformanceTest
    @DisplayName("dat_ep_create(3DAT) DAT_INSUFFICIENT_RESOURCES: beyond max_eps, and recovery after a free (dapltest limit_ep)")
    @Timeout(300)
    void eps(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        ProtectionZone pz = ia.createProtectionZone();
        exhaust(t, "dat_ep_create", "max_eps", t.attributes().maxEps(), () -> ia.createEndpoint(pz, null, null, null, t.epAttributes()));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INSUFFICIENT_RESOURCES: beyond max_lmrs, and recovery after a free (dapltest limit_lmr)")
    @Timeout(300)
    void lmrs(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        ProtectionZone pz = ia.createProtectionZone();
        MemorySegment memory = t.memory(4096);
        exhaust(t, "dat_lmr_create", "max_lmrs", t.attributes().maxLmrs(), () -> ia.registerMemory(memory, pz, MemPrivileges.LOCAL_READ));
    }

    @ConformanceTest
    @DisplayName("dat_rmr_create(3DAT) DAT_INSUFFICIENT_RESOURCES: beyond max_rmrs, and recovery after a free")
    @Timeout(300)
    void rmrs(IaUnderTest t) {
        t.requireRmrs();
        InterfaceAdapter ia = t.open();
        ProtectionZone pz = ia.createProtectionZone();
        exhaust(t, "dat_rmr_create", "max_rmrs", t.attributes().maxRmrs(), pz::createRemoteMemoryRegion);
    }

    @ConformanceTest
    @DisplayName("dat_srq_create(3DAT) DAT_INSUFFICIENT_RESOURCES: beyond max_srqs, and recovery after a free")
    @Timeout(300)
    void srqs(IaUnderTest t) {
        t.requireSrq();
        InterfaceAdapter ia = t.open();
        ProtectionZone pz = ia.createProtectionZone();
        exhaust(t, "dat_srq_create", "max_srqs", t.attributes().maxSrqs(),
                () -> ia.createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(1).maxRecvIov(1).build()));
    }

    @ConformanceTest
    @DisplayName("dat_ep_create_with_srq(3DAT) DAT_INSUFFICIENT_RESOURCES: beyond max_ep_per_srq Endpoints on one SRQ, and recovery after a free")
    @Timeout(300)
    void epsPerSrq(IaUnderTest t) {
        t.requireSrq();
        InterfaceAdapter ia = t.open();
        ProtectionZone pz = ia.createProtectionZone();
        var srq = ia.createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(1).maxRecvIov(1).build());
        int limit = Math.min(t.attributes().maxEpPerSrq(), t.attributes().maxEps());
        exhaust(t, "dat_ep_create_with_srq", "max_ep_per_srq", limit, () -> ia.createEndpointWithSrq(pz, null, null, null, srq, t.epAttributes()));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INVALID_PARAMETER or DAT_INSUFFICIENT_RESOURCES: a region larger than max_lmr_block_size (dapltest limit_size_lmr)")
    void lmrSize(IaUnderTest t) {
        long max = t.attributes().maxLmrBlockSize();
        t.requireFeasible(max < 256L * 1024 * 1024, "max_lmr_block_size is " + max + " bytes, too much memory to allocate for the test");
        MemorySegment memory = t.memory(max + 1);
        ProtectionZone pz = t.pz();
        try {
            t.ia().registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(memory), max + 1, pz, MemPrivileges.LOCAL_READ);
            throw t.failure("dat_lmr_create of max_lmr_block_size + 1 = " + (max + 1) + " bytes succeeded");
        } catch (DatException e) {
            // The page does not say which; either names the excess.
            assertThat(DatReturn.typeName(e.code())).as(t.at("dat_lmr_create of " + (max + 1) + " bytes"))
                    .isIn("DAT_INVALID_PARAMETER", "DAT_INSUFFICIENT_RESOURCES");
        }
    }
}
