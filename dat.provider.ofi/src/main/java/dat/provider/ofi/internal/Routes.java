package dat.provider.ofi.internal;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;

/** What the IP stack says about a destination before a connect. */
final class Routes {

    private Routes() {
    }

    /**
     * Whether the IP stack has a route from the IA's address to {@code remote}: a destination the
     * IA cannot route to is one the provider "can locally determine" unreachable:
     * {@code DAT_INVALID_ADDRESS} (dat_ep_connect(3DAT)). A probe that cannot be made decides nothing.
     */
    static boolean routable(InetAddress local, InetAddress remote) {
        if (local.isLoopbackAddress() != remote.isLoopbackAddress()) {
            return false; // loopback reaches only loopback
        }
        StandardProtocolFamily family = remote instanceof Inet6Address ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
        try (DatagramChannel probe = DatagramChannel.open(family)) {
            probe.bind(new InetSocketAddress(local, 0));
            try {
                probe.connect(new InetSocketAddress(remote, 9)); // a UDP connect only looks the route up
            } catch (SocketException e) {
                return false; // ENETUNREACH, EHOSTUNREACH
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }
}
