package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The parameters of a Consumer Notification Object, {@code DAT_CNO_PARAM}: see dat_cno_query(3DAT).
 *
 * @param ia the IA of the CNO
 * @param agent the OS wait proxy agent, or {@code null}
 */
@ProviderType
public record CnoParams(InterfaceAdapter ia, WaitProxyAgent agent) {
}
