package dat.provider.verbs.internal.bench;

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
import dat.provider.verbs.internal.BenchSupport;
import dat.provider.verbs.internal.VerbsRuntime;
import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
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
 * Post + poll through the binding, one operation at a time on a connected RC QP of the first RDMA
 * device: an RDMA write of 64 bytes reaped by {@code dat_evd_dequeue}, and a 64-byte send reaped
 * with its receive. Run with {@code -prof gc}: {@code gc.alloc.rate.norm} is the bytes allocated
 * per operation, which must be 0. Needs an RDMA device (CI runs it in the soft-RoCE VM):
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp test-classes:classes:dat.api:jmh jars \
 *     org.openjdk.jmh.Main PostPollBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC"})
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 3, time = 3)
public class PostPollBenchmark {

    private VerbsRuntime runtime;
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

    @Setup(Level.Trial)
    public void open() {
        runtime = VerbsRuntime.start();
        if (runtime.factories().isEmpty()) {
            throw new IllegalStateException("no RDMA device: " + runtime.unavailableReason());
        }
        DatIaFactory factory = runtime.factories().getFirst();
        ia = factory.openIa(new IaOpenRequest((String) factory.properties().get("dat.ia.name"), 8, null, ""));
        arena = Arena.ofShared();
        Endpoint[] pair = BenchSupport.connect(ia);
        client = pair[0];
        server = pair[1];
        clientEvd = client.query().requestEvd();
        serverEvd = server.query().recvEvd();
        LocalMemoryRegion lmr = ia.registerMemory(arena.allocate(8192, 4096), client.query().pz(), MemPrivileges.ALL);
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
            // spin: the completion is microseconds away
        }
    }

    @Benchmark
    public long rdmaWrite64PostPoll() {
        client.postRdmaWrite(1, local, ++cookie, remote, 0);
        reap(clientEvd);
        return event.userCookie();
    }

    @Benchmark
    public long send64PostPollBothEnds() {
        server.postRecv(1, receive, ++cookie, 0);
        client.postSend(1, local, cookie, 0);
        reap(clientEvd);
        reap(serverEvd);
        return event.transferredLength();
    }
}
