package dat.registry.internal;

import dat.api.DatException;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.InterfaceAdapter;
import dat.api.ProviderInfo;
import dat.api.spi.DatIaFactory;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/** The registry service: first cut, knows no provider yet (the tracker is the registry issue's work). */
@Component(service = DatRegistry.class)
public final class RegistryComponent implements DatRegistry {

    @Override
    public List<ProviderInfo> listProviders() {
        return List.of();
    }

    @Override
    public int listProviders(int maxToReturn, ProviderInfo[] providerList) {
        return 0;
    }

    @Override
    public InterfaceAdapter openIa(String iaName, int asyncEvdMinQlen, EventDispatcher asyncEvd, int versionMajor,
            int versionMinor, boolean threadSafe) {
        throw new DatException(DatReturn.error(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED), "no provider serves '" + iaName + "'");
    }

    @Override
    public void addProvider(DatIaFactory provider, ProviderInfo providerInfo) {
        throw new DatException(DatReturn.error(DatReturn.NOT_IMPLEMENTED, DatReturn.NO_SUBTYPE), "dynamic registration is not implemented yet");
    }

    @Override
    public void removeProvider(DatIaFactory provider, ProviderInfo providerInfo) {
        throw new DatException(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.NO_SUBTYPE), "no such provider");
    }
}
