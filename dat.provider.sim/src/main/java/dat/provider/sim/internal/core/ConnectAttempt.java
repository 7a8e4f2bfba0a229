package dat.provider.sim.internal.core;

import dat.api.EpAttributes;
import dat.api.EventNumber;
import java.net.InetSocketAddress;

/**
 * One connection establishment: what dat_ep_connect(3DAT) sends to the remote Service Point, and
 * the state both ends share until it ends (established, rejected, timed out, aborted). All its
 * state changes happen under the provider's connection-management lock.
 *
 * <p>On the passive side of a transport connection {@link #active} is {@code null}: the active
 * Endpoint is in another IA, reached only through the {@link #link}.
 */
public final class ConnectAttempt {

    /** Where the attempt stands. */
    public enum State { PENDING, DELIVERED, ESTABLISHED, FAILED }

    final SimEndpoint active;
    public final InetSocketAddress activeAddress;
    public final long activePortQual;
    public final InetSocketAddress remoteAddress;
    public final long remoteQual;
    public final byte[] privateData;
    public final int qos;
    public final EpAttributes activeAttributes;
    public State state = State.PENDING;
    Conductor.Timer timer;
    /** The CR delivered to the passive side, while one is pending. */
    SimCr cr;
    /** How the request travels and its answer comes back; set as the request leaves. */
    public AttemptLink link;
    /**
     * Whether the request reached the remote IA's host: a timeout before is UNREACHABLE (the
     * remote host did not respond, dat_ep_connect(3DAT)), after it TIMED_OUT. Set without the CM
     * lock, read by the timeout under it.
     */
    public volatile boolean reached;

    /**
     * An attempt.
     *
     * @param active the active Endpoint, or {@code null} on the passive side of a transport
     * @param activeAddress the active IA's address
     * @param activePortQual the active side's port qualifier
     * @param remoteAddress the passive IA's address
     * @param remoteQual the connection qualifier asked for
     * @param privateData the request's private data, never {@code null}
     * @param qos the QoS asked for
     * @param activeAttributes the active Endpoint's attributes, or {@code null} when unknown
     */
    public ConnectAttempt(SimEndpoint active, InetSocketAddress activeAddress, long activePortQual,
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

    /** The active Endpoint, or {@code null} on the passive side of a transport. */
    public SimEndpoint active() {
        return active;
    }

    /** Whether the active side still waits for this attempt's outcome. */
    public boolean live() {
        return (state == State.PENDING || state == State.DELIVERED) && (active == null || active.connection.attempt == this);
    }

    /**
     * Ends the attempt unsuccessfully: the active Endpoint gets the event and moves to
     * DISCONNECTED (across a transport, the answer goes back to it). Does nothing but drop the
     * link when the attempt is no longer live. Under the CM lock.
     *
     * @param eventNumber the connection event to report
     */
    public void fail(int eventNumber) {
        boolean wasLive = live();
        state = State.FAILED;
        if (active == null) {
            link.refuse(this, eventNumber, wasLive);
            return;
        }
        if (wasLive) {
            if (timer != null) {
                timer.cancel();
            }
            active.connection.activeConnectFailed(eventNumber);
        }
        dropLink();
    }

    /** Ends the attempt without an event (abort, free, hot swap) and drops its link. */
    public void abandon() {
        state = State.FAILED;
        if (timer != null) {
            timer.cancel();
        }
        dropLink();
    }

    private void dropLink() {
        AttemptLink l = link;
        if (l != null) {
            l.drop(this);
        }
    }

    /** The request's answer: accepted or refused; the passive side's error for any other. */
    static int refusal(int eventNumber) {
        return eventNumber == EventNumber.CONNECTION_EVENT_PEER_REJECTED ? eventNumber : EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED;
    }
}
