package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A persistent Public Service Point (PSP, {@code DAT_PSP_HANDLE}): listens on a connection
 * qualifier and reports every connection request to its EVD until freed. Create one with
 * {@link InterfaceAdapter#createPublicServicePoint} or
 * {@link InterfaceAdapter#createPublicServicePointAny}.
 *
 * <p>See dat_psp_create(3DAT), dat_psp_create_any(3DAT), dat_psp_query(3DAT), dat_psp_free(3DAT).
 */
@ProviderType
public interface PublicServicePoint extends DatHandle {

    /**
     * The connection qualifier the PSP listens on; for {@code dat_psp_create_any} the one the
     * provider picked.
     *
     * @return the connection qualifier
     */
    long connQual();

    /**
     * The PSP parameters: {@code dat_psp_query(3DAT)}.
     *
     * @param pspParamMask the {@link PspParamMask} bits wanted
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad mask;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    PspParams query(int pspParamMask);

    /**
     * All PSP parameters.
     *
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    default PspParams query() {
        return query(PspParamMask.ALL);
    }

    /**
     * Stops listening and frees the PSP: {@code dat_psp_free(3DAT)}. Connection requests already
     * reported stay valid.
     *
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    @Override
    void close();
}
