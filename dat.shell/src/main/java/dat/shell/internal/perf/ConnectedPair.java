package dat.shell.internal.perf;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.ConnectFlags;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.IaAttributes;
import dat.api.InterfaceAdapter;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.ProviderAttributes;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.Qos;
import dat.shell.internal.Cli;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Two connected Endpoints of one IA, each with its own EVDs and registered buffer, as the
 * benchmarks need them: side A is the active side, side B accepted through a PSP. Everything is
 * closed, in reverse order, by {@link #close()}.
 */
final class ConnectedPair implements AutoCloseable {

    static final long TIMEOUT_MICROS = 10_000_000;

    final InterfaceAdapter ia;
    final IaAttributes iaAttributes;
    final ProviderAttributes providerAttributes;
    final InetSocketAddress address;
    final ProtectionZone pz;
    final EventDispatcher recvA;
    final EventDispatcher requestA;
    final EventDispatcher recvB;
    final EventDispatcher requestB;
    final EventDispatcher connA;
    final EventDispatcher connB;
    final MemorySegment memoryA;
    final MemorySegment memoryB;
    final LocalMemoryRegion lmrA;
    final LocalMemoryRegion lmrB;
    final EpAttributes attributes;
    final Endpoint epA;
    final Endpoint epB;
    final PublicServicePoint psp;
    final int depth;
    final boolean suppressSupported;
    /** Receives an Endpoint holds: twice the depth, so that a receiver reposting behind a sender rarely throttles it. */
    final int recvDepth;

    private final Arena arena = Arena.ofShared();
    private final Deque<AutoCloseable> closeables = new ArrayDeque<>();

    ConnectedPair(DatRegistry registry, String iaName, long bufferSize, int depth) {
        boolean done = false;
        try {
            ia = keep(Cli.openIa(registry, iaName));
            var query = ia.query();
            iaAttributes = query.iaAttributes();
            providerAttributes = query.providerAttributes();
            address = iaAttributes.iaAddress();
            suppressSupported = (providerAttributes.completionFlagsSupported() & CompletionFlags.SUPPRESS) != 0;
            this.depth = Math.max(1, Math.min(depth, iaAttributes.maxDtoPerEp()));
            this.recvDepth = Math.max(1, Math.min(2 * this.depth, iaAttributes.maxDtoPerEp()));
            int qlen = Math.min(iaAttributes.maxEvdQlen(), 4 * this.depth + 16);
            pz = keep(ia.createProtectionZone());
            recvA = keep(ia.createEventDispatcher(qlen, null, EvdFlags.DTO));
            requestA = keep(ia.createEventDispatcher(qlen, null, EvdFlags.DTO | EvdFlags.RMR_BIND));
            recvB = keep(ia.createEventDispatcher(qlen, null, EvdFlags.DTO));
            requestB = keep(ia.createEventDispatcher(qlen, null, EvdFlags.DTO | EvdFlags.RMR_BIND));
            connA = keep(ia.createEventDispatcher(16, null, EvdFlags.CONNECTION));
            connB = keep(ia.createEventDispatcher(16, null, EvdFlags.CONNECTION | EvdFlags.CR));
            long size = Math.min(bufferSize, iaAttributes.maxLmrBlockSize());
            memoryA = arena.allocate(size, DatConstants.OPTIMAL_ALIGNMENT);
            memoryB = arena.allocate(size, DatConstants.OPTIMAL_ALIGNMENT);
            lmrA = keep(ia.registerMemory(memoryA, pz, MemPrivileges.ALL));
            lmrB = keep(ia.registerMemory(memoryB, pz, MemPrivileges.ALL));
            attributes = EpAttributes.builder()
                    .maxMessageSize(Math.min(size, iaAttributes.maxMessageSize()))
                    .maxRdmaSize(Math.min(size, iaAttributes.maxRdmaSize()))
                    .maxRecvDtos(recvDepth).maxRequestDtos(this.depth)
                    .maxRecvIov(1).maxRequestIov(1).maxRdmaReadIov(1).maxRdmaWriteIov(1)
                    .maxRdmaReadIn(Math.min(this.depth, iaAttributes.maxRdmaReadPerEpIn()))
                    .maxRdmaReadOut(Math.min(this.depth, iaAttributes.maxRdmaReadPerEpOut()))
                    .build();
            epA = keep(ia.createEndpoint(pz, recvA, requestA, connA, attributes));
            epB = keep(ia.createEndpoint(pz, recvB, requestB, connB, attributes));
            psp = keep(ia.createPublicServicePointAny(connB, PspFlag.CONSUMER));
            connect(epA, epB);
            done = true;
        } finally {
            if (!done) {
                close();
            }
        }
    }

    private <T extends AutoCloseable> T keep(T closeable) {
        closeables.push(closeable);
        return closeable;
    }

    /** Connects {@code active} to the PSP and accepts on {@code passive}; both must be unconnected. */
    void connect(Endpoint active, Endpoint passive) {
        DatEvent event = new DatEvent();
        active.connect(address, psp.connQual(), TIMEOUT_MICROS, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
        expect(connB, event, EventNumber.CONNECTION_REQUEST_EVENT);
        event.connectionRequest().accept(passive, null);
        expect(connB, event, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        expect(connA, event, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    /** Disconnects an active Endpoint and waits for both ends to see it. */
    void disconnect(Endpoint active) {
        DatEvent event = new DatEvent();
        active.disconnect(CloseFlag.ABRUPT);
        expect(connA, event, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        expect(connB, event, EventNumber.CONNECTION_EVENT_DISCONNECTED);
    }

    static void expect(EventDispatcher evd, DatEvent event, int eventNumber) {
        int code = evd.await(TIMEOUT_MICROS, 1, event);
        if (code != DatReturn.SUCCESS) {
            throw new DatException(code, "waiting for " + EventNumber.name(eventNumber));
        }
        if (event.eventNumber() != eventNumber) {
            throw new IllegalStateException("expected " + EventNumber.name(eventNumber) + " but got " + event);
        }
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        while (!closeables.isEmpty()) {
            try {
                closeables.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("closing the benchmark's DAT objects", e);
                }
            }
        }
        arena.close();
        if (failure != null) {
            throw failure;
        }
    }
}
