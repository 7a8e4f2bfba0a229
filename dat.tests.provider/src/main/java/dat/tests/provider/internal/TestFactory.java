package dat.tests.provider.internal;

import dat.api.InterfaceAdapter;
import dat.api.ProviderInfo;
import dat.api.spi.DatIaFactory;
import dat.api.spi.IaOpenRequest;
import java.util.Map;

/**
 * The IA factory service of a test provider: a DS component whose service properties (from its
 * component properties and, for the configured one, its configuration) describe it, and whose
 * deactivation is the hot swap.
 */
abstract class TestFactory implements DatIaFactory {

    private volatile TestProvider provider;

    /** Starts the provider with the component's properties. */
    final void start(Map<String, Object> properties) {
        provider = new TestProvider(properties);
    }

    /** The factory service is gone (bundle stopped, configuration deleted): fail every open IA. */
    final void stop() {
        TestProvider leaving = provider;
        if (leaving != null) {
            leaving.shutdown();
        }
    }

    @Override
    public InterfaceAdapter openIa(IaOpenRequest request) {
        return provider.openIa(request);
    }

    @Override
    public void init(ProviderInfo providerInfo, String instanceData) {
        provider.init(providerInfo, instanceData);
    }

    @Override
    public void fini(ProviderInfo providerInfo) {
        provider.fini(providerInfo);
    }
}
