package dat.benchmarks;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The work of the 8-byte send/recv ping-pong alone: one thread plays both ends, so no cache line
 * moves between threads, and each half round trip is what an echoing thread does between seeing a
 * message and publishing its answer (the send, then on the other end the dequeue of its receive
 * completion and the receive posted again). {@link PingPongBenchmark} times the same messages
 * between two threads, that work plus a line each way. The method's time is one round trip: two
 * half round trips. Over the in-JVM fabric and over the shared-memory wire ({@link SimRig.Wire};
 * over shared memory the polling consumer drives the rings, as a busy-polling consumer does).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class OneThreadPingPongBenchmark {

    @Param({"JVM", "SHM"})
    public SimRig.Wire wire;

    SimRig rig;
    final DatEvent event = new DatEvent();
    PingPongBuffers io;

    @Setup
    public void setup() {
        rig = new SimRig(wire, 4096, PingPongBuffers.ATTRIBUTES, true);
        io = new PingPongBuffers(rig, PingPongBuffers.DTOS / 2);
    }

    @TearDown
    public void tearDown() {
        rig.close();
    }

    @Benchmark
    public int roundTrip() {
        SimRig.check(rig.a.ep.postSend(1, io.pingIov, 1, CompletionFlags.SUPPRESS));
        SimRig.reap(rig.b.recvEvd, event);
        SimRig.check(rig.b.ep.postRecv(1, io.pongRecv, 2, 0));
        SimRig.check(rig.b.ep.postSend(1, io.pongIov, 3, CompletionFlags.SUPPRESS));
        SimRig.reap(rig.a.recvEvd, event);
        SimRig.check(rig.a.ep.postRecv(1, io.pingRecv, 4, 0));
        return event.status();
    }
}
