package dat.benchmarks;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Figure 1: an RDMA write of 1 MiB between two Endpoints in one JVM (post, then busy-poll the
 * completion), against {@code MemorySegment.copy} of the same 1 MiB between the same buffers.
 * Goal: the write reaches at least 0.85 of the copy's bandwidth.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RdmaWriteBenchmark {

    static final int SIZE = 1 << 20;

    SimRig rig;
    final DatEvent event = new DatEvent();
    final LmrTriplet[] local = {new LmrTriplet()};
    final RmrTriplet remote = new RmrTriplet();
    MemorySegment src;
    MemorySegment dst;

    @Setup
    public void setup() {
        rig = new SimRig(SIZE, null, true);
        local[0].set(rig.a.lmr, 0, SIZE);
        remote.set(rig.b.lmr, 0, SIZE);
        src = rig.a.mem;
        dst = rig.b.mem;
        src.fill((byte) 7);
    }

    @TearDown
    public void tearDown() {
        rig.close();
    }

    /** The baseline: one copy of 1 MiB. */
    @Benchmark
    public void memorySegmentCopy1MiB() {
        MemorySegment.copy(src, 0, dst, 0, SIZE);
    }

    /** dat_ep_post_rdma_write of 1 MiB and its completion. */
    @Benchmark
    public int rdmaWrite1MiB() {
        rig.a.ep.postRdmaWrite(1, local, 1, remote, 0);
        SimRig.reap(rig.a.reqEvd, event);
        if (event.status() != DtoCompletionStatus.SUCCESS) {
            throw new IllegalStateException(event.toString());
        }
        return event.status();
    }
}
