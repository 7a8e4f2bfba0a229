package dat.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told when IAs become openable through the registry and when they stop being so: the way a
 * consumer follows providers that arrive and leave (hot swap). Register it with
 * {@link DatRegistry#addListener}, or, inside OSGi, register it as a service (whiteboard): the
 * registry adds every {@code DatRegistryListener} service.
 *
 * <p>"Added" means an IA became {@link ProviderDTO.State#ACTIVE}: a provider registered, a
 * shadowed provider took over, a static entry found its provider. "Removed" means an active IA
 * stopped being active: its provider left, another provider now shadows it, or its static entry
 * went away. When a winning provider leaves and a shadowed one takes over, the listener hears
 * {@link #providerRemoved} for the old and then {@link #providerAdded} for the new.
 *
 * <p>Calls for one listener come one at a time and in the order of the changes; they may come
 * from any thread, usually the thread that registered or unregistered the provider, after the
 * registry has applied the change (so {@link DatRegistry#openIa} already sees it). A listener
 * must not block for long. An exception thrown by a listener is logged and otherwise ignored.
 *
 * <p>Example: re-open an IA when its provider comes back.
 * {@snippet :
 * registry.addListener(new DatRegistryListener() {
 *     public void providerAdded(ProviderDTO provider) {
 *         if (provider.iaName().equals("sim0")) {
 *             reopen.release();           // wake the consumer thread, which calls openIa
 *         }
 *     }
 *     public void providerRemoved(ProviderDTO provider) {
 *     }
 * });
 * }
 *
 * @ThreadSafe the registry calls it from several threads, one call at a time
 */
@ConsumerType
public interface DatRegistryListener {

    /**
     * An IA became active: {@link DatRegistry#openIa} can open it.
     *
     * @param provider the IA, with {@link ProviderDTO#state()} {@link ProviderDTO.State#ACTIVE}
     */
    void providerAdded(ProviderDTO provider);

    /**
     * An IA stopped being active. IAs already opened through it are the provider's business: when
     * the provider left, they receive {@link EventNumber#ASYNC_ERROR_IA_CATASTROPHIC}.
     *
     * @param provider the IA as it was while active
     */
    void providerRemoved(ProviderDTO provider);

    /**
     * An IA was opened through the registry, by any consumer: a Java extension for management
     * agents (the {@code dat.management} bundle publishes the IA's {@link dat.api.ext.IaStatistics}
     * as an MBean). Also called, when the listener is added, for every IA open at that moment. The
     * IA belongs to the consumer that opened it: do not close it or create objects on it; query
     * it, look up its extensions and watch {@link InterfaceAdapter#isOpen()}. The registry does not
     * report closes, which are the consumer's and the provider's business. The default does
     * nothing.
     *
     * @param provider the IA's provider entry, as the registry saw it at the open
     * @param ia the open IA
     */
    default void iaOpened(ProviderDTO provider, InterfaceAdapter ia) {
    }
}
