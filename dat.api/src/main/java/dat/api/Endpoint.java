package dat.api;

import java.net.InetSocketAddress;
import org.osgi.annotation.versioning.ProviderType;

/**
 * An Endpoint (EP, {@code DAT_EP_HANDLE}): one end of a reliable connection, with a receive queue
 * and a request queue. Create one with {@link InterfaceAdapter#createEndpoint}; connect it
 * actively with {@link #connect}, or passively by accepting a {@link ConnectionRequest}.
 *
 * <p><b>Data path.</b> {@link #postSend}, {@link #postRecv}, {@link #postRdmaRead} and
 * {@link #postRdmaWrite} return a {@link DatReturn} code and allocate nothing: keep the
 * {@link LmrTriplet} arrays and {@link RmrTriplet}s and reuse them. Each post names how many
 * entries of the IOV array to use, so one array serves posts of any length. The IOV and the memory
 * it names belong to the provider until the DTO completes. Every IOV segment is checked against
 * its LMR's bounds, privileges and Protection Zone before any byte moves:
 * {@link DatReturn#INVALID_PARAMETER} (outside the LMR, bad count),
 * {@link DatReturn#PROTECTION_VIOLATION} (LMR of another PZ),
 * {@link DatReturn#PRIVILEGES_VIOLATION} (missing local privilege or unknown context). The
 * subtype of an {@code INVALID_PARAMETER} code names the argument ({@link DatReturn#INVALID_ARG2}
 * for {@code numSegments}, {@link DatReturn#INVALID_ARG3} for the IOV, ...).
 *
 * <p>Completion flags ({@link CompletionFlags}): {@code SUPPRESS} drops the event of a
 * successful request; {@code UNSIGNALLED} needs an Endpoint whose completion-flags attribute says
 * so; {@code SOLICITED_WAIT} on a send wakes a solicited-wait receiver; {@code BARRIER_FENCE}
 * holds the request until earlier RDMA reads completed.
 *
 * <p>See dat_ep_create(3DAT), dat_ep_connect(3DAT), dat_ep_post_send(3DAT) and the other
 * {@code dat_ep_*} pages.
 */
@ProviderType
public interface Endpoint extends DatHandle {

    /**
     * Posts a send of the IOV's bytes to the peer: {@code dat_ep_post_send(3DAT)}. Valid in the
     * {@link EpState#CONNECTED} state, and in {@link EpState#DISCONNECTED}, where the send is
     * flushed at once.
     *
     * @param numSegments how many entries of {@code localIov} to send; 0 for an empty message
     * @param localIov the local buffer; may be {@code null} when {@code numSegments} is 0
     * @param userCookie returned in the completion
     * @param completionFlags {@link CompletionFlags}, or-ed
     * @return {@link DatReturn#SUCCESS}; {@link DatReturn#INSUFFICIENT_RESOURCES} when the request
     *     queue is full; {@link DatReturn#INVALID_STATE} in other states; the IOV errors above;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    int postSend(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags);

    /**
     * Posts a receive buffer: {@code dat_ep_post_recv(3DAT)}. Valid in every state; posted in
     * {@link EpState#DISCONNECTED} it is flushed at once. A message larger than the buffer
     * completes with {@link DtoCompletionStatus#ERR_LOCAL_LENGTH}.
     *
     * @param numSegments how many entries of {@code localIov} to fill; 0 for an empty message
     * @param localIov the local buffer; may be {@code null} when {@code numSegments} is 0
     * @param userCookie returned in the completion
     * @param completionFlags {@link CompletionFlags#DEFAULT} or {@link CompletionFlags#UNSIGNALLED}
     * @return {@link DatReturn#SUCCESS}; {@link DatReturn#INSUFFICIENT_RESOURCES} when the receive
     *     queue is full; {@link DatReturn#INVALID_STATE} for an Endpoint on an SRQ; the IOV
     *     errors above; {@link DatReturn#INVALID_HANDLE}
     */
    int postRecv(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags);

    /**
     * Posts an RDMA read of a remote buffer into the IOV: {@code dat_ep_post_rdma_read(3DAT)}.
     * The peer's consumer takes no part; its provider checks the RMR context, bounds, remote-read
     * privilege and PZ, and a failed check completes this DTO with
     * {@link DtoCompletionStatus#ERR_REMOTE_ACCESS}.
     *
     * @param numSegments how many entries of {@code localIov} to fill
     * @param localIov the local buffer
     * @param userCookie returned in the completion
     * @param remoteBuffer the remote buffer to read
     * @param completionFlags {@link CompletionFlags}, or-ed
     * @return {@link DatReturn#SUCCESS}; {@link DatReturn#LENGTH_ERROR} when the local buffer is
     *     smaller than the remote one; {@link DatReturn#INVALID_STATE};
     *     {@link DatReturn#INSUFFICIENT_RESOURCES}; the IOV errors above;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    int postRdmaRead(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags);

    /**
     * Posts an RDMA write of the IOV's bytes into a remote buffer:
     * {@code dat_ep_post_rdma_write(3DAT)}. The peer's consumer takes no part and gets no event.
     *
     * @param numSegments how many entries of {@code localIov} to write
     * @param localIov the local buffer
     * @param userCookie returned in the completion
     * @param remoteBuffer the remote buffer to write
     * @param completionFlags {@link CompletionFlags}, or-ed
     * @return {@link DatReturn#SUCCESS}; {@link DatReturn#LENGTH_ERROR} when the remote buffer is
     *     smaller than the local one; {@link DatReturn#INVALID_STATE};
     *     {@link DatReturn#INSUFFICIENT_RESOURCES}; the IOV errors above;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    int postRdmaWrite(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags);

    /**
     * Requests a connection to a remote Service Point: {@code dat_ep_connect(3DAT)}. The Endpoint
     * must be {@link EpState#UNCONNECTED}; it moves to {@link EpState#ACTIVE_CONNECTION_PENDING},
     * and the outcome arrives on the connect EVD: {@code ESTABLISHED}, {@code PEER_REJECTED},
     * {@code NON_PEER_REJECTED} (nobody listening, backlog full, remote QoS), {@code UNREACHABLE}
     * or {@code TIMED_OUT} ({@link EventNumber}).
     *
     * @param remoteIaAddress the address of the remote IA
     * @param remoteConnQual the connection qualifier of the remote Service Point
     * @param timeoutMicros how long to wait for the connection, or
     *     {@link DatConstants#TIMEOUT_INFINITE}
     * @param privateData data for the remote consumer's Connection Request, or {@code null}
     * @param qos the requested {@link Qos}
     * @param connectFlags {@link ConnectFlags}
     * @throws DatException {@link DatReturn#INVALID_STATE} for an Endpoint that is not
     *     unconnected; {@link DatReturn#INVALID_ADDRESS} for an address the provider cannot use;
     *     {@link DatReturn#MODEL_NOT_SUPPORTED} for a QoS the local provider lacks;
     *     {@link DatReturn#INVALID_PARAMETER}; {@link DatReturn#INSUFFICIENT_RESOURCES};
     *     {@link DatReturn#INVALID_HANDLE}
     */
    void connect(InetSocketAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData, int qos,
            int connectFlags);

    /**
     * Requests a connection to the same remote end as another connected Endpoint:
     * {@code dat_ep_dup_connect(3DAT)}.
     *
     * @param dupEp a connected Endpoint whose remote end to connect to
     * @param timeoutMicros how long to wait, or {@link DatConstants#TIMEOUT_INFINITE}
     * @param privateData data for the remote consumer, or {@code null}
     * @param qos the requested {@link Qos}
     * @throws DatException as {@link #connect} does; {@link DatReturn#INVALID_HANDLE} or
     *     {@link DatReturn#INVALID_STATE} for a {@code dupEp} that is not connected
     */
    void dupConnect(Endpoint dupEp, long timeoutMicros, byte[] privateData, int qos);

    /**
     * Terminates the connection or the connection establishment: {@code dat_ep_disconnect(3DAT)}.
     * An abrupt disconnect flushes every outstanding DTO; a graceful one lets outstanding requests
     * finish first ({@link EpState#DISCONNECT_PENDING}). Completion is reported by
     * {@link EventNumber#CONNECTION_EVENT_DISCONNECTED}; posted receives are flushed.
     *
     * @param flag abrupt or graceful
     * @throws DatException {@link DatReturn#INVALID_STATE} in the unconnected, reserved and
     *     passive or tentative pending states; {@link DatReturn#INVALID_PARAMETER};
     *     {@link DatReturn#INVALID_HANDLE}
     */
    void disconnect(CloseFlag flag);

    /**
     * The Endpoint parameters: {@code dat_ep_query(3DAT)}.
     *
     * @param epParamMask the {@link EpParamMask} bits wanted
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad mask;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    EpParams query(long epParamMask);

    /**
     * All Endpoint parameters.
     *
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    default EpParams query() {
        return query(EpParamMask.ALL);
    }

    /**
     * Changes the parameters named by the mask: {@code dat_ep_modify(3DAT)}. Which may change in
     * which state is listed on the manual page (most only before connecting or accepting).
     *
     * @param epParamMask the {@link EpParamMask} bits of the parameters to change
     * @param params the new values; only the masked fields are read
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad mask, a parameter that
     *     cannot change, or an invalid value; {@link DatReturn#INVALID_STATE} when the state does
     *     not allow the change; {@link DatReturn#INVALID_HANDLE}
     */
    void modify(long epParamMask, EpParams params);

    /**
     * A quick snapshot of the state and queues: {@code dat_ep_get_status(3DAT)}.
     *
     * @return the status
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    EpStatus getStatus();

    /**
     * Returns a {@link EpState#DISCONNECTED} Endpoint to {@link EpState#UNCONNECTED}, so it can
     * connect again: {@code dat_ep_reset(3DAT)}. A no-op when already unconnected.
     *
     * @throws DatException {@link DatReturn#INVALID_STATE} in other states;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    void reset();

    /**
     * Receive-buffer consumption of the Endpoint: {@code dat_ep_recv_query(3DAT)}. A buffer is
     * allocated to an Endpoint as it is posted to it, or, for an Endpoint of an SRQ, as the
     * Endpoint takes it from the SRQ; a count the provider cannot give at a reasonable cost is
     * {@link DatConstants#VALUE_UNKNOWN}.
     *
     * @return the counts
     * @throws DatException {@link DatReturn#MODEL_NOT_SUPPORTED} when the provider does not
     *     report them ({@link ProviderAttributes#epRecvInfoSupported()});
     *     {@link DatReturn#INVALID_HANDLE}
     */
    EpRecvInfo recvQuery();

    /**
     * Sets the high watermarks of receives an Endpoint on an SRQ may hold:
     * {@code dat_ep_set_watermark(3DAT)}. Crossing the soft one raises
     * {@link AsyncErrorReason#SRQ_SOFT_HIGH_WATERMARK_EVENT} on the async EVD.
     *
     * @param softHighWatermark the soft watermark, or {@link DatConstants#WATERMARK_INFINITE}
     * @param hardHighWatermark the hard watermark, or {@link DatConstants#WATERMARK_INFINITE}
     * @throws DatException {@link DatReturn#MODEL_NOT_SUPPORTED} when watermarks are not
     *     supported; {@link DatReturn#INVALID_PARAMETER}; {@link DatReturn#INVALID_HANDLE}
     */
    void setWatermark(int softHighWatermark, int hardHighWatermark);

    /**
     * Frees the Endpoint: {@code dat_ep_free(3DAT)}. A connected Endpoint is disconnected
     * abruptly first and its DTOs are flushed.
     *
     * @throws DatException {@link DatReturn#INVALID_STATE} while it is reserved by an RSP or
     *     provided to a pending Connection Request
     */
    @Override
    void close();
}
