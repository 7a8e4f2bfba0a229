package dat.karaf.probe;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.ConnectFlags;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.ProviderDTO;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.Qos;
import dat.api.RmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;
import org.osgi.util.tracker.ServiceTracker;

/**
 * The probe bundle's MXBean: a DAT consumer inside Karaf, built only against the published API
 * ({@code dat.api}) and the OSGi framework, reporting over JMX what a container sees.
 */
public final class DatProbe implements DatProbeMXBean {

    private static final long TIMEOUT_MICROS = 10_000_000;
    private static final int MESSAGE = 256;
    private static final int RDMA = 4096;

    private final BundleContext context;
    private final ServiceTracker<DatRegistry, DatRegistry> registry;
    private final Object holdLock = new Object();
    private Arena heldArena;
    private InterfaceAdapter heldIa;

    DatProbe(BundleContext context) {
        this.context = context;
        this.registry = new ServiceTracker<>(context, DatRegistry.class, null);
        registry.open();
    }

    void close() {
        release();
        registry.close();
    }

    private DatRegistry registry() {
        try {
            DatRegistry found = registry.waitForService(10_000);
            if (found == null) {
                throw new IllegalStateException("no DatRegistry service within 10 s");
            }
            return found;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public List<String> providers() {
        List<String> lines = new ArrayList<>();
        for (ProviderDTO provider : registry().findProviders("")) {
            lines.add(provider.iaName() + " " + provider.providerName() + " " + provider.transport());
        }
        return lines;
    }

    @Override
    public String exchange(String iaName, int messages) {
        try (Arena arena = Arena.ofShared(); InterfaceAdapter ia = registry().openIa(iaName)) { // registered memory: not confined
            Pair pair = connect(ia, arena);
            for (int i = 0; i < messages; i++) {
                pair.passiveMemory.asSlice(0, MESSAGE).fill((byte) 0);
                pair.activeMemory.asSlice(0, MESSAGE).fill((byte) i);
                sendOne(pair, i);
                long damaged = pair.passiveMemory.asSlice(0, MESSAGE).mismatch(pair.activeMemory.asSlice(0, MESSAGE));
                if (damaged != -1) {
                    throw new IllegalStateException("message " + i + " arrived damaged at byte " + damaged);
                }
            }
            for (int b = 0; b < RDMA; b++) {
                pair.activeMemory.set(ValueLayout.JAVA_BYTE, MESSAGE + b, (byte) (b * 31 + 7));
            }
            check(pair.active.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(pair.activeLmr, MESSAGE, RDMA)}, 99,
                    RmrTriplet.of(pair.passiveLmr, MESSAGE, RDMA), CompletionFlags.DEFAULT), "dat_ep_post_rdma_write");
            reap(pair.dtoEvd, 1);
            if (pair.passiveMemory.asSlice(MESSAGE, RDMA).mismatch(pair.activeMemory.asSlice(MESSAGE, RDMA)) != -1) {
                throw new IllegalStateException("the RDMA write arrived damaged");
            }
            pair.active.disconnect(CloseFlag.ABRUPT);
            return "ok " + iaName + ": " + messages + " messages of " + MESSAGE + " B and one RDMA write of " + RDMA
                    + " B, every byte checked";
        }
    }

    @Override
    public void hold(String iaName) {
        synchronized (holdLock) {
            release();
            heldArena = Arena.ofShared();
            heldIa = registry().openIa(iaName);
            Pair pair = connect(heldIa, heldArena);
            for (int i = 0; i < 10; i++) {
                sendOne(pair, i);
            }
        }
    }

    @Override
    public void release() {
        synchronized (holdLock) {
            if (heldIa != null) {
                heldIa.close();
                heldIa = null;
            }
            if (heldArena != null) {
                heldArena.close();
                heldArena = null;
            }
        }
    }

    @Override
    public List<String> metatype(String pid) {
        ServiceReference<MetaTypeService> reference = context.getServiceReference(MetaTypeService.class);
        if (reference == null) {
            return List.of();
        }
        MetaTypeService metatype = context.getService(reference);
        try {
            for (Bundle bundle : context.getBundles()) {
                MetaTypeInformation info = metatype.getMetaTypeInformation(bundle);
                if (info == null || !Arrays.asList(info.getPids()).contains(pid)) {
                    continue;
                }
                ObjectClassDefinition definition = info.getObjectClassDefinition(pid, null);
                List<String> ids = new ArrayList<>();
                Arrays.stream(definition.getAttributeDefinitions(ObjectClassDefinition.ALL)).forEach(ad -> ids.add(ad.getID()));
                return ids;
            }
            return List.of();
        } finally {
            context.ungetService(reference);
        }
    }

    @Override
    public String bundleState(String symbolicName) {
        Bundle bundle = bundle(symbolicName);
        if (bundle == null) {
            return "MISSING";
        }
        String state = switch (bundle.getState()) {
            case Bundle.ACTIVE -> "ACTIVE";
            case Bundle.RESOLVED -> "RESOLVED";
            case Bundle.INSTALLED -> "INSTALLED";
            case Bundle.STARTING -> "STARTING";
            case Bundle.STOPPING -> "STOPPING";
            default -> "UNINSTALLED";
        };
        return state + " " + bundle.getBundleId();
    }

    @Override
    public void setBundleStarted(String symbolicName, boolean started) throws Exception {
        Bundle bundle = bundle(symbolicName);
        if (bundle == null) {
            throw new IllegalArgumentException("no bundle " + symbolicName);
        }
        if (started) {
            bundle.start();
        } else {
            bundle.stop();
        }
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle bundle : context.getBundles()) {
            if (symbolicName.equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------------

    /** Two connected Endpoints of one IA with their memory; the IA's close frees them. */
    private record Pair(EventDispatcher dtoEvd, Endpoint active, Endpoint passive, LocalMemoryRegion activeLmr,
            LocalMemoryRegion passiveLmr, MemorySegment activeMemory, MemorySegment passiveMemory) {
    }

    private static Pair connect(InterfaceAdapter ia, Arena arena) {
        EpAttributes attributes = EpAttributes.builder()
                .maxMessageSize(MESSAGE).maxRdmaSize(RDMA)
                .maxRecvDtos(4).maxRequestDtos(4).maxRecvIov(1).maxRequestIov(1)
                .build();
        ProtectionZone pz = ia.createProtectionZone();
        EventDispatcher dtoEvd = ia.createEventDispatcher(16, null, EvdFlags.DTO);
        EventDispatcher connEvd = ia.createEventDispatcher(8, null, EvdFlags.CONNECTION | EvdFlags.CR);
        MemorySegment activeMemory = arena.allocate(MESSAGE + RDMA, DatConstants.OPTIMAL_ALIGNMENT);
        MemorySegment passiveMemory = arena.allocate(MESSAGE + RDMA, DatConstants.OPTIMAL_ALIGNMENT);
        LocalMemoryRegion activeLmr = ia.registerMemory(activeMemory, pz, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        LocalMemoryRegion passiveLmr = ia.registerMemory(passiveMemory, pz,
                MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_WRITE);
        Endpoint active = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, attributes);
        Endpoint passive = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, attributes);
        PublicServicePoint psp = ia.createPublicServicePointAny(connEvd, PspFlag.CONSUMER);
        DatEvent event = new DatEvent();
        active.connect(ia.query().iaAttributes().iaAddress(), psp.connQual(), TIMEOUT_MICROS, null, Qos.BEST_EFFORT,
                ConnectFlags.DEFAULT);
        expect(connEvd.await(TIMEOUT_MICROS, 1, event), event, EventNumber.CONNECTION_REQUEST_EVENT);
        event.connectionRequest().accept(passive, null);
        for (int established = 0; established < 2; established++) {
            expect(connEvd.await(TIMEOUT_MICROS, 1, event), event, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
        psp.close();
        return new Pair(dtoEvd, active, passive, activeLmr, passiveLmr, activeMemory, passiveMemory);
    }

    /** One message from the active to the passive Endpoint: a receive, a send, both completions. */
    private static void sendOne(Pair pair, int i) {
        check(pair.passive.postRecv(1, new LmrTriplet[] {LmrTriplet.of(pair.passiveLmr, 0, MESSAGE)}, 2L * i,
                CompletionFlags.DEFAULT), "dat_ep_post_recv");
        check(pair.active.postSend(1, new LmrTriplet[] {LmrTriplet.of(pair.activeLmr, 0, MESSAGE)}, 2L * i + 1,
                CompletionFlags.DEFAULT), "dat_ep_post_send");
        reap(pair.dtoEvd, 2);
    }

    private static void reap(EventDispatcher evd, int completions) {
        DatEvent event = new DatEvent();
        for (int i = 0; i < completions; i++) {
            expect(evd.await(TIMEOUT_MICROS, 1, event), event, EventNumber.DTO_COMPLETION_EVENT);
            if (event.status() != DtoCompletionStatus.SUCCESS) {
                throw new IllegalStateException("DTO " + event.userCookie() + " failed: " + event);
            }
        }
    }

    private static void check(int code, String what) {
        if (code != DatReturn.SUCCESS) {
            throw new IllegalStateException(what + ": " + DatReturn.describe(code));
        }
    }

    private static void expect(int code, DatEvent event, int eventNumber) {
        check(code, "dat_evd_wait");
        if (event.eventNumber() != eventNumber) {
            throw new IllegalStateException("expected " + EventNumber.name(eventNumber) + ", got " + event);
        }
    }
}
