package dat.provider.sim.internal.tcp;

import dat.api.Endpoint;
import dat.provider.sim.internal.Fabric;
import org.junit.jupiter.api.AfterEach;

/**
 * The fixture of the tests over one TCP pair: two providers in this JVM, each with an IA of its
 * own, whose Endpoints connect through the TCP transport; closed after each test, which checks
 * that no connection ended on an unexpected exception.
 */
abstract class OnTcpPair {

    final TcpPair pair = new TcpPair(TcpPair.NO_KEEPALIVES, "tcpA", "tcpB", 1 << 16);
    final Fabric fa = pair.fa;
    final Fabric fb = pair.fb;
    final Fabric.Side a = pair.a;
    final Fabric.Side b = pair.b;

    @AfterEach
    void closePair() {
        pair.close();
    }

    /** Connects {@code a}'s Endpoint to {@code passive}, which accepts on {@code b}'s IA. */
    void connect(Endpoint passive) {
        pair.connect(100, passive);
    }
}
