package dat.provider.ofi.internal;

/**
 * One Endpoint's side of the confirmation of an accept. libfabric's tcp provider reports the
 * passive side connected once it has sent its answer, whether or not the requester is still there
 * (its connect may have timed out and its endpoint closed). So the active side, when it learns it
 * is connected, sends a zero-length RDMA write with remote CQ data ({@link #data}: {@link #TAG}
 * and the passive Endpoint's owner id, no buffer, no receive consumed), and the passive side
 * reports {@code ESTABLISHED} only when both the {@code FI_CONNECTED} and the confirmation
 * arrived; a requester that is gone never confirms, and its connection's shutdown gives
 * {@code ACCEPT_COMPLETION_ERROR}. Where the provider has no 8 bytes of remote CQ data, or its CQ
 * data consumes a receive ({@link RemoteCqData#confirmsAccepts}), the owner id in the private data is
 * 0 and nobody waits for a confirmation. Used with the IA's CM lock held.
 */
final class AcceptConfirmation {

    /** The high half of a confirmation's remote CQ data: "DATC". */
    static final long TAG = 0x44415443L;

    /** Whether this IA confirms accepts ({@link RemoteCqData#confirmsAccepts}). */
    private final boolean confirms;
    private final int ownerId;
    /**
     * The passive side's accepts, counted: a confirmation counts for the accept under which it
     * was read ({@link #accepts}), not for a later one (its connection ended meanwhile, and the
     * Endpoint, reset, accepted another requester).
     */
    private volatile int accepts;
    // the passive side: whether the requester will confirm, and what of the two arrived
    private boolean expected;
    private boolean connected;
    private boolean confirmed;

    /**
     * @param cqData what the IA's remote CQ data carries
     * @param ownerId the Endpoint's owner id, which a confirmation names
     */
    AcceptConfirmation(RemoteCqData cqData, int ownerId) {
        this.confirms = cqData.confirmsAccepts();
        this.ownerId = ownerId;
    }

    /** The owner id a connect or accept carries in its private data: the Endpoint's where accepts are confirmed, else 0. */
    int owner() {
        return confirms ? ownerId : 0;
    }

    /** The active side, connected: whether it confirms the accept of the peer's Endpoint {@code peerOwner}. */
    boolean sendsTo(int peerOwner) {
        return peerOwner != 0 && confirms;
    }

    /** The remote CQ data of the confirmation to the peer's Endpoint {@code peerOwner}. */
    static long data(int peerOwner) {
        return (TAG << 32) | Integer.toUnsignedLong(peerOwner);
    }

    /** Whether remote CQ data is a confirmation (its low half is then the owner id). */
    static boolean isConfirmation(long data) {
        return (data >>> 32) == TAG;
    }

    /** The passive side, at the accept: whether the requester ({@code remoteOwnerId}) will confirm; nothing arrived yet. */
    void accepting(int remoteOwnerId) {
        accepts = accepts + 1; // one writer: the CM lock is held
        expected = remoteOwnerId != 0 && confirms;
        connected = false;
        confirmed = false;
    }

    /** The passive side: {@code FI_CONNECTED} arrived. Whether the connection is established now. */
    boolean connected() {
        connected = true;
        return !expected || confirmed;
    }

    /** The accepts begun so far; read without the lock where a confirmation is read, and handed to {@link #confirmed}. */
    int accepts() {
        return accepts;
    }

    /**
     * The passive side: the confirmation arrived. Whether the connection is established now.
     *
     * @param accept {@link #accepts} when the confirmation was read: one of an earlier accept counts for nothing
     */
    boolean confirmed(int accept) {
        if (accept != accepts) {
            return false;
        }
        confirmed = true;
        return connected;
    }
}
