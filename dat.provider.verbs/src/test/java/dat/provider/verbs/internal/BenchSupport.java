package dat.provider.verbs.internal;

import dat.api.Endpoint;
import dat.api.InterfaceAdapter;

/** What the benchmark package needs from the package-private fixture. */
public final class BenchSupport {

    private BenchSupport() {
    }

    /**
     * @param ia an open verbs IA
     * @return a connected pair: [0] the client, [1] the server, each with its own DTO EVD
     */
    public static Endpoint[] connect(InterfaceAdapter ia) {
        LoopbackPair pair = LoopbackPair.connect(ia);
        return new Endpoint[] {pair.client(), pair.server()};
    }
}
