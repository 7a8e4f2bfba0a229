package dat.provider.support;

import dat.api.CompletionFlags;
import dat.api.EpAttributes;

/** The completion flags a DTO post may carry on an Endpoint, as every provider checks them alike. */
public final class PostFlags {

    private PostFlags() {
    }

    /**
     * Whether a send or RDMA request may carry these flags (dat_ep_post_send(3DAT),
     * dat_ep_post_rdma_write(3DAT), dat_ep_post_rdma_read(3DAT)): defined bits, no
     * {@code DAT_COMPLETION_EVD_THRESHOLD_FLAG}, {@code SOLICITED_WAIT} only on a request that
     * completes a receive of the peer: a send, or an RDMA write with immediate data, whose flags OFED
     * dapl's {@code dapls_ib_post_ext_send} turns into a solicited work request too (the RDMA, atomic
     * and bind pages list suppress, unsignalled and barrier fence; dapl marks its atomics solicited
     * as well, but an atomic completes no receive at the peer, so the flag would mean nothing there);
     * and {@code UNSIGNALLED} only on a request stream configured for it.
     *
     * @param completionFlags the post's flags
     * @param attributes the Endpoint's attributes
     * @param solicitable whether the request completes a receive of the peer (a send, a write with immediate data)
     * @return whether the flags are valid
     */
    public static boolean isValidRequest(int completionFlags, EpAttributes attributes, boolean solicitable) {
        return CompletionFlags.isValid(completionFlags) && (completionFlags & CompletionFlags.EVD_THRESHOLD) == 0
                && (solicitable || (completionFlags & CompletionFlags.SOLICITED_WAIT) == 0)
                && ((completionFlags & CompletionFlags.UNSIGNALLED) == 0
                        || (attributes.requestCompletionFlags() & CompletionFlags.UNSIGNALLED) != 0);
    }

    /**
     * Whether a receive may carry these flags (dat_ep_post_recv(3DAT)): the default, or
     * {@code UNSIGNALLED} on a receive stream configured for it.
     *
     * @param completionFlags the post's flags
     * @param attributes the Endpoint's attributes
     * @return whether the flags are valid
     */
    public static boolean isValidRecv(int completionFlags, EpAttributes attributes) {
        return completionFlags == CompletionFlags.DEFAULT
                || completionFlags == CompletionFlags.UNSIGNALLED && (attributes.recvCompletionFlags() & CompletionFlags.UNSIGNALLED) != 0;
    }
}
