package dat.api;

import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The DAT registry, as consumers see it: lists providers and opens IAs by name.
 *
 * <p>See dat_registry_list_providers(3DAT) and dat_ia_open(3DAT).
 */
@ProviderType
public interface DatRegistry {

    /**
     * Lists the providers the registry knows: {@code dat_registry_list_providers(3DAT)}.
     *
     * @return an immutable snapshot; it has no effect on the registry
     */
    List<ProviderInfo> listProviders();
}
