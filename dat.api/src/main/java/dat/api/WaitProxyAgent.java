package dat.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * An OS wait proxy agent, {@code DAT_OS_WAIT_PROXY_AGENT}: a consumer callback a CNO calls when
 * it triggers, instead of (or besides) waking a {@link ConsumerNotificationObject#await} waiter.
 * The C {@code instance_data} is whatever the implementation captures.
 *
 * <p>The provider calls it on one of its own threads; it must return quickly.
 *
 * <p>See dat_cno_create(3DAT), dat_cno_modify_agent(3DAT).
 */
@ConsumerType
@FunctionalInterface
public interface WaitProxyAgent {

    /**
     * Called when the CNO triggers ({@code proxy_agent_func}).
     *
     * @param evd the EVD whose event triggered the CNO
     */
    void notify(EventDispatcher evd);
}
