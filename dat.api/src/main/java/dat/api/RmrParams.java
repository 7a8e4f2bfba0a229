package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The parameters of a Remote Memory Region, {@code DAT_RMR_PARAM}: see dat_rmr_query(3DAT).
 *
 * @param ia the IA of the RMR
 * @param pz the Protection Zone
 * @param lmrTriplet the bound LMR range (a copy); length 0 when unbound
 * @param memPrivileges the {@link MemPrivileges} of the binding
 * @param rmrContext the current RMR context
 */
@ProviderType
public record RmrParams(InterfaceAdapter ia, ProtectionZone pz, LmrTriplet lmrTriplet, int memPrivileges, int rmrContext) {
}
