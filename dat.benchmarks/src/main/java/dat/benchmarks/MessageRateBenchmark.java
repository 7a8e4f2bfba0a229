package dat.benchmarks;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.EpAttributes;
import dat.api.LmrTriplet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Figure 4: the message rate of 64-byte sends with one signalled completion per 16 (the other 15
 * posted with {@link CompletionFlags#SUPPRESS}, DAT's way of saying "no completion event"). The
 * receiver posts its receives in the same thread; with {@code receiverEvents=false} its Endpoint
 * has no receive EVD (dat_ep_create(3DAT): not interested in receive completions), with
 * {@code true} it reaps all 16 receive completions too. Goal: at least 5 million messages per
 * second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MessageRateBenchmark {

    static final int BATCH = 16;

    @Param({"false", "true"})
    public boolean receiverEvents;

    SimRig rig;
    final DatEvent event = new DatEvent();
    final LmrTriplet[] send = {new LmrTriplet()};
    final LmrTriplet[] recv = {new LmrTriplet()};

    @Setup
    public void setup() {
        rig = new SimRig(4096, EpAttributes.builder().maxRecvDtos(64).maxRequestDtos(64).build(), receiverEvents);
        send[0].set(rig.a.lmr, 0, 64);
        recv[0].set(rig.b.lmr, 0, 64);
    }

    @TearDown
    public void tearDown() {
        rig.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int send64B() {
        int rc = 0;
        for (int i = 0; i < BATCH; i++) {
            rc |= rig.b.ep.postRecv(1, recv, i, 0);
        }
        for (int i = 0; i < BATCH - 1; i++) {
            rc |= rig.a.ep.postSend(1, send, i, CompletionFlags.SUPPRESS);
        }
        rc |= rig.a.ep.postSend(1, send, BATCH, 0);
        SimRig.check(rc);
        SimRig.reap(rig.a.reqEvd, event);
        if (receiverEvents) {
            for (int i = 0; i < BATCH; i++) {
                SimRig.reap(rig.b.recvEvd, event);
            }
        }
        return event.status();
    }
}
