package dat.provider.sim.internal.shm;

import dat.provider.sim.internal.core.FieldHandles;
import dat.provider.sim.internal.core.RemoteWindow;
import dat.provider.sim.internal.core.SimEndpoint;
import dat.provider.sim.internal.core.SpinLock;
import dat.provider.sim.internal.core.Wire;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The shared-memory part of one connection between two TCP IAs on one host: its {@link RingFile},
 * offered by the active side in the CONNECT_REQUEST and taken by the passive side, and, once the
 * connection is established, the {@link ShmWire} the Endpoint holds. The TCP connection stays
 * beside it as the control channel ({@link ShmControl}): connection management, DISCONNECT,
 * liveness, and the doorbell that wakes a peer whose agent sleeps.
 *
 * <p>Whoever polls the connection ({@link #poll}: a consumer waiting in dat_evd_wait, on its
 * own thread ({@link ShmDriver}); the IA's I/O agent, or a consumer that drives it; a consumer
 * busy-polling dat_evd_dequeue) takes the Endpoint's lock for the round, which makes the round
 * exclusive and orders it with the Endpoint's posts; a poll that finds another poller's round at
 * work returns at once ({@link #inRound}, no atomic of its own). Every thread that touches the
 * mappings is counted in ({@link MappingUsers}): when the connection is over, they go once the
 * last such thread has left.
 */
public final class ShmSession {

    private static final Logger LOG = Logger.getLogger(ShmSession.class.getName());
    /** The offer a CONNECT_REQUEST carries: the nonce, then the file's name (ASCII, NUL-padded). */
    public static final int OFFER_BYTES = RingFile.NONCE_BYTES + 48;
    /** What an ACCEPT that takes the offer carries after the private data: the passive side's nonce. */
    public static final int ANSWER_BYTES = RingFile.NONCE_BYTES;
    /** How many records one poll handles at most, so one busy connection does not starve the others. */
    private static final int BUDGET = 64;
    private static final long FENCE_PATIENCE_NANOS = 50_000_000L;
    private static final VarHandle IN_ROUND = FieldHandles.of(MethodHandles.lookup(), ShmSession.class, "inRound", boolean.class);

    private final RingFile file;
    private final ShmControl control;
    private final SharedSources sources;
    private final Fences fences = new Fences();
    private final PeerFiles peerFiles;
    /** The threads inside the mappings: they go when the connection is over and the last one has left. */
    private final MappingUsers users;
    /** The nonce this side put in the file: the offer's (active) or the answer's (passive). */
    private final byte[] nonce;
    private volatile ShmWire wire;
    /**
     * A round holds the Endpoint's lock: written under it, read without it by a poll that finds
     * the lock taken (opaque: a stale answer costs that poll a wait for the lock, or leaves the
     * records to the round's poller, who polls again). The agent's last look before it sleeps
     * does not leave them: that round may have passed a record published since, and a consumer's
     * poller need not poll again.
     */
    @SuppressWarnings("unused") // through IN_ROUND
    private boolean inRound;
    /** A violation found by a call the core made with the lock held, reported by the next poll. */
    private volatile String later;
    /** The connection is over ({@link #retire}, {@link #keep}); guarded by this. */
    private boolean ending;
    /** Where the ring file goes once the last thread left the mappings: kept for the next connection, or {@code null}: unmapped. */
    private volatile IdleRingFile kept;

    private ShmSession(RingFile file, byte[] nonce, ShmControl control, SharedSources sources) {
        this.file = file;
        this.nonce = nonce;
        this.control = control;
        this.sources = sources;
        this.peerFiles = new PeerFiles();
        this.users = new MappingUsers(this::unmap);
    }

    /**
     * The active side: a new ring file to offer.
     *
     * @throws IOException when none can be made (no {@code /dev/shm}, no room)
     */
    static ShmSession offer(ShmControl control, SharedSources sources) throws IOException {
        byte[] nonce = new byte[RingFile.NONCE_BYTES];
        RingFile f = RingFile.create(RingFile.DEFAULT_CAPACITY, nonce);
        return new ShmSession(f, nonce, control, sources);
    }

    /**
     * The active side: the ring file its socket kept from the last connection, offered again; a
     * new one when that is gone ({@link IdleRingFile#take}).
     *
     * @throws IOException when no new one can be made
     */
    static ShmSession reoffer(IdleRingFile kept, ShmControl control, SharedSources sources) throws IOException {
        RingFile f = kept.take();
        if (f == null) {
            return offer(control, sources);
        }
        byte[] nonce = new byte[RingFile.NONCE_BYTES];
        f.reoffer(nonce);
        return new ShmSession(f, nonce, control, sources);
    }

    /**
     * The passive side: maps the ring file an offer names, or takes the one its socket kept from
     * the last connection when the offer names that one ({@code kept}, or {@code null}; closed
     * when the offer names another).
     *
     * @param offer {@link #OFFER_BYTES} at the buffer's position
     * @throws IOException with the reason when it cannot be taken
     */
    static ShmSession take(ByteBuffer offer, IdleRingFile kept, ShmControl control, SharedSources sources) throws IOException {
        byte[] offered = new byte[RingFile.NONCE_BYTES];
        offer.get(offered);
        byte[] n = new byte[OFFER_BYTES - RingFile.NONCE_BYTES];
        offer.get(n);
        int len = 0;
        while (len < n.length && n[len] != 0) {
            len++;
        }
        String name = new String(n, 0, len, StandardCharsets.US_ASCII);
        byte[] answer = new byte[RingFile.NONCE_BYTES];
        RingFile k = kept == null ? null : kept.name().equals(name) ? kept.take() : null;
        if (k != null) {
            try {
                k.retake(offered, answer);
            } catch (IOException | RuntimeException e) {
                k.close();
                throw e;
            }
            return new ShmSession(k, answer, control, sources);
        }
        if (kept != null) {
            kept.close();
        }
        RingFile f = RingFile.open(name, offered, answer);
        return new ShmSession(f, answer, control, sources);
    }

    /** The active side: the offer, {@link #OFFER_BYTES} written at the buffer's position. */
    public void putOffer(ByteBuffer out) {
        out.put(nonce);
        byte[] n = Arrays.copyOf(file.name().getBytes(StandardCharsets.US_ASCII), OFFER_BYTES - RingFile.NONCE_BYTES);
        out.put(n);
    }

    /** The passive side: the answer the ACCEPT carries, {@link #ANSWER_BYTES}. */
    public byte[] answer() {
        return nonce.clone();
    }

    /**
     * The active side, at the ACCEPT: whether the passive side mapped this very file (it wrote the
     * nonce its ACCEPT carries). The file's name goes either way.
     */
    public boolean confirm(byte[] answer) {
        if (!users.enter()) {
            return false;
        }
        try {
            return file.confirm(answer);
        } finally {
            users.exit();
        }
    }

    RingFile file() {
        return file;
    }

    Fences fences() {
        return fences;
    }

    PeerFiles peerFiles() {
        return peerFiles;
    }

    ShmControl control() {
        return control;
    }

    /** Whether the connection still uses its rings (the mappings may outlive it until the last thread inside leaves). */
    boolean alive() {
        return !users.retired();
    }

    /**
     * Before a thread touches the mappings (the wire's calls from the core, with the Endpoint's lock).
     *
     * @return {@code false} when the connection is over: nothing may be touched
     */
    boolean enter() {
        return users.enter();
    }

    /** After a thread that {@link #enter}ed is done with the mappings. */
    void exit() {
        users.exit();
    }

    /** The ring file's name, for tests and logs. */
    public String fileName() {
        return file.name();
    }

    /**
     * At the establishment, under the CM lock: the wire {@code ep} holds from now on.
     *
     * @param ep the local Endpoint
     * @return its wire
     */
    public Wire join(SimEndpoint ep) {
        ShmWire w = new ShmWire(this, ep, sources);
        wire = w;
        return w;
    }

    /** The wire once joined, or {@code null}. */
    public Wire wire() {
        return wire;
    }

    // ---------------------------------------------------------------------------------------------
    // polling
    // ---------------------------------------------------------------------------------------------

    /**
     * One round over the connection: the peer's answers, its requests, what this side can send.
     * Never blocks but for a post's moment: another poller's round makes it return at once.
     * Allocates nothing.
     *
     * @param byAgent whether the I/O agent's thread polls (see {@link ShmTarget#process})
     * @return the records handled and written; 0 when there was nothing (or another poller was at work)
     */
    public int poll(boolean byAgent) {
        return poll(byAgent, false);
    }

    /**
     * One round, as {@link #poll(boolean)}.
     *
     * @param lastLook the agent's look after it armed the doorbells, before it sleeps: another
     *     poller's round in progress is waited out, then this one runs
     */
    public int poll(boolean byAgent, boolean lastLook) {
        ShmWire w = wire;
        if (w == null || !users.enter()) {
            return 0;
        }
        try {
            return round(w, byAgent, lastLook);
        } finally {
            users.exit();
        }
    }

    private int round(ShmWire w, boolean byAgent, boolean lastLook) {
        String found = later;
        if (found != null) {
            later = null;
            control.violation(found);
        }
        try {
            if (!w.pending()) {
                return 0;
            }
        } catch (InternalError e) {
            return 0; // the file cut short by the peer: the next round's copy meets it
        }
        SpinLock l = w.ep.tryAcquire();
        if (l == null) {
            if (!lastLook && (boolean) IN_ROUND.getOpaque(this)) {
                return 0; // another poller's round: it, or its poller's next, finds what came
            }
            l = w.ep.acquire(); // a post, or another call of the consumer's, holds it for a moment
        }
        int work = 0;
        String why = null;
        boolean doorbell = false;
        try {
            IN_ROUND.setOpaque(this, true);
            work = w.process(BUDGET, byAgent);
            why = w.takeViolation();
            doorbell = w.takeDoorbell();
        } catch (InternalError e) {
            why = "the ring file was cut short"; // a fault in a mapping cut short (truncated by the peer)
            if (w.ep.connectedThrough(w)) {
                w.ep.breakConnection();
            }
        } finally {
            IN_ROUND.setOpaque(this, false);
            l.unlock();
        }
        if (doorbell) {
            control.ringDoorbell();
        }
        if (why != null) {
            control.violation(why);
        }
        return work;
    }

    /** For tests: takes the Endpoint's lock as another poller's round holds it; letting go of the lock ends the hold. */
    SpinLock holdAsARoundForTest() {
        SpinLock l = wire.ep.acquire();
        IN_ROUND.setOpaque(this, true);
        return l;
    }

    /** Whether this side waits for the peer to make room in a ring (the peer rings the doorbell when it makes room). */
    public boolean waitingForSpace() {
        ShmWire w = wire;
        return w != null && w.waitingForSpace(); // the wire's own state: nothing mapped is read
    }

    /** {@code true}: this side's consumer sleeps, the peer rings the doorbell after publishing; {@code false}: it polls. */
    public void wantDoorbell(boolean want) {
        if (!users.enter()) {
            return;
        }
        try {
            file.wantDoorbell(want);
        } finally {
            users.exit();
        }
    }

    /** A violation found with the lock held by a call of the core's: reported by the next poll. */
    void reportLater(String why) {
        if (why != null) {
            later = why;
        }
    }

    /**
     * Before the connection is taken as lost (the peer's DISCONNECT, its end of stream): the
     * answers it gave before its end complete as given. Without locks held.
     *
     * @return why those answers broke the protocol, for the caller to count (it is ending the
     *     connection already); {@code null} when they did not
     */
    public String drain() {
        ShmWire w = wire;
        if (w == null || !users.enter()) {
            return null;
        }
        SpinLock l = w.ep.acquire();
        try {
            w.drain();
            return w.takeViolation();
        } catch (InternalError e) {
            return null; // cut short: the flush that follows completes the rest
        } finally {
            l.unlock();
            users.exit();
        }
    }

    /**
     * The connection is over: the file's name goes now, the mappings once no thread is inside
     * them (at once, or as the last one leaves); idempotent, and nothing once {@link #keep} ended it.
     */
    public void retire() {
        end(null);
    }

    /**
     * The connection ended by the exchange of DISCONNECTs and its socket carries the next
     * connection between the two IAs: the ring file stays mapped for it, free once no thread is
     * inside the mappings (the peer files go then).
     *
     * @return the kept file, or {@code null} when the connection was retired already
     */
    public IdleRingFile keep() {
        IdleRingFile kept = new IdleRingFile(file);
        return end(kept) ? kept : null;
    }

    private synchronized boolean end(IdleRingFile keep) {
        if (ending) {
            return false;
        }
        ending = true;
        kept = keep;
        if (keep == null) {
            file.unlink();
        }
        users.retire();
        return true;
    }

    /** What {@link MappingUsers} runs once the connection is over and its last thread left the mappings. */
    private void unmap() {
        peerFiles.close();
        IdleRingFile k = kept;
        if (k != null) {
            k.free();
        } else {
            file.close();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // fences
    // ---------------------------------------------------------------------------------------------

    /**
     * dat_lmr_free, after the LMR was marked freed: returns once no copy of this connection reads
     * or writes [start, end) and no request in flight hands the peer that memory by reference
     * (their answers are polled here). The copy in progress, if any, holds the Endpoint's lock,
     * taken here once; a copy after it finds the LMR freed. A peer that does not answer within 50
     * ms has its connection cut, as a verbs QP fails an access to a deregistered region. The
     * caller holds no Endpoint lock.
     */
    public void fence(long start, long end) {
        ShmWire w = wire;
        if (w != null) {
            w.ep.acquire().unlock();
        }
        long began = System.nanoTime();
        boolean cut = false;
        for (int spins = 0; fences.sharing(start, end); spins++) {
            poll(false); // the answers, on the freeing consumer's thread
            long waited = System.nanoTime() - began;
            if (!cut && waited > FENCE_PATIENCE_NANOS) {
                cut = true;
                control.cut();
            } else if (waited > 100 * FENCE_PATIENCE_NANOS) {
                LOG.log(Level.WARNING, "sim shared-memory connection " + file.name() + " still moves bytes of a freed LMR after 5 s");
                return;
            }
            Fences.backOff(spins);
        }
    }

    /** A revoked window: returns once no copy of this connection goes through it. */
    public void awaitCopiesThrough(RemoteWindow w) {
        fences.awaitCopiesThrough(w);
    }
}
