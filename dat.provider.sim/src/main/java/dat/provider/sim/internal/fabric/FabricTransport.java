package dat.provider.sim.internal.fabric;

import dat.api.EventNumber;
import dat.provider.sim.internal.core.Adapter;
import dat.provider.sim.internal.core.AttemptLink;
import dat.provider.sim.internal.core.ConnectAttempt;
import dat.provider.sim.internal.core.EpConnection;
import dat.provider.sim.internal.core.SimEndpoint;
import dat.provider.sim.internal.core.SimProvider;
import dat.provider.sim.internal.core.Transport;

/**
 * The in-JVM fabric of one provider: a connection request goes, on the thread of its
 * dat_ep_connect, to the IA that holds the remote address (one of this provider's, in this JVM),
 * and an accepted connection joins the two Endpoints with a {@link FabricWire}. An address that no
 * IA of the provider holds is unreachable.
 */
public final class FabricTransport implements Transport, AttemptLink {

    private final SimProvider provider;

    /**
     * The fabric of a provider.
     *
     * @param provider the provider whose IAs it joins
     */
    public FabricTransport(SimProvider provider) {
        this.provider = provider;
    }

    @Override
    public void connect(ConnectAttempt attempt) {
        attempt.link = this;
        attempt.reached = true; // no host to reach in one JVM: a silent passive side times out
        // on the connecting thread, under the CM lock dat_ep_connect holds: no other thread is
        // woken to carry the request, and the passive side's consumer finds it queued at once
        Adapter remote = provider.isClosed() ? null : provider.resolveLocal(attempt.remoteAddress);
        if (remote == null) {
            attempt.fail(EventNumber.CONNECTION_EVENT_UNREACHABLE);
        } else {
            remote.deliver(attempt);
        }
    }

    @Override
    public void accept(ConnectAttempt attempt, SimEndpoint passive, byte[] acceptData) {
        SimEndpoint active = attempt.active();
        EpConnection.connectLocal(attempt, passive, new FabricWire(active, passive), acceptData);
    }

    @Override
    public void refuse(ConnectAttempt attempt, int eventNumber, boolean wasLive) {
        // every attempt of this fabric has its active Endpoint here: ConnectAttempt.fail reports it
    }

    @Override
    public void drop(ConnectAttempt attempt) {
        // nothing is held for an attempt in flight
    }

    @Override
    public String fabricName() {
        return "in-jvm";
    }
}
