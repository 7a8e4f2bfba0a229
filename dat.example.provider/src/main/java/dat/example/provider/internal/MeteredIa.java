package dat.example.provider.internal;

import dat.api.AsyncErrorReason;
import dat.api.CloseFlag;
import dat.api.ConsumerNotificationObject;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.HandleType;
import dat.api.IaQuery;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemoryType;
import dat.api.ProtectionZone;
import dat.api.ProviderAttributes;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.RegionDescription;
import dat.api.ReservedServicePoint;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.api.WaitProxyAgent;
import dat.api.ext.IaCounters;
import dat.api.ext.IaStatistics;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A metered IA: an open IA of the underlying provider, seen through decorating handles that count
 * what passes ({@link IaStatistics}). Every call is forwarded; results that name underlying handles
 * are translated back ({@link Handles}). The IA's own identity differs from the underlying one: its
 * name is the metered name ({@code metered-sim0}), and its provider attributes name the provider
 * {@code metered} and the underlying IA ({@code metered.underlying}).
 *
 * <p><b>Hot swap.</b> When the underlying provider leaves, the underlying IA fails by itself: its
 * catastrophic event, flushed completions and {@code DAT_INVALID_HANDLE} answers reach the consumer
 * through the decoration. When the metered provider leaves ({@link #fail}), this IA fails on its
 * own: the catastrophic event is queued on its async EVD, every Endpoint is freed (which flushes its
 * posted DTOs onto their EVDs), every call but event reaping answers {@code DAT_INVALID_HANDLE}, and
 * after a grace period (or when the consumer closes it, if sooner) the underlying IA is closed,
 * which wakes every waiter and releases everything.
 */
final class MeteredIa implements InterfaceAdapter {

    private static final System.Logger LOG = System.getLogger(MeteredIa.class.getName());

    /** The provider name a metered IA reports in its provider attributes. */
    static final String PROVIDER_NAME = "metered";

    final InterfaceAdapter u;
    final Handles handles;
    final IaCounters counters;
    /** The underlying handles whose wrappers this IA owns, forgotten when it closes. */
    final Set<Object> owned = ConcurrentHashMap.newKeySet();
    private final String name;
    private final String underlyingName;
    private final MeteredFactory factory;
    private final EventDispatcher asyncEvd;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean catastropheReported = new AtomicBoolean();
    private volatile boolean failed;

    MeteredIa(MeteredFactory factory, String name, InterfaceAdapter underlying, Handles handles) {
        this.factory = factory;
        this.name = name;
        this.u = underlying;
        this.underlyingName = underlying.name();
        this.handles = handles;
        this.counters = new IaCounters(name);
        handles.remember(underlying, this, null);
        EventDispatcher underlyingAsync = underlying.query().asyncEvd();
        if (underlyingAsync == null || underlyingAsync == EventDispatcher.OUT_OF_SCOPE
                || underlyingAsync == EventDispatcher.ASYNC_EXISTS) {
            this.asyncEvd = underlyingAsync; // out of this consumer's scope
        } else if (handles.evd(underlyingAsync) instanceof MeteredEvd shared) {
            this.asyncEvd = shared; // the async EVD of another metered IA, given to the open
        } else {
            this.asyncEvd = handles.remember(underlyingAsync, new MeteredEvd(underlyingAsync, this, true), this);
        }
    }

    /**
     * Claims the one catastrophic error this IA reports.
     *
     * @return whether the caller reports it: {@code false} when it was reported already
     */
    boolean reportCatastrophe() {
        return catastropheReported.compareAndSet(false, true);
    }

    /** Whether the metered provider left under this IA. */
    boolean failed() {
        return failed;
    }

    private void checkUsable() {
        if (failed) {
            throw Codes.providerLeft("ia");
        }
        if (closed.get()) {
            throw DatException.of(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_IA, "ia", "the IA is closed");
        }
    }

    /**
     * The metered provider is leaving: fail this IA (see the class comment). Returns at once; the
     * underlying IA is closed after {@code grace} on a short-lived virtual thread.
     */
    void fail(Duration grace) {
        if (failed || closed.get()) {
            return;
        }
        failed = true;
        if (asyncEvd instanceof MeteredEvd async && async.ia == this && reportCatastrophe()) {
            async.inject(new DatEvent().setAsyncError(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC, async, this,
                    AsyncErrorReason.IA_CATASTROPHIC_ERROR));
            counters.asyncError();
        }
        for (Object underlying : owned) {
            if (underlying instanceof Endpoint ep) {
                freeForFailure(ep);
            }
        }
        Thread.ofVirtual().name("dat-metered-grace-" + name).start(() -> {
            try {
                Thread.sleep(grace);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            closeUnderlying();
        });
    }

    /** Frees an Endpoint, which flushes its DTOs; one that cannot be freed now is disconnected. */
    private static void freeForFailure(Endpoint ep) {
        try {
            ep.close();
        } catch (DatException e) {
            try {
                ep.disconnect(CloseFlag.ABRUPT);
            } catch (DatException ignored) {
                // neither connected nor freeable: the IA's close takes it
            }
        }
    }

    private void closeUnderlying() {
        if (closed.compareAndSet(false, true)) {
            // leaves the factory's open IAs first: the underlying close wakes this IA's waiters, who
            // may look at the factory at once
            factory.closed(this);
            try {
                u.close(CloseFlag.ABRUPT);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "closing the underlying IA " + underlyingName + " of " + name + " failed", e);
            }
            handles.forgetAll(this);
            handles.forget(u);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // InterfaceAdapter
    // ---------------------------------------------------------------------------------------------

    @Override
    public String name() {
        return name;
    }

    @Override
    public IaQuery query(long iaAttrMask, long providerAttrMask) {
        checkUsable();
        IaQuery query = u.query(iaAttrMask, providerAttrMask);
        Map<String, String> specific = new HashMap<>(query.providerAttributes().providerSpecificAttributes());
        specific.put("metered.underlying", underlyingName);
        ProviderAttributes provider = query.providerAttributes().toBuilder().providerName(PROVIDER_NAME)
                .providerSpecificAttributes(specific).build();
        return new IaQuery(asyncEvd, query.iaAttributes().toBuilder().adapterName(name).build(), provider);
    }

    @Override
    public void close(CloseFlag flag) {
        if (closed.get()) {
            if (flag == null) {
                checkUsable(); // the closed IA is named before the missing flag, as the providers name it
            }
            return;
        }
        if (failed) {
            closeUnderlying();
            return;
        }
        u.close(flag); // a graceful close of an IA that still has objects fails here, and the IA stays open
        closeUnderlying();
    }

    @Override
    public ProtectionZone createProtectionZone() {
        checkUsable();
        ProtectionZone pz = u.createProtectionZone();
        return handles.remember(pz, new MeteredPz(pz, this), this);
    }

    @Override
    public EventDispatcher createEventDispatcher(int minQlen, ConsumerNotificationObject cno, int evdFlags) {
        checkUsable();
        EventDispatcher evd = u.createEventDispatcher(minQlen, Handles.u(cno), evdFlags);
        return handles.remember(evd, new MeteredEvd(evd, this, false), this);
    }

    @Override
    public ConsumerNotificationObject createNotificationObject(WaitProxyAgent agent) {
        checkUsable();
        MeteredCno.Agent translating = MeteredCno.translating(agent, handles);
        ConsumerNotificationObject cno = u.createNotificationObject(translating);
        return handles.remember(cno, new MeteredCno(cno, this, agent), this);
    }

    @Override
    public LocalMemoryRegion registerMemory(MemoryType memType, RegionDescription region, long length, ProtectionZone pz,
            int memPrivileges) {
        checkUsable();
        RegionDescription underlyingRegion = region instanceof RegionDescription.OfLmr(LocalMemoryRegion lmr)
                ? RegionDescription.ofLmr(Handles.u(lmr)) : region;
        LocalMemoryRegion lmr = u.registerMemory(memType, underlyingRegion, length, Handles.u(pz), memPrivileges);
        return handles.remember(lmr, new MeteredLmr(lmr, this, region), this);
    }

    @Override
    public void syncRdmaRead(LmrTriplet[] localSegments, int numSegments) {
        checkUsable();
        u.syncRdmaRead(localSegments, numSegments);
    }

    @Override
    public void syncRdmaWrite(LmrTriplet[] localSegments, int numSegments) {
        checkUsable();
        u.syncRdmaWrite(localSegments, numSegments);
    }

    @Override
    public Endpoint createEndpoint(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, EpAttributes attributes) {
        checkUsable();
        Endpoint ep = u.createEndpoint(Handles.u(pz), Handles.u(recvEvd), Handles.u(requestEvd), Handles.u(connectEvd),
                attributes);
        return handles.remember(ep, new MeteredEp(ep, this), this);
    }

    @Override
    public Endpoint createEndpointWithSrq(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, SharedReceiveQueue srq, EpAttributes attributes) {
        checkUsable();
        Endpoint ep = u.createEndpointWithSrq(Handles.u(pz), Handles.u(recvEvd), Handles.u(requestEvd),
                Handles.u(connectEvd), Handles.u(srq), attributes);
        return handles.remember(ep, new MeteredEp(ep, this), this);
    }

    @Override
    public PublicServicePoint createPublicServicePoint(long connQual, EventDispatcher crEvd, PspFlag flag) {
        checkUsable();
        PublicServicePoint psp = u.createPublicServicePoint(connQual, Handles.u(crEvd), flag);
        return handles.remember(psp, new MeteredPsp(psp, this), this);
    }

    @Override
    public PublicServicePoint createPublicServicePointAny(EventDispatcher crEvd, PspFlag flag) {
        checkUsable();
        PublicServicePoint psp = u.createPublicServicePointAny(Handles.u(crEvd), flag);
        return handles.remember(psp, new MeteredPsp(psp, this), this);
    }

    @Override
    public ReservedServicePoint createReservedServicePoint(long connQual, Endpoint ep, EventDispatcher crEvd) {
        checkUsable();
        ReservedServicePoint rsp = u.createReservedServicePoint(connQual, Handles.u(ep), Handles.u(crEvd));
        return handles.remember(rsp, new MeteredRsp(rsp, this), this);
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(ProtectionZone pz, SrqAttributes attributes) {
        checkUsable();
        SharedReceiveQueue srq = u.createSharedReceiveQueue(Handles.u(pz), attributes);
        return handles.remember(srq, new MeteredSrq(srq, this), this);
    }

    // ---------------------------------------------------------------------------------------------
    // DatHandle
    // ---------------------------------------------------------------------------------------------

    @Override
    public HandleType handleType() {
        checkUsable();
        return u.handleType();
    }

    @Override
    public Object consumerContext() {
        checkUsable();
        return u.consumerContext();
    }

    @Override
    public void setConsumerContext(Object context) {
        checkUsable();
        u.setConsumerContext(context);
    }

    @Override
    public boolean isOpen() {
        return !failed && !closed.get() && u.isOpen();
    }

    @Override
    public <T> Optional<T> extension(Class<T> type) {
        return type == IaStatistics.class ? Optional.of(type.cast(counters)) : Optional.empty();
    }

    @Override
    public String toString() {
        return "MeteredIa[" + name + " over " + underlyingName + "]";
    }
}
