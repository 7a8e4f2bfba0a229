package dat.api.ext;

import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import org.osgi.annotation.versioning.ProviderType;

/**
 * RDMA write with immediate data on a connected {@link dat.api.Endpoint}: the
 * {@code dat_ib_post_rdma_write_immed} extension of OFED uDAPL 2.0
 * ({@code dat2/include/dat2/dat_ib_extensions.h}), modelled after the InfiniBand RDMA Write with
 * Immediate. Obtain it with {@code ep.extension(ImmediateDataEndpoint.class)}; it is present only
 * when the provider offers it (its factory lists this interface in
 * {@link dat.api.spi.DatProviderConstants#DAT_EXTENSION}, and its IA's provider-specific attributes
 * have {@link IbExtension#ATTR_IMMED_DATA} set to {@code "TRUE"}).
 *
 * <p>The write moves the IOV's bytes into the remote buffer exactly as
 * {@code dat_ep_post_rdma_write(3DAT)} does, and then delivers a 32-bit immediate value to the
 * peer's consumer, which an ordinary RDMA write never notifies:
 * <ul>
 * <li>the write <em>consumes a receive</em> posted on the peer Endpoint (or its SRQ). That
 *     receive's buffer is not touched (it may have 0 segments), and it completes on the peer's
 *     receive EVD with event number {@link IbExtension#IB_DTO_EVENT},
 *     {@link dat.api.DatEvent#extensionType()} {@link IbExtension#RDMA_WRITE_IMMED_DATA}, the
 *     receive's cookie, {@link dat.api.DatEvent#immediateData()} the immediate value, and
 *     {@link dat.api.DatEvent#transferredLength()} the bytes written into the remote buffer. The
 *     written bytes are visible to the peer when that completion is. With no receive posted, the
 *     write fails as a send finding no receive does (the provider's
 *     {@link dat.api.DtoCompletionStatus#ERR_RECEIVER_NOT_READY} behaviour);</li>
 * <li>the requester's operation completes on its request EVD with event number
 *     {@link IbExtension#IB_DTO_EVENT}, {@link dat.api.DatEvent#extensionType()}
 *     {@link IbExtension#RDMA_WRITE_IMMED}, the {@code userCookie} and the bytes written.</li>
 * </ul>
 * A failed remote check (context, bounds, remote-write privilege, PZ) completes the request with
 * {@link dat.api.DtoCompletionStatus#ERR_REMOTE_ACCESS}, as for an RDMA write.
 *
 * <p><b>Data path.</b> The method returns a {@link dat.api.DatReturn} code and allocates nothing,
 * with the codes of {@code dat_ep_post_rdma_write(3DAT)} ({@link dat.api.Endpoint#postRdmaWrite}).
 *
 * <p>Thread safety is that of the Endpoint ({@link dat.api.ProviderAttributes#threadSafe()}).
 */
@ProviderType
public interface ImmediateDataEndpoint {

    /**
     * Writes the IOV's bytes into the remote buffer and delivers {@code immediateData} to the
     * peer's next receive: {@code dat_ib_post_rdma_write_immed(ep, size, lbuf, cookie, rbuf, idata, flgs)}.
     *
     * @param numSegments how many entries of {@code localIov} to write; 0 for a notification alone
     * @param localIov the local buffer; may be {@code null} when {@code numSegments} is 0
     * @param userCookie returned in the requester's completion
     * @param remoteBuffer the remote buffer to write; its length may be 0 with 0 segments
     * @param immediateData the 32-bit value the peer's receive completion carries
     * @param completionFlags {@link dat.api.CompletionFlags}, or-ed: those of
     *     {@code dat_ep_post_rdma_write(3DAT)}, and {@link dat.api.CompletionFlags#SOLICITED_WAIT}, as
     *     OFED dapl allows: the peer's receive completion is then a notification on a receive stream
     *     configured {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}, as a solicited send's (on
     *     InfiniBand, a solicited RDMA Write with Immediate); a provider whose IA does not declare
     *     that flag in {@code completion_flags_supported} posts an ordinary write
     * @return {@link dat.api.DatReturn#SUCCESS}; {@link dat.api.DatReturn#LENGTH_ERROR} when the
     *     remote buffer is smaller than the local one; {@link dat.api.DatReturn#INVALID_STATE} when
     *     the Endpoint is not connected; {@link dat.api.DatReturn#INSUFFICIENT_RESOURCES} when the
     *     request queue is full; the IOV errors of {@link dat.api.Endpoint}; {@link dat.api.DatReturn#INVALID_HANDLE}
     */
    int postRdmaWriteImmediate(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int immediateData, int completionFlags);
}
