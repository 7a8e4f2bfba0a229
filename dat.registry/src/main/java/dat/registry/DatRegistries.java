package dat.registry;

import dat.api.DatRegistry;
import dat.api.ProviderDTO;
import dat.api.spi.DatIaFactory;
import dat.registry.internal.PlainRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The DAT registry outside OSGi, on a plain class path or module path: providers are found with
 * {@link java.util.ServiceLoader} (a provider jar lists its {@link DatIaFactory} in
 * {@code META-INF/services/dat.api.spi.DatIaFactory} and describes it with
 * {@link DatIaFactory#properties()}), given to the builder, or added later with
 * {@link DatRegistry#addProvider}. Inside OSGi, use the {@link DatRegistry} service instead.
 *
 * {@snippet :
 * try (StandaloneRegistry registry = DatRegistries.create();   // ServiceLoader + dat.conf from -Ddat.conf / DAT_CONF
 *         InterfaceAdapter ia = registry.openIa("sim0")) {
 *     // ...
 * }
 * }
 *
 * <p>The static registry is read once, when the registry is built, from the first of: the
 * builder's {@link Builder#staticRegistry(Path)}, the system property {@value #STATIC_REGISTRY_PROPERTY},
 * the environment variable {@value #STATIC_REGISTRY_ENV}. Each call builds a new, independent
 * registry with new provider instances; nothing is shared between registries. Closing a registry
 * ({@link StandaloneRegistry#close}) releases the provider instances it loaded.
 */
@ProviderType
public final class DatRegistries {

    /** The system property naming the static registry file: {@code dat.conf}. */
    public static final String STATIC_REGISTRY_PROPERTY = "dat.conf";

    /** The environment variable naming the static registry file, as OFED's {@code DAT_OVERRIDE}. */
    public static final String STATIC_REGISTRY_ENV = "DAT_CONF";

    /** The default of {@link Builder#maxAddedProviders(int)}. */
    public static final int DEFAULT_MAX_ADDED_PROVIDERS = 256;

    private DatRegistries() {
    }

    /**
     * A registry with the providers {@link java.util.ServiceLoader} finds through the thread's
     * context class loader and the static registry the system property or environment names.
     *
     * @return a new registry, to close when done with it
     */
    public static StandaloneRegistry create() {
        return builder().build();
    }

    /**
     * A builder, to choose the class loader, the static registry and extra providers.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a plain-Java registry. */
    public static final class Builder {
        private ClassLoader classLoader;
        private boolean serviceLoader = true;
        private Path staticRegistry;
        private boolean noStaticRegistry;
        private int maxAddedProviders = DEFAULT_MAX_ADDED_PROVIDERS;
        private final List<DatIaFactory> providers = new ArrayList<>();

        private Builder() {
        }

        /**
         * The class loader ServiceLoader searches; default: the thread's context class loader.
         *
         * @param loader the class loader
         * @return this builder
         */
        public Builder classLoader(ClassLoader loader) {
            this.classLoader = Objects.requireNonNull(loader, "loader");
            return this;
        }

        /**
         * Whether to look for providers with ServiceLoader at all; default {@code true}.
         *
         * @param enabled whether to use ServiceLoader
         * @return this builder
         */
        public Builder serviceLoader(boolean enabled) {
            this.serviceLoader = enabled;
            return this;
        }

        /**
         * The static registry file, instead of the system property or environment variable.
         *
         * @param file the {@code dat.conf} file
         * @return this builder
         */
        public Builder staticRegistry(Path file) {
            this.staticRegistry = Objects.requireNonNull(file, "file");
            this.noStaticRegistry = false;
            return this;
        }

        /**
         * No static registry, whatever the system property or environment say.
         *
         * @return this builder
         */
        public Builder noStaticRegistry() {
            this.staticRegistry = null;
            this.noStaticRegistry = true;
            return this;
        }

        /**
         * A provider to register as ServiceLoader would, described by its
         * {@link DatIaFactory#properties()} (it offers the IAs of its {@code dat.ia.name} and
         * serves the static entries naming its {@code dat.provider.name}).
         *
         * @param factory the provider's factory
         * @return this builder
         */
        public Builder provider(DatIaFactory factory) {
            providers.add(Objects.requireNonNull(factory, "factory"));
            return this;
        }

        /**
         * The most providers {@link DatRegistry#addProvider} accepts before it answers
         * {@code DAT_INSUFFICIENT_RESOURCES}; default {@value DatRegistries#DEFAULT_MAX_ADDED_PROVIDERS}.
         *
         * @param max the maximum, at least 0
         * @return this builder
         */
        public Builder maxAddedProviders(int max) {
            if (max < 0) {
                throw new IllegalArgumentException("max " + max);
            }
            this.maxAddedProviders = max;
            return this;
        }

        /**
         * Builds the registry: loads the providers and reads the static registry. A provider that
         * cannot be loaded, and every bad line of the static registry, is reported in the
         * registry's {@link DatRegistry#getRuntimeDTO()} (a provider as
         * {@link ProviderDTO#FAILURE_REASON_SERVICE_UNAVAILABLE}) and logged; neither stops the
         * others.
         *
         * @return a new registry, to close when done with it
         */
        public StandaloneRegistry build() {
            String path;
            if (noStaticRegistry) {
                path = null;
            } else if (staticRegistry != null) {
                path = staticRegistry.toString();
            } else {
                path = System.getProperty(STATIC_REGISTRY_PROPERTY);
                if (path == null || path.isBlank()) {
                    path = System.getenv(STATIC_REGISTRY_ENV);
                }
            }
            ClassLoader loader = classLoader != null ? classLoader : Thread.currentThread().getContextClassLoader();
            if (loader == null) {
                loader = DatRegistries.class.getClassLoader();
            }
            return PlainRegistry.create(serviceLoader ? loader : null, providers, path, maxAddedProviders);
        }
    }
}
