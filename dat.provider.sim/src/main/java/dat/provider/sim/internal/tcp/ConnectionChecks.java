package dat.provider.sim.internal.tcp;

import dat.api.EventNumber;
import java.nio.ByteBuffer;

/** The I/O agent's periodic look at one TCP connection: liveness, a low-water mark up too long, a refusal that cannot go out. */
final class ConnectionChecks {

    private static final ByteBuffer NOP_FRAME = TcpFrame.control(TcpFrame.NOP, 0, 0, 0, 0, 0, null);
    /** How long a refused access's answer may take to go out before the connection ends anyway. */
    private static final long REFUSAL_PATIENCE_NANOS = 2_000_000_000L;
    /** How long the socket's low-water mark stays up without a read: a trickling peer is still read. */
    private static final long LOW_WATER_PATIENCE_NANOS = 100_000_000L;

    private ConnectionChecks() {
    }

    /** On the agent, once per period. */
    static void periodic(TcpConnection c, long now, long timeout) {
        if (c.isClosed() || c.reuse.periodic(now, timeout, c.active())) {
            return;
        }
        Receiver receiver = c.receiver();
        if (receiver.lowWaterSince() != 0 && now - receiver.lowWaterSince() > Math.min(LOW_WATER_PATIENCE_NANOS, timeout / 8)) {
            receiver.lowerLowWater(c.channel()); // a peer that trickles its payload is still read, and alive
        }
        if (receiver.refusing() && now - receiver.refusingSince() > REFUSAL_PATIENCE_NANOS) {
            // the refusal could not go out (the peer reads nothing): the Endpoint must not stay on a dead wire
            c.lost(EventNumber.CONNECTION_EVENT_BROKEN);
            return;
        }
        switch (c.liveness.check(now, timeout, c.attempt() != null, c.joined() != null, c.endSaid())) {
            case NO_REQUEST -> {
                c.protocolEnd("no CONNECT_REQUEST within " + timeout / 1_000_000 + " ms");
                c.close();
            }
            case NOT_CLOSING -> c.close();
            case NO_WRITE_PROGRESS -> {
                c.protocolEnd("no write progress for " + timeout / 1_000_000 + " ms: the peer stopped reading");
                c.lost(EventNumber.CONNECTION_EVENT_BROKEN);
            }
            case NO_READS -> {
                c.protocolEnd("nothing read for " + timeout / 1_000_000 + " ms: the peer is gone");
                c.lost(EventNumber.CONNECTION_EVENT_BROKEN);
            }
            case SEND_NOP -> c.output.enqueue(NOP_FRAME.duplicate());
            default -> {
            }
        }
    }
}
