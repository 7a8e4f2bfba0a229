package dat.provider.sim.internal.tcp;

import dat.api.Endpoint;
import dat.api.EventNumber;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import dat.provider.sim.internal.core.SimIa;

/**
 * The two ends of a TCP test: two providers (as two processes would have), each with one TCP IA
 * opened with the same {@code ia_params} and one {@link Fabric.Side} on it.
 */
final class TcpPair implements AutoCloseable {

    /**
     * {@code ia_params} without keepalives within a test's run: a lost wake-up of a writer would
     * otherwise end after a keepalive NOP (a third of the timeout) instead of failing the 5 s wait
     * for the next event.
     */
    static final String NO_KEEPALIVES = "tcp=127.0.0.1:0 tcp_timeout_ms=3600000";

    final Fabric fa;
    final Fabric fb;
    final Fabric.Side a;
    final Fabric.Side b;

    TcpPair(String iaParams, String nameA, String nameB, long bytes) {
        fa = new Fabric(ProviderSettings.defaults().limits(), iaParams);
        fb = new Fabric(ProviderSettings.defaults().limits(), iaParams);
        a = fa.new Side(nameA, null, bytes);
        b = fb.new Side(nameB, null, bytes);
    }

    /** Side b listens on {@code qualifier}, side a connects, {@code passive} takes the request: both ESTABLISHED. */
    void connect(long qualifier, Endpoint passive) {
        b.ia.createPublicServicePoint(qualifier, b.crEvd, PspFlag.CONSUMER);
        a.ep.connect(b.address(), qualifier, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(passive, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    /** The TCP transport of a side's IA. */
    static TcpTransport transport(Fabric.Side side) {
        return (TcpTransport) ((SimIa) side.ia).adapter().transport();
    }

    @Override
    public void close() {
        Fabric.closeAll(fa, fb);
    }
}
