package dat.tests.ext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.fail;

import dat.api.DatHandle;
import dat.api.DatRegistry;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.ProviderDTO;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IaStatistics;
import dat.api.ext.ImmediateDataEndpoint;
import dat.api.spi.DatProviderConstants;
import dat.tests.conformance.ConformanceReport;
import dat.tests.conformance.ConformanceSuite;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.junit5.service.ServiceExtension;

/**
 * The vendor extensions ({@code dat.api.ext}, OFED uDAPL 2.0 {@code dat_ib_extensions.h}) inside
 * the framework: discovery on every registered IA and the test provider (asking for an extension a
 * provider does not have answers {@code Optional.empty()}, never an exception; {@code dat.extension}
 * lists exactly what the handles offer), and the conformance suite's provider-agnostic extension
 * tests ({@code dat.tests.conformance.ext}, which run on any IA, the verbs IA in the soft-RoCE
 * stage among them) on the sim provider in one JVM and over TCP.
 */
@ExtendWith(ServiceExtension.class)
@Timeout(300)
class ExtensionTest {

    @InjectService(timeout = 5000)
    static DatRegistry registry;

    /** An interface no provider offers. */
    interface NoSuchExtension {
    }

    /** The IAs under test, and test0 (whose provider offers only statistics). */
    static Stream<String> iaNames() throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (registry.findProviders("(dat.ia.name=sim0)").isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        // the IAs of provider services (not entries other tests add with addProvider or dat.conf, which are aliases)
        Stream<String> underTest = registry.findProviders("(!(dat.conformance=false))").stream()
                .filter(provider -> provider.origin() == ProviderDTO.Origin.DYNAMIC && provider.id() > 0)
                .map(ProviderDTO::iaName);
        return Stream.concat(underTest, Stream.of("test0")).distinct().sorted();
    }

    /** The IAs under test that carry data (the test provider has no Endpoints). */
    static Stream<String> dataIaNames() throws InterruptedException {
        return iaNames().filter(name -> !name.equals("test0"));
    }

    private static ProviderDTO provider(String iaName) {
        return registry.findProviders("(dat.ia.name=" + DatRegistry.escapeFilterValue(iaName) + ")").getFirst();
    }

    private static List<String> advertised(String iaName) {
        Object value = provider(iaName).properties().get(DatProviderConstants.DAT_EXTENSION);
        if (value instanceof String s) {
            return List.of(s);
        } else if (value instanceof String[] array) {
            return List.of(array);
        } else if (value instanceof Collection<?> collection) {
            return collection.stream().map(String::valueOf).toList();
        }
        return List.of();
    }

    // ---------------------------------------------------------------------------------------------
    // discovery: every provider
    // ---------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "DatHandle.extension: an extension the provider does not offer is Optional.empty() [{0}]")
    @MethodSource("iaNames")
    void anExtensionNotOfferedIsEmptyNotAnException(String iaName) {
        try (InterfaceAdapter ia = registry.openIa(iaName)) {
            EventDispatcher evd = ia.createEventDispatcher(8, null, EvdFlags.SOFTWARE | EvdFlags.DTO);
            List<DatHandle> handles = new java.util.ArrayList<>(List.of(ia, evd));
            if (!iaName.equals("test0")) {
                ProtectionZone pz = ia.createProtectionZone();
                LocalMemoryRegion lmr = ia.registerMemory(Arena.ofAuto().allocate(64), pz, MemPrivileges.ALL);
                Endpoint ep = ia.createEndpoint(pz, evd, evd, null, null);
                handles.addAll(List.of(pz, lmr, ep));
                for (DatHandle handle : handles) {
                    assertThatCode(() -> assertThat(handle.extension(NoSuchExtension.class)).isEmpty())
                            .as("%s.extension(an unknown interface)", handle).doesNotThrowAnyException();
                    assertThat(handle.extension(String.class)).as("%s.extension(String.class)", handle).isEmpty();
                }
                // an extension of another kind of handle is not offered by this one
                assertThat(ia.extension(AtomicEndpoint.class)).as("the IA is no Endpoint").isEmpty();
                assertThat(lmr.extension(ImmediateDataEndpoint.class)).as("an LMR is no Endpoint").isEmpty();
                assertThat(ep.extension(IaStatistics.class)).as("an Endpoint is no IA").isEmpty();
            } else {
                for (DatHandle handle : handles) {
                    assertThat(handle.extension(NoSuchExtension.class)).as("%s.extension(an unknown interface)", handle).isEmpty();
                }
            }
        }
    }

    @ParameterizedTest(name = "dat.extension lists exactly the extensions the handles offer [{0}]")
    @MethodSource("iaNames")
    void theAdvertisedExtensionsAreTheOfferedOnes(String iaName) {
        List<String> advertised = advertised(iaName);
        try (InterfaceAdapter ia = registry.openIa(iaName)) {
            assertThat(ia.extension(IaStatistics.class).isPresent()).as("IaStatistics offered by %s, dat.extension %s", iaName,
                    advertised).isEqualTo(advertised.contains(IaStatistics.class.getName()));
            if (!iaName.equals("test0")) {
                ProtectionZone pz = ia.createProtectionZone();
                EventDispatcher evd = ia.createEventDispatcher(8, null, EvdFlags.DTO);
                Endpoint ep = ia.createEndpoint(pz, evd, evd, null, null);
                for (Class<?> endpointExtension : List.of(AtomicEndpoint.class, ImmediateDataEndpoint.class)) {
                    assertThat(ep.extension(endpointExtension).isPresent())
                            .as("%s offered by an Endpoint of %s, dat.extension %s", endpointExtension.getSimpleName(), iaName,
                                    advertised)
                            .isEqualTo(advertised.contains(endpointExtension.getName()));
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the extension conformance tests (dat.tests.conformance.ext) on the sim IAs
    // ---------------------------------------------------------------------------------------------

    /** The sim IA over TCP the extension tests run on besides sim0: both instances talk through their sockets. */
    private static final String TCP_IA = "extTcp";

    /**
     * Runs the conformance suite's extension area ({@code dat.tests.conformance.ext}: atomics, RDMA
     * write with immediate data, discovery, counters) on the sim provider in this JVM ({@code sim0})
     * and over TCP ({@value #TCP_IA}, a static registry entry {@code "tcp=127.0.0.1:0"}), and
     * reports each case as a test of its own: passed, failed with the suite's message, or skipped
     * with the reason (a skip as unsupported names the attribute by which the provider declares
     * the extension absent).
     */
    @TestFactory
    Stream<DynamicTest> theExtensionConformanceTestsOnTheSimIas() throws Exception {
        ConfigurationAdmin cm = configurationAdmin();
        Path conf = Files.createTempFile("dat-ext", ".conf");
        Configuration registryConfiguration = cm.getConfiguration("dat.registry", "?");
        ConformanceReport report;
        try {
            Files.writeString(conf, TCP_IA + " u1.2 threadsafe default sim dat.1.0 \"tcp=127.0.0.1:0\" \"\"\n");
            registryConfiguration.update(new Hashtable<>(Map.of("dat.conf", conf.toString())));
            report = ConformanceSuite.run(List.of("sim0", TCP_IA), "^ext/", null);
        } finally {
            registryConfiguration.update(new Hashtable<>());
            Files.delete(conf);
        }
        assertThat(report.results()).as("the extension area's cases on two IAs").hasSizeGreaterThanOrEqualTo(2 * 12);
        return report.results().stream().map(result -> DynamicTest.dynamicTest(result.displayName(), () -> {
            switch (result.outcome()) {
                case PASSED -> {
                }
                case FAILED -> fail(result.testClass() + ": " + result.message());
                case SKIPPED, SKIPPED_UNSUPPORTED -> Assumptions.abort(result.message());
            }
        }));
    }

    private static ConfigurationAdmin configurationAdmin() {
        BundleContext context = FrameworkUtil.getBundle(ExtensionTest.class).getBundleContext();
        ServiceReference<ConfigurationAdmin> reference = context.getServiceReference(ConfigurationAdmin.class);
        assertThat(reference).as("Configuration Admin").isNotNull();
        return context.getService(reference);
    }
}
