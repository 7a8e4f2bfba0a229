package dat.api;

import dat.api.spi.DatIaFactory;
import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The DAT registry: the one place consumers find providers and open Interface Adapters. Inside
 * OSGi it is a service (providers register {@link DatIaFactory} services, and the registry tracks
 * them); outside OSGi the registry bundle's {@code dat.registry.DatRegistries} gives an instance that
 * finds providers with {@link java.util.ServiceLoader}, and that its user closes when done with it
 * ({@code dat.registry.StandaloneRegistry}).
 *
 * <p>Consumers never look IA factories up themselves: the registry applies the static registry
 * ({@code dat.conf}), version and thread-safety matching, and ranking between providers that offer
 * the same IA name. They may select providers by an LDAP filter over the providers' properties
 * ({@link #findProviders}), follow providers that arrive and leave ({@link #addListener}), and see
 * every active, shadowed and failed provider with the reason ({@link #getRuntimeDTO}).
 *
 * <p>Typical use:
 * {@snippet :
 * try (InterfaceAdapter ia = registry.openIa("sim0")) {           // dat_ia_open
 *     EventDispatcher asyncEvd = ia.query().asyncEvd();
 *     // ...
 * }
 * }
 *
 * <p>The registry does not close IAs when their provider leaves: the provider does (see the hot
 * swap paragraph of {@link DatIaFactory}); the registry stops listing the provider, and later opens
 * go to another provider of the same IA name, if any, or fail with
 * {@link DatReturn#PROVIDER_NOT_FOUND}. No method of the registry blocks on a provider that comes or
 * goes.
 *
 * <p>See dat_ia_open(3DAT), dat_registry_list_providers(3DAT), dat_registry_add_provider(3DAT),
 * dat_registry_remove_provider(3DAT), dat_provider_init(3DAT), dat_provider_fini(3DAT).
 *
 * @ThreadSafe every method may be called from any thread
 */
@ProviderType
public interface DatRegistry {

    /** The async EVD queue length {@link #openIa(String)} asks for. */
    int DEFAULT_ASYNC_EVD_QLEN = 8;

    /**
     * Lists the providers: {@code dat_registry_list_providers(3DAT)}. The list holds the active
     * entries of the static registry and, as an extension of DAT, the active providers registered
     * dynamically; {@link #getRuntimeDTO()} says which is which, and shows the shadowed and failed
     * ones, which are not listed here. Every IA listed can be opened with its name, version and
     * thread safety.
     *
     * @return an immutable snapshot, ordered by IA name; listing has no effect on the registry
     * @throws DatException {@link DatReturn#INTERNAL_ERROR} when a configured static registry
     *     cannot be read
     */
    List<ProviderInfo> listProviders();

    /**
     * Lists the providers into a consumer array, as {@code dat_registry_list_providers(3DAT)} does
     * in C.
     *
     * @param maxToReturn the most entries to return
     * @param providerList the array to fill, at least {@code maxToReturn} long
     * @return the number of entries filled
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} when the array is {@code null} or
     *     shorter than {@code maxToReturn} ({@link DatReturn#INVALID_ARG3}), or
     *     {@code maxToReturn} is negative or smaller than the registry
     *     ({@link DatReturn#INVALID_ARG1}); the message gives the registry's size, the C
     *     {@code number_entries};
     *     {@link DatReturn#INTERNAL_ERROR} when a configured static registry cannot be read
     */
    int listProviders(int maxToReturn, ProviderInfo[] providerList);

    /**
     * Opens an IA by name: {@code dat_ia_openv} (the function behind the {@code dat_ia_open(3DAT)}
     * macro). A provider matches when its IA name is equal, its major version equal, its minor
     * version at least the requested one, and it is thread safe if thread safety is requested (a
     * thread-safe provider also serves a consumer that does not ask for it).
     *
     * @param iaName the IA name; a {@code RO_AWARE_} prefix is removed before matching
     * @param asyncEvdMinQlen the queue length of the async EVD the provider creates when
     *     {@code asyncEvd} is {@code null}
     * @param asyncEvd {@code null} to have the provider create the async EVD, an existing async EVD
     *     of the same provider, or {@link EventDispatcher#ASYNC_EXISTS}
     * @param versionMajor the DAT major version the consumer was written for
     * @param versionMinor the DAT minor version the consumer was written for
     * @param threadSafe whether the consumer needs a thread-safe provider
     * @return the open IA
     * @throws DatException {@link DatReturn#PROVIDER_NOT_FOUND} with
     *     {@link DatReturn#NAME_NOT_REGISTERED} (no active provider has the name),
     *     {@link DatReturn#MAJOR_NOT_FOUND} (none with the major version),
     *     {@link DatReturn#MINOR_NOT_FOUND} (none with at least the minor version) or
     *     {@link DatReturn#THREAD_SAFETY_NOT_FOUND} (none thread safe);
     *     {@link DatReturn#INVALID_PARAMETER} for an empty name ({@link DatReturn#INVALID_ARG1}), a
     *     queue length below 1 when the provider creates the EVD ({@link DatReturn#INVALID_ARG2}) or
     *     a negative version ({@link DatReturn#INVALID_ARG5}, {@link DatReturn#INVALID_ARG6});
     *     {@link DatReturn#INVALID_HANDLE} for a closed or foreign async EVD;
     *     {@link DatReturn#INSUFFICIENT_RESOURCES} and the provider's other codes; when a static
     *     entry's provider fails to initialize it ({@code dat_provider_init}), the code of that
     *     failure
     */
    InterfaceAdapter openIa(String iaName, int asyncEvdMinQlen, EventDispatcher asyncEvd, int versionMajor,
            int versionMinor, boolean threadSafe);

    /**
     * Opens an IA by name the way the C macro {@code dat_ia_open} does: DAT 1.2, no thread
     * safety required, a new async EVD of {@link #DEFAULT_ASYNC_EVD_QLEN} events.
     *
     * @param iaName the IA name
     * @return the open IA
     * @throws DatException as {@link #openIa(String, int, EventDispatcher, int, int, boolean)}
     */
    default InterfaceAdapter openIa(String iaName) {
        return openIa(iaName, DEFAULT_ASYNC_EVD_QLEN, null, DatConstants.VERSION_MAJOR, DatConstants.VERSION_MINOR, false);
    }

    /**
     * Declares a provider outside OSGi (or a consumer-loaded one) to the dynamic registry:
     * {@code dat_registry_add_provider(3DAT)}. Inside OSGi, registering a {@link DatIaFactory}
     * service does the same.
     *
     * <p>The provider is described by {@link DatIaFactory#properties()} (its name, transport,
     * ranking) and offers exactly the IA of {@code providerInfo}.
     *
     * @param provider the provider's IA factory
     * @param providerInfo the IA name, version and thread safety it offers
     * @throws DatException {@link DatReturn#PROVIDER_ALREADY_REGISTERED} for an IA name already
     *     registered with the same version and thread safety (by any provider);
     *     {@link DatReturn#INVALID_PARAMETER} for {@code null} arguments;
     *     {@link DatReturn#INSUFFICIENT_RESOURCES} when the registry already holds its maximum of
     *     added providers
     */
    void addProvider(DatIaFactory provider, ProviderInfo providerInfo);

    /**
     * Removes a provider added with {@link #addProvider}: {@code dat_registry_remove_provider(3DAT)}.
     * Removal only prevents new opens. A provider registered as an OSGi service leaves by
     * unregistering its service instead.
     *
     * @param provider the provider's IA factory
     * @param providerInfo the information it was added with
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} when no such provider was added
     *     (or for {@code null} arguments); {@link DatReturn#PROVIDER_IN_USE} while an IA opened
     *     through it is open
     */
    void removeProvider(DatIaFactory provider, ProviderInfo providerInfo);

    /**
     * The active providers whose properties match an LDAP filter (RFC 1960, as OSGi service
     * filters), best first: static entries, then higher {@code service.ranking}, then OSGi services
     * before {@link java.util.ServiceLoader} providers before those given to {@link #addProvider},
     * then lower {@code service.id}. The properties are those of {@link ProviderDTO#properties()}, for
     * example {@code (dat.transport=sim)} or {@code (&(dat.provider.name=verbs)(dat.capability=srq))};
     * build literals with {@link #escapeFilterValue(String)}.
     *
     * @param filter the filter, or {@code null} or {@code ""} for every active provider
     * @return the matching active IAs, best first
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} ({@link DatReturn#INVALID_ARG1})
     *     for a filter that does not parse; the message says where
     */
    List<ProviderDTO> findProviders(String filter);

    /**
     * Opens the best active IA that matches an LDAP filter: the first of
     * {@link #findProviders(String)}, opened with its name, DAT version and thread safety, and a
     * new async EVD of {@link #DEFAULT_ASYNC_EVD_QLEN} events. The registry prefers the exact version
     * and thread safety asked for, and only one active IA has a given name, version and thread
     * safety: so the IA opened is the one the filter matched, unless the registry changed meanwhile.
     *
     * @param filter the filter, for example {@code (dat.transport=sim)}
     * @return the open IA
     * @throws DatException {@link DatReturn#PROVIDER_NOT_FOUND} with
     *     {@link DatReturn#NAME_NOT_REGISTERED} when no active IA matches; the codes of
     *     {@link #findProviders} and {@link #openIa(String, int, EventDispatcher, int, int, boolean)}
     */
    default InterfaceAdapter openIaMatching(String filter) {
        List<ProviderDTO> found = findProviders(filter);
        if (found.isEmpty()) {
            throw DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "filter",
                    "no active provider matches " + filter);
        }
        ProviderDTO best = found.getFirst();
        // by name alone (DAT 1.2, not thread safe) another IA of the name could win
        return openIa(best.iaName(), DEFAULT_ASYNC_EVD_QLEN, null, best.versionMajor(), best.versionMinor(), best.threadSafe());
    }

    /**
     * The registry's state: every IA, active, shadowed or failed with the reason, and the state of
     * the static registry. Never fails.
     *
     * @return a snapshot
     */
    RegistryRuntimeDTO getRuntimeDTO();

    /**
     * Adds a listener, which is told at once of every IA active now ({@link
     * DatRegistryListener#providerAdded}) and then of every change. Adding a listener twice adds
     * it once.
     *
     * @param listener the listener
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for {@code null}; {@link
     *     DatReturn#INVALID_STATE} once the registry is closed
     */
    void addListener(DatRegistryListener listener);

    /**
     * Removes a listener; it is told nothing more once this method returns, except for a call
     * already under way on another thread. Removing an unknown listener does nothing.
     *
     * @param listener the listener
     */
    void removeListener(DatRegistryListener listener);

    /**
     * Escapes a string for use as a value in an LDAP filter: a backslash before each {@code \},
     * {@code *}, {@code (} and {@code )}, the backslash first so that no escape is escaped twice.
     * For example {@code "(dat.ia.name=" + escapeFilterValue(name) + ")"}.
     *
     * @param value the literal value
     * @return the escaped value
     */
    static String escapeFilterValue(String value) {
        StringBuilder escaped = new StringBuilder(value.length() + 8);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\' || c == '*' || c == '(' || c == ')') {
                escaped.append('\\');
            }
            escaped.append(c);
        }
        return escaped.toString();
    }
}
