package dat.api.ext;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Counters of one open IA: operations posted and bytes they carry, posts refused and why,
 * completions and their errors by status, asynchronous errors. Obtain it with
 * {@code ia.extension(IaStatistics.class)}; an IA whose provider keeps no counters answers
 * {@link java.util.Optional#empty()}. The {@code dat.management} bundle publishes the statistics of
 * every open IA that has them as a JMX MBean, and the {@code dat:stats} command prints them.
 *
 * <p>What is counted (OFED's {@code dat_query_counters} extension counts similar things per IA,
 * EP and EVD; these are per IA, since that is where a consumer and an operator look):
 * <ul>
 * <li>a post that returns {@link dat.api.DatReturn#SUCCESS} counts one
 *     {@link IaStatisticsSnapshot#posted() operation} of its {@link Operation} kind, and the sum of
 *     its IOV segment lengths as {@link IaStatisticsSnapshot#postedBytes() bytes} (8 for an
 *     atomic, the region length for an RMR bind);</li>
 * <li>a post that returns an error counts one {@link IaStatisticsSnapshot#postErrors() post error}
 *     under its {@link dat.api.DatReturn} type;</li>
 * <li>a DTO or RMR-bind completion (extension completions included) counts one
 *     {@link IaStatisticsSnapshot#completions() completion} when the provider delivers it to an
 *     EVD, its transferred length as {@link IaStatisticsSnapshot#completedBytes() bytes} when it
 *     succeeded, and one {@link IaStatisticsSnapshot#completionErrors() completion error} under its
 *     {@link dat.api.DtoCompletionStatus} when it did not (flushes included). Completions the
 *     consumer suppressed ({@code DAT_COMPLETION_SUPPRESS_FLAG} on a success) are not counted;</li>
 * <li>an asynchronous error posted to the IA's async EVD counts one
 *     {@link IaStatisticsSnapshot#asyncErrors() async error}.</li>
 * </ul>
 * The counters only grow, from the IA's open; they survive the IA's close or failure (a snapshot
 * taken afterwards gives the final counts).
 *
 * @ThreadSafe {@link #snapshot()} may be called from any thread while the data path runs; the
 *     counts of one snapshot are each exact, but not taken at one instant together
 */
@ProviderType
public interface IaStatistics {

    /**
     * The counters now.
     *
     * @return a snapshot
     */
    IaStatisticsSnapshot snapshot();
}
