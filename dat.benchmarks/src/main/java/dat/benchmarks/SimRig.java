package dat.benchmarks;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.api.spi.IaOpenRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ServiceLoader;

/**
 * Two connected Endpoints of the sim provider, found the way a plain-Java consumer finds it
 * ({@link ServiceLoader}): two open instances of IA {@code sim0}, one listening, one connecting.
 */
public final class SimRig implements AutoCloseable {

    /** One end: IA, PZ, EVDs, Endpoint and one registered buffer. */
    public static final class End {
        public final InterfaceAdapter ia;
        public final ProtectionZone pz;
        public final EventDispatcher recvEvd;
        public final EventDispatcher reqEvd;
        public final EventDispatcher connEvd;
        public final Endpoint ep;
        public final MemorySegment mem;
        public final LocalMemoryRegion lmr;

        End(DatIaFactory factory, Arena arena, long bytes, EpAttributes attrs, boolean recvEvents) {
            ia = factory.openIa(new IaOpenRequest("sim0", 16, null, ""));
            pz = ia.createProtectionZone();
            recvEvd = ia.createEventDispatcher(4096, null, EvdFlags.DTO);
            reqEvd = ia.createEventDispatcher(4096, null, EvdFlags.DTO);
            connEvd = ia.createEventDispatcher(16, null, EvdFlags.CONNECTION | EvdFlags.CR);
            ep = ia.createEndpoint(pz, recvEvents ? recvEvd : null, reqEvd, connEvd, attrs);
            mem = arena.allocate(bytes, 4096);
            lmr = ia.registerMemory(mem, pz, MemPrivileges.ALL);
        }
    }

    public final Arena arena = Arena.ofShared();
    public final End a;
    public final End b;
    private final DatIaFactory factory;

    /**
     * Builds and connects the two ends.
     *
     * @param bytes the size of each end's buffer
     * @param attrs the Endpoint attributes, or {@code null}
     * @param recvEventsOnB whether b's receives generate completion events
     */
    public SimRig(long bytes, EpAttributes attrs, boolean recvEventsOnB) {
        factory = ServiceLoader.load(DatIaFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> "sim".equals(f.properties().get(DatProviderConstants.DAT_PROVIDER_NAME)))
                .findFirst().orElseThrow(() -> new IllegalStateException("no sim provider on the class path"));
        a = new End(factory, arena, bytes, attrs, true);
        b = new End(factory, arena, bytes, attrs, recvEventsOnB);
        InetSocketAddress address = b.ia.query().iaAttributes().iaAddress();
        PublicServicePoint psp = b.ia.createPublicServicePoint(4711, b.connEvd, PspFlag.CONSUMER);
        a.ep.connect(address, 4711, 5_000_000, null, 0, 0);
        DatEvent e = new DatEvent();
        expect(b.connEvd, e, EventNumber.CONNECTION_REQUEST_EVENT);
        e.connectionRequest().accept(b.ep, null);
        expect(a.connEvd, e, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        expect(b.connEvd, e, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.close();
    }

    private static void expect(EventDispatcher evd, DatEvent e, int number) {
        int rc = evd.await(5_000_000, 1, e);
        if (rc != DatReturn.SUCCESS || e.eventNumber() != number) {
            throw new IllegalStateException("expected " + EventNumber.name(number) + ", got " + DatReturn.describe(rc) + " " + e);
        }
    }

    /** Busy-polls an EVD for one event; fails loudly on anything but success. */
    public static void reap(EventDispatcher evd, DatEvent e) {
        int rc;
        while ((rc = evd.dequeue(e)) != DatReturn.SUCCESS) {
            if (DatReturn.typeOf(rc) != DatReturn.QUEUE_EMPTY) {
                throw new IllegalStateException(DatReturn.describe(rc));
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() {
        a.ia.close();
        b.ia.close();
        arena.close();
        if (factory instanceof AutoCloseable provider) {
            // this rig's own instance of the provider: its thread goes with it
            try {
                provider.close();
            } catch (Exception e) {
                throw new IllegalStateException("the sim provider failed to close", e);
            }
        }
    }
}
