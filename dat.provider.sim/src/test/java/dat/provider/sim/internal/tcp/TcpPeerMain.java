package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.ThreadLimit;
import dat.provider.sim.internal.core.*;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
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
import dat.api.spi.IaOpenRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The peer of {@link TcpCrossJvmTest}, run in a second JVM: one TCP IA on 127.0.0.1 (with the
 * {@code ia_params} given as the second argument, {@code tcp=127.0.0.1:0} without one), a PSP on the
 * qualifier given as the first argument, one registered MiB (remote read/write allowed), and an
 * echo service: every message received is sent back. It prints {@code READY <port> <rmrContext>
 * <registeredAddress>} when it listens, and ends when its connection ends or its parent closes
 * its standard input (so it never outlives the test).
 */
public final class TcpPeerMain {

    private static final int SLOTS = 16;
    private static final int SLOT_BYTES = 4096;

    private TcpPeerMain() {}

    public static void main(String[] args) throws Exception {
        Thread.ofPlatform().daemon().start(() -> {
            try {
                while (System.in.read() >= 0) {
                    // the parent holds the pipe open while it wants us
                }
            } catch (IOException e) {
                // the parent is gone
            }
            Runtime.getRuntime().halt(3);
        });
        long qual = Long.parseLong(args[0]);
        dat.provider.sim.internal.SimIaFactory factory = new dat.provider.sim.internal.SimIaFactory(new ProviderSettings(List.of("sim0"), ProviderSettings.defaults().limits(),
                "backoff", 1000, 49152, 16384));
        InterfaceAdapter ia = factory.openIa(new IaOpenRequest("peer", 64, null, args.length > 1 ? args[1] : "tcp=127.0.0.1:0"));
        ProtectionZone pz = ia.createProtectionZone();
        EventDispatcher recvEvd = ia.createEventDispatcher(256, null, EvdFlags.DTO);
        EventDispatcher reqEvd = ia.createEventDispatcher(256, null, EvdFlags.DTO);
        EventDispatcher connEvd = ia.createEventDispatcher(16, null, EvdFlags.CONNECTION);
        EventDispatcher crEvd = ia.createEventDispatcher(16, null, EvdFlags.CR);
        Endpoint ep = ia.createEndpoint(pz, recvEvd, reqEvd, connEvd, null);
        Arena arena = Arena.ofShared();
        MemorySegment mem = arena.allocate(1 << 20, 64);
        LocalMemoryRegion lmr = ia.registerMemory(mem, pz, MemPrivileges.ALL);
        ia.createPublicServicePoint(qual, crEvd, PspFlag.CONSUMER);
        for (int k = 0; k < SLOTS; k++) {
            ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, (long) k * SLOT_BYTES, SLOT_BYTES)}, k, 0);
        }
        System.out.println("READY " + ia.query().iaAttributes().iaAddress().getPort() + " " + lmr.rmrContext() + " "
                + lmr.registeredAddress());
        System.out.flush();
        DatEvent e = new DatEvent();
        if (crEvd.await(60_000_000, 1, e) != 0 || e.eventNumber() != EventNumber.CONNECTION_REQUEST_EVENT) {
            System.exit(1);
        }
        e.connectionRequest().accept(ep, null);
        for (;;) {
            if (recvEvd.await(600_000_000, 1, e) != 0 || e.status() != DtoCompletionStatus.SUCCESS) {
                break;
            }
            long slot = e.userCookie();
            long len = e.transferredLength();
            ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, slot * SLOT_BYTES, len)}, slot, 0);
            if (reqEvd.await(60_000_000, 1, e) != 0 || e.status() != DtoCompletionStatus.SUCCESS) {
                break;
            }
            ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, slot * SLOT_BYTES, SLOT_BYTES)}, slot, 0);
        }
        factory.shutdown();
        System.exit(0);
    }
}
