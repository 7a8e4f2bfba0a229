package dat.benchmarks;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

/**
 * Figure 2: a send/recv ping-pong of 8 bytes between two Endpoints driven by two threads that
 * busy-poll their receive EVDs, against a raw two-thread spin ping-pong through one
 * {@code AtomicLong} (acquire loads and release stores: no fence, as {@code dat perf}'s spin
 * baseline). The {@code ping} method's time is one round trip. Goal: at most 2x the raw
 * round trip. Each benchmark thread pins itself (ping to CPU 0, pong to CPU 1) with
 * {@code sched_setaffinity} through {@code java.lang.foreign}; busy-spinning needs two free cores.
 *
 * <p>Exactly one message is in flight: a ping that measurement interrupted is awaited by the next
 * call, and a pong always answers the ping it took.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class PingPongBenchmark {

    /**
     * Per benchmark thread: pins it once, the ping side to CPU 0, the pong side to CPU 1; and what
     * that thread alone writes (its event, the ping's outstanding flag), created on that thread, so
     * that neither thread's writes share a cache line with what the other reads.
     */
    @State(Scope.Thread)
    public static class Pin {
        boolean done;
        final DatEvent event = new DatEvent();
        /** The ping side: a ping is in flight (one that measurement interrupted is awaited next). */
        boolean awaitingReply;

        void once(int cpu) {
            if (!done) {
                done = true;
                System.out.println(Thread.currentThread().getName() + (Affinity.pin(cpu) ? " pinned to CPU " : " NOT pinned to CPU ") + cpu);
            }
        }
    }

    SimRig rig;
    PingPongBuffers io;
    final AtomicLong raw = new AtomicLong();
    long rawSeq;

    @Setup
    public void setup() {
        rig = new SimRig(4096, PingPongBuffers.ATTRIBUTES, true);
        io = new PingPongBuffers(rig, PingPongBuffers.DTOS);
    }

    @TearDown
    public void tearDown() {
        rig.close();
    }

    @Benchmark
    @Group("sim")
    @GroupThreads(1)
    public void ping(Control control, Pin pin) {
        pin.once(0);
        if (!pin.awaitingReply) {
            SimRig.check(rig.a.ep.postSend(1, io.pingIov, 1, CompletionFlags.SUPPRESS));
            pin.awaitingReply = true;
        }
        while (rig.a.recvEvd.dequeue(pin.event) != DatReturn.SUCCESS) {
            if (control.stopMeasurement) {
                return;
            }
            Thread.onSpinWait();
        }
        pin.awaitingReply = false;
        SimRig.check(rig.a.ep.postRecv(1, io.pingRecv, 2, 0));
    }

    @Benchmark
    @Group("sim")
    @GroupThreads(1)
    public void pong(Control control, Pin pin) {
        pin.once(1);
        while (rig.b.recvEvd.dequeue(pin.event) != DatReturn.SUCCESS) {
            if (control.stopMeasurement) {
                return;
            }
            Thread.onSpinWait();
        }
        SimRig.check(rig.b.ep.postRecv(1, io.pongRecv, 3, 0));
        SimRig.check(rig.b.ep.postSend(1, io.pongIov, 4, CompletionFlags.SUPPRESS));
    }

    /** The baseline's ping: publish an odd number, wait for the echo (the next even one). */
    @Benchmark
    @Group("raw")
    @GroupThreads(1)
    public void rawPing(Control control, Pin pin) {
        pin.once(0);
        long v = raw.getAcquire();
        if ((v & 1) == 0) {
            raw.setRelease(v + 1);
            v++;
        }
        while (raw.getAcquire() == v) {
            if (control.stopMeasurement) {
                return;
            }
            Thread.onSpinWait();
        }
    }

    @Benchmark
    @Group("raw")
    @GroupThreads(1)
    public void rawPong(Control control, Pin pin) {
        pin.once(1);
        long v;
        while (((v = raw.getAcquire()) & 1) == 0) {
            if (control.stopMeasurement) {
                return;
            }
            Thread.onSpinWait();
        }
        raw.setRelease(v + 1);
    }
}
