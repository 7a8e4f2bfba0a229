package dat.benchmarks;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.LmrTriplet;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import java.net.InetSocketAddress;
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
 * Short connections on EVDs that all connections share, as a server's: each operation creates an
 * Endpoint on each side, connects, accepts, sends {@link #MESSAGES} messages of 8 B, disconnects
 * and frees both. With {@code qlen} the length of the shared EVDs: what a connection costs should
 * not grow with it (a free lets go of what the EVD's records hold of the Endpoint, and looks only at
 * the records written since the Endpoint's binding). The figure is the ratio of the two.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ConnectionChurnBenchmark {

    static final int MESSAGES = 10;
    private static final int QUALIFIER = 4712;
    private static final long TIMEOUT_MICROS = 5_000_000;
    private static final EpAttributes ATTRIBUTES = EpAttributes.builder().maxRecvDtos(16).maxRequestDtos(16).build();

    @Param({"528", "16384"})
    public int qlen;

    SimRig rig;
    EventDispatcher recvA;
    EventDispatcher requestA;
    EventDispatcher recvB;
    EventDispatcher requestB;
    PublicServicePoint psp;
    InetSocketAddress address;
    final DatEvent event = new DatEvent();
    final LmrTriplet[] send = {new LmrTriplet()};
    final LmrTriplet[] recv = {new LmrTriplet()};

    @Setup
    public void setup() {
        rig = new SimRig(4096, null, true);
        recvA = rig.a.ia.createEventDispatcher(qlen, null, EvdFlags.DTO);
        requestA = rig.a.ia.createEventDispatcher(qlen, null, EvdFlags.DTO);
        recvB = rig.b.ia.createEventDispatcher(qlen, null, EvdFlags.DTO);
        requestB = rig.b.ia.createEventDispatcher(qlen, null, EvdFlags.DTO);
        psp = rig.b.ia.createPublicServicePoint(QUALIFIER, rig.b.connEvd, PspFlag.CONSUMER);
        address = rig.b.ia.query().iaAttributes().iaAddress();
        send[0].set(rig.a.lmr, 0, 8);
        recv[0].set(rig.b.lmr, 0, 8);
    }

    @TearDown
    public void tearDown() {
        psp.close();
        rig.close();
    }

    @Benchmark
    public int connectSendFree() {
        try (Endpoint a = rig.a.ia.createEndpoint(rig.a.pz, recvA, requestA, rig.a.connEvd, ATTRIBUTES);
                Endpoint b = rig.b.ia.createEndpoint(rig.b.pz, recvB, requestB, rig.b.connEvd, ATTRIBUTES)) {
            a.connect(address, QUALIFIER, TIMEOUT_MICROS, null, 0, 0);
            SimRig.expect(rig.b.connEvd, event, EventNumber.CONNECTION_REQUEST_EVENT);
            event.connectionRequest().accept(b, null);
            SimRig.expect(rig.b.connEvd, event, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            SimRig.expect(rig.a.connEvd, event, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            for (int i = 0; i < MESSAGES; i++) {
                SimRig.check(b.postRecv(1, recv, i, CompletionFlags.DEFAULT));
                SimRig.check(a.postSend(1, send, i, CompletionFlags.DEFAULT));
                SimRig.reap(recvB, event);
                SimRig.reap(requestA, event);
            }
            a.disconnect(CloseFlag.ABRUPT);
            SimRig.expect(rig.a.connEvd, event, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            SimRig.expect(rig.b.connEvd, event, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }
        return event.status();
    }
}
