package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A snapshot of an Endpoint: see dat_ep_get_status(3DAT). No synchronization with DTO processing
 * is implied.
 *
 * @param state the Endpoint state
 * @param recvIdle {@code true} when no receive is outstanding or in progress
 * @param requestIdle {@code true} when no send, RDMA operation or RMR bind is outstanding or in
 *     progress
 */
@ProviderType
public record EpStatus(EpState state, boolean recvIdle, boolean requestIdle) {
}
