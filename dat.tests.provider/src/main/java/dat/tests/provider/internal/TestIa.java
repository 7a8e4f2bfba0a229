package dat.tests.provider.internal;

import dat.api.CloseFlag;
import dat.api.ConsumerNotificationObject;
import dat.api.DatException;
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
import dat.api.ProviderAttributes;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.RegionDescription;
import dat.api.ReservedServicePoint;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.api.WaitProxyAgent;
import dat.api.AsyncErrorReason;
import dat.api.ext.IaCounters;
import dat.api.ext.IaStatistics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An IA of the test provider. It opens, answers {@code dat_ia_query}, creates Event Dispatchers
 * and closes; every other operation answers {@code DAT_NOT_IMPLEMENTED} (and its attributes say
 * so: no PZ, EP, LMR, RMR, PSP, RSP, SRQ or CNO).
 *
 * <p>Like an RDMA adapter it has an asynchronous event thread, which delivers the IA's async
 * errors to its async EVD. When the provider leaves, that thread posts
 * {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC}, fails the IA (every handle then answers
 * {@code DAT_INVALID_HANDLE}, waiters wake) and ends.
 */
final class TestIa implements InterfaceAdapter {

    private enum State { OPEN, FAILED, CLOSED }

    static final int MAX_EVDS = 16;

    /** Ends the async event thread. */
    private static final Runnable STOP = () -> { };

    private final TestProvider provider;
    private final String name;
    private final String instanceData;
    private final TestEvd asyncEvd; // null when opened with ASYNC_EXISTS
    /** Its counters: it has no data path, so only asynchronous errors ever count. */
    private final IaCounters counters;
    private final boolean ownsAsyncEvd;
    private final LinkedBlockingQueue<Runnable> adapterEvents = new LinkedBlockingQueue<>();
    private final Thread asyncThread;
    private final Object lock = new Object();

    // guarded by lock
    private State state = State.OPEN;
    private Object context;
    private final List<TestEvd> evds = new ArrayList<>();

    TestIa(TestProvider provider, String name, String instanceData, int asyncEvdQlen, EventDispatcher sharedAsyncEvd) {
        this.provider = provider;
        this.name = name;
        this.counters = new IaCounters(name);
        this.instanceData = instanceData;
        if (sharedAsyncEvd == EventDispatcher.ASYNC_EXISTS) {
            this.asyncEvd = null;
            this.ownsAsyncEvd = false;
        } else if (sharedAsyncEvd != null) {
            this.asyncEvd = (TestEvd) sharedAsyncEvd;
            this.ownsAsyncEvd = false;
        } else {
            this.asyncEvd = new TestEvd(this, asyncEvdQlen, EvdFlags.ASYNC, true);
            this.ownsAsyncEvd = true;
        }
        this.asyncThread = new Thread(this::deliverAdapterEvents, provider.threadName(name));
        asyncThread.setDaemon(true);
        asyncThread.start();
    }

    private void deliverAdapterEvents() {
        while (true) {
            Runnable event;
            try {
                event = adapterEvents.take();
            } catch (InterruptedException e) {
                return;
            }
            if (event == STOP) {
                return;
            }
            event.run();
        }
    }

    TestProvider provider() {
        return provider;
    }

    /**
     * Hot swap: has the async event thread post {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC} and fail
     * the IA, then end. {@link #awaitAsyncThread} waits for it.
     */
    void failCatastrophically() {
        adapterEvents.add(() -> {
            if (asyncEvd != null) {
                asyncEvd.postAsyncError(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC, this, AsyncErrorReason.IA_CATASTROPHIC_ERROR);
                counters.asyncError();
            }
            fail();
        });
        adapterEvents.add(STOP);
    }

    /** Waits (bounded) for the async event thread to end; fails the IA itself if it did not. */
    void awaitAsyncThread(long timeoutMillis) {
        try {
            asyncThread.join(timeoutMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (asyncThread.isAlive()) {
            asyncThread.interrupt();
            fail();
        }
    }

    /** Makes every handle of the IA invalid; queued events stay readable; waiters wake. */
    private void fail() {
        List<TestEvd> failing;
        synchronized (lock) {
            if (state != State.OPEN) {
                return;
            }
            state = State.FAILED;
            failing = new ArrayList<>(evds);
        }
        failing.forEach(TestEvd::fail);
        if (ownsAsyncEvd) {
            asyncEvd.fail();
        }
    }

    private void checkOpen() {
        synchronized (lock) {
            if (state != State.OPEN) {
                throw DatException.of(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_IA, "ia",
                        state == State.CLOSED ? "the IA is closed" : "the IA failed: its provider left");
            }
        }
    }

    private DatException notImplemented(String what) {
        checkOpen();
        return DatException.of(DatReturn.NOT_IMPLEMENTED, DatReturn.NO_SUBTYPE, null,
                "the test provider implements IA open, query and close and Event Dispatchers only, not " + what);
    }

    void forget(TestEvd evd) {
        synchronized (lock) {
            evds.remove(evd);
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
        if (!IaAttrMask.isValid(iaAttrMask)) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3, "iaAttrMask", "undefined bits");
        }
        if (!ProviderAttrMask.isValid(providerAttrMask)) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5, "providerAttrMask", "undefined bits");
        }
        checkOpen();
        IaAttributes ia = IaAttributes.builder()
                .adapterName(name)
                .vendorName("DAT for Java test provider")
                .maxEvds(MAX_EVDS)
                .maxEvdQlen(TestEvd.MAX_QLEN)
                .vendorAttributes(Map.of(
                        "dat.tests.label", provider.label(),
                        "dat.tests.instance.data", instanceData,
                        "dat.tests.init.data", provider.initData(name)))
                .build();
        ProviderAttributes attributes = ProviderAttributes.builder()
                .providerName(provider.providerName())
                .providerVersionMajor(1)
                .providerVersionMinor(0)
                .daplVersionMajor(provider.versionMajor())
                .daplVersionMinor(provider.versionMinor())
                .threadSafe(provider.threadSafe())
                .lmrMemTypesSupported(Set.of())
                .providerSpecificAttributes(Map.of("dat.tests.implements", "IA open/query/close, EVDs"))
                .build();
        return new IaQuery(asyncEvd == null ? EventDispatcher.OUT_OF_SCOPE : asyncEvd, ia, attributes);
    }

    @Override
    public void close(CloseFlag flag) {
        if (flag == null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "flag", "null");
        }
        List<TestEvd> freeing;
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            if (flag == CloseFlag.GRACEFUL && state == State.OPEN && !evds.isEmpty()) {
                throw DatException.of(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE, "flag",
                        evds.size() + " Event Dispatchers are still allocated");
            }
            state = State.CLOSED;
            freeing = new ArrayList<>(evds);
            evds.clear();
        }
        freeing.forEach(TestEvd::free);
        if (ownsAsyncEvd) {
            asyncEvd.free();
        }
        adapterEvents.add(STOP);
        awaitAsyncThread(5000);
        provider.closed(this);
    }

    @Override
    public EventDispatcher createEventDispatcher(int minQlen, ConsumerNotificationObject cno, int evdFlags) {
        if (minQlen < 1 || minQlen > TestEvd.MAX_QLEN) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "minQlen",
                    minQlen + " is not in 1.." + TestEvd.MAX_QLEN);
        }
        if (evdFlags == 0 || !EvdFlags.isValid(evdFlags)) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4, "evdFlags",
                    "0x" + Integer.toHexString(evdFlags));
        }
        if (cno != null) {
            throw notImplemented("CNOs");
        }
        synchronized (lock) {
            if (state != State.OPEN) {
                checkOpen();
            }
            if (evds.size() >= MAX_EVDS) {
                throw DatException.of(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_TEVD, null,
                        "at most " + MAX_EVDS + " Event Dispatchers");
            }
            TestEvd evd = new TestEvd(this, minQlen, evdFlags, false);
            evds.add(evd);
            return evd;
        }
    }

    @Override
    public ProtectionZone createProtectionZone() {
        throw notImplemented("Protection Zones");
    }

    @Override
    public ConsumerNotificationObject createNotificationObject(WaitProxyAgent agent) {
        throw notImplemented("CNOs");
    }

    @Override
    public LocalMemoryRegion registerMemory(MemoryType memType, RegionDescription region, long length, ProtectionZone pz,
            int memPrivileges) {
        throw notImplemented("memory registration");
    }

    @Override
    public void syncRdmaRead(LmrTriplet[] localSegments, int numSegments) {
        throw notImplemented("LMR synchronization");
    }

    @Override
    public void syncRdmaWrite(LmrTriplet[] localSegments, int numSegments) {
        throw notImplemented("LMR synchronization");
    }

    @Override
    public Endpoint createEndpoint(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, EpAttributes attributes) {
        throw notImplemented("Endpoints");
    }

    @Override
    public Endpoint createEndpointWithSrq(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, SharedReceiveQueue srq, EpAttributes attributes) {
        throw notImplemented("Endpoints");
    }

    @Override
    public PublicServicePoint createPublicServicePoint(long connQual, EventDispatcher crEvd, PspFlag flag) {
        throw notImplemented("Public Service Points");
    }

    @Override
    public PublicServicePoint createPublicServicePointAny(EventDispatcher crEvd, PspFlag flag) {
        throw notImplemented("Public Service Points");
    }

    @Override
    public ReservedServicePoint createReservedServicePoint(long connQual, Endpoint ep, EventDispatcher crEvd) {
        throw notImplemented("Reserved Service Points");
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(ProtectionZone pz, SrqAttributes attributes) {
        throw notImplemented("Shared Receive Queues");
    }

    @Override
    public HandleType handleType() {
        checkOpen();
        return HandleType.IA;
    }

    @Override
    public Object consumerContext() {
        synchronized (lock) {
            checkOpen();
            return context;
        }
    }

    @Override
    public void setConsumerContext(Object newContext) {
        synchronized (lock) {
            checkOpen();
            context = newContext;
        }
    }

    @Override
    public boolean isOpen() {
        synchronized (lock) {
            return state == State.OPEN;
        }
    }

    @Override
    public <T> Optional<T> extension(Class<T> type) {
        return type == IaStatistics.class ? Optional.of(type.cast(counters)) : Optional.empty();
    }

    @Override
    public String toString() {
        return "TestIa[" + name + " of " + provider.label() + "]";
    }

    /** Joins the async thread for at most the given time, for shutdown. */
    static void awaitAll(List<TestIa> ias, long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (TestIa ia : ias) {
            ia.awaitAsyncThread(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
    }
}
