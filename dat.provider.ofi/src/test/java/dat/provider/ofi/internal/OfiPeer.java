package dat.provider.ofi.internal;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
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
import dat.api.spi.IaOpenRequest;
import dat.provider.ofi.internal.ffi.Fabric;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * The far side of {@link PeerKilledTest}, in a process of its own: opens {@code ofi-tcp-lo},
 * registers a buffer for remote writes, listens on a PSP, accepts one connection with the buffer's
 * RMR context, address and length in the accept's private data, prints {@code READY <qualifier>}
 * and then does nothing until it is killed (its IA's event thread keeps libfabric progressing, so
 * the RDMA writes land without this consumer).
 */
public final class OfiPeer {

    private OfiPeer() {
    }

    /** The bytes of the buffer the writes target. */
    static final int BUFFER = 1 << 20;

    public static void main(String[] args) throws InterruptedException {
        OfiRuntime runtime = OfiRuntime.start(Fabric.LIBFABRIC, Set.of("tcp"));
        DatIaFactory factory = runtime.factories().stream().filter(f -> "ofi-tcp-lo".equals(f.properties().get("dat.ia.name")))
                .findFirst().orElseThrow(() -> new IllegalStateException("no ofi-tcp-lo: " + runtime.unavailableReason()));
        InterfaceAdapter ia = factory.openIa(new IaOpenRequest("ofi-tcp-lo", 16, null, ""));
        ProtectionZone pz = ia.createProtectionZone();
        EventDispatcher dto = ia.createEventDispatcher(1024, null, EvdFlags.DTO);
        EventDispatcher events = ia.createEventDispatcher(16, null, EvdFlags.CR | EvdFlags.CONNECTION);
        LocalMemoryRegion lmr = ia.registerMemory(Arena.global().allocate(BUFFER, 4096), pz,
                MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_WRITE);
        PublicServicePoint psp = ia.createPublicServicePointAny(events, PspFlag.CONSUMER);
        Endpoint ep = ia.createEndpoint(pz, dto, dto, events, null);
        System.out.println("READY " + psp.connQual());
        System.out.flush();
        DatEvent event = new DatEvent();
        while (true) {
            int rc = events.await(60_000_000L, 1, event);
            if (rc == DatReturn.SUCCESS && event.eventNumber() == EventNumber.CONNECTION_REQUEST_EVENT) {
                ByteBuffer triplet = ByteBuffer.allocate(16).putInt(lmr.rmrContext()).putLong(lmr.registeredAddress()).putInt(BUFFER);
                event.connectionRequest().accept(ep, triplet.array());
            }
        }
    }

    /** The RMR context, address and length an accept of this peer carries. */
    record Target(int rmrContext, long address, int length) {
        static Target of(byte[] privateData) {
            ByteBuffer buffer = ByteBuffer.wrap(privateData);
            return new Target(buffer.getInt(), buffer.getLong(), buffer.getInt());
        }
    }
}
