package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The parameters of a Public Service Point, {@code DAT_PSP_PARAM}: see dat_psp_query(3DAT).
 *
 * @param ia the IA of the PSP
 * @param connQual the connection qualifier
 * @param evd the EVD of connection requests
 * @param flag who creates the Endpoints of requests
 */
@ProviderType
public record PspParams(InterfaceAdapter ia, long connQual, EventDispatcher evd, PspFlag flag) {
}
