package dat.provider.verbs.internal;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EventDispatcher;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.RmrTriplet;
import dat.api.spi.DatIaFactory;
import dat.api.spi.IaOpenRequest;
import java.lang.foreign.Arena;
import java.util.Arrays;

/**
 * A small latency/bandwidth harness for the verbs provider, the Java side of the comparison with
 * the C references run in the same VM ({@code dapltest -T P ... RW 65536} for RDMA-write
 * bandwidth, {@code ibv_rc_pingpong} for send/recv round trips). Both ends are Endpoints of one IA
 * connected through rdma_cm, each polled by its own thread, like the C tools' two processes.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp ... dat.provider.verbs.internal.VerbsPerf [bw|lat|all] [iterations]
 * </pre>
 * Prints {@code perf <name> <value> <unit>} lines.
 */
public final class VerbsPerf {

    private VerbsPerf() {
    }

    private static final int SEGMENT = 65536;
    private static final int PIPELINE = 8;
    private static final int WARMUP_ROUND_TRIPS = 20_000;

    public static void main(String[] args) throws Exception {
        String what = args.length > 0 ? args[0] : "all";
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        try (VerbsRuntime runtime = VerbsRuntime.start()) {
            if (runtime.factories().isEmpty()) {
                System.out.println("perf skipped: " + runtime.unavailableReason());
                return;
            }
            DatIaFactory factory = runtime.factories().getFirst();
            String name = (String) factory.properties().get("dat.ia.name");
            try (InterfaceAdapter ia = factory.openIa(new IaOpenRequest(name, 8, null, ""));
                    Arena arena = Arena.ofShared()) {
                System.out.println("perf ia " + name + " " + ia.query().iaAttributes().iaAddress());
                if (what.equals("bw") || what.equals("all")) {
                    bandwidth(ia, arena, iterations);
                }
                if (what.equals("lat") || what.equals("all")) {
                    latency(ia, arena, iterations);
                }
            }
        }
    }

    private static void check(int rc, String what) {
        if (rc != DatReturn.SUCCESS) {
            throw new IllegalStateException(what + ": " + DatReturn.describe(rc));
        }
    }

    private static void reap(EventDispatcher evd, DatEvent event) {
        int rc;
        while ((rc = evd.dequeue(event)) != DatReturn.SUCCESS) {
            if (DatReturn.typeOf(rc) != DatReturn.QUEUE_EMPTY) {
                throw new IllegalStateException(DatReturn.describe(rc));
            }
            // no Thread.onSpinWait(): under QEMU/TCG the PAUSE it emits leaves the translated block
        }
        if (event.status() != DtoCompletionStatus.SUCCESS) {
            throw new IllegalStateException("DTO failed: " + event);
        }
    }

    /** RDMA write of 64 KiB segments, 8 in flight (dapltest -T P -p 8 RW 65536 1), polled. */
    static void bandwidth(InterfaceAdapter ia, Arena arena, int iterations) {
        LoopbackPair pair = LoopbackPair.connect(ia);
        LocalMemoryRegion source = ia.registerMemory(arena.allocate(SEGMENT, 4096), pair.pz(),
                MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        LocalMemoryRegion target = ia.registerMemory(arena.allocate((long) SEGMENT * PIPELINE, 4096), pair.pz(),
                MemPrivileges.ALL);
        LmrTriplet[] iov = {LmrTriplet.of(source, 0, SEGMENT)};
        RmrTriplet remote = new RmrTriplet();
        DatEvent event = new DatEvent();
        double[] runs = new double[3];
        for (int run = -1; run < runs.length; run++) { // run -1 warms up
            long start = System.nanoTime();
            int posted = 0;
            int done = 0;
            while (done < iterations) {
                while (posted < iterations && posted - done < PIPELINE) {
                    remote.set(target, (long) (posted % PIPELINE) * SEGMENT, SEGMENT);
                    check(pair.client().postRdmaWrite(1, iov, posted, remote, 0), "post RDMA write");
                    posted++;
                }
                reap(pair.clientEvd(), event);
                done++;
            }
            long nanos = System.nanoTime() - start;
            if (run >= 0) {
                runs[run] = (double) iterations * SEGMENT / (nanos / 1000.0); // bytes per microsecond = MB/s
            }
        }
        Arrays.sort(runs);
        System.out.printf("perf rdma_write_bw_64KiB_p8 %.1f MB/s (median of 3 runs of %d, min %.1f max %.1f)%n", runs[1],
                iterations, runs[0], runs[2]);
        System.out.printf("perf rdma_write_ops_64KiB_p8 %.0f ops/s%n", runs[1] * 1e6 / SEGMENT);
    }

    /**
     * Send/receive ping-pong of 64-byte messages, each side polling on its own thread
     * (ibv_rc_pingpong -s 64): receives are posted ahead, as ibv_rc_pingpong does, and each side
     * re-posts one after it sent, so that no post_recv sits between a receive and the next send.
     */
    static void latency(InterfaceAdapter ia, Arena arena, int iterations) throws InterruptedException {
        LoopbackPair pair = LoopbackPair.connect(ia);
        int size = 64;
        int ahead = 16;
        LocalMemoryRegion clientBuf = ia.registerMemory(arena.allocate(2L * size, 64), pair.pz(),
                MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        LocalMemoryRegion serverBuf = ia.registerMemory(arena.allocate(2L * size, 64), pair.pz(),
                MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        // five timed windows after the warm-up (enough for C2 to compile the path, also under
        // emulation): the best of their means is compared with the best of five C runs, as
        // emulation's hiccups only ever add time
        int windows = 5;
        int total = windows * iterations + WARMUP_ROUND_TRIPS;
        LmrTriplet[] serverRecv = {LmrTriplet.of(serverBuf, 0, size)};
        for (int i = 0; i < ahead; i++) {
            check(pair.server().postRecv(1, serverRecv, 0, 0), "server post recv");
        }
        Thread server = Thread.ofPlatform().name("perf-server").start(() -> {
            LmrTriplet[] send = {LmrTriplet.of(serverBuf, size, size)};
            DatEvent event = new DatEvent();
            for (int i = 0; i < total; i++) {
                awaitReceive(pair.serverEvd(), event);
                check(pair.server().postSend(1, send, 1, 0), "server post send");
                check(pair.server().postRecv(1, serverRecv, 0, 0), "server post recv");
            }
        });
        LmrTriplet[] recv = {LmrTriplet.of(clientBuf, 0, size)};
        LmrTriplet[] send = {LmrTriplet.of(clientBuf, size, size)};
        DatEvent event = new DatEvent();
        for (int i = 0; i < ahead; i++) {
            check(pair.client().postRecv(1, recv, 0, 0), "client post recv");
        }
        double[] means = new double[windows];
        long start = 0;
        for (int i = 0; i < total; i++) {
            if (i >= WARMUP_ROUND_TRIPS && (i - WARMUP_ROUND_TRIPS) % iterations == 0) {
                long now = System.nanoTime();
                if (i > WARMUP_ROUND_TRIPS) {
                    means[(i - WARMUP_ROUND_TRIPS) / iterations - 1] = (now - start) / 1000.0 / iterations;
                }
                start = now;
            }
            check(pair.client().postSend(1, send, 1, 0), "client post send");
            check(pair.client().postRecv(1, recv, 0, 0), "client post recv");
            awaitReceive(pair.clientEvd(), event);
        }
        means[windows - 1] = (System.nanoTime() - start) / 1000.0 / iterations;
        server.join();
        // each mean over a timed window, as ibv_rc_pingpong's usec/iter
        double best = Arrays.stream(means).min().orElseThrow();
        System.out.printf("perf send_recv_rtt_64B %.2f us (best of %d means of %d round trips after %d to warm up: %s)%n", best,
                windows, iterations, WARMUP_ROUND_TRIPS, Arrays.toString(Arrays.stream(means).map(m -> Math.round(m * 100) / 100.0)
                        .toArray()));
    }

    /** Reaps completions until a receive arrived (send completions are reaped on the way). */
    private static void awaitReceive(EventDispatcher evd, DatEvent event) {
        for (;;) {
            reap(evd, event);
            if (event.userCookie() == 0) {
                return;
            }
        }
    }
}
