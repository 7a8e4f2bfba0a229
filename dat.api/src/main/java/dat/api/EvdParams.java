package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The parameters of an Event Dispatcher, {@code DAT_EVD_PARAM}: see dat_evd_query(3DAT).
 *
 * @param ia the IA of the EVD
 * @param qlen the queue length, at least the requested one ({@code evd_qlen})
 * @param state the {@link EvdState} bits: enabled or disabled, waitable or unwaitable, and the
 *     notification configuration
 * @param cno the CNO the EVD notifies, or {@code null}
 * @param flags the event streams the EVD takes ({@link EvdFlags}, or-ed)
 */
@ProviderType
public record EvdParams(InterfaceAdapter ia, int qlen, int state, ConsumerNotificationObject cno, int flags) {
}
