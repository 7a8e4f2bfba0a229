package dat.provider.sim.internal.core;

import dat.api.ext.IaCounters;
import dat.api.ext.IaStatistics;
import dat.api.ext.IaStatisticsSnapshot;
import dat.api.ext.Operation;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * An IA's statistics ({@link IaStatistics}): the sum of the {@link DtoCounters} of its Endpoints,
 * SRQs and EVDs, those of the ones already freed, and the rare counts no object's lock guards
 * (refused posts, asynchronous errors) kept in an {@link IaCounters}. The data path so counts
 * without an atomic instruction; the sum is made when a snapshot is asked for.
 */
final class Statistics implements IaStatistics {

    private final SimIa ia;
    /** Refused posts and asynchronous errors (its post and completion counts stay 0). */
    final IaCounters rare;
    /** The counts of freed objects; guarded by this. */
    private final long[] retired = DtoCounters.sum();

    Statistics(SimIa ia, String iaName) {
        this.ia = ia;
        this.rare = new IaCounters(iaName);
    }

    /**
     * A post's outcome: a refusal counted here (a success was counted under its owner's lock).
     *
     * @return {@code status}
     */
    int refused(int status) {
        if (status != dat.api.DatReturn.SUCCESS) {
            rare.postError(status);
        }
        return status;
    }

    /**
     * An object leaves the IA's sets: its counts join the retired ones, in one step a snapshot
     * does not split (else it might count them twice, or not at all).
     */
    synchronized void retire(DtoCounters counters, Runnable removeFromItsSet) {
        removeFromItsSet.run();
        counters.addTo(retired);
    }

    @Override
    public IaStatisticsSnapshot snapshot() {
        long[] sum = DtoCounters.sum();
        synchronized (this) {
            System.arraycopy(retired, 0, sum, 0, sum.length);
            for (SimEndpoint ep : ia.eps) {
                ep.counters.addTo(sum);
            }
            for (SimSrq srq : ia.srqs) {
                srq.counters.addTo(sum);
            }
            for (SimEvd evd : ia.evds) {
                evd.counters.addTo(sum);
            }
        }
        IaStatisticsSnapshot base = rare.snapshot();
        Map<Operation, Long> posted = new EnumMap<>(Operation.class);
        Map<Operation, Long> postedBytes = new EnumMap<>(Operation.class);
        for (Operation operation : Operation.values()) {
            posted.put(operation, DtoCounters.posted(sum, operation));
            postedBytes.put(operation, DtoCounters.postedBytes(sum, operation));
        }
        Map<Integer, Long> completionErrors = new HashMap<>();
        for (int slot = 1; slot <= DtoCounters.STATUS_SLOTS; slot++) {
            long n = DtoCounters.errors(sum, slot);
            if (n != 0) {
                completionErrors.put(slot == DtoCounters.STATUS_SLOTS ? -1 : slot, n);
            }
        }
        return new IaStatisticsSnapshot(base.iaName(), base.since(), base.taken(), posted, postedBytes, base.postErrors(),
                DtoCounters.completions(sum), DtoCounters.completedBytes(sum), completionErrors, base.asyncErrors());
    }
}
