package dat.provider.sim.internal.tcp;

import dat.api.EventNumber;
import dat.provider.sim.internal.core.RemoteWindow;
import java.util.logging.Logger;

/** What a TCP connection waits out when memory goes: an LMR freed, an RMR's window revoked (docs/sim-provider.md, "Fences"). */
final class ConnectionFences {

    private static final Logger LOG = Logger.getLogger(TcpConnection.class.getName());
    /** How long dat_lmr_free waits for a frame that sends from the freed memory before it cuts the connection. */
    private static final long FENCE_PATIENCE_NANOS = 50_000_000L;

    private ConnectionFences() {
    }

    /**
     * dat_lmr_free: returns once nothing of the connection moves bytes of [start, end) (the LMR
     * was marked freed first). The receiver's copy in progress is all it waits for on the input;
     * on the output it waits for the frames that send from the memory, and cuts the connection
     * after {@link #FENCE_PATIENCE_NANOS} (a peer that stopped reading), as a verbs QP fails an
     * access to a deregistered region.
     */
    static void fence(TcpConnection c, long start, long end) {
        long began = System.nanoTime();
        boolean cut = false;
        while (c.landing().copyingInto(start, end) || c.output.sendsFrom(start, end)) {
            long waited = System.nanoTime() - began;
            if (!cut && waited > FENCE_PATIENCE_NANOS) {
                cut = true;
                c.lost(EventNumber.CONNECTION_EVENT_BROKEN); // the Endpoint breaks, its requests complete
            } else if (waited > 100 * FENCE_PATIENCE_NANOS) {
                LOG.warning("sim TCP connection " + c.describe() + " still moves bytes of a freed LMR after 5 s");
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(20_000);
        }
        // the views of consumer memory each part caches go: freed memory of an automatic arena is
        // reclaimed only once nothing refers to it
        c.landing().viewStale();
        c.output.viewsStale();
        c.agent().execute(c.landing()::dropViewIfStale); // between frames, on the agent: not only before the next one
    }

    /** A revoked window: returns once neither side of the connection copies through it. */
    static void awaitCopiesThrough(TcpConnection c, RemoteWindow w) {
        c.landing().awaitCopiesThrough(w);
        for (int spins = 0; c.output.respondingFrom(w); spins++) {
            Landing.backOff(spins);
        }
    }
}
