package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The parameters of a Local Memory Region, {@code DAT_LMR_PARAM}: see dat_lmr_query(3DAT).
 *
 * @param ia the IA of the LMR
 * @param memType the memory type it was registered with
 * @param region the region description it was registered with
 * @param length the length asked for
 * @param pz the Protection Zone
 * @param memPrivileges the {@link MemPrivileges} granted
 * @param lmrContext the LMR context
 * @param rmrContext the RMR context
 * @param registeredSize the size of the registered range
 * @param registeredAddress the address of the registered range
 */
@ProviderType
public record LmrParams(InterfaceAdapter ia, MemoryType memType, RegionDescription region, long length, ProtectionZone pz,
        int memPrivileges, int lmrContext, int rmrContext, long registeredSize, long registeredAddress) {
}
