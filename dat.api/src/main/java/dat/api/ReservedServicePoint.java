package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A Reserved Service Point (RSP, {@code DAT_RSP_HANDLE}): listens on a connection qualifier for
 * one connection request, for one reserved Endpoint, and is destroyed by that request. Create one
 * with {@link InterfaceAdapter#createReservedServicePoint}.
 *
 * <p>See dat_rsp_create(3DAT), dat_rsp_query(3DAT), dat_rsp_free(3DAT).
 */
@ProviderType
public interface ReservedServicePoint extends DatHandle {

    /**
     * The RSP parameters: {@code dat_rsp_query(3DAT)}.
     *
     * @param rspParamMask the {@link RspParamMask} bits wanted
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad mask;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    RspParams query(int rspParamMask);

    /**
     * All RSP parameters.
     *
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    default RspParams query() {
        return query(RspParamMask.ALL);
    }

    /**
     * Stops listening and frees the RSP; its Endpoint returns to {@link EpState#UNCONNECTED}:
     * {@code dat_rsp_free(3DAT)}.
     *
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    @Override
    void close();
}
