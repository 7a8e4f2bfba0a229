package dat.provider.sim.internal;

import java.net.InetSocketAddress;

/**
 * The seam between the sim provider and the in-JVM fabric ({@link SimProvider#resolveLocal}): an
 * IA address it knows is an IA of this provider in this JVM, and the two Endpoints of a connection
 * exchange data by direct memory copies. IAs configured with {@code tcp=} do not resolve through
 * here: their connection attempts go to their adapter's {@link TcpTransport}, and the passive side
 * of such a connection is a {@link ConnectAttempt} whose active Endpoint is on the other end of a
 * {@link TcpConnection}.
 */
interface Transport {

    /**
     * Finds the IA at an address.
     *
     * @param address a well-formed IA address
     * @return the remote IA, or {@code null} when this transport cannot reach it
     */
    RemoteAdapter resolve(InetSocketAddress address);

    /** An IA reached through a transport: what the active side of a connection needs of it. */
    interface RemoteAdapter {

        /** The IA's address. */
        InetSocketAddress address();

        /**
         * Delivers a connection request to the Service Point on the attempt's qualifier, or
         * rejects it. Called with the connection-management lock held.
         *
         * @param attempt the request
         */
        void deliver(ConnectAttempt attempt);
    }
}
