package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A Protection Zone (PZ, {@code DAT_PZ_HANDLE}): Endpoints reach only memory (LMRs, RMRs) of their
 * own PZ, locally and remotely. Create one with {@link InterfaceAdapter#createProtectionZone()}.
 *
 * <p>See dat_pz_create(3DAT), dat_pz_query(3DAT), dat_pz_free(3DAT).
 */
@ProviderType
public interface ProtectionZone extends DatHandle {

    /**
     * Creates an unbound Remote Memory Region in this PZ: {@code dat_rmr_create(3DAT)}.
     *
     * @return the new RMR
     * @throws DatException {@link DatReturn#INSUFFICIENT_RESOURCES} past
     *     {@link IaAttributes#maxRmrs()}; {@link DatReturn#MODEL_NOT_SUPPORTED} where the
     *     provider has no memory windows; {@link DatReturn#INVALID_HANDLE}
     */
    RemoteMemoryRegion createRemoteMemoryRegion();

    /**
     * The PZ parameters: {@code dat_pz_query(3DAT)}.
     *
     * @param pzParamMask the {@link PzParamMask} bits wanted
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad mask;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    PzParams query(int pzParamMask);

    /**
     * All PZ parameters.
     *
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    default PzParams query() {
        return query(PzParamMask.ALL);
    }

    /**
     * Frees the PZ: {@code dat_pz_free(3DAT)}.
     *
     * @throws DatException {@link DatReturn#INVALID_STATE} while an Endpoint, LMR, RMR or SRQ uses it
     */
    @Override
    void close();
}
