package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.AsyncErrorReason;
import dat.api.CloseFlag;
import dat.api.ConsumerNotificationObject;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.HandleType;
import dat.api.IaAttrMask;
import dat.api.IaAttributes;
import dat.api.IaQuery;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemoryType;
import dat.api.ProtectionZone;
import dat.api.ProviderAttrMask;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.RegionDescription;
import dat.api.ReservedServicePoint;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.api.WaitProxyAgent;
import dat.api.ext.IaCounters;
import dat.api.ext.IaStatistics;
import dat.provider.support.IntTable;
import dat.provider.support.SyncSegments;
import dat.provider.verbs.internal.ffi.Libc;
import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import dat.provider.verbs.internal.ffi.Verbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An open IA on one RDMA device port: its own device context ({@code ibv_open_device}), one
 * completion channel shared by the CQs of its EVDs, one rdma_cm event channel shared by its
 * Service Points and Endpoints, and the device's async-event descriptor, which one platform thread
 * per IA reads ({@link EventLoop}). Consumer threads never block in native code: waits park in Java.
 *
 * <p>Locks, outermost first: {@link #cmLock} (connection state of every Service Point, CR and
 * Endpoint of this IA) → an RMR's monitor → an Endpoint's or SRQ's post lock → an EVD's lock → a
 * {@link WorkSlots} monitor. The event thread takes them only after it acknowledged the native event.
 */
@SuppressWarnings("restricted") // native pointers returned by the libraries are given their C sizes
final class VerbsIa extends VerbsHandle implements InterfaceAdapter {

    private static final int OPEN = 0;
    private static final int CLOSED = 1;
    private static final int FAILED = 2;

    final Verbs verbs;
    final DevicePort port;
    private final VerbsIaFactory factory;
    private final String name;
    final Arena arena = Arena.ofShared();
    final MemorySegment context;
    final MemorySegment compChannel;
    final MemorySegment cmChannel;
    private final int wakeFd;
    private volatile int state = OPEN;
    private volatile EventDispatcher asyncEvd;
    private final boolean ownsAsyncEvd;
    /** The event thread, which also runs the DAT connect timeouts. */
    final EventLoop loop;

    final ReentrantLock cmLock = new ReentrantLock();
    private final AtomicLong tokens = new AtomicLong(1);

    // what the event thread and the data path find objects by
    final IntTable<VerbsLmr> lmrsByLkey = new IntTable<>();
    final IntTable<VerbsEp> epsByQpNum = new IntTable<>();
    private volatile Object[] owners = new Object[64];
    private int ownerCount = 1;

    // every live object, for an abrupt close in the right order
    final Set<VerbsEp> eps = ConcurrentHashMap.newKeySet();
    final Set<VerbsCr> crs = ConcurrentHashMap.newKeySet();
    final Set<VerbsServicePoint> servicePoints = ConcurrentHashMap.newKeySet();
    final Set<VerbsSrq> srqs = ConcurrentHashMap.newKeySet();
    final Set<VerbsLmr> lmrs = ConcurrentHashMap.newKeySet();
    final Set<VerbsRmr> rmrs = ConcurrentHashMap.newKeySet();
    final Set<VerbsEvd> evds = ConcurrentHashMap.newKeySet();
    final Set<VerbsCno> cnos = ConcurrentHashMap.newKeySet();
    final Set<VerbsPz> pzs = ConcurrentHashMap.newKeySet();

    // device limits, read once
    final int maxQp;
    final int maxQpWr;
    final int maxSge;
    final int maxSgeRd;
    final int maxCq;
    final int maxCqe;
    final int maxMr;
    final int maxPd;
    final int maxQpRdAtom;
    final int maxQpInitRdAtom;
    final int maxSrq;
    final int maxSrqWr;
    final int maxSrqSge;
    final long maxMrSize;
    final long maxMessageSize;
    final int maxMw;
    final int vendorId;
    final int hardwareVersion;
    final String firmware;
    /** The IA's counters, kept from its open ({@link IaStatistics}); the data path adds to them. */
    final IaCounters counters;
    /** Whether a window's range confines the accesses through it on this device ({@link WindowProbe}). */
    private final boolean windowBoundsEnforced;

    /** Something that rdma_cm events are delivered to: a Service Point or an Endpoint. */
    interface CmTarget {
        /** Called on the event thread with {@link #cmLock} held. */
        void onCmEvent(int event, int status, MemorySegment id, byte[] privateData);
    }

    VerbsIa(VerbsIaFactory factory, Verbs verbs, DevicePort port, String name, int asyncQlen, EventDispatcher requestedAsyncEvd) {
        super(null, HandleType.IA, DatReturn.INVALID_HANDLE_IA);
        this.factory = factory;
        this.verbs = verbs;
        this.port = port;
        this.name = name;
        this.counters = new IaCounters(name);
        MemorySegment ctx = MemorySegment.NULL;
        MemorySegment comp = MemorySegment.NULL;
        MemorySegment cm = MemorySegment.NULL;
        int wake = -1;
        try (Arena local = Arena.ofConfined()) {
            ctx = openContext(verbs, port.deviceName(), local);
            MemorySegment attr = local.allocate(Structs.IBV_DEVICE_ATTR);
            verbs.queryDevice(ctx, attr);
            maxQp = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_QP);
            maxQpWr = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_QP_WR);
            maxSge = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_SGE);
            maxSgeRd = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_SGE_RD);
            maxCq = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_CQ);
            maxCqe = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_CQE);
            maxMr = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_MR);
            maxPd = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_PD);
            maxQpRdAtom = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_QP_RD_ATOM);
            maxQpInitRdAtom = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_QP_INIT_RD_ATOM);
            maxSrq = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_SRQ);
            maxSrqWr = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_SRQ_WR);
            maxSrqSge = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_SRQ_SGE);
            long mrSize = attr.get(JAVA_LONG, Structs.DEVICE_ATTR_MAX_MR_SIZE);
            maxMrSize = mrSize <= 0 ? Long.MAX_VALUE : mrSize; // a u64: all ones means no limit
            maxMw = attr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_MW);
            vendorId = attr.get(JAVA_INT, Structs.DEVICE_ATTR_VENDOR_ID);
            hardwareVersion = attr.get(JAVA_INT, Structs.DEVICE_ATTR_HW_VER);
            firmware = attr.asSlice(Structs.DEVICE_ATTR_FW_VER, 64).getString(0);
            MemorySegment portAttr = local.allocate(Structs.IBV_PORT_ATTR);
            verbs.queryPort(ctx, port.port(), portAttr);
            maxMessageSize = Integer.toUnsignedLong(portAttr.get(JAVA_INT, Structs.PORT_ATTR_MAX_MSG_SZ));
            comp = verbs.createCompChannel(ctx);
            Libc.setNonBlocking(comp.get(JAVA_INT, Structs.COMP_CHANNEL_FD));
            cm = verbs.createEventChannel();
            Libc.setNonBlocking(cm.get(JAVA_INT, Structs.EVENT_CHANNEL_FD));
            Libc.setNonBlocking(ctx.get(JAVA_INT, Structs.CONTEXT_ASYNC_FD));
            wake = Libc.eventfd();
        } catch (NativeException e) {
            release(verbs, ctx, comp, cm, wake);
            arena.close();
            throw Codes.fromNative(e, "ia");
        }
        this.context = ctx;
        this.windowBoundsEnforced = port.windowType() > 0 && factory.windowBoundsEnforced(port, verbs, ctx);
        this.compChannel = comp;
        this.cmChannel = cm;
        this.wakeFd = wake;
        this.loop = new EventLoop(this, wake); // before the async EVD, which registers with it
        if (requestedAsyncEvd == null && asyncQlen > maxCqe) {
            release(verbs, ctx, comp, cm, wake);
            arena.close();
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "asyncEvdMinQlen", asyncQlen + " is not in 1.." + maxCqe);
        }
        if (requestedAsyncEvd == null) {
            this.asyncEvd = new VerbsEvd(this, Math.max(1, asyncQlen), null, EvdFlags.ASYNC);
            this.ownsAsyncEvd = true;
        } else if (requestedAsyncEvd == EventDispatcher.ASYNC_EXISTS) {
            this.asyncEvd = EventDispatcher.OUT_OF_SCOPE;
            this.ownsAsyncEvd = false;
        } else if (requestedAsyncEvd instanceof VerbsEvd evd && evd.isOpen() && (evd.flags & EvdFlags.ASYNC) != 0) {
            this.asyncEvd = evd;
            this.ownsAsyncEvd = false;
        } else {
            release(verbs, ctx, comp, cm, wake);
            arena.close();
            throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_ASYNC, "asyncEvd",
                    "not an open async EVD of the verbs provider");
        }
        loop.start();
    }

    private static MemorySegment openContext(Verbs verbs, String deviceName, Arena arena) {
        for (MemorySegment device : verbs.deviceList(arena)) {
            if (verbs.deviceName(device).equals(deviceName)) {
                return verbs.openDevice(device);
            }
        }
        throw new NativeException("ibv_get_device_list (device " + deviceName + " is gone)", 19);
    }

    private static void release(Verbs verbs, MemorySegment ctx, MemorySegment comp, MemorySegment cm, int wake) {
        if (wake >= 0) {
            Libc.closeFd(wake);
        }
        if (!cm.equals(MemorySegment.NULL)) {
            verbs.destroyEventChannel(cm);
        }
        if (!comp.equals(MemorySegment.NULL)) {
            verbs.destroyCompChannel(comp);
        }
        if (!ctx.equals(MemorySegment.NULL)) {
            verbs.closeDevice(ctx);
        }
    }

    // ---- state -------------------------------------------------------------------------------------

    boolean isUsable() {
        return state == OPEN;
    }

    @Override
    public boolean isOpen() {
        return state == OPEN;
    }

    long newToken() {
        return tokens.getAndIncrement();
    }

    /** Registers the owner of work requests (an Endpoint or SRQ): its id goes into the high half of every {@code wr_id}. */
    synchronized int addOwner(Object owner) {
        Object[] table = owners;
        if (ownerCount == table.length) {
            table = java.util.Arrays.copyOf(table, table.length * 2);
        }
        table[ownerCount] = owner;
        owners = table;
        return ownerCount++;
    }

    /** The owner of a work request id; never removed, so late completions of a freed Endpoint still resolve. */
    Object owner(int id) {
        Object[] table = owners;
        return id > 0 && id < table.length ? table[id] : null;
    }

    void addEvd(long token, VerbsEvd evd) {
        loop.addEvd(token, evd);
        evds.add(evd);
    }

    void removeEvd(long token, VerbsEvd evd) {
        loop.removeEvd(token);
        evds.remove(evd);
    }

    void addSrq(VerbsSrq srq) {
        srqs.add(srq);
        loop.addSrq(srq);
    }

    void removeSrq(VerbsSrq srq) {
        srqs.remove(srq);
        loop.removeSrq(srq);
    }

    /** The async EVD, or {@code null} when it is out of scope. */
    VerbsEvd asyncEvd() {
        return asyncEvd instanceof VerbsEvd evd ? evd : null;
    }

    /** The runtime's ports and shared-memory cookies. */
    PortDirectory directory() {
        return factory.directory();
    }

    /** The memory windows RMRs use: 2, 1, or 0 where the device has none ({@link DevicePort#windowType()}). */
    int windowType() {
        return port.windowType();
    }

    /** Whether the device confines an access through a window to the window's range. */
    boolean windowBoundsEnforced() {
        return windowBoundsEnforced;
    }

    /** Whether the device performs remote atomics: {@code AtomicEndpoint} is offered. */
    boolean atomics() {
        return port.atomics();
    }

    /** The IA's counters: {@link IaStatistics}. */
    @Override
    public <T> java.util.Optional<T> extension(Class<T> type) {
        return type == IaStatistics.class ? java.util.Optional.of(type.cast(counters)) : java.util.Optional.empty();
    }

    /** Posts an asynchronous error on the IA's async EVD, if it is in scope. */
    void postAsync(int eventNumber, dat.api.DatHandle handle, int reason) {
        VerbsEvd evd = asyncEvd();
        counters.asyncError();
        if (evd != null) {
            evd.postEvent(new DatEvent().setAsyncError(eventNumber, evd, handle, reason));
        }
    }

    // ---- InterfaceAdapter --------------------------------------------------------------------------

    @Override
    public String name() {
        return name;
    }

    @Override
    public IaQuery query(long iaAttrMask, long providerAttrMask) {
        checkOpen();
        if (!IaAttrMask.isValid(iaAttrMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "iaAttrMask", "undefined bits");
        }
        if (!ProviderAttrMask.isValid(providerAttrMask)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG5, "providerAttrMask", "undefined bits");
        }
        return new IaQuery(asyncEvd, iaAttributes(), VerbsAttributes.provider(port, maxSrq > 0, vendorId, windowBoundsEnforced));
    }

    IaAttributes iaAttributes() {
        return VerbsAttributes.ia(this);
    }

    @Override
    public void close(CloseFlag flag) {
        if (flag == null) {
            checkOpen(); // a closed IA is named before the argument, as every call names its handle first
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "flag", "null");
        }
        if (state != OPEN) {
            return;
        }
        if (flag == CloseFlag.GRACEFUL) {
            boolean asyncOnly = evds.size() == (ownsAsyncEvd ? 1 : 0);
            if (!eps.isEmpty() || !crs.isEmpty() || !servicePoints.isEmpty() || !srqs.isEmpty()
                    || !lmrs.isEmpty() || !rmrs.isEmpty() || !asyncOnly || !cnos.isEmpty() || !pzs.isEmpty()) {
                throw Codes.invalidState(DatReturn.INVALID_STATE_IA_IN_USE, "the IA still has objects");
            }
        }
        shutdown(CLOSED);
    }

    /**
     * The provider is going away (bundle stop) with this IA open: the hot-swap contract of
     * {@code DatIaFactory}. Posts {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC} (a waiter on the async
     * EVD receives it), then tears everything down; every handle answers
     * {@code DAT_INVALID_HANDLE} and every other waiter {@code DAT_ABORT}.
     */
    void fail() {
        if (state != OPEN) {
            return;
        }
        VerbsEvd evd = asyncEvd();
        if (evd != null) {
            evd.postEvent(new DatEvent().setAsyncError(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC, evd, this,
                    AsyncErrorReason.IA_CATASTROPHIC_ERROR));
            evd.awaitHandOff(TimeUnit.MILLISECONDS.toNanos(200));
        }
        shutdown(FAILED);
    }

    /**
     * Replaces the type 2 windows bound through {@code qp}, which is about to be destroyed
     * ({@link VerbsRmr#releaseFrom}); the caller holds {@link #cmLock} and no post lock.
     */
    void releaseWindows(MemorySegment qp) {
        for (VerbsRmr rmr : rmrs) {
            rmr.releaseFrom(qp);
        }
    }

    private void shutdown(int finalState) {
        cmLock.lock();
        try {
            if (state != OPEN) {
                return;
            }
            state = finalState;
            loop.clearTimers();
        } finally {
            cmLock.unlock();
        }
        loop.stop();
        // children before parents: windows, connections and QPs, then queues and memory, then EVDs,
        // then PDs. A type 2 window bound through a QP holds that QP in the kernel: soft-RoCE's
        // ibv_destroy_qp waits for it (50 s) if the window outlives the QP
        for (VerbsRmr rmr : List.copyOf(rmrs)) {
            rmr.destroy(); // before the QPs they are bound through and the MRs they are bound to
        }
        for (VerbsEp ep : List.copyOf(eps)) {
            ep.destroy();
        }
        for (VerbsCr cr : List.copyOf(crs)) {
            cr.destroy(false);
        }
        for (VerbsServicePoint sp : List.copyOf(servicePoints)) {
            sp.destroy();
        }
        for (VerbsSrq srq : List.copyOf(srqs)) {
            srq.destroy();
        }
        for (VerbsLmr lmr : List.copyOf(lmrs)) {
            lmr.destroy();
        }
        for (VerbsEvd evd : List.copyOf(evds)) {
            evd.destroy();
        }
        if (asyncEvd instanceof VerbsEvd evd && ownsAsyncEvd) {
            evd.destroy();
        }
        for (VerbsCno cno : List.copyOf(cnos)) {
            cno.destroy();
        }
        for (VerbsPz pz : List.copyOf(pzs)) {
            pz.destroy();
        }
        release(verbs, context, compChannel, cmChannel, wakeFd);
        arena.close();
        lmrsByLkey.clear();
        epsByQpNum.clear();
        factory.closed(this);
    }

    @Override
    public ProtectionZone createProtectionZone() {
        checkOpen();
        return new VerbsPz(this);
    }

    @Override
    public EventDispatcher createEventDispatcher(int minQlen, ConsumerNotificationObject cno, int evdFlags) {
        checkOpen();
        if (minQlen < 1 || minQlen > maxCqe) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "minQlen", minQlen + " is not in 1.." + maxCqe);
        }
        if (!EvdFlags.isValid(evdFlags) || evdFlags == 0) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG4, "evdFlags", "undefined or no stream");
        }
        VerbsCno verbsCno = null;
        if (cno != null) {
            if (!(cno instanceof VerbsCno c) || c.ia != this || !c.isOpen()) {
                throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_CNO, "cno", "foreign or freed CNO");
            }
            verbsCno = c;
        }
        return new VerbsEvd(this, minQlen, verbsCno, evdFlags);
    }

    @Override
    public ConsumerNotificationObject createNotificationObject(WaitProxyAgent agent) {
        checkOpen();
        return new VerbsCno(this, agent);
    }

    @Override
    public LocalMemoryRegion registerMemory(MemoryType memType, RegionDescription region, long length, ProtectionZone pz,
            int memPrivileges) {
        checkOpen();
        return VerbsLmr.register(this, memType, region, length, pz, memPrivileges);
    }

    @Override
    public void syncRdmaRead(LmrTriplet[] localSegments, int numSegments) {
        checkSegments(localSegments, numSegments);
    }

    @Override
    public void syncRdmaWrite(LmrTriplet[] localSegments, int numSegments) {
        checkSegments(localSegments, numSegments);
    }

    /** The sync calls are no-ops on cache-coherent x86-64, but the segments are still checked. */
    private void checkSegments(LmrTriplet[] segments, int count) {
        checkOpen();
        SyncSegments.check(segments, count, (context, address, length) -> {
            VerbsLmr lmr = lmrsByLkey.get(context);
            return lmr != null && lmr.contains(address, length);
        });
    }

    @Override
    public Endpoint createEndpoint(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, EpAttributes attributes) {
        checkOpen();
        return VerbsEp.create(this, pz, recvEvd, requestEvd, connectEvd, null, attributes);
    }

    @Override
    public Endpoint createEndpointWithSrq(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, SharedReceiveQueue srq, EpAttributes attributes) {
        checkOpen();
        if (!(srq instanceof VerbsSrq verbsSrq) || verbsSrq.ia != this || !verbsSrq.isOpen()) {
            throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_SRQ, "srq", "foreign or freed SRQ");
        }
        if (attributes == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG7, "attributes",
                    "dat_ep_create_with_srq needs Endpoint attributes");
        }
        return VerbsEp.create(this, pz, recvEvd, requestEvd, connectEvd, verbsSrq, attributes);
    }

    @Override
    public PublicServicePoint createPublicServicePoint(long connQual, EventDispatcher crEvd, PspFlag flag) {
        checkOpen();
        checkPspFlag(flag);
        ConnQual.check(connQual, DatReturn.INVALID_ARG2, "connQual");
        return VerbsServicePoint.psp(this, connQual, VerbsEvd.check(this, crEvd, EvdFlags.CR, DatReturn.INVALID_HANDLE_EVD_CR,
                "crEvd"), flag);
    }

    @Override
    public PublicServicePoint createPublicServicePointAny(EventDispatcher crEvd, PspFlag flag) {
        checkOpen();
        checkPspFlag(flag);
        return VerbsServicePoint.psp(this, 0, VerbsEvd.check(this, crEvd, EvdFlags.CR, DatReturn.INVALID_HANDLE_EVD_CR,
                "crEvd"), flag);
    }

    private static void checkPspFlag(PspFlag flag) {
        if (flag == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG4, "flag", "null");
        }
        if (flag == PspFlag.PROVIDER) {
            throw Codes.exception(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "flag",
                    "the verbs provider never creates Endpoints for a PSP (ep_creator NEVER)");
        }
    }

    @Override
    public ReservedServicePoint createReservedServicePoint(long connQual, Endpoint ep, EventDispatcher crEvd) {
        checkOpen();
        ConnQual.check(connQual, DatReturn.INVALID_ARG2, "connQual");
        VerbsEp verbsEp = VerbsEp.check(this, ep, "ep");
        return VerbsServicePoint.rsp(this, connQual, verbsEp,
                VerbsEvd.check(this, crEvd, EvdFlags.CR, DatReturn.INVALID_HANDLE_EVD_CR, "crEvd"));
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(ProtectionZone pz, SrqAttributes attributes) {
        checkOpen();
        if (maxSrq <= 0) {
            throw Codes.exception(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "srq", "the device has no SRQ");
        }
        return new VerbsSrq(this, VerbsPz.check(this, pz, "pz"), attributes);
    }

    @Override
    public String toString() {
        return "VerbsIa{" + name + ", " + port.address().getHostAddress() + (state == OPEN ? "" : ", closed") + "}";
    }
}
