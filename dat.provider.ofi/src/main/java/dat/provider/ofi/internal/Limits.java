package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.Structs;
import java.lang.foreign.MemorySegment;

/**
 * What an IA's {@code struct fi_info} says about its provider and domain, read once at open, and
 * the DAT limits the provider derives from it. libfabric's counts ({@code cq_cnt}, {@code ep_cnt},
 * queue sizes) are the provider's optimum rather than hard maxima; the DAT provider enforces them
 * as its limits, so that its attributes state what it does.
 *
 * @param caps the info's capabilities
 * @param txSize the transmit context's size ({@code tx_attr->size})
 * @param rxSize the receive context's size
 * @param iovLimit the IOV entries of one send or RMA ({@code tx_attr->iov_limit})
 * @param recvIovLimit the IOV entries of one receive
 * @param maxMessageSize {@code ep_attr->max_msg_size}
 * @param injectSize {@code tx_attr->inject_size}
 * @param cqCount {@code domain_attr->cq_cnt}
 * @param endpointCount {@code domain_attr->ep_cnt}
 * @param srxCount {@code domain_attr->max_ep_srx_ctx}: 0 when there are no shared receive contexts
 * @param cqData what its remote CQ data carries
 * @param mrMode {@code domain_attr->mr_mode} as the provider requires it
 * @param mrKeySize {@code domain_attr->mr_key_size}
 * @param threadSafe whether {@code domain_attr->threading} is {@code FI_THREAD_SAFE}
 * @param dataProgress {@code domain_attr->data_progress}
 * @param cmDataSize the private data a CM message carries ({@code FI_OPT_CM_DATA_SIZE})
 * @param msgOrder {@code tx_attr->msg_order}
 */
record Limits(long caps, long txSize, long rxSize, int iovLimit, int recvIovLimit, long maxMessageSize, long injectSize,
        int cqCount, int endpointCount, int srxCount, RemoteCqData cqData, int mrMode, long mrKeySize, boolean threadSafe,
        int dataProgress, long cmDataSize, long msgOrder) {

    /** The most IOV entries the provider hands libfabric in one DTO, whatever the provider allows. */
    static final int MAX_IOV = 16;
    /** The largest DAT queue of an Endpoint or SRQ. */
    private static final int MAX_QUEUE = 1 << 16;
    /** The longest EVD queue: the ring of each DTO EVD is native memory of 40 bytes per entry. */
    private static final int MAX_EVD_QLEN = 1 << 20;
    /** The DAT objects that live only in Java (PZs, CNOs): a bound, so that {@code max_pzs} states one. */
    private static final int MAX_JAVA_OBJECTS = 1 << 16;
    /** The most LMRs: each is a libfabric registration, looked up by its context on every post. */
    private static final int MAX_LMRS = 1 << 14;

    static Limits of(MemorySegment info, long cmDataSize) {
        MemorySegment tx = Discovery.attr(info, Structs.INFO_TX_ATTR, Structs.FI_TX_ATTR);
        MemorySegment rx = Discovery.attr(info, Structs.INFO_RX_ATTR, Structs.FI_RX_ATTR);
        MemorySegment ep = Discovery.attr(info, Structs.INFO_EP_ATTR, Structs.FI_EP_ATTR);
        MemorySegment domain = Discovery.attr(info, Structs.INFO_DOMAIN_ATTR, Structs.FI_DOMAIN_ATTR);
        return new Limits(info.get(JAVA_LONG, Structs.INFO_CAPS), tx.get(JAVA_LONG, Structs.TX_SIZE),
                rx.get(JAVA_LONG, Structs.RX_SIZE), clamp(tx.get(JAVA_LONG, Structs.TX_IOV_LIMIT), MAX_IOV),
                clamp(rx.get(JAVA_LONG, Structs.RX_IOV_LIMIT), MAX_IOV), ep.get(JAVA_LONG, Structs.EP_ATTR_MAX_MSG_SIZE),
                tx.get(JAVA_LONG, Structs.TX_INJECT_SIZE), clamp(domain.get(JAVA_LONG, Structs.DOMAIN_ATTR_CQ_CNT), MAX_QUEUE),
                clamp(domain.get(JAVA_LONG, Structs.DOMAIN_ATTR_EP_CNT), MAX_QUEUE),
                clamp(domain.get(JAVA_LONG, Structs.DOMAIN_ATTR_MAX_EP_SRX_CTX), MAX_QUEUE),
                RemoteCqData.of(info), domain.get(JAVA_INT, Structs.DOMAIN_ATTR_MR_MODE),
                domain.get(JAVA_LONG, Structs.DOMAIN_ATTR_MR_KEY_SIZE),
                domain.get(JAVA_INT, Structs.DOMAIN_ATTR_THREADING) == Fi.THREAD_SAFE,
                domain.get(JAVA_INT, Structs.DOMAIN_ATTR_DATA_PROGRESS), cmDataSize, tx.get(JAVA_LONG, Structs.TX_MSG_ORDER));
    }

    /** An unsigned {@code size_t} limit as an {@code int}: 0 stays 0, anything above {@code max} is {@code max}. */
    private static int clamp(long value, int max) {
        return value < 0 || value > max ? max : (int) value;
    }

    /** The deepest request or receive queue of an Endpoint: libfabric's transmit and receive context sizes. */
    int maxDtosPerEp() {
        long size = Math.min(txSize, rxSize);
        return size <= 0 ? 256 : (int) Math.min(size, MAX_QUEUE);
    }

    int maxEvdQlen() {
        return MAX_EVD_QLEN;
    }

    /** {@code max_evds}: EVDs with a CQ and without, bounded by the domain's {@code cq_cnt}. */
    int maxEvds() {
        return cqCount <= 0 ? 256 : cqCount;
    }

    int maxEps() {
        return endpointCount <= 0 ? 1024 : endpointCount;
    }

    int maxPzs() {
        return MAX_JAVA_OBJECTS;
    }

    int maxLmrs() {
        return MAX_LMRS;
    }

    /** {@code max_rmrs}: each bound RMR is a registration as an LMR is, and they share the IA's numbers. */
    int maxRmrs() {
        return MAX_LMRS;
    }

    int maxSrqs() {
        return srxCount;
    }

    /** The largest message or RDMA transfer: {@code max_msg_size}, at most 1 GiB (an IOV segment is at most 4 GiB - 1). */
    long maxMessage() {
        return maxMessageSize <= 0 || maxMessageSize > (1L << 30) ? 1L << 30 : maxMessageSize;
    }

    /** The private data a consumer may pass: the CM data size less the provider's 9 bytes, at most 255. */
    int maxPrivateData() {
        return (int) Math.max(0, Math.min(255, cmDataSize - 1 - PrivateData.TRAILER));
    }
}
