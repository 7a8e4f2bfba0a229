package dat.provider.ofi.internal;

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
import dat.provider.ofi.internal.ffi.Fabric;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.support.IntTable;
import dat.provider.support.SyncSegments;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An open IA on one libfabric provider, domain and address: its own fabric, domain and event queue
 * ({@link Domain}), and one platform thread ({@link EventLoop}) for connection events, DAT
 * connect timeouts and the progress of completion queues no consumer reads. A consumer's wait
 * spins on its completion queue, then blocks on the queue's wait descriptor itself (a platform
 * thread) or parks for the event thread to wake it (a virtual thread).
 *
 * <p>Locks, outermost first: {@link #cmLock} (connection state of every Service Point, CR and
 * Endpoint of this IA) → an Endpoint's or SRQ's post lock → an EVD's lock → a {@link WorkSlots}
 * monitor.
 */
final class OfiIa extends OfiHandle implements InterfaceAdapter {

    private static final System.Logger LOG = System.getLogger(OfiIa.class.getName());

    /**
     * How long a waiter reads its CQ before it blocks: {@code dat.ofi.spinMicros}, default 100 µs,
     * a few round trips of libfabric's tcp provider on one host.
     */
    static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(Long.getLong("dat.ofi.spinMicros", 100));

    /**
     * After how long a spinning waiter yields between its reads of the CQ: {@code dat.ofi.yieldMicros},
     * default 20 µs (where the peer or another thread shares the core, it runs).
     */
    static final long YIELD_AFTER_NANOS = TimeUnit.MICROSECONDS.toNanos(Long.getLong("dat.ofi.yieldMicros", 20));

    private static final int OPEN = 0;
    private static final int CLOSED = 1;
    private static final int FAILED = 2;

    /** What the event queue's entries are delivered to: a Service Point, or an Endpoint's {@link EpConnection}. */
    interface CmTarget {
        /**
         * Called on the event thread with {@link #cmLock} held.
         *
         * @param event {@code FI_CONNREQ}, {@code FI_CONNECTED} or {@code FI_SHUTDOWN}; 0 for an error entry
         * @param error the error entry's positive {@code FI_E*}, or 0
         * @param data the entry's private data (an error entry's {@code err_data})
         * @param info the request's {@code fi_info} of an {@code FI_CONNREQ} (the target owns it), else {@code NULL}
         */
        void onCmEvent(int event, int error, byte[] data, MemorySegment info);
    }

    final Fabric fabric;
    final Domain domain;
    final Limits limits;
    final IaConfig config;
    private final OfiIaFactory factory;
    private final String name;
    /** The IA's counters, kept from its open ({@link IaStatistics}); the data path adds to them. */
    final IaCounters counters;
    private volatile int state = OPEN;
    private volatile EventDispatcher asyncEvd;
    private final boolean ownsAsyncEvd;
    final EventLoop loop;

    final ReentrantLock cmLock = new ReentrantLock();

    /** Work-request owners (Endpoints, SRQs) by the id their tokens carry; its monitor also guards retiring. */
    final OwnerTable owners = new OwnerTable();
    private final Map<Long, CmTarget> cmTargets = new ConcurrentHashMap<>();
    final IntTable<OfiLmr> lmrsByContext = new IntTable<>();
    private final AtomicInteger lmrContexts = new AtomicInteger(1);
    private final AtomicInteger pzIds = new AtomicInteger(1);
    private volatile OfiEvd[] dtoEvds = new OfiEvd[0];
    private OfiEvd discard;

    // every live object, for an abrupt close in the right order, and the counts the limits bound
    final Set<OfiEp> eps = ConcurrentHashMap.newKeySet();
    final Set<OfiCr> crs = ConcurrentHashMap.newKeySet();
    final Set<OfiServicePoint> servicePoints = ConcurrentHashMap.newKeySet();
    final Set<OfiSrq> srqs = ConcurrentHashMap.newKeySet();
    final Set<OfiLmr> lmrs = ConcurrentHashMap.newKeySet();
    final Set<OfiRmr> rmrs = ConcurrentHashMap.newKeySet();
    final Set<OfiEvd> evds = ConcurrentHashMap.newKeySet();
    final Set<OfiCno> cnos = ConcurrentHashMap.newKeySet();
    final Set<OfiPz> pzs = ConcurrentHashMap.newKeySet();

    OfiIa(OfiIaFactory factory, Fabric fabric, IaConfig config, String name, int asyncQlen, EventDispatcher requestedAsyncEvd) {
        super(null, HandleType.IA, DatReturn.INVALID_HANDLE_IA);
        this.factory = factory;
        this.fabric = fabric;
        this.config = config;
        this.name = name;
        this.counters = new IaCounters(name);
        try {
            this.domain = new Domain(fabric, config);
        } catch (NativeException e) {
            throw Codes.fromNative(e, "ia");
        }
        this.limits = domain.limits;
        if (requestedAsyncEvd == null && asyncQlen > limits.maxEvdQlen()) {
            domain.close();
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "asyncEvdMinQlen",
                    asyncQlen + " is not in 1.." + limits.maxEvdQlen());
        }
        EventLoop created;
        try {
            created = new EventLoop(this, domain, fabric, name);
        } catch (NativeException e) {
            domain.close();
            throw Codes.fromNative(e, "ia");
        }
        this.loop = created;
        if (requestedAsyncEvd == null) {
            this.asyncEvd = new OfiEvd(this, Math.max(1, asyncQlen), null, EvdFlags.ASYNC);
            this.ownsAsyncEvd = true;
        } else if (requestedAsyncEvd == EventDispatcher.ASYNC_EXISTS) {
            this.asyncEvd = EventDispatcher.OUT_OF_SCOPE;
            this.ownsAsyncEvd = false;
        } else if (requestedAsyncEvd instanceof OfiEvd evd && evd.isOpen() && (evd.flags & EvdFlags.ASYNC) != 0) {
            this.asyncEvd = evd;
            this.ownsAsyncEvd = false;
        } else {
            loop.stop();
            domain.close();
            throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_ASYNC, "asyncEvd",
                    "not an open async EVD of the ofi provider");
        }
        loop.start();
    }

    // ---- state, owners, targets ---------------------------------------------------------------------

    boolean isUsable() {
        return state == OPEN;
    }

    @Override
    public boolean isOpen() {
        return state == OPEN;
    }

    /** Registers the owner of work requests (an Endpoint or SRQ): its id goes into every token. */
    int addOwner(Object owner) {
        int id = owners.add(owner);
        if (id < 0) {
            boolean srq = owner instanceof OfiSrq;
            throw Codes.exception(DatReturn.INSUFFICIENT_RESOURCES, srq ? DatReturn.RESOURCE_SRQ : DatReturn.RESOURCE_TEP,
                    srq ? "srq" : "ep", "the IA's table of Endpoints and SRQs is full");
        }
        return id;
    }

    /**
     * An Endpoint was freed: it leaves the table once none of its DTOs is posted or queued, so
     * that the completions its EVDs still hold are handed out with it ({@link #consumedFrom} takes
     * it out at the last), and then nothing of it stays reachable from this IA.
     */
    void retire(OfiEp ep) {
        synchronized (owners) {
            ep.retiring = true;
            if (ep.idle()) {
                owners.remove(ep.ownerId, ep);
            }
        }
    }

    /** An SRQ was freed: as {@link #retire(OfiEp)}. */
    void retire(OfiSrq srq) {
        synchronized (owners) {
            srq.retiring = true;
            if (srq.idle()) {
                owners.remove(srq.ownerId, srq);
            }
        }
    }

    private Object owner(long token) {
        return owners.get(WorkSlots.owner(token));
    }

    /** The slot table a completion's token names, or {@code null} for a token of no live owner. */
    WorkSlots slotsOf(long token) {
        Object owner = owner(token);
        if (owner instanceof OfiEp ep) {
            return WorkSlots.isRecv(token) ? ep.recvSlots : ep.sendSlots;
        }
        if (owner instanceof OfiSrq srq) {
            return srq.slots;
        }
        return null;
    }

    /** The Endpoint of a completion's token (an SRQ's receives name the Endpoint that consumed them). */
    OfiEp endpointOf(long token) {
        Object owner = owner(token);
        return owner instanceof OfiEp ep ? ep : null;
    }

    /**
     * The active side of a connection confirmed its Endpoint's accept (read from a CQ, an EVD's
     * lock held): the Endpoint completes it on the event thread, where the CM lock may be taken.
     */
    void confirmed(int ownerId) {
        if (owners.get(ownerId) instanceof OfiEp ep) {
            int accept = ep.connection.acceptsBegun();
            loop.execute(() -> ep.connection.confirmedByPeer(accept));
        }
    }

    /**
     * A completion of this token was reaped (its slot given back): an SRQ counts its posted
     * receives down; a freed owner whose last DTO this was leaves the table ({@link #retire(OfiEp)}).
     */
    void consumedFrom(long token) {
        Object owner = owner(token);
        if (owner instanceof OfiSrq srq) {
            srq.consumed();
            if (srq.retiring) {
                retire(srq);
            }
        } else if (owner instanceof OfiEp ep && ep.retiring) {
            retire(ep);
        }
    }

    void addCmTarget(MemorySegment fid, CmTarget target) {
        cmTargets.put(fid.address(), target);
    }

    void removeCmTarget(MemorySegment fid) {
        cmTargets.remove(fid.address());
    }

    CmTarget cmTarget(long fid) {
        return cmTargets.get(fid);
    }

    /** A passive endpoint of a live Service Point, to refuse an orphan request through; or {@code null}. */
    MemorySegment anyPassiveEndpoint() {
        for (OfiServicePoint sp : servicePoints) {
            MemorySegment pep = sp.passiveEndpoint();
            if (pep != null) {
                return pep;
            }
        }
        return null;
    }

    /** An EVD is made; a hidden one (an Endpoint's discarding CQ) is not the consumer's object. */
    void addEvd(OfiEvd evd, boolean hidden) {
        if (!hidden) {
            evds.add(evd);
        }
        if (evd.cq != null) {
            synchronized (this) {
                OfiEvd[] grown = Arrays.copyOf(dtoEvds, dtoEvds.length + 1);
                grown[grown.length - 1] = evd;
                dtoEvds = grown;
            }
            loop.wake();
        }
    }

    void removeEvd(OfiEvd evd) {
        evds.remove(evd);
        if (evd.cq != null) {
            synchronized (this) {
                dtoEvds = Arrays.stream(dtoEvds).filter(e -> e != evd).toArray(OfiEvd[]::new);
            }
        }
    }

    /**
     * The IA's discarding EVD ({@link OfiEvd#discarding}): the CQ of every Endpoint whose receive or
     * request EVD is missing, made at the first such connection.
     */
    synchronized OfiEvd discardEvd() {
        if (discard == null) {
            discard = OfiEvd.discarding(this, 1024);
        }
        return discard;
    }

    /** The discarding EVD if it was made, else {@code null}. */
    synchronized OfiEvd existingDiscardEvd() {
        return discard;
    }

    /** The EVDs with a completion queue, for the event thread. */
    OfiEvd[] dtoEvds() {
        return dtoEvds;
    }

    /**
     * Whether a consumer's reads of the other CQ of every Endpoint whose completions arrive on
     * {@code evd} progress them already (libfabric tcp's read of a CQ progresses each endpoint
     * bound to it, and a completion it writes into a CQ signals that CQ's descriptor): the
     * receive EVD of a stream of RDMA writes, whose reads by the event thread would take the
     * endpoint's lock from the posting thread. Never for an Endpoint with an SRQ or with one EVD for both.
     */
    boolean progressedElsewhere(OfiEvd evd, long now) {
        boolean any = false;
        for (OfiEp ep : eps) {
            OfiEvd recv = ep.recvEvd();
            OfiEvd request = ep.requestEvd();
            if (recv != evd && request != evd) {
                continue;
            }
            if (ep.srq != null || recv == request) {
                return false;
            }
            OfiEvd other = recv == evd ? request : recv;
            if (other != null && !other.readByConsumer(now)) { // none: the discarding EVD, always read
                return false;
            }
            any = true;
        }
        return any;
    }

    /** An EVD's CQ needs the event thread now (a waiter parked, a CNO attached, room in a full ring). */
    void watch(OfiEvd evd) {
        if (state == OPEN) {
            loop.wake();
        }
    }

    int newLmrContext() {
        return lmrContexts.getAndIncrement();
    }

    int newPzId() {
        return pzIds.getAndIncrement();
    }

    /** The async EVD, or {@code null} when it is out of scope. */
    OfiEvd asyncEvd() {
        return asyncEvd instanceof OfiEvd evd ? evd : null;
    }

    /** The IA's counters: {@link IaStatistics}. */
    @Override
    public <T> java.util.Optional<T> extension(Class<T> type) {
        return type == IaStatistics.class ? java.util.Optional.of(type.cast(counters)) : java.util.Optional.empty();
    }

    /** Posts an asynchronous error on the IA's async EVD, if it is in scope. */
    void postAsync(int eventNumber, dat.api.DatHandle handle, int reason) {
        OfiEvd evd = asyncEvd();
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
        return new IaQuery(asyncEvd, Attributes.ia(this), Attributes.provider(domain));
    }

    String providerName() {
        return domain.providerName;
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
     * EVD receives it), then tears everything down: every posted DTO completes as flushed, every
     * handle answers {@code DAT_INVALID_HANDLE} and every other waiter {@code DAT_ABORT}.
     */
    void fail() {
        if (state != OPEN) {
            return;
        }
        OfiEvd evd = asyncEvd();
        counters.asyncError();
        if (evd != null) {
            evd.postEvent(new DatEvent().setAsyncError(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC, evd, this,
                    AsyncErrorReason.IA_CATASTROPHIC_ERROR));
            evd.awaitHandOff(TimeUnit.MILLISECONDS.toNanos(200));
        }
        for (OfiEp ep : List.copyOf(eps)) {
            ep.connection.flushForFailure();
        }
        shutdown(FAILED);
    }

    private void shutdown(int finalState) {
        cmLock.lock();
        try {
            if (state != OPEN) {
                return;
            }
            state = finalState;
        } finally {
            cmLock.unlock();
        }
        loop.stop();
        // children before parents: endpoints, then requests and listeners, SRQs, memory, queues
        for (OfiEp ep : List.copyOf(eps)) {
            ep.destroy();
        }
        for (OfiCr cr : List.copyOf(crs)) {
            cr.destroy();
        }
        for (OfiServicePoint sp : List.copyOf(servicePoints)) {
            sp.destroy();
        }
        for (OfiSrq srq : List.copyOf(srqs)) {
            srq.destroy();
        }
        for (OfiRmr rmr : List.copyOf(rmrs)) {
            rmr.destroy();
        }
        for (OfiLmr lmr : List.copyOf(lmrs)) {
            lmr.destroy();
        }
        boolean keepEvents = finalState == FAILED; // the consumer still sees what happened
        for (OfiEvd evd : List.copyOf(evds)) {
            evd.destroy(keepEvents);
        }
        if (asyncEvd instanceof OfiEvd evd && ownsAsyncEvd) {
            evd.destroy(keepEvents);
        }
        synchronized (this) {
            if (discard != null) {
                discard.destroy();
            }
        }
        for (OfiCno cno : List.copyOf(cnos)) {
            cno.destroy();
        }
        for (OfiPz pz : List.copyOf(pzs)) {
            pz.destroy();
        }
        try {
            domain.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "closing the libfabric domain of " + name + " failed", e);
        }
        lmrsByContext.clear();
        factory.closed(this);
    }

    @Override
    public ProtectionZone createProtectionZone() {
        checkOpen();
        if (pzs.size() >= limits.maxPzs()) {
            throw Codes.exception(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_PROTECTION_DOMAIN, "pz", "max_pzs " + limits.maxPzs());
        }
        return new OfiPz(this);
    }

    @Override
    public EventDispatcher createEventDispatcher(int minQlen, ConsumerNotificationObject cno, int evdFlags) {
        checkOpen();
        if (minQlen < 1 || minQlen > limits.maxEvdQlen()) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "minQlen", minQlen + " is not in 1.." + limits.maxEvdQlen());
        }
        if (!EvdFlags.isValid(evdFlags) || evdFlags == 0) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG4, "evdFlags", "undefined or no stream");
        }
        OfiCno ofiCno = null;
        if (cno != null) {
            if (!(cno instanceof OfiCno c) || c.ia != this || !c.isOpen()) {
                throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_CNO, "cno", "foreign or freed CNO");
            }
            ofiCno = c;
        }
        if (evds.size() - (ownsAsyncEvd ? 1 : 0) >= limits.maxEvds()) {
            throw Codes.exception(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_TEVD, "evd", "max_evds " + limits.maxEvds());
        }
        return new OfiEvd(this, minQlen, ofiCno, evdFlags);
    }

    @Override
    public ConsumerNotificationObject createNotificationObject(WaitProxyAgent agent) {
        checkOpen();
        return new OfiCno(this, agent);
    }

    @Override
    public LocalMemoryRegion registerMemory(MemoryType memType, RegionDescription region, long length, ProtectionZone pz,
            int memPrivileges) {
        checkOpen();
        if (memType == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "memType", "null");
        }
        if (lmrs.size() >= limits.maxLmrs()) {
            throw Codes.exception(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY_REGION, "lmr", "max_lmrs " + limits.maxLmrs());
        }
        if (memType == MemoryType.LMR) {
            // the memory of an existing LMR, registered again (in any PZ of this IA)
            if (!(region instanceof RegionDescription.OfLmr ofLmr)) {
                throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "region", "DAT_MEM_TYPE_LMR needs an LMR handle");
            }
            if (!(ofLmr.lmr() instanceof OfiLmr source) || source.ia != this || !source.isOpen()) {
                throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_LMR, "region", "not an open LMR of this IA");
            }
            // the region is the whole LMR, "Length parameter is ignored" (dat_lmr_create(3DAT))
            return new OfiLmr(this, OfiPz.check(this, pz, "pz"), source.memory(), source.registeredSize(), memPrivileges, region, memType);
        }
        if (memType == MemoryType.SHARED_VIRTUAL) {
            // memory the platform shares between processes: in Java a mapped file, registered as it is
            if (!(region instanceof RegionDescription.SharedMemory shared)) {
                throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "region",
                        "DAT_MEM_TYPE_SHARED_VIRTUAL needs shared memory and a cookie");
            }
            if (!shared.memory().isMapped()) {
                throw Codes.exception(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE, "region",
                        "DAT_MEM_TYPE_SHARED_VIRTUAL memory must be shared by the platform: a mapped file (FileChannel.map)");
            }
            return new OfiLmr(this, OfiPz.check(this, pz, "pz"), shared.memory(), length, memPrivileges, region, memType);
        }
        if (memType != MemoryType.VIRTUAL) {
            throw Codes.notSupported("memType", memType + " is not supported by the ofi provider (VIRTUAL, LMR and SHARED_VIRTUAL are)");
        }
        if (!(region instanceof RegionDescription.Virtual virtual)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "region", "VIRTUAL memory needs a Virtual region");
        }
        return new OfiLmr(this, OfiPz.check(this, pz, "pz"), virtual.memory(), length, memPrivileges, region, memType);
    }

    @Override
    public void syncRdmaRead(LmrTriplet[] localSegments, int numSegments) {
        checkSegments(localSegments, numSegments);
    }

    @Override
    public void syncRdmaWrite(LmrTriplet[] localSegments, int numSegments) {
        checkSegments(localSegments, numSegments);
    }

    /** The sync calls are no-ops on cache-coherent hosts, but the segments are still checked. */
    private void checkSegments(LmrTriplet[] segments, int count) {
        checkOpen();
        SyncSegments.check(segments, count, (context, address, length) -> {
            OfiLmr lmr = lmrsByContext.get(context);
            return lmr != null && lmr.contains(address, length);
        });
    }

    @Override
    public Endpoint createEndpoint(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, EpAttributes attributes) {
        checkOpen();
        return OfiEp.create(this, pz, recvEvd, requestEvd, connectEvd, null, attributes);
    }

    @Override
    public Endpoint createEndpointWithSrq(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, SharedReceiveQueue srq, EpAttributes attributes) {
        checkOpen();
        if (limits.maxSrqs() == 0) {
            throw Codes.notSupported("srq", "the libfabric provider has no shared receive contexts (max_ep_srx_ctx 0)");
        }
        if (!(srq instanceof OfiSrq ofiSrq) || ofiSrq.ia != this || !ofiSrq.isOpen()) {
            throw Codes.exception(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_SRQ, "srq", "foreign or freed SRQ");
        }
        if (attributes == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG7, "attributes", "dat_ep_create_with_srq needs Endpoint attributes");
        }
        return OfiEp.create(this, pz, recvEvd, requestEvd, connectEvd, ofiSrq, attributes);
    }

    @Override
    public PublicServicePoint createPublicServicePoint(long connQual, EventDispatcher crEvd, PspFlag flag) {
        checkOpen();
        checkPspFlag(flag);
        if (connQual < 1 || connQual > 0xFFFF) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "connQual",
                    "connection qualifiers are the ports 1..65535 of the IA's address, not " + connQual);
        }
        return OfiServicePoint.psp(this, connQual, OfiEvd.check(this, crEvd, EvdFlags.CR, DatReturn.INVALID_HANDLE_EVD_CR, "crEvd"), flag);
    }

    @Override
    public PublicServicePoint createPublicServicePointAny(EventDispatcher crEvd, PspFlag flag) {
        checkOpen();
        checkPspFlag(flag);
        return OfiServicePoint.psp(this, 0, OfiEvd.check(this, crEvd, EvdFlags.CR, DatReturn.INVALID_HANDLE_EVD_CR, "crEvd"), flag);
    }

    private static void checkPspFlag(PspFlag flag) {
        if (flag == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG4, "flag", "null");
        }
    }

    @Override
    public ReservedServicePoint createReservedServicePoint(long connQual, Endpoint ep, EventDispatcher crEvd) {
        checkOpen();
        if (connQual < 1 || connQual > 0xFFFF) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "connQual",
                    "connection qualifiers are the ports 1..65535 of the IA's address, not " + connQual);
        }
        OfiEp ofiEp = OfiEp.check(this, ep, "ep");
        return OfiServicePoint.rsp(this, connQual, ofiEp, OfiEvd.check(this, crEvd, EvdFlags.CR, DatReturn.INVALID_HANDLE_EVD_CR, "crEvd"));
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(ProtectionZone pz, SrqAttributes attributes) {
        checkOpen();
        if (limits.maxSrqs() == 0) {
            throw Codes.notSupported("srq", "the libfabric provider has no shared receive contexts (max_ep_srx_ctx 0)");
        }
        if (srqs.size() >= limits.maxSrqs()) {
            throw Codes.exception(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_SRQ, "srq", "max_srqs " + limits.maxSrqs());
        }
        return new OfiSrq(this, OfiPz.check(this, pz, "pz"), attributes);
    }

    @Override
    public String toString() {
        return "OfiIa{" + name + ", " + config.provider() + " " + config.domain() + " " + domain.address.getAddress().getHostAddress()
                + (state == OPEN ? "" : ", closed") + "}";
    }
}
