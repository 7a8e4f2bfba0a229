package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.AsyncErrorReason;
import dat.api.DatConstants;
import dat.api.DatReturn;
import dat.api.EventNumber;
import dat.api.HandleType;
import dat.api.LmrTriplet;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.api.SrqParamMask;
import dat.api.SrqParams;
import dat.api.SrqState;
import dat.provider.verbs.internal.ffi.Errno;
import dat.provider.verbs.internal.ffi.Inline;
import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A Shared Receive Queue: one {@code ibv_srq}. Its low watermark is the verbs SRQ limit: armed
 * with {@code ibv_modify_srq(IBV_SRQ_LIMIT)}, it raises {@code IBV_EVENT_SRQ_LIMIT_REACHED} once,
 * which the IA's event thread turns into an asynchronous event with reason
 * {@link AsyncErrorReason#SRQ_LOW_WATERMARK_EVENT} on the async EVD.
 */
@SuppressWarnings("restricted") // ibv_srq pointers are given their C size
final class VerbsSrq extends VerbsHandle implements SharedReceiveQueue {

    /**
     * The event number of the low-watermark event. DAT 1.2 names no number of its own for it;
     * the SRQ handle and the reason {@code DAT_SRQ_LOW_WATERMARK_EVENT} say what happened.
     */
    static final int LOW_WATERMARK_EVENT_NUMBER = EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR;

    private static final int IBV_SRQ_MAX_WR = 1;
    private static final int IBV_SRQ_LIMIT = 2;

    final VerbsPz pz;
    final MemorySegment srq;
    final WorkSlots slots;
    final AtomicInteger users = new AtomicInteger();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment postFn;
    private final MemorySegment recvWr;
    private final MemorySegment sges;
    private final MemorySegment badWr;
    private final int ownerId;
    private final int maxRecvIov;
    private volatile int maxRecvDtos;
    private volatile int lowWatermark;
    private volatile boolean lowWatermarkArmed;
    /** Receives posted and not yet reaped by an EVD: the SRQ's occupied entries. */
    private final AtomicInteger available = new AtomicInteger();
    /** Of those, the ones a message consumed that an EVD polled but did not hand out yet. */
    private final AtomicInteger arrived = new AtomicInteger();
    private final ReentrantLock postLock = new ReentrantLock();

    VerbsSrq(VerbsIa ia, VerbsPz pz, SrqAttributes attributes) {
        super(ia, HandleType.SRQ, DatReturn.INVALID_HANDLE_SRQ);
        if (attributes == null) {
            arena.close();
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "attributes", "null");
        }
        int wr = attributes.maxRecvDtos();
        int iov = attributes.maxRecvIov() == 0 ? Math.min(4, ia.maxSrqSge) : attributes.maxRecvIov();
        if (wr < 1 || wr > ia.maxSrqWr || iov < 1 || iov > Math.min(ia.maxSrqSge, VerbsEp.MAX_IOV)
                || attributes.lowWatermark() < 0 || attributes.lowWatermark() > wr) {
            arena.close();
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "attributes",
                    "maxRecvDtos 1.." + ia.maxSrqWr + ", maxRecvIov 1.." + Math.min(ia.maxSrqSge, VerbsEp.MAX_IOV)
                            + ", lowWatermark 0..maxRecvDtos");
        }
        this.pz = pz;
        this.maxRecvIov = iov;
        this.maxRecvDtos = wr;
        MemorySegment init = arena.allocate(Structs.IBV_SRQ_INIT_ATTR);
        init.set(JAVA_INT, Structs.SRQ_INIT_ATTR_MAX_WR, wr);
        init.set(JAVA_INT, Structs.SRQ_INIT_ATTR_MAX_SGE, iov);
        init.set(JAVA_INT, Structs.SRQ_INIT_ATTR_SRQ_LIMIT, 0);
        try {
            srq = ia.verbs.createSrq(pz.pd, init);
        } catch (NativeException e) {
            arena.close();
            throw Codes.fromNative(e, "attributes");
        }
        try {
            // the device may give more entries than asked for: dat_srq_query reports what it gave
            MemorySegment attr = arena.allocate(Structs.IBV_SRQ_ATTR);
            ia.verbs.querySrq(srq, attr);
            this.maxRecvDtos = Math.max(wr, attr.get(JAVA_INT, Structs.SRQ_ATTR_MAX_WR));
        } catch (NativeException e) {
            ia.verbs.destroySrq(srq);
            arena.close();
            throw Codes.fromNative(e, "attributes");
        }
        MemorySegment context = srq.get(ADDRESS, Structs.SRQ_CONTEXT).reinterpret(Structs.IBV_CONTEXT.byteSize());
        postFn = Inline.op(context, Structs.CONTEXT_OPS_POST_SRQ_RECV);
        slots = new WorkSlots(Math.max(maxRecvDtos, Math.min(ia.maxSrqWr, Math.max(2 * maxRecvDtos, 256))));
        recvWr = arena.allocate(Structs.IBV_RECV_WR);
        sges = arena.allocate(Structs.IBV_SGE.byteSize() * VerbsEp.MAX_IOV, 8);
        badWr = arena.allocate(ADDRESS);
        recvWr.set(ADDRESS, Structs.RECV_WR_SG_LIST, sges);
        ownerId = ia.addOwner(this);
        pz.users.incrementAndGet();
        ia.addSrq(this);
        if (attributes.lowWatermark() > 0) {
            setLowWatermark(attributes.lowWatermark());
        }
    }

    @Override
    public int postRecv(int numSegments, LmrTriplet[] localIov, long userCookie) {
        postLock.lock();
        try {
            if (freed || !ia.isUsable()) {
                return invalidHandleCode();
            }
            long total = EpRequests.fillSges(ia, pz, sges, numSegments, localIov, maxRecvIov, true, Long.MAX_VALUE);
            if (total < 0) {
                return (int) total;
            }
            if (available.get() >= maxRecvDtos) {
                return Codes.INSUFFICIENT_RESOURCES;
            }
            int slot = slots.acquire();
            if (slot < 0) {
                return Codes.INSUFFICIENT_RESOURCES;
            }
            slots.cookies[slot] = userCookie;
            slots.lengths[slot] = total & ((1L << 40) - 1);
            slots.kinds[slot] = WorkSlots.RECV;
            slots.suppress[slot] = false;
            slots.unsignalled[slot] = false;
            recvWr.set(JAVA_LONG, Structs.RECV_WR_WR_ID, ((long) ownerId << 32) | slot);
            recvWr.set(ADDRESS, Structs.RECV_WR_NEXT, MemorySegment.NULL);
            recvWr.set(JAVA_INT, Structs.RECV_WR_NUM_SGE, (int) (total >>> 40));
            int result;
            try {
                result = (int) Inline.POST_SRQ_RECV.invokeExact(postFn, srq, recvWr, badWr);
            } catch (Throwable t) {
                slots.release(slot);
                return Codes.INTERNAL_ERROR;
            }
            if (result != 0) {
                slots.release(slot);
                return result == Errno.ENOMEM ? Codes.INSUFFICIENT_RESOURCES : Codes.INTERNAL_ERROR;
            }
            available.incrementAndGet();
            return Codes.SUCCESS;
        } finally {
            postLock.unlock();
        }
    }

    /** A message consumed a receive of this SRQ: an EVD polled its completion. */
    void arrived() {
        arrived.incrementAndGet();
    }

    /** A receive of this SRQ completed: an EVD handed it out or dropped it (after {@link #arrived()}). */
    void consumed() {
        arrived.decrementAndGet();
        available.decrementAndGet();
    }

    /** The verbs SRQ limit fired (event thread). */
    void onLimitReached() {
        if (lowWatermarkArmed) {
            lowWatermarkArmed = false; // once per dat_srq_set_lw
            ia.postAsync(LOW_WATERMARK_EVENT_NUMBER, this, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT);
        }
    }

    @Override
    public SrqParams query(int srqParamMask) {
        checkOpen();
        if (!SrqParamMask.isValid(srqParamMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "srqParamMask", "undefined bits");
        }
        int occupied = available.get();
        return new SrqParams(ia, SrqState.OPERATIONAL, pz, maxRecvDtos, maxRecvIov, lowWatermark, Math.max(0, occupied - arrived.get()),
                occupied);
    }

    @Override
    public void resize(int newMaxRecvDtos) {
        checkOpen();
        if (newMaxRecvDtos < 1 || newMaxRecvDtos > slots.capacity()) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "maxRecvDtos",
                    newMaxRecvDtos + " is not in 1.." + slots.capacity());
        }
        if (newMaxRecvDtos < available.get() || newMaxRecvDtos < lowWatermark) {
            throw Codes.invalidState(DatReturn.NO_SUBTYPE, newMaxRecvDtos
                    + " is below the receives posted (" + available.get() + ") or the low watermark (" + lowWatermark + ")");
        }
        if (newMaxRecvDtos > maxRecvDtos) {
            try (Arena local = Arena.ofConfined()) {
                MemorySegment attr = local.allocate(Structs.IBV_SRQ_ATTR);
                attr.set(JAVA_INT, Structs.SRQ_ATTR_MAX_WR, newMaxRecvDtos);
                ia.verbs.modifySrq(srq, attr, IBV_SRQ_MAX_WR);
            } catch (NativeException e) {
                throw Codes.fromNative(e, "maxRecvDtos");
            }
        }
        maxRecvDtos = newMaxRecvDtos;
    }

    @Override
    public void setLowWatermark(int watermark) {
        checkOpen();
        if (watermark < 0 || watermark > maxRecvDtos) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "lowWatermark", watermark + " exceeds " + maxRecvDtos);
        }
        lowWatermark = watermark;
        lowWatermarkArmed = watermark > 0;
        if (watermark > 0 && available.get() < watermark) {
            onLimitReached(); // already below: the event comes now (dat_srq_set_lw)
            return;
        }
        try (Arena local = Arena.ofConfined()) {
            MemorySegment attr = local.allocate(Structs.IBV_SRQ_ATTR);
            attr.set(JAVA_INT, Structs.SRQ_ATTR_SRQ_LIMIT, watermark);
            ia.verbs.modifySrq(srq, attr, IBV_SRQ_LIMIT);
        } catch (NativeException e) {
            throw Codes.fromNative(e, "lowWatermark");
        }
    }

    @Override
    public void close() {
        if (freed || !ia.isUsable()) {
            return;
        }
        if (users.get() > 0) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_SRQ_IN_USE, "an Endpoint still uses the SRQ");
        }
        destroy();
    }

    void destroy() {
        postLock.lock();
        try {
            if (freed) {
                return;
            }
            freed = true;
            try {
                ia.verbs.destroySrq(srq);
            } catch (NativeException e) {
                System.getLogger(VerbsSrq.class.getName()).log(System.Logger.Level.WARNING, "ibv_destroy_srq failed", e);
            }
            arena.close();
        } finally {
            postLock.unlock();
        }
        pz.users.decrementAndGet();
        ia.removeSrq(this);
    }
}
