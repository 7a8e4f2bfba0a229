package dat.registry.internal;

import dat.api.DatRegistry;
import dat.api.ProviderInfo;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/** The registry service. */
@Component(service = DatRegistry.class)
public final class RegistryComponent implements DatRegistry {

    @Override
    public List<ProviderInfo> listProviders() {
        return List.of();
    }
}
