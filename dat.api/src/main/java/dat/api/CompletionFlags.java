package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * How a posted operation completes, {@code DAT_COMPLETION_FLAGS}: the {@code completion_flags}
 * argument of the post operations and of {@code dat_rmr_bind}, and the Endpoint attributes
 * {@code recv_completion_flags} and {@code request_completion_flags}; a bit set.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_ep_post_send(3DAT), dat_ep_post_recv(3DAT),
 * dat_ep_post_rdma_read(3DAT), dat_ep_post_rdma_write(3DAT), dat_rmr_bind(3DAT),
 * dat_ep_create(3DAT).
 */
@ProviderType
public final class CompletionFlags {

    /** Complete with an event and a notification: {@code DAT_COMPLETION_DEFAULT_FLAG} = 0x00. */
    public static final int DEFAULT = 0x00;

    /**
     * Suppress the completion event if the operation succeeds: {@code DAT_COMPLETION_SUPPRESS_FLAG}
     * = 0x01.
     */
    public static final int SUPPRESS = 0x01;

    /**
     * The sender controls the notification of the receive completion (a solicited event):
     * {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG} = 0x02.
     */
    public static final int SOLICITED_WAIT = 0x02;

    /**
     * Complete with an event but without a notification: {@code DAT_COMPLETION_UNSIGNALLED_FLAG} =
     * 0x04.
     */
    public static final int UNSIGNALLED = 0x04;

    /**
     * Do not start until every earlier RDMA Read has completed:
     * {@code DAT_COMPLETION_BARRIER_FENCE_FLAG} = 0x08.
     */
    public static final int BARRIER_FENCE = 0x08;

    /**
     * uDAPL only, as the receive completion attribute of an Endpoint: waiters unblock according to
     * the threshold of {@code dat_evd_wait}; {@link #UNSIGNALLED} receives are then not allowed:
     * {@code DAT_COMPLETION_EVD_THRESHOLD_FLAG} = 0x10.
     */
    public static final int EVD_THRESHOLD = 0x10;

    /** Every bit DAT 1.2 defines for this type, the union of the constants above. */
    private static final int DEFINED_BITS =
            SUPPRESS | SOLICITED_WAIT | UNSIGNALLED | BARRIER_FENCE | EVD_THRESHOLD;

    /** Not instantiable: constants and static helpers only. */
    private CompletionFlags() {}

    /**
     * Whether a value sets only bits that DAT 1.2 defines for this type.
     *
     * @param flags a value to check
     * @return {@code true} if every bit it sets belongs to a constant of this class
     */
    public static boolean isValid(int flags) {
        return (flags & ~DEFINED_BITS) == 0;
    }
}
