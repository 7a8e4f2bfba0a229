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
    /**
     * The TCP connection carrying this attempt, or {@code null} in the in-JVM fabric. On the
     * passive side of a TCP connection {@link #active} is {@code null}: the active Endpoint is in
     * another IA, reached only through this wire.
     */
    TcpConnection wire;
    /**
     * Over TCP, whether the active side's socket connected: a timeout before is UNREACHABLE (the
     * remote host did not respond, dat_ep_connect(3DAT)), after it TIMED_OUT. Set by the
     * connection's thread without the CM lock, read by the timeout under it.
     */
    volatile boolean reached;

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
        return (state == State.PENDING || state == State.DELIVERED) && (active == null || active.attempt == this);
    }

    /**
     * Ends the attempt unsuccessfully: the active Endpoint gets the event and moves to
     * DISCONNECTED. Does nothing when the attempt is no longer live.
     *
     * @param eventNumber the connection event to report
     */
    void fail(int eventNumber) {
        if (active == null) {
            // the passive side of a TCP connection: the answer travels back over the wire
            boolean wasLive = live();
            state = State.FAILED;
            if (wasLive) {
                wire.reject(eventNumber == dat.api.EventNumber.CONNECTION_EVENT_PEER_REJECTED
                        ? TcpFrame.REJECT_PEER : TcpFrame.REJECT_NON_PEER);
            } else {
                wire.close();
            }
            return;
        }
        if (!live()) {
            state = State.FAILED;
            closeWire();
            return;
        }
        state = State.FAILED;
        if (timer != null) {
            timer.cancel();
        }
        active.activeConnectFailed(this, eventNumber);
        closeWire();
    }

    /** Ends the attempt without an event (abort, free, hot swap) and drops its connection, if any. */
    void abandon() {
        state = State.FAILED;
        if (timer != null) {
            timer.cancel();
        }
        closeWire();
    }

    private void closeWire() {
        if (wire != null) {
            wire.close();
        }
    }
}
