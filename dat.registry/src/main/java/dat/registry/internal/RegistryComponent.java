package dat.registry.internal;

import dat.api.DatRegistry;
import dat.api.DatRegistryListener;
import dat.api.spi.DatIaFactory;
import dat.registry.DatRegistries;
import java.util.HashMap;
import java.util.Map;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.util.tracker.ServiceTracker;
import org.osgi.util.tracker.ServiceTrackerCustomizer;

/**
 * The {@link DatRegistry} service: a tracker of the {@link DatIaFactory} services providers
 * register (one registering is {@code dat_registry_add_provider}, one unregistering is
 * {@code dat_registry_remove_provider}), a static registry whose path comes from Configuration Admin
 * (PID {@value #PID}), the framework or system property {@code dat.conf}, or the environment
 * variable {@code DAT_CONF}, and a whiteboard of {@link DatRegistryListener} services.
 *
 * <p>The tracker keeps, per factory service, a handle that gets the service object only when an IA
 * is first opened through it and ungets it when the service leaves; "modified" service properties
 * re-describe the provider under the same {@code service.id}. It does not close IAs when a factory
 * leaves: the provider does.
 */
@Component(service = DatRegistry.class, immediate = true, configurationPid = RegistryComponent.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = RegistryComponent.Config.class)
public final class RegistryComponent extends RegistryFacade {

    /** The Configuration Admin PID of the registry. */
    public static final String PID = "dat.registry";

    private static final System.Logger LOG = System.getLogger(RegistryComponent.class.getName());

    /** The registry's configuration. */
    @ObjectClassDefinition(name = "DAT registry", description = "The DAT registry: which static registry (dat.conf) it reads.")
    public @interface Config {

        /**
         * The static registry file.
         *
         * @return the path, or empty for the framework or system property dat.conf, else the
         *     environment variable DAT_CONF, else none
         */
        @AttributeDefinition(name = "Static registry (dat.conf)", required = false,
                description = "Path of the static registry file, in the dat.conf format. Empty: the framework or system"
                        + " property dat.conf, else the environment variable DAT_CONF, else none.")
        String dat_conf() default "";

        /**
         * The most providers {@code addProvider} accepts.
         *
         * @return the maximum
         */
        @AttributeDefinition(name = "Maximum added providers", min = "0",
                description = "How many providers DatRegistry.addProvider accepts before it answers"
                        + " DAT_INSUFFICIENT_RESOURCES; providers already added stay.")
        int max_added_providers() default DatRegistries.DEFAULT_MAX_ADDED_PROVIDERS;
    }

    private final BundleContext context;
    private final ServiceTracker<DatIaFactory, FactoryService> factories;
    private final ServiceTracker<DatRegistryListener, DatRegistryListener> listeners;

    /**
     * Starts tracking factories and listeners.
     *
     * @param context the registry bundle's context
     * @param config the configuration
     */
    @Activate
    public RegistryComponent(BundleContext context, Config config) {
        super(new Registry(maxAddedProviders(config, DatRegistries.DEFAULT_MAX_ADDED_PROVIDERS)));
        this.context = context;
        registry.setStaticRegistry(StaticRegistry.load(staticRegistryPath(context, config)));
        this.factories = new ServiceTracker<>(context, DatIaFactory.class, new FactoryCustomizer());
        this.listeners = new ServiceTracker<>(context, DatRegistryListener.class,
                new ServiceTrackerCustomizer<DatRegistryListener, DatRegistryListener>() {
                    @Override
                    public DatRegistryListener addingService(ServiceReference<DatRegistryListener> reference) {
                        DatRegistryListener listener = context.getService(reference);
                        if (listener != null) {
                            registry.addListener(listener);
                        }
                        return listener;
                    }

                    @Override
                    public void modifiedService(ServiceReference<DatRegistryListener> reference, DatRegistryListener listener) {
                    }

                    @Override
                    public void removedService(ServiceReference<DatRegistryListener> reference, DatRegistryListener listener) {
                        registry.removeListener(listener);
                        context.ungetService(reference);
                    }
                });
        factories.open();
        listeners.open();
    }

    /**
     * Applies a configuration change: re-reads the static registry and takes the new maximum.
     *
     * @param config the new configuration
     */
    @Modified
    void modified(Config config) {
        registry.setMaxAddedProviders(maxAddedProviders(config, registry.maxAddedProviders()));
        registry.setStaticRegistry(StaticRegistry.load(staticRegistryPath(context, config)));
    }

    /** Stops tracking: every factory leaves the registry (with {@code fini} where due). */
    @Deactivate
    void deactivate() {
        listeners.close();
        factories.close();
        registry.close();
    }

    /**
     * The configured maximum of added providers, or {@code fallback} (the default at activation,
     * the maximum in force on a change) where the value is not a count: a value Configuration
     * Admin cannot convert would otherwise fail the component, and with it the registry service.
     */
    private static int maxAddedProviders(Config config, int fallback) {
        int max;
        try {
            max = config.max_added_providers();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "configuration " + PID + ": max.added.providers is not a number ("
                    + e.getMessage() + "); keeping " + fallback);
            return fallback;
        }
        if (max < 0) {
            LOG.log(System.Logger.Level.WARNING, "configuration " + PID + ": max.added.providers " + max
                    + " is negative; keeping " + fallback);
            return fallback;
        }
        return max;
    }

    private static String staticRegistryPath(BundleContext context, Config config) {
        String path = config.dat_conf();
        if (path == null || path.isBlank()) {
            path = context.getProperty(DatRegistries.STATIC_REGISTRY_PROPERTY);
        }
        if (path == null || path.isBlank()) {
            path = System.getenv(DatRegistries.STATIC_REGISTRY_ENV);
        }
        return path;
    }

    /** Turns factory service events into registrations keyed by {@code service.id}. */
    private final class FactoryCustomizer implements ServiceTrackerCustomizer<DatIaFactory, FactoryService> {

        @Override
        public FactoryService addingService(ServiceReference<DatIaFactory> reference) {
            FactoryService handle = new FactoryService(context, reference);
            registry.register(describe(reference, handle));
            return handle;
        }

        @Override
        public void modifiedService(ServiceReference<DatIaFactory> reference, FactoryService handle) {
            registry.register(describe(reference, handle));
        }

        @Override
        public void removedService(ServiceReference<DatIaFactory> reference, FactoryService handle) {
            registry.unregister(handle.id());
        }

        private Registration describe(ServiceReference<DatIaFactory> reference, FactoryService handle) {
            Map<String, Object> properties = new HashMap<>();
            for (String key : reference.getPropertyKeys()) {
                properties.put(key, reference.getProperty(key));
            }
            Bundle bundle = reference.getBundle();
            String source = "service " + handle.id() + (bundle == null ? "" : " of bundle " + bundle.getSymbolicName());
            return Registration.describe(handle.id(), Registration.Kind.SERVICE, source, properties, handle);
        }
    }

    /** Gets a factory service object on first use and ungets it when the service leaves. */
    private static final class FactoryService implements Registration.FactoryHandle {
        private final BundleContext context;
        private final ServiceReference<DatIaFactory> reference;
        private final long id;
        private DatIaFactory factory; // guarded by this
        private boolean released; // guarded by this

        FactoryService(BundleContext context, ServiceReference<DatIaFactory> reference) {
            this.context = context;
            this.reference = reference;
            this.id = (Long) reference.getProperty(Constants.SERVICE_ID);
        }

        long id() {
            return id;
        }

        @Override
        public synchronized DatIaFactory get() {
            if (factory == null && !released) {
                try {
                    factory = context.getService(reference);
                } catch (IllegalStateException | IllegalArgumentException e) {
                    return null; // our context or the registration is no longer valid
                }
            }
            return factory;
        }

        @Override
        public void release() {
            boolean unget;
            synchronized (this) {
                unget = factory != null && !released;
                released = true;
                factory = null;
            }
            if (unget) {
                try {
                    context.ungetService(reference);
                } catch (IllegalStateException e) {
                    // the registry bundle is stopping: the framework releases the service itself
                }
            }
        }
    }
}
