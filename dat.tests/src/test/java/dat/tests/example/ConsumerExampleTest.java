package dat.tests.example;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatRegistry;
import dat.api.ProviderInfo;
import dat.api.spi.DatIaFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Hashtable;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.common.service.ServiceAware;
import org.osgi.test.junit5.context.BundleContextExtension;
import org.osgi.test.junit5.service.ServiceExtension;

/**
 * Runs {@link ConsumerExample}, the complete consumer of docs/api-mapping.md, as it is written:
 * against the sim provider's IA in one JVM, and against a sim IA over TCP (both ends in this
 * framework, connected through the IA's socket), which a static registry entry maps to the sim
 * provider. The test provider's IA serves no connections, and the verbs provider runs in the
 * soft-RoCE stage.
 */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
@Timeout(60)
class ConsumerExampleTest {

    /** The five bytes sent, a blank, the twelve bytes written: what {@code run} returns. */
    private static final String EXCHANGED = "hello written-rdma";

    @InjectService(timeout = 5000)
    DatRegistry registry;

    @InjectService(timeout = 5000)
    ConfigurationAdmin cm;

    private Configuration registryConfiguration;

    /** The registry back to its defaults (an update with no properties, as StaticRegistryTest does). */
    @AfterEach
    void restoreTheRegistry() throws Exception {
        if (registryConfiguration != null) {
            registryConfiguration.update(new Hashtable<>());
            assertThat(eventually(() -> registry.getRuntimeDTO().staticRegistry().isEmpty()
                    && registry.getRuntimeDTO().staticRegistryRead())).isTrue();
        }
    }

    @Test
    void runsAgainstTheSimProviderInOneJvm(
            @InjectService(filter = "(dat.provider.name=sim)", cardinality = 0) ServiceAware<DatIaFactory> sim)
            throws InterruptedException {
        Assumptions.assumeFalse(sim.isEmpty(), "no sim provider in this run");
        Object names = sim.getServiceReference().getProperty("dat.ia.name");
        String iaName = names instanceof String[] array ? array[0] : String.valueOf(names);
        assertThat(eventually(() -> listed(iaName))).isTrue();
        assertThat(ConsumerExample.run(registry, iaName)).isEqualTo(EXCHANGED);
    }

    @Test
    void runsAgainstASimIaOverTcp(
            @InjectService(filter = "(dat.provider.name=sim)", cardinality = 0) ServiceAware<DatIaFactory> sim)
            throws Exception {
        Assumptions.assumeFalse(sim.isEmpty(), "no sim provider in this run");
        Path conf = Files.createTempFile("dat", ".conf");
        try {
            Files.writeString(conf, "exampleTcp u1.2 threadsafe default sim dat.1.0 \"tcp=127.0.0.1:0\" \"\"\n");
            registryConfiguration = cm.getConfiguration("dat.registry", "?");
            registryConfiguration.update(new Hashtable<>(Map.of("dat.conf", conf.toString())));
            assertThat(eventually(() -> listed("exampleTcp"))).isTrue();
            assertThat(ConsumerExample.run(registry, "exampleTcp")).isEqualTo(EXCHANGED);
        } finally {
            Files.delete(conf);
        }
    }

    private boolean listed(String iaName) {
        return registry.listProviders().stream().map(ProviderInfo::iaName).anyMatch(iaName::equals);
    }

    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        for (long deadline = System.nanoTime() + 10_000_000_000L; System.nanoTime() < deadline; Thread.sleep(10)) {
            if (condition.getAsBoolean()) {
                return true;
            }
        }
        return condition.getAsBoolean();
    }
}
