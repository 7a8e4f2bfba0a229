package dat.provider.support;

import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.api.spi.DatProviderStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/**
 * The OSGi services a native provider's bundle registers when it starts: one {@link DatIaFactory}
 * per IA its runtime found, or, where the runtime found nothing it can use, a
 * {@link DatProviderStatus} that says why (logged once as well), for the registry's and the shell's
 * listings. {@link #unregister} takes them back at the bundle's stop, before the runtime goes, so
 * the registry stops offering the IAs first.
 */
public final class ProviderServices {

    private final List<ServiceRegistration<?>> registrations = new ArrayList<>();

    private ProviderServices() {
    }

    /**
     * Registers the factories, or the reason there are none.
     *
     * @param context the bundle's context
     * @param bundle the bundle's symbolic name, the name of the logger of its log lines
     * @param providerName the provider's name ({@link DatProviderConstants#DAT_PROVIDER_NAME})
     * @param unavailableReason why the runtime found nothing it can use, or {@code null}
     * @param missing what is missing when {@code unavailableReason} is set ("RDMA", "libfabric"), for the log
     * @param factories the runtime's factories (none when {@code unavailableReason} is set)
     * @return the registrations, to {@link #unregister}
     */
    public static ProviderServices register(BundleContext context, String bundle, String providerName, String unavailableReason,
            String missing, Collection<? extends DatIaFactory> factories) {
        System.Logger log = System.getLogger(bundle);
        ProviderServices services = new ProviderServices();
        if (unavailableReason != null) {
            log.log(System.Logger.Level.INFO, missing + " unavailable, no IA registered: " + unavailableReason);
            Hashtable<String, Object> properties = new Hashtable<>();
            properties.put(DatProviderConstants.DAT_PROVIDER_NAME, providerName);
            services.registrations.add(context.registerService(DatProviderStatus.class, new DatProviderStatus() {
                @Override
                public String providerName() {
                    return providerName;
                }

                @Override
                public String unavailableReason() {
                    return unavailableReason;
                }
            }, properties));
            return services;
        }
        for (DatIaFactory factory : factories) {
            Hashtable<String, Object> properties = new Hashtable<>();
            for (Map.Entry<String, Object> e : factory.properties().entrySet()) {
                Object value = e.getValue();
                // service properties take arrays, not lists (OSGi Core, "Service Properties")
                properties.put(e.getKey(), value instanceof List<?> list ? list.toArray(new String[0]) : value);
            }
            services.registrations.add(context.registerService(DatIaFactory.class, factory, properties));
            log.log(System.Logger.Level.INFO, "registered " + factory);
        }
        return services;
    }

    /** Unregisters every service, those the framework already took back while stopping the bundle included. */
    public void unregister() {
        for (ServiceRegistration<?> registration : registrations) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the framework unregistered it while stopping the bundle
            }
        }
        registrations.clear();
    }
}
