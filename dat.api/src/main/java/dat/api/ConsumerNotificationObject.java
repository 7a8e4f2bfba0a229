package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A Consumer Notification Object (CNO, {@code DAT_CNO_HANDLE}): one place to wait for events of
 * several EVDs. An enabled EVD attached to the CNO triggers it when a notification event arrives.
 * Create one with {@link InterfaceAdapter#createNotificationObject}.
 *
 * <p>See dat_cno_create(3DAT), dat_cno_wait(3DAT), dat_cno_modify_agent(3DAT),
 * dat_cno_query(3DAT), dat_cno_free(3DAT).
 */
@ProviderType
public interface ConsumerNotificationObject extends DatHandle {

    /**
     * Waits until an attached EVD triggers the CNO: {@code dat_cno_wait(3DAT)}.
     *
     * @param timeoutMicros the wait in microseconds, or {@link DatConstants#TIMEOUT_INFINITE}
     * @return the EVD that triggered the CNO (a hint: poll every EVD attached), or {@code null}
     *     when the IA was destroyed or every EVD of the CNO was freed during the wait (the C
     *     {@code DAT_HANDLE_NULL})
     * @throws DatException {@link DatReturn#QUEUE_EMPTY} when the timeout expired without a
     *     notification (the page's code for a timeout);
     *     {@link DatReturn#INTERRUPTED_CALL} when the thread was interrupted;
     *     {@link DatReturn#INVALID_PARAMETER} for a bad timeout; {@link DatReturn#INVALID_HANDLE}
     */
    EventDispatcher await(long timeoutMicros);

    /**
     * Replaces the OS wait proxy agent: {@code dat_cno_modify_agent(3DAT)}.
     *
     * @param agent the new agent, or {@code null} for none
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    void modifyAgent(WaitProxyAgent agent);

    /**
     * The CNO parameters: {@code dat_cno_query(3DAT)}.
     *
     * @param cnoParamMask the {@link CnoParamMask} bits wanted
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad mask;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    CnoParams query(int cnoParamMask);

    /**
     * All CNO parameters.
     *
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    default CnoParams query() {
        return query(CnoParamMask.ALL);
    }

    /**
     * Frees the CNO: {@code dat_cno_free(3DAT)}.
     *
     * @throws DatException {@link DatReturn#INVALID_STATE} while an EVD is attached or a thread
     *     waits on it
     */
    @Override
    void close();
}
