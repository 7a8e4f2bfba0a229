package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The parameters of a Reserved Service Point, {@code DAT_RSP_PARAM}: see dat_rsp_query(3DAT).
 *
 * @param ia the IA of the RSP
 * @param connQual the connection qualifier
 * @param evd the EVD of the connection request
 * @param ep the reserved Endpoint
 */
@ProviderType
public record RspParams(InterfaceAdapter ia, long connQual, EventDispatcher evd, Endpoint ep) {
}
