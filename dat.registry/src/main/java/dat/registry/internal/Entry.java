package dat.registry.internal;

import dat.api.ProviderDTO;
import dat.api.ProviderInfo;
import dat.api.spi.DatProviderConstants;
import dat.registry.DatConf;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One IA the registry knows of, as an immutable info object: the IA name, version and thread
 * safety, the registration that serves it (if any), the static entry that configured it (if any),
 * and its state. Entries are recomputed from the registrations and the static registry on every
 * change; the mutable part (init state, open IAs) lives in a {@link Binding} found by {@link #key()}.
 *
 * @param registration the provider that serves the IA, or {@code null} for a static entry whose
 *     provider is absent
 * @param staticEntry the static registry entry, or {@code null} for a dynamic IA
 * @param iaName the IA name
 * @param versionMajor the DAT major version
 * @param versionMinor the DAT minor version
 * @param threadSafe whether the IA is offered thread safe
 * @param state active, shadowed or failed
 * @param failureReason a {@code ProviderDTO.FAILURE_REASON_*} number
 * @param failureDetail why it is not active, or {@code ""}
 */
record Entry(Registration registration, DatConf.Entry staticEntry, String iaName, int versionMajor, int versionMinor,
        boolean threadSafe, ProviderDTO.State state, int failureReason, String failureDetail) {

    /**
     * What identifies an entry across recomputations: the registration's id, the IA, and the static
     * entry's place and {@code ia_params}. Bindings, failures and listener notifications are keyed by
     * it, so an entry whose {@code ia_params} change is a new entry: the old one is finished
     * ({@code fini}), the new one initialized with its own parameters, and a failed {@code init}
     * stays with the parameters that failed.
     */
    record Key(long registrationId, String iaName, int versionMajor, int versionMinor, boolean threadSafe,
            String staticSource, int staticLine, String iaParams) {
    }

    /**
     * Which of the entries with the same IA name, version and thread safety wins: static entries
     * first, then the higher {@code service.ranking}, then OSGi services before ServiceLoader
     * providers before added ones, then the lower id (the earlier registration).
     */
    static final Comparator<Entry> PREFERENCE = Comparator
            .comparing((Entry e) -> e.staticEntry() == null)
            .thenComparing(e -> -e.ranking())
            .thenComparing(e -> e.registration() == null ? Integer.MAX_VALUE : e.registration().kind().ordinal())
            .thenComparing(e -> e.registration() == null ? Long.MAX_VALUE : Math.abs(e.registration().id()));

    static Entry of(Registration registration, DatConf.Entry staticEntry, ProviderInfo info) {
        return new Entry(registration, staticEntry, info.iaName(), info.versionMajor(), info.versionMinor(),
                info.threadSafe(), ProviderDTO.State.ACTIVE, ProviderDTO.FAILURE_REASON_NONE, "");
    }

    Entry withState(ProviderDTO.State newState, int reason, String detail) {
        return new Entry(registration, staticEntry, iaName, versionMajor, versionMinor, threadSafe, newState, reason, detail);
    }

    Key key() {
        return new Key(registration == null ? 0 : registration.id(), iaName, versionMajor, versionMinor, threadSafe,
                staticEntry == null ? "" : staticEntry.source(), staticEntry == null ? 0 : staticEntry.line(), instanceData());
    }

    ProviderInfo info() {
        return new ProviderInfo(iaName, versionMajor, versionMinor, threadSafe);
    }

    boolean active() {
        return state == ProviderDTO.State.ACTIVE;
    }

    int ranking() {
        return registration == null ? 0 : registration.ranking();
    }

    /** Where the entry comes from, for people. */
    String source() {
        if (staticEntry != null) {
            return staticEntry.location();
        }
        return registration == null ? "" : registration.source();
    }

    /** What the instance data passed to the provider is: the static entry's {@code ia_params}. */
    String instanceData() {
        return staticEntry == null ? "" : staticEntry.iaParams();
    }

    /**
     * The entry's DTO; counts the open IAs of its binding, which asks the provider, so never
     * called under the registry's lock.
     *
     * @param binding the entry's binding, or {@code null} when it has none
     */
    ProviderDTO dto(Binding binding) {
        Map<String, Object> properties = new LinkedHashMap<>(registration == null ? Map.of() : registration.properties());
        String providerName = staticEntry != null ? staticEntry.provider()
                : registration == null ? "" : registration.providerName();
        properties.put(DatProviderConstants.DAT_PROVIDER_NAME, providerName);
        properties.put(DatProviderConstants.DAT_IA_NAME, iaName);
        properties.put(DatProviderConstants.DAT_API_VERSION, versionMajor + "." + versionMinor);
        properties.put(DatProviderConstants.DAT_THREAD_SAFE, threadSafe);
        String providerVersion = registration != null && !registration.providerVersion().isEmpty()
                ? registration.providerVersion()
                : staticEntry != null ? staticEntry.providerVersion() : "";
        return new ProviderDTO(registration == null ? 0 : registration.id(), iaName, versionMajor, versionMinor, threadSafe,
                providerName, providerVersion, registration == null ? "" : registration.transport(), ranking(),
                staticEntry != null ? ProviderDTO.Origin.STATIC : ProviderDTO.Origin.DYNAMIC, state, failureReason,
                failureDetail, source(), instanceData(), binding == null ? 0 : binding.openCount(), properties);
    }
}
