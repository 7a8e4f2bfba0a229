package dat.tests.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.DatException;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.ProviderDTO;
import java.io.IOException;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/** What the registry's OSGi tests share: bounded waits, test provider configurations, codes. */
final class Support {

    /** The factory PID of the test provider's configured instances. */
    static final String TEST_PROVIDER_PID = "dat.tests.provider";

    /** The configuration PID of the registry. */
    static final String REGISTRY_PID = "dat.registry";

    /** The prefix of every thread the test provider starts. */
    static final String PROVIDER_THREAD_PREFIX = "dat-tests-provider-";

    /** The bounded wait for asynchronous things (Configuration Admin, DS): 10 s. */
    static final long WAIT_MILLIS = 10_000;

    private Support() {
    }

    /**
     * Polls a condition until it holds or {@link #WAIT_MILLIS} pass.
     *
     * @return whether it held
     */
    static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    /** The active provider of an IA name, if any. */
    static Optional<ProviderDTO> active(DatRegistry registry, String iaName) {
        return registry.getRuntimeDTO().providers().stream()
                .filter(p -> p.state() == ProviderDTO.State.ACTIVE && p.iaName().equals(iaName)).findFirst();
    }

    /** Every provider DTO of an IA name. */
    static List<ProviderDTO> all(DatRegistry registry, String iaName) {
        return registry.getRuntimeDTO().providers().stream().filter(p -> p.iaName().equals(iaName)).toList();
    }

    /** Creates a test provider instance through a factory configuration; delete it when done. */
    static Configuration testProvider(ConfigurationAdmin cm, String name, Map<String, Object> properties) throws IOException {
        Configuration configuration = cm.getFactoryConfiguration(TEST_PROVIDER_PID, name, "?");
        configuration.update(new Hashtable<>(properties));
        return configuration;
    }

    static void delete(Configuration configuration) {
        if (configuration != null) {
            try {
                configuration.delete();
            } catch (IOException | IllegalStateException e) {
                // already gone
            }
        }
    }

    static Bundle bundle(BundleContext context, String symbolicName) {
        for (Bundle bundle : context.getBundles()) {
            if (symbolicName.equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }

    /** The names of the live threads the test provider started. */
    static List<String> providerThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith(PROVIDER_THREAD_PREFIX)).sorted().toList();
    }

    static void assertCode(ThrowingCallable call, int type, int subtype) {
        assertThatThrownBy(call).isInstanceOfSatisfying(DatException.class,
                e -> assertThat(DatReturn.describe(e.code())).isEqualTo(DatReturn.describe(DatReturn.error(type, subtype))));
    }

    /** A data-path status code has the given type (any subtype). */
    static void assertStatus(int status, int type) {
        assertThat(DatReturn.typeOf(status)).as("status %s", DatReturn.describe(status)).isEqualTo(type);
    }
}
