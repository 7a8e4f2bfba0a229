package dat.api;

import dat.api.spi.DatIaFactory;
import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The DAT registry: the one place consumers find providers and open Interface Adapters. Inside
 * OSGi it is a service (providers register {@link DatIaFactory} services, and the registry tracks
 * them); outside OSGi the registry bundle's {@code dat.registry.DatRegistries} gives an instance that
 * finds providers with {@link java.util.ServiceLoader}.
 *
 * <p>Consumers never look IA factories up themselves: the registry applies the static registry
 * ({@code dat.conf}), version and thread-safety matching, and ranking between providers that offer
 * the same IA name.
 *
 * <p>See dat_ia_open(3DAT), dat_registry_list_providers(3DAT), dat_registry_add_provider(3DAT),
 * dat_registry_remove_provider(3DAT).
 *
 * @ThreadSafe every method may be called from any thread
 */
@ProviderType
public interface DatRegistry {

    /** The async EVD queue length {@link #openIa(String)} asks for. */
    int DEFAULT_ASYNC_EVD_QLEN = 8;

    /**
     * Lists the providers: {@code dat_registry_list_providers(3DAT)}. The list holds the entries of
     * the static registry and, as an extension of DAT, the providers registered dynamically; the
     * registry's runtime DTOs say which is which.
     *
     * @return an immutable snapshot; listing has no effect on the registry
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
     *     smaller than the registry (the message gives the registry's size, the C
     *     {@code number_entries}) or {@code maxToReturn} is negative;
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
     *     {@link DatReturn#NAME_NOT_REGISTERED}, {@link DatReturn#MAJOR_NOT_FOUND},
     *     {@link DatReturn#MINOR_NOT_FOUND} or {@link DatReturn#THREAD_SAFETY_NOT_FOUND};
     *     {@link DatReturn#INVALID_PARAMETER}; {@link DatReturn#INVALID_HANDLE} for a bad async
     *     EVD; {@link DatReturn#INSUFFICIENT_RESOURCES}
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
     * @param provider the provider's IA factory
     * @param providerInfo the IA name, version and thread safety it offers
     * @throws DatException {@link DatReturn#PROVIDER_ALREADY_REGISTERED} for an IA name already
     *     registered with the same version and thread safety; {@link DatReturn#INVALID_PARAMETER}
     *     for {@code null} arguments; {@link DatReturn#INSUFFICIENT_RESOURCES} when the registry is
     *     full
     */
    void addProvider(DatIaFactory provider, ProviderInfo providerInfo);

    /**
     * Removes a provider added with {@link #addProvider}: {@code dat_registry_remove_provider(3DAT)}.
     * Removal only prevents new opens.
     *
     * @param provider the provider's IA factory
     * @param providerInfo the information it was added with
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} when no such provider is registered;
     *     {@link DatReturn#PROVIDER_IN_USE} while an IA opened through it is open
     */
    void removeProvider(DatIaFactory provider, ProviderInfo providerInfo);
}
