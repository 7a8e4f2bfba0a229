package dat.example.provider.internal;

import dat.api.CnoParams;
import dat.api.ConsumerNotificationObject;
import dat.api.EventDispatcher;
import dat.api.WaitProxyAgent;

/**
 * A metered CNO. The consumer's wait proxy agent is called with the decorating EVD: the underlying
 * provider gets a translating agent instead.
 */
final class MeteredCno extends MeteredHandle<ConsumerNotificationObject> implements ConsumerNotificationObject {

    /** The agent the underlying provider calls: it names the consumer's EVD to the consumer's agent. */
    record Agent(WaitProxyAgent consumerAgent, Handles handles) implements WaitProxyAgent {
        @Override
        public void notify(EventDispatcher evd) {
            consumerAgent.notify(handles.evd(evd));
        }
    }

    /** The agent to give the underlying provider: {@code null} for {@code null}. */
    static Agent translating(WaitProxyAgent agent, Handles handles) {
        return agent == null ? null : new Agent(agent, handles);
    }

    private volatile WaitProxyAgent agent;

    MeteredCno(ConsumerNotificationObject underlying, MeteredIa ia, WaitProxyAgent agent) {
        super(underlying, ia);
        this.agent = agent;
    }

    @Override
    public EventDispatcher await(long timeoutMicros) {
        checkUsable();
        return ia.handles.evd(u.await(timeoutMicros));
    }

    @Override
    public void modifyAgent(WaitProxyAgent newAgent) {
        checkUsable();
        u.modifyAgent(translating(newAgent, ia.handles));
        agent = newAgent;
    }

    @Override
    public CnoParams query(int cnoParamMask) {
        checkUsable();
        CnoParams p = u.query(cnoParamMask);
        return new CnoParams(ia.handles.ia(p.ia()), p.agent() == null ? null : agent);
    }
}
