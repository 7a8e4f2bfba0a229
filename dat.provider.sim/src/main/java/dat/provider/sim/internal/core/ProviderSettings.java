package dat.provider.sim.internal.core;

import java.util.List;

/**
 * The provider-wide settings, validated once when the provider starts (Aeron's
 * {@code conclude()} in spirit).
 *
 * @param iaNames the IA names the provider serves by itself
 * @param limits the limits of every IA unless its {@code ia_params} say otherwise
 * @param idleStrategy {@code busy-spin}, {@code backoff} or {@code sleeping}
 * @param idleSleepMicros the park time of the idle strategy (the longest of {@code backoff}): how often an idle provider looks
 * @param anyQualFirst the first qualifier dat_psp_create_any hands out
 * @param anyQualCount how many qualifiers dat_psp_create_any may hand out
 */
public record ProviderSettings(List<String> iaNames, SimLimits limits, String idleStrategy, long idleSleepMicros,
        long anyQualFirst, long anyQualCount) {

    public ProviderSettings {
        iaNames = List.copyOf(iaNames);
        IdleStrategy.of(idleStrategy, idleSleepMicros); // fails early on a bad name
        if (anyQualFirst < 0 || anyQualCount <= 0) {
            throw new IllegalArgumentException("bad dat_psp_create_any range " + anyQualFirst + "+" + anyQualCount);
        }
    }

    public static ProviderSettings defaults() {
        return new ProviderSettings(List.of("sim0"), SimLimits.defaults(), "backoff", 100_000, 49152, 16384);
    }
}
