package dat.provider.sim.internal.core;

/**
 * How the bytes of one connection move: the seam between an Endpoint (its work queues and its
 * connection state machine, {@link SimEndpoint}) and the fabric that joins it to its peer. The
 * in-JVM fabric executes requests by copying between the two Endpoints' memory; the TCP wire
 * turns them into frames. An Endpoint holds its wire from the establishment of its connection
 * until it leaves it, and never asks which kind it holds.
 *
 * <p>Every method but {@link #transmitNow} is called with the Endpoint's lock held
 * ({@link SimEndpoint#acquire}), {@link #receivesAvailable} with the lock of the Endpoint that
 * sends into the receives (a local peer's, else the Endpoint's own), and none may block.
 */
public interface Wire {

    /**
     * Requests were queued on {@code ep} (a post, a bind, or requests carried on after a
     * completion): move them now or soon.
     *
     * @param ep the Endpoint on this wire whose queue grew
     * @param posted whether a consumer's post queued them, on its own thread
     * @return whether the caller is to call {@link #transmitNow} once it released the lock
     */
    boolean requestsQueued(SimEndpoint ep, boolean posted);

    /**
     * A posting thread, after {@link #requestsQueued} asked for it and the Endpoint's lock was
     * released: moves the request it posted itself when it can. A wire with a local peer is also
     * called after {@link #receivesAvailable} carried the peer's queue on, for the peer, once its
     * lock was released. Never blocks on the peer, never throws.
     *
     * @param ep the Endpoint
     */
    default void transmitNow(SimEndpoint ep) {
    }

    /**
     * A receive buffer became available to {@code ep}: posted to it, or to its SRQ while a
     * message for it waited. With the lock of the sender into {@code ep} held: the local peer's
     * ({@link #localPeer}), else {@code ep}'s.
     *
     * @param ep the receiving Endpoint
     */
    void receivesAvailable(SimEndpoint ep);

    /**
     * The other Endpoint of the connection when it is in this JVM and moves with this one: its
     * sends take this Endpoint's receives under its own lock, and the two disconnect together
     * with both locks held ({@link SimEndpoint#lockConnection}); {@code null} when the peer is
     * reached through a transport, where the peer learns of the end from the wire.
     *
     * @param ep one end
     * @return the other end, or {@code null}
     */
    SimEndpoint localPeer(SimEndpoint ep);

    /**
     * {@code ep} leaves this wire (a disconnect, a break, a flush, the hot swap): no byte of its
     * requests moves after this returns, and none lands in its buffers. With the Endpoint's lock
     * and the CM lock held, after the Endpoint stopped naming this wire.
     *
     * @param ep the Endpoint that leaves
     * @param broken whether the connection breaks (the peer sees it broken, not disconnected)
     * @return a receive the wire had taken from the Endpoint and not completed, which the caller
     *     completes flushed before those still queued; or {@code null}
     */
    Wr.Recv leave(SimEndpoint ep, boolean broken);
}
