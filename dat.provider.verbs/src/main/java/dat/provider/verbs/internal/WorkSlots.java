package dat.provider.verbs.internal;

/**
 * What the provider remembers about each posted work request of one queue (an Endpoint's request
 * or receive queue, or an SRQ), indexed by the slot number carried in the low half of the
 * request's {@code wr_id}: the consumer's cookie, the DTO's kind and length, whether its success
 * event is suppressed, and what a bind needs when it completes. Acquiring and releasing a slot allocates nothing; the monitor is taken by
 * the poster and by the EVD that reaps the completion, never by anyone else.
 */
final class WorkSlots {

    static final byte SEND = 1;
    static final byte RDMA_WRITE = 2;
    static final byte RDMA_READ = 3;
    static final byte RECV = 4;
    static final byte BIND = 5;
    static final byte RDMA_WRITE_IMM = 6;
    static final byte FETCH_AND_ADD = 7;
    static final byte CMP_AND_SWAP = 8;

    /**
     * The {@code DAT_IB_EXT_TYPE} of a requester's completion of a kind, or -1 for a DAT 1.2 DTO
     * (and a bind).
     */
    static int extensionType(byte kind) {
        return switch (kind) {
            case RDMA_WRITE_IMM -> dat.api.ext.IbExtension.RDMA_WRITE_IMMED;
            case FETCH_AND_ADD -> dat.api.ext.IbExtension.FETCH_AND_ADD;
            case CMP_AND_SWAP -> dat.api.ext.IbExtension.CMP_AND_SWAP;
            default -> -1;
        };
    }

    /**
     * The {@code wr_id} bit that marks a request of an Endpoint's receive queue. A completion's
     * {@code opcode} cannot tell the queues apart: verbs defines it only for successful
     * completions (rxe leaves it 0, {@code IBV_WC_SEND}, in a flushed or failed receive).
     */
    static final long RECV_QUEUE = 1L << 31;

    /** @return whether the {@code wr_id} names a request of an Endpoint's receive queue */
    static boolean isRecv(long wrId) {
        return (wrId & RECV_QUEUE) != 0;
    }

    /**
     * The slots a {@code wr_id} of {@code owner} (its owner id's object) names: an Endpoint's send
     * or receive queue, or an SRQ's buffers.
     *
     * @return the slots, or {@code null} when the owner has none (freed since)
     */
    static WorkSlots of(Object owner, long wrId) {
        if (owner instanceof VerbsEp e) {
            return isRecv(wrId) ? e.recvSlots : e.sendSlots;
        }
        return owner instanceof VerbsSrq srq ? srq.slots : null;
    }

    /** @return the slot number a {@code wr_id} carries */
    static int slot(long wrId) {
        return (int) (wrId & (RECV_QUEUE - 1));
    }

    final long[] cookies;
    final long[] lengths;
    final byte[] kinds;
    final boolean[] suppress;
    /**
     * Whether a DTO was posted {@code DAT_COMPLETION_UNSIGNALLED_FLAG}: its successful completion
     * is queued as a non-notification event, which ends no wait and triggers no CNO.
     */
    final boolean[] unsignalled;
    final Object[] refs;
    private final boolean[] busy;
    private final int[] free;
    private int freeTop;

    WorkSlots(int capacity) {
        cookies = new long[capacity];
        lengths = new long[capacity];
        kinds = new byte[capacity];
        suppress = new boolean[capacity];
        unsignalled = new boolean[capacity];
        refs = new Object[capacity];
        busy = new boolean[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = capacity - 1 - i;
        }
        freeTop = capacity;
    }

    /** @return a free slot, or -1 when the queue is full */
    synchronized int acquire() {
        if (freeTop == 0) {
            return -1;
        }
        int slot = free[--freeTop];
        busy[slot] = true;
        return slot;
    }

    /**
     * Gives a slot back.
     *
     * @return {@code false} when the slot was not in use: a duplicate or stale completion, which
     *     the caller drops instead of reporting
     */
    synchronized boolean release(int slot) {
        if (slot < 0 || slot >= busy.length || !busy[slot]) {
            return false;
        }
        busy[slot] = false;
        refs[slot] = null;
        free[freeTop++] = slot;
        return true;
    }

    /** @return how many requests are posted and not yet reaped */
    synchronized int outstanding() {
        return free.length - freeTop;
    }

    int capacity() {
        return free.length;
    }
}
