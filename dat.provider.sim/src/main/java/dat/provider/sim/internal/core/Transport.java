package dat.provider.sim.internal.core;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * How an IA reaches other IAs: where dat_ep_connect(3DAT) sends its request, and what else the
 * DAT objects must ask of the bytes in flight. Every IA of a provider that has no transport of its
 * own shares the provider's in-JVM fabric; an IA configured with {@code tcp=} has a TCP transport
 * of its own, which reaches every IA, even one of its own provider, over its sockets.
 */
public interface Transport {

    /**
     * Sends the attempt's request towards {@link ConnectAttempt#remoteAddress}; the answer comes
     * back through the {@link ConnectAttempt#link} it sets. Called under the CM lock; never blocks.
     *
     * @param attempt the new attempt
     * @throws RuntimeException when nothing can carry the request (the Endpoint stays UNCONNECTED)
     */
    void connect(ConnectAttempt attempt);

    /**
     * dat_lmr_free(3DAT): the LMR over {@code memory} is marked freed; returns once this transport
     * moves no byte of it any more. Called without the CM lock.
     *
     * @param memory the freed LMR's memory
     */
    default void fence(MemorySegment memory) {
    }

    /**
     * An RMR's binding was revoked (dat_rmr_bind, dat_rmr_free; its context is invalid already):
     * returns once no byte moves through it any more.
     *
     * @param window the revoked binding
     */
    default void awaitCopiesThrough(RemoteWindow window) {
    }

    /**
     * Stops the transport: closes its connections and ends its threads (the hot swap, the last
     * close of an IA set up by dat_provider_init).
     *
     * @return whether its threads ended in time
     */
    default boolean close() {
        return true;
    }

    /**
     * The last open instance of the IA closed: what the transport keeps for the IA's next
     * connections goes (a TCP transport's idle sockets, and the ring files they keep mapped).
     */
    default void unused() {
    }

    /** What the IA's attributes report as its fabric ({@code transport_specific_attr} "fabric"). */
    String fabricName();

    /**
     * What else the IA's {@code transport_specific_attr} report, read at each dat_ia_query: a TCP
     * transport's shared-memory mode and how many of its connections went over which wire.
     */
    default java.util.Map<String, String> attributes() {
        return java.util.Map.of();
    }

    /** A transport that owns its IA's address: a listening socket, bound before the IA exists. */
    interface Bound extends Transport {

        /** The bound address: the IA address. */
        InetSocketAddress address();

        /**
         * Starts serving requests for the adapter, which needed the bound address first.
         *
         * @param adapter the IA's adapter
         */
        void start(Adapter adapter);
    }

    /** Makes the transports of a provider; the provider's only way to reach its wires. */
    interface Factory {

        /**
         * The in-JVM fabric of a provider, shared by its IAs that have no transport of their own.
         *
         * @param provider the provider
         * @return the fabric
         */
        Transport inJvm(SimProvider provider);

        /**
         * A TCP transport: its listening socket bound, not started.
         *
         * @param bind the address to listen on
         * @param limits the IA's limits
         * @param adapterName the IA name, for thread names
         * @param timeoutMs the liveness timeout, or 0 for the default
         * @param spinMicros how long a consumer waiting on this IA's EVDs polls its sockets before it sleeps, or -1 for the default
         * @param shm the {@code shm} key of the {@code ia_params} (shared memory between IAs on one host), or {@code null}
         * @return the transport
         * @throws dat.api.DatException {@code DAT_INVALID_PARAMETER} when the address cannot be bound, or
         *     {@code shm} is not a mode
         */
        Bound tcp(InetSocketAddress bind, SimLimits limits, String adapterName, long timeoutMs, long spinMicros, String shm);
    }
}
