package dat.provider.verbs.internal;

import dat.api.DatReturn;
import dat.api.InterfaceAdapter;
import dat.api.ProviderInfo;
import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.api.spi.IaOpenRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The verbs provider on a plain class path: what {@link java.util.ServiceLoader} instantiates
 * from {@code META-INF/services/dat.api.spi.DatIaFactory}. It starts a {@link VerbsRuntime} (the
 * libraries, the usable ports) and serves every port's {@code ofa-v2-<device>-<port>} name and the
 * static registry entries mapped to the verbs provider, through the port factories the OSGi
 * component registers one by one. Where RDMA is unavailable it offers no IA name, logs why once,
 * and refuses an open with that reason. Closing it (the standalone registry closes the providers
 * it loaded) is the hot swap of {@link DatIaFactory}: every open IA fails, then the libraries are
 * unloaded.
 */
public final class VerbsFactory implements DatIaFactory, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(VerbsFactory.class.getName());

    private final VerbsRuntime runtime;

    /** Starts the provider; never throws for a missing library, kernel support or device. */
    public VerbsFactory() {
        runtime = VerbsRuntime.start();
        if (runtime.unavailableReason() != null) {
            LOG.log(System.Logger.Level.INFO, "dat.provider.verbs: RDMA unavailable, no IA offered: " + runtime.unavailableReason());
        }
    }

    private DatIaFactory first() {
        List<DatIaFactory> factories = runtime.factories();
        if (factories.isEmpty()) {
            throw Codes.exception(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                    "RDMA unavailable: " + runtime.unavailableReason());
        }
        return factories.getFirst();
    }

    /** The port factory whose own IA name this is, else the first (which resolves any usable port). */
    private DatIaFactory factoryFor(String iaName) {
        for (DatIaFactory factory : runtime.factories()) {
            if (iaName.equals(factory.properties().get(DatProviderConstants.DAT_IA_NAME))) {
                return factory;
            }
        }
        return first();
    }

    @Override
    public InterfaceAdapter openIa(IaOpenRequest request) {
        return factoryFor(request.iaName()).openIa(request);
    }

    @Override
    public void init(ProviderInfo providerInfo, String instanceData) {
        factoryFor(providerInfo.iaName()).init(providerInfo, instanceData);
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> properties = new LinkedHashMap<>();
        List<DatIaFactory> factories = runtime.factories();
        if (!factories.isEmpty()) {
            properties.putAll(factories.getFirst().properties());
        } else {
            properties.put(DatProviderConstants.DAT_PROVIDER_NAME, "verbs");
            properties.put(DatProviderConstants.DAT_API_VERSION, DatProviderConstants.DAT_API_VERSION_1_2);
            properties.put(DatProviderConstants.DAT_PROVIDER_VERSION, "1.0");
            properties.put(DatProviderConstants.DAT_THREAD_SAFE, Boolean.TRUE);
            properties.put(DatProviderConstants.DAT_PROVIDER_LIBRARY, VerbsIaFactory.LIBRARIES);
        }
        properties.put(DatProviderConstants.DAT_IA_NAME,
                factories.stream().map(f -> (String) f.properties().get(DatProviderConstants.DAT_IA_NAME)).toList());
        if (factories.stream().map(f -> f.properties().get(DatProviderConstants.DAT_TRANSPORT)).distinct().count() > 1) {
            properties.remove(DatProviderConstants.DAT_TRANSPORT); // ports of different transports
        }
        return properties;
    }

    /** Why no IA is offered, or {@code null}. */
    public String unavailableReason() {
        return runtime.unavailableReason();
    }

    @Override
    public void close() {
        runtime.close();
    }

    @Override
    public String toString() {
        return "VerbsFactory" + runtime.factories();
    }
}
