package dat.api.ext;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The data transfer operations {@link IaStatistics} counts, one per posting call of the API and
 * its extensions.
 */
@ProviderType
public enum Operation {
    /** {@code dat_ep_post_send(3DAT)}. */
    SEND,
    /** {@code dat_ep_post_recv(3DAT)} and {@code dat_srq_post_recv(3DAT)}. */
    RECEIVE,
    /** {@code dat_ep_post_rdma_read(3DAT)}. */
    RDMA_READ,
    /** {@code dat_ep_post_rdma_write(3DAT)}. */
    RDMA_WRITE,
    /** {@code dat_rmr_bind(3DAT)}. */
    RMR_BIND,
    /** {@link AtomicEndpoint#postFetchAndAdd} ({@code dat_ib_post_fetch_and_add}). */
    FETCH_AND_ADD,
    /** {@link AtomicEndpoint#postCompareAndSwap} ({@code dat_ib_post_cmp_and_swap}). */
    COMPARE_AND_SWAP,
    /** {@link ImmediateDataEndpoint#postRdmaWriteImmediate} ({@code dat_ib_post_rdma_write_immed}). */
    RDMA_WRITE_IMMEDIATE
}
