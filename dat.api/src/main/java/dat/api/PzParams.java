package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The parameters of a Protection Zone, {@code DAT_PZ_PARAM}: see dat_pz_query(3DAT).
 *
 * @param ia the IA of the PZ
 */
@ProviderType
public record PzParams(InterfaceAdapter ia) {
}
