package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import java.net.Socket;
import org.junit.jupiter.api.AfterEach;

/**
 * The fixture of the tests whose peer is played with a plain socket: one provider with a liveness
 * timeout of 300 ms and its IA's side, and the raw peer's socket of the test, closed after it.
 */
abstract class AgainstRawPeer {

    final Fabric fa = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=300");
    final Fabric.Side a = fa.new Side("tcpF", null, 1 << 20);
    /** The test's raw peer, once it has one. */
    Socket rawPeer;

    @AfterEach
    void closeRawPeerAndProvider() throws Exception {
        if (rawPeer != null) {
            rawPeer.close();
        }
        fa.close();
    }
}
