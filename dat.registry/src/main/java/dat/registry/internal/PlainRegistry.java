package dat.registry.internal;

import dat.api.ProviderDTO;
import dat.api.spi.DatIaFactory;
import dat.registry.StandaloneRegistry;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/** Assembles a registry outside OSGi: ServiceLoader providers, given providers, a static registry. */
public final class PlainRegistry {

    private static final System.Logger LOG = System.getLogger(PlainRegistry.class.getName());

    private PlainRegistry() {
    }

    /**
     * Builds a registry.
     *
     * @param loader the class loader ServiceLoader searches, or {@code null} not to use ServiceLoader
     * @param providers providers to register as ServiceLoader would
     * @param staticRegistryPath the static registry file, or {@code null}
     * @param maxAddedProviders the limit of {@code addProvider}
     * @return the registry, which owns the providers ServiceLoader made for it
     */
    public static StandaloneRegistry create(ClassLoader loader, List<DatIaFactory> providers, String staticRegistryPath,
            int maxAddedProviders) {
        Registry registry = new Registry(maxAddedProviders);
        List<DatIaFactory> loaded = new ArrayList<>();
        if (loader != null) {
            load(registry, ServiceLoader.load(DatIaFactory.class, loader).iterator(), loaded);
        }
        for (DatIaFactory factory : providers) {
            register(registry, factory, "DatRegistries.Builder.provider (" + factory.getClass().getName() + ")");
        }
        registry.setStaticRegistry(StaticRegistry.load(staticRegistryPath));
        return new Standalone(registry, loaded);
    }

    /**
     * Registers each provider ServiceLoader finds; one that cannot be loaded or instantiated (its
     * class missing, not a {@link DatIaFactory}, without a public no-argument constructor, failing
     * in it) becomes a failed registration, and the others still load.
     */
    private static void load(Registry registry, Iterator<DatIaFactory> providers, List<DatIaFactory> loaded) {
        String lastError = null;
        while (true) {
            DatIaFactory factory;
            try {
                if (!providers.hasNext()) {
                    return;
                }
                factory = providers.next();
            } catch (ServiceConfigurationError | LinkageError | RuntimeException e) {
                // ServiceLoader's iterator goes on to the next provider after an error, as a best
                // effort: the same error twice in a row means it does not
                String error = e.toString();
                if (error.equals(lastError)) {
                    return;
                }
                lastError = error;
                LOG.log(Level.WARNING, "DAT registry: cannot load a provider", e);
                registry.register(Registration.failed(registry.nextLocalId(), Registration.Kind.SERVICE_LOADER,
                        "ServiceLoader (META-INF/services/" + DatIaFactory.class.getName() + ")", "",
                        ProviderDTO.FAILURE_REASON_SERVICE_UNAVAILABLE, "cannot be loaded: " + error));
                continue;
            }
            lastError = null;
            loaded.add(factory);
            register(registry, factory, "ServiceLoader (" + factory.getClass().getName() + ")");
        }
    }

    private static void register(Registry registry, DatIaFactory factory, String source) {
        Map<String, Object> properties;
        try {
            properties = factory.properties();
        } catch (RuntimeException e) {
            registry.register(Registration.failed(registry.nextLocalId(), Registration.Kind.SERVICE_LOADER, source,
                    factory.getClass().getName(), ProviderDTO.FAILURE_REASON_INVALID_PROPERTIES, "properties() failed: " + e));
            return;
        }
        registry.register(Registration.describe(registry.nextLocalId(), Registration.Kind.SERVICE_LOADER, source,
                properties == null ? Map.of() : properties, new Registration.Direct(factory)));
    }
}
