package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A Shared Receive Queue (SRQ, {@code DAT_SRQ_HANDLE}): one pool of posted receives for many
 * Endpoints created with {@link InterfaceAdapter#createEndpointWithSrq}. When fewer than the low
 * watermark of receives remain, the SRQ raises an {@link AsyncErrorReason#SRQ_LOW_WATERMARK_EVENT}
 * on the async EVD, once per {@link #setLowWatermark} call.
 *
 * <p>See dat_srq_create(3DAT), dat_srq_post_recv(3DAT), dat_srq_query(3DAT),
 * dat_srq_resize(3DAT), dat_srq_set_lw(3DAT), dat_srq_free(3DAT).
 */
@ProviderType
public interface SharedReceiveQueue extends DatHandle {

    /**
     * Posts a receive buffer to the SRQ: {@code dat_srq_post_recv(3DAT)}. Data path: returns a
     * code, allocates nothing. The completion goes to the recv EVD of the Endpoint that consumed
     * the buffer.
     *
     * @param numSegments how many entries of {@code localIov} to use, 0 for a zero-length receive
     * @param localIov the buffer; may be {@code null} when {@code numSegments} is 0
     * @param userCookie returned in the completion
     * @return {@link DatReturn#SUCCESS}; {@link DatReturn#INSUFFICIENT_RESOURCES} when the SRQ is
     *     full; {@link DatReturn#INVALID_PARAMETER} for a segment outside its LMR or a bad count;
     *     {@link DatReturn#PROTECTION_VIOLATION} for an LMR of another PZ;
     *     {@link DatReturn#PRIVILEGES_VIOLATION} for an LMR without local write;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    int postRecv(int numSegments, LmrTriplet[] localIov, long userCookie);

    /**
     * The SRQ parameters: {@code dat_srq_query(3DAT)}.
     *
     * @param srqParamMask the {@link SrqParamMask} bits wanted
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad mask;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    SrqParams query(int srqParamMask);

    /**
     * All SRQ parameters.
     *
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    default SrqParams query() {
        return query(SrqParamMask.ALL);
    }

    /**
     * Changes the most receives the SRQ holds: {@code dat_srq_resize(3DAT)}.
     *
     * @param maxRecvDtos the new size
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a size below the receives
     *     posted or above the IA limit; {@link DatReturn#INSUFFICIENT_RESOURCES}
     */
    void resize(int maxRecvDtos);

    /**
     * Sets the low watermark and arms its event: {@code dat_srq_set_lw(3DAT)}.
     *
     * @param lowWatermark the number of receives below which the event is raised; 0 disarms it
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a watermark above the size;
     *     {@link DatReturn#MODEL_NOT_SUPPORTED} when watermarks are not supported
     */
    void setLowWatermark(int lowWatermark);

    /**
     * Frees the SRQ: {@code dat_srq_free(3DAT)}.
     *
     * @throws DatException {@link DatReturn#INVALID_STATE} while an Endpoint uses it
     */
    @Override
    void close();
}
