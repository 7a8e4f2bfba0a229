package dat.api.spi;

import dat.api.DatException;
import dat.api.InterfaceAdapter;
import dat.api.ProviderInfo;
import java.util.Map;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The service a DAT provider registers: it opens Interface Adapters. This is the Java form of the
 * C provider's {@code DAT_PROVIDER} with its {@code dat_provider_init}/{@code dat_provider_fini}
 * entry points. Register it with the service properties of {@link DatProviderConstants}
 * ({@link DatProviderConstants#DAT_PROVIDER_NAME} is required; {@link DatProviderConstants#DAT_IA_NAME}
 * lists the IAs the provider offers by itself); the registry tracks it
 * ({@code dat_registry_add_provider}) until it unregisters ({@code dat_registry_remove_provider}).
 *
 * <p><b>Hot swap.</b> When the service unregisters while IAs it opened are open (the provider
 * bundle stops), the provider must, for each such IA: post
 * {@link dat.api.EventNumber#ASYNC_ERROR_IA_CATASTROPHIC} to its async EVD, complete every posted
 * DTO as flushed, make every handle answer {@link dat.api.DatReturn#INVALID_HANDLE}, wake every
 * waiter, and release its memory, native resources and threads. No call may block forever. An
 * {@link #openIa}, {@link #init} or {@link #fini} may be under way as the provider stops, or come
 * after it: it then fails ({@link dat.api.DatReturn#PROVIDER_NOT_FOUND}) or does nothing, and
 * never sets up again what the stop released.
 *
 * <p>Outside OSGi, a provider jar lists its factory in
 * {@code META-INF/services/dat.api.spi.DatIaFactory} (with a public no-argument constructor) and
 * describes it through {@link #properties()}. Each registry built there loads instances of its
 * own; a factory that also implements {@link AutoCloseable} is closed when that registry closes,
 * and its {@code close} is the hot swap above.
 *
 * <p>Consumers do not call factories: they go through {@link dat.api.DatRegistry}.
 *
 * @ThreadSafe every method may be called from any thread
 */
@ProviderType
public interface DatIaFactory {

    /**
     * Opens an instance of an IA: the provider half of {@code dat_ia_open(3DAT)}. The registry has
     * already matched name, version and thread safety.
     *
     * @param request the IA name, async EVD and static-registry parameters
     * @return the open IA
     * @throws DatException {@link dat.api.DatReturn#PROVIDER_NOT_FOUND} /
     *     {@link dat.api.DatReturn#NAME_NOT_REGISTERED} for an IA name this provider does not serve;
     *     {@link dat.api.DatReturn#INVALID_HANDLE} for a bad async EVD;
     *     {@link dat.api.DatReturn#INSUFFICIENT_RESOURCES}; {@link dat.api.DatReturn#INVALID_PARAMETER}
     *     for bad parameters
     */
    InterfaceAdapter openIa(IaOpenRequest request);

    /**
     * The properties that describe this factory, with the keys of {@link DatProviderConstants}.
     * Outside OSGi, where a registry finds factories with {@link java.util.ServiceLoader}, they
     * take the place of service properties; inside OSGi the service registration's properties
     * are authoritative. The default is an empty map.
     *
     * @return the properties, for example {@code dat.provider.name=sim}, {@code dat.ia.name=sim0}
     */
    default Map<String, Object> properties() {
        return Map.of();
    }

    /**
     * Prepares an IA name the static registry maps to this provider, before its first open:
     * {@code dat_provider_init(3DAT)}. The default does nothing; a provider that serves configured
     * IA names (from {@code dat.conf} entries' {@code ia_params}) sets them up here.
     *
     * @param providerInfo the static registry entry's IA name, version and thread safety
     * @param instanceData the entry's {@code ia_params} (the C {@code instance_data}); may be empty
     * @throws DatException when the IA cannot be set up; the registry reports the entry as failed
     */
    default void init(ProviderInfo providerInfo, String instanceData) {
    }

    /**
     * Undoes {@link #init} once no instance of the IA is open any more:
     * {@code dat_provider_fini(3DAT)}. The default does nothing.
     *
     * @param providerInfo the information given to {@link #init}
     */
    default void fini(ProviderInfo providerInfo) {
    }
}
