package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Receive-buffer consumption of an Endpoint: see dat_ep_recv_query(3DAT).
 *
 * @param nbufsAllocated receive buffers taken by the Endpoint and not yet completed, or
 *     {@link DatConstants#VALUE_UNKNOWN}
 * @param bufsAllocSpan the bytes those buffers span, or {@link DatConstants#VALUE_UNKNOWN}
 */
@ProviderType
public record EpRecvInfo(int nbufsAllocated, int bufsAllocSpan) {
}
