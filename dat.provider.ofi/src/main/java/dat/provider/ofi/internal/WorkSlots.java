package dat.provider.ofi.internal;

import dat.api.ext.IbExtension;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the provider remembers about each posted DTO of one queue (an Endpoint's request or receive
 * queue, or an SRQ): the consumer's cookie, the DTO's kind and length, whether its success event
 * is suppressed, and the token libfabric carries back as the completion's {@code op_context}.
 * Receive queues also keep a copy of each receive's IOV, so that receives posted before the
 * connection exists ({@code dat_ep_post_recv} is valid in every state) can be handed to the
 * libfabric endpoint once it is made.
 *
 * <p><b>Tokens.</b> {@code op_context} is a 64-bit value, never dereferenced (the provider asks
 * {@code fi_getinfo} for no {@code FI_CONTEXT} mode): the owner's id in bits 32..62, an 8-bit
 * sequence number of the slot in bits 24..31, the receive-queue bit 23 and the slot in bits 0..22.
 * A completion is reported only when its token is the one its slot holds, so a late completion of
 * a DTO the provider already flushed (its endpoint closed) can never be taken for the slot's next
 * DTO.
 *
 * <p><b>States.</b> A slot is free, posted (libfabric has the DTO), or queued (its completion sits
 * in an EVD's ring). Tearing a connection down flushes exactly the posted ones. Acquiring and
 * releasing a slot allocates nothing; the monitor is taken by the poster, by the EVD that reaps the
 * completion, and by a teardown.
 *
 * <p><b>Silent writes.</b> A request queue may post a suppressed RDMA write without asking
 * libfabric for a completion ({@link #markSilent}): its slot stays posted, in a FIFO of its own,
 * until a later DTO of the queue whose completion means that the target processed everything
 * before it ({@link #confirming}) completes successfully ({@link #confirmBefore}), or until a
 * teardown flushes it. At most half the queue is silent at once, so that a confirming DTO always
 * has room.
 */
final class WorkSlots {

    static final byte SEND = 1;
    static final byte RDMA_WRITE = 2;
    static final byte RDMA_READ = 3;
    static final byte RECV = 4;
    static final byte WRITE_IMMEDIATE = 5;
    static final byte FETCH_ADD = 6;
    static final byte CMP_SWAP = 7;
    /** The RDMA write of a write with immediate data: its completion, success or not, is reaped silently (the message after it reports). */
    static final byte WRITE_PART = 8;
    /** A memory window's bind ({@link OfiRmr}): a zero-length RDMA write that asks for delivery, completed as the bind's event. */
    static final byte RMR_BIND = 9;

    /** {@link #extensionType}'s answer for a DAT 1.2 DTO or a bind ({@code DAT_IB_FETCH_AND_ADD} is 0). */
    static final int NO_EXTENSION = -1;

    /**
     * The {@code DAT_IB_EXT_TYPE} of a requester's completion of a kind, or {@link #NO_EXTENSION}
     * for a DAT 1.2 DTO (and a bind).
     */
    static int extensionType(byte kind) {
        return switch (kind) {
            case WRITE_IMMEDIATE -> IbExtension.RDMA_WRITE_IMMED;
            case FETCH_ADD -> IbExtension.FETCH_AND_ADD;
            case CMP_SWAP -> IbExtension.CMP_AND_SWAP;
            default -> NO_EXTENSION;
        };
    }

    private static final byte FREE = 0;
    private static final byte POSTED = 1;
    private static final byte QUEUED = 2;

    private static final long RECV_QUEUE = 1L << 23;
    private static final int SLOT_MASK = (1 << 23) - 1;

    /**
     * A token of the owner that names no slot: the context of the provider's own operations
     * (the confirmation of an accept), whose completions are dropped.
     */
    static long internalToken(int ownerId) {
        return ((long) ownerId << 32) | SLOT_MASK;
    }

    /** @return the owner id a token carries */
    static int owner(long token) {
        return (int) (token >>> 32);
    }

    /** @return the slot a token carries */
    static int slot(long token) {
        return (int) (token & SLOT_MASK);
    }

    /** @return whether a token names a request of an Endpoint's receive queue */
    static boolean isRecv(long token) {
        return (token & RECV_QUEUE) != 0;
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
    /**
     * Whether a receive was posted to a stream configured {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}:
     * its success is a notification only if its message was solicited ({@link MessageCqData}).
     */
    final boolean[] solicitedOnly;
    /** Whether a DTO's success means that the target processed every DTO posted before it ({@link #confirmBefore}). */
    final boolean[] confirming;
    final int[] immediates;
    /**
     * The RMR of each {@link #RMR_BIND} slot of a request queue (empty for receive queues). Kept
     * after the slot is freed, until the slot's next bind: a freed RMR holds no native memory.
     */
    final OfiRmr[] binds;
    private final long[] tokens;
    private final byte[] states;
    private final int[] sequence;
    private final long[] postOrder;
    private long posts;
    /** How many slots are posted (libfabric holds their DTO). */
    private int postedCount;
    /** The count of the CQ these DTOs complete on ({@link #countIn}), kept with {@link #postedCount}; or {@code null}. */
    private AtomicInteger cqPosted;
    private final int[] free;
    private int freeTop;
    private final long tokenBase;
    /** The tokens of the silent writes, in posting order (entries whose slot moved on are skipped). */
    private final long[] silent;
    private int silentHead;
    private int silentCount;

    // receive IOV copies, maxIov per slot (empty for request queues and SRQs)
    final int maxIov;
    final long[] iovAddresses;
    final long[] iovLengths;
    final long[] iovDescriptors;

    // the LMRs each receive's segments name, receiveSegments per slot, and the count of its
    // segments (empty for request queues)
    private final int receiveSegments;
    private final OfiLmr[] receiveLmrs;
    final int[] segmentCounts;

    /**
     * An Endpoint's request or receive queue.
     *
     * @param capacity the most DTOs posted at once
     * @param ownerId the owner's id, at least 1
     * @param recvQueue whether this is the receive queue
     * @param maxIov the most segments of a receive (the IOV entries kept per receive), 0 for a request queue
     */
    WorkSlots(int capacity, int ownerId, boolean recvQueue, int maxIov) {
        this(capacity, ownerId, recvQueue, maxIov, maxIov);
    }

    /**
     * @param capacity the most DTOs posted at once
     * @param ownerId the owner's id (its Endpoint or SRQ), at least 1
     * @param recvQueue whether this is an Endpoint's receive queue
     * @param maxIov the IOV entries to keep per receive until the connection exists, 0 for a
     *     request queue or an SRQ
     * @param receiveSegments the most segments a receive of this queue names, 0 for a request queue
     */
    WorkSlots(int capacity, int ownerId, boolean recvQueue, int maxIov, int receiveSegments) {
        if (capacity < 1 || capacity > SLOT_MASK) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        cookies = new long[capacity];
        lengths = new long[capacity];
        kinds = new byte[capacity];
        suppress = new boolean[capacity];
        unsignalled = new boolean[capacity];
        solicitedOnly = new boolean[capacity];
        confirming = new boolean[capacity];
        immediates = new int[capacity];
        binds = new OfiRmr[recvQueue || receiveSegments > 0 ? 0 : capacity];
        tokens = new long[capacity];
        states = new byte[capacity];
        sequence = new int[capacity];
        postOrder = new long[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = capacity - 1 - i;
        }
        freeTop = capacity;
        silent = new long[recvQueue ? 0 : capacity];
        tokenBase = ((long) ownerId << 32) | (recvQueue ? RECV_QUEUE : 0);
        this.maxIov = maxIov;
        iovAddresses = new long[capacity * maxIov];
        iovLengths = new long[capacity * maxIov];
        iovDescriptors = new long[capacity * maxIov];
        this.receiveSegments = receiveSegments;
        receiveLmrs = new OfiLmr[capacity * receiveSegments];
        segmentCounts = new int[receiveSegments == 0 ? 0 : capacity];
    }

    /**
     * Takes the LMRs a receive's segments name from the poster's array ({@link Posting#fill}), for
     * the check at its completion ({@link #namesFreedLmr}), and their count ({@link #segmentCounts});
     * the poster's array keeps none.
     */
    void rememberLmrs(int slot, OfiLmr[] lmrs, int count) {
        System.arraycopy(lmrs, 0, receiveLmrs, slot * receiveSegments, count);
        segmentCounts[slot] = count;
        Arrays.fill(lmrs, 0, count, null);
    }

    /**
     * Whether the consumer freed an LMR that a receive's segments name ({@code dat_lmr_free}) before
     * the provider read the receive's completion from libfabric: its message, which libfabric placed
     * in the memory all the same (the memory stays the consumer's), completes the receive with a
     * protection violation, as "any DTO operation that uses the destroyed LMR after the
     * dat_lmr_free() is completed" does (dat_lmr_free(3DAT)).
     */
    boolean namesFreedLmr(int slot) {
        int first = slot * receiveSegments;
        for (int i = first, end = first + segmentCounts[slot]; i < end; i++) {
            if (receiveLmrs[i].freedByConsumer) {
                return true;
            }
        }
        return false;
    }

    /**
     * Counts this queue's posted DTOs in {@code counter} from now on, and no longer in the one
     * before: the count of the completion queue its connection's endpoint completes them on
     * ({@link CompletionQueue#isIdle}).
     */
    synchronized void countIn(AtomicInteger counter) {
        if (cqPosted != null) {
            cqPosted.addAndGet(-postedCount);
        }
        cqPosted = counter;
        if (counter != null) {
            counter.addAndGet(postedCount);
        }
    }

    private void posted(int change) {
        postedCount += change;
        if (cqPosted != null) {
            cqPosted.addAndGet(change);
        }
    }

    /** @return a free slot, now posted, or -1 when the queue is full */
    synchronized int acquire() {
        if (freeTop == 0) {
            return -1;
        }
        int slot = free[--freeTop];
        states[slot] = POSTED;
        posted(1);
        postOrder[slot] = posts++;
        rename(slot);
        return slot;
    }

    /** Gives a slot its next token: a completion of the old one no longer matches it. */
    private void rename(int slot) {
        int next = (sequence[slot] + 1) & 0xFF;
        sequence[slot] = next;
        tokens[slot] = tokenBase | ((long) next << 24) | slot;
    }

    /** @return the token of a slot acquired just now, to hand to libfabric */
    long token(int slot) {
        return tokens[slot];
    }

    /** @return the slot a token names while that DTO is still outstanding, else -1 */
    synchronized int lookup(long token) {
        int slot = slot(token);
        return slot < tokens.length && states[slot] != FREE && tokens[slot] == token ? slot : -1;
    }

    /**
     * Marks a posted DTO's completion as queued in an EVD's ring.
     *
     * @return {@code false} for a token that names no posted DTO: a late completion, to drop
     */
    synchronized boolean markQueued(long token) {
        int slot = slot(token);
        if (slot >= tokens.length || states[slot] != POSTED || tokens[slot] != token) {
            return false;
        }
        states[slot] = QUEUED;
        posted(-1);
        return true;
    }

    /**
     * Gives the slot of a completion back.
     *
     * @return {@code false} when the token names no outstanding DTO (a duplicate or late
     *     completion, which the caller drops instead of reporting)
     */
    synchronized boolean release(long token) {
        int slot = slot(token);
        if (slot >= tokens.length || states[slot] == FREE || tokens[slot] != token) {
            return false;
        }
        freeSlot(slot);
        return true;
    }

    /** @return whether one more RDMA write may go silent: fewer than half the queue's slots are */
    synchronized boolean maySilence() {
        return silentCount < silent.length / 2;
    }

    /** @return whether silent writes wait for a confirming completion */
    synchronized boolean hasSilent() {
        return silentCount > 0;
    }

    /** The suppressed RDMA write just posted in {@code slot} asked libfabric for no completion. */
    synchronized void markSilent(int slot) {
        silent[(silentHead + silentCount) % silent.length] = tokens[slot];
        silentCount++;
    }

    /**
     * The DTO in {@code slot} completed successfully, and its completion means that the target
     * processed every DTO posted on the connection before it: the silent writes posted before it
     * are done, and their slots come back.
     *
     * @return how many slots came back
     */
    synchronized int confirmBefore(int slot) {
        long order = postOrder[slot];
        int released = 0;
        while (silentCount > 0) {
            long token = silent[silentHead];
            int at = slot(token);
            if (states[at] == POSTED && tokens[at] == token) {
                if (postOrder[at] > order) {
                    break;
                }
                freeSlot(at);
                released++;
            }
            // a write whose error completion was read, or that a teardown took, leaves as it is
            silentHead = (silentHead + 1) % silent.length;
            silentCount--;
        }
        return released;
    }

    /** Gives back a slot whose post failed before libfabric took it. */
    synchronized void abandon(int slot) {
        if (states[slot] != FREE) {
            freeSlot(slot);
        }
    }

    private void freeSlot(int slot) {
        if (states[slot] == POSTED) {
            posted(-1);
        }
        states[slot] = FREE;
        free[freeTop++] = slot;
        if (receiveSegments > 0) {
            // a freed slot keeps no LMR reachable: the consumer's memory behind it may go
            Arrays.fill(receiveLmrs, slot * receiveSegments, slot * receiveSegments + segmentCounts[slot], null);
            segmentCounts[slot] = 0;
        }
    }

    /**
     * Takes every posted DTO out of the table, in the order they were posted: the teardown's flush
     * of what libfabric did not complete.
     *
     * @param out receives the slots (at least {@link #capacity()} long)
     * @return how many were posted; their slots stay readable until the next acquire
     */
    synchronized int takePosted(int[] out) {
        int n = postedInOrder(out);
        for (int i = 0; i < n; i++) {
            freeSlot(out[i]);
        }
        silentHead = 0;
        silentCount = 0;
        return n;
    }

    /**
     * Gives every posted DTO a new token and lists them in the order they were posted; they stay
     * posted. For the receives an endpoint held when it closed before its connection existed:
     * they wait for the next endpoint, and what libfabric reports of them under the old tokens
     * (their cancellation) matches no slot.
     *
     * @param out receives the slots (at least {@link #capacity()} long)
     * @return how many are posted
     */
    synchronized int renamePosted(int[] out) {
        int n = postedInOrder(out);
        for (int i = 0; i < n; i++) {
            rename(out[i]);
        }
        return n;
    }

    private int postedInOrder(int[] out) {
        int n = 0;
        for (int slot = 0; slot < states.length; slot++) {
            if (states[slot] == POSTED) {
                int at = n++;
                while (at > 0 && postOrder[out[at - 1]] > postOrder[slot]) {
                    out[at] = out[at - 1];
                    at--;
                }
                out[at] = slot;
            }
        }
        return n;
    }

    /** @return how many DTOs are posted or queued and not yet reaped */
    synchronized int outstanding() {
        return free.length - freeTop;
    }

    /** @return how many DTOs libfabric holds (posted, their completion not yet reaped) */
    synchronized int posted() {
        return postedCount;
    }

    int capacity() {
        return free.length;
    }
}
