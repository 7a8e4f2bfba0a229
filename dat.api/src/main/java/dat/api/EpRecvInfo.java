package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Receive-buffer consumption of an Endpoint: see dat_ep_recv_query(3DAT).
 *
 * @param nbufsAllocated receive buffers allocated to the Endpoint whose completions have not been
 *     generated yet (posted to it; for an Endpoint of an SRQ, taken from the SRQ), or
 *     {@link DatConstants#VALUE_UNKNOWN}
 * @param bufsAllocSpan the span of those buffers: how many more receive completions the Endpoint
 *     can generate if every message it is receiving completes successfully, or
 *     {@link DatConstants#VALUE_UNKNOWN}
 */
@ProviderType
public record EpRecvInfo(int nbufsAllocated, int bufsAllocSpan) {
}
