package dat.provider.sim.internal;

import dat.provider.sim.internal.core.*;
import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.InterfaceAdapter;
import dat.api.ProviderInfo;
import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.api.spi.IaOpenRequest;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/**
 * The sim provider's IA factory: a DS component registered as {@link DatIaFactory} (configuration
 * PID {@value #PID}), and, with its public no-argument constructor, a
 * {@code java.util.ServiceLoader} provider for plain class paths.
 *
 * <p>It serves the IA names of its configuration ({@code sim0} by default) and any IA name a
 * static registry ({@code dat.conf}) maps to provider {@code sim}: {@link #init} (or the first
 * {@link #openIa} with {@code ia_params}) creates that IA with the limits and address of its
 * {@code ia_params} (syntax in {@link SimLimits}).
 *
 * <p>When the component deactivates (bundle stop, configuration change) every IA it opened fails
 * with {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC}, every posted DTO is flushed, every handle becomes
 * invalid, and the provider's thread ends.
 */
@Component(service = DatIaFactory.class, configurationPid = SimIaFactory.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL,
        property = {
            DatProviderConstants.DAT_PROVIDER_NAME + "=sim",
            DatProviderConstants.DAT_API_VERSION + "=" + DatProviderConstants.DAT_API_VERSION_1_2,
            DatProviderConstants.DAT_PROVIDER_VERSION + "=" + SimIaFactory.PROVIDER_VERSION,
            DatProviderConstants.DAT_THREAD_SAFE + ":Boolean=true",
            DatProviderConstants.DAT_TRANSPORT + "=sim",
            DatProviderConstants.DAT_CAPABILITY + "=rdma.read",
            DatProviderConstants.DAT_CAPABILITY + "=rdma.write",
            DatProviderConstants.DAT_CAPABILITY + "=srq",
            DatProviderConstants.DAT_CAPABILITY + "=srq.watermarks",
            DatProviderConstants.DAT_CAPABILITY + "=rmr",
            DatProviderConstants.DAT_CAPABILITY + "=cno",
            DatProviderConstants.DAT_CAPABILITY + "=psp.provider",
            DatProviderConstants.DAT_CAPABILITY + "=lmr.shared",
            DatProviderConstants.DAT_CAPABILITY + "=ep.recv_query",
            DatProviderConstants.DAT_EXTENSION + "=dat.api.ext.AtomicEndpoint",
            DatProviderConstants.DAT_EXTENSION + "=dat.api.ext.ImmediateDataEndpoint",
            DatProviderConstants.DAT_EXTENSION + "=dat.api.ext.IaStatistics"
        })
@Designate(ocd = SimIaFactory.Config.class)
public final class SimIaFactory implements DatIaFactory, AutoCloseable {

    /** The configuration PID. */
    public static final String PID = "dat.provider.sim";

    static final String PROVIDER_VERSION = SimIa.PROVIDER_VERSION_MAJOR + "." + SimIa.PROVIDER_VERSION_MINOR;

    /** The extensions its objects offer, as {@link DatProviderConstants#DAT_EXTENSION} lists them. */
    static final List<String> EXTENSIONS = List.of(dat.api.ext.AtomicEndpoint.class.getName(),
            dat.api.ext.ImmediateDataEndpoint.class.getName(), dat.api.ext.IaStatistics.class.getName());

    /** The capabilities that work, as {@link DatProviderConstants#DAT_CAPABILITY} lists them. */
    static final List<String> CAPABILITIES = List.of("rdma.read", "rdma.write", "srq", "srq.watermarks", "rmr", "cno",
            "psp.provider", "lmr.shared", "ep.recv_query");

    /** The configuration of the sim provider (Configuration Admin PID {@value SimIaFactory#PID}). */
    @ObjectClassDefinition(id = PID, name = "DAT sim provider",
            description = "A software DAT 1.2 provider: IAs in one JVM joined by an in-JVM fabric")
    public @interface Config {

        @AttributeDefinition(name = "IA names", description = "The IA names served (service property dat.ia.name)")
        String[] dat_ia_name() default {"sim0"};

        @AttributeDefinition(name = "Max Endpoints", min = "1")
        int max_eps() default 4096;

        @AttributeDefinition(name = "Max EVDs", min = "1")
        int max_evds() default 4096;

        @AttributeDefinition(name = "Max EVD queue length", min = "1")
        int max_evd_qlen() default 1 << 20;

        @AttributeDefinition(name = "Max LMRs", min = "1")
        int max_lmrs() default 1 << 16;

        @AttributeDefinition(name = "Max PZs", min = "1")
        int max_pzs() default 1024;

        @AttributeDefinition(name = "Max RMRs", min = "1")
        int max_rmrs() default 1 << 16;

        @AttributeDefinition(name = "Max SRQs", min = "1")
        int max_srqs() default 256;

        @AttributeDefinition(name = "Max CNOs", min = "1")
        int max_cnos() default 256;

        @AttributeDefinition(name = "Max DTOs per Endpoint queue", min = "1")
        int max_dto_per_ep() default 1 << 16;

        @AttributeDefinition(name = "Max IOV segments", min = "1")
        int max_iov() default 64;

        @AttributeDefinition(name = "Max private data", min = "64", max = "" + SimLimits.MAX_PRIVATE_DATA)
        int max_private_data() default SimLimits.DEFAULT_PRIVATE_DATA;

        @AttributeDefinition(name = "Idle strategy", description = "What the provider thread does when idle",
                options = {@Option(value = "backoff"), @Option(value = "sleeping"), @Option(value = "busy-spin")})
        String idle_strategy() default "backoff";

        @AttributeDefinition(name = "Idle sleep (µs)", min = "1",
                description = "How long the idle provider thread parks at most: commands wake it, timers end the park")
        long idle_sleep_micros() default 100_000;

        @AttributeDefinition(name = "First dat_psp_create_any qualifier", min = "0")
        long psp_any_first() default 49152;

        @AttributeDefinition(name = "dat_psp_create_any qualifiers", min = "1")
        long psp_any_count() default 16384;
    }

    private final Object lock = new Object();
    private ProviderSettings settings = ProviderSettings.defaults();
    private SimProvider provider;
    private boolean deactivated;

    /** For {@code ServiceLoader} and DS: the default configuration until activated. */
    public SimIaFactory() {
    }

    /** For tests and embedders: a factory with the given settings. */
    public SimIaFactory(ProviderSettings settings) {
        this.settings = settings;
    }

    @Activate
    void activate(Config config) {
        synchronized (lock) {
            settings = settings(config);
        }
    }

    @Deactivate
    void deactivate() {
        shutdown();
    }

    /**
     * Stops the provider, as {@link #deactivate} does: outside OSGi, the standalone registry that
     * loaded this factory with ServiceLoader calls it as it closes.
     */
    @Override
    public void close() {
        shutdown();
    }

    /**
     * Stops the provider: the hot swap of {@link DatIaFactory}.
     *
     * @return whether the provider's thread ended
     */
    public boolean shutdown() {
        SimProvider p;
        synchronized (lock) {
            deactivated = true;
            p = provider;
        }
        return p == null || p.shutdown();
    }

    static ProviderSettings settings(Config c) {
        try {
            SimLimits base = SimLimits.defaults();
            SimLimits limits = new SimLimits(null, c.max_eps(), c.max_evds(), c.max_evd_qlen(), c.max_lmrs(), c.max_pzs(),
                    c.max_rmrs(), c.max_srqs(), c.max_cnos(), c.max_dto_per_ep(), c.max_iov(), c.max_private_data(),
                    base.maxMessageSize(), base.maxRdmaSize(), base.maxRdmaReadPerEp(), base.maxRecvPerSrq(),
                    base.maxEpPerSrq(), base.qosSupported());
            return new ProviderSettings(Arrays.asList(c.dat_ia_name()), limits, c.idle_strategy(), c.idle_sleep_micros(),
                    c.psp_any_first(), c.psp_any_count());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad " + PID + " configuration: " + e.getMessage(), e);
        }
    }

    /** The running provider, started on first use. */
    public SimProvider provider() {
        synchronized (lock) {
            if (deactivated) {
                throw DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, null,
                        "the sim provider has stopped");
            }
            if (provider == null) {
                provider = new SimProvider(settings, "dat-sim-conductor", new SimTransports());
            }
            return provider;
        }
    }

    @Override
    public InterfaceAdapter openIa(IaOpenRequest request) {
        String name = request.iaName();
        if (name.startsWith(DatConstants.IA_NAME_RO_AWARE_PREFIX)) {
            name = name.substring(DatConstants.IA_NAME_RO_AWARE_PREFIX.length());
            request = new IaOpenRequest(name, request.asyncEvdMinQlen(), request.asyncEvd(), request.instanceData());
        }
        return provider().open(request);
    }

    @Override
    public void init(ProviderInfo providerInfo, String instanceData) {
        provider().setUp(providerInfo.iaName(), instanceData == null ? "" : instanceData);
    }

    @Override
    public void fini(ProviderInfo providerInfo) {
        SimProvider p;
        synchronized (lock) {
            p = provider;
        }
        if (p != null) {
            p.removeAdapter(providerInfo.iaName());
        }
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put(DatProviderConstants.DAT_PROVIDER_NAME, "sim");
        synchronized (lock) {
            p.put(DatProviderConstants.DAT_IA_NAME, settings.iaNames().toArray(new String[0]));
        }
        p.put(DatProviderConstants.DAT_API_VERSION, DatProviderConstants.DAT_API_VERSION_1_2);
        p.put(DatProviderConstants.DAT_PROVIDER_VERSION, PROVIDER_VERSION);
        p.put(DatProviderConstants.DAT_THREAD_SAFE, Boolean.TRUE);
        p.put(DatProviderConstants.DAT_TRANSPORT, "sim");
        p.put(DatProviderConstants.DAT_CAPABILITY, CAPABILITIES.toArray(new String[0]));
        p.put(DatProviderConstants.DAT_EXTENSION, EXTENSIONS.toArray(new String[0]));
        return p;
    }

    @Override
    public String toString() {
        return "SimIaFactory" + settings.iaNames();
    }
}
