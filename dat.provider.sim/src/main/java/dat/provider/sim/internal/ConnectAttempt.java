package dat.provider.sim.internal;

import dat.api.EpAttributes;
import java.net.InetSocketAddress;

/**
 * One connection establishment: what dat_ep_connect(3DAT) sends to the remote Service Point, and
 * the state both ends share until it ends (established, rejected, timed out, aborted). All its
 * state changes happen under the provider's connection-management lock.
 */
final class ConnectAttempt {

    enum State { PENDING, DELIVERED, ESTABLISHED, FAILED }

    final SimEndpoint active;
    final InetSocketAddress activeAddress;
    final long activePortQual;
    final InetSocketAddress remoteAddress;
    final long remoteQual;
    final byte[] privateData;
    final int qos;
    final EpAttributes activeAttributes;
    State state = State.PENDING;
    Conductor.Timer timer;
    /** The CR delivered to the passive side, while one is pending. */
    SimCr cr;

    ConnectAttempt(SimEndpoint active, InetSocketAddress activeAddress, long activePortQual,
            InetSocketAddress remoteAddress, long remoteQual, byte[] privateData, int qos, EpAttributes activeAttributes) {
        this.active = active;
        this.activeAddress = activeAddress;
        this.activePortQual = activePortQual;
        this.remoteAddress = remoteAddress;
        this.remoteQual = remoteQual;
        this.privateData = privateData;
        this.qos = qos;
        this.activeAttributes = activeAttributes;
    }

    /** Whether the active side still waits for this attempt's outcome. */
    boolean live() {
        return (state == State.PENDING || state == State.DELIVERED) && active.attempt == this;
    }

    /**
     * Ends the attempt unsuccessfully: the active Endpoint gets the event and moves to
     * DISCONNECTED. Does nothing when the attempt is no longer live.
     *
     * @param eventNumber the connection event to report
     */
    void fail(int eventNumber) {
        if (!live()) {
            state = State.FAILED;
            return;
        }
        state = State.FAILED;
        if (timer != null) {
            timer.cancel();
        }
        active.activeConnectFailed(this, eventNumber);
    }
}
