package dat.provider.sim.internal.core;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.ConsumerNotificationObject;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.AsyncErrorReason;
import dat.api.HandleType;
import dat.api.IaAttrMask;
import dat.api.IaQuery;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
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
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An open instance of a simulated IA: dat_ia_open(3DAT), dat_ia_query(3DAT), dat_ia_close(3DAT)
 * and the constructors of every other object.
 */
public final class SimIa extends SimHandle implements InterfaceAdapter {

    enum State { OPEN, CLOSED, DEAD }

    /** The provider's version, as the attributes report it. */
    public static final int PROVIDER_VERSION_MAJOR = 1;
    public static final int PROVIDER_VERSION_MINOR = 0;
    /** The completion flags every post accepts (UNSIGNALLED only on Endpoints configured for it). */
    static final int COMPLETION_FLAGS_SUPPORTED = CompletionFlags.SUPPRESS | CompletionFlags.SOLICITED_WAIT
            | CompletionFlags.UNSIGNALLED | CompletionFlags.BARRIER_FENCE | CompletionFlags.EVD_THRESHOLD;

    final SimProvider provider;
    final Adapter adapter;
    /** The IA's statistics: counted by its Endpoints, SRQs and EVDs, summed on demand. */
    final Statistics statistics;
    private volatile State state = State.OPEN;
    private final SimEvd asyncEvd;
    private final boolean ownAsyncEvd;
    private final boolean asyncOutOfScope;
    final Set<SimPz> pzs = ConcurrentHashMap.newKeySet();
    final Set<SimEvd> evds = ConcurrentHashMap.newKeySet();
    final Set<SimCno> cnos = ConcurrentHashMap.newKeySet();
    final Set<SimLmr> lmrs = ConcurrentHashMap.newKeySet();
    final Set<SimRmr> rmrs = ConcurrentHashMap.newKeySet();
    final Set<SimEndpoint> eps = ConcurrentHashMap.newKeySet();
    final Set<SimPsp> psps = ConcurrentHashMap.newKeySet();
    final Set<SimRsp> rsps = ConcurrentHashMap.newKeySet();
    final Set<SimCr> crs = ConcurrentHashMap.newKeySet();
    final Set<SimSrq> srqs = ConcurrentHashMap.newKeySet();

    SimIa(SimProvider provider, Adapter adapter, int asyncQlen, SimEvd givenAsyncEvd, boolean outOfScope) {
        super(HandleType.IA, DatReturn.INVALID_HANDLE_IA);
        this.provider = provider;
        this.adapter = adapter;
        this.statistics = new Statistics(this, adapter.name);
        this.asyncOutOfScope = outOfScope;
        if (givenAsyncEvd != null) {
            this.asyncEvd = givenAsyncEvd;
            this.ownAsyncEvd = false;
            givenAsyncEvd.feeders.incrementAndGet();
        } else if (outOfScope) {
            this.asyncEvd = null;
            this.ownAsyncEvd = false;
        } else {
            if (!Adapter.reserve(adapter.evds, adapter.limits.maxEvds())) {
                throw insufficient(DatReturn.RESOURCE_TEVD, "no more EVDs for the async EVD");
            }
            // the async EVD is created with no CNO (dat_ia_open(3DAT))
            this.asyncEvd = new SimEvd(this, asyncQlen, null, EvdFlags.ASYNC);
            this.ownAsyncEvd = true;
            asyncEvd.feeders.incrementAndGet();
        }
        adapter.openIas.add(this);
    }

    /** The IA's adapter: its address, limits and transport. */
    public Adapter adapter() {
        return adapter;
    }

    @Override
    SimIa ia() {
        return this;
    }

    SimProvider provider() {
        return provider;
    }

    boolean usable() {
        return state == State.OPEN;
    }

    boolean dead() {
        return state == State.DEAD;
    }

    SimLimits limits() {
        return adapter.limits;
    }

    /** Posts an asynchronous event to this IA's async EVD, if it has one in scope. */
    void postAsync(int eventNumber, dat.api.DatHandle handle, int reason) {
        SimEvd evd = asyncEvd;
        if (evd != null && !evd.freed) {
            statistics.rare.asyncError();
            evd.postAsync(eventNumber, handle, reason);
        }
    }

    /** The IA's statistics ({@link dat.api.ext.IaStatistics}); everything else the IA does not offer. */
    @Override
    public <T> java.util.Optional<T> extension(Class<T> type) {
        return type == dat.api.ext.IaStatistics.class ? java.util.Optional.of(type.cast(statistics)) : java.util.Optional.empty();
    }

    SimEvd asyncEvd() {
        return asyncEvd;
    }

    @Override
    public String name() {
        return adapter.name;
    }

    // ---------------------------------------------------------------------------------------------
    // dat_ia_query
    // ---------------------------------------------------------------------------------------------

    @Override
    public IaQuery query(long iaAttrMask, long providerAttrMask) {
        checkOpen();
        if (!IaAttrMask.isValid(iaAttrMask)) {
            throw invalidParameter(DatReturn.INVALID_ARG3, "iaAttrMask", "undefined bits 0x" + Long.toHexString(iaAttrMask));
        }
        if (!ProviderAttrMask.isValid(providerAttrMask)) {
            throw invalidParameter(DatReturn.INVALID_ARG5, "providerAttrMask",
                    "undefined bits 0x" + Long.toHexString(providerAttrMask));
        }
        EventDispatcher async = asyncOutOfScope ? EventDispatcher.OUT_OF_SCOPE : asyncEvd;
        return new IaQuery(async, IaDescription.iaAttributes(this), IaDescription.providerAttributes(this));
    }

    // ---------------------------------------------------------------------------------------------
    // dat_ia_close
    // ---------------------------------------------------------------------------------------------

    @Override
    public void close(CloseFlag flag) {
        if (flag == null) {
            if (!isOpen()) {
                throw invalid();
            }
            throw invalidParameter(DatReturn.INVALID_ARG2, "flag", "null close flag");
        }
        if (state != State.OPEN) {
            if (state == State.DEAD) {
                finishDeadClose();
            }
            return; // closing a closed IA does nothing
        }
        List<SimLmr> freedLmrs;
        provider.cmLock.lock();
        try {
            if (state != State.OPEN) {
                return;
            }
            if (flag == CloseFlag.GRACEFUL && hasConsumerObjects()) {
                throw invalidState(DatReturn.INVALID_STATE_IA_IN_USE,
                        "the IA still has objects the consumer created (dat_ia_close(3DAT), graceful)");
            }
            freedLmrs = List.copyOf(lmrs);
            destroyAll();
            state = State.CLOSED;
        } finally {
            provider.cmLock.unlock();
        }
        for (SimLmr lmr : freedLmrs) {
            lmr.fence(); // no connection touches their memory once the close returns
        }
        releaseAsyncEvd();
        adapter.openIas.remove(this);
        if (adapter.openIas.isEmpty()) {
            adapter.transport.unused(); // an instance opened meanwhile only finds no idle socket to reuse
            provider.adapterUnused(adapter);
        }
    }

    private boolean hasConsumerObjects() {
        for (SimEvd evd : evds) {
            if (evd != asyncEvd || !ownAsyncEvd) {
                return true;
            }
        }
        return !pzs.isEmpty() || !cnos.isEmpty() || !lmrs.isEmpty() || !rmrs.isEmpty() || !eps.isEmpty()
                || !psps.isEmpty() || !rsps.isEmpty() || !crs.isEmpty() || !srqs.isEmpty();
    }

    /** Destroys every object of a set, from a copy (each destroy removes its object from the set). */
    private static <T> void destroyEach(Set<T> objects, java.util.function.Consumer<T> destroy) {
        for (T o : List.copyOf(objects)) {
            destroy.accept(o);
        }
    }

    /** The abrupt, cascading destroy, in dependency order; waiters wake (ABORT / null). */
    private void destroyAll() {
        destroyEach(psps, SimPsp::destroy);
        destroyEach(rsps, SimRsp::destroy);
        destroyEach(crs, SimCr::destroyRejecting);
        destroyEach(eps, SimEndpoint::destroy);
        destroyEach(rmrs, SimRmr::destroy);
        destroyEach(lmrs, SimLmr::destroy);
        destroyEach(srqs, SimSrq::destroy);
        destroyEach(evds, SimEvd::destroy);
        destroyEach(cnos, cno -> cno.destroy(true));
        destroyEach(pzs, SimPz::destroy);
    }

    private void releaseAsyncEvd() {
        if (asyncEvd != null && !ownAsyncEvd) {
            // an async EVD the consumer passed in is not destroyed (dat_ia_close(3DAT))
            asyncEvd.feeders.decrementAndGet();
        }
    }

    /**
     * The provider is going away: report the catastrophe, flush every DTO, wake every waiter and
     * make every handle invalid. Events already queued stay readable by dequeue/wait until the
     * EVDs are drained, so the consumer can see the catastrophic event and the flushed DTOs.
     */
    void catastrophic() {
        provider.cmLock.lock();
        try {
            if (state != State.OPEN) {
                return;
            }
            postAsync(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC, this, AsyncErrorReason.IA_CATASTROPHIC_ERROR);
            for (SimEndpoint ep : List.copyOf(eps)) {
                ep.flushForCatastrophe();
            }
            state = State.DEAD;
            for (SimEvd evd : List.copyOf(evds)) {
                evd.wakeAll();
            }
            if (asyncEvd != null) {
                asyncEvd.wakeAll();
            }
            for (SimCno cno : List.copyOf(cnos)) {
                cno.wakeAll();
            }
        } finally {
            provider.cmLock.unlock();
        }
    }

    /** Closing a dead IA releases what it still held. */
    private void finishDeadClose() {
        provider.cmLock.lock();
        try {
            if (adapter.openIas.remove(this)) {
                destroyAll();
                releaseAsyncEvd();
            }
        } finally {
            provider.cmLock.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // argument checks shared by the constructors
    // ---------------------------------------------------------------------------------------------

    SimPz pz(ProtectionZone pz, String argument, boolean nullAllowed) {
        if (pz == null && nullAllowed) {
            return null;
        }
        if (pz instanceof SimPz p && p.ia() == this && p.isOpen()) {
            return p;
        }
        throw invalidHandle(DatReturn.INVALID_HANDLE_PZ, argument, "not an open Protection Zone of this IA");
    }

    SimEvd evd(EventDispatcher evd, int subtype, int requiredFlag, String argument) {
        if (evd == null) {
            return null;
        }
        if (evd instanceof SimEvd e && e.ia() == this && e.isOpen() && (requiredFlag == 0 || (e.flags() & requiredFlag) != 0)) {
            return e;
        }
        throw invalidHandle(subtype, argument, "not an open Event Dispatcher of this IA"
                + (requiredFlag != 0 ? " taking " + EventNumber.name(requiredFlag) + " events" : ""));
    }

    SimCno cno(ConsumerNotificationObject cno, String argument) {
        if (cno == null) {
            return null;
        }
        if (cno instanceof SimCno c && c.ia() == this && c.isOpen()) {
            return c;
        }
        throw invalidHandle(DatReturn.INVALID_HANDLE_CNO, argument, "not an open CNO of this IA");
    }

    SimEndpoint endpoint(Endpoint ep, String argument) {
        if (ep instanceof SimEndpoint e && e.ia() == this && e.isOpen()) {
            return e;
        }
        throw invalidHandle(DatReturn.INVALID_HANDLE_EP, argument, "not an open Endpoint of this IA");
    }

    // ---------------------------------------------------------------------------------------------
    // constructors
    // ---------------------------------------------------------------------------------------------

    @Override
    public ProtectionZone createProtectionZone() {
        checkOpen();
        if (!Adapter.reserve(adapter.pzs, adapter.limits.maxPzs())) {
            throw insufficient(DatReturn.RESOURCE_PROTECTION_DOMAIN, "max_pzs " + adapter.limits.maxPzs() + " reached");
        }
        SimPz pz = new SimPz(this);
        pzs.add(pz);
        return pz;
    }

    @Override
    public EventDispatcher createEventDispatcher(int minQlen, ConsumerNotificationObject cno, int evdFlags) {
        checkOpen();
        if (minQlen <= 0 || minQlen > adapter.limits.maxEvdQlen()) {
            throw invalidParameter(DatReturn.INVALID_ARG2, "minQlen", "must be 1.." + adapter.limits.maxEvdQlen() + ", was " + minQlen);
        }
        if (evdFlags == 0 || !EvdFlags.isValid(evdFlags)) {
            throw invalidParameter(DatReturn.INVALID_ARG4, "evdFlags", "bad flags 0x" + Integer.toHexString(evdFlags));
        }
        SimCno c = cno(cno, "cno");
        if (!Adapter.reserve(adapter.evds, adapter.limits.maxEvds())) {
            throw insufficient(DatReturn.RESOURCE_TEVD, "max_evds " + adapter.limits.maxEvds() + " reached");
        }
        SimEvd evd;
        try {
            evd = new SimEvd(this, minQlen, c, evdFlags);
        } catch (OutOfMemoryError e) {
            adapter.evds.decrementAndGet();
            throw insufficient(DatReturn.RESOURCE_MEMORY, "no memory for an EVD of " + minQlen + " events: " + e.getMessage());
        }
        if (c != null) {
            c.attach();
        }
        return evd;
    }

    /** Registers an EVD in this IA's set (its constructor calls this). */
    void registered(SimEvd evd) {
        evds.add(evd);
    }

    @Override
    public ConsumerNotificationObject createNotificationObject(WaitProxyAgent agent) {
        checkOpen();
        if (!Adapter.reserve(adapter.cnos, adapter.limits.maxCnos())) {
            throw insufficient(DatReturn.RESOURCE_MEMORY, "max_cnos " + adapter.limits.maxCnos() + " reached");
        }
        SimCno cno = new SimCno(this, agent);
        cnos.add(cno);
        return cno;
    }

    @Override
    public LocalMemoryRegion registerMemory(MemoryType memType, RegionDescription region, long length, ProtectionZone pz,
            int memPrivileges) {
        checkOpen();
        if (memType == null) {
            throw invalidParameter(DatReturn.INVALID_ARG2, "memType", "null memory type");
        }
        if (region == null) {
            throw invalidParameter(DatReturn.INVALID_ARG3, "region", "null region description");
        }
        SimPz p = pz(pz, "pz", false);
        if (!MemPrivileges.isValid(memPrivileges & ~dat.api.ext.IbExtension.MEM_PRIV_REMOTE_ATOMIC)) {
            throw invalidParameter(DatReturn.INVALID_ARG6, "memPrivileges", "undefined bits 0x" + Integer.toHexString(memPrivileges));
        }
        MemorySegment memory;
        SimLmr parent = null;
        byte[] cookie = null;
        switch (memType) {
            case VIRTUAL, SO_VIRTUAL -> {
                if (!(region instanceof RegionDescription.Virtual v)) {
                    throw invalidParameter(DatReturn.INVALID_ARG3, "region", memType + " needs a virtual region");
                }
                memory = checkedMemory(v.memory(), length);
            }
            case SHARED_VIRTUAL -> {
                if (!(region instanceof RegionDescription.SharedMemory s)) {
                    throw invalidParameter(DatReturn.INVALID_ARG3, "region", "SHARED_VIRTUAL needs shared memory and a cookie");
                }
                if (!s.memory().isMapped()) {
                    // the page's DAT_INVALID_STATE: memory the platform did not create shared. In
                    // Java, memory that processes can share is a mapped file (e.g. in /dev/shm)
                    throw invalidState(DatReturn.NO_SUBTYPE,
                            "SHARED_VIRTUAL memory must be shared by the platform: a mapped file (FileChannel.map)");
                }
                memory = checkedMemory(s.memory(), length);
                cookie = s.cookie();
            }
            case LMR -> {
                if (!(region instanceof RegionDescription.OfLmr o)) {
                    throw invalidParameter(DatReturn.INVALID_ARG3, "region", "LMR needs an LMR handle");
                }
                if (!(o.lmr() instanceof SimLmr l) || l.ia() != this || !l.isOpen()) {
                    throw invalidHandle(DatReturn.INVALID_HANDLE_LMR, "region", "not an open LMR of this IA");
                }
                parent = l;
                memory = l.memory(); // the length is ignored: the registration is shared
            }
            default -> throw DatException.of(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "memType", memType.toString());
        }
        if (memory.isReadOnly() && (memPrivileges & WRITE_PRIVILEGES) != 0) {
            // a write into it (a peer's send, RDMA write or atomic, a local RDMA read) would throw
            throw invalidParameter(DatReturn.INVALID_ARG6, "memPrivileges", "the memory is read-only: no write privilege can be granted");
        }
        if (!Adapter.reserve(adapter.lmrs, adapter.limits.maxLmrs())) {
            throw insufficient(DatReturn.RESOURCE_MEMORY_REGION, "max_lmrs " + adapter.limits.maxLmrs() + " reached");
        }
        try {
            if (cookie != null) {
                provider.attachShared(cookie, memory.address(), memory.byteSize());
            }
        } catch (DatException e) {
            adapter.lmrs.decrementAndGet();
            throw e;
        }
        SimLmr lmr = new SimLmr(this, memType, region, memType == MemoryType.LMR ? parent.length() : length, p,
                memPrivileges, memory, parent, cookie);
        lmrs.add(lmr);
        return lmr;
    }

    /** The privileges that let the memory be written, locally or by a peer. */
    private static final int WRITE_PRIVILEGES = MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_WRITE
            | dat.api.ext.IbExtension.MEM_PRIV_REMOTE_ATOMIC;

    /** A thread that owns no arena: a segment it may access is accessible by every thread. */
    private static final Thread NO_OWNER = Thread.ofVirtual().unstarted(() -> { });

    private static MemorySegment checkedMemory(MemorySegment memory, long length) {
        if (!memory.isNative()) {
            throw invalidParameter(DatReturn.INVALID_ARG3, "region", "only native memory segments can be registered");
        }
        if (!memory.scope().isAlive()) {
            throw invalidParameter(DatReturn.INVALID_ARG3, "region", "the segment's arena is closed");
        }
        if (!memory.isAccessibleBy(NO_OWNER)) {
            // registered memory is the peer's to access at any time: the thread of a peer's post
            // in one JVM, a connection's reader or writer over TCP. A confined segment throws
            // WrongThreadException on all of them, so every remote access would fail
            throw invalidParameter(DatReturn.INVALID_ARG3, "region",
                    "memory confined to one thread cannot be registered: other threads access it; "
                            + "allocate it from a shared, automatic or global arena");
        }
        if (length <= 0 || length > memory.byteSize()) {
            throw invalidParameter(DatReturn.INVALID_ARG4, "length",
                    "must be 1.." + memory.byteSize() + " (the segment's size), was " + length);
        }
        return memory.asSlice(0, length);
    }

    @Override
    public void syncRdmaRead(LmrTriplet[] localSegments, int numSegments) {
        checkSync(localSegments, numSegments);
    }

    @Override
    public void syncRdmaWrite(LmrTriplet[] localSegments, int numSegments) {
        checkSync(localSegments, numSegments);
    }

    /**
     * dat_lmr_sync_rdma_read/write: memory is coherent here ({@code lmr_sync_req} is false), so
     * only the segments are checked. They may belong to any LMR of the IA, in any PZ.
     */
    private void checkSync(LmrTriplet[] segments, int numSegments) {
        checkOpen();
        if (numSegments < 0 || (numSegments > 0 && (segments == null || numSegments > segments.length))) {
            throw invalidParameter(DatReturn.INVALID_ARG3, "numSegments", "bad segment count " + numSegments);
        }
        for (int i = 0; i < numSegments; i++) {
            LmrTriplet t = segments[i];
            if (t == null) {
                throw invalidParameter(DatReturn.INVALID_ARG2, "localSegments[" + i + "]", "null segment");
            }
            SimLmr lmr = provider.lmrContexts.get(t.lmrContext());
            if (lmr == null || lmr.ia() != this || lmr.freed) {
                throw invalidParameter(DatReturn.INVALID_ARG2, "localSegments[" + i + "]", "unknown LMR context");
            }
            if (!lmr.contains(t.virtualAddress(), t.segmentLength())) {
                throw invalidParameter(DatReturn.INVALID_ARG2, "localSegments[" + i + "]", "segment outside its LMR");
            }
        }
    }

    @Override
    public Endpoint createEndpoint(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, EpAttributes attributes) {
        return newEndpoint(pz, recvEvd, requestEvd, connectEvd, null, attributes, DatReturn.INVALID_ARG6);
    }

    @Override
    public Endpoint createEndpointWithSrq(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, SharedReceiveQueue srq, EpAttributes attributes) {
        checkOpen();
        if (!(srq instanceof SimSrq s) || s.ia() != this || !s.isOpen()) {
            throw invalidHandle(DatReturn.INVALID_HANDLE_SRQ, "srq", "not an open SRQ of this IA");
        }
        if (attributes == null) {
            // dat_ep_create_with_srq(3DAT): ep_attributes cannot be NULL
            throw invalidParameter(DatReturn.INVALID_ARG7, "attributes", "required for an Endpoint on an SRQ");
        }
        return newEndpoint(pz, recvEvd, requestEvd, connectEvd, s, attributes, DatReturn.INVALID_ARG7);
    }

    private SimEndpoint newEndpoint(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, SimSrq srq, EpAttributes attributes, int attrArg) {
        checkOpen();
        SimPz p = pz(pz, "pz", true);
        SimEvd recv = evd(recvEvd, DatReturn.INVALID_HANDLE_EVD_RECV, EvdFlags.DTO, "recvEvd");
        SimEvd request = evd(requestEvd, DatReturn.INVALID_HANDLE_EVD_REQUEST, EvdFlags.DTO, "requestEvd");
        SimEvd connect = evd(connectEvd, DatReturn.INVALID_HANDLE_EVD_CONN, EvdFlags.CONNECTION, "connectEvd");
        EpAttributes attrs = EpConfiguration.resolveAttributes(adapter.limits, attributes, attrArg);
        EpConfiguration.checkCompletionFlagsAgainstEvds(attrs, recv, request, connect, null, DatReturn.INVALID_ARG3, DatReturn.INVALID_ARG4);
        if (srq != null && srq.attachedCount() >= adapter.limits.maxEpPerSrq()) {
            throw insufficient(DatReturn.RESOURCE_SRQ, "max_ep_per_srq reached");
        }
        if (!Adapter.reserve(adapter.eps, adapter.limits.maxEps())) {
            throw insufficient(DatReturn.RESOURCE_TEP, "max_eps " + adapter.limits.maxEps() + " reached");
        }
        SimEndpoint ep = new SimEndpoint(this, p, recv, request, connect, srq, attrs);
        eps.add(ep);
        return ep;
    }

    @Override
    public PublicServicePoint createPublicServicePoint(long connQual, EventDispatcher crEvd, PspFlag flag) {
        return newPsp(crEvd, flag, () -> {
            if (adapter.servicePoints.containsKey(connQual)) {
                throw DatException.of(DatReturn.CONN_QUAL_IN_USE, DatReturn.NO_SUBTYPE, "connQual",
                        "qualifier " + connQual + " is in use on " + adapter.name);
            }
            return connQual;
        });
    }

    @Override
    public PublicServicePoint createPublicServicePointAny(EventDispatcher crEvd, PspFlag flag) {
        return newPsp(crEvd, flag, () -> {
            long q = adapter.allocateAnyQual();
            if (q < 0) {
                throw DatException.of(DatReturn.CONN_QUAL_UNAVAILABLE, DatReturn.NO_SUBTYPE, null,
                        "every qualifier of the dat_psp_create_any range is in use");
            }
            return q;
        });
    }

    /** A PSP on the qualifier {@code qualifier} gives under the CM lock (it throws when there is none). */
    private SimPsp newPsp(EventDispatcher crEvd, PspFlag flag, java.util.function.LongSupplier qualifier) {
        checkOpen();
        SimEvd evd = requireCrEvd(crEvd);
        if (flag == null) {
            throw invalidParameter(DatReturn.INVALID_ARG4, "flag", "null PSP flag");
        }
        provider.cmLock.lock();
        try {
            checkOpen();
            return new SimPsp(this, qualifier.getAsLong(), evd, flag);
        } finally {
            provider.cmLock.unlock();
        }
    }

    private SimEvd requireCrEvd(EventDispatcher crEvd) {
        if (crEvd == null) {
            throw invalidHandle(DatReturn.INVALID_HANDLE_EVD_CR, "crEvd", "null connection-request EVD");
        }
        return evd(crEvd, DatReturn.INVALID_HANDLE_EVD_CR, EvdFlags.CR, "crEvd");
    }

    @Override
    public ReservedServicePoint createReservedServicePoint(long connQual, Endpoint ep, EventDispatcher crEvd) {
        checkOpen();
        SimEvd evd = requireCrEvd(crEvd);
        provider.cmLock.lock();
        try {
            checkOpen();
            // DAT_HANDLE_NULL is DAT_INVALID_HANDLE here, as in Solaris libdat and OFED dapl: a
            // Provider-created Endpoint would reach PASSIVE_CONNECTION_PENDING with no Protection
            // Zone, which dat_ep_modify(3DAT) gives only in UNCONNECTED and TENTATIVE_CONNECTION_PENDING
            SimEndpoint e = endpoint(ep, "ep");
            if (e.state() != dat.api.EpState.UNCONNECTED) {
                throw invalidState(SimEndpoint.stateSubtype(e.state()), "the Endpoint is " + e.state() + ", not UNCONNECTED");
            }
            if (adapter.servicePoints.containsKey(connQual)) {
                throw DatException.of(DatReturn.CONN_QUAL_IN_USE, DatReturn.NO_SUBTYPE, "connQual",
                        "qualifier " + connQual + " is in use on " + adapter.name);
            }
            return new SimRsp(this, connQual, e, evd);
        } finally {
            provider.cmLock.unlock();
        }
    }

    /**
     * An Endpoint the provider creates for a request at a PSP with {@link PspFlag#PROVIDER}: no PZ,
     * no EVDs, attributes matching the active side (dat_psp_create(3DAT)).
     */
    SimEndpoint providerEndpoint(EpAttributes activeAttributes) {
        if (!Adapter.reserve(adapter.eps, adapter.limits.maxEps())) {
            return null;
        }
        EpAttributes attrs;
        try {
            attrs = EpConfiguration.resolveAttributes(adapter.limits, activeAttributes == null ? null
                    : activeAttributes.toBuilder().recvCompletionFlags(CompletionFlags.DEFAULT)
                            .requestCompletionFlags(CompletionFlags.DEFAULT).build(), DatReturn.INVALID_ARG6);
        } catch (DatException e) {
            attrs = EpConfiguration.resolveAttributes(adapter.limits, null, DatReturn.INVALID_ARG6);
        }
        SimEndpoint ep = new SimEndpoint(this, null, null, null, null, null, attrs);
        eps.add(ep);
        return ep;
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(ProtectionZone pz, SrqAttributes attributes) {
        checkOpen();
        SimPz p = pz(pz, "pz", false);
        if (attributes == null) {
            throw invalidParameter(DatReturn.INVALID_ARG3, "attributes", "null SRQ attributes");
        }
        SimLimits l = adapter.limits;
        if (attributes.maxRecvDtos() <= 0 || attributes.maxRecvDtos() > l.maxRecvPerSrq()) {
            throw invalidParameter(DatReturn.INVALID_ARG3, "attributes.maxRecvDtos", "must be 1.." + l.maxRecvPerSrq());
        }
        if (attributes.maxRecvIov() < 0 || attributes.maxRecvIov() > l.maxIov()) {
            throw invalidParameter(DatReturn.INVALID_ARG3, "attributes.maxRecvIov", "must be 0 (default) or 1.." + l.maxIov());
        }
        if (attributes.lowWatermark() < 0 || attributes.lowWatermark() > attributes.maxRecvDtos()) {
            throw invalidParameter(DatReturn.INVALID_ARG3, "attributes.lowWatermark", "must be 0..maxRecvDtos");
        }
        if (!Adapter.reserve(adapter.srqs, l.maxSrqs())) {
            throw insufficient(DatReturn.RESOURCE_SRQ, "max_srqs " + l.maxSrqs() + " reached");
        }
        SimSrq srq = new SimSrq(this, p, attributes.maxRecvDtos(), attributes.maxRecvIov() == 0 ? l.defaultIov() : attributes.maxRecvIov());
        srqs.add(srq);
        if (attributes.lowWatermark() > 0) {
            // as dat_srq_set_lw: the new SRQ holds no receive, so the event comes now (dat_srq_create(3DAT))
            srq.setLowWatermark(attributes.lowWatermark());
        }
        return srq;
    }

    @Override
    public String toString() {
        return "sim-IA(" + adapter.name + " " + adapter.address + ", " + state + ")";
    }
}
