package dat.provider.sim.internal.core;

/**
 * How one connection request travels to its Service Point and how the answer goes back: the
 * in-JVM fabric, or a transport connection. A {@link ConnectAttempt} holds its link from the
 * moment the request leaves until the attempt ends. All calls come with the provider's CM lock
 * held and must not block.
 */
public interface AttemptLink {

    /**
     * dat_cr_accept(3DAT): the passive Endpoint takes the request. The link connects it, or, over
     * a transport, sends the acceptance and leaves the Endpoint waiting for the active side's
     * confirmation.
     *
     * @param attempt the live attempt
     * @param passive the accepting Endpoint
     * @param acceptData the private data of the accept, or {@code null}
     */
    void accept(ConnectAttempt attempt, SimEndpoint passive, byte[] acceptData);

    /**
     * The passive side refuses an attempt whose active Endpoint is across a transport (no
     * listener, a full backlog, a QoS, the consumer's reject): the answer goes back.
     *
     * @param attempt the attempt
     * @param eventNumber the connection event the active side reports
     * @param wasLive whether the attempt was still live (else the link is just dropped)
     */
    void refuse(ConnectAttempt attempt, int eventNumber, boolean wasLive);

    /**
     * The attempt ended without a connection (its failure, abort, timeout, the Endpoint's free, the
     * hot swap): whatever the link holds for it goes.
     *
     * @param attempt the attempt
     */
    void drop(ConnectAttempt attempt);
}
