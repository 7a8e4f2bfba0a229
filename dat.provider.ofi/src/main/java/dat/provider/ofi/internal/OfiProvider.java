package dat.provider.ofi.internal;

import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.api.spi.DatProviderStatus;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
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

    private static final System.Logger LOG = System.getLogger(OfiProvider.class.getName());

    private final OfiRuntime runtime;
    private final List<ServiceRegistration<DatIaFactory>> registrations = new ArrayList<>();
    private ServiceRegistration<DatProviderStatus> status;

    /** @param context the bundle's context, to register the factories with */
    @Activate
    public OfiProvider(BundleContext context) {
        runtime = OfiRuntime.start(dat.provider.ofi.internal.ffi.Fabric.LIBFABRIC,
                Discovery.providers(context.getProperty(Discovery.PROVIDERS_PROPERTY)));
        if (runtime.unavailableReason() != null) {
            String reason = runtime.unavailableReason();
            LOG.log(System.Logger.Level.INFO, "dat.provider.ofi: libfabric unavailable, no IA registered: " + reason);
            Hashtable<String, Object> properties = new Hashtable<>();
            properties.put(DatProviderConstants.DAT_PROVIDER_NAME, "ofi");
            status = context.registerService(DatProviderStatus.class, new DatProviderStatus() {
                @Override
                public String providerName() {
                    return "ofi";
                }

                @Override
                public String unavailableReason() {
                    return reason;
                }
            }, properties);
            return;
        }
        for (DatIaFactory factory : runtime.factories()) {
            Hashtable<String, Object> properties = new Hashtable<>();
            for (Map.Entry<String, Object> e : factory.properties().entrySet()) {
                Object value = e.getValue();
                properties.put(e.getKey(), value instanceof List<?> list ? list.toArray(new String[0]) : value);
            }
            registrations.add(context.registerService(DatIaFactory.class, factory, properties));
            LOG.log(System.Logger.Level.INFO, "dat.provider.ofi: registered " + factory);
        }
    }

    /** Why the provider registered nothing, or {@code null}. */
    String unavailableReason() {
        return runtime.unavailableReason();
    }

    @Deactivate
    void deactivate() {
        for (ServiceRegistration<DatIaFactory> registration : registrations) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the framework unregistered it while stopping the bundle
            }
        }
        registrations.clear();
        if (status != null) {
            try {
                status.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the framework unregistered it while stopping the bundle
            }
        }
        runtime.close();
    }
}
