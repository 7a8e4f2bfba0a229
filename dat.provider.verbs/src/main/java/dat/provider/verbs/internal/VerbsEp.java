package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dat.api.CloseFlag;
import dat.api.DatConstants;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EpRecvInfo;
import dat.api.EpState;
import dat.api.EpStatus;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.HandleType;
import dat.api.LmrTriplet;
import dat.api.ProtectionZone;
import dat.api.RmrTriplet;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IaCounters;
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import dat.api.ext.Operation;
import dat.provider.support.EpHighWatermarks;
import dat.provider.support.UseCounts;
import dat.provider.verbs.internal.ffi.Inline;
import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An Endpoint: one RC QP, created with {@code ibv_create_qp} on the IA's own device context and
 * moved to INIT at once (so receives may be posted before connecting, as DAT allows), with its
 * connection driven by rdma_cm in the manual QP mode: the provider moves the QP to RTR and RTS
 * itself with the attributes {@code rdma_init_qp_attr} computes, which lets an Endpoint that
 * exists before a connection request accept it on the request's own {@code rdma_cm_id}.
 *
 * <p><b>Data path.</b> The work request, its scatter/gather list and the bad-WR pointer live in
 * native memory allocated once per Endpoint; a post checks every IOV segment against its LMR
 * (bounds, privileges, PZ) in Java, fills that memory, and calls the driver's
 * {@code ops.post_send}/{@code ops.post_recv} through {@link Inline}. Every request is signalled
 * (suppression is done when the completion is reaped), so each queue's slot table stays exact.
 * One lock per Endpoint keeps a concurrent free from destroying the QP under a post.
 */
@SuppressWarnings("restricted") // ibv_qp pointers are given their C size
final class VerbsEp extends VerbsHandle implements Endpoint, AtomicEndpoint, ImmediateDataEndpoint, EpHighWatermarks.Holder {

    /** The most segments one work request may carry, whatever the device allows. */
    static final int MAX_IOV = 16;

    private static final int IBV_QPT_RC = 2;
    private static final int IBV_QPS_RESET = 0;
    private static final int IBV_QPS_INIT = 1;
    private static final int IBV_QPS_RTR = 2;
    private static final int IBV_QPS_RTS = 3;
    private static final int IBV_QPS_ERR = 6;
    private static final int IBV_QP_STATE = 1;
    private static final int IBV_QP_ACCESS_FLAGS = 8;
    private static final int IBV_QP_PKEY_INDEX = 16;
    private static final int IBV_QP_PORT = 32;
    private static final int IBV_ACCESS_LOCAL_WRITE = 1;
    private static final int IBV_ACCESS_REMOTE_WRITE = 2;
    private static final int IBV_ACCESS_REMOTE_READ = 4;
    private static final int IBV_ACCESS_REMOTE_ATOMIC = 8;

    /** What the QP lets its peer do: RDMA read and write, and atomics where the device has them. */
    private static int qpAccess(VerbsIa ia) {
        return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ
                | (ia.atomics() ? IBV_ACCESS_REMOTE_ATOMIC : 0);
    }
    /**
     * The inline data each QP asks for: sends and RDMA writes up to this size are copied into the
     * work request at post time ({@code IBV_SEND_INLINE}, as OFED uDAPL does for small sends),
     * which spares the device a read of the registered memory. A device that refuses it gets QPs
     * without inline data.
     */
    static final int INLINE_BYTES = 64;

    // What dat_ep_modify may change (it re-creates the QP, with no DTO posted): written under
    // ia.cmLock and postLock, read by the data path under postLock; the slot tables are volatile
    // for the EVDs, which read them without that lock.
    private volatile VerbsPz pz;
    private volatile VerbsEvd recvEvd;
    private volatile VerbsEvd requestEvd;
    private volatile VerbsEvd connectEvd;
    final VerbsSrq srq;
    private volatile EpAttributes attributes;
    final int ownerId;
    volatile WorkSlots sendSlots;
    volatile WorkSlots recvSlots;

    private final Arena arena = Arena.ofShared();
    private MemorySegment qp;
    /** The inline data of {@link #qp}: {@link #INLINE_BYTES}, or 0 where the device refused it. */
    private volatile int maxInline;
    private int qpNum;
    final MemorySegment postSendFn;
    final MemorySegment postRecvFn;
    private MemorySegment discardCq;
    private boolean hasDiscardCq;
    private final MemorySegment discardPollFn;
    final EpRequests requests;
    final ReentrantLock postLock = new ReentrantLock();

    // the Endpoint's state: written under ia.cmLock, read anywhere
    private volatile EpState state = EpState.UNCONNECTED;
    /** The connection side: rdma_cm. */
    final EpConnection connection;
    /** dat_ep_set_watermark, on the receive buffers held. */
    private final EpHighWatermarks watermarks;

    private VerbsEp(VerbsIa ia, VerbsPz pz, VerbsEvd recvEvd, VerbsEvd requestEvd, VerbsEvd connectEvd, VerbsSrq srq,
            EpAttributes attributes) {
        super(ia, HandleType.EP, DatReturn.INVALID_HANDLE_EP);
        this.pz = pz;
        this.recvEvd = recvEvd;
        this.requestEvd = requestEvd;
        this.connectEvd = connectEvd;
        this.srq = srq;
        this.attributes = attributes;
        this.connection = new EpConnection(this);
        this.sendSlots = new WorkSlots(attributes.maxRequestDtos());
        this.recvSlots = new WorkSlots(srq == null ? attributes.maxRecvDtos() : 1);
        try {
            adopt(newQp(ia, pz, recvEvd, requestEvd, srq, attributes));
        } catch (NativeException e) {
            arena.close();
            throw Codes.fromNative(e, "attributes");
        }
        MemorySegment context = qp.get(ADDRESS, Structs.QP_CONTEXT).reinterpret(Structs.IBV_CONTEXT.byteSize());
        this.postSendFn = Inline.op(context, Structs.CONTEXT_OPS_POST_SEND);
        this.postRecvFn = Inline.op(context, Structs.CONTEXT_OPS_POST_RECV);
        this.discardPollFn = Inline.op(context, Structs.CONTEXT_OPS_POLL_CQ);
        this.ownerId = ia.addOwner(this);
        this.requests = new EpRequests(this, arena);
        this.watermarks = new EpHighWatermarks(this, ia.cmLock);
        ia.epsByQpNum.put(qpNum, this);
        countUses(1);
        ia.eps.add(this);
    }

    /** Counts this Endpoint into (1) or out of (-1) the users of its EVDs, SRQ and PZ. */
    private void countUses(int delta) {
        for (VerbsEvd evd : new VerbsEvd[] {recvEvd, requestEvd, connectEvd}) {
            if (evd != null) {
                evd.users.addAndGet(delta);
            }
        }
        VerbsEvd.countConsumerNotified(recvEvd, requestEvd, attributes, delta);
        if (srq != null) {
            srq.users.addAndGet(delta);
        }
        pz.users.addAndGet(delta);
    }

    /**
     * A QP {@link #newQp} created: with the private CQ ({@code NULL} when both EVDs are given), and
     * its inline data ({@link #INLINE_BYTES}, or 0 where the device refused it).
     */
    private record NewQp(MemorySegment qp, MemorySegment cq, int maxInline) {
    }

    /** Makes a new QP this Endpoint's (the constructor, and dat_ep_modify's re-creation). */
    private void adopt(NewQp created) {
        qp = created.qp();
        qpNum = qp.get(JAVA_INT, Structs.QP_QP_NUM);
        discardCq = created.cq();
        hasDiscardCq = !discardCq.equals(MemorySegment.NULL);
        maxInline = created.maxInline();
    }

    /** Destroys a QP this Endpoint no longer uses, and its private CQ if it had one. */
    private void destroyQueues(MemorySegment queuePair, boolean hasCq, MemorySegment cq) {
        try {
            ia.verbs.destroyQp(queuePair);
        } catch (NativeException e) {
            System.getLogger(VerbsEp.class.getName()).log(System.Logger.Level.WARNING, "ibv_destroy_qp failed", e);
        }
        if (hasCq) {
            ia.verbs.destroyCq(cq);
        }
    }

    /**
     * Creates an RC QP in the INIT state, and the private CQ that takes the completions of a
     * missing EVD (drained at each post), if one is missing.
     *
     * @return the QP, the private CQ and the inline data
     */
    private static NewQp newQp(VerbsIa ia, VerbsPz pz, VerbsEvd recvEvd, VerbsEvd requestEvd, VerbsSrq srq,
            EpAttributes attributes) {
        MemorySegment cq = MemorySegment.NULL;
        MemorySegment queuePair = MemorySegment.NULL;
        try (Arena local = Arena.ofConfined()) {
            if (recvEvd == null || requestEvd == null) {
                cq = ia.verbs.createCq(ia.context, attributes.maxRequestDtos() + attributes.maxRecvDtos(), 0, MemorySegment.NULL);
            }
            MemorySegment init = local.allocate(Structs.IBV_QP_INIT_ATTR);
            init.set(ADDRESS, Structs.QP_INIT_SEND_CQ, requestEvd != null ? requestEvd.cq : cq);
            init.set(ADDRESS, Structs.QP_INIT_RECV_CQ, recvEvd != null ? recvEvd.cq : cq);
            init.set(ADDRESS, Structs.QP_INIT_SRQ, srq != null ? srq.srq : MemorySegment.NULL);
            // twice the request DTOs: a bind of a bound type 2 window takes two work requests (invalidate, bind)
            init.set(JAVA_INT, Structs.QP_INIT_MAX_SEND_WR, Math.min(ia.maxQpWr, 2 * attributes.maxRequestDtos()));
            init.set(JAVA_INT, Structs.QP_INIT_MAX_RECV_WR, srq != null ? 0 : attributes.maxRecvDtos());
            init.set(JAVA_INT, Structs.QP_INIT_MAX_SEND_SGE,
                    Math.max(attributes.maxRequestIov(), Math.max(attributes.maxRdmaReadIov(), attributes.maxRdmaWriteIov())));
            init.set(JAVA_INT, Structs.QP_INIT_MAX_RECV_SGE, srq != null ? 0 : attributes.maxRecvIov());
            init.set(JAVA_INT, Structs.QP_INIT_QP_TYPE, IBV_QPT_RC);
            init.set(JAVA_INT, Structs.QP_INIT_SQ_SIG_ALL, 0);
            init.set(JAVA_INT, Structs.QP_INIT_MAX_INLINE, INLINE_BYTES);
            int inline = INLINE_BYTES;
            try {
                queuePair = ia.verbs.createQp(pz.pd, init);
            } catch (NativeException refused) {
                inline = 0; // a device without inline data
                init.set(JAVA_INT, Structs.QP_INIT_MAX_INLINE, inline);
                queuePair = ia.verbs.createQp(pz.pd, init);
            }
            MemorySegment attr = local.allocate(Structs.IBV_QP_ATTR);
            attr.set(JAVA_INT, Structs.QP_ATTR_QP_STATE, IBV_QPS_INIT);
            attr.set(JAVA_SHORT, Structs.QP_ATTR_PKEY_INDEX, (short) 0);
            attr.set(JAVA_BYTE, Structs.QP_ATTR_PORT_NUM, (byte) ia.port.port());
            attr.set(JAVA_INT, Structs.QP_ATTR_ACCESS_FLAGS,
                    qpAccess(ia));
            ia.verbs.modifyQp(queuePair, attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
            return new NewQp(queuePair, cq, inline);
        } catch (NativeException e) {
            if (!queuePair.equals(MemorySegment.NULL)) {
                ia.verbs.destroyQp(queuePair);
            }
            if (!cq.equals(MemorySegment.NULL)) {
                ia.verbs.destroyCq(cq);
            }
            throw e;
        }
    }

    static VerbsEp create(VerbsIa ia, ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, VerbsSrq srq, EpAttributes requested) {
        VerbsPz verbsPz = VerbsPz.check(ia, pz, "pz");
        VerbsEvd recv = recvEvd == null ? null : VerbsEvd.check(ia, recvEvd, EvdFlags.DTO, DatReturn.INVALID_HANDLE_EVD_RECV, "recvEvd");
        VerbsEvd request = requestEvd == null ? null
                : VerbsEvd.check(ia, requestEvd, EvdFlags.DTO, DatReturn.INVALID_HANDLE_EVD_REQUEST, "requestEvd");
        VerbsEvd connect = connectEvd == null ? null
                : VerbsEvd.check(ia, connectEvd, EvdFlags.CONNECTION, DatReturn.INVALID_HANDLE_EVD_CONN, "connectEvd");
        if (srq != null && srq.pz != verbsPz) {
            throw Codes.exception(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6, "srq",
                    "the SRQ is in another PZ (srq_ep_pz_difference_supported is false)");
        }
        return new VerbsEp(ia, verbsPz, recv, request, connect, srq,
                EpLimits.effective(ia, requested, srq == null ? DatReturn.INVALID_ARG6 : DatReturn.INVALID_ARG7));
    }

    static VerbsEp check(VerbsIa ia, Endpoint ep, String argument) {
        if (!(ep instanceof VerbsEp v) || v.ia != ia || !v.isOpen()) {
            throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EP, argument, "not an open Endpoint of this IA");
        }
        return v;
    }

    // ---- data path: EpRequests fills and posts the work requests; the counters count them ----------

    @Override
    public int postSend(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        return ia.counters.post(Operation.SEND, IaCounters.iovBytes(numSegments, localIov),
                requests.postRequest(WorkSlots.SEND, EpRequests.IBV_WR_SEND, numSegments, localIov, userCookie, null,
                        completionFlags, 0));
    }

    @Override
    public int postRdmaWrite(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        int code = requests.postRequest(WorkSlots.RDMA_WRITE, EpRequests.IBV_WR_RDMA_WRITE, numSegments, localIov, userCookie,
                remoteBuffer, completionFlags, 0);
        return ia.counters.post(Operation.RDMA_WRITE, IaCounters.iovBytes(numSegments, localIov), code);
    }

    @Override
    public int postRdmaRead(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        int code = requests.postRequest(WorkSlots.RDMA_READ, EpRequests.IBV_WR_RDMA_READ, numSegments, localIov, userCookie,
                remoteBuffer, completionFlags, 0);
        return ia.counters.post(Operation.RDMA_READ, IaCounters.iovBytes(numSegments, localIov), code);
    }

    @Override
    public int postRecv(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        int code = requests.postRecv(numSegments, localIov, userCookie, completionFlags);
        if (code == Codes.SUCCESS) {
            watermarks.received();
        }
        return ia.counters.post(Operation.RECEIVE, IaCounters.iovBytes(numSegments, localIov), code);
    }

    /** {@code dat_ib_post_rdma_write_immed}: {@link ImmediateDataEndpoint}. */
    @Override
    public int postRdmaWriteImmediate(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int immediateData, int completionFlags) {
        int code = requests.postRequest(WorkSlots.RDMA_WRITE_IMM, EpRequests.IBV_WR_RDMA_WRITE_WITH_IMM, numSegments, localIov,
                userCookie, remoteBuffer, completionFlags, immediateData);
        return ia.counters.post(Operation.RDMA_WRITE_IMMEDIATE, IaCounters.iovBytes(numSegments, localIov), code);
    }

    /** {@code dat_ib_post_fetch_and_add}: {@link AtomicEndpoint}. */
    @Override
    public int postFetchAndAdd(long addValue, LmrTriplet localBuffer, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        return ia.counters.post(Operation.FETCH_AND_ADD, IbExtension.ATOMIC_OPERAND_SIZE, requests.postAtomic(WorkSlots.FETCH_AND_ADD,
                addValue, 0, localBuffer, userCookie, remoteBuffer, completionFlags, DatReturn.INVALID_ARG3));
    }

    /** {@code dat_ib_post_cmp_and_swap}: {@link AtomicEndpoint}. */
    @Override
    public int postCompareAndSwap(long compareValue, long swapValue, LmrTriplet localBuffer, long userCookie,
            RmrTriplet remoteBuffer, int completionFlags) {
        return ia.counters.post(Operation.COMPARE_AND_SWAP, IbExtension.ATOMIC_OPERAND_SIZE, requests.postAtomic(
                WorkSlots.CMP_AND_SWAP, compareValue, swapValue, localBuffer, userCookie, remoteBuffer, completionFlags,
                DatReturn.INVALID_ARG4));
    }

    /**
     * The extensions an Endpoint offers where the IA offers them: {@link AtomicEndpoint} where the
     * device has atomics, {@link ImmediateDataEndpoint} always (RC RDMA write with immediate data).
     */
    @Override
    public <T> java.util.Optional<T> extension(Class<T> type) {
        if ((type == AtomicEndpoint.class && ia.atomics()) || type == ImmediateDataEndpoint.class) {
            return java.util.Optional.of(type.cast(this));
        }
        return java.util.Optional.empty();
    }

    /** Completions of a missing EVD are dropped, as DAT has it; drained so the private CQ never overflows (post lock held). */
    void drainDiscarded(MemorySegment wc) {
        if (!hasDiscardCq) {
            return;
        }
        for (;;) {
            int n;
            try {
                n = (int) Inline.POLL_CQ.invokeExact(discardPollFn, discardCq, 16, wc);
            } catch (Throwable t) {
                return;
            }
            if (n <= 0) {
                return;
            }
            for (int i = 0; i < n; i++) {
                long entry = i * Structs.IBV_WC.byteSize();
                reapDiscarded(wc.get(JAVA_LONG, entry + Structs.WC_WR_ID), wc.get(JAVA_INT, entry + Structs.WC_STATUS) == 0);
            }
        }
    }

    /**
     * What a request EVD's reaping would do for a completion, without its event: the slot of its
     * owner comes back (this Endpoint's queues, or the SRQ whose buffer a receive took, whose
     * wr_id names the SRQ), an SRQ buffer stops counting, a bind's window learns its outcome.
     */
    private void reapDiscarded(long wrId, boolean success) {
        Object owner = ia.owner((int) (wrId >>> 32));
        WorkSlots slots = WorkSlots.of(owner, wrId);
        if (slots == null) {
            return; // an owner freed since: its slots went with it
        }
        int slot = WorkSlots.slot(wrId);
        if (slot < 0 || slot >= slots.capacity()) {
            return;
        }
        Object ref = slots.refs[slot];
        if (slots.release(slot)) {
            if (owner instanceof VerbsSrq srq) {
                srq.consumed();
            }
            if (ref instanceof VerbsRmr.BindOp bind) {
                bind.completed(success);
            }
        }
    }

    /** The QP, read under the post lock: a bind records the QP its window is bound through. */
    MemorySegment currentQp() {
        postLock.lock();
        try {
            return qp;
        } finally {
            postLock.unlock();
        }
    }

    MemorySegment qp() {
        return qp;
    }

    int maxInline() {
        return maxInline;
    }

    int qpNum() {
        return qpNum;
    }

    VerbsEvd connectEvd() {
        return connectEvd;
    }

    EpAttributes attributes() {
        return attributes;
    }

    VerbsPz pz() {
        return pz;
    }

    VerbsEvd requestEvd() {
        return requestEvd;
    }

    VerbsEvd recvEvd() {
        return recvEvd;
    }

    // ---- connection management: EpConnection drives rdma_cm ----------------------------------------

    @Override
    public void connect(InetSocketAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
            int qos, int connectFlags) {
        connection.connect(remoteIaAddress, remoteConnQual, timeoutMicros, privateData, qos, connectFlags);
    }

    @Override
    public void dupConnect(Endpoint dupEp, long timeoutMicros, byte[] privateData, int qos) {
        connection.dupConnect(dupEp, timeoutMicros, privateData, qos);
    }

    @Override
    public void disconnect(CloseFlag flag) {
        connection.disconnect(flag);
    }

    @Override
    public void reset() {
        connection.reset();
    }

    void toState(int qpState) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment attr = local.allocate(Structs.IBV_QP_ATTR);
            attr.set(JAVA_INT, Structs.QP_ATTR_QP_STATE, qpState);
            ia.verbs.modifyQp(qp, attr, IBV_QP_STATE);
        }
    }

    /** Moves the QP to ERR: every posted request and receive completes as flushed. */
    void toError() {
        try {
            toState(IBV_QPS_ERR);
        } catch (NativeException ignored) {
            // already in error or reset
        }
    }

    /** Moves the QP back to INIT after a disconnect, as a new one (dat_ep_reset; ia.cmLock held). */
    void resetQp() {
        postLock.lock();
        try {
            toState(IBV_QPS_RESET);
            try (Arena local = Arena.ofConfined()) {
                MemorySegment attr = local.allocate(Structs.IBV_QP_ATTR);
                attr.set(JAVA_INT, Structs.QP_ATTR_QP_STATE, IBV_QPS_INIT);
                attr.set(JAVA_BYTE, Structs.QP_ATTR_PORT_NUM, (byte) ia.port.port());
                attr.set(JAVA_INT, Structs.QP_ATTR_ACCESS_FLAGS, qpAccess(ia));
                ia.verbs.modifyQp(qp, attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
            }
        } catch (NativeException e) {
            throw Codes.fromNative(e, "ep");
        } finally {
            postLock.unlock();
        }
    }

    // ---- queries -----------------------------------------------------------------------------------

    EpState state() {
        return state;
    }

    /** Moves the state for the connection ({@link EpConnection}); ia.cmLock held. */
    void setState(EpState next) {
        state = next;
    }

    @Override
    public EpParams query(long epParamMask) {
        checkOpen();
        if (!EpParamMask.isValid(epParamMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "epParamMask", "undefined bits");
        }
        return EpParams.builder().ia(ia).state(state).localIaAddress(new InetSocketAddress(ia.port.address(), 0))
                .localPortQual(connection.localQual).remoteIaAddress(connection.remoteAddress).remotePortQual(connection.remoteQual).pz(pz).recvEvd(recvEvd)
                .requestEvd(requestEvd).connectEvd(connectEvd).srq(srq).attributes(attributes).build();
    }

    /** The parameters dat_ep_modify(3DAT) says cannot be modified, and the SRQ, fixed at creation. */
    private static final long UNMODIFIABLE = EpParamMask.IA_HANDLE | EpParamMask.EP_STATE | EpParamMask.LOCAL_IA_ADDRESS_PTR
            | EpParamMask.LOCAL_PORT_QUAL | EpParamMask.REMOTE_IA_ADDRESS_PTR | EpParamMask.REMOTE_PORT_QUAL
            | EpParamMask.SRQ_HANDLE;
    /** The transport- and provider-specific attributes: the verbs provider has none. */
    private static final long SPECIFIC = EpParamMask.EP_ATTR_NUM_TRANSPORT_ATTR | EpParamMask.EP_ATTR_TRANSPORT_SPECIFIC_ATTR
            | EpParamMask.EP_ATTR_NUM_PROVIDER_ATTR | EpParamMask.EP_ATTR_PROVIDER_SPECIFIC_ATTR;

    /**
     * dat_ep_modify(3DAT). The arguments and the state are checked first, as the page orders them;
     * then what an RC QP cannot change in place (its PZ, CQs, queue depths and SGE counts) is
     * changed by creating a new QP in INIT and destroying the old one, which the Endpoint may do
     * only while no DTO is posted to it (a posted request lives in the old QP):
     * {@code DAT_MODEL_NOT_SUPPORTED} otherwise. The rest (connection EVD, message sizes,
     * completion flags, RDMA read depths, which rdma_cm negotiates at connect) is Java state.
     */
    @Override
    public void modify(long epParamMask, EpParams params) {
        checkOpen();
        if (!EpParamMask.isValid(epParamMask) || (epParamMask & UNMODIFIABLE) != 0) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "epParamMask",
                    "undefined bits or parameters that cannot be modified (dat_ep_modify(3DAT)): 0x" + Long.toHexString(epParamMask));
        }
        if (params == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "params", "null parameters");
        }
        if ((epParamMask & EpParamMask.EP_ATTR_ALL) != 0 && params.attributes() == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "params.attributes", "null attributes");
        }
        if (epParamMask == 0) {
            return;
        }
        ia.cmLock.lock();
        try {
            checkOpen();
            EpState s = state;
            boolean early = s == EpState.UNCONNECTED || s == EpState.RESERVED || s == EpState.PASSIVE_CONNECTION_PENDING
                    || s == EpState.TENTATIVE_CONNECTION_PENDING;
            if ((epParamMask & EpParamMask.PZ_HANDLE) != 0 && s != EpState.UNCONNECTED && s != EpState.TENTATIVE_CONNECTION_PENDING) {
                throw Codes.epStateException(s,
                        "the PZ can change only when UNCONNECTED or TENTATIVE_CONNECTION_PENDING");
            }
            if (!early) {
                throw Codes.epStateException(s,
                        "dat_ep_modify changes these parameters only before connecting or accepting");
            }
            VerbsPz newPz = (epParamMask & EpParamMask.PZ_HANDLE) != 0 ? VerbsPz.check(ia, params.pz(), "params.pz") : pz;
            VerbsEvd newRecv = (epParamMask & EpParamMask.RECV_EVD_HANDLE) == 0 ? recvEvd : params.recvEvd() == null ? null
                    : VerbsEvd.check(ia, params.recvEvd(), EvdFlags.DTO, DatReturn.INVALID_HANDLE_EVD_RECV, "params.recvEvd");
            VerbsEvd newRequest = (epParamMask & EpParamMask.REQUEST_EVD_HANDLE) == 0 ? requestEvd
                    : params.requestEvd() == null ? null
                    : VerbsEvd.check(ia, params.requestEvd(), EvdFlags.DTO, DatReturn.INVALID_HANDLE_EVD_REQUEST, "params.requestEvd");
            VerbsEvd newConnect = (epParamMask & EpParamMask.CONNECT_EVD_HANDLE) == 0 ? connectEvd
                    : params.connectEvd() == null ? null
                    : VerbsEvd.check(ia, params.connectEvd(), EvdFlags.CONNECTION, DatReturn.INVALID_HANDLE_EVD_CONN, "params.connectEvd");
            if (srq != null && srq.pz != newPz) {
                throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "params.pz",
                        "the SRQ is in another PZ (srq_ep_pz_difference_supported is false)");
            }
            EpAttributes current = attributes;
            EpAttributes newAttributes = current;
            if ((epParamMask & EpParamMask.EP_ATTR_ALL) != 0) {
                if ((epParamMask & SPECIFIC) != 0 && (!isEmpty(params.attributes().transportSpecific())
                        || !isEmpty(params.attributes().providerSpecific()))) {
                    throw Codes.exception(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "params.attributes",
                            "the verbs provider has no transport- or provider-specific Endpoint attributes");
                }
                newAttributes = EpLimits.effective(ia, current.withMasked(params.attributes(), epParamMask), DatReturn.INVALID_ARG3);
            }
            boolean newQp = newPz != pz || newRecv != recvEvd || newRequest != requestEvd
                    || newAttributes.maxRecvDtos() != current.maxRecvDtos() || newAttributes.maxRequestDtos() != current.maxRequestDtos()
                    || newAttributes.maxRecvIov() != current.maxRecvIov() || newAttributes.maxRequestIov() != current.maxRequestIov()
                    || newAttributes.maxRdmaReadIov() != current.maxRdmaReadIov()
                    || newAttributes.maxRdmaWriteIov() != current.maxRdmaWriteIov();
            // the QP and private CQ a re-creation replaced, destroyed once the post lock is released
            MemorySegment retiredQp = MemorySegment.NULL;
            MemorySegment retiredCq = MemorySegment.NULL;
            postLock.lock();
            try {
                checkOpen();
                boolean posted = recvSlots.outstanding() > 0 || sendSlots.outstanding() > 0;
                if (newAttributes.recvCompletionFlags() != current.recvCompletionFlags() && recvSlots.outstanding() > 0) {
                    throw Codes.epStateException(s,
                            "Recv Completion Flags cannot change after receives were posted");
                }
                if (newQp && posted) {
                    throw Codes.exception(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "epParamMask",
                            "the verbs provider changes the PZ, DTO EVDs, queue depths and IOV sizes by re-creating the QP,"
                                    + " which it cannot do while DTOs are posted to it");
                }
                if (newQp) {
                    NewQp created;
                    try {
                        created = newQp(ia, newPz, newRecv, newRequest, srq, newAttributes);
                    } catch (NativeException e) {
                        throw Codes.fromNative(e, "params.attributes");
                    }
                    retiredQp = qp;
                    retiredCq = hasDiscardCq ? discardCq : MemorySegment.NULL;
                    ia.epsByQpNum.remove(qpNum, this);
                    adopt(created);
                    ia.epsByQpNum.put(qpNum, this);
                    sendSlots = new WorkSlots(newAttributes.maxRequestDtos());
                    recvSlots = new WorkSlots(srq == null ? newAttributes.maxRecvDtos() : 1);
                }
                if (newPz != pz) {
                    newPz.users.incrementAndGet();
                    pz.users.decrementAndGet();
                    pz = newPz;
                }
                VerbsEvd.countConsumerNotified(recvEvd, requestEvd, attributes, -1);
                recvEvd = UseCounts.swap(recvEvd, newRecv, evd -> evd.users);
                requestEvd = UseCounts.swap(requestEvd, newRequest, evd -> evd.users);
                connectEvd = UseCounts.swap(connectEvd, newConnect, evd -> evd.users);
                attributes = newAttributes;
                VerbsEvd.countConsumerNotified(recvEvd, requestEvd, attributes, 1);
            } finally {
                postLock.unlock();
            }
            if (!retiredQp.equals(MemorySegment.NULL)) {
                // the windows bound through the old QP first (their monitors go before the post lock)
                ia.releaseWindows(retiredQp);
                destroyQueues(retiredQp, !retiredCq.equals(MemorySegment.NULL), retiredCq);
            }
        } finally {
            ia.cmLock.unlock();
        }
    }

    private static boolean isEmpty(java.util.Map<String, String> attributes) {
        return attributes == null || attributes.isEmpty();
    }

    @Override
    public EpStatus getStatus() {
        checkOpen();
        return new EpStatus(state, recvSlots.outstanding() == 0, sendSlots.outstanding() == 0);
    }

    /**
     * dat_ep_recv_query(3DAT): an Endpoint of its own receive queue holds the receives posted to it
     * and not yet completed, and the queue pair fills them in the order they were posted, so that
     * count is both figures. An Endpoint of an SRQ takes a buffer when a message lands in it, which
     * verbs reports only with the completion: both are {@code DAT_VALUE_UNKNOWN}.
     */
    @Override
    public EpRecvInfo recvQuery() {
        checkOpen();
        if (srq != null) {
            return new EpRecvInfo(DatConstants.VALUE_UNKNOWN, DatConstants.VALUE_UNKNOWN);
        }
        int held = recvSlots.outstanding();
        return new EpRecvInfo(held, held);
    }

    /**
     * dat_ep_set_watermark(3DAT) on the receive buffers the Endpoint holds: those posted to it and
     * not yet completed ({@link EpHighWatermarks}). An Endpoint of an SRQ holds a buffer only while
     * the device fills it, which verbs reports with the completion: it is counted as holding none.
     */
    @Override
    public void setWatermark(int softHighWatermark, int hardHighWatermark) {
        checkOpen();
        watermarks.set(softHighWatermark, hardHighWatermark);
    }

    @Override
    public int buffersHeld() {
        return srq == null ? recvSlots.outstanding() : 0;
    }

    @Override
    public boolean isConnected() {
        return !freed && state == EpState.CONNECTED;
    }

    @Override
    public void postSoftWatermarkEvent() {
        ia.postAsync(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, this, dat.api.AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT);
    }

    /** Breaks a connected Endpoint that holds more receive buffers than its hard watermark (ia.cmLock held). */
    void breakIfOverHardWatermark() {
        watermarks.breakIfOverHard();
    }

    @Override
    public void breakForHardWatermark() {
        toError();
        try {
            ia.verbs.disconnect(connection.cmId);
        } catch (NativeException ignored) {
            // the peer sees the connection break instead
        }
        state = EpState.DISCONNECTED;
        connection.post(EventNumber.CONNECTION_EVENT_BROKEN, null);
        ia.postAsync(EventNumber.ASYNC_ERROR_EP_BROKEN, this, dat.api.AsyncErrorReason.EP_OTHER_ERROR);
    }

    @Override
    public void close() {
        if (freed || !ia.isUsable()) {
            return;
        }
        ia.cmLock.lock();
        try {
            if (freed) {
                return;
            }
            connection.checkFreeable();
        } finally {
            ia.cmLock.unlock();
        }
        destroy();
    }

    /** Tears the Endpoint down: disconnect, flush, destroy the rdma_cm id and the QP. Idempotent. */
    void destroy() {
        ia.cmLock.lock();
        try {
            if (freed) {
                return;
            }
            postLock.lock();
            try {
                freed = true;
                if (state == EpState.CONNECTED && !connection.cmId.equals(MemorySegment.NULL)) {
                    try {
                        ia.verbs.disconnect(connection.cmId);
                    } catch (NativeException ignored) {
                        // the peer sees the connection break instead
                    }
                }
                toError();
            } finally {
                postLock.unlock();
            }
            // no post goes out once freed is set; a bind holds its window's monitor, then the post lock
            ia.releaseWindows(qp);
            postLock.lock();
            try {
                connection.dropCmId();
                destroyQueues(qp, hasDiscardCq, discardCq);
                arena.close();
            } finally {
                postLock.unlock();
            }
            ia.epsByQpNum.remove(qpNum, this);
            countUses(-1);
            ia.eps.remove(this);
        } finally {
            ia.cmLock.unlock();
        }
    }
}
