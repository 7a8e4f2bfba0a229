package dat.tests.ext;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.ConnectFlags;
import dat.api.ConnectionRequest;
import dat.api.DatEvent;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.Qos;
import dat.api.RmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Two connected Endpoints for the extension, statistics and switching tests: an active side on one
 * IA and a passive side on another (or the same) IA, each with its PZ, EVDs and a registered buffer,
 * opened through the registry only. {@link #close()} closes what it opened and frees the memory.
 */
public final class Link implements AutoCloseable {

    /** How long an expected event may take: 5 s, in microseconds. */
    public static final long EVENT_TIMEOUT_MICROS = 5_000_000L;

    /** The size of each side's buffer. */
    public static final long BUFFER_SIZE = 4096;

    /** One side of the link. */
    public static final class Side {
        public final InterfaceAdapter ia;
        public final ProtectionZone pz;
        public final EventDispatcher recvEvd;
        public final EventDispatcher requestEvd;
        public final EventDispatcher connectEvd;
        public final MemorySegment buffer;
        public final LocalMemoryRegion lmr;
        public final Endpoint ep;

        Side(InterfaceAdapter ia, Arena arena, int privileges) {
            this.ia = ia;
            this.pz = ia.createProtectionZone();
            this.recvEvd = ia.createEventDispatcher(64, null, EvdFlags.DTO);
            this.requestEvd = ia.createEventDispatcher(64, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
            this.connectEvd = ia.createEventDispatcher(8, null, EvdFlags.CONNECTION);
            this.buffer = arena.allocate(BUFFER_SIZE, 64);
            this.lmr = ia.registerMemory(buffer, pz, privileges);
            this.ep = ia.createEndpoint(pz, recvEvd, requestEvd, connectEvd, null);
        }

        /** @return a segment of this side's buffer */
        public LmrTriplet segment(long offset, long length) {
            return LmrTriplet.of(lmr, offset, length);
        }

        /** @return a remote reference to a part of this side's buffer */
        public RmrTriplet remote(long offset, long length) {
            return RmrTriplet.of(lmr, offset, length);
        }
    }

    public final Side active;
    public final Side passive;
    private final Arena arena;
    private final List<InterfaceAdapter> opened;

    private Link(Side active, Side passive, Arena arena, List<InterfaceAdapter> opened) {
        this.active = active;
        this.passive = passive;
        this.arena = arena;
        this.opened = opened;
    }

    /** Whether the link owns its IAs and memory (else the memory goes with the garbage collector). */
    private boolean owning() {
        return !opened.isEmpty();
    }

    /**
     * Opens two instances of an IA through the registry and connects an Endpoint of each.
     *
     * @param registry the registry
     * @param iaName the IA
     * @param privileges the privileges of both buffers
     * @return the connected link
     */
    public static Link open(DatRegistry registry, String iaName, int privileges) {
        List<InterfaceAdapter> opened = new ArrayList<>();
        Arena arena = Arena.ofShared();
        try {
            InterfaceAdapter a = registry.openIa(iaName);
            opened.add(a);
            InterfaceAdapter b = registry.openIa(iaName);
            opened.add(b);
            Link link = new Link(new Side(a, arena, privileges), new Side(b, arena, privileges), arena, opened);
            link.connect();
            return link;
        } catch (RuntimeException | Error e) {
            opened.forEach(InterfaceAdapter::close);
            arena.close();
            throw e;
        }
    }

    /**
     * Builds both sides on one IA the caller owns and connects them (the IA talks to itself).
     *
     * @param ia the IA
     * @param privileges the privileges of both buffers
     * @return the connected link; its memory lives as long as the link is reachable, and closing
     *     it does nothing (close the IA)
     */
    public static Link onOneIa(InterfaceAdapter ia, int privileges) {
        Arena arena = Arena.ofAuto();
        Link link = new Link(new Side(ia, arena, privileges), new Side(ia, arena, privileges), arena, List.of());
        link.connect();
        return link;
    }

    private void connect() {
        EventDispatcher crEvd = passive.ia.createEventDispatcher(8, null, EvdFlags.CR);
        PublicServicePoint psp = passive.ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        InetSocketAddress address = passive.ia.query().iaAttributes().iaAddress();
        active.ep.connect(address, psp.connQual(), EVENT_TIMEOUT_MICROS, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
        DatEvent request = expect(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the connection request");
        ConnectionRequest cr = request.connectionRequest();
        cr.accept(passive.ep, null);
        expect(passive.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the passive side");
        expect(active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the active side");
        psp.close();
        crEvd.close();
    }

    /**
     * Waits for the next event of an EVD and checks its number.
     *
     * @return a new event holding it
     */
    public static DatEvent expect(EventDispatcher evd, int eventNumber, String what) {
        DatEvent event = new DatEvent();
        int status = evd.await(EVENT_TIMEOUT_MICROS, 1, event);
        assertThat(DatReturn.describe(status)).as("waiting for %s", what).isEqualTo(DatReturn.describe(DatReturn.SUCCESS));
        assertThat(EventNumber.name(event.eventNumber())).as("the event of %s: %s", what, event)
                .isEqualTo(EventNumber.name(eventNumber));
        return event;
    }

    /** The privileges of an ordinary buffer: local and remote read and write. */
    public static int readWrite() {
        return MemPrivileges.ALL;
    }

    @Override
    public void close() {
        if (!owning()) {
            return;
        }
        try {
            for (InterfaceAdapter ia : opened) {
                ia.close();
            }
        } finally {
            arena.close();
        }
    }
}
