package dat.provider.ofi.internal;

import dat.api.spi.DatIaFactory;
import dat.provider.ofi.internal.ffi.Fabric;
import dat.provider.ofi.internal.ffi.NativeException;
import java.util.List;
import java.util.Set;

/**
 * The provider's life outside any framework: loads libfabric, finds the usable providers and
 * domains, and makes one {@link OfiIaFactory} for each, or says why there is none. The DS component
 * wraps it in OSGi; tests and plain-classpath users use it directly.
 */
public final class OfiRuntime implements AutoCloseable {

    private final Fabric fabric;
    private final List<OfiIaFactory> factories;
    private final String unavailableReason;

    private OfiRuntime(Fabric fabric, List<OfiIaFactory> factories, String unavailableReason) {
        this.fabric = fabric;
        this.factories = factories;
        this.unavailableReason = unavailableReason;
    }

    /** Starts the provider on {@code libfabric.so.1} with the providers {@code dat.ofi.providers} names; never throws for a missing library. */
    public static OfiRuntime start() {
        return start(Fabric.LIBFABRIC, Discovery.providers(System.getProperty(Discovery.PROVIDERS_PROPERTY)));
    }

    /** Starts the provider on the library of the given name, offering the given libfabric providers. */
    static OfiRuntime start(String library, Set<String> providers) {
        Fabric fabric;
        try {
            fabric = Fabric.load(library);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return new OfiRuntime(null, List.of(), "libfabric cannot be loaded (" + e.getMessage() + "): install libfabric1");
        }
        Discovery.Result result;
        try {
            result = Discovery.discover(fabric, providers);
        } catch (RuntimeException e) {
            fabric.close();
            return new OfiRuntime(null, List.of(), "fi_getinfo failed: " + e.getMessage());
        }
        if (result.offers().isEmpty()) {
            fabric.close();
            return new OfiRuntime(null, List.of(), result.reason());
        }
        for (String provider : providers) {
            String refused = Discovery.REFUSED.get(provider);
            if (refused != null) {
                System.getLogger(OfiRuntime.class.getName()).log(System.Logger.Level.WARNING, "dat.provider.ofi: " + refused);
            }
        }
        List<OfiIaFactory> made = result.offers().stream().map(o -> new OfiIaFactory(fabric, o)).toList();
        return new OfiRuntime(fabric, made, null);
    }

    /** The factories, one per usable provider and domain; empty when libfabric offers none. */
    public List<DatIaFactory> factories() {
        return List.copyOf(factories);
    }

    /** Why no factory exists, or {@code null} when there are some. */
    public String unavailableReason() {
        return unavailableReason;
    }

    /** Fails every open IA (the hot-swap contract), then unloads libfabric. */
    @Override
    public void close() {
        for (OfiIaFactory factory : factories) {
            factory.stop();
        }
        if (fabric != null) {
            fabric.close();
        }
    }
}
