package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.core.*;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The wire format of the sim provider's TCP transport: every message between two IAs is a frame,
 * a fixed 32-byte header followed by {@code payloadLength} payload bytes. One object holds one
 * decoded header and is reused for every frame of a connection, so reading a frame allocates
 * nothing.
 *
 * <pre>
 * offset size field
 *  0     2    magic 0xDA7A
 *  2     1    version 5 (a peer of another version is refused, not misread)
 *  3     1    opcode
 *  4     4    payloadLength  (unsigned; bytes after the header)
 *  8     4    context        (RMR/LMR context of RDMA frames, QoS of CONNECT_REQUEST, else 0)
 * 12     4    aux            (per opcode: IA port, read length, status, reject reason, send and write flags,
 *                             atomic operation, immediate data; else 0)
 * 16     8    seq            (request sequence number; the active port qualifier in CONNECT_REQUEST)
 * 24     8    address        (target address of RDMA frames, target qualifier of CONNECT_REQUEST)
 * </pre>
 *
 * All fields are big-endian. {@link #decode} validates a header completely before anyone reads
 * or allocates for its payload: the magic, the version, the opcode, every field an opcode does
 * not use being zero, per-opcode ranges, and the payload length against the maximum of its kind
 * ({@link Limits}). A peer that sends anything else is broken, not trusted: the reason it returns is
 * what the transport logs when it tears the connection down.
 */
final class TcpFrame {

    static final int HEADER_BYTES = 32;
    static final short MAGIC = (short) 0xDA7A;
    static final byte VERSION = 5;

    // Connection management: before ESTABLISHED (and DISCONNECT after).
    /**
     * Active to passive: connect to qualifier {@code address}; {@code context} = QoS, with
     * {@link #WITH_ATTRIBUTES}; payload = private data, then the active Endpoint's attributes
     * ({@link #ATTRIBUTES_BYTES}) when that bit is set.
     */
    static final int CONNECT_REQUEST = 1;
    /**
     * {@code context} bit of a CONNECT_REQUEST: its payload ends with the active Endpoint's
     * attributes, which a provider-created Endpoint takes (dat_psp_create(3DAT): "to match the
     * Active side connection request"). Without it (an older or a raw peer) such an Endpoint
     * has the IA's defaults.
     */
    static final int WITH_ATTRIBUTES = 1 << 31;
    /** The active Endpoint's attributes in a CONNECT_REQUEST: two longs and ten ints. */
    static final int ATTRIBUTES_BYTES = 2 * Long.BYTES + 10 * Integer.BYTES;
    /**
     * {@code context} bit of a CONNECT_REQUEST: its payload ends (after the attributes, if any)
     * with an offer of shared memory ({@link #SHM_OFFER_BYTES}: a nonce and the name of a ring
     * file in {@code /dev/shm}), which a passive side on the same host may take.
     */
    static final int WITH_SHM = 1 << 30;
    /**
     * {@code context} bit of a CONNECT_REQUEST: the active side offers to keep the socket for the
     * next connection between the two IAs ({@link #ACCEPT_REUSE}); no payload. Beside a
     * shared-memory offer, the ring file then stays mapped with the socket, and the next
     * connection's offer names it again.
     */
    static final int WITH_REUSE = 1 << 29;
    /** The shared-memory offer of a CONNECT_REQUEST. */
    static final int SHM_OFFER_BYTES = dat.provider.sim.internal.shm.ShmSession.OFFER_BYTES;
    /**
     * Passive to active: accepted; payload = private data; {@code aux} = {@link #ACCEPT_SHM} when the
     * passive side took the shared-memory offer (the payload then ends with its
     * {@link #SHM_ANSWER_BYTES}-byte nonce), else 0.
     */
    static final int ACCEPT = 2;
    /** {@code aux} bit of an ACCEPT that takes the shared-memory offer. */
    static final int ACCEPT_SHM = 1;
    /**
     * {@code aux} bit of an ACCEPT that takes the offer of {@link #WITH_REUSE}: the connection ends
     * with a DISCONNECT from each side and no FIN, and the socket then carries the active side's
     * next CONNECT_REQUEST to the same IA.
     */
    static final int ACCEPT_REUSE = 2;
    /** The passive side's nonce an ACCEPT_SHM carries. */
    static final int SHM_ANSWER_BYTES = dat.provider.sim.internal.shm.ShmSession.ANSWER_BYTES;
    /** Passive to active: rejected; {@code aux} = {@link #REJECT_PEER} or {@link #REJECT_NON_PEER}. */
    static final int REJECT = 3;
    /** Either side: graceful disconnect; no payload. */
    static final int DISCONNECT = 4;
    // Data transfer: only while ESTABLISHED.
    /** A send; payload = the message; {@code aux}: {@link #SOLICITED}, {@link #ACK_DEFERRABLE}. */
    static final int SEND = 5;
    /** An RDMA write of the payload to {@code address} through RMR context {@code context}; {@code aux}: {@link #ACK_DEFERRABLE}. */
    static final int RDMA_WRITE = 6;
    /** {@code aux} bit of a SEND: the sender asked for a solicited event. */
    static final int SOLICITED = 1;
    /**
     * {@code aux} bit of a SEND or RDMA_WRITE: the initiator has so many requests in flight that
     * the target may hold this one's (successful) ACK when its socket runs dry, until it has held
     * {@link #ACKS_HELD_MAX} ACKs, or ACKs for {@link #ACK_HELD_BYTES} payload bytes, or an
     * {@link #ACK_REQUEST} comes. Without the bit the ACK goes out once the target has read what
     * its socket holds.
     */
    static final int ACK_DEFERRABLE = 2;
    /**
     * The most successful ACKs a target holds (merged into one, they are cumulative) before it
     * sends them, and the requests in flight from which an initiator marks a request
     * {@link #ACK_DEFERRABLE}. Both sides use the same numbers (this and {@link #ACK_HELD_BYTES}),
     * so a held ACK always comes: an initiator with this much in flight makes the target reach
     * it; with less, it asks ({@link #ACK_REQUEST}) once an ACK left it there with a deferrable
     * request in flight.
     */
    static final int ACKS_HELD_MAX = 16;
    /** The payload bytes of sends and writes whose held ACKs a target sends (see {@link #ACKS_HELD_MAX}). */
    static final long ACK_HELD_BYTES = 4 << 20;
    /** An RDMA read of {@code aux} bytes (unsigned, 0 allowed) at {@code address} through {@code context}; no payload. */
    static final int RDMA_READ_REQUEST = 7;
    /** The answer to the read with sequence {@code seq}; {@code aux} = status, payload = the data. */
    static final int RDMA_READ_RESPONSE = 8;
    /**
     * Target to initiator: request {@code seq} (a send or write) is done; {@code aux} = status.
     * With status OK it is cumulative: every send and write in flight up to {@code seq} is done
     * (the target merges the ACKs it has not written yet).
     */
    static final int ACK = 9;
    /** Either side, once established: nothing but proof of life (sent when idle). */
    static final int NOP = 10;
    /**
     * Active to passive, the answer to ACCEPT: the active side took the accept, the connection is
     * established (IB CM's RTU). Until it arrives the passive Endpoint is COMPLETION_PENDING, so an
     * accept that crosses the active side's timeout ends in ACCEPT_COMPLETION_ERROR, not ESTABLISHED.
     */
    static final int READY_TO_USE = 11;
    /**
     * Initiator to target, once established: send the ACKs held for the requests before this
     * frame (see {@link #ACK_DEFERRABLE}); no payload, every field zero.
     */
    static final int ACK_REQUEST = 12;
    /**
     * An atomic on the 8 bytes at {@code address} (8-byte aligned) through RMR context
     * {@code context}: {@code aux} = {@link #FETCH_AND_ADD} or {@link #COMPARE_AND_SWAP}; payload =
     * {@link #ATOMIC_PAYLOAD_BYTES}: the operand (added, or compared) and the value a
     * compare-and-swap stores, each a big-endian long. Answered as an RDMA read is: an
     * RDMA_READ_RESPONSE whose payload is the value before the operation, a big-endian long.
     */
    static final int ATOMIC_REQUEST = 13;
    static final int FETCH_AND_ADD = 0;
    static final int COMPARE_AND_SWAP = 1;
    static final int ATOMIC_PAYLOAD_BYTES = 2 * Long.BYTES;
    /** An ATOMIC_REQUEST's answer: the payload of its RDMA_READ_RESPONSE. */
    static final int ATOMIC_RESULT_BYTES = Long.BYTES;
    /**
     * An RDMA write of the payload to {@code address} through RMR context {@code context} whose
     * {@code aux} (the immediate data) completes the target's first posted receive once the
     * payload landed; answered with an ACK as a send is (receiver-not-ready included). Never
     * {@link #ACK_DEFERRABLE}.
     */
    static final int RDMA_WRITE_IMMEDIATE = 14;
    /**
     * An {@link #RDMA_WRITE_IMMEDIATE} whose sender asked for a solicited event
     * ({@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}), as a send's {@link #SOLICITED}: an opcode of its
     * own, as the write's {@code aux} is all immediate data. {@link #decode} reads it as
     * {@link #RDMA_WRITE_IMMEDIATE} with {@link #solicitedWrite} set.
     */
    static final int RDMA_WRITE_IMMEDIATE_SOLICITED = 15;
    static final int MAX_OPCODE = RDMA_WRITE_IMMEDIATE_SOLICITED;

    static final int REJECT_PEER = 0;
    static final int REJECT_NON_PEER = 1;

    /** Status values of ACK and RDMA_READ_RESPONSE: what the target found. */
    static final int STATUS_OK = 0;
    /** The remote access check failed (context, bounds, privileges, PZ, liveness). */
    static final int STATUS_REMOTE_ACCESS = 1;
    /** The posted receive was smaller than the send. */
    static final int STATUS_REMOTE_LENGTH = 2;
    /**
     * ACK only: receiver not ready, the send found no posted receive. The target dropped it and
     * drops every request behind it until the initiator sends that sequence number again, after a
     * backoff (RC's RNR NAK and retry, infinitely, as the in-JVM path waits).
     */
    static final int STATUS_RNR = 3;
    static final int MAX_STATUS = STATUS_RNR;

    // The reasons decode() rejects a header for; constants, so rejecting allocates nothing.
    static final String BAD_MAGIC = "bad magic";
    static final String BAD_VERSION = "unsupported version";
    static final String BAD_OPCODE = "unknown opcode";
    static final String OVERSIZED = "payload length over the maximum of its kind";
    static final String UNEXPECTED_PAYLOAD = "payload on an opcode that takes none";
    static final String NONZERO_UNUSED = "a field the opcode does not use is not zero";
    static final String BAD_AUX = "aux out of range for the opcode";
    static final String BAD_LENGTH = "a read over the maximum";
    static final String BAD_ATOMIC = "an atomic without its two operands";
    static final String MISALIGNED = "an atomic's address not 8-byte aligned";
    static final String TRUNCATED = "truncated header";

    /**
     * The largest payloads a connection accepts, per kind: checked before one payload byte is
     * read, so a length field can never make the receiver allocate or read more than this.
     */
    record Limits(int maxPrivateData, long maxMessageSize, long maxRdmaSize) {

        /**
         * The limits on the wire, whatever the receiving IA's own: the peer checked what it sends
         * against its own maxima, and in one JVM a target's smaller maxima refuse nothing either
         * (a send is bounded by the receive it lands in, an RDMA access by its window). Private
         * data up to {@link SimLimits#MAX_PRIVATE_DATA}, allocated before the request is known to
         * be good; payloads up to what one frame carries (2 GiB - 1), which land in consumer
         * memory and allocate nothing.
         */
        static final Limits WIRE = new Limits(SimLimits.MAX_PRIVATE_DATA, Integer.MAX_VALUE, Integer.MAX_VALUE);

        /** The maximum payload of an opcode (a valid one). */
        long maxPayload(int opcode) {
            return switch (opcode) {
                case CONNECT_REQUEST -> maxPrivateData + ATTRIBUTES_BYTES + SHM_OFFER_BYTES;
                case ACCEPT -> maxPrivateData + SHM_ANSWER_BYTES;
                case SEND -> maxMessageSize;
                case RDMA_WRITE, RDMA_WRITE_IMMEDIATE, RDMA_WRITE_IMMEDIATE_SOLICITED, RDMA_READ_RESPONSE -> maxRdmaSize;
                case ATOMIC_REQUEST -> ATOMIC_PAYLOAD_BYTES;
                default -> 0;
            };
        }
    }

    /** The opcode; {@link #RDMA_WRITE_IMMEDIATE} for {@link #RDMA_WRITE_IMMEDIATE_SOLICITED} too. */
    int opcode;
    /** Whether the frame is an {@link #RDMA_WRITE_IMMEDIATE_SOLICITED}. */
    boolean solicitedWrite;
    /** Unsigned, at most 2^32-1; a long so that it never reads as negative. */
    long payloadLength;
    int context;
    int aux;
    long seq;
    long address;

    /**
     * Decodes and validates the header at the buffer's position, advancing it by
     * {@link #HEADER_BYTES}. On failure this frame's fields are unspecified.
     *
     * @param in a big-endian buffer
     * @param limits the payload maxima
     * @return {@code null} when the header is valid, else the reason it is not
     */
    String decode(ByteBuffer in, Limits limits) {
        if (in.remaining() < HEADER_BYTES) {
            return TRUNCATED;
        }
        if (in.order() != ByteOrder.BIG_ENDIAN) {
            throw new IllegalArgumentException("frames are big-endian");
        }
        short magic = in.getShort();
        byte version = in.get();
        int op = in.get() & 0xFF;
        payloadLength = Integer.toUnsignedLong(in.getInt());
        context = in.getInt();
        aux = in.getInt();
        seq = in.getLong();
        address = in.getLong();
        solicitedWrite = op == RDMA_WRITE_IMMEDIATE_SOLICITED;
        opcode = solicitedWrite ? RDMA_WRITE_IMMEDIATE : op;
        if (magic != MAGIC) {
            return BAD_MAGIC;
        }
        if (version != VERSION) {
            return BAD_VERSION;
        }
        if (op == 0 || op > MAX_OPCODE) {
            return BAD_OPCODE;
        }
        long max = limits.maxPayload(op);
        if (payloadLength > max) {
            return max == 0 ? UNEXPECTED_PAYLOAD : OVERSIZED;
        }
        return switch (op) {
            case CONNECT_REQUEST -> aux < 0 || aux > 0xFFFF ? BAD_AUX : privateData(requestExtra(context), limits);
            case ACCEPT -> context != 0 || address != 0 || seq != 0 ? NONZERO_UNUSED
                    : (aux & ~(ACCEPT_SHM | ACCEPT_REUSE)) != 0 ? BAD_AUX
                    : privateData((aux & ACCEPT_SHM) != 0 ? SHM_ANSWER_BYTES : 0, limits);
            case DISCONNECT, NOP, READY_TO_USE, ACK_REQUEST -> (context | aux) != 0 || address != 0 || seq != 0 ? NONZERO_UNUSED : null;
            case SEND -> context != 0 || address != 0 ? NONZERO_UNUSED : (aux & ~(SOLICITED | ACK_DEFERRABLE)) != 0 ? BAD_AUX : null;
            case REJECT -> (context != 0 || seq != 0 || address != 0) ? NONZERO_UNUSED
                    : aux != REJECT_PEER && aux != REJECT_NON_PEER ? BAD_AUX : null;
            // a zero or forged context is the target's access check to refuse (REMOTE_ACCESS), not a framing error
            case RDMA_WRITE -> (aux & ~ACK_DEFERRABLE) != 0 ? BAD_AUX : null;
            case RDMA_READ_REQUEST -> Integer.toUnsignedLong(aux) > limits.maxRdmaSize() ? BAD_LENGTH : null;
            case ATOMIC_REQUEST -> aux != FETCH_AND_ADD && aux != COMPARE_AND_SWAP ? BAD_AUX
                    : payloadLength != ATOMIC_PAYLOAD_BYTES ? BAD_ATOMIC
                    : (address & (Long.BYTES - 1)) != 0 ? MISALIGNED : null;
            case RDMA_WRITE_IMMEDIATE, RDMA_WRITE_IMMEDIATE_SOLICITED -> null; // every aux is an immediate value
            case RDMA_READ_RESPONSE, ACK -> (context != 0 || address != 0) ? NONZERO_UNUSED
                    : aux < 0 || aux > MAX_STATUS ? BAD_AUX
                    : op == ACK && payloadLength != 0 ? UNEXPECTED_PAYLOAD
                    : op == RDMA_READ_RESPONSE && aux == STATUS_RNR ? BAD_AUX
                    : aux != STATUS_OK && payloadLength != 0 ? UNEXPECTED_PAYLOAD : null;
            default -> BAD_OPCODE;
        };
    }

    /** The bytes a CONNECT_REQUEST with this {@code context} carries after its private data. */
    static int requestExtra(int context) {
        return ((context & WITH_ATTRIBUTES) != 0 ? ATTRIBUTES_BYTES : 0) + ((context & WITH_SHM) != 0 ? SHM_OFFER_BYTES : 0);
    }

    /** A CM frame's payload: at least {@code extra} bytes, and at most the private-data bound besides. */
    private String privateData(int extra, Limits limits) {
        return payloadLength < extra ? BAD_LENGTH : payloadLength - extra > limits.maxPrivateData() ? OVERSIZED : null;
    }

    /** The attributes a CONNECT_REQUEST carries ({@link #WITH_ATTRIBUTES}), {@link #ATTRIBUTES_BYTES} of them. */
    static void putAttributes(ByteBuffer out, dat.api.EpAttributes a) {
        out.putLong(a.maxMessageSize()).putLong(a.maxRdmaSize());
        out.putInt(a.qos()).putInt(a.maxRecvDtos()).putInt(a.maxRequestDtos()).putInt(a.maxRecvIov())
                .putInt(a.maxRequestIov()).putInt(a.maxRdmaReadIn()).putInt(a.maxRdmaReadOut())
                .putInt(a.srqSoftHighWatermark()).putInt(a.maxRdmaReadIov()).putInt(a.maxRdmaWriteIov());
    }

    /**
     * The attributes of a CONNECT_REQUEST, as a peer sent them: the passive IA checks them against
     * its limits as for its own Endpoints, and falls back to its defaults where they do not fit.
     * The completion flags and the maps do not travel (a provider-created Endpoint starts with
     * the default flags, as in one JVM).
     */
    static dat.api.EpAttributes getAttributes(ByteBuffer in) {
        long maxMessageSize = in.getLong();
        long maxRdmaSize = in.getLong();
        return new dat.api.EpAttributes(dat.api.ServiceType.RC, maxMessageSize, maxRdmaSize, in.getInt(),
                dat.api.CompletionFlags.DEFAULT, dat.api.CompletionFlags.DEFAULT, in.getInt(), in.getInt(), in.getInt(),
                in.getInt(), in.getInt(), in.getInt(), in.getInt(), in.getInt(), in.getInt(),
                java.util.Map.of(), java.util.Map.of());
    }

    /** A whole control frame as one buffer (the control path may allocate). */
    static ByteBuffer control(int op, int len, int ctx, int aux, long seq, long addr, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + len).order(ByteOrder.BIG_ENDIAN);
        encode(b, op, len, ctx, aux, seq, addr);
        if (payload != null) {
            b.put(payload, 0, len);
        }
        return b.flip();
    }

    /**
     * Writes a header at the buffer's position, advancing it by {@link #HEADER_BYTES}.
     *
     * @param out a big-endian buffer with room for a header
     */
    static void encode(ByteBuffer out, int opcode, long payloadLength, int context, int aux, long seq, long address) {
        if (payloadLength < 0 || payloadLength > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("payload length " + payloadLength);
        }
        out.putShort(MAGIC);
        out.put(VERSION);
        out.put((byte) opcode);
        out.putInt((int) payloadLength);
        out.putInt(context);
        out.putInt(aux);
        out.putLong(seq);
        out.putLong(address);
    }

    /** Writes this frame's header (the fields as they are). */
    void encode(ByteBuffer out) {
        encode(out, solicitedWrite ? RDMA_WRITE_IMMEDIATE_SOLICITED : opcode, payloadLength, context, aux, seq, address);
    }

    static String opcodeName(int opcode) {
        return switch (opcode) {
            case CONNECT_REQUEST -> "CONNECT_REQUEST";
            case ACCEPT -> "ACCEPT";
            case REJECT -> "REJECT";
            case DISCONNECT -> "DISCONNECT";
            case SEND -> "SEND";
            case RDMA_WRITE -> "RDMA_WRITE";
            case RDMA_READ_REQUEST -> "RDMA_READ_REQUEST";
            case RDMA_READ_RESPONSE -> "RDMA_READ_RESPONSE";
            case ACK -> "ACK";
            case NOP -> "NOP";
            case READY_TO_USE -> "READY_TO_USE";
            case ACK_REQUEST -> "ACK_REQUEST";
            case ATOMIC_REQUEST -> "ATOMIC_REQUEST";
            case RDMA_WRITE_IMMEDIATE -> "RDMA_WRITE_IMMEDIATE";
            case RDMA_WRITE_IMMEDIATE_SOLICITED -> "RDMA_WRITE_IMMEDIATE_SOLICITED";
            default -> "opcode " + opcode;
        };
    }

    @Override
    public String toString() {
        return name() + "[len=" + payloadLength + " ctx=" + Integer.toHexString(context) + " aux=" + aux + " seq=" + seq
                + " addr=0x" + Long.toHexString(address) + "]";
    }

    /** The name of the frame's opcode as it came on the wire. */
    String name() {
        return opcodeName(solicitedWrite ? RDMA_WRITE_IMMEDIATE_SOLICITED : opcode);
    }
}
