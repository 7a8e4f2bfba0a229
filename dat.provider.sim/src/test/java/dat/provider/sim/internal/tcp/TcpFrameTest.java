package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.ThreadLimit;
import dat.provider.sim.internal.core.*;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The TCP frame codec and reader: every valid frame round-trips, every malformed one is rejected. */
@Timeout(30)
class TcpFrameTest {

    private static final TcpFrame.Limits LIMITS = new TcpFrame.Limits(256, 1 << 20, 1 << 24);

    /** A frame as fields, encoded on demand. */
    record F(int op, long len, int ctx, int aux, long seq, long addr) {
        ByteBuffer bytes() {
            ByteBuffer b = ByteBuffer.allocate(TcpFrame.HEADER_BYTES);
            TcpFrame.encode(b, op, len, ctx, aux, seq, addr);
            return b.flip();
        }
    }

    static List<F> validFrames() {
        return List.of(
                new F(TcpFrame.CONNECT_REQUEST, 64, 1, 7000, 3, 1234),
                new F(TcpFrame.CONNECT_REQUEST, 0, 0, 0, 0, 0),
                new F(TcpFrame.CONNECT_REQUEST, 256, 0, 65535, -1, -1),
                new F(TcpFrame.ACCEPT, 256, 0, 0, 0, 0),
                new F(TcpFrame.REJECT, 0, 0, TcpFrame.REJECT_PEER, 0, 0),
                new F(TcpFrame.REJECT, 0, 0, TcpFrame.REJECT_NON_PEER, 0, 0),
                new F(TcpFrame.DISCONNECT, 0, 0, 0, 0, 0),
                new F(TcpFrame.NOP, 0, 0, 0, 0, 0),
                new F(TcpFrame.READY_TO_USE, 0, 0, 0, 0, 0),
                new F(TcpFrame.ACK_REQUEST, 0, 0, 0, 0, 0),
                new F(TcpFrame.SEND, 1 << 20, 0, 0, 42, 0),
                new F(TcpFrame.SEND, 0, 0, TcpFrame.SOLICITED, 43, 0),
                new F(TcpFrame.SEND, 8, 0, TcpFrame.ACK_DEFERRABLE, 43, 0),
                new F(TcpFrame.SEND, 8, 0, TcpFrame.SOLICITED | TcpFrame.ACK_DEFERRABLE, 43, 0),
                new F(TcpFrame.RDMA_WRITE, 1 << 16, 7, TcpFrame.ACK_DEFERRABLE, 44, 0x1000),
                new F(TcpFrame.RDMA_READ_REQUEST, 0, 9, 0, 47, 0x2000),
                new F(TcpFrame.RDMA_WRITE, 1 << 24, 0x1234_5678, 0, 44, 0x7f00_0000_1000L),
                new F(TcpFrame.RDMA_READ_REQUEST, 0, -5, 1 << 24, 45, 0x1000),
                new F(TcpFrame.RDMA_READ_RESPONSE, 4096, 0, TcpFrame.STATUS_OK, 45, 0),
                new F(TcpFrame.RDMA_READ_RESPONSE, 0, 0, TcpFrame.STATUS_REMOTE_ACCESS, 45, 0),
                new F(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, 46, 0),
                new F(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_REMOTE_LENGTH, 46, 0),
                new F(TcpFrame.ATOMIC_REQUEST, TcpFrame.ATOMIC_PAYLOAD_BYTES, 7, TcpFrame.FETCH_AND_ADD, 48, 0x1008),
                new F(TcpFrame.ATOMIC_REQUEST, TcpFrame.ATOMIC_PAYLOAD_BYTES, 7, TcpFrame.COMPARE_AND_SWAP, 49, 0x7f00_0000_1000L),
                new F(TcpFrame.RDMA_READ_RESPONSE, TcpFrame.ATOMIC_RESULT_BYTES, 0, TcpFrame.STATUS_OK, 49, 0),
                new F(TcpFrame.RDMA_WRITE_IMMEDIATE, 64, 7, 0xCAFE_BABE, 50, 0x1000),
                new F(TcpFrame.RDMA_WRITE_IMMEDIATE, 0, 7, -1, 51, 0x1000),
                new F(TcpFrame.RDMA_WRITE_IMMEDIATE_SOLICITED, 64, 7, 0x5EED, 52, 0x1000));
    }

    /**
     * An IA takes CM frames' private data up to the ceiling any IA may send, whatever its own
     * max_private_data: a few KiB, so a hostile length still allocates little.
     */
    @Test
    void privateDataIsBoundedByTheCeiling_notByTheReceivingIasMaximum() {
        TcpFrame.Limits limits = TcpFrame.Limits.WIRE;
        assertThat(SimLimits.MAX_PRIVATE_DATA).isBetween(SimLimits.DEFAULT_PRIVATE_DATA, 1 << 16);
        for (int op : new int[] {TcpFrame.CONNECT_REQUEST, TcpFrame.ACCEPT}) {
            TcpFrame frame = new TcpFrame();
            assertThat(frame.decode(new F(op, SimLimits.MAX_PRIVATE_DATA, 0, 0, 0, 0).bytes(), limits)).isNull();
            assertThat(frame.decode(new F(op, SimLimits.MAX_PRIVATE_DATA + 1, 0, 0, 0, 0).bytes(), limits))
                    .isEqualTo(TcpFrame.OVERSIZED);
        }
    }

    @Test
    void everyValidFrameRoundTrips() {
        TcpFrame frame = new TcpFrame();
        for (F f : validFrames()) {
            ByteBuffer b = f.bytes();
            assertThat(frame.decode(b, LIMITS)).as(f.toString()).isNull();
            assertThat(b.position()).isEqualTo(TcpFrame.HEADER_BYTES);
            int wireOpcode = frame.solicitedWrite ? TcpFrame.RDMA_WRITE_IMMEDIATE_SOLICITED : frame.opcode;
            assertThat(new F(wireOpcode, frame.payloadLength, frame.context, frame.aux, frame.seq, frame.address))
                    .isEqualTo(f);
            assertThat(frame.opcode).as("a solicited write with immediate data reads as one")
                    .isEqualTo(f.op() == TcpFrame.RDMA_WRITE_IMMEDIATE_SOLICITED ? TcpFrame.RDMA_WRITE_IMMEDIATE : f.op());
            ByteBuffer again = ByteBuffer.allocate(TcpFrame.HEADER_BYTES);
            frame.encode(again);
            assertThat(again.flip()).isEqualTo(f.bytes());
        }
    }

    @Test
    void everyMalformedHeaderIsRejectedWithItsReason() {
        assertReason(mutate(new F(TcpFrame.SEND, 0, 0, 0, 1, 0).bytes(), 0, (byte) 0xDB), TcpFrame.BAD_MAGIC);
        assertReason(mutate(new F(TcpFrame.SEND, 0, 0, 0, 1, 0).bytes(), 2, (byte) 1), TcpFrame.BAD_VERSION); // before ACK_DEFERRABLE
        assertReason(mutate(new F(TcpFrame.SEND, 0, 0, 0, 1, 0).bytes(), 2, (byte) 2), TcpFrame.BAD_VERSION); // before the extensions
        assertReason(mutate(new F(TcpFrame.SEND, 0, 0, 0, 1, 0).bytes(), 2, (byte) 3), TcpFrame.BAD_VERSION); // before the shared-memory offer
        assertReason(mutate(new F(TcpFrame.SEND, 0, 0, 0, 1, 0).bytes(), 2, (byte) 4), TcpFrame.BAD_VERSION); // before solicited writes
        assertReason(mutate(new F(TcpFrame.SEND, 0, 0, 0, 1, 0).bytes(), 2, (byte) 6), TcpFrame.BAD_VERSION);
        assertReason(new F(0, 0, 0, 0, 0, 0).bytes(), TcpFrame.BAD_OPCODE);
        assertReason(new F(TcpFrame.MAX_OPCODE + 1, 0, 0, 0, 0, 0).bytes(), TcpFrame.BAD_OPCODE);
        assertReason(new F(255, 0, 0, 0, 0, 0).bytes(), TcpFrame.BAD_OPCODE);
        // lengths over the maximum of their kind, up to the largest the field can say
        assertReason(new F(TcpFrame.CONNECT_REQUEST, 257, 0, 0, 0, 0).bytes(), TcpFrame.OVERSIZED);
        assertReason(new F(TcpFrame.ACCEPT, 0xFFFF_FFFFL, 0, 0, 0, 0).bytes(), TcpFrame.OVERSIZED);
        assertReason(new F(TcpFrame.SEND, (1 << 20) + 1, 0, 0, 0, 0).bytes(), TcpFrame.OVERSIZED);
        assertReason(new F(TcpFrame.RDMA_WRITE, (1 << 24) + 1, 1, 0, 0, 0).bytes(), TcpFrame.OVERSIZED);
        assertReason(new F(TcpFrame.RDMA_READ_RESPONSE, 0x8000_0000L, 0, 0, 0, 0).bytes(), TcpFrame.OVERSIZED);
        for (int op : new int[] {TcpFrame.REJECT, TcpFrame.DISCONNECT, TcpFrame.RDMA_READ_REQUEST, TcpFrame.ACK, TcpFrame.NOP, TcpFrame.READY_TO_USE,
                TcpFrame.ACK_REQUEST}) {
            assertReason(new F(op, 1, 1, 1, 0, 0).bytes(), TcpFrame.UNEXPECTED_PAYLOAD);
        }
        // fields an opcode does not use must be zero
        assertReason(new F(TcpFrame.ACCEPT, 0, 1, 0, 0, 0).bytes(), TcpFrame.NONZERO_UNUSED);
        assertReason(new F(TcpFrame.DISCONNECT, 0, 0, 0, 1, 0).bytes(), TcpFrame.NONZERO_UNUSED);
        assertReason(new F(TcpFrame.NOP, 0, 0, 1, 0, 0).bytes(), TcpFrame.NONZERO_UNUSED);
        assertReason(new F(TcpFrame.NOP, 1, 0, 0, 0, 0).bytes(), TcpFrame.UNEXPECTED_PAYLOAD);
        assertReason(new F(TcpFrame.SEND, 0, 0, 0, 0, 8).bytes(), TcpFrame.NONZERO_UNUSED);
        assertReason(new F(TcpFrame.REJECT, 0, 0, 0, 0, 8).bytes(), TcpFrame.NONZERO_UNUSED);
        assertReason(new F(TcpFrame.ACK_REQUEST, 0, 0, 0, 1, 0).bytes(), TcpFrame.NONZERO_UNUSED);
        assertReason(new F(TcpFrame.ACK_REQUEST, 0, 0, TcpFrame.ACK_DEFERRABLE, 0, 0).bytes(), TcpFrame.NONZERO_UNUSED);
        assertReason(new F(TcpFrame.ACK, 0, 1, 0, 0, 0).bytes(), TcpFrame.NONZERO_UNUSED);
        assertReason(new F(TcpFrame.RDMA_READ_RESPONSE, 0, 0, 0, 0, 1).bytes(), TcpFrame.NONZERO_UNUSED);
        // per-opcode ranges
        assertReason(new F(TcpFrame.CONNECT_REQUEST, 0, 0, 65536, 0, 0).bytes(), TcpFrame.BAD_AUX);
        assertReason(new F(TcpFrame.CONNECT_REQUEST, 0, 0, -1, 0, 0).bytes(), TcpFrame.BAD_AUX);
        assertReason(new F(TcpFrame.REJECT, 0, 0, 2, 0, 0).bytes(), TcpFrame.BAD_AUX);
        assertReason(new F(TcpFrame.ACK, 0, 0, TcpFrame.MAX_STATUS + 1, 0, 0).bytes(), TcpFrame.BAD_AUX);
        assertReason(new F(TcpFrame.ACK, 0, 0, -1, 0, 0).bytes(), TcpFrame.BAD_AUX);
        assertReason(new F(TcpFrame.RDMA_READ_RESPONSE, 8, 0, TcpFrame.STATUS_REMOTE_ACCESS, 0, 0).bytes(),
                TcpFrame.UNEXPECTED_PAYLOAD);
        assertReason(new F(TcpFrame.SEND, 0, 0, 4, 0, 0).bytes(), TcpFrame.BAD_AUX);
        assertReason(new F(TcpFrame.SEND, 0, 0, -1, 0, 0).bytes(), TcpFrame.BAD_AUX);
        assertReason(new F(TcpFrame.RDMA_WRITE, 0, 1, 1, 0, 0).bytes(), TcpFrame.BAD_AUX);
        assertReason(new F(TcpFrame.RDMA_WRITE, 0, 1, TcpFrame.ACK_DEFERRABLE | 4, 0, 0).bytes(), TcpFrame.BAD_AUX);
        assertReason(new F(TcpFrame.RDMA_READ_REQUEST, 0, 1, (1 << 24) + 1, 0, 0).bytes(), TcpFrame.BAD_LENGTH);
        assertReason(new F(TcpFrame.RDMA_READ_REQUEST, 0, 1, -1, 0, 0).bytes(), TcpFrame.BAD_LENGTH);
        // an atomic carries its two operands exactly, names a known operation, at an aligned address
        assertReason(new F(TcpFrame.ATOMIC_REQUEST, 8, 1, TcpFrame.FETCH_AND_ADD, 0, 0x1000).bytes(), TcpFrame.BAD_ATOMIC);
        assertReason(new F(TcpFrame.ATOMIC_REQUEST, 0, 1, TcpFrame.COMPARE_AND_SWAP, 0, 0x1000).bytes(), TcpFrame.BAD_ATOMIC);
        assertReason(new F(TcpFrame.ATOMIC_REQUEST, 17, 1, TcpFrame.FETCH_AND_ADD, 0, 0x1000).bytes(), TcpFrame.OVERSIZED);
        assertReason(new F(TcpFrame.ATOMIC_REQUEST, 16, 1, 2, 0, 0x1000).bytes(), TcpFrame.BAD_AUX);
        assertReason(new F(TcpFrame.ATOMIC_REQUEST, 16, 1, -1, 0, 0x1000).bytes(), TcpFrame.BAD_AUX);
        assertReason(new F(TcpFrame.ATOMIC_REQUEST, 16, 1, TcpFrame.FETCH_AND_ADD, 0, 0x1004).bytes(), TcpFrame.MISALIGNED);
        assertReason(new F(TcpFrame.ATOMIC_REQUEST, 16, 1, TcpFrame.COMPARE_AND_SWAP, 0, 0x1001).bytes(), TcpFrame.MISALIGNED);
        assertReason(new F(TcpFrame.RDMA_WRITE_IMMEDIATE, (1 << 24) + 1, 1, 0, 0, 0).bytes(), TcpFrame.OVERSIZED);
        // fewer bytes than a header
        assertReason(ByteBuffer.allocate(TcpFrame.HEADER_BYTES - 1), TcpFrame.TRUNCATED);
    }

    @Test
    void encodeRefusesLengthsTheFieldCannotCarry() {
        ByteBuffer b = ByteBuffer.allocate(TcpFrame.HEADER_BYTES);
        assertThatThrownBy(() -> TcpFrame.encode(b, TcpFrame.SEND, 1L << 32, 0, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TcpFrame.encode(b, TcpFrame.SEND, -1, 0, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Random headers and bit-flipped valid ones: whatever decode accepts obeys every invariant the
     * transport relies on (known opcode, payload within the maximum of its kind), so no input can
     * make a receiver allocate or read more than the configured maxima.
     */
    @Test
    void randomAndMutatedHeadersNeverPassAnInvalidLength() {
        SplittableRandom rnd = new SplittableRandom(7);
        TcpFrame frame = new TcpFrame();
        List<F> valid = validFrames();
        ByteBuffer b = ByteBuffer.allocate(TcpFrame.HEADER_BYTES);
        int accepted = 0;
        int rejected = 0;
        for (int i = 0; i < 200_000; i++) {
            b.clear();
            if ((i & 1) == 0) {
                for (int k = 0; k < TcpFrame.HEADER_BYTES; k += 8) {
                    b.putLong(rnd.nextLong());
                }
                b.flip();
            } else {
                b.put(valid.get(rnd.nextInt(valid.size())).bytes()).flip();
                int flips = 1 + rnd.nextInt(3);
                for (int k = 0; k < flips; k++) {
                    int at = rnd.nextInt(TcpFrame.HEADER_BYTES);
                    b.put(at, (byte) (b.get(at) ^ (1 << rnd.nextInt(8))));
                }
            }
            String reason = frame.decode(b, LIMITS);
            if (reason == null) {
                accepted++;
                assertThat(frame.opcode).isBetween(1, TcpFrame.MAX_OPCODE);
                assertThat(frame.payloadLength).isBetween(0L, LIMITS.maxPayload(frame.opcode));
            } else {
                rejected++;
            }
        }
        // mutated frames may stay valid (a flipped sequence bit); random ones practically never are
        assertThat(rejected).isGreaterThan(100_000);
        assertThat(accepted + rejected).isEqualTo(200_000);
    }

    /** The reader assembles headers and payloads from one-byte reads, and never reads past a frame. */
    @Test
    void readerAssemblesFramesFromPartialReads() throws IOException {
        ByteBuffer stream = ByteBuffer.allocate(1024);
        stream.put(new F(TcpFrame.SEND, 5, 0, 0, 1, 0).bytes()).put(new byte[] {1, 2, 3, 4, 5});
        stream.put(new F(TcpFrame.ACK, 0, 0, 0, 1, 0).bytes());
        stream.put(new F(TcpFrame.RDMA_WRITE, 3, 9, 0, 2, 0x10).bytes()).put(new byte[] {7, 8, 9});
        stream.flip();
        Trickle ch = new Trickle(stream, 1);
        TcpFrameReader r = new TcpFrameReader(LIMITS);
        assertThat(readHeader(r, ch)).isEqualTo(TcpFrameReader.READY);
        assertThat(r.frame.opcode).isEqualTo(TcpFrame.SEND);
        ByteBuffer dst = ByteBuffer.allocate(64);
        while (r.payloadLeft() > 0) {
            if (r.readPayload(ch, dst) == 0) {
                ch.allow(1);
            }
        }
        // the reader stopped at the frame's end although the destination had room for more
        assertThat(dst.flip().remaining()).isEqualTo(5);
        assertThat(dst.get(4)).isEqualTo((byte) 5);
        assertThat(readHeader(r, ch)).isEqualTo(TcpFrameReader.READY);
        assertThat(r.frame.opcode).isEqualTo(TcpFrame.ACK);
        assertThat(readHeader(r, ch)).isEqualTo(TcpFrameReader.READY);
        assertThat(r.frame.opcode).isEqualTo(TcpFrame.RDMA_WRITE);
        assertThat(r.payloadLeft()).isEqualTo(3);
        while (!r.skipPayload(ch)) {
            ch.allow(1);
        }
        assertThat(r.payloadLeft()).isZero();
        assertThat(readHeader(r, ch)).isEqualTo(TcpFrameReader.EOF);
        assertThat(r.error()).isNull();
        assertThat(r.frames()).isEqualTo(3);
    }

    /**
     * A held header (a consumer hands a large frame to the I/O agent) is answered again by the
     * next read for a header, with nothing read from the channel, and its payload follows as usual;
     * what the payload has on the socket excludes what was read ahead.
     */
    @Test
    void aHeldHeaderIsTheNextReadersFrame_readingNothing() throws IOException {
        ByteBuffer stream = ByteBuffer.allocate(TcpFrame.HEADER_BYTES + 100 + TcpFrame.HEADER_BYTES);
        stream.put(new F(TcpFrame.RDMA_WRITE, 100, 9, 0, 2, 0x10).bytes()).put(new byte[100]);
        stream.put(new F(TcpFrame.ACK, 0, 0, 0, 2, 0).bytes()).flip();
        Trickle ch = new Trickle(stream, TcpFrame.HEADER_BYTES + 40);
        TcpFrameReader r = new TcpFrameReader(LIMITS);
        assertThat(r.readHeader(ch)).isEqualTo(TcpFrameReader.READY);
        assertThat(r.payloadLeft()).isEqualTo(100);
        assertThat(r.payloadOnTheSocket()).as("payload not read ahead").isEqualTo(60);
        r.holdHeader();
        assertThat(r.holdsHeader()).isTrue();
        int position = stream.position();
        assertThat(r.nextHeader(ch)).isEqualTo(TcpFrameReader.READY);
        assertThat(stream.position()).as("bytes taken from the channel").isEqualTo(position);
        assertThat(r.holdsHeader()).isFalse();
        assertThat(r.frame.opcode).isEqualTo(TcpFrame.RDMA_WRITE);
        assertThat(r.frames()).isEqualTo(1);
        ch.allow(Integer.MAX_VALUE);
        while (!r.skipPayload(ch)) {
            // the rest of the payload comes
        }
        assertThat(r.readHeader(ch)).isEqualTo(TcpFrameReader.READY);
        assertThat(r.frame.opcode).isEqualTo(TcpFrame.ACK);
    }

    /**
     * A header saying "4 GiB follow" is rejected before any payload is moved: what the reader took
     * from the channel is its fixed read-ahead's worth at most, whatever the length says.
     */
    @Test
    void oversizedLengthIsRejectedBeforeAnyPayloadIsRead() throws IOException {
        ByteBuffer stream = ByteBuffer.allocate(64);
        stream.put(new F(TcpFrame.SEND, 0xFFFF_FFFFL, 0, 0, 1, 0).bytes()).put(new byte[16]).flip();
        TcpFrameReader r = new TcpFrameReader(LIMITS);
        assertThat(r.readHeader(new Trickle(stream, Integer.MAX_VALUE))).isEqualTo(TcpFrameReader.MALFORMED);
        assertThat(r.error()).isEqualTo(TcpFrame.OVERSIZED);
        assertThat(stream.position()).isLessThanOrEqualTo(TcpFrameReader.READ_AHEAD_BYTES);
        assertThat(r.payloadLeft()).isZero();
    }

    @Test
    void truncatedHeaderAndPayloadAreReported() throws IOException {
        ByteBuffer half = new F(TcpFrame.SEND, 8, 0, 0, 1, 0).bytes().limit(10);
        TcpFrameReader r = new TcpFrameReader(LIMITS);
        assertThat(r.readHeader(new Trickle(half, 100))).isEqualTo(TcpFrameReader.EOF);
        assertThat(r.error()).isEqualTo(TcpFrame.TRUNCATED);

        ByteBuffer shortPayload = ByteBuffer.allocate(64);
        shortPayload.put(new F(TcpFrame.SEND, 8, 0, 0, 1, 0).bytes()).put(new byte[3]).flip();
        TcpFrameReader r2 = new TcpFrameReader(LIMITS);
        Trickle ch = new Trickle(shortPayload, 100);
        assertThat(r2.readHeader(ch)).isEqualTo(TcpFrameReader.READY);
        assertThat(r2.readPayloadFully(ch, ByteBuffer.allocate(8))).isFalse();
        assertThat(r2.error()).isEqualTo("truncated payload");
        TcpFrameReader r3 = new TcpFrameReader(LIMITS);
        ByteBuffer again = shortPayload.rewind();
        Trickle ch3 = new Trickle(again, 100);
        assertThat(r3.readHeader(ch3)).isEqualTo(TcpFrameReader.READY);
        assertThatThrownBy(() -> r3.skipPayload(ch3)).isInstanceOf(IOException.class);
    }

    @Test
    void readingAHeaderWithPayloadLeftIsAProgrammingError() throws IOException {
        ByteBuffer stream = ByteBuffer.allocate(64);
        stream.put(new F(TcpFrame.SEND, 4, 0, 0, 1, 0).bytes()).put(new byte[4]).flip();
        TcpFrameReader r = new TcpFrameReader(LIMITS);
        Trickle ch = new Trickle(stream, 100);
        assertThat(r.readHeader(ch)).isEqualTo(TcpFrameReader.READY);
        assertThatThrownBy(() -> r.readHeader(ch)).isInstanceOf(IllegalStateException.class);
    }

    private static int readHeader(TcpFrameReader r, Trickle ch) throws IOException {
        for (;;) {
            int s = r.readHeader(ch);
            if (s != TcpFrameReader.NEED_MORE) {
                return s;
            }
            ch.allow(1);
        }
    }

    private static ByteBuffer mutate(ByteBuffer b, int at, byte value) {
        b.put(at, value);
        return b;
    }

    private static void assertReason(ByteBuffer header, String reason) {
        assertThat(new TcpFrame().decode(header.order(ByteOrder.BIG_ENDIAN), LIMITS)).as(reason).isEqualTo(reason);
    }

    /**
     * A channel over a buffer that hands out at most {@code step} bytes per read and, like a
     * non-blocking socket, answers 0 once its allowance is used up, until {@link #allow} is called.
     */
    static final class Trickle implements ReadableByteChannel {
        private final ByteBuffer src;
        private final int step;
        private long allowance;

        Trickle(ByteBuffer src, int step) {
            this.src = src;
            this.step = step;
            this.allowance = step;
        }

        void allow(int n) {
            allowance += n;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (!src.hasRemaining()) {
                return -1;
            }
            int n = (int) Math.min(Math.min(src.remaining(), dst.remaining()), Math.min(step, allowance));
            if (n == 0) {
                return 0;
            }
            ByteBuffer slice = src.slice(src.position(), n);
            dst.put(slice);
            src.position(src.position() + n);
            allowance -= n;
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {}
    }

    /**
     * A CONNECT_REQUEST that says it carries the active Endpoint's attributes has room for them
     * after its private data; one that does not carries private data alone, within the ceiling.
     * The attributes travel whole.
     */
    @Test
    void aConnectRequestCarriesTheActiveAttributes_whenItsContextSaysSo() {
        TcpFrame.Limits limits = TcpFrame.Limits.WIRE;
        int with = TcpFrame.WITH_ATTRIBUTES | 1;
        TcpFrame frame = new TcpFrame();
        assertThat(frame.decode(new F(TcpFrame.CONNECT_REQUEST, TcpFrame.ATTRIBUTES_BYTES - 1, with, 1, 0, 0).bytes(), limits))
                .isEqualTo(TcpFrame.BAD_LENGTH);
        assertThat(frame.decode(new F(TcpFrame.CONNECT_REQUEST, TcpFrame.ATTRIBUTES_BYTES, with, 1, 0, 0).bytes(), limits)).isNull();
        assertThat(frame.decode(new F(TcpFrame.CONNECT_REQUEST, SimLimits.MAX_PRIVATE_DATA + TcpFrame.ATTRIBUTES_BYTES, with, 1, 0, 0)
                .bytes(), limits)).isNull();
        assertThat(frame.decode(new F(TcpFrame.CONNECT_REQUEST, SimLimits.MAX_PRIVATE_DATA + TcpFrame.ATTRIBUTES_BYTES + 1, with, 1,
                0, 0).bytes(), limits)).isEqualTo(TcpFrame.OVERSIZED);
        assertThat(frame.decode(new F(TcpFrame.CONNECT_REQUEST, SimLimits.MAX_PRIVATE_DATA + 1, 1, 1, 0, 0).bytes(), limits))
                .isEqualTo(TcpFrame.OVERSIZED);

        dat.api.EpAttributes sent = dat.api.EpAttributes.builder().maxMessageSize(1L << 33).maxRdmaSize(12345).qos(2)
                .maxRecvDtos(7).maxRequestDtos(5).maxRecvIov(3).maxRequestIov(2).maxRdmaReadIn(4).maxRdmaReadOut(6)
                .srqSoftHighWatermark(9).maxRdmaReadIov(8).maxRdmaWriteIov(10).build();
        ByteBuffer b = ByteBuffer.allocate(TcpFrame.ATTRIBUTES_BYTES);
        TcpFrame.putAttributes(b, sent);
        assertThat(b.hasRemaining()).isFalse();
        dat.api.EpAttributes got = TcpFrame.getAttributes(b.flip());
        assertThat(got).isEqualTo(sent.toBuilder().recvCompletionFlags(0).requestCompletionFlags(0)
                .transportSpecific(java.util.Map.of()).providerSpecific(java.util.Map.of()).build());
    }
}
