package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A Remote Memory Region (RMR, {@code DAT_RMR_HANDLE}): a window onto part of an LMR that a remote
 * peer may read or write, bound and unbound through an Endpoint's request queue. Create one with
 * {@link ProtectionZone#createRemoteMemoryRegion()}.
 *
 * <p>See dat_rmr_create(3DAT), dat_rmr_bind(3DAT), dat_rmr_query(3DAT), dat_rmr_free(3DAT).
 */
@ProviderType
public interface RemoteMemoryRegion extends DatHandle {

    /**
     * Binds the RMR to a range of an LMR, or unbinds it when the segment length is 0:
     * {@code dat_rmr_bind(3DAT)}. The bind is posted to the Endpoint's request queue; its
     * completion arrives on the Endpoint's request EVD as an
     * {@link EventNumber#RMR_BIND_COMPLETION_EVENT} (unless suppressed). The new context is valid
     * for remote access once the bind completes, and the previous context is invalid at once.
     *
     * @param lmrTriplet the LMR range to expose; length 0 unbinds
     * @param memPrivileges {@link MemPrivileges#REMOTE_READ} and/or
     *     {@link MemPrivileges#REMOTE_WRITE}, within the LMR's privileges
     * @param ep a connected Endpoint of the same PZ
     * @param userCookie returned in the bind completion
     * @param completionFlags {@link CompletionFlags} of the bind
     * @return the new RMR context to give to the peer
     * @throws DatException {@link DatReturn#INVALID_PARAMETER}; {@link DatReturn#INVALID_STATE}
     *     for an Endpoint that is not connected; {@link DatReturn#PROTECTION_VIOLATION} for a PZ
     *     mismatch; {@link DatReturn#PRIVILEGES_VIOLATION} for privileges the LMR lacks;
     *     {@link DatReturn#INSUFFICIENT_RESOURCES}; {@link DatReturn#MODEL_NOT_SUPPORTED} where the
     *     provider has no memory windows
     */
    int bind(LmrTriplet lmrTriplet, int memPrivileges, Endpoint ep, long userCookie, int completionFlags);

    /**
     * The RMR parameters: {@code dat_rmr_query(3DAT)}.
     *
     * @param rmrParamMask the {@link RmrParamMask} bits wanted
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad mask;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    RmrParams query(int rmrParamMask);

    /**
     * All RMR parameters.
     *
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    default RmrParams query() {
        return query(RmrParamMask.ALL);
    }

    /**
     * Frees the RMR, invalidating its context: {@code dat_rmr_free(3DAT)}.
     *
     * @throws DatException {@link DatReturn#INVALID_STATE} while a bind is in progress
     */
    @Override
    void close();
}
