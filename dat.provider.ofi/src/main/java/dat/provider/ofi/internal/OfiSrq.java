package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.AsyncErrorReason;
import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.EventNumber;
import dat.api.HandleType;
import dat.api.LmrTriplet;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.api.SrqParamMask;
import dat.api.SrqParams;
import dat.api.SrqState;
import dat.api.ext.IaCounters;
import dat.api.ext.Operation;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.ofi.internal.ffi.Ops;
import dat.provider.ofi.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A Shared Receive Queue: a libfabric shared receive context ({@code fi_srx_context}) that the
 * libfabric endpoint of each connection of its Endpoints binds to. A receive completes on the CQ of
 * the Endpoint that took it ({@link OfiEp}'s own, read by that Endpoint's receive EVD). The low
 * watermark is the provider's: libfabric has none, so the SRQ counts its posted receives and posts
 * {@link AsyncErrorReason#SRQ_LOW_WATERMARK_EVENT} on the async EVD once when the count falls below
 * the watermark set.
 */
final class OfiSrq extends OfiHandle implements SharedReceiveQueue {

    /**
     * The event number of the low-watermark event. DAT 1.2 names no number of its own for it;
     * the SRQ handle and the reason {@code DAT_SRQ_LOW_WATERMARK_EVENT} say what happened.
     */
    static final int LOW_WATERMARK_EVENT_NUMBER = EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR;

    final OfiPz pz;
    final MemorySegment srx;
    final WorkSlots slots;
    final AtomicInteger users = new AtomicInteger();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment recvmsg;
    private final long srxAddress;
    private final MemorySegment msg;
    private final MemorySegment iovs;
    private final MemorySegment descs;
    private final long msgAddress;
    final int ownerId;
    /** Freed, and still in the IA's table while receives of it are queued ({@link OfiIa#retire(OfiSrq)}). */
    volatile boolean retiring;
    private final int maxRecvIov;
    /** The LMRs of the receive being posted, one per segment ({@link WorkSlots#rememberLmrs}). */
    private final OfiLmr[] lmrs = new OfiLmr[Limits.MAX_IOV];
    private volatile int maxRecvDtos;
    private volatile int lowWatermark;
    private volatile boolean lowWatermarkArmed;
    private final AtomicInteger available = new AtomicInteger();
    private final ReentrantLock postLock = new ReentrantLock();

    OfiSrq(OfiIa ia, OfiPz pz, SrqAttributes attributes) {
        super(ia, HandleType.SRQ, DatReturn.INVALID_HANDLE_SRQ);
        if (attributes == null) {
            arena.close();
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "attributes", "null");
        }
        int depth = ia.limits.maxDtosPerEp();
        int wr = attributes.maxRecvDtos();
        int iov = attributes.maxRecvIov() == 0 ? ia.limits.recvIovLimit() : attributes.maxRecvIov();
        if (wr < 1 || wr > depth || iov < 1 || iov > ia.limits.recvIovLimit() || attributes.lowWatermark() < 0
                || attributes.lowWatermark() > wr) {
            arena.close();
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "attributes",
                    "maxRecvDtos 1.." + depth + ", maxRecvIov 1.." + ia.limits.recvIovLimit() + ", lowWatermark 0..maxRecvDtos");
        }
        this.pz = pz;
        this.maxRecvIov = iov;
        this.maxRecvDtos = wr;
        try {
            MemorySegment rxAttr = arena.allocate(Structs.FI_RX_ATTR);
            rxAttr.set(JAVA_LONG, Structs.RX_CAPS, Fi.MSG | Fi.RECV);
            rxAttr.set(JAVA_LONG, Structs.RX_SIZE, depth);
            rxAttr.set(JAVA_LONG, Structs.RX_IOV_LIMIT, iov);
            srx = Ops.srxContext(ia.domain.domain, rxAttr);
        } catch (NativeException e) {
            arena.close();
            throw Codes.fromNative(e, "attributes");
        }
        recvmsg = Ops.fn(srx, Structs.EP_MSG, Structs.FI_OPS_MSG, Structs.MSG_OPS_RECVMSG, "fi_recvmsg");
        srxAddress = srx.address();
        try {
            ownerId = ia.addOwner(this);
        } catch (DatException e) {
            try {
                Ops.close(srx);
            } catch (NativeException closeFailed) {
                e.addSuppressed(closeFailed);
            }
            arena.close();
            throw e;
        }
        slots = new WorkSlots(depth, ownerId, false, 0, maxRecvIov);
        msg = arena.allocate(Structs.FI_MSG);
        iovs = arena.allocate(Structs.IOVEC.byteSize() * Limits.MAX_IOV, 8);
        descs = arena.allocate(ADDRESS.byteSize() * Limits.MAX_IOV, 8);
        msg.set(ADDRESS, Structs.MSG_IOV, iovs);
        msg.set(ADDRESS, Structs.MSG_DESC, descs);
        msgAddress = msg.address();
        pz.users.incrementAndGet();
        ia.srqs.add(this);
        if (attributes.lowWatermark() > 0) {
            setLowWatermark(attributes.lowWatermark());
        }
    }

    @Override
    public int postRecv(int numSegments, LmrTriplet[] localIov, long userCookie) {
        return ia.counters.post(Operation.RECEIVE, IaCounters.iovBytes(numSegments, localIov),
                postRecvLocked(numSegments, localIov, userCookie));
    }

    private int postRecvLocked(int numSegments, LmrTriplet[] localIov, long userCookie) {
        Locks.lockSpinning(postLock);
        try {
            if (freed || !ia.isUsable()) {
                return invalidHandleCode();
            }
            long total = Posting.fill(ia, pz, iovs, descs, numSegments, localIov, maxRecvIov, true, Long.MAX_VALUE, lmrs);
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
            slots.immediates[slot] = 0;
            slots.rememberLmrs(slot, lmrs, (int) (total >>> 40));
            msg.set(JAVA_LONG, Structs.MSG_IOV_COUNT, total >>> 40);
            msg.set(JAVA_LONG, Structs.MSG_CONTEXT, slots.token(slot));
            long result;
            try {
                result = (long) Ops.XFER.invokeExact(recvmsg, srxAddress, msgAddress, 0L);
            } catch (Throwable t) {
                slots.abandon(slot);
                return Codes.INTERNAL_ERROR;
            }
            if (result != 0) {
                slots.abandon(slot);
                return result == -Fi.EAGAIN ? Codes.INSUFFICIENT_RESOURCES : Codes.INTERNAL_ERROR;
            }
            available.incrementAndGet();
            return Codes.SUCCESS;
        } finally {
            postLock.unlock();
        }
    }

    /** Whether no receive of this SRQ is posted or queued. */
    boolean idle() {
        return slots.outstanding() == 0;
    }

    /** A receive of this SRQ completed (reaped by an EVD): the low watermark is checked. */
    void consumed() {
        int left = available.decrementAndGet();
        if (lowWatermarkArmed && left < lowWatermark) {
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
        return new SrqParams(ia, SrqState.OPERATIONAL, pz, maxRecvDtos, maxRecvIov, lowWatermark, available.get(),
                DatConstants.VALUE_UNKNOWN);
    }

    @Override
    public void resize(int newMaxRecvDtos) {
        checkOpen();
        if (newMaxRecvDtos < 1 || newMaxRecvDtos > slots.capacity()) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "maxRecvDtos", newMaxRecvDtos + " is not in 1.." + slots.capacity());
        }
        if (newMaxRecvDtos < available.get() || newMaxRecvDtos < lowWatermark) {
            throw Codes.invalidState(DatReturn.NO_SUBTYPE, newMaxRecvDtos
                    + " is below the receives posted (" + available.get() + ") or the low watermark (" + lowWatermark + ")");
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
            lowWatermarkArmed = false; // already below: the event comes now (dat_srq_set_lw)
            ia.postAsync(LOW_WATERMARK_EVENT_NUMBER, this, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT);
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
                Ops.close(srx);
            } catch (NativeException e) {
                System.getLogger(OfiSrq.class.getName()).log(System.Logger.Level.WARNING, "fi_close of a shared receive context failed", e);
            }
            arena.close();
            // no Endpoint uses it any more, and its context is closed: what is still posted never completes
            slots.takePosted(new int[slots.capacity()]);
        } finally {
            postLock.unlock();
        }
        pz.users.decrementAndGet();
        ia.srqs.remove(this);
        ia.retire(this);
    }
}
