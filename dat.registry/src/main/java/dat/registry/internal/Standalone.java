package dat.registry.internal;

import dat.api.spi.DatIaFactory;
import dat.registry.StandaloneRegistry;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * The registry outside OSGi: a {@link Registry} and the provider instances it loaded, which its
 * {@link #close} closes.
 */
final class Standalone extends RegistryFacade implements StandaloneRegistry {

    private static final System.Logger LOG = System.getLogger(Standalone.class.getName());

    private final List<DatIaFactory> loaded;
    private boolean closed; // guarded by this

    /**
     * @param registry the registry
     * @param loaded the provider instances ServiceLoader made for it, which it owns
     */
    Standalone(Registry registry, List<DatIaFactory> loaded) {
        super(registry);
        this.loaded = List.copyOf(loaded);
    }

    /**
     * Synchronized: a second caller returns once the first has released everything. An open or a
     * fini already under way may still reach a provider as it closes, as one may reach a provider
     * bundle that stops (the hot swap contract of {@link DatIaFactory} covers both).
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return; // also a listener that closes the registry from its providerRemoved, as this closes it
        }
        closed = true;
        try {
            registry.close(); // fini of the static entries set up, while their providers still run
        } finally {
            for (DatIaFactory factory : loaded) {
                if (factory instanceof AutoCloseable closeable) {
                    try {
                        closeable.close();
                    } catch (Exception | LinkageError e) {
                        LOG.log(Level.WARNING, "DAT registry: provider " + factory.getClass().getName() + " failed to close", e);
                    }
                }
            }
        }
    }

    @Override
    public String toString() {
        boolean isClosed;
        synchronized (this) {
            isClosed = closed;
        }
        return (isClosed ? "closed " : "") + "standalone DAT registry, " + loaded.size() + " provider(s) loaded";
    }
}
