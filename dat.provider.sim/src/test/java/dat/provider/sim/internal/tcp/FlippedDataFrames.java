package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.tcp.DataPhase.R;
import static dat.provider.sim.internal.tcp.DataPhase.W;
import static dat.provider.sim.internal.tcp.DataPhase.W_LEN;
import static dat.provider.sim.internal.tcp.DataPhase.frame;
import static dat.provider.sim.internal.tcp.RawFrames.header;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.tcp.DataPhase.Link;
import dat.provider.sim.internal.tcp.DataPhase.Recv;
import dat.provider.sim.internal.tcp.DataPhase.Window;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;

/**
 * The data-phase fuzz's valid frames with random bits of their header flipped, which may leave
 * them valid: then the probe that follows is served, else the connection ends as for a malformed
 * frame.
 */
final class FlippedDataFrames {

    private final DataPhase phase;
    private final SplittableRandom rnd;
    private final DataPhase.Tally tally;

    FlippedDataFrames(DataPhase phase) {
        this.phase = phase;
        this.rnd = phase.rnd;
        this.tally = phase.tally;
    }

    /**
     * A valid frame to flip bits of: a write, a read, a send (a receive posted for it), a NOP,
     * an ACK_REQUEST, a DISCONNECT, the answer to a send or read of the target's (posted now).
     */
    private byte[] flipBase(Link l, long seq) throws IOException {
        int len = rnd.nextInt(65);
        byte[] data = unlikeAHeader(phase.bytes(len));
        return switch (rnd.nextInt(8)) {
            case 0 -> {
                Window t = phase.writable();
                yield frame(TcpFrame.RDMA_WRITE, t.context(), 0, seq, t.address() + rnd.nextInt(t.length() - len + 1), data);
            }
            case 1 -> {
                Window t = phase.readable();
                yield header(TcpFrame.RDMA_READ_REQUEST, 0, t.context(), len, seq, t.address() + rnd.nextInt(t.length() - len + 1), 0);
            }
            case 2 -> {
                Recv r = l.recvs.isEmpty() ? phase.postRecv(l, 64 + rnd.nextInt(256)) : l.recvs.peek();
                yield frame(TcpFrame.SEND, 0, 0, seq, 0, Arrays.copyOf(data, Math.min(len, r.length())));
            }
            case 3 -> header(TcpFrame.NOP, 0, 0, 0, 0, 0, 0);
            case 4 -> header(TcpFrame.ACK_REQUEST, 0, 0, 0, 0, 0, 0);
            case 5 -> header(TcpFrame.DISCONNECT, 0, 0, 0, 0, 0, 0);
            case 6 -> {
                l.pendingRequest = ++phase.cookies;
                yield header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, phase.targetSendPosted(l, l.pendingRequest).seq, 0, 0);
            }
            default -> {
                l.pendingRequest = ++phase.cookies;
                TcpFrame q = phase.targetReadPosted(l, l.pendingRequest);
                l.pendingOffset = (int) (phase.readAt - phase.local.registeredAddress());
                l.pendingLength = q.aux;
                yield frame(TcpFrame.RDMA_READ_RESPONSE, 0, TcpFrame.STATUS_OK, q.seq, 0, unlikeAHeader(phase.bytes(q.aux)));
            }
        };
    }

    /** {@code payload} with no byte 0xDA: what is left of it after a flip shortened its frame is read as a header, one with a bad magic. */
    private static byte[] unlikeAHeader(byte[] payload) {
        for (int k = 0; k < payload.length; k++) {
            payload[k] = payload[k] == (byte) 0xDA ? 0 : payload[k];
        }
        return payload;
    }

    /** The target sent its send again (a flip made its answer receiver-not-ready): take it and acknowledge it. */
    private void sentAgain(Link l, TcpFrame again) throws IOException {
        assertThat(again).as("the target's send, again").isNotNull();
        assertThat(TcpFrame.opcodeName(again.opcode)).as("a frame of the target's").isEqualTo("SEND");
        l.in.skipNBytes(again.payloadLength);
        l.send(header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, again.seq, 0, 0));
        tally.valid++;
    }

    /**
     * A valid frame with 1 to 3 bits of its header flipped, which may leave it valid: then the
     * probe that follows it (an RDMA read) is served; else the connection ends as for a
     * malformed frame, counted once or refused once. A frame whose length a flip changed is
     * followed by the end of the stream, not a probe: it is then cut or overlong, and the
     * connection ends.
     */
    void flipped(Link l) throws IOException {
        long seq = l.seq++;
        byte[] f = flipBase(l, seq);
        byte[] m = f.clone();
        for (int bit : rnd.ints(0, TcpFrame.HEADER_BYTES * 8).distinct().limit(1 + rnd.nextInt(3)).toArray()) {
            m[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
        }
        String what = "flipped " + HexFormat.of().formatHex(f, 0, TcpFrame.HEADER_BYTES) + " to "
                + HexFormat.of().formatHex(m, 0, TcpFrame.HEADER_BYTES);
        boolean lengthFlipped = !Arrays.equals(m, 4, 8, f, 4, 8);
        long before = phase.transport().violations.get();
        l.sent(m);
        l.out.write(m);
        tally.frames++;
        tally.flips++;
        long probe = ~seq; // apart from any seq a flip of seq's bits makes
        int at = rnd.nextInt(W_LEN - 7);
        byte[] probeFrame = header(TcpFrame.RDMA_READ_REQUEST, 0, phase.whole.rmrContext(), 8, probe, phase.whole.registeredAddress() + at, 0);
        if (lengthFlipped) {
            l.s.shutdownOutput();
        } else {
            l.send(probeFrame);
        }
        int refusals = 0;
        boolean sentAgain = false;
        for (TcpFrame a; (a = l.nextOrEnd()) != null;) {
            if (a.opcode == TcpFrame.RDMA_READ_RESPONSE && a.seq == probe) {
                // the target answers in order: whatever it answered the flipped frame came before
                assertThat(a.aux).as("the probe's status after %s", what).isEqualTo(TcpFrame.STATUS_OK);
                assertThat(a.payloadLength).isEqualTo(8);
                assertThat(l.in.readNBytes(8)).as("the probe after %s", what)
                        .isEqualTo(phase.memory.asSlice(W + at, 8).toArray(ValueLayout.JAVA_BYTE));
                served(l, f, m, before, refusals, sentAgain, what);
                tally.valid++;
                return;
            }
            if (a.opcode == TcpFrame.ACK && a.aux == TcpFrame.STATUS_RNR && !lengthFlipped) {
                // a send that found no receive: the target drops what follows (the probe) until it comes again
                Recv r = phase.postRecv(l, 1 + rnd.nextInt(64));
                byte[] data = phase.bytes(rnd.nextInt(r.length() + 1));
                l.send(frame(TcpFrame.SEND, 0, 0, a.seq, 0, data));
                l.answer(TcpFrame.ACK, a.seq, TcpFrame.STATUS_OK);
                phase.received(l, data.length, data);
                l.send(probeFrame);
                tally.valid++;
                continue;
            }
            if (a.opcode == TcpFrame.SEND && !lengthFlipped) {
                sentAgain(l, a);
                sentAgain = true;
                continue;
            }
            if ((a.opcode == TcpFrame.ACK || a.opcode == TcpFrame.RDMA_READ_RESPONSE) && a.aux != TcpFrame.STATUS_OK
                    && a.aux != TcpFrame.STATUS_RNR) {
                refusals++;
            }
            if (!phase.skipped(l, a)) {
                break;
            }
        }
        // the connection ended: on the flipped frame, which was malformed, or a DISCONNECT, or
        // the answer to the target's request with an error status (which breaks the connection)
        int eventNumber = phase.ended(l, true);
        boolean failedByPeer = l.pendingRequest != 0 && (l.pendingStatus == DtoCompletionStatus.ERR_REMOTE_ACCESS
                || l.pendingStatus == DtoCompletionStatus.ERR_REMOTE_RESPONDER);
        long counted = phase.transport().violations.get() - before;
        tally.flipsCounted += counted;
        tally.flipsRefused += refusals;
        assertThat(counted + refusals).as("violations counted and refusals for %s, which ended with %s, the target's request %s",
                what, EventNumber.name(eventNumber), l.pendingRequest == 0 ? "none" : DtoCompletionStatus.name(l.pendingStatus))
                .isEqualTo(eventNumber == EventNumber.CONNECTION_EVENT_BROKEN && !failedByPeer ? 1 : 0);
    }

    /**
     * The flip of {@code f} to {@code m} was served: nothing counted or refused, the connection
     * goes on; the target's request {@code f} answers (when it does) completes, {@code sentAgain}
     * when its send came again already.
     */
    private void served(Link l, byte[] f, byte[] m, long before, int refusals, boolean sentAgain, String what) throws IOException {
        assertThat(refusals).as("refusals of %s, then served", what).isZero();
        assertThat(phase.transport().violations.get() - before).as("violations counted for %s, then served", what).isZero();
        assertThat(l.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        assertThat(phase.connEvd.dequeue(phase.event)).as("a connection event after %s", what).isNotEqualTo(DatReturn.SUCCESS);
        if (l.pendingRequest != 0) {
            // the target's request it answered completed, or was sent again (a flip to
            // receiver-not-ready) and is answered now
            if (!sentAgain && phase.reqEvd.dequeue(phase.event) != DatReturn.SUCCESS) {
                if (m[3] == TcpFrame.ACK && ByteBuffer.wrap(m, 12, 4).getInt() == TcpFrame.STATUS_RNR) {
                    sentAgain(l, l.nextOrEnd()); // its send comes again after a backoff
                } else {
                    l.send(f); // a flip made it a frame of another kind (a NOP, a send...): the answer now
                }
                sentAgain = true;
            }
            if (sentAgain) {
                Fabric.Side.next(phase.reqEvd, phase.event);
            }
            assertThat(phase.event.userCookie()).isEqualTo(l.pendingRequest);
            assertThat(phase.event.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            if (l.pendingOffset >= 0) {
                assertThat(phase.memory.asSlice(R + l.pendingOffset, l.pendingLength).toArray(ValueLayout.JAVA_BYTE))
                        .as("the response after %s", what).isEqualTo(Arrays.copyOfRange(f, TcpFrame.HEADER_BYTES, f.length));
                phase.landed(R + l.pendingOffset, l.pendingLength);
            }
            l.pendingRequest = 0;
            l.pendingOffset = -1;
        }
        // a send lands in the oldest receive (it was served: its completion is there)
        while (phase.recvEvd.dequeue(phase.event) == DatReturn.SUCCESS) {
            Recv r = l.recvs.poll();
            assertThat(phase.event.userCookie()).isEqualTo(r.cookie());
            assertThat(phase.event.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(phase.event.transferredLength()).isLessThanOrEqualTo(r.length());
            phase.landed(R + r.offset(), phase.event.transferredLength());
        }
        tally.flipsServed++;
    }
}
