package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A pending Connection Request (CR, {@code DAT_CR_HANDLE}) that arrived on a Service Point: accept
 * it on an Endpoint, reject it, or hand it off to another Service Point. Each of the three
 * destroys the CR. {@link #close()} rejects a CR still pending, so that none is left dangling.
 *
 * <p>See dat_cr_query(3DAT), dat_cr_accept(3DAT), dat_cr_reject(3DAT), dat_cr_handoff(3DAT).
 */
@ProviderType
public interface ConnectionRequest extends DatHandle {

    /**
     * The CR parameters: {@code dat_cr_query(3DAT)}.
     *
     * @param crParamMask the {@link CrParamMask} bits wanted
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad mask;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    CrParams query(int crParamMask);

    /**
     * All CR parameters.
     *
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    default CrParams query() {
        return query(CrParamMask.ALL);
    }

    /**
     * Accepts the request: {@code dat_cr_accept(3DAT)}. Both Endpoints get
     * {@link EventNumber#CONNECTION_EVENT_ESTABLISHED} when the connection is up; the local
     * Endpoint is {@link EpState#COMPLETION_PENDING} until then.
     *
     * @param ep the local Endpoint: an unconnected one, or the one the Service Point provided
     *     ({@link CrParams#localEp()}), or {@code null} to use that one
     * @param privateData data for the requester, or {@code null}
     * @throws DatException {@link DatReturn#INVALID_HANDLE} for a bad CR or Endpoint;
     *     {@link DatReturn#INVALID_PARAMETER} for too much private data or a wrong Endpoint;
     *     {@link DatReturn#INVALID_STATE} for an Endpoint in the wrong state
     */
    void accept(Endpoint ep, byte[] privateData);

    /**
     * Rejects the request: the requester gets {@link EventNumber#CONNECTION_EVENT_PEER_REJECTED}:
     * {@code dat_cr_reject(3DAT)}.
     *
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    void reject();

    /**
     * Hands the request off to the Service Point on another connection qualifier of the same IA:
     * {@code dat_cr_handoff(3DAT)}.
     *
     * @param connQual the qualifier of the Service Point to take the request
     * @throws DatException {@link DatReturn#INVALID_HANDLE}; {@link DatReturn#INVALID_PARAMETER}
     *     when no Service Point listens on {@code connQual}
     */
    void handoff(long connQual);

    /**
     * Rejects the request if it is still pending; does nothing after accept, reject or handoff.
     */
    @Override
    void close();
}
