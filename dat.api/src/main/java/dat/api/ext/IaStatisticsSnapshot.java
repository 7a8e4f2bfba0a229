package dat.api.ext;

import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The counters of one IA at one moment; see {@link IaStatistics} for what each counts.
 *
 * @param iaName the IA's name
 * @param since when counting started (the IA's open)
 * @param taken when the snapshot was taken
 * @param posted operations posted successfully, by kind; every {@link Operation} is a key
 * @param postedBytes bytes carried by the operations posted successfully, by kind; every
 *     {@link Operation} is a key
 * @param postErrors posts that returned an error, by {@link DatReturn} type (the code with its
 *     subtype masked off, for example {@link DatReturn#INSUFFICIENT_RESOURCES}); only non-zero
 *     counts appear
 * @param completions DTO and RMR-bind completions delivered, successful or not
 * @param completedBytes the transferred lengths of the successful completions
 * @param completionErrors completions whose status was not {@link DtoCompletionStatus#SUCCESS}, by
 *     status; only non-zero counts appear
 * @param asyncErrors asynchronous errors posted to the IA's async EVD
 */
@ProviderType
public record IaStatisticsSnapshot(
        String iaName,
        Instant since,
        Instant taken,
        Map<Operation, Long> posted,
        Map<Operation, Long> postedBytes,
        Map<Integer, Long> postErrors,
        long completions,
        long completedBytes,
        Map<Integer, Long> completionErrors,
        long asyncErrors) {

    /** Checks for {@code null}s and copies the maps, which are then unmodifiable and ordered. */
    public IaStatisticsSnapshot {
        Objects.requireNonNull(iaName, "iaName");
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(taken, "taken");
        posted = complete(posted);
        postedBytes = complete(postedBytes);
        postErrors = Collections.unmodifiableMap(new TreeMap<>(postErrors));
        completionErrors = Collections.unmodifiableMap(new TreeMap<>(completionErrors));
    }

    private static Map<Operation, Long> complete(Map<Operation, Long> counts) {
        EnumMap<Operation, Long> all = new EnumMap<>(Operation.class);
        for (Operation operation : Operation.values()) {
            all.put(operation, counts.getOrDefault(operation, 0L));
        }
        return Collections.unmodifiableMap(all);
    }

    /**
     * All operations posted successfully.
     *
     * @return the sum of {@link #posted()}
     */
    public long totalPosted() {
        return posted.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * All bytes of the operations posted successfully.
     *
     * @return the sum of {@link #postedBytes()}
     */
    public long totalPostedBytes() {
        return postedBytes.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * All posts that returned an error.
     *
     * @return the sum of {@link #postErrors()}
     */
    public long totalPostErrors() {
        return postErrors.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * All completions in error, flushes included.
     *
     * @return the sum of {@link #completionErrors()}
     */
    public long totalCompletionErrors() {
        return completionErrors.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * The completions flushed: {@link DtoCompletionStatus#ERR_FLUSHED}, for example when the
     * connection went down or the provider left.
     *
     * @return the flushed completions
     */
    public long flushed() {
        return completionErrors.getOrDefault(DtoCompletionStatus.ERR_FLUSHED, 0L);
    }

    /**
     * The post errors keyed by the name of their type, for display: for example
     * {@code "DAT_INSUFFICIENT_RESOURCES"}.
     *
     * @return an ordered map
     */
    public Map<String, Long> postErrorsByName() {
        Map<String, Long> named = new TreeMap<>();
        postErrors.forEach((type, count) -> named.merge(typeName(type), count, Long::sum));
        return named;
    }

    private static String typeName(int type) {
        String name = DatReturn.typeName(type);
        return name != null ? name : String.format("0x%08X", type);
    }

    /**
     * The completion errors keyed by the name of their status, for display: for example
     * {@code "DAT_DTO_ERR_FLUSHED"}.
     *
     * @return an ordered map
     */
    public Map<String, Long> completionErrorsByName() {
        Map<String, Long> named = new TreeMap<>();
        completionErrors.forEach((status, count) -> named.merge(DtoCompletionStatus.name(status), count, Long::sum));
        return named;
    }
}
