package dat.provider.sim.internal.core;

import dat.api.CompletionFlags;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpAttributes;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.MemPrivileges;
import dat.api.ext.IbExtension;
import dat.api.ext.Operation;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An Endpoint's receive side: the receives posted to it (a ring of pre-allocated slots), or the
 * buffers it takes from its SRQ; how a wire takes one for an inbound message, and the receive
 * completions and flushes. A receive posted is a buffer held (dat_ep_recv_query(3DAT)) until it
 * completes, also while a wire lands a payload in it.
 *
 * <p><b>The ring has two sides with a lock each.</b> Posts are its producers: they serialize on
 * the ring's own lock ({@link #ringLock}), fill the slot at {@link #tail} and publish it by moving
 * the tail. The wire is its single consumer, under the <em>consumer's lock</em>: the lock of the
 * Endpoint that sends into this one, which is the local peer's while the Endpoint is on a wire
 * with a local peer ({@link Wire#localPeer}: the peer's sender takes the slot at {@link #head},
 * copies into it and completes it under its own lock only), and the Endpoint's own otherwise (a
 * transport's wire, a flush after the Endpoint left its wire). The consumer frees a slot by moving
 * the head when the receive completes. So a post does not contend with the peer's sends, and the
 * two sides meet only in the slots and the two indices, each side reading the other's index again
 * only when its cached copy says the ring is empty (full). A post that finds the ring full by its
 * copy first reads the count of receives whose completions the EVD's consumer dequeued
 * ({@link #reaped()}): a consumer that keeps its ring full reposts as it dequeues, on its own
 * thread, and so reads the head's line, which the sender writes for every message, only when
 * that count frees no slot. A local wire is set and left with both
 * Endpoints' locks held, so the consumer's lock hands over between the two with the wire.
 *
 * <p>A post takes an Endpoint lock only for what needs the consumer side: the Endpoint is
 * {@code DISCONNECTED} (the receive completes flushed at once) or a hard watermark is set (both
 * Endpoints' locks, {@link SimEndpoint#lockConnection}), or a message waits for a receive (the
 * consumer's lock). A post moves the tail and then reads those, all under the ring's lock; whoever
 * sets one of them does so before it takes the ring's lock to read the tail (a consumer that finds
 * the ring empty raises {@link #stalled}, a disconnect sets the state, before {@link #flushRecvs};
 * watermarks change under the ring's lock). So one of the two sees the other, no wake-up is lost,
 * and a post issues no fence beyond taking the ring's lock.
 *
 * <p>Lock order: Endpoint locks before the ring's. Control calls that must see the ring still
 * (watermarks, dat_ep_modify, a free) hold both.
 */
final class EpReceives {

    private static final int OK = DatReturn.SUCCESS;
    private static final VarHandle HEAD = FieldHandles.of(MethodHandles.lookup(), EpReceives.class, "head", long.class);
    private static final VarHandle TAIL = FieldHandles.of(MethodHandles.lookup(), EpReceives.class, "tail", long.class);
    private static final VarHandle REAPED = FieldHandles.of(MethodHandles.lookup(), EpReceives.class, "reaped", long.class);
    private static final VarHandle STALLED = FieldHandles.of(MethodHandles.lookup(), EpReceives.class, "stalled", long.class);

    private final SimEndpoint ep;
    /** The producers' lock: posts serialize on it, never on the connection's. */
    final SpinLock ringLock = new SpinLock();
    /** The slots ({@link RingSlots}, at least {@link #capacity}); replaced only with both locks held (dat_ep_modify). */
    Wr.Recv[] recvs;
    // a line of padding: the head's line is not the object's first, which it would share with the
    // end of whatever object the JVM places before this one
    @SuppressWarnings("unused")
    private long e1, e2, e3, e4, e5, e6, e7;
    // the head's line: written under the consumer's lock, read by posts that find the ring full
    /** The sequence of the first receive not yet completed; its slot is free once it moves past. */
    @SuppressWarnings("unused") // through HEAD
    private volatile long head;
    @SuppressWarnings("unused")
    private long c1, c2, c3, c4, c5, c6, c7;
    // the consumer's own line, which no post reads: its writes never wait for a post's read of the head
    /**
     * The sequence + 1 of the ring slot the consumer took and has not completed, or 0: a long, so
     * that it lies on this line and not among the references a post reads.
     */
    private long takenAt;
    /** The consumer's copy of {@link #tail}, read again only when it says the ring is empty. */
    private long tailCache;
    @SuppressWarnings("unused")
    private long d1, d2, d3, d4, d5, d6, d7;
    /** Receives of this Endpoint's ring that its wire took and holds while their payload lands. */
    private int recvsOnWire;
    // the producers' line: written under the ring's lock
    /** The sequence just past the last receive posted. */
    @SuppressWarnings("unused") // through TAIL
    private volatile long tail;
    /** The producers' copy of {@link #head}, read again only when it says the ring is full. */
    private long headCache;
    /** The most receives posted at once (the Endpoint's {@code max_recv_dtos}); set with both locks held. */
    private int capacity;
    @SuppressWarnings("unused")
    private long p1, p2, p3, p4, p5;
    // the EVD consumer's line: most often the posting thread's own; a consumer on another thread
    // writes it without taking the producers' line from them
    /**
     * The receives of this ring whose completions were dequeued ({@link #reaped()}): a head the
     * slots are free up to.
     */
    @SuppressWarnings("unused") // through REAPED
    private long reaped;
    @SuppressWarnings("unused")
    private long r1, r2, r3, r4, r5, r6, r7;
    /** 1 while a message waits for a receive of this ring (set by the consumer, seen by posts). */
    @SuppressWarnings("unused") // through STALLED
    private volatile long stalled; // a long, so that it lies between the paddings (see SpinLock)
    @SuppressWarnings("unused")
    private long s1, s2, s3, s4, s5, s6, s7;
    /** The SRQ buffer being filled, for Endpoints on an SRQ. */
    private final Wr.Recv srqScratch;
    /** Set when a peer's send waits for an SRQ buffer of this Endpoint. */
    volatile boolean inboundStalled;
    /** The SRQ buffer a local sender took crossed the hard watermark; under the consumer's lock. */
    private boolean takeBroke;

    EpReceives(SimEndpoint ep, EpAttributes attrs, SimSrq srq) {
        this.ep = ep;
        this.recvs = srq == null ? newRecvs(attrs.maxRecvDtos(), attrs.maxRecvIov()) : new Wr.Recv[0];
        this.capacity = srq == null ? attrs.maxRecvDtos() : 0;
        this.srqScratch = srq == null ? null : new Wr.Recv(srq.maxRecvIov);
    }

    /** The slots of a ring of up to {@code n} receives of {@code iov} segments. */
    private static Wr.Recv[] newRecvs(int n, int iov) {
        Wr.Recv[] r = new Wr.Recv[RingSlots.forEntries(n)];
        for (int i = 0; i < r.length; i++) {
            r[i] = new Wr.Recv(iov);
        }
        return r;
    }

    private static Wr.Recv slot(Wr.Recv[] ring, long sequence) {
        return ring[(int) sequence & (ring.length - 1)];
    }

    private Wr.Recv slot(long sequence) {
        return slot(recvs, sequence);
    }

    // ---------------------------------------------------------------------------------------------
    // producers: dat_ep_post_recv
    // ---------------------------------------------------------------------------------------------

    public int postRecv(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        return ep.ia.statistics.refused(queueRecv(numSegments, localIov, userCookie, completionFlags));
    }

    private int queueRecv(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        if (ep.freed || !ep.ia.usable()) {
            return ep.invalidCode();
        }
        if (ep.srq != null) {
            // receives of an Endpoint on an SRQ are posted to the SRQ (dat_ep_create_with_srq(3DAT))
            return DatReturn.error(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE);
        }
        if (completionFlags != CompletionFlags.DEFAULT
                && (completionFlags != CompletionFlags.UNSIGNALLED || ep.attrs.recvCompletionFlags() != CompletionFlags.UNSIGNALLED)) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
        }
        boolean softEvent;
        boolean follow;
        ringLock.lock();
        try {
            if (ep.freed) {
                return ep.invalidCode(); // freed while this post was under way: nothing flushes a receive any more
            }
            long t = tail;
            if (t - headCache >= capacity) {
                headCache = freedHead(t, capacity);
                if (t - headCache >= capacity) {
                    return DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY);
                }
            }
            Wr.Recv wr = slot(t);
            int code = wr.load(ep.ia, ep.pz, numSegments, localIov, ep.attrs.maxRecvIov(), MemPrivileges.LOCAL_WRITE);
            if (code != OK) {
                wr.release();
                return code;
            }
            wr.setIfChanged(userCookie, completionFlags);
            ep.counters.posted(Operation.RECEIVE, wr.total);
            // published, then the consumer's flag and the state are read, under the lock: see the class comment
            TAIL.setRelease(this, t + 1);
            EpState state = ep.state;
            softEvent = state != EpState.DISCONNECTED && ep.watermarks.softCrossed();
            follow = (long) STALLED.getOpaque(this) != 0 || state == EpState.DISCONNECTED || ep.watermarks.hardSet();
        } finally {
            ringLock.unlock();
        }
        boolean broke = false;
        if (follow) {
            broke = afterPost();
        }
        if (softEvent) {
            ep.watermarks.postSoftEvent();
        }
        if (broke) {
            ep.postBrokenEvent();
        }
        return OK;
    }

    /**
     * The head for a post that found the ring full by its cached copy: the receives reaped, when
     * they free a slot, else the consumer's head. Every receive of the ring is freed (the head
     * moved past it) before its completion is published, so the count reaped never passes the
     * head; a post that reads it leaves alone the head's line, which the peer's sender writes for
     * every message.
     */
    private long freedHead(long t, int length) {
        long r = (long) REAPED.getAcquire(this);
        return t - r < length ? r : (long) HEAD.getAcquire(this);
    }

    /**
     * A completion of a receive of this ring was dequeued (the EVD's consumer, after the acquire
     * that read it). Two consumers of different EVDs may lose a count to each other: the count is a
     * lower bound of the head, and a lost one only sends a post to read the head.
     */
    void reaped() {
        REAPED.setRelease(this, (long) REAPED.getOpaque(this) + 1);
    }

    /**
     * What a post needs an Endpoint lock for: the flush of a {@code DISCONNECTED} Endpoint and the
     * hard watermark (both Endpoints' locks: a local peer's guards the receives it takes), a
     * message waiting for this receive (the consumer's lock only).
     *
     * @return whether the hard watermark broke the connection
     */
    private boolean afterPost() {
        if (ep.state == EpState.DISCONNECTED || ep.watermarks.hardSet()) {
            SimEndpoint peer = ep.lockConnection();
            try {
                if (ep.state == EpState.DISCONNECTED) {
                    flushRecvs(); // off its wire: the ring's consumer is this Endpoint
                    return false;
                }
                // a receive posted is a buffer held (dat_ep_recv_query(3DAT)): checked here, before a
                // waiting send takes it, so that one JVM breaks as a transport does, whose send comes later
                if (ep.watermarks.breakIfOverHard()) { // flushes this receive with the others
                    return true;
                }
            } finally {
                ep.unlockConnection(peer);
            }
        }
        if ((long) STALLED.getVolatile(this) != 0) {
            resumeSender(false);
        }
        return false;
    }

    /** An SRQ got a buffer while a send to this Endpoint waited for one. */
    void resumeInbound() {
        resumeSender(true);
    }

    /**
     * A receive became available while a message for this Endpoint waited: under the consumer's
     * lock (the sender's, for a local wire), the stall is cleared and the wire carries the waiting
     * message on. A local sender's wire then finishes, without that lock, an end the message found
     * ({@link Wire#transmitNow}). The caller holds no Endpoint lock.
     *
     * @param inbound whether an SRQ buffer came ({@link #inboundStalled}), else a posted receive ({@link #stalled})
     */
    private void resumeSender(boolean inbound) {
        Wire w = ep.wire;
        SimEndpoint sender = w == null ? null : w.localPeer(ep);
        SimEndpoint consumer = sender == null ? ep : sender;
        boolean resumed = false;
        SpinLock l = consumer.acquire();
        try {
            if (ep.wire == w) { // the wire, and with it the consumer, changes only with its lock held
                if (inbound) {
                    inboundStalled = false;
                    resumed = true;
                } else if ((long) STALLED.getVolatile(this) != 0) {
                    STALLED.setVolatile(this, 0L);
                    resumed = true;
                }
                if (resumed && w != null) {
                    w.receivesAvailable(ep); // a send waiting for this receive goes on
                }
            }
        } finally {
            l.unlock();
        }
        if (resumed && sender != null) {
            w.transmitNow(sender);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the consumer: the wire, with the consumer's lock held (see the class comment)
    // ---------------------------------------------------------------------------------------------

    /**
     * The first posted receive (or an SRQ buffer), in its ring slot, or {@code null}: none there,
     * or the SRQ buffer taken crossed the hard watermark and the connection broke. The slot stays
     * the caller's until {@link #completeRecv} completes it (a post does not reuse it before). With
     * the lock held.
     */
    public Wr.Recv takeRecv() {
        if (ep.srq == null) {
            long h = (long) HEAD.getOpaque(this);
            if (h == tailCache && !refreshTail(h)) {
                return null;
            }
            takenAt = h + 1;
            return slot(h);
        }
        if (!ep.srq.take(srqScratch)) {
            inboundStalled = true;
            if (!ep.srq.take(srqScratch)) { // a buffer posted while we marked the stall
                return null;
            }
            inboundStalled = false;
        }
        if (ep.watermarks.srqBufferTaken()) {
            // the buffer is this Endpoint's now: it completes flushed, before the break's flush
            completeRecv(srqScratch, DtoCompletionStatus.ERR_FLUSHED, 0, false);
            Wire w = ep.wire;
            if (w != null && w.localPeer(ep) != null) {
                takeBroke = true; // the local sender holds its own lock only: it breaks the connection after it
                return null;
            }
            ep.breakConnection();
            ep.postBrokenEvent();
            return null;
        }
        return srqScratch;
    }

    /** Whether {@link #takeRecv} found the hard watermark crossed instead of a receive; clears it. Under the consumer's lock. */
    boolean takeBroke() {
        boolean b = takeBroke;
        takeBroke = false;
        return b;
    }

    /**
     * The consumer's cached tail says the ring is empty: reads the producers' tail, and when it
     * says so too raises the stall flag and reads it once more under the ring's lock (the post
     * that moves it next then sees the flag).
     *
     * @return whether a receive is there after all
     */
    private boolean refreshTail(long h) {
        long t = (long) TAIL.getAcquire(this);
        if (t == h) {
            STALLED.setVolatile(this, 1L);
            t = lockedTail();
            if (t == h) {
                return false;
            }
            STALLED.setOpaque(this, 0L);
        }
        tailCache = t;
        return true;
    }

    /** Frees the ring slot at the head: the receive in it completed (or a wire holds a copy). */
    private void releaseHead() {
        takenAt = 0;
        HEAD.setRelease(this, (long) HEAD.getOpaque(this) + 1);
    }

    /**
     * A wire takes the first posted receive (or an SRQ buffer) to land a message in after the lock
     * is released: copied into {@code out}, so the ring slot may be reused meanwhile. An own
     * receive so taken still counts as posted (dat_ep_recv_query, dat_ep_get_status) until
     * {@link #completeRecv} completes it. With the lock held.
     *
     * @return whether a receive was there
     */
    public boolean takeRecvInto(Wr.Recv out) {
        Wr.Recv rv = takeRecv();
        if (rv == null) {
            return false;
        }
        try {
            out.copyFrom(rv);
        } catch (RuntimeException defect) {
            // out of the queue but in no copy: complete it here, or no flush would find it
            completeRecv(rv, DtoCompletionStatus.ERR_FLUSHED, 0, false);
            throw defect;
        }
        out.srq = rv.srq;
        if (rv.srq == null) {
            out.heldByWire = true;
            recvsOnWire++;
            releaseHead();
        }
        return true;
    }

    /** Generates a receive completion; with the consumer's lock held. */
    public void completeRecv(Wr.Recv rv, int status, long len, boolean solicited) {
        completeRecv(rv, status, len, solicited, false, 0);
    }

    /**
     * Generates the completion of a receive an RDMA write with immediate data consumed
     * ({@link IbExtension#RDMA_WRITE_IMMED_DATA}: the bytes written and the immediate value); with
     * the lock held. {@code solicited}: the writer posted it {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}.
     */
    public void completeRecvImmediate(Wr.Recv rv, int status, long len, int immediate, boolean solicited) {
        completeRecv(rv, status, len, solicited, true, immediate);
    }

    private void completeRecv(Wr.Recv rv, int status, long len, boolean solicited, boolean withImmediate, int immediate) {
        SimEvd evd = ep.recvEvd;
        boolean success = status == DtoCompletionStatus.SUCCESS;
        int mode = ep.attrs.recvCompletionFlags();
        boolean notify;
        if (!success) {
            notify = true;
        } else if (mode == CompletionFlags.SOLICITED_WAIT) {
            notify = solicited;
        } else if (mode == CompletionFlags.UNSIGNALLED) {
            notify = (rv.flags & CompletionFlags.UNSIGNALLED) == 0;
        } else {
            notify = true;
        }
        if (rv.heldByWire) {
            rv.heldByWire = false;
            recvsOnWire--;
        }
        SimSrq from = rv.srq;
        long cookie = rv.cookie;
        // the record is claimed first: the EVD lock's atomic instruction then does not wait for the
        // head's line, which the posting thread reads when its ring is full (see SimEvd#claimDto)
        int record = evd == null ? -1 : evd.claimDto(from);
        if (takenAt != 0 && rv == slot(takenAt - 1)) {
            // the slot is free before its completion is seen: the consumer who dequeues it may repost at once
            releaseHead();
        }
        if (record >= 0) {
            evd.publishRecv(record, withImmediate ? IbExtension.IB_DTO_EVENT : EventNumber.DTO_COMPLETION_EVENT, ep, cookie, status,
                    len, notify, from, withImmediate ? IbExtension.RDMA_WRITE_IMMED_DATA : 0, immediate);
        } else if (evd == null && from != null) {
            from.reaped();
        }
        if (from != null) {
            ep.watermarks.srqBufferReleased();
        }
        // the slot keeps its LMR references until the next post overwrites them: releasing them
        // here would write a line the receiving thread owns
    }

    /** The producers' tail, read under the ring's lock: see the class comment. */
    private long lockedTail() {
        ringLock.lock();
        try {
            return (long) TAIL.getVolatile(this);
        } finally {
            ringLock.unlock();
        }
    }

    /**
     * Flushes every posted receive; with the consumer's lock held (both Endpoints' locks while on
     * a local wire), not the ring's. A post after this saw the state the caller set (see the class
     * comment) and flushes its receive itself.
     */
    void flushRecvs() {
        flushRecvsTo(ep.srq != null ? 0 : lockedTail());
    }

    /** {@link #flushRecvs} for a caller that holds the ring's lock too. */
    void flushRecvsLocked() {
        flushRecvsTo((long) TAIL.getVolatile(this));
    }

    private void flushRecvsTo(long t) {
        if (ep.srq != null) {
            return;
        }
        tailCache = t;
        while ((long) HEAD.getOpaque(this) != t) {
            long h = (long) HEAD.getOpaque(this);
            Wr.Recv rv = slot(h);
            takenAt = h + 1;
            completeRecv(rv, DtoCompletionStatus.ERR_FLUSHED, 0, false);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // counts and control
    // ---------------------------------------------------------------------------------------------

    /** Own receives posted and not completed (a wire's copies aside): exact with the ring's lock held. */
    int postedCount() {
        return (int) ((long) TAIL.getVolatile(this) - (long) HEAD.getVolatile(this));
    }

    /** The receive buffers this Endpoint holds (dat_ep_recv_query(3DAT)): posted, or taken from its SRQ; with the Endpoint's and the consumer's locks held. */
    int recvBuffersHeld() {
        return ep.srq == null ? postedCount() + recvsOnWire : ep.watermarks.srqBuffersHeld();
    }

    /** The most segments of a receive posted; with both locks held. */
    int maxSegmentsPosted() {
        int most = 0;
        long h = (long) HEAD.getVolatile(this);
        long t = (long) TAIL.getVolatile(this);
        for (long s = h; s != t; s++) {
            most = Math.max(most, slot(s).segments);
        }
        return most;
    }

    /**
     * dat_ep_modify(3DAT): a ring of {@code n} slots of {@code iov} segments, the receives posted
     * in it at their sequences, which go on: completions queued on the EVD still count for
     * {@link #reaped()} in the numbering they were freed in. With both locks held.
     */
    void resize(int n, int iov) {
        Wr.Recv[] fresh = newRecvs(n, iov);
        long h = (long) HEAD.getVolatile(this);
        long t = (long) TAIL.getVolatile(this);
        for (long s = h; s != t; s++) {
            slot(fresh, s).copyFrom(slot(s));
        }
        recvs = fresh;
        capacity = n;
        headCache = h;
        tailCache = t;
    }
}
