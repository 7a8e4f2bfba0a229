package dat.provider.sim.internal.core;

import dat.api.AsyncErrorReason;
import dat.api.DatReturn;
import dat.api.EventNumber;
import dat.api.HandleType;
import dat.api.LmrTriplet;
import dat.api.MemPrivileges;
import dat.api.SharedReceiveQueue;
import dat.api.SrqParamMask;
import dat.api.SrqParams;
import dat.api.SrqState;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Shared Receive Queue: dat_srq_create(3DAT), dat_srq_post_recv(3DAT), dat_srq_query(3DAT),
 * dat_srq_resize(3DAT), dat_srq_set_lw(3DAT), dat_srq_free(3DAT).
 *
 * <p>Buffers wait in a ring of pre-allocated slots; an Endpoint that receives a message takes the
 * first one. A buffer counts as outstanding from its post until the consumer dequeues its
 * completion (dat_srq_query(3DAT)'s example). The low-watermark event is
 * {@link EventNumber#ASYNC_ERROR_PROVIDER_INTERNAL_ERROR} on the async EVD with this SRQ as handle
 * and {@link AsyncErrorReason#SRQ_LOW_WATERMARK_EVENT} as reason (DAT 1.2 defines no event number
 * of its own for it).
 */
final class SimSrq extends SimHandle implements SharedReceiveQueue {

    private final SimIa ia;
    /** The receives posted here, counted under the lock. */
    final DtoCounters counters = new DtoCounters();
    final SimPz pz;
    final int maxRecvIov;
    private final SpinLock lock = new SpinLock();
    /** The buffers posted and not taken yet, from {@link #head}: {@link RingSlots} for the SRQ's size. */
    private Wr.Recv[] ring;
    private int mask;
    /** The SRQ's size: the most receives outstanding at once (posted, or taken and not dequeued yet). */
    private volatile int maxRecvDtos;
    private int head;
    private volatile int available;
    private final AtomicInteger outstanding = new AtomicInteger();
    private volatile int lowWatermark;
    private volatile boolean lowWatermarkArmed;
    private volatile SimEndpoint[] attached = new SimEndpoint[0];

    /** An SRQ without a low watermark; {@link SimIa} sets the one it was created with ({@link #setLowWatermark}). */
    SimSrq(SimIa ia, SimPz pz, int maxRecvDtos, int maxRecvIov) {
        super(HandleType.SRQ, DatReturn.INVALID_HANDLE_SRQ);
        this.ia = ia;
        this.pz = pz;
        this.maxRecvIov = maxRecvIov;
        this.ring = newRing(maxRecvDtos, maxRecvIov);
        this.mask = ring.length - 1;
        this.maxRecvDtos = maxRecvDtos;
        pz.users.incrementAndGet();
    }

    private static Wr.Recv[] newRing(int maxRecvDtos, int maxIov) {
        Wr.Recv[] r = new Wr.Recv[RingSlots.forEntries(maxRecvDtos)];
        for (int i = 0; i < r.length; i++) {
            r[i] = new Wr.Recv(maxIov);
        }
        return r;
    }

    @Override
    SimIa ia() {
        return ia;
    }

    int attachedCount() {
        return attached.length;
    }

    synchronized void attach(SimEndpoint ep) {
        SimEndpoint[] a = Arrays.copyOf(attached, attached.length + 1);
        a[a.length - 1] = ep;
        attached = a;
    }

    synchronized void detach(SimEndpoint ep) {
        attached = SnapshotArrays.without(attached, ep);
    }

    @Override
    public int postRecv(int numSegments, LmrTriplet[] localIov, long userCookie) {
        return ia.statistics.refused(queueRecv(numSegments, localIov, userCookie));
    }

    private int queueRecv(int numSegments, LmrTriplet[] localIov, long userCookie) {
        if (!isOpen()) {
            return invalidCode();
        }
        lock.lock();
        try {
            if (outstanding.get() >= maxRecvDtos) {
                return DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_SRQ);
            }
            Wr.Recv slot = ring[(head + available) & mask];
            int code = slot.load(ia, pz, numSegments, localIov, maxRecvIov, MemPrivileges.LOCAL_WRITE);
            if (code != Wr.OK) {
                return code;
            }
            slot.cookie = userCookie;
            slot.flags = 0;
            slot.srq = this;
            outstanding.incrementAndGet();
            available = available + 1;
            counters.posted(dat.api.ext.Operation.RECEIVE, slot.total);
        } finally {
            lock.unlock();
        }
        // Endpoints whose peers wait for a receive can go on now
        SimEndpoint[] eps = attached;
        for (SimEndpoint ep : eps) {
            if (ep.receives.inboundStalled) {
                ep.receives.resumeInbound();
            }
        }
        return DatReturn.SUCCESS;
    }

    /**
     * Takes the first buffer for an Endpoint.
     *
     * @param into the Endpoint's scratch slot, filled with the buffer
     * @return {@code false} when the SRQ is empty
     */
    boolean take(Wr.Recv into) {
        boolean fire = false;
        lock.lock();
        try {
            if (available == 0) {
                return false;
            }
            Wr.Recv slot = ring[head];
            into.copyFrom(slot);
            into.srq = this;
            slot.release();
            head = (head + 1) & mask;
            available = available - 1;
            if (lowWatermarkArmed && available < lowWatermark) {
                lowWatermarkArmed = false;
                fire = true;
            }
        } finally {
            lock.unlock();
        }
        if (fire) {
            ia.postAsync(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, this, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT);
        }
        return true;
    }

    /** The consumer dequeued the completion of one of this SRQ's buffers (or it had no EVD). */
    void reaped() {
        outstanding.decrementAndGet();
    }

    @Override
    public SrqParams query(int srqParamMask) {
        checkQueryMask(SrqParamMask.isValid(srqParamMask), "srqParamMask", srqParamMask);
        lock.lock();
        try {
            return new SrqParams(ia, SrqState.OPERATIONAL, pz, maxRecvDtos, maxRecvIov, lowWatermark, available, outstanding.get());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void resize(int maxRecvDtos) {
        checkOpen();
        if (maxRecvDtos <= 0 || maxRecvDtos > ia.limits().maxRecvPerSrq()) {
            throw invalidParameter(DatReturn.INVALID_ARG2, "maxRecvDtos", "must be 1.." + ia.limits().maxRecvPerSrq());
        }
        Wr.Recv[] fresh = newRing(maxRecvDtos, maxRecvIov);
        lock.lock();
        try {
            if (outstanding.get() > maxRecvDtos) {
                throw invalidState(DatReturn.NO_SUBTYPE, outstanding.get() + " receives are outstanding (dat_srq_resize(3DAT))");
            }
            if (maxRecvDtos < lowWatermark) {
                throw invalidState(DatReturn.NO_SUBTYPE, "below the low watermark " + lowWatermark + " (dat_srq_resize(3DAT))");
            }
            for (int i = 0; i < available; i++) {
                fresh[i] = ring[(head + i) & mask];
            }
            ring = fresh;
            mask = fresh.length - 1;
            this.maxRecvDtos = maxRecvDtos;
            head = 0;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void setLowWatermark(int newLowWatermark) {
        checkOpen();
        int size = maxRecvDtos;
        if (newLowWatermark < 0 || newLowWatermark > size) {
            throw invalidParameter(DatReturn.INVALID_ARG2, "lowWatermark", "must be 0.." + size);
        }
        boolean fire;
        lock.lock();
        try {
            lowWatermark = newLowWatermark;
            fire = newLowWatermark > 0 && available < newLowWatermark;
            lowWatermarkArmed = newLowWatermark > 0 && !fire;
        } finally {
            lock.unlock();
        }
        if (fire) {
            ia.postAsync(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, this, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT);
        }
    }

    @Override
    public void close() {
        freeUnderCmLock(() -> {
            if (attached.length > 0) {
                throw invalidState(DatReturn.INVALID_STATE_SRQ_IN_USE, attached.length + " Endpoint(s) use the SRQ (dat_srq_free(3DAT))");
            }
            destroy();
        });
    }

    void destroy() {
        if (freed) {
            return;
        }
        freed = true;
        pz.users.decrementAndGet();
        ia.statistics.retire(counters, () -> ia.srqs.remove(this));
        ia.adapter.srqs.decrementAndGet();
    }
}
