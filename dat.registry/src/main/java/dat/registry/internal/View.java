package dat.registry.internal;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.ProviderDTO;
import dat.api.ProviderInfo;
import dat.registry.DatConf;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An immutable snapshot of the registry: every entry with its state, the bindings of the entries,
 * and the static registry. The registry publishes a new view after each change; readers
 * ({@code openIa}, listing, DTOs) use the view they read without any lock.
 *
 * @param entries every entry, active ones first, then by IA name
 * @param bindings the binding of each entry's key
 * @param staticRegistry the static registry the view was computed from
 */
record View(List<Entry> entries, Map<Entry.Key, Binding> bindings, StaticRegistry staticRegistry) {

    static final View EMPTY = new View(List.of(), Map.of(), StaticRegistry.NONE);

    /** A failure found after the view was computed (init failed, service unavailable). */
    record Failure(int reason, String detail) {
    }

    private static final Comparator<Entry> ORDER = Comparator
            .comparing((Entry e) -> e.state().ordinal())
            .thenComparing(Entry::iaName)
            .thenComparing(Entry::versionMajor)
            .thenComparing(Entry::versionMinor)
            .thenComparing(Entry::threadSafe)
            .thenComparing(Entry.PREFERENCE);

    View {
        entries = List.copyOf(entries);
        bindings = Map.copyOf(bindings);
    }

    /** The active entries of an IA name, best first. */
    List<Entry> active(String iaName) {
        return entries.stream().filter(e -> e.active() && e.iaName().equals(iaName)).toList();
    }

    /**
     * Picks the entry {@code dat_ia_open} uses: exact name, equal major, minor at least the one
     * asked for (the exact minor preferred), thread safe if asked for (the exact thread safety
     * preferred), then the entry ranked best.
     *
     * @throws DatException {@code DAT_PROVIDER_NOT_FOUND} with the subtype that says which of
     *     these found none, naming {@code iaName}
     */
    Entry choose(String name, int major, int minor, boolean threadSafe) {
        List<Entry> named = active(name);
        if (named.isEmpty()) {
            throw notFound(DatReturn.NAME_NOT_REGISTERED, "no active provider offers IA '" + name + "'" + inactiveReason(name));
        }
        List<Entry> sameMajor = named.stream().filter(e -> e.versionMajor() == major).toList();
        if (sameMajor.isEmpty()) {
            throw notFound(DatReturn.MAJOR_NOT_FOUND, "IA '" + name + "' is offered for DAT " + versions(named)
                    + ", not for major version " + major);
        }
        List<Entry> minorOk = sameMajor.stream().filter(e -> e.versionMinor() >= minor).toList();
        if (minorOk.isEmpty()) {
            throw notFound(DatReturn.MINOR_NOT_FOUND, "IA '" + name + "' is offered for DAT " + versions(named)
                    + ", older than " + major + "." + minor);
        }
        List<Entry> safe = minorOk.stream().filter(e -> e.threadSafe() || !threadSafe).toList();
        if (safe.isEmpty()) {
            throw notFound(DatReturn.THREAD_SAFETY_NOT_FOUND, "IA '" + name + "' is offered only by providers that are"
                    + " not thread safe");
        }
        return safe.stream()
                .min(Comparator.comparing((Entry e) -> e.versionMinor() != minor)
                        .thenComparing(Entry::versionMinor)
                        .thenComparing(e -> e.threadSafe() != threadSafe)
                        .thenComparing(Entry.PREFERENCE))
                .orElseThrow();
    }

    private static String versions(List<Entry> entries) {
        return entries.stream().map(e -> e.versionMajor() + "." + e.versionMinor()).distinct().sorted()
                .collect(Collectors.joining(", "));
    }

    private String inactiveReason(String name) {
        return entries.stream().filter(e -> e.iaName().equals(name)).findFirst()
                .map(e -> " (it is " + e.state().name().toLowerCase() + ": " + e.failureDetail() + ")").orElse("");
    }

    private static DatException notFound(int subtype, String detail) {
        return DatException.of(DatReturn.PROVIDER_NOT_FOUND, subtype, "iaName", detail);
    }

    /**
     * Computes every entry's state from the registrations and the static registry.
     *
     * @param registrations the registrations, in the order they arrived
     * @param staticRegistry the static registry
     * @param failures failures found when opening, by entry key
     * @return the entries, in {@link #ORDER}
     */
    static List<Entry> compute(Collection<Registration> registrations, StaticRegistry staticRegistry,
            Map<Entry.Key, Failure> failures) {
        List<Entry> result = new ArrayList<>();
        List<Entry> candidates = new ArrayList<>();
        for (Registration registration : registrations) {
            if (!registration.valid()) {
                List<String> names = registration.iaNames().isEmpty() ? List.of("") : registration.iaNames();
                for (String name : names) {
                    result.add(new Entry(registration, null, name, registration.versionMajor(), registration.versionMinor(),
                            registration.threadSafe(), ProviderDTO.State.FAILED, registration.failureReason(),
                            registration.failureDetail()));
                }
                continue;
            }
            for (String name : registration.iaNames()) {
                candidates.add(Entry.of(registration, null, new ProviderInfo(name, registration.versionMajor(),
                        registration.versionMinor(), registration.threadSafe())));
            }
        }
        for (DatConf.Entry staticEntry : staticRegistry.entries()) {
            Registration provider = providerNamed(registrations, staticEntry.provider());
            // an OFED line names a C library and its DAT 2.0: a provider that serves the library's
            // entries serves them at its own DAT version
            Registration library = provider == null ? providerOfLibrary(registrations, staticEntry.provider()) : null;
            if (library != null) {
                provider = library;
            }
            Entry entry = Entry.of(provider, staticEntry, library == null ? staticEntry.info()
                    : new ProviderInfo(staticEntry.iaName(), library.versionMajor(), library.versionMinor(), staticEntry.threadSafe()));
            if (provider == null) {
                result.add(entry.withState(ProviderDTO.State.FAILED, ProviderDTO.FAILURE_REASON_NO_PROVIDER,
                        noProvider(registrations, staticEntry.provider())));
            } else if (library == null && (staticEntry.versionMajor() != provider.versionMajor()
                    || staticEntry.versionMinor() > provider.versionMinor())) {
                result.add(entry.withState(ProviderDTO.State.FAILED, ProviderDTO.FAILURE_REASON_INCOMPATIBLE_PROVIDER,
                        "the entry asks for DAT " + staticEntry.apiVersion() + " but provider '" + provider.providerName()
                                + "' implements " + provider.versionMajor() + "." + provider.versionMinor()));
            } else if (staticEntry.threadSafe() && !provider.threadSafe()) {
                result.add(entry.withState(ProviderDTO.State.FAILED, ProviderDTO.FAILURE_REASON_INCOMPATIBLE_PROVIDER,
                        "the entry asks for threadsafe but provider '" + provider.providerName() + "' is not thread safe"));
            } else {
                candidates.add(entry);
            }
        }
        Map<ProviderInfo, List<Entry>> groups = new LinkedHashMap<>();
        for (Entry candidate : candidates) {
            Failure failure = failures.get(candidate.key());
            if (failure != null) {
                result.add(candidate.withState(ProviderDTO.State.FAILED, failure.reason(), failure.detail()));
            } else {
                groups.computeIfAbsent(candidate.info(), info -> new ArrayList<>()).add(candidate);
            }
        }
        for (List<Entry> group : groups.values()) {
            group.sort(Entry.PREFERENCE);
            Entry winner = group.getFirst();
            result.add(winner);
            for (Entry loser : group.subList(1, group.size())) {
                result.add(loser.withState(ProviderDTO.State.SHADOWED, ProviderDTO.FAILURE_REASON_SHADOWED,
                        "shadowed by " + winner.source() + " (provider '" + winner.registration().providerName() + "')"));
            }
        }
        result.sort(ORDER);
        return result;
    }

    /** The best valid registration with a provider name, or {@code null}. */
    private static Registration providerNamed(Collection<Registration> registrations, String providerName) {
        Registration best = null;
        for (Registration registration : registrations) {
            if (registration.valid() && registration.providerName().equals(providerName)
                    && (best == null || better(registration, best))) {
                best = registration;
            }
        }
        return best;
    }

    /**
     * The best valid registration that lists the file name of a library path in
     * {@code dat.provider.library}, or {@code null}.
     */
    private static Registration providerOfLibrary(Collection<Registration> registrations, String libraryPath) {
        String fileName = libraryPath.substring(libraryPath.lastIndexOf('/') + 1);
        Registration best = null;
        for (Registration registration : registrations) {
            if (registration.valid() && registration.libraries().contains(fileName) && (best == null || better(registration, best))) {
                best = registration;
            }
        }
        return best;
    }

    private static boolean better(Registration a, Registration b) {
        if (a.ranking() != b.ranking()) {
            return a.ranking() > b.ranking();
        }
        if (a.kind() != b.kind()) {
            return a.kind().ordinal() < b.kind().ordinal();
        }
        return Math.abs(a.id()) < Math.abs(b.id());
    }

    private static String noProvider(Collection<Registration> registrations, String providerName) {
        String known = registrations.stream().filter(Registration::valid).map(Registration::providerName).distinct()
                .sorted().collect(Collectors.joining(", "));
        String detail = "no provider named '" + providerName + "' is registered";
        if (providerName.contains("/") || providerName.contains(".so")) {
            detail += " (a dat.conf entry names a provider by its dat.provider.name, or a C library that a provider lists in"
                    + " dat.provider.library)";
        }
        return detail + (known.isEmpty() ? "; no provider is registered" : "; registered providers: " + known);
    }
}
