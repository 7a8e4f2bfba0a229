package dat.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.DatException;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.api.ProviderInfo;
import dat.api.spi.DatIaFactory;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry on a plain class path, no framework anywhere: this test's class path lists
 * {@link RecordingFactory} in META-INF/services/dat.api.spi.DatIaFactory.
 */
class DatRegistriesTest {

    @Test
    void findsProvidersWithServiceLoader() {
        try (StandaloneRegistry registry = DatRegistries.builder().noStaticRegistry().build()) {
            assertThat(registry.listProviders()).containsExactly(new ProviderInfo("rec0", 1, 2, false));
            try (InterfaceAdapter ia = registry.openIa("rec0")) {
                assertThat(ia.name()).isEqualTo("rec0");
                assertThat(ia.isOpen()).isTrue();
            }
            ProviderDTO dto = registry.getRuntimeDTO().providers().getFirst();
            assertThat(dto.source()).isEqualTo("ServiceLoader (dat.registry.RecordingFactory)");
            assertThat(dto.id()).isEqualTo(-1);
            assertThat(dto.transport()).isEqualTo("loopback");
        }
    }

    /**
     * Runs the registry in a class loader that holds only dat.api, dat.registry and the test
     * provider, so that no OSGi class can be reached: the plain-Java registry needs none.
     */
    @Test
    void needsNoOsgiClassAtAll() throws Exception {
        URL[] path = {codeSource(DatRegistry.class), codeSource(DatRegistries.class), codeSource(RecordingFactory.class)};
        try (URLClassLoader plain = new URLClassLoader(path, ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> plain.loadClass("org.osgi.framework.BundleContext"))
                    .isInstanceOf(ClassNotFoundException.class);
            Class<?> registries = plain.loadClass(DatRegistries.class.getName());
            Object builder = registries.getMethod("builder").invoke(null);
            Class<?> builderType = builder.getClass();
            builderType.getMethod("classLoader", ClassLoader.class).invoke(builder, plain);
            builderType.getMethod("noStaticRegistry").invoke(builder);
            Object registry = builderType.getMethod("build").invoke(builder);
            Class<?> registryType = plain.loadClass(DatRegistry.class.getName());
            assertThat(registry.getClass().getClassLoader()).isSameAs(plain);
            Object ia = registryType.getMethod("openIa", String.class).invoke(registry, "rec0");
            Class<?> iaType = plain.loadClass(InterfaceAdapter.class.getName());
            assertThat(iaType.getMethod("name").invoke(ia)).isEqualTo("rec0");
            assertThat(registryType.getMethod("listProviders").invoke(registry)).asString().contains("rec0");
            plain.loadClass(StandaloneRegistry.class.getName()).getMethod("close").invoke(registry);
            assertThat(registryType.getMethod("listProviders").invoke(registry)).asString().isEqualTo("[]");
        }
    }

    private static URL codeSource(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    /** A provider ServiceLoader can load, beside ones it cannot. */
    public static final class GoodFactory extends RecordingFactory {
        public GoodFactory() {
            super("good", "good0");
        }
    }

    /** A provider ServiceLoader cannot instantiate: it has no public no-argument constructor. */
    public static final class NoDefaultConstructorFactory extends RecordingFactory {
        public NoDefaultConstructorFactory(String providerName) {
            super(providerName, "never0");
        }
    }

    @Test
    void aProviderThatCannotBeLoadedIsReportedAndTheOthersLoad(@TempDir Path dir) throws IOException {
        Path services = dir.resolve("META-INF/services/" + DatIaFactory.class.getName());
        Files.createDirectories(services.getParent());
        // a missing class, a class that is no DatIaFactory, one without a public no-argument constructor
        Files.writeString(services, String.join("\n", "com.example.Missing", DatRegistriesTest.class.getName(),
                NoDefaultConstructorFactory.class.getName(), GoodFactory.class.getName(), ""));
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                        DatRegistriesTest.class.getClassLoader());
                StandaloneRegistry registry = DatRegistries.builder().classLoader(loader).noStaticRegistry().build()) {
            assertThat(registry.listProviders()).extracting(ProviderInfo::iaName).contains("good0");
            registry.openIa("good0").close();
            assertThat(registry.getRuntimeDTO().providers(ProviderDTO.State.FAILED)).allSatisfy(dto -> {
                assertThat(dto.failureReason()).isEqualTo(ProviderDTO.FAILURE_REASON_SERVICE_UNAVAILABLE);
                assertThat(dto.origin()).isEqualTo(ProviderDTO.Origin.DYNAMIC);
            }).extracting(ProviderDTO::failureDetail).satisfiesExactlyInAnyOrder(
                    detail -> assertThat(detail).contains("com.example.Missing not found"),
                    detail -> assertThat(detail).contains(DatRegistriesTest.class.getName() + " not a subtype"),
                    detail -> assertThat(detail).contains(NoDefaultConstructorFactory.class.getName()));
        }
    }

    @Test
    void eachRegistryHasItsOwnProviders() {
        try (StandaloneRegistry one = DatRegistries.builder().noStaticRegistry().build();
                StandaloneRegistry two = DatRegistries.builder().noStaticRegistry().build()) {
            one.addProvider(new RecordingFactory("extra"), new ProviderInfo("extra0", 1, 2, false));
            assertThat(one.listProviders()).hasSize(2);
            assertThat(two.listProviders()).hasSize(1);
        }
    }

    @Test
    void readsAStaticRegistryAndTakesGivenProviders(@TempDir Path dir) throws IOException {
        Path conf = dir.resolve("dat.conf");
        Files.writeString(conf, """
                # two IAs of the recording provider, one of a provider given to the builder
                conf0 u1.2 nonthreadsafe default recording rec.1.0 "mode=a" ""
                conf1 u1.2 nonthreadsafe default given given.1.0 "mode=b" ""
                broken line
                """);
        RecordingFactory given = new RecordingFactory("given");
        try (StandaloneRegistry registry = DatRegistries.builder().staticRegistry(conf).provider(given).build()) {
            assertThat(registry.listProviders()).extracting(ProviderInfo::iaName).containsExactly("conf0", "conf1", "rec0");
            registry.openIa("conf1").close();
            assertThat(given.calls).containsExactly("init conf1 [mode=b]", "open conf1 [mode=b]");
            assertThat(registry.getRuntimeDTO().staticRegistryProblems())
                    .containsExactly(conf + ":4: expected 8 fields but found 2 (ia_name api_version threadsafe|nonthreadsafe"
                            + " default|nondefault provider provider_version ia_params platform_params)");
        }
    }

    @Test
    void aMissingStaticRegistryMakesListingAnInternalError(@TempDir Path dir) {
        try (StandaloneRegistry registry = DatRegistries.builder().staticRegistry(dir.resolve("absent.conf")).build()) {
            assertThatThrownBy(registry::listProviders).isInstanceOfSatisfying(DatException.class,
                    e -> assertThat(e.type()).isEqualTo(DatReturn.INTERNAL_ERROR));
            assertThat(registry.openIa("rec0").name()).isEqualTo("rec0");
        }
    }

    @Test
    void closing_finisWhatTheStaticRegistrySetUp_thenClosesTheProvidersItLoaded_notThoseGiven(@TempDir Path dir)
            throws IOException {
        Path conf = dir.resolve("dat.conf");
        Files.writeString(conf, """
                conf0 u1.2 nonthreadsafe default recording rec.1.0 "mode=a" ""
                conf1 u1.2 nonthreadsafe default given given.1.0 "mode=b" ""
                """);
        RecordingFactory given = new RecordingFactory("given");
        RecordingFactory added = new RecordingFactory("added");
        int loadedBefore = RecordingFactory.LOADED.size();
        StandaloneRegistry registry = DatRegistries.builder().staticRegistry(conf).provider(given).build();
        assertThat(RecordingFactory.LOADED).as("ServiceLoader's instance for this registry").hasSize(loadedBefore + 1);
        RecordingFactory loaded = RecordingFactory.LOADED.getLast();
        registry.addProvider(added, new ProviderInfo("added0", 1, 2, false));
        registry.openIa("conf0").close();
        registry.openIa("conf1").close();
        InterfaceAdapter stillOpen = registry.openIa("rec0");

        registry.close();

        assertThat(loaded.calls).containsExactly("init conf0 [mode=a]", "open conf0 [mode=a]", "open rec0 []", "fini conf0",
                "close");
        assertThat(given.calls).as("a provider given to the builder is the caller's").containsExactly(
                "init conf1 [mode=b]", "open conf1 [mode=b]", "fini conf1");
        assertThat(added.calls).as("a provider added with addProvider is the caller's").isEmpty();
        assertThat(stillOpen.isOpen()).as("the registry closes no IA itself: the provider does as it closes").isTrue();
        assertThat(registry.listProviders()).isEmpty();
        assertThatThrownBy(() -> registry.openIa("rec0")).isInstanceOfSatisfying(DatException.class, e -> {
            assertThat(e.type()).isEqualTo(DatReturn.PROVIDER_NOT_FOUND);
            assertThat(e.getMessage()).contains("the registry is closed");
        });
        assertThatThrownBy(() -> registry.addProvider(new RecordingFactory("late"), new ProviderInfo("late0", 1, 2, false)))
                .isInstanceOfSatisfying(DatException.class, e -> assertThat(e.type()).isEqualTo(DatReturn.INVALID_STATE));

        registry.close();
        assertThat(loaded.calls).as("closing again does nothing").filteredOn("close"::equals).hasSize(1);
    }

    @Test
    void aStaticEntryWithAnIaOpen_isLeftToItsProvider_asItCloses(@TempDir Path dir) throws IOException {
        Path conf = dir.resolve("dat.conf");
        Files.writeString(conf, "conf0 u1.2 nonthreadsafe default recording rec.1.0 \"\" \"\"\n");
        int loadedBefore = RecordingFactory.LOADED.size();
        StandaloneRegistry registry = DatRegistries.builder().staticRegistry(conf).build();
        assertThat(RecordingFactory.LOADED).as("ServiceLoader's instance for this registry").hasSize(loadedBefore + 1);
        RecordingFactory loaded = RecordingFactory.LOADED.getLast();
        try (InterfaceAdapter open = registry.openIa("conf0")) {
            registry.close();
            assertThat(loaded.calls).as("no fini while the IA is open").containsExactly("init conf0 []", "open conf0 []",
                    "close");
            assertThat(open.isOpen()).as("the recording provider closes no IA as it closes").isTrue();
        }
    }

    @Test
    void withoutServiceLoaderOnlyGivenProvidersCount() {
        try (StandaloneRegistry registry = DatRegistries.builder().serviceLoader(false).noStaticRegistry()
                .provider(new RecordingFactory("only", "only0")).build()) {
            assertThat(registry.listProviders()).extracting(ProviderInfo::iaName).containsExactly("only0");
        }
    }
}
