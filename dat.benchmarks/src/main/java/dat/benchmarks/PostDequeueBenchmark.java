package dat.benchmarks;

import dat.api.DatEvent;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
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
 * Figure 3: the allocation of the data path, with {@code -prof gc}: a receive, a send and the
 * dequeue of both completions; and an RDMA write and the dequeue of its completion; over each of
 * the sim provider's wires ({@link SimRig.Wire}: the in-JVM fabric, TCP over loopback, and shared
 * memory, the last two between two provider instances in the benchmark's JVM). Goal: 0 B/op.
 *
 * <p>The profiler counts what every thread of the JVM allocated: the providers' own threads, JMH's
 * (its main thread, a few KB per second), and in the last iteration of a trial the trial's
 * teardown, which closes the rig. So each operation also counts what its own thread allocated
 * ({@code benchmarkThreadBytes}, summed over the iteration): the data path's allocation on the
 * posting and polling thread, 0 when it allocates nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PostDequeueBenchmark {

    @Param({"JVM", "TCP", "SHM"})
    public SimRig.Wire wire;

    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** What the benchmark thread allocated while it posted and dequeued, reported beside the time. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Allocation {
        /** Bytes the benchmark thread allocated in the iteration's operations. */
        public long benchmarkThreadBytes;

        /** Counts per iteration. */
        @Setup(Level.Iteration)
        public void reset() {
            benchmarkThreadBytes = 0;
        }
    }

    SimRig rig;
    final DatEvent event = new DatEvent();
    final LmrTriplet[] send = {new LmrTriplet()};
    final LmrTriplet[] recv = {new LmrTriplet()};
    final RmrTriplet remote = new RmrTriplet();

    @Setup
    public void setup() {
        rig = new SimRig(wire, 4096, null, true);
        send[0].set(rig.a.lmr, 0, 64);
        recv[0].set(rig.b.lmr, 0, 64);
        remote.set(rig.b.lmr, 1024, 64);
    }

    @TearDown
    public void tearDown() {
        rig.close();
    }

    @Benchmark
    public int sendRecvPostAndDequeue(Allocation allocation) {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        int rc = rig.b.ep.postRecv(1, recv, 1, 0) | rig.a.ep.postSend(1, send, 2, 0);
        SimRig.check(rc);
        SimRig.reap(rig.a.reqEvd, event);
        SimRig.reap(rig.b.recvEvd, event);
        allocation.benchmarkThreadBytes += THREADS.getCurrentThreadAllocatedBytes() - before;
        return event.status();
    }

    @Benchmark
    public int rdmaWritePostAndDequeue(Allocation allocation) {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        int rc = rig.a.ep.postRdmaWrite(1, send, 3, remote, 0);
        SimRig.check(rc);
        SimRig.reap(rig.a.reqEvd, event);
        allocation.benchmarkThreadBytes += THREADS.getCurrentThreadAllocatedBytes() - before;
        return event.status();
    }
}
