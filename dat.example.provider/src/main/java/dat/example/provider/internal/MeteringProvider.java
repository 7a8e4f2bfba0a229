package dat.example.provider.internal;

import dat.api.DatRegistry;
import dat.api.DatRegistryListener;
import dat.api.ProviderDTO;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IaStatistics;
import dat.api.ext.ImmediateDataEndpoint;
import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The metering provider: for every active IA of the registry that its filter selects (the sim
 * provider's, by default), it registers a {@link DatIaFactory} service offering the same IA under
 * the name {@code metered-<ia>}, whose IAs decorate the underlying ones and count what passes
 * ({@link IaStatistics}). It follows the registry as a {@link DatRegistryListener}: an underlying IA
 * that becomes active gets its metered twin, one that stops being active takes it away.
 *
 * <p>It is an ordinary provider seen from the registry: its factories carry the
 * {@link DatProviderConstants} properties (provider {@value MeteredIa#PROVIDER_NAME}; the
 * underlying IA's transport, capabilities, version and thread safety; the extensions it passes
 * through plus {@link IaStatistics}), and honour the hot-swap contract of {@link DatIaFactory}: when
 * this component deactivates, or an underlying IA leaves, the factory unregisters and then the
 * metered IAs fail ({@code DAT_ASYNC_ERROR_IA_CATASTROPHIC}, DTOs flushed, handles invalid).
 *
 * <p>It does not decorate its own IAs (provider {@value MeteredIa#PROVIDER_NAME}), and it works only
 * inside OSGi, since it needs the registry service.
 */
@Component(service = {}, immediate = true, configurationPid = MeteringProvider.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = MeteringProvider.Config.class)
public final class MeteringProvider implements DatRegistryListener {

    /** The Configuration Admin PID. */
    public static final String PID = "dat.example.provider";

    /** The service property naming the IA a metered IA decorates. */
    public static final String UNDERLYING_PROPERTY = "dat.metered.underlying";

    /**
     * The conformance suite's selection property ({@code dat.tests.conformance.ConformanceSuite.SERVICE_PROPERTY}),
     * which this bundle does not import.
     */
    private static final String CONFORMANCE_PROPERTY = "dat.conformance";

    private static final System.Logger LOG = System.getLogger(MeteringProvider.class.getName());

    /** The extensions a metered Endpoint passes through when its underlying Endpoint offers them. */
    private static final List<String> PASSED_EXTENSIONS = List.of(AtomicEndpoint.class.getName(),
            ImmediateDataEndpoint.class.getName());

    /** The configuration of the metering provider. */
    @ObjectClassDefinition(id = MeteringProvider.PID, name = "DAT metering provider (example)",
            description = "Offers metered-<ia> for every IA the filter selects: the same IA, with per-IA counters.")
    public @interface Config {

        /** @return the LDAP filter over the registry's provider properties */
        @AttributeDefinition(name = "Underlying IAs", description = "LDAP filter over the registry's provider properties"
                + " (DatRegistry.findProviders) selecting the IAs to decorate")
        String underlying_filter() default "(dat.provider.name=sim)";

        /** @return the prefix of the metered IA names */
        @AttributeDefinition(name = "IA name prefix")
        String ia_name_prefix() default "metered-";

        /** @return the ranking of the metered factories */
        @AttributeDefinition(name = "Service ranking", description = "service.ranking of the metered IA factories")
        int service_ranking() default 0;

        /** @return whether the conformance suite tests the metered IAs by default */
        @AttributeDefinition(name = "Conformance", description = "Whether the conformance suite includes the metered IAs"
                + " by default (service property dat.conformance)")
        boolean dat_conformance() default true;

        /** @return the grace period of a failing IA */
        @AttributeDefinition(name = "Hot-swap grace (ms)", min = "0", description = "How long the consumer of a metered IA"
                + " whose provider left may reap its flushed completions before the underlying IA is closed")
        long hot_swap_grace_millis() default 5000;
    }

    /** A registered metered factory. */
    private record Registered(MeteredFactory factory, ServiceRegistration<DatIaFactory> registration, long underlyingId) {
    }

    private final BundleContext context;
    private final DatRegistry registry;
    private final Config config;
    private final String filter;
    private final Duration grace;
    private final Map<String, Registered> factories = new LinkedHashMap<>();
    private boolean active = true;

    /**
     * Starts following the registry.
     *
     * @param context the bundle context, to register the factories
     * @param registry the DAT registry
     * @param config the configuration
     * @throws dat.api.DatException {@code DAT_INVALID_PARAMETER} for a filter that does not parse
     */
    @Activate
    public MeteringProvider(BundleContext context, @Reference DatRegistry registry, Config config) {
        this.context = context;
        this.registry = registry;
        this.config = config;
        this.filter = config.underlying_filter();
        this.grace = Duration.ofMillis(Math.max(0, config.hot_swap_grace_millis()));
        registry.findProviders(filter); // checks the filter early: a bad one fails the activation, with the reason
        registry.addListener(this);
    }

    /** Stops: every metered factory unregisters, every metered IA fails. */
    @Deactivate
    void deactivate() {
        registry.removeListener(this);
        List<Registered> leaving;
        synchronized (factories) {
            active = false;
            leaving = new ArrayList<>(factories.values());
            factories.clear();
        }
        for (Registered registered : leaving) {
            withdraw(registered);
        }
    }

    @Override
    public void providerAdded(ProviderDTO provider) {
        if (!decorates(provider)) {
            return;
        }
        String name = config.ia_name_prefix() + provider.iaName();
        MeteredFactory factory = new MeteredFactory(name, provider.iaName(), registry);
        synchronized (factories) {
            if (!active || factories.containsKey(name)) {
                return;
            }
            factories.put(name, new Registered(factory, null, provider.id()));
        }
        ServiceRegistration<DatIaFactory> registration;
        try {
            registration = context.registerService(DatIaFactory.class, factory, properties(provider, name));
        } catch (IllegalStateException e) {
            return; // the bundle is stopping
        }
        boolean keep;
        synchronized (factories) {
            keep = active && factories.get(name) != null && factories.get(name).factory() == factory;
            if (keep) {
                factories.put(name, new Registered(factory, registration, provider.id()));
            }
        }
        if (!keep) {
            unregister(registration);
        }
        LOG.log(Level.INFO, "metered IA " + name + " offered over " + provider.iaName() + " (" + provider.providerName() + ")");
    }

    @Override
    public void providerRemoved(ProviderDTO provider) {
        Registered registered;
        synchronized (factories) {
            String name = config.ia_name_prefix() + provider.iaName();
            registered = factories.get(name);
            if (registered == null || registered.underlyingId() != provider.id() || registered.registration() == null) {
                return;
            }
            factories.remove(name);
        }
        withdraw(registered);
        LOG.log(Level.INFO, "metered IA " + registered.factory().name() + " withdrawn: " + provider.iaName() + " left");
    }

    /**
     * Unregisters the factory, then fails its IAs: the registry lists the provider no more when its
     * consumers learn that their IAs failed, so they see the provider left (the registry's own
     * order for a departing provider), not an IA failure while it is still offered.
     */
    private void withdraw(Registered registered) {
        if (registered.registration() != null) {
            unregister(registered.registration());
        }
        registered.factory().leave(grace);
    }

    private static void unregister(ServiceRegistration<DatIaFactory> registration) {
        try {
            registration.unregister();
        } catch (IllegalStateException e) {
            // already unregistered with the bundle
        }
    }

    /** Whether an IA that became active is one to decorate: selected by the filter, and not ours. */
    private boolean decorates(ProviderDTO provider) {
        if (MeteredIa.PROVIDER_NAME.equals(provider.providerName()) || provider.iaName().isEmpty()) {
            return false;
        }
        String one = "(&" + filter + "(" + DatProviderConstants.DAT_IA_NAME + "="
                + DatRegistry.escapeFilterValue(provider.iaName()) + "))";
        return registry.findProviders(one).stream().anyMatch(p -> p.id() == provider.id());
    }

    /** The service properties of a metered factory: the underlying IA's, re-described. */
    private Hashtable<String, Object> properties(ProviderDTO provider, String name) {
        Hashtable<String, Object> properties = new Hashtable<>();
        for (Map.Entry<String, Object> entry : provider.properties().entrySet()) {
            String key = entry.getKey();
            if (key.startsWith("dat.") && !key.equals(CONFORMANCE_PROPERTY) && entry.getValue() != null) {
                properties.put(key, entry.getValue());
            }
        }
        properties.put(DatProviderConstants.DAT_PROVIDER_NAME, MeteredIa.PROVIDER_NAME);
        properties.put(DatProviderConstants.DAT_IA_NAME, name);
        properties.put(DatProviderConstants.DAT_PROVIDER_VERSION, "1.0");
        properties.put(UNDERLYING_PROPERTY, provider.iaName());
        List<String> extensions = new ArrayList<>();
        for (String extension : strings(provider.properties().get(DatProviderConstants.DAT_EXTENSION))) {
            if (PASSED_EXTENSIONS.contains(extension)) {
                extensions.add(extension);
            }
        }
        extensions.add(IaStatistics.class.getName());
        properties.put(DatProviderConstants.DAT_EXTENSION, extensions.toArray(String[]::new));
        properties.put("service.ranking", config.service_ranking());
        properties.put(CONFORMANCE_PROPERTY, config.dat_conformance());
        return properties;
    }

    private static List<String> strings(Object value) {
        if (value instanceof String s) {
            return List.of(s);
        } else if (value instanceof String[] array) {
            return Arrays.asList(array);
        } else if (value instanceof Collection<?> collection) {
            return collection.stream().map(String::valueOf).toList();
        }
        return List.of();
    }
}
