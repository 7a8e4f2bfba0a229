package dat.tests.conformance.internal;

/**
 * The control protocol between the conformance suite and a peer agent in another process or on
 * another host ({@code dat test --serve}), after dapltest's client and server: the data moves
 * over DAT between an Endpoint of each side, and a plain TCP control connection per Endpoint pair
 * tells the agent what its side does next, one request and one reply at a time, so that both
 * sides act in exactly the order a test running both of them in one process would.
 *
 * <p>Each control connection starts with {@link #MAGIC} and the Endpoint attributes; the agent
 * answers with its IA address and a PSP qualifier, the suite connects its Endpoint there, and the
 * agent accepts and reports {@code ESTABLISHED}. Then requests follow: a byte opcode and its
 * arguments; every reply begins with a status byte ({@link #OK}, or {@link #FAILED} and a message).
 * All integers are big-endian ({@code DataOutputStream}).
 */
final class PeerProtocol {

    static final int MAGIC = 0xDA7E_5701;
    /** The default control port of {@code dat test --serve}. */
    static final int DEFAULT_PORT = 7701;

    static final byte OK = 0;
    static final byte FAILED = 1;

    /** (offset, length): zero the agent's buffer range. */
    static final byte CLEAR = 1;
    /** (offset, length, seed): fill the range with the suite's pattern. */
    static final byte FILL = 2;
    /** (offset, length, seed): check the range against the pattern; FAILED names the first wrong byte. */
    static final byte VERIFY = 3;
    /** (segments, segment size, offset, cookie): dat_ep_post_recv; replies the DAT return code. */
    static final byte POST_RECV = 4;
    /** (segments, segment size, offset, cookie): dat_ep_post_send; replies the code. */
    static final byte POST_SEND = 5;
    /** (segments, segment size, offset, cookie, rmr context, address, length): dat_ep_post_rdma_write; replies the code. */
    static final byte POST_RDMA_WRITE = 6;
    /** As {@link #POST_RDMA_WRITE}: dat_ep_post_rdma_read. */
    static final byte POST_RDMA_READ = 7;
    /**
     * (receive?): waits for the next event of the receive or the request EVD; replies the code of
     * dat_evd_wait, then the event number, DTO status, cookie, transferred length, and whether it
     * names the agent's Endpoint.
     */
    static final byte COMPLETION = 8;
    /** (offset, length): the RMR triplet that addresses the range; replies context, address, length. */
    static final byte REMOTE = 9;
    /** (write?, offset, length): dat_lmr_sync_rdma_write or _read over the range. */
    static final byte SYNC = 10;
    /** Ends the pair: the agent disconnects and frees its side. */
    static final byte BYE = 11;

    private PeerProtocol() {
    }
}
