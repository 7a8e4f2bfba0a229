package dat.tests.example;

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
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.Qos;
import dat.api.RmrTriplet;
import dat.registry.DatRegistries;
import dat.registry.StandaloneRegistry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;

/**
 * The complete consumer of docs/api-mapping.md: open an IA by name, create PZ, EVDs, LMRs and two
 * Endpoints, connect one to a PSP the other side listens on, send a message and RDMA-write into
 * the peer's memory, reap the completions, close everything. Both ends live in this one method so
 * that the example runs as it is (ConsumerExampleTest runs it in OSGi against every provider; on a
 * plain class path, {@code java -cp dat.api.jar:dat.registry.jar:dat.provider.sim.jar:. ConsumerExample}
 * runs {@code main}); in an application they are two processes or hosts.
 */
public final class ConsumerExample {

    private ConsumerExample() {
    }

    /**
     * Runs the exchange on a plain class path, with the providers {@code ServiceLoader} finds there,
     * and prints what the passive side received: {@code hello written-rdma}.
     *
     * @param args the IA to open, {@code sim0} when none is given
     */
    public static void main(String[] args) {
        try (StandaloneRegistry registry = DatRegistries.create()) {
            System.out.println(run(registry, args.length > 0 ? args[0] : "sim0"));
        }
    }

    /**
     * Runs the exchange.
     *
     * @param registry the DAT registry (an OSGi service, or {@code DatRegistries} outside OSGi)
     * @param iaName the IA to open, e.g. "sim0"
     * @return the bytes the passive side found in its memory after the RDMA write
     */
    public static String run(DatRegistry registry, String iaName) {
        EpAttributes attributes = EpAttributes.builder()
                .maxMessageSize(4096).maxRdmaSize(4096)
                .maxRecvDtos(8).maxRequestDtos(8).maxRecvIov(1).maxRequestIov(1)
                .build();
        DatEvent event = new DatEvent();
        long timeout = 5_000_000; // 5 s, in microseconds
        // shared: registered memory is accessed from other threads than this one (the peer's,
        // the provider's), so a confined arena cannot be registered
        try (Arena arena = Arena.ofShared();
                InterfaceAdapter ia = registry.openIa(iaName);                  // dat_ia_open
                ProtectionZone pz = ia.createProtectionZone();                   // dat_pz_create
                EventDispatcher dtoEvd = ia.createEventDispatcher(32, null, EvdFlags.DTO);
                EventDispatcher connEvd = ia.createEventDispatcher(8, null, EvdFlags.CONNECTION | EvdFlags.CR)) {

            // Memory: two registered buffers, one per side (dat_lmr_create)
            MemorySegment activeBuffer = arena.allocate(4096, DatConstants.OPTIMAL_ALIGNMENT);
            MemorySegment passiveBuffer = arena.allocate(4096, DatConstants.OPTIMAL_ALIGNMENT);
            try (LocalMemoryRegion activeLmr = ia.registerMemory(activeBuffer, pz, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
                    LocalMemoryRegion passiveLmr = ia.registerMemory(passiveBuffer, pz,
                            MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_WRITE);
                    Endpoint active = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, attributes);   // dat_ep_create
                    Endpoint passive = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, attributes);
                    PublicServicePoint psp = ia.createPublicServicePointAny(connEvd, PspFlag.CONSUMER)) {

                // The passive side posts a receive before the connection exists (dat_ep_post_recv)
                LmrTriplet[] recvIov = {LmrTriplet.of(passiveLmr, 0, 64)};
                check(passive.postRecv(1, recvIov, 1, CompletionFlags.DEFAULT));

                // Connect to the PSP's connection qualifier on this IA's address (dat_ep_connect)
                InetSocketAddress address = ia.query().iaAttributes().iaAddress();
                active.connect(address, psp.connQual(), timeout, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
                expect(connEvd.await(timeout, 1, event), event, EventNumber.CONNECTION_REQUEST_EVENT);
                event.connectionRequest().accept(passive, null);                 // dat_cr_accept
                for (int established = 0; established < 2; ) {                  // both ends see ESTABLISHED
                    expect(connEvd.await(timeout, 1, event), event, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                    established++;
                }

                // Send 5 bytes (dat_ep_post_send), then RDMA-write 12 bytes at offset 100 of the
                // passive LMR, addressed by its RMR context (dat_ep_post_rdma_write)
                activeBuffer.setString(0, "hello", java.nio.charset.StandardCharsets.US_ASCII);
                LmrTriplet[] sendIov = {LmrTriplet.of(activeLmr, 0, 5)};
                check(active.postSend(1, sendIov, 2, CompletionFlags.DEFAULT));
                activeBuffer.setString(1000, "written-rdma", java.nio.charset.StandardCharsets.US_ASCII);
                LmrTriplet[] writeIov = {LmrTriplet.of(activeLmr, 1000, 12)};
                RmrTriplet target = RmrTriplet.of(passiveLmr, 100, 12);
                check(active.postRdmaWrite(1, writeIov, 3, target, CompletionFlags.DEFAULT));

                // Reap the three completions: the receive (cookie 1), the send (2), the write (3)
                long seen = 0;
                for (int i = 0; i < 3; i++) {
                    expect(dtoEvd.await(timeout, 1, event), event, EventNumber.DTO_COMPLETION_EVENT);
                    if (event.status() != DtoCompletionStatus.SUCCESS) {
                        throw new IllegalStateException("DTO " + event.userCookie() + " failed: " + event);
                    }
                    seen |= 1L << event.userCookie();
                }
                if (seen != 0b1110) {
                    throw new IllegalStateException("expected the completions of cookies 1, 2 and 3, got mask " + Long.toBinaryString(seen));
                }

                // Disconnect (dat_ep_disconnect); every object closes at the end of its try block
                active.disconnect(CloseFlag.ABRUPT);
                String received = passiveBuffer.getString(0, java.nio.charset.StandardCharsets.US_ASCII).substring(0, 5);
                byte[] written = passiveBuffer.asSlice(100, 12).toArray(ValueLayout.JAVA_BYTE);
                return received + " " + new String(written, java.nio.charset.StandardCharsets.US_ASCII);
            }
        }
    }

    /** A post or wait must succeed: its {@code DatReturn} code, else an exception that names it. */
    private static void check(int code) {
        if (code != DatReturn.SUCCESS) {
            throw new IllegalStateException("failed: " + DatReturn.describe(code));
        }
    }

    /**
     * A wait must succeed and deliver the event expected. Event numbers are {@code int} constants
     * of {@link EventNumber} (DAT's {@code DAT_EVENT_NUMBER}, which providers may extend), so they
     * compare with {@code ==}; {@link EventNumber#name(int)} names one.
     */
    private static void expect(int code, DatEvent event, int expectedEventNumber) {
        check(code);
        if (event.eventNumber() != expectedEventNumber) {
            throw new IllegalStateException("expected " + EventNumber.name(expectedEventNumber) + ", got " + event);
        }
    }
}
