package dat.tests;

import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import java.util.Hashtable;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/** A provider that outranks the sim provider for IA {@code sim0}, as a vendor's plug-in could. */
public final class OutrankedSim0 {

    private OutrankedSim0() {
    }

    /**
     * Registers a factory for sim0 that outranks the sim provider's (ranking 10) and opens its IAs
     * through a delegate; the test-only property keeps it out of the other tests' candidates.
     *
     * @param context the test bundle's context
     * @param delegate the factory that opens the IAs
     * @return the registration, for the test to unregister
     */
    public static ServiceRegistration<DatIaFactory> register(BundleContext context, DatIaFactory delegate) {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(DatProviderConstants.DAT_PROVIDER_NAME, "outranking");
        properties.put(DatProviderConstants.DAT_IA_NAME, "sim0");
        properties.put(DatProviderConstants.DAT_API_VERSION, DatProviderConstants.DAT_API_VERSION_1_2);
        properties.put(DatProviderConstants.DAT_THREAD_SAFE, Boolean.TRUE);
        properties.put(DatProviderConstants.DAT_TRANSPORT, "sim");
        properties.put("dat.conformance", "false");
        properties.put("service.ranking", 10);
        return context.registerService(DatIaFactory.class, delegate::openIa, properties);
    }
}
