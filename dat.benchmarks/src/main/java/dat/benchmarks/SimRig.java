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
 * ({@link ServiceLoader}), over one of its three wires ({@link Wire}): two open instances of IA
 * {@code sim0} of one provider, one listening, one connecting (the in-JVM fabric); or two TCP IAs
 * on loopback of two instances of the provider, as two processes would have, over TCP or over
 * their shared-memory wire ({@code shm=on}: each connection through a ring file in
 * {@code /dev/shm} that both map, as two processes of one host do).
 */
public final class SimRig implements AutoCloseable {

    /** The wire between the two Endpoints. */
    public enum Wire {
        /** the in-JVM fabric of one provider */
        JVM(null),
        /** TCP over loopback between two providers */
        TCP("tcp=127.0.0.1:0"),
        /** the shared-memory wire between two providers' TCP IAs */
        SHM("tcp=127.0.0.1:0 shm=on");

        final String iaParams;

        Wire(String iaParams) {
            this.iaParams = iaParams;
        }
    }

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

        End(DatIaFactory factory, IaOpenRequest open, Arena arena, long bytes, EpAttributes attrs, boolean recvEvents) {
            ia = factory.openIa(open);
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
    private final DatIaFactory factoryA;
    private final DatIaFactory factoryB;

    /**
     * Builds and connects the two ends over the in-JVM fabric.
     *
     * @param bytes the size of each end's buffer
     * @param attrs the Endpoint attributes, or {@code null}
     * @param recvEventsOnB whether b's receives generate completion events
     */
    public SimRig(long bytes, EpAttributes attrs, boolean recvEventsOnB) {
        this(Wire.JVM, bytes, attrs, recvEventsOnB);
    }

    /**
     * Builds and connects the two ends.
     *
     * @param wire the wire between them
     * @param bytes the size of each end's buffer
     * @param attrs the Endpoint attributes, or {@code null}
     * @param recvEventsOnB whether b's receives generate completion events
     * @throws IllegalStateException when the connection did not take the wire asked for
     */
    public SimRig(Wire wire, long bytes, EpAttributes attrs, boolean recvEventsOnB) {
        factoryA = loadSim();
        factoryB = wire == Wire.JVM ? factoryA : loadSim();
        IaOpenRequest openA = wire == Wire.JVM ? new IaOpenRequest("sim0", 16, null, "")
                : new IaOpenRequest("benchA", 16, null, wire.iaParams);
        IaOpenRequest openB = wire == Wire.JVM ? openA : new IaOpenRequest("benchB", 16, null, wire.iaParams);
        a = new End(factoryA, openA, arena, bytes, attrs, true);
        b = new End(factoryB, openB, arena, bytes, attrs, recvEventsOnB);
        InetSocketAddress address = b.ia.query().iaAttributes().iaAddress();
        PublicServicePoint psp = b.ia.createPublicServicePoint(4711, b.connEvd, PspFlag.CONSUMER);
        a.ep.connect(address, 4711, 5_000_000, null, 0, 0);
        DatEvent e = new DatEvent();
        expect(b.connEvd, e, EventNumber.CONNECTION_REQUEST_EVENT);
        e.connectionRequest().accept(b.ep, null);
        expect(a.connEvd, e, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        expect(b.connEvd, e, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.close();
        if (wire != Wire.JVM) {
            // the wire asked for, or no figure: a shm=on connection that fell back to TCP would measure TCP
            java.util.Map<String, String> transport = a.ia.query().iaAttributes().transportAttributes();
            if (!"1".equals(transport.get(wire == Wire.SHM ? "shm.established" : "tcp.established"))) {
                close();
                throw new IllegalStateException("the connection did not go over " + wire + ": " + transport);
            }
        }
    }

    /** A new instance of the sim provider, as ServiceLoader makes one for each process. */
    private static DatIaFactory loadSim() {
        return ServiceLoader.load(DatIaFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> "sim".equals(f.properties().get(DatProviderConstants.DAT_PROVIDER_NAME)))
                .findFirst().orElseThrow(() -> new IllegalStateException("no sim provider on the class path"));
    }

    /** Waits up to 5 s for the next event of {@code evd}; fails loudly unless it is {@code number}. */
    static void expect(EventDispatcher evd, DatEvent e, int number) {
        int rc = evd.await(5_000_000, 1, e);
        if (rc != DatReturn.SUCCESS || e.eventNumber() != number) {
            throw new IllegalStateException("expected " + EventNumber.name(number) + ", got " + DatReturn.describe(rc) + " " + e);
        }
    }

    /** Fails loudly unless a post or another call returned success. */
    public static void check(int rc) {
        if (rc != DatReturn.SUCCESS) {
            throw new IllegalStateException(DatReturn.describe(rc));
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
        // this rig's own instances of the provider: their threads go with them
        stop(factoryA);
        if (factoryB != factoryA) {
            stop(factoryB);
        }
    }

    private static void stop(DatIaFactory factory) {
        if (factory instanceof AutoCloseable provider) {
            try {
                provider.close();
            } catch (Exception e) {
                throw new IllegalStateException("the sim provider failed to close", e);
            }
        }
    }
}
