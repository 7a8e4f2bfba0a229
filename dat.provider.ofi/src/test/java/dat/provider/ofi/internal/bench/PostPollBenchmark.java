package dat.provider.ofi.internal.bench;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.RmrTriplet;
import dat.api.spi.DatIaFactory;
import dat.api.spi.IaOpenRequest;
import dat.provider.ofi.internal.LoopbackPair;
import dat.provider.ofi.internal.OfiRuntime;
import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Post + poll through the binding, one operation at a time on a connected pair of
 * {@code ofi-tcp-lo} Endpoints (libfabric's tcp provider over loopback): an RDMA write of 64 bytes
 * reaped by {@code dat_evd_dequeue}, and a 64-byte send reaped with its receive. Each operation
 * counts what its thread allocated ({@code benchmarkThreadBytes}, summed over the iteration), which
 * must be 0: {@code -prof gc}'s {@code gc.alloc.rate.norm} counts every thread of the JVM (JMH's
 * own, the IA's event thread), so it shows a floor that is not the data path's.
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp test-classes:classes:dat.api:jmh jars \
 *     org.openjdk.jmh.Main dat.provider.ofi.internal.bench.PostPollBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC"})
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 3, time = 3)
public class PostPollBenchmark {

    private OfiRuntime runtime;
    private InterfaceAdapter ia;
    private Arena arena;
    private Endpoint client;
    private Endpoint server;
    private EventDispatcher clientEvd;
    private EventDispatcher serverEvd;
    private LmrTriplet[] local;
    private LmrTriplet[] receive;
    private RmrTriplet remote;
    private final DatEvent event = new DatEvent();
    private long cookie;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    /** What the benchmark thread allocated while it posted and polled, reported beside the time. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Allocation {
        /** Bytes the benchmark thread allocated in the iteration's operations: 0 when the data path allocates nothing. */
        public long benchmarkThreadBytes;

        /** Counts per iteration. */
        @Setup(Level.Iteration)
        public void reset() {
            benchmarkThreadBytes = 0;
        }
    }

    @Setup(Level.Trial)
    public void open() {
        runtime = OfiRuntime.start();
        DatIaFactory factory = runtime.factories().stream().filter(f -> "ofi-tcp-lo".equals(f.properties().get("dat.ia.name")))
                .findFirst().orElseThrow(() -> new IllegalStateException("no ofi-tcp-lo: " + runtime.unavailableReason()));
        ia = factory.openIa(new IaOpenRequest("ofi-tcp-lo", 8, null, ""));
        arena = Arena.ofShared();
        LoopbackPair pair = LoopbackPair.connect(ia);
        client = pair.client();
        server = pair.server();
        clientEvd = pair.clientEvd();
        serverEvd = pair.serverEvd();
        LocalMemoryRegion lmr = ia.registerMemory(arena.allocate(8192, 4096), pair.pz(), MemPrivileges.ALL);
        local = new LmrTriplet[] {LmrTriplet.of(lmr, 0, 64)};
        receive = new LmrTriplet[] {LmrTriplet.of(lmr, 128, 64)};
        remote = RmrTriplet.of(lmr, 4096, 64);
    }

    @TearDown(Level.Trial)
    public void close() {
        ia.close();
        arena.close();
        runtime.close();
    }

    private void reap(EventDispatcher evd) {
        while (evd.dequeue(event) != DatReturn.SUCCESS) {
            Thread.onSpinWait(); // the completion is microseconds away
        }
    }

    @Benchmark
    public long rdmaWrite64PostPoll(Allocation allocation) {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        client.postRdmaWrite(1, local, ++cookie, remote, 0);
        reap(clientEvd);
        allocation.benchmarkThreadBytes += THREADS.getCurrentThreadAllocatedBytes() - before;
        return event.userCookie();
    }

    @Benchmark
    public long send64PostPollBothEnds(Allocation allocation) {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        server.postRecv(1, receive, ++cookie, 0);
        client.postSend(1, local, cookie, 0);
        reap(clientEvd);
        reap(serverEvd);
        allocation.benchmarkThreadBytes += THREADS.getCurrentThreadAllocatedBytes() - before;
        return event.transferredLength();
    }
}
