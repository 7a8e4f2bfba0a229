package dat.registry.internal;

import dat.api.DatRegistry;
import dat.api.DatRegistryListener;
import dat.api.EventDispatcher;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.api.ProviderInfo;
import dat.api.RegistryRuntimeDTO;
import dat.api.spi.DatIaFactory;
import java.util.List;

/**
 * A {@link DatRegistry} that a {@link Registry} serves. The OSGi service ({@link RegistryComponent})
 * and the plain-Java registry ({@link Standalone}) are such facades, each with a lifecycle of its
 * own, so that neither hands its users the Registry's (a consumer that cast the OSGi service could
 * otherwise close it).
 */
abstract class RegistryFacade implements DatRegistry {

    /** The registry that answers. */
    final Registry registry;

    RegistryFacade(Registry registry) {
        this.registry = registry;
    }

    @Override
    public List<ProviderInfo> listProviders() {
        return registry.listProviders();
    }

    @Override
    public int listProviders(int maxToReturn, ProviderInfo[] providerList) {
        return registry.listProviders(maxToReturn, providerList);
    }

    @Override
    public InterfaceAdapter openIa(String iaName, int asyncEvdMinQlen, EventDispatcher asyncEvd, int versionMajor,
            int versionMinor, boolean threadSafe) {
        return registry.openIa(iaName, asyncEvdMinQlen, asyncEvd, versionMajor, versionMinor, threadSafe);
    }

    @Override
    public void addProvider(DatIaFactory provider, ProviderInfo providerInfo) {
        registry.addProvider(provider, providerInfo);
    }

    @Override
    public void removeProvider(DatIaFactory provider, ProviderInfo providerInfo) {
        registry.removeProvider(provider, providerInfo);
    }

    @Override
    public List<ProviderDTO> findProviders(String filter) {
        return registry.findProviders(filter);
    }

    @Override
    public RegistryRuntimeDTO getRuntimeDTO() {
        return registry.getRuntimeDTO();
    }

    @Override
    public void addListener(DatRegistryListener listener) {
        registry.addListener(listener);
    }

    @Override
    public void removeListener(DatRegistryListener listener) {
        registry.removeListener(listener);
    }
}
