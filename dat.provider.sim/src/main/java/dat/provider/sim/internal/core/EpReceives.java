package dat.provider.sim.internal.core;

import dat.api.CompletionFlags;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpAttributes;
import dat.api.EpState;
import dat.api.LmrTriplet;
import dat.api.MemPrivileges;
import dat.api.ext.IbExtension;
import dat.api.ext.Operation;

/**
 * An Endpoint's receive side: the receives posted to it (a ring of pre-allocated slots, guarded by
 * the Endpoint's lock), or the buffers it takes from its SRQ; how a wire takes one for an inbound
 * message, and the receive completions and flushes. A receive posted is a buffer held
 * (dat_ep_recv_query(3DAT)) until it completes, also while a wire lands a payload in it.
 */
final class EpReceives {

    private static final int OK = DatReturn.SUCCESS;

    private final SimEndpoint ep;
    // the ring, guarded by the Endpoint's lock
    Wr.Recv[] recvs;
    int recvHead;
    int recvCount;
    /** Receives of this Endpoint's ring that its wire took and holds while their payload lands. */
    private int recvsOnWire;
    /** The SRQ buffer being filled, for Endpoints on an SRQ. */
    private final Wr.Recv srqScratch;
    /** Set when a peer's send waits for an SRQ buffer of this Endpoint. */
    volatile boolean inboundStalled;

    EpReceives(SimEndpoint ep, EpAttributes attrs, SimSrq srq) {
        this.ep = ep;
        this.recvs = srq == null ? newRecvs(attrs.maxRecvDtos(), attrs.maxRecvIov()) : new Wr.Recv[0];
        this.srqScratch = srq == null ? null : new Wr.Recv(srq.maxRecvIov);
    }

    static Wr.Recv[] newRecvs(int n, int iov) {
        Wr.Recv[] r = new Wr.Recv[n];
        for (int i = 0; i < n; i++) {
            r[i] = new Wr.Recv(iov);
        }
        return r;
    }

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
        boolean softEvent = false;
        boolean broke = false;
        SpinLock l = ep.acquire();
        try {
            if (recvCount == recvs.length) {
                return DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY);
            }
            int idx = recvHead + recvCount;
            if (idx >= recvs.length) {
                idx -= recvs.length;
            }
            Wr.Recv wr = recvs[idx];
            int code = wr.load(ep.ia, ep.pz, numSegments, localIov, ep.attrs.maxRecvIov(), MemPrivileges.LOCAL_WRITE);
            if (code != OK) {
                wr.release();
                return code;
            }
            wr.cookie = userCookie;
            wr.flags = completionFlags;
            wr.srq = null;
            recvCount++;
            ep.counters.posted(Operation.RECEIVE, wr.total);
            if (ep.state == EpState.DISCONNECTED) {
                flushRecvs();
            } else {
                softEvent = ep.watermarks.softCrossed();
                // a receive posted is a buffer held (dat_ep_recv_query(3DAT)): checked here, before a
                // waiting send takes it, so that one JVM breaks as a transport does, whose send comes later
                broke = ep.watermarks.breakIfOverHard(); // flushes this receive with the others
                Wire w = ep.wire;
                if (!broke && w != null) {
                    w.receivesAvailable(ep); // a send waiting for this receive goes on
                }
            }
        } finally {
            l.unlock();
        }
        if (softEvent) {
            ep.watermarks.postSoftEvent();
        }
        if (broke) {
            ep.postBrokenEvent();
        }
        return OK;
    }

    /** An SRQ got a buffer while a send to this Endpoint waited for one. */
    void resumeInbound() {
        SpinLock l = ep.acquire();
        try {
            inboundStalled = false;
            Wire w = ep.wire;
            if (w != null) {
                w.receivesAvailable(ep);
            }
        } finally {
            l.unlock();
        }
    }

    /**
     * The first posted receive (or an SRQ buffer), in its ring slot, or {@code null}: none there,
     * or the SRQ buffer taken crossed the hard watermark and the connection broke. The slot stays
     * valid while the lock is held. With the lock held.
     */
    public Wr.Recv takeRecv() {
        if (ep.srq == null) {
            if (recvCount == 0) {
                return null;
            }
            Wr.Recv rv = recvs[recvHead];
            if (++recvHead == recvs.length) {
                recvHead = 0;
            }
            recvCount--;
            return rv;
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
            ep.breakConnection();
            ep.postBrokenEvent();
            return null;
        }
        return srqScratch;
    }

    /**
     * A ep.wire takes the first posted receive (or an SRQ buffer) to land a message in after the lock
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
        }
        return true;
    }

    /** Generates a receive completion; with the lock held. */
    public void completeRecv(Wr.Recv rv, int status, long len, boolean solicited) {
        completeRecv(rv, status, len, solicited, false, 0);
    }

    /**
     * Generates the completion of a receive an RDMA write with immediate data consumed
     * ({@link IbExtension#RDMA_WRITE_IMMED_DATA}: the bytes written and the immediate value); with
     * the lock held.
     */
    public void completeRecvImmediate(Wr.Recv rv, int status, long len, int immediate) {
        completeRecv(rv, status, len, false, true, immediate);
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
        if (evd != null && withImmediate) {
            evd.postDto(IbExtension.IB_DTO_EVENT, ep, rv.cookie, status, len, notify, from, IbExtension.RDMA_WRITE_IMMED_DATA,
                    immediate);
        } else if (evd != null) {
            evd.postDto(ep, rv.cookie, status, len, notify, from);
        } else if (from != null) {
            from.reaped();
        }
        if (from != null) {
            ep.watermarks.srqBufferReleased();
        }
        // the slot keeps its LMR references until the next post overwrites them: releasing them
        // here would write a line the receiving thread owns
    }

    /** Flushes every posted receive; with the lock held. */
    void flushRecvs() {
        while (recvCount > 0) {
            Wr.Recv rv = recvs[recvHead];
            if (++recvHead == recvs.length) {
                recvHead = 0;
            }
            recvCount--;
            completeRecv(rv, DtoCompletionStatus.ERR_FLUSHED, 0, false);
        }
    }


    /** The receive buffers this Endpoint holds (dat_ep_recv_query(3DAT)): posted, or taken from its SRQ; with the lock held. */
    int recvBuffersHeld() {
        return ep.srq == null ? recvCount + recvsOnWire : ep.watermarks.srqBuffersHeld();
    }
}
