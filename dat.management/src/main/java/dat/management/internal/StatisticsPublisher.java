package dat.management.internal;

import dat.api.DatRegistry;
import dat.api.DatRegistryListener;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.api.RegistryRuntimeDTO;
import dat.api.ext.IaStatistics;
import dat.management.IaStatisticsMXBean;
import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Publishes the counters of every open IA that keeps them ({@link IaStatistics}) as an
 * {@link IaStatisticsMXBean} in the platform MBean server. It is a {@link DatRegistryListener}
 * service, which the registry adds (whiteboard): the registry tells it of every IA opened through it,
 * and of those open when it is added. An MXBean is unregistered when its IA is seen closed or
 * failed (a sweep every {@code sweep.interval.millis}, since the registry does not report closes)
 * and at once when the IA's provider leaves the registry. The registry also reports an IA removed
 * when another provider of its name outranks it; its provider is still registered then, its open
 * IAs work on, and their MXBeans stay.
 *
 * <p>It does not open, close or touch the IAs beyond {@code isOpen()} and their statistics, and it
 * does not publish IAs whose provider keeps no counters.
 */
@Component(service = {DatRegistryListener.class, StatisticsPublisher.class}, immediate = true,
        configurationPid = StatisticsPublisher.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = StatisticsPublisher.Config.class)
public final class StatisticsPublisher implements DatRegistryListener {

    /** The Configuration Admin PID. */
    public static final String PID = "dat.management";

    private static final System.Logger LOG = System.getLogger(StatisticsPublisher.class.getName());

    /** The configuration of DAT management. */
    @ObjectClassDefinition(id = PID, name = "DAT management", description = "JMX MXBeans of the open IAs' counters")
    public @interface Config {
        /** @return how often closed IAs are looked for */
        @AttributeDefinition(name = "Sweep interval (ms)", min = "10",
                description = "How often the MXBeans of IAs that closed are looked for and unregistered")
        long sweep_interval_millis() default 500;
    }

    /** One published IA. */
    record Published(ObjectName name, IaStatisticsBean bean, long providerId) {
    }

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final Map<ObjectName, Published> published = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> instances = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sweeper;
    /** The registries' views, which tell a provider that left from one that is only outranked. */
    private final Supplier<List<RegistryRuntimeDTO>> registries;
    private volatile boolean active = true;

    /**
     * @param context this bundle's context, to ask the registries about a removed provider
     * @param config the configuration
     */
    @Activate
    public StatisticsPublisher(BundleContext context, Config config) {
        this(config.sweep_interval_millis(), () -> runtimes(context));
    }

    /**
     * @param sweepIntervalMillis how often closed IAs are looked for
     * @param registries the current views of the registries
     */
    StatisticsPublisher(long sweepIntervalMillis, Supplier<List<RegistryRuntimeDTO>> registries) {
        this.registries = registries;
        sweeper = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "dat-management-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        long interval = Math.max(10, sweepIntervalMillis);
        sweeper.scheduleWithFixedDelay(this::sweep, interval, interval, TimeUnit.MILLISECONDS);
    }

    @Deactivate
    void deactivate() {
        active = false;
        sweeper.shutdownNow();
        for (Published entry : List.copyOf(published.values())) {
            unpublish(entry);
        }
    }

    @Override
    public void providerAdded(ProviderDTO provider) {
        // an IA that can be opened has nothing to publish yet
    }

    @Override
    public void providerRemoved(ProviderDTO provider) {
        if (stillRegistered(provider)) {
            return; // outranked, not gone: the sweep sees its IAs close
        }
        for (Published entry : List.copyOf(published.values())) {
            if (entry.providerId() == provider.id() && entry.bean().getIaName().equals(provider.iaName())) {
                unpublish(entry);
            }
        }
    }

    @Override
    public void iaOpened(ProviderDTO provider, InterfaceAdapter ia) {
        Optional<IaStatistics> statistics = ia.extension(IaStatistics.class);
        if (statistics.isEmpty() || !active || isPublished(ia)) {
            return;
        }
        String iaName = ia.name();
        long instance = instances.computeIfAbsent(iaName, name -> new AtomicLong()).incrementAndGet();
        IaStatisticsBean bean = new IaStatisticsBean(iaName, provider.providerName(), provider.id(), instance, ia,
                statistics.get());
        ObjectName name = IaStatisticsMXBean.objectName(iaName, instance);
        try {
            server.registerMBean(new StandardMBean(bean, IaStatisticsMXBean.class, true), name);
            published.put(name, new Published(name, bean, provider.id()));
        } catch (JMException | RuntimeException e) {
            LOG.log(Level.WARNING, "cannot register the MXBean " + name + " of IA " + iaName, e);
        }
        if (!active) {
            deactivate(); // raced with deactivation
        }
    }

    /**
     * Whether a registry still lists the provider with the IA name, active or shadowed. The
     * registry updates its view before it tells its listeners, so a provider that left is no longer
     * listed.
     */
    private boolean stillRegistered(ProviderDTO provider) {
        try {
            for (RegistryRuntimeDTO runtime : registries.get()) {
                for (ProviderDTO entry : runtime.providers()) {
                    if (entry.id() == provider.id() && entry.iaName().equals(provider.iaName())
                            && entry.state() != ProviderDTO.State.FAILED) {
                        return true;
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "cannot ask the registries whether provider " + provider.id() + " is still registered", e);
        }
        return false;
    }

    /**
     * The views of the registry services. Looked up at each removal rather than held: the registry
     * tracks this component as a listener, and a reference back to it would make the two wait on
     * each other's activation.
     */
    private static List<RegistryRuntimeDTO> runtimes(BundleContext context) {
        List<RegistryRuntimeDTO> runtimes = new ArrayList<>();
        try {
            for (ServiceReference<DatRegistry> reference : context.getServiceReferences(DatRegistry.class, null)) {
                DatRegistry registry = context.getService(reference);
                if (registry != null) {
                    try {
                        runtimes.add(registry.getRuntimeDTO());
                    } finally {
                        context.ungetService(reference);
                    }
                }
            }
        } catch (InvalidSyntaxException | IllegalStateException e) {
            // no filter to get wrong; a stopping bundle has no registry to ask, and its MXBeans go anyway
        }
        return runtimes;
    }

    private boolean isPublished(InterfaceAdapter ia) {
        for (Published entry : published.values()) {
            if (entry.bean().ia() == ia) {
                return true;
            }
        }
        return false;
    }

    /** Unregisters the MXBeans of IAs that closed or failed. */
    void sweep() {
        for (Published entry : List.copyOf(published.values())) {
            if (!entry.bean().isOpen()) {
                unpublish(entry);
            }
        }
    }

    private void unpublish(Published entry) {
        if (published.remove(entry.name()) != null) {
            try {
                server.unregisterMBean(entry.name());
            } catch (JMException e) {
                // already gone
            }
        }
    }

    /**
     * The published IAs, ordered by name and instance.
     *
     * @param iaName an IA name to select, or {@code null} or empty for all
     * @return the entries
     */
    List<Published> published(String iaName) {
        List<Published> selected = new ArrayList<>();
        for (Published entry : published.values()) {
            if (iaName == null || iaName.isEmpty() || entry.bean().getIaName().equals(iaName)) {
                selected.add(entry);
            }
        }
        selected.sort(Comparator.comparing((Published p) -> p.bean().getIaName()).thenComparingLong(p -> p.bean().getInstance()));
        return selected;
    }
}
