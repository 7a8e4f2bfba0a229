package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.tcp.DataPhase.frame;
import static dat.provider.sim.internal.tcp.RawFrames.header;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.EventNumber;
import dat.provider.sim.internal.tcp.DataPhase.Link;
import dat.provider.sim.internal.tcp.DataPhase.Recv;
import dat.provider.sim.internal.tcp.DataPhase.Window;
import java.io.IOException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The data-phase fuzz's malformed frames, each of a known class, and the end each must bring
 * to its connection: BROKEN on that Endpoint alone, with a violation counted or, for an access
 * the checks refuse, the refusal answered.
 */
final class MalformedDataFrames {

    /** The classes of malformed frames {@link #malformed} sends. */
    static final List<String> KINDS = List.of("bad magic", "bad version", "unknown opcode", "a field its opcode does not use",
            "aux out of range", "payload on an opcode that takes none", "length over the maximum", "random bytes where a header belongs",
            "a connection-management frame", "a response to nothing", "a wrong response", "truncated payload",
            "truncated header", "refused: forged context", "refused: stale context", "refused: another PZ's memory",
            "refused: out of the window", "refused: no privilege", "refused: a send longer than its receive");

    /**
     * A malformed frame of a known class: sent up to {@code sent} (less than its length: the stream
     * then ends inside it); {@code answerOp} 0 when the target must count it a violation and answer
     * nothing, else the refusal ({@code answerOp} with {@code status} for request {@code seq}) it
     * must answer.
     */
    record Hostile(String kind, byte[] bytes, int sent, int answerOp, long seq, int status) {

        static Hostile violation(String kind, byte[] bytes) {
            return new Hostile(kind, bytes, bytes.length, 0, 0, 0);
        }

        static Hostile truncated(String kind, byte[] bytes, int sent) {
            return new Hostile(kind, bytes, sent, 0, 0, 0);
        }

        static Hostile refused(String kind, byte[] bytes, int answerOp, long seq, int status) {
            return new Hostile(kind, bytes, bytes.length, answerOp, seq, status);
        }

        String describe() {
            return kind + " " + HexFormat.of().formatHex(bytes, 0, Math.min(sent, 2 * TcpFrame.HEADER_BYTES));
        }
    }

    private final DataPhase phase;
    private final SplittableRandom rnd;
    private final DataPhase.Tally tally;

    MalformedDataFrames(DataPhase phase) {
        this.phase = phase;
        this.rnd = phase.rnd;
        this.tally = phase.tally;
    }

    /** A valid request header for mutations of the header alone (no payload: the header is rejected first). */
    private byte[] someHeader(long seq) {
        Window w = phase.whole();
        return switch (rnd.nextInt(5)) {
            case 0 -> header(TcpFrame.RDMA_WRITE, 0, w.context(), 0, seq, w.address(), 0);
            case 1 -> header(TcpFrame.RDMA_READ_REQUEST, 0, w.context(), 8, seq, w.address(), 0);
            case 2 -> header(TcpFrame.SEND, 0, 0, 0, seq, 0, 0);
            case 3 -> header(TcpFrame.NOP, 0, 0, 0, 0, 0, 0);
            default -> header(TcpFrame.ACK_REQUEST, 0, 0, 0, 0, 0, 0);
        };
    }

    private int forgedContext() {
        java.util.Set<Integer> live = phase.live();
        for (;;) {
            int c = rnd.nextInt();
            if (!live.contains(c)) {
                return c;
            }
        }
    }

    /** A random int that is not 0. */
    private int nonZeroInt() {
        return rnd.nextBoolean() ? 1 << rnd.nextInt(32) : rnd.nextInt() | 1;
    }

    /** {@code header} with {@code n} random payload bytes after it. */
    private byte[] withPayload(byte[] header, int n) {
        byte[] f = Arrays.copyOf(header, header.length + n);
        System.arraycopy(phase.bytes(n), 0, f, header.length, n);
        return f;
    }

    /** An RDMA write of a few bytes or a read through {@code context} at {@code address}, refused with REMOTE_ACCESS. */
    private Hostile accessRefused(String kind, long seq, int context, long address, boolean write, int len) {
        return write
                ? Hostile.refused(kind, frame(TcpFrame.RDMA_WRITE, context, 0, seq, address, phase.bytes(len)), TcpFrame.ACK, seq,
                        TcpFrame.STATUS_REMOTE_ACCESS)
                : Hostile.refused(kind, header(TcpFrame.RDMA_READ_REQUEST, 0, context, len, seq, address, 0),
                        TcpFrame.RDMA_READ_RESPONSE, seq, TcpFrame.STATUS_REMOTE_ACCESS);
    }

    /** A malformed frame of a class chosen at random, with what it needs posted first. */
    Hostile malformed(Link l) throws IOException {
        long seq = l.seq++;
        String kind = KINDS.get(rnd.nextInt(KINDS.size()));
        Window w = phase.whole();
        switch (kind) {
            case "bad magic" -> {
                byte[] f = someHeader(seq);
                int magic = rnd.nextInt(1 << 16);
                if ((short) magic == TcpFrame.MAGIC) {
                    magic ^= 1 << rnd.nextInt(16);
                }
                f[0] = (byte) (magic >> 8);
                f[1] = (byte) magic;
                return Hostile.violation(kind, f);
            }
            case "bad version" -> {
                byte[] f = someHeader(seq);
                f[2] = (byte) (TcpFrame.VERSION + 1 + rnd.nextInt(255)); // any byte but the version
                return Hostile.violation(kind, f);
            }
            case "unknown opcode" -> {
                byte[] f = someHeader(seq);
                f[3] = (byte) (rnd.nextInt(4) == 0 ? 0 : TcpFrame.MAX_OPCODE + 1 + rnd.nextInt(255 - TcpFrame.MAX_OPCODE));
                return Hostile.violation(kind, f);
            }
            case "a field its opcode does not use" -> {
                int[] ops = {TcpFrame.NOP, TcpFrame.ACK_REQUEST, TcpFrame.DISCONNECT, TcpFrame.SEND, TcpFrame.ACK, TcpFrame.RDMA_READ_RESPONSE};
                int op = ops[rnd.nextInt(ops.length)];
                boolean request = op == TcpFrame.SEND || op == TcpFrame.ACK || op == TcpFrame.RDMA_READ_RESPONSE;
                int field = rnd.nextInt(request ? 2 : 4); // these use aux and seq: only the context or the address then
                long wide = rnd.nextBoolean() ? 1L << rnd.nextInt(64) : rnd.nextLong() | 1;
                return Hostile.violation(kind, header(op, 0, field == 0 ? nonZeroInt() : 0, field == 2 ? nonZeroInt() : 0,
                        field == 3 ? wide : request ? seq : 0, field == 1 ? wide : 0, 0));
            }
            case "aux out of range" -> {
                int bit = rnd.nextInt(31);
                int notDeferrable = bit == 0 ? 0 : bit + 1; // any bit of a write's aux but ACK_DEFERRABLE's
                return Hostile.violation(kind, switch (rnd.nextInt(4)) {
                    case 0 -> header(TcpFrame.SEND, 0, 0, rnd.nextInt(4) | 1 << (2 + rnd.nextInt(30)), seq, 0, 0);
                    case 1 -> header(TcpFrame.RDMA_WRITE, 0, w.context(), 1 << notDeferrable, seq, w.address(), 0);
                    case 2 -> header(TcpFrame.ACK, 0, 0, rnd.nextBoolean() ? TcpFrame.MAX_STATUS + 1 + rnd.nextInt(1000) : -1 - rnd.nextInt(1000),
                            seq, 0, 0);
                    default -> header(TcpFrame.RDMA_READ_RESPONSE, 0, 0, rnd.nextBoolean() ? TcpFrame.STATUS_RNR : TcpFrame.MAX_STATUS + 1
                            + rnd.nextInt(1000), seq, 0, 0);
                });
            }
            case "payload on an opcode that takes none" -> {
                long len = switch (rnd.nextInt(3)) {
                    case 0 -> 1; // off by one
                    case 1 -> 2 + rnd.nextInt(1 << 20);
                    default -> 0xFFFF_FFFFL;
                };
                int[] ops = {TcpFrame.NOP, TcpFrame.ACK_REQUEST, TcpFrame.DISCONNECT, TcpFrame.RDMA_READ_REQUEST, TcpFrame.ACK,
                    TcpFrame.RDMA_READ_RESPONSE};
                int op = ops[rnd.nextInt(ops.length)];
                boolean read = op == TcpFrame.RDMA_READ_REQUEST;
                int aux = read ? 8 : op == TcpFrame.RDMA_READ_RESPONSE ? 1 + rnd.nextInt(2) : 0; // a response that is no success has no data
                long s = read || op == TcpFrame.ACK || op == TcpFrame.RDMA_READ_RESPONSE ? seq : 0;
                return Hostile.violation(kind, withPayload(header(op, len, read ? w.context() : 0, aux, s, read ? w.address() : 0, 0),
                        (int) Math.min(len, 16)));
            }
            case "length over the maximum" -> {
                long len = switch (rnd.nextInt(3)) {
                    case 0 -> TcpFrame.Limits.WIRE.maxRdmaSize() + 1; // off by one
                    case 1 -> (1L << 31) + rnd.nextLong(1L << 31);
                    default -> 0xFFFF_FFFFL;
                };
                return Hostile.violation(kind, switch (rnd.nextInt(4)) {
                    case 0 -> withPayload(header(TcpFrame.SEND, len, 0, 0, seq, 0, 0), 16);
                    case 1 -> withPayload(header(TcpFrame.RDMA_WRITE, len, w.context(), 0, seq, w.address(), 0), 16);
                    case 2 -> withPayload(header(TcpFrame.RDMA_READ_RESPONSE, len, 0, TcpFrame.STATUS_OK, seq, 0, 0), 16);
                    default -> header(TcpFrame.RDMA_READ_REQUEST, 0, w.context(), (int) len, seq, w.address(), 0); // aux: the read's length
                });
            }
            case "random bytes where a header belongs" -> { // after a NOP: a header with a bad magic
                byte[] f = withPayload(header(TcpFrame.NOP, 0, 0, 0, 0, 0, 0), TcpFrame.HEADER_BYTES + rnd.nextInt(64));
                f[TcpFrame.HEADER_BYTES] = f[TcpFrame.HEADER_BYTES] == (byte) 0xDA ? 0 : f[TcpFrame.HEADER_BYTES];
                return Hostile.violation(kind, f);
            }
            case "a connection-management frame" -> {
                return Hostile.violation(kind, switch (rnd.nextInt(4)) {
                    case 0 -> frame(TcpFrame.CONNECT_REQUEST, 0, rnd.nextInt(1 << 16), rnd.nextLong(), rnd.nextLong(), phase.bytes(rnd.nextInt(65)));
                    case 1 -> frame(TcpFrame.ACCEPT, 0, 0, 0, 0, phase.bytes(rnd.nextInt(65)));
                    case 2 -> header(TcpFrame.REJECT, 0, 0, rnd.nextInt(2), 0, 0, 0);
                    default -> header(TcpFrame.READY_TO_USE, 0, 0, 0, 0, 0, 0);
                });
            }
            case "a response to nothing" -> { // the target has no request in flight
                return Hostile.violation(kind, switch (rnd.nextInt(3)) {
                    case 0 -> header(TcpFrame.ACK, 0, 0, rnd.nextInt(TcpFrame.MAX_STATUS + 1), rnd.nextLong(), 0, 0);
                    case 1 -> frame(TcpFrame.RDMA_READ_RESPONSE, 0, TcpFrame.STATUS_OK, rnd.nextLong(), 0, phase.bytes(rnd.nextInt(65)));
                    default -> header(TcpFrame.RDMA_READ_RESPONSE, 0, 0, 1 + rnd.nextInt(2), rnd.nextLong(), 0, 0);
                });
            }
            case "a wrong response" -> { // to the one request of the target's in flight
                l.pendingRequest = ++phase.cookies;
                if (rnd.nextBoolean()) {
                    TcpFrame q = phase.targetSendPosted(l, l.pendingRequest);
                    return Hostile.violation(kind, switch (rnd.nextInt(3)) {
                        case 0 -> header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, q.seq + 1 + rnd.nextInt(1000), 0, 0); // not sent yet
                        case 1 -> header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, q.seq - 1 - rnd.nextInt(1000), 0, 0); // done already
                        default -> header(TcpFrame.RDMA_READ_RESPONSE, 0, 0, TcpFrame.STATUS_OK, q.seq, 0, 0); // of a read
                    });
                }
                TcpFrame q = phase.targetReadPosted(l, l.pendingRequest);
                return Hostile.violation(kind, switch (rnd.nextInt(4)) {
                    case 0 -> frame(TcpFrame.RDMA_READ_RESPONSE, 0, TcpFrame.STATUS_OK, q.seq + 1 + rnd.nextInt(1000), 0, phase.bytes(q.aux));
                    case 1 -> frame(TcpFrame.RDMA_READ_RESPONSE, 0, TcpFrame.STATUS_OK, q.seq, 0, phase.bytes(q.aux + (rnd.nextBoolean() ? 1 : -1)));
                    case 2 -> header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, q.seq, 0, 0); // of a send or write
                    default -> header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_RNR, q.seq, 0, 0); // receiver not ready, for a read
                });
            }
            case "truncated payload" -> {
                switch (rnd.nextInt(3)) {
                    case 0 -> {
                        Window t = phase.writable();
                        int len = 1 + rnd.nextInt(Math.min(256, t.length()));
                        byte[] f = frame(TcpFrame.RDMA_WRITE, t.context(), 0, seq, t.address() + rnd.nextInt(t.length() - len + 1), phase.bytes(len));
                        return Hostile.truncated(kind, f, TcpFrame.HEADER_BYTES + rnd.nextInt(len));
                    }
                    case 1 -> {
                        Recv r = l.recvs.isEmpty() ? phase.postRecv(l, 1 + rnd.nextInt(320)) : l.recvs.peek();
                        int len = 1 + rnd.nextInt(r.length());
                        return Hostile.truncated(kind, frame(TcpFrame.SEND, 0, 0, seq, 0, phase.bytes(len)), TcpFrame.HEADER_BYTES + rnd.nextInt(len));
                    }
                    default -> { // the response to the target's read: what came of it may land
                        l.pendingRequest = ++phase.cookies;
                        TcpFrame q = phase.targetReadPosted(l, l.pendingRequest);
                        l.pendingOffset = (int) (phase.readAt - phase.local.registeredAddress());
                        l.pendingLength = q.aux;
                        byte[] f = frame(TcpFrame.RDMA_READ_RESPONSE, 0, TcpFrame.STATUS_OK, q.seq, 0, phase.bytes(q.aux));
                        return Hostile.truncated(kind, f, TcpFrame.HEADER_BYTES + rnd.nextInt(q.aux));
                    }
                }
            }
            case "truncated header" -> {
                return Hostile.truncated(kind, someHeader(seq), 1 + rnd.nextInt(TcpFrame.HEADER_BYTES - 1));
            }
            case "refused: forged context" -> {
                Window t = rnd.nextBoolean() ? phase.whole() : phase.bound();
                int context = rnd.nextInt(8) == 0 ? 0 : forgedContext(); // 0: that of memory of local access only
                return accessRefused(kind, seq, context, t.address() + rnd.nextInt(t.length() - 64), rnd.nextBoolean(), 1 + rnd.nextInt(64));
            }
            case "refused: stale context" -> { // used as it was valid once: what the peer may have kept
                java.util.Set<Integer> live = phase.live();
                List<Window> old = phase.stale.stream().filter(o -> !live.contains(o.context())).toList();
                Window o = old.get(rnd.nextInt(old.size()));
                int len = 1 + rnd.nextInt(64);
                return accessRefused(kind, seq, o.context(), o.address() + rnd.nextInt(o.length() - len + 1), rnd.nextBoolean(), len);
            }
            case "refused: another PZ's memory" -> { // the good pair's, through its valid context
                return accessRefused(kind, seq, phase.target.lmr.rmrContext(), phase.target.lmr.registeredAddress() + rnd.nextInt((1 << 16) - 64),
                        rnd.nextBoolean(), 1 + rnd.nextInt(64));
            }
            case "refused: out of the window" -> {
                boolean write = rnd.nextBoolean();
                Window t = write ? phase.writable() : phase.readable();
                switch (rnd.nextInt(write ? 4 : 5)) {
                    case 0 -> { // from below its start
                        return accessRefused(kind, seq, t.context(), t.address() - 1 - rnd.nextInt(1024), write, 1 + rnd.nextInt(64));
                    }
                    case 1 -> { // one byte past its end
                        int off = rnd.nextInt(t.length() + 1);
                        return accessRefused(kind, seq, t.context(), t.address() + off, write, t.length() - off + 1);
                    }
                    case 2 -> { // past its end
                        return accessRefused(kind, seq, t.context(), t.address() + t.length() + rnd.nextInt(1 << 20), write, 1 + rnd.nextInt(64));
                    }
                    case 3 -> { // where an offset from its start wraps around
                        long address = rnd.nextBoolean() ? Long.MAX_VALUE - rnd.nextInt(64) : Long.MIN_VALUE + rnd.nextInt(64);
                        return accessRefused(kind, seq, t.context(), address, write, 1 + rnd.nextInt(64));
                    }
                    default -> { // a read of up to 2 GiB - 1: a valid header, the window refuses it
                        return accessRefused(kind, seq, t.context(), t.address(), false, t.length() + 1 + rnd.nextInt(Integer.MAX_VALUE - t.length()));
                    }
                }
            }
            case "refused: no privilege" -> {
                boolean write = rnd.nextBoolean();
                Window t = write ? phase.readOnly() : phase.writeOnly();
                int len = 1 + rnd.nextInt(64);
                return accessRefused(kind, seq, t.context(), t.address() + rnd.nextInt(t.length() - len + 1), write, len);
            }
            case "refused: a send longer than its receive" -> {
                Recv r = l.recvs.isEmpty() ? phase.postRecv(l, 1 + rnd.nextInt(256)) : l.recvs.peek();
                int len = r.length() + 1 + (rnd.nextBoolean() ? 0 : rnd.nextInt(256)); // off by one, or more
                return Hostile.refused(kind, frame(TcpFrame.SEND, 0, 0, seq, 0, phase.bytes(len)), TcpFrame.ACK, seq, TcpFrame.STATUS_REMOTE_LENGTH);
            }
            default -> throw new AssertionError(kind);
        }
    }

    /** Sends a malformed frame and checks its end: BROKEN on that Endpoint alone, a violation counted or a refusal. */
    void hostile(Link l, Hostile h) throws IOException {
        long before = phase.transport().violations.get();
        l.sent(h.bytes);
        l.out.write(h.bytes, 0, h.sent);
        tally.frames++;
        tally.malformed++;
        tally.kinds.merge(h.kind, 1L, Long::sum);
        if (h.sent < h.bytes.length) {
            l.s.shutdownOutput(); // the stream ends inside the frame
        }
        List<TcpFrame> answers = phase.rest(l);
        phase.ended(l, EventNumber.CONNECTION_EVENT_BROKEN);
        long counted = phase.transport().violations.get() - before;
        if (h.answerOp == 0) {
            assertThat(answers).as("answers to %s", h.describe()).isEmpty();
            assertThat(counted).as("violations counted for %s", h.describe()).isEqualTo(1);
            tally.counted++;
        } else {
            assertThat(counted).as("violations counted for %s", h.describe()).isZero();
            assertThat(answers).as("answers to %s", h.describe()).hasSize(1);
            TcpFrame a = answers.get(0);
            assertThat(TcpFrame.opcodeName(a.opcode)).as("the refusal of %s", h.describe()).isEqualTo(TcpFrame.opcodeName(h.answerOp));
            assertThat(a.seq).as("the refusal of %s", h.describe()).isEqualTo(h.seq);
            assertThat(a.aux).as("the refusal of %s", h.describe()).isEqualTo(h.status);
            tally.refused++;
        }
    }
}
