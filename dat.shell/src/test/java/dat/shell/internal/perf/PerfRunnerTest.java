package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;

import dat.provider.sim.internal.SimIaFactory;
import dat.registry.DatRegistries;
import dat.registry.StandaloneRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code dat perf} in one JVM, at the edges of its options. */
class PerfRunnerTest {

    @Test
    @Timeout(50) // a ping-pong without a receive waits for the benchmark's 60 s deadline
    void aDepthOfOne_measuresTheSendRecvPingPong_withOneReceivePostedEachSide() throws Exception {
        try (SimIaFactory sim = new SimIaFactory();
                StandaloneRegistry registry = DatRegistries.builder().serviceLoader(false).provider(sim).build()) {
            PerfOptions options = PerfOptions.parse(List.of("sim0", "--depth", "1", "--quick", "--latency-sizes", "8", "--sizes", "64",
                    "--iterations", "200", "--time", "10", "--connections", "4"), "sim0");
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            List<Figure> figures = new PerfRunner(registry, options, new PrintStream(text, true, StandardCharsets.UTF_8)).run();
            assertThat(figures).as(text.toString(StandardCharsets.UTF_8))
                    .anyMatch(f -> f.series().startsWith("send/recv latency") && f.size() == 8 && f.value() > 0)
                    .anyMatch(f -> f.series().startsWith("send bandwidth") && f.size() == 64 && f.value() > 0);
        }
    }

    @Test
    @Timeout(50)
    void aLatencySizeBelowEightBytes_measuresTheSendRecvPingPong_andSaysWhyTheRdmaWriteOneIsNot() throws Exception {
        try (SimIaFactory sim = new SimIaFactory();
                StandaloneRegistry registry = DatRegistries.builder().serviceLoader(false).provider(sim).build()) {
            PerfOptions options = PerfOptions.parse(List.of("sim0", "--quick", "--latency-sizes", "4,8", "--sizes", "64",
                    "--iterations", "200", "--time", "10", "--connections", "4"), "sim0");
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            List<Figure> figures = new PerfRunner(registry, options, new PrintStream(text, true, StandardCharsets.UTF_8)).run();
            String printed = text.toString(StandardCharsets.UTF_8);
            assertThat(figures).as(printed)
                    .anyMatch(f -> f.series().startsWith("send/recv latency") && f.size() == 4 && f.value() > 0)
                    .anyMatch(f -> f.series().startsWith("RDMA write latency") && f.size() == 8 && f.value() > 0)
                    .noneMatch(f -> f.series().startsWith("RDMA write latency") && f.size() == 4);
            assertThat(printed).contains("RDMA-write ping-pong 4 B: not measured, each message carries an 8-byte sequence");
        }
    }
}
