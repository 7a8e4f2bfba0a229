package dat.registry;

import dat.api.DatRegistry;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A DAT registry built outside OSGi by {@link DatRegistries}: a {@link DatRegistry} that owns the
 * provider instances it loaded with {@link java.util.ServiceLoader}, and releases them when closed,
 * as libdat's teardown calls {@code dat_provider_fini} for what it set up. Close it when the
 * application is done with DAT; until then the providers keep what an IA name needs between opens
 * (a TCP IA of the sim provider keeps its listening socket, so that its address stays the same).
 *
 * {@snippet :
 * try (StandaloneRegistry registry = DatRegistries.create();
 *         InterfaceAdapter ia = registry.openIa("sim0")) {
 *     // ...
 * }
 * }
 *
 * <p>Inside OSGi the registry is a service, and the framework ends it; it has no {@code close}.
 *
 * @ThreadSafe every method may be called from any thread; {@link #close} once or more
 */
@ProviderType
public interface StandaloneRegistry extends DatRegistry, AutoCloseable {

    /**
     * Closes the registry, in this order:
     * <ol>
     * <li>It lists no provider any more, tells its listeners that each provider left
     * ({@code providerRemoved}) and then nothing more; a later
     * {@link #openIa(String, int, dat.api.EventDispatcher, int, int, boolean) openIa} fails with
     * {@link dat.api.DatReturn#PROVIDER_NOT_FOUND}, a later {@link #addProvider} with
     * {@link dat.api.DatReturn#INVALID_STATE}.</li>
     * <li>Each IA name of the static registry that a provider set up ({@code init}) and that has no
     * IA open is undone: {@code fini}, dat_provider_fini(3DAT). One with an IA open is left to its
     * provider, and not undone later.</li>
     * <li>Each provider it loaded with ServiceLoader that is {@link AutoCloseable} is closed: the
     * provider's hot swap ({@link dat.api.spi.DatIaFactory}), which fails the IAs still open with
     * {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC} and releases their threads, sockets and memory.</li>
     * </ol>
     * Providers given to the builder or added with {@link #addProvider} are the caller's: they are
     * not closed. A provider that fails to close is logged; the others are closed all the same.
     * Closing a closed registry does nothing; a second caller returns once the first is done. An
     * open under way as the registry closes may still reach a provider as it closes, as one may
     * reach a provider bundle that stops.
     */
    @Override
    void close();
}
