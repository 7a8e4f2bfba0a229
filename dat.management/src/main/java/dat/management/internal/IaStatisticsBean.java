package dat.management.internal;

import dat.api.InterfaceAdapter;
import dat.api.ext.IaStatistics;
import dat.api.ext.IaStatisticsSnapshot;
import dat.api.ext.Operation;
import dat.management.IaStatisticsMXBean;
import java.util.LinkedHashMap;
import java.util.Map;

/** The MXBean of one open IA: every attribute reads a fresh snapshot of the IA's counters. */
final class IaStatisticsBean implements IaStatisticsMXBean {

    private final String iaName;
    private final String providerName;
    private final long providerId;
    private final long instance;
    private final InterfaceAdapter ia;
    private final IaStatistics statistics;

    IaStatisticsBean(String iaName, String providerName, long providerId, long instance, InterfaceAdapter ia,
            IaStatistics statistics) {
        this.iaName = iaName;
        this.providerName = providerName;
        this.providerId = providerId;
        this.instance = instance;
        this.ia = ia;
        this.statistics = statistics;
    }

    InterfaceAdapter ia() {
        return ia;
    }

    IaStatisticsSnapshot snapshot() {
        return statistics.snapshot();
    }

    @Override
    public String getIaName() {
        return iaName;
    }

    @Override
    public String getProviderName() {
        return providerName;
    }

    @Override
    public long getProviderId() {
        return providerId;
    }

    @Override
    public long getInstance() {
        return instance;
    }

    @Override
    public boolean isOpen() {
        try {
            return ia.isOpen();
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public String getSince() {
        return snapshot().since().toString();
    }

    @Override
    public long getOperationsPosted() {
        return snapshot().totalPosted();
    }

    @Override
    public Map<String, Long> getOperationsPostedByKind() {
        return byName(snapshot().posted());
    }

    @Override
    public long getBytesPosted() {
        return snapshot().totalPostedBytes();
    }

    @Override
    public Map<String, Long> getBytesPostedByKind() {
        return byName(snapshot().postedBytes());
    }

    @Override
    public long getPostErrors() {
        return snapshot().totalPostErrors();
    }

    @Override
    public Map<String, Long> getPostErrorsByType() {
        return snapshot().postErrorsByName();
    }

    @Override
    public long getCompletions() {
        return snapshot().completions();
    }

    @Override
    public long getCompletedBytes() {
        return snapshot().completedBytes();
    }

    @Override
    public long getCompletionErrors() {
        return snapshot().totalCompletionErrors();
    }

    @Override
    public Map<String, Long> getCompletionErrorsByStatus() {
        return snapshot().completionErrorsByName();
    }

    @Override
    public long getFlushed() {
        return snapshot().flushed();
    }

    @Override
    public long getAsyncErrors() {
        return snapshot().asyncErrors();
    }

    private static Map<String, Long> byName(Map<Operation, Long> counts) {
        Map<String, Long> named = new LinkedHashMap<>();
        counts.forEach((operation, count) -> named.put(operation.name(), count));
        return named;
    }
}
