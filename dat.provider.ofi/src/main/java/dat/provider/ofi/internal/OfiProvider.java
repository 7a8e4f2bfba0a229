package dat.provider.ofi.internal;

import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderStatus;
import dat.provider.support.ProviderServices;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The ofi provider in OSGi: on activation it starts a {@link OfiRuntime} and registers one
 * {@link DatIaFactory} service per usable libfabric provider and domain; where libfabric offers none it registers no
 * factory, logs why once, and registers a {@link DatProviderStatus} that says the same, for the
 * registry's and the shell's listings. On deactivation (bundle stop) it unregisters the factories first,
 * so the registry stops offering them, then fails every open IA and unloads the libraries.
 */
@Component(immediate = true, service = {})
public final class OfiProvider {

    private final OfiRuntime runtime;
    private final ProviderServices services;

    /** @param context the bundle's context, to register the factories with */
    @Activate
    public OfiProvider(BundleContext context) {
        runtime = OfiRuntime.start(dat.provider.ofi.internal.ffi.Fabric.LIBFABRIC,
                Discovery.providers(context.getProperty(Discovery.PROVIDERS_PROPERTY)));
        services = ProviderServices.register(context, "dat.provider.ofi", "ofi", runtime.unavailableReason(), "libfabric", runtime.factories());
    }

    /** Why the provider registered nothing, or {@code null}. */
    String unavailableReason() {
        return runtime.unavailableReason();
    }

    @Deactivate
    void deactivate() {
        services.unregister();
        runtime.close();
    }
}
