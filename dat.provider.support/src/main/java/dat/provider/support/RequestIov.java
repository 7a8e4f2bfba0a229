package dat.provider.support;

import dat.api.EpAttributes;
import dat.api.RmrTriplet;

/** What a request may name on an Endpoint, as every provider checks it alike: how many local segments, which remote buffer. */
public final class RequestIov {

    private RequestIov() {
    }

    /**
     * The most segments of a request: {@code max_rdma_read_iov} for an RDMA read
     * (dat_ep_post_rdma_read(3DAT)), {@code max_request_iov} for a send (dat_ep_post_send(3DAT)),
     * {@code max_rdma_write_iov} for an RDMA write (dat_ep_post_rdma_write(3DAT)).
     *
     * @param attributes the Endpoint's attributes
     * @param rdmaRead whether the request is an RDMA read
     * @param send whether it is a send
     * @return the limit a post's {@code num_segments} is checked against
     */
    public static int max(EpAttributes attributes, boolean rdmaRead, boolean send) {
        return rdmaRead ? attributes.maxRdmaReadIov() : send ? attributes.maxRequestIov() : attributes.maxRdmaWriteIov();
    }

    /**
     * A remote buffer an RDMA request may name: given, and of a length no less than 0
     * (dat_ep_post_rdma_write(3DAT), dat_ep_post_rdma_read(3DAT): {@code DAT_INVALID_PARAMETER}).
     *
     * @param remote the request's remote buffer
     * @return whether it may be named
     */
    public static boolean isRemoteBuffer(RmrTriplet remote) {
        return remote != null && remote.segmentLength() >= 0;
    }
}
