package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DtoCompletionStatus;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.provider.sim.internal.Fabric;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a TCP IA's own threads (its I/O agent, the provider's conductor) allocate while their
 * connection is open: the agent's periodic liveness sweep runs ten times a second over every
 * connection, for as long as the IA lives, and must allocate nothing. It runs so seldom that the
 * JIT leaves it interpreted, where no allocation is optimized away.
 */
@Timeout(60)
class TcpAgentAllocationTest {

    private static final long WINDOW_NANOS = 3_000_000_000L;

    private final TcpPair pair = new TcpPair("tcp=127.0.0.1:0 tcp_timeout_ms=3600000", "tcpA", "tcpB", 1 << 16);

    @AfterEach
    void close() {
        pair.close();
    }

    @Test
    void theAgentsOfAnOpenConnection_allocateNothing_throughThirtyPeriodicSweeps() throws Exception {
        Fabric.Side a = pair.a;
        Fabric.Side b = pair.b;
        pair.connect(100, b.ep);
        ok(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 64)}, 1, 0));
        ok(a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 2, 0));
        assertThat(b.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);

        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        List<Long> ids = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (var info : threads.dumpAllThreads(false, false)) {
            if (info.getThreadName().startsWith("dat-sim-")) {
                ids.add(info.getThreadId());
                names.add(info.getThreadName());
            }
        }
        assertThat(names).as("the provider's threads").filteredOn(n -> n.startsWith("dat-sim-tcp-")).hasSize(2);
        long[] watched = ids.stream().mapToLong(Long::longValue).toArray();
        StringBuilder windows = new StringBuilder();
        long best = Long.MAX_VALUE;
        for (int w = 0; w < 2 && best > 0; w++) {
            long[] before = threads.getThreadAllocatedBytes(watched);
            Thread.sleep(WINDOW_NANOS / 1_000_000);
            long[] after = threads.getThreadAllocatedBytes(watched);
            long bytes = 0;
            for (int i = 0; i < watched.length; i++) {
                bytes += after[i] - before[i];
                windows.append(names.get(i)).append('=').append(after[i] - before[i]).append(' ');
            }
            windows.append("| ");
            best = Math.min(best, bytes);
        }
        // a concurrent set's iterator per sweep was about 50 B: 30 sweeps x 2 agents in a window
        assertThat(best).as("bytes the provider's threads allocated in the best 3 s window: " + windows).isLessThan(256);
    }
}
