package dat.provider.verbs.internal;

import dat.provider.verbs.internal.ffi.Verbs;
import java.util.List;

/**
 * The provider's life outside any framework: loads the libraries, finds the usable ports and makes
 * one {@link VerbsIaFactory} per port, or says why there is none. The DS component wraps it in
 * OSGi; tests and plain-classpath users use it directly.
 */
public final class VerbsRuntime implements AutoCloseable {

    private final Verbs verbs;
    private final List<VerbsIaFactory> factories;
    private final String unavailableReason;

    private VerbsRuntime(Verbs verbs, List<VerbsIaFactory> factories, String unavailableReason) {
        this.verbs = verbs;
        this.factories = factories;
        this.unavailableReason = unavailableReason;
    }

    /** Starts the provider; never throws for a missing library, kernel support or device. */
    public static VerbsRuntime start() {
        return start(Verbs.LIBIBVERBS, Verbs.LIBRDMACM);
    }

    /** Starts the provider on the libraries of the given names. */
    static VerbsRuntime start(String libibverbs, String librdmacm) {
        Verbs verbs;
        try {
            verbs = Verbs.load(libibverbs, librdmacm);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return new VerbsRuntime(null, List.of(), "libibverbs/librdmacm cannot be loaded (" + e.getMessage()
                    + "): install ibverbs-providers and librdmacm1");
        }
        Discovery.Result result;
        try {
            result = Discovery.discover(verbs);
        } catch (RuntimeException e) {
            verbs.close();
            return new VerbsRuntime(null, List.of(), "device discovery failed: " + e);
        }
        if (result.ports().isEmpty()) {
            verbs.close();
            return new VerbsRuntime(null, List.of(), result.reason());
        }
        PortDirectory directory = new PortDirectory(verbs, result.ports());
        List<VerbsIaFactory> factories = result.ports().stream().map(p -> new VerbsIaFactory(verbs, p, directory)).toList();
        return new VerbsRuntime(verbs, factories, null);
    }

    /** The factories, one per usable port; empty when RDMA is unavailable. */
    public List<dat.api.spi.DatIaFactory> factories() {
        return List.copyOf(factories);
    }

    /** Why no factory exists, or {@code null} when there are some. */
    public String unavailableReason() {
        return unavailableReason;
    }

    /** Fails every open IA (the hot-swap contract), then unloads the libraries. */
    @Override
    public void close() {
        for (VerbsIaFactory factory : factories) {
            factory.stop();
        }
        if (verbs != null) {
            verbs.close();
        }
    }
}
