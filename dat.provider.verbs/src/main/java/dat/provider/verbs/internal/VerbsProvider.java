package dat.provider.verbs.internal;

import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderStatus;
import dat.provider.support.ProviderServices;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The verbs provider in OSGi: on activation it starts a {@link VerbsRuntime} and registers one
 * {@link DatIaFactory} service per usable device port; where RDMA is unavailable it registers no
 * factory, logs why once, and registers a {@link DatProviderStatus} that says the same, for the
 * registry's and the shell's listings. On deactivation (bundle stop) it unregisters the factories first,
 * so the registry stops offering them, then fails every open IA and unloads the libraries.
 */
@Component(immediate = true, service = {})
public final class VerbsProvider {

    private final VerbsRuntime runtime;
    private final ProviderServices services;

    /** @param context the bundle's context, to register the factories with */
    @Activate
    public VerbsProvider(BundleContext context) {
        runtime = VerbsRuntime.start();
        services = ProviderServices.register(context, "dat.provider.verbs", "verbs", runtime.unavailableReason(), "RDMA", runtime.factories());
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
