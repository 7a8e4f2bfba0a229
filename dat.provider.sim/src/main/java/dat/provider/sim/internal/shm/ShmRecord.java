package dat.provider.sim.internal.shm;

/**
 * The records of the shared-memory rings: a 40-byte header and its payload, each starting a cache line, in
 * the host's byte order (both processes run on one host; the ring file's magic, read in the
 * wrong order, does not match). One object holds the decoded header of the record at a ring's
 * head and is reused, so reading allocates nothing. The layout is specified in
 * {@code docs/sim-provider.md} (the shared-memory wire).
 *
 * <pre>
 * offset size field
 *  0     8    mark     the record's publication ({@link #word}), written last; 0: not published yet
 *                  bits  0-31 length  header + payload bytes of this record (the record occupies it rounded up to 64)
 *                  bits 32-39 opcode
 *                  bits 40-47 flags   {@link #MORE}, {@link #SOLICITED}, {@link #BY_REFERENCE}
 *                  bits 48-63 0
 *  8     4    context  RMR context of RDMA records; the file id of FILE records
 * 12     4    aux      per opcode: atomic operation, immediate data, status, file answer
 * 16     8    seq      the request's sequence number
 * 24     8    address  target address of RDMA records
 * 32     8    total    the whole payload of the request or response, over all its fragments
 * </pre>
 *
 * A consumer reads each field of a header once, into this object, and validates it completely
 * ({@link #validate}) before it acts on it: the peer may write anything, at any time, into a ring.
 */
final class ShmRecord {

    static final int HEADER_BYTES = 40;
    /**
     * Records start on a cache line: a small one (a send of up to 24 bytes) is one line, which the
     * peer's poller takes in one transfer, and no record shares a line with the next one, which
     * the producer writes while the consumer reads this one.
     */
    static final int ALIGNMENT = 64;

    // header offsets
    static final long MARK = 0;
    static final long CONTEXT = 8;
    static final long AUX = 12;
    static final long SEQ = 16;
    static final long ADDRESS = 24;
    static final long TOTAL = 32;

    // the request ring: initiator to target
    /** A send: payload = the message (or its first fragment, or the descriptors of a by-reference send). */
    static final int SEND = 1;
    /** An RDMA write of {@code total} bytes to {@code address} through {@code context}. */
    static final int RDMA_WRITE = 2;
    /** An RDMA read of {@code total} bytes at {@code address} through {@code context}; no payload. */
    static final int RDMA_READ_REQUEST = 3;
    /**
     * An atomic on the 8 bytes at {@code address} (8-byte aligned) through {@code context};
     * {@code aux} = {@link #FETCH_AND_ADD} or {@link #COMPARE_AND_SWAP}; payload: the operand and
     * the value a compare-and-swap stores (two longs).
     */
    static final int ATOMIC_REQUEST = 4;
    /** An RDMA write whose {@code aux} (the immediate data) completes the target's first posted receive. */
    static final int RDMA_WRITE_IMMEDIATE = 5;
    /** The next fragment of the request or response {@code seq}; {@link #MORE} when others follow. */
    static final int CONTINUATION = 6;
    /**
     * A file of this side's shared memory (a file under {@code /dev/shm}), announced before any
     * by-reference record names it: {@code context} = its id; payload = its inode and size (two
     * longs) and its name.
     */
    static final int FILE = 7;
    /** Nothing: the rest of the ring up to its end is unused; the next record starts at offset 0. */
    static final int PADDING = 8;
    // the response ring: target to initiator
    /**
     * The answer to the RDMA read or atomic {@code seq}: {@code aux} = status; with status OK the
     * data (an atomic's: the 8-byte value before it), in fragments when large.
     */
    static final int READ_RESPONSE = 9;
    /** The refusal of request {@code seq}: {@code aux} = {@link #STATUS_REMOTE_ACCESS} or {@link #STATUS_REMOTE_LENGTH}. */
    static final int NAK = 10;
    /** The answer to FILE {@code context}: {@code aux} = {@link #FILE_ACCEPTED} or {@link #FILE_REFUSED}. */
    static final int FILE_ANSWER = 11;
    static final int MAX_OPCODE = FILE_ANSWER;

    /** The smallest PADDING record: its length and opcode. */
    static final int PADDING_MIN = 8;

    // flags
    /** More fragments of this request or response follow, as CONTINUATION records. */
    static final int MORE = 1;
    /** A send or a write with immediate data: the sender asked for a solicited event. */
    static final int SOLICITED = 2;
    /**
     * A send or RDMA write whose payload is not in the ring but in a shared file of the
     * initiator's: the payload is a list of {@link #DESCRIPTOR_BYTES} descriptors (file id, file
     * offset, length), whose lengths add up to {@code total}; the target copies from its
     * read-only mapping of the file.
     */
    static final int BY_REFERENCE = 4;
    static final int ALL_FLAGS = MORE | SOLICITED | BY_REFERENCE;

    /** A by-reference descriptor: file id (int), 4 bytes of 0, file offset (long), length (long). */
    static final int DESCRIPTOR_BYTES = 24;

    static final int FETCH_AND_ADD = 0;
    static final int COMPARE_AND_SWAP = 1;
    static final int ATOMIC_PAYLOAD_BYTES = 16;
    static final int ATOMIC_RESULT_BYTES = 8;

    static final int STATUS_OK = 0;
    static final int STATUS_REMOTE_ACCESS = 1;
    static final int STATUS_REMOTE_LENGTH = 2;

    static final int FILE_ACCEPTED = 0;
    static final int FILE_REFUSED = 1;
    /** File ids are 0 to this - 1. */
    static final int MAX_FILES = 64;
    /** The longest file name a FILE record carries. */
    static final int MAX_FILE_NAME = 200;
    static final int FILE_FIXED_BYTES = 16;

    // why decode() refuses a header: constants, so refusing allocates nothing
    static final String BAD_LENGTH = "record length out of range";
    static final String BAD_OPCODE = "unknown opcode";
    static final String BAD_FLAGS = "flags the opcode does not take";
    static final String NONZERO_UNUSED = "a field the opcode does not use is not zero";
    static final String BAD_AUX = "aux out of range for the opcode";
    static final String BAD_TOTAL = "total out of range for the opcode";
    static final String BAD_ATOMIC = "an atomic without its two operands";
    static final String MISALIGNED = "an atomic's address not 8-byte aligned";
    static final String WRONG_RING = "an opcode of the other ring";
    static final String BAD_DESCRIPTORS = "by-reference descriptors of the wrong length";

    int length;
    int opcode;
    int flags;
    int context;
    int aux;
    long seq;
    long address;
    long total;

    /** The payload bytes of the decoded record. */
    int payload() {
        return length - HEADER_BYTES;
    }

    boolean more() {
        return (flags & MORE) != 0;
    }

    /** A record's mark: its length, opcode and flags in one long, never 0 (a record has a length). */
    static long word(int length, int opcode, int flags) {
        return (length & 0xFFFF_FFFFL) | (long) (opcode & 0xFF) << 32 | (long) (flags & 0xFF) << 40;
    }

    static int length(long word) {
        return (int) word;
    }

    static int opcode(long word) {
        return (int) (word >>> 32) & 0xFF;
    }

    static int flags(long word) {
        return (int) (word >>> 40) & 0xFF;
    }

    /** The mark's bits that must be 0. */
    static int reserved(long word) {
        return (int) (word >>> 48);
    }

    /** The space a record of {@code length} bytes occupies. */
    static long aligned(long length) {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /**
     * Validates the decoded fields (set by the {@link Ring} that read them).
     *
     * @param requestRing whether the record came from a request ring (else a response ring)
     * @param maxTotal the largest payload a request or response may have (the IA's frame limit)
     * @return {@code null} when the record is valid, else why it is not
     */
    String validate(boolean requestRing, long maxTotal) {
        int op = opcode;
        if (op == 0 || op > MAX_OPCODE) {
            return BAD_OPCODE;
        }
        if (op == PADDING) {
            return null; // its length was checked by the ring (it reaches the end)
        }
        if (length < HEADER_BYTES) {
            return BAD_LENGTH;
        }
        boolean response = op == READ_RESPONSE || op == NAK || op == FILE_ANSWER;
        if (response == requestRing && op != CONTINUATION) {
            return WRONG_RING;
        }
        int payload = payload();
        if (total < 0 || total > maxTotal) {
            return BAD_TOTAL;
        }
        return switch (op) {
            case SEND -> context != 0 || aux != 0 || address != 0 ? NONZERO_UNUSED : dataRecord(payload);
            case RDMA_WRITE -> aux != 0 ? BAD_AUX : dataRecord(payload);
            case RDMA_WRITE_IMMEDIATE -> dataRecord(payload); // every aux is an immediate value
            case RDMA_READ_REQUEST -> aux != 0 ? BAD_AUX : flags != 0 ? BAD_FLAGS : payload != 0 ? BAD_LENGTH : null;
            case ATOMIC_REQUEST -> aux != FETCH_AND_ADD && aux != COMPARE_AND_SWAP ? BAD_AUX : flags != 0 ? BAD_FLAGS
                    : payload != ATOMIC_PAYLOAD_BYTES || total != ATOMIC_RESULT_BYTES ? BAD_ATOMIC
                    : (address & (Long.BYTES - 1)) != 0 ? MISALIGNED : null;
            case CONTINUATION -> context != 0 || aux != 0 || address != 0 || total != 0 ? NONZERO_UNUSED
                    : (flags & ~MORE) != 0 ? BAD_FLAGS : payload == 0 ? BAD_LENGTH : null;
            case FILE -> context < 0 || context >= MAX_FILES ? BAD_AUX : flags != 0 ? BAD_FLAGS
                    : aux != 0 || seq != 0 || address != 0 || total != 0 ? NONZERO_UNUSED
                    : payload <= FILE_FIXED_BYTES || payload > FILE_FIXED_BYTES + MAX_FILE_NAME ? BAD_LENGTH : null;
            case READ_RESPONSE -> context != 0 || address != 0 ? NONZERO_UNUSED
                    : aux != STATUS_OK && aux != STATUS_REMOTE_ACCESS ? BAD_AUX
                    : (flags & ~MORE) != 0 ? BAD_FLAGS
                    : aux != STATUS_OK && (payload != 0 || total != 0 || flags != 0) ? BAD_LENGTH
                    : payload > total || aux == STATUS_OK && (payload < total) != more() ? BAD_LENGTH : null;
            case NAK -> context != 0 || address != 0 || total != 0 ? NONZERO_UNUSED
                    : aux != STATUS_REMOTE_ACCESS && aux != STATUS_REMOTE_LENGTH ? BAD_AUX
                    : flags != 0 ? BAD_FLAGS : payload != 0 ? BAD_LENGTH : null;
            case FILE_ANSWER -> context < 0 || context >= MAX_FILES ? BAD_AUX : flags != 0 ? BAD_FLAGS
                    : aux != FILE_ACCEPTED && aux != FILE_REFUSED ? BAD_AUX
                    : seq != 0 || address != 0 || total != 0 ? NONZERO_UNUSED : payload != 0 ? BAD_LENGTH : null;
            default -> BAD_OPCODE;
        };
    }

    /** A send's or write's first record: its flags, and its payload against its total. */
    private String dataRecord(int payload) {
        if ((flags & ~ALL_FLAGS) != 0 || (opcode != SEND && opcode != RDMA_WRITE_IMMEDIATE && (flags & SOLICITED) != 0)) {
            return BAD_FLAGS;
        }
        if ((flags & BY_REFERENCE) != 0) {
            return (flags & MORE) != 0 || payload == 0 || payload % DESCRIPTOR_BYTES != 0 ? BAD_DESCRIPTORS : null;
        }
        if (payload > total || (payload < total) != ((flags & MORE) != 0)) {
            return BAD_LENGTH; // a fragment says whether more follow, and a whole record has them all
        }
        return null;
    }

    static String opcodeName(int opcode) {
        return switch (opcode) {
            case SEND -> "SEND";
            case RDMA_WRITE -> "RDMA_WRITE";
            case RDMA_READ_REQUEST -> "RDMA_READ_REQUEST";
            case ATOMIC_REQUEST -> "ATOMIC_REQUEST";
            case RDMA_WRITE_IMMEDIATE -> "RDMA_WRITE_IMMEDIATE";
            case CONTINUATION -> "CONTINUATION";
            case FILE -> "FILE";
            case PADDING -> "PADDING";
            case READ_RESPONSE -> "READ_RESPONSE";
            case NAK -> "NAK";
            case FILE_ANSWER -> "FILE_ANSWER";
            default -> "opcode " + opcode;
        };
    }

    @Override
    public String toString() {
        return opcodeName(opcode) + "[len=" + length + " flags=" + flags + " ctx=" + context + " aux=" + aux + " seq=" + seq
                + " addr=0x" + Long.toHexString(address) + " total=" + total + "]";
    }
}
