package dat.provider.sim.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;

/**
 * Frames of the TCP wire as a peer played with a plain socket writes and reads them: headers
 * encoded with {@link TcpFrame#encode}, room for a payload after them, and the frames the IA
 * sends back, its keepalives (NOPs) skipped.
 */
final class RawFrames {

    /** The limits the frames are decoded with: the wire's. */
    static final TcpFrame.Limits LIMITS = TcpFrame.Limits.WIRE;

    private RawFrames() {
    }

    /** A frame's header, then {@code extra} zero bytes: room for its payload, or for part of it. */
    static byte[] header(int op, long len, int ctx, int aux, long seq, long addr, int extra) {
        ByteBuffer b = ByteBuffer.allocate(TcpFrame.HEADER_BYTES + extra);
        TcpFrame.encode(b, op, len, ctx, aux, seq, addr);
        return b.array();
    }

    /** A frame's header and its whole payload, {@code len} zero bytes. */
    static byte[] header(int op, long len, int ctx, int aux, long seq, long addr) {
        return header(op, len, ctx, aux, seq, addr, (int) len);
    }

    /** {@link #nextFrame}, or {@code null} at the end of the stream or a reset, skipping payloads. */
    static TcpFrame nextFrameOrEnd(Socket s) throws IOException {
        try {
            TcpFrame f = nextFrame(s);
            if (f != null) {
                s.getInputStream().skipNBytes(f.payloadLength);
            }
            return f;
        } catch (java.net.SocketException | java.io.EOFException reset) {
            return null;
        }
    }

    /** The next frame from the target that is not a keepalive: its header, decoded. */
    static TcpFrame nextFrame(Socket s) throws IOException {
        for (;;) {
            byte[] h = s.getInputStream().readNBytes(TcpFrame.HEADER_BYTES);
            if (h.length < TcpFrame.HEADER_BYTES) {
                return null; // the target closed
            }
            TcpFrame f = new TcpFrame();
            assertThat(f.decode(ByteBuffer.wrap(h), LIMITS)).isNull();
            if (f.opcode != TcpFrame.NOP) {
                return f;
            }
        }
    }

    /** Reads one frame (header and payload) from the raw peer's side, skipping NOPs; returns the header. */
    static ByteBuffer frame(DataInputStream in) throws Exception {
        for (;;) {
            byte[] h = new byte[TcpFrame.HEADER_BYTES];
            in.readFully(h);
            ByteBuffer header = ByteBuffer.wrap(h);
            in.skipNBytes(Integer.toUnsignedLong(header.getInt(4)));
            if (header.get(3) != TcpFrame.NOP) {
                return header;
            }
        }
    }
}
