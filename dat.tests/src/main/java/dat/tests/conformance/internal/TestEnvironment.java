package dat.tests.conformance.internal;

import dat.api.DatRegistry;
import dat.api.ProviderInfo;
import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.tests.conformance.ConformanceSuite;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTracker;

/**
 * What one run of the suite shares between its tests: the tracked
 * {@link DatRegistry} service and the IA names under test. Lives in the root extension store and is
 * closed when the launcher's run ends.
 *
 * <p>Providers register their factories asynchronously (DS), so the environment waits, boundedly,
 * for the first factory to appear and for the registry to list every IA under test.
 */
final class TestEnvironment implements AutoCloseable {

    /** How long to wait for providers and the registry at the start of a run. */
    static final long DISCOVERY_WAIT_SECONDS = 10;

    private final ServiceTracker<DatRegistry, DatRegistry> registryTracker;
    private final List<String> iaNames;
    private final java.net.InetSocketAddress peer;

    private TestEnvironment(ServiceTracker<DatRegistry, DatRegistry> registryTracker, List<String> iaNames,
            java.net.InetSocketAddress peer) {
        this.registryTracker = registryTracker;
        this.iaNames = iaNames;
        this.peer = peer;
    }

    static TestEnvironment create(ExtensionContext extensionContext) {
        Bundle bundle = FrameworkUtil.getBundle(TestEnvironment.class);
        BundleContext context = bundle == null ? null : bundle.getBundleContext();
        if (context == null) {
            throw new IllegalStateException("the conformance suite runs inside an OSGi framework, in the started dat.tests bundle");
        }
        ServiceTracker<DatRegistry, DatRegistry> tracker = new ServiceTracker<>(context, DatRegistry.class, null);
        tracker.open();
        try {
            DatRegistry registry = tracker.waitForService(TimeUnit.SECONDS.toMillis(DISCOVERY_WAIT_SECONDS));
            if (registry == null) {
                throw new IllegalStateException("no DatRegistry service within " + DISCOVERY_WAIT_SECONDS + " s");
            }
            String explicit = extensionContext.getConfigurationParameter(ConformanceSuite.IA_PARAMETER)
                    .orElseGet(() -> context.getProperty(ConformanceSuite.IA_PARAMETER));
            List<String> names = explicit != null && !explicit.isBlank() ? parse(explicit) : discover(context);
            awaitListed(registry, names);
            String peer = extensionContext.getConfigurationParameter(ConformanceSuite.PEER_PARAMETER)
                    .orElseGet(() -> context.getProperty(ConformanceSuite.PEER_PARAMETER));
            return new TestEnvironment(tracker, names, peer == null || peer.isBlank() ? null : parseAddress(peer));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            tracker.close();
            throw new IllegalStateException("interrupted while waiting for the DAT registry", e);
        } catch (RuntimeException e) {
            tracker.close();
            throw e;
        }
    }

    static List<String> parse(String names) {
        List<String> result = new ArrayList<>();
        for (String name : names.split(",")) {
            if (!name.isBlank()) {
                result.add(name.strip());
            }
        }
        return List.copyOf(new LinkedHashSet<>(result));
    }

    /** The IA names of the factories under test, waiting for the first one to register. */
    private static List<String> discover(BundleContext context) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DISCOVERY_WAIT_SECONDS);
        List<String> names = factoryIaNames(context);
        while (names.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            names = factoryIaNames(context);
        }
        if (!names.isEmpty()) {
            Thread.sleep(300); // let providers that start together finish registering
            names = factoryIaNames(context);
        }
        return names;
    }

    private static List<String> factoryIaNames(BundleContext context) {
        Set<String> names = new LinkedHashSet<>();
        try {
            String filter = "(!(" + ConformanceSuite.SERVICE_PROPERTY + "=false))";
            Collection<ServiceReference<DatIaFactory>> references = context.getServiceReferences(DatIaFactory.class, filter);
            for (ServiceReference<DatIaFactory> reference : references) {
                List<String> listed = IaUnderTest.names(reference.getProperty(DatProviderConstants.DAT_IA_NAME));
                if (listed != null) {
                    names.addAll(listed);
                }
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        return List.copyOf(names);
    }

    /** Waits until the registry lists every IA name, so that the first open does not race it. */
    private static void awaitListed(DatRegistry registry, List<String> names) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DISCOVERY_WAIT_SECONDS);
        while (System.nanoTime() < deadline) {
            Set<String> listed = new LinkedHashSet<>();
            for (ProviderInfo info : registry.listProviders()) {
                listed.add(info.iaName());
            }
            if (listed.containsAll(names)) {
                return;
            }
            Thread.sleep(50);
        }
    }

    List<String> iaNames() {
        return iaNames;
    }

    /** @return the control address of the peer agent (dat test --serve), if the run has one */
    java.util.Optional<java.net.InetSocketAddress> peer() {
        return java.util.Optional.ofNullable(peer);
    }

    /** Parses {@code host:port} (an IPv6 literal in brackets) of the peer agent. */
    static java.net.InetSocketAddress parseAddress(String text) {
        return parseAddress(text, ConformanceSuite.PEER_PARAMETER, false);
    }

    /**
     * Parses {@code host:port} (an IPv6 literal in brackets).
     *
     * @param text the address
     * @param what what it is, for the message
     * @param anyPort whether port 0 (any) is allowed
     * @return the address
     */
    static java.net.InetSocketAddress parseAddress(String text, String what, boolean anyPort) {
        String value = text.strip();
        int colon = value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1) {
            throw new IllegalArgumentException(what + " must be host:port, not '" + text + "'");
        }
        String host = value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            int port = Integer.parseInt(value.substring(colon + 1));
            if (port < (anyPort ? 0 : 1) || port > 0xFFFF) {
                throw new NumberFormatException();
            }
            return new java.net.InetSocketAddress(host, port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + ": not a port in '" + text + "'");
        }
    }

    DatRegistry registry() {
        DatRegistry registry = registryTracker.getService();
        if (registry == null) {
            throw new IllegalStateException("the DatRegistry service went away during the run");
        }
        return registry;
    }

    @Override
    public void close() {
        registryTracker.close();
    }
}
