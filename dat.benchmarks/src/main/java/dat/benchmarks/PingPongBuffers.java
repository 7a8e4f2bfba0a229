package dat.benchmarks;

import dat.api.EpAttributes;
import dat.api.LmrTriplet;

/**
 * The 8-byte ping-pong's buffers on a rig's two ends ({@link SimRig}), each end's send buffer at 0
 * and receive buffer at 64 of its LMR, and the receives each end keeps posted; the ping-pong
 * benchmarks share them ({@link PingPongBenchmark}, {@link OneThreadPingPongBenchmark}).
 */
final class PingPongBuffers {

    /** Receives and requests per Endpoint: the queues of the rig's Endpoints. */
    static final int DTOS = 64;
    /** The rig's Endpoint attributes. */
    static final EpAttributes ATTRIBUTES = EpAttributes.builder().maxRecvDtos(DTOS).maxRequestDtos(DTOS).build();

    final LmrTriplet[] pingIov = {new LmrTriplet()};
    final LmrTriplet[] pongIov = {new LmrTriplet()};
    final LmrTriplet[] pingRecv = {new LmrTriplet()};
    final LmrTriplet[] pongRecv = {new LmrTriplet()};

    /** Sets the buffers on {@code rig}'s ends and posts {@code receives} receives on each. */
    PingPongBuffers(SimRig rig, int receives) {
        pingIov[0].set(rig.a.lmr, 0, 8);
        pongIov[0].set(rig.b.lmr, 0, 8);
        pingRecv[0].set(rig.a.lmr, 64, 8);
        pongRecv[0].set(rig.b.lmr, 64, 8);
        for (int i = 0; i < receives; i++) {
            SimRig.check(rig.a.ep.postRecv(1, pingRecv, i, 0));
            SimRig.check(rig.b.ep.postRecv(1, pongRecv, i, 0));
        }
    }
}
