package dat.switching;

import dat.api.DatException;
import dat.api.DatReturn;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/**
 * How an {@link IaSwitcher} chooses and watches its IA.
 *
 * @param name the switcher's name, for its thread and the log
 * @param filter the LDAP filter over the registry's provider properties that every candidate IA
 *     matches ({@link dat.api.DatRegistry#findProviders}), for example {@code (dat.transport=sim)};
 *     {@code ""} for every IA
 * @param preferences further filters, in order of preference: candidates matching the first come
 *     first, and so on, then the rest in the registry's order (static entries, higher ranking,
 *     older registration). For example {@code (dat.transport=ib)} before the rest
 * @param retryInterval how long the switcher waits between attempts when no candidate could be
 *     opened (it also tries as soon as a provider arrives)
 * @param callbackTimeout the most an {@link IaSession} callback may take
 * @param asyncPoll how long one wait of the switcher on its IA's async EVD lasts; it bounds how
 *     late the switcher notices a provider that left
 */
@ProviderType
public record SwitchOptions(String name, String filter, List<String> preferences, Duration retryInterval,
        Duration callbackTimeout, Duration asyncPoll) {

    /**
     * Checks the values: non-null, positive durations.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} naming the argument ({@link DatException#argument()})
     *     for a {@code null} name, filter, preference list or preference, or a duration that is
     *     {@code null}, zero or negative
     */
    public SwitchOptions {
        notNull(name, "name");
        notNull(filter, "filter");
        notNull(preferences, "preferences");
        for (int i = 0; i < preferences.size(); i++) {
            notNull(preferences.get(i), "preferences[" + i + "]");
        }
        preferences = List.copyOf(preferences);
        positive(retryInterval, "retryInterval");
        positive(callbackTimeout, "callbackTimeout");
        positive(asyncPoll, "asyncPoll");
    }

    private static void notNull(Object value, String name) {
        if (value == null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.NO_SUBTYPE, name, "must not be null");
        }
    }

    private static void positive(Duration duration, String name) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.NO_SUBTYPE, name, "must be a positive duration");
        }
    }

    /**
     * Options with the defaults: no preference, retry every second, callbacks bounded by 30 s,
     * async EVD waits of 50 ms.
     *
     * @param name the switcher's name
     * @param filter the filter candidates match
     * @return the options
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a {@code null} name or filter
     */
    public static SwitchOptions of(String name, String filter) {
        return new SwitchOptions(name, filter, List.of(), Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMillis(50));
    }

    /**
     * These options with other preferences.
     *
     * @param orderedFilters the preference filters, best first
     * @return new options
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a {@code null} array or filter
     */
    public SwitchOptions withPreferences(String... orderedFilters) {
        // Arrays.asList keeps a null filter for the constructor to name, where List.of would throw NPE
        List<String> preferences = orderedFilters == null ? null : Arrays.asList(orderedFilters);
        return new SwitchOptions(name, filter, preferences, retryInterval, callbackTimeout, asyncPoll);
    }

    /**
     * These options with another callback timeout.
     *
     * @param timeout the most a callback may take
     * @return new options
     */
    public SwitchOptions withCallbackTimeout(Duration timeout) {
        return new SwitchOptions(name, filter, preferences, retryInterval, timeout, asyncPoll);
    }

    /**
     * These options with another retry interval.
     *
     * @param interval the wait between attempts
     * @return new options
     */
    public SwitchOptions withRetryInterval(Duration interval) {
        return new SwitchOptions(name, filter, preferences, interval, callbackTimeout, asyncPoll);
    }
}
