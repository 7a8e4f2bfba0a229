package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The options of {@code dat perf}, the cross-process ones in particular, and what its header reports. */
class PerfOptionsTest {

    @Test
    void aRunInOneJvmByDefault() {
        PerfOptions options = PerfOptions.parse(List.of(), "sim0");
        assertThat(options.iaName()).isEqualTo("sim0");
        assertThat(options.server()).isFalse();
        assertThat(options.client()).isNull();
    }

    @Test
    void serverAndClient() {
        assertThat(PerfOptions.parse(List.of("tcpB", "--server"), "sim0").server()).isTrue();
        PerfOptions client = PerfOptions.parse(List.of("tcpA", "--client", "10.77.0.2:7700", "--quick"), "sim0");
        assertThat(client.client()).isEqualTo(new InetSocketAddress("10.77.0.2", 7700));
        assertThat(client.iaName()).isEqualTo("tcpA");
        assertThat(client.latencySizes()).containsExactly(8L, 4096L);
    }

    @Test
    void badCrossProcessOptionsAreRefused() {
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--server", "--client", "127.0.0.1:7700"), "sim0"))
                .hasMessageContaining("exclude each other");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--client", "127.0.0.1"), "sim0")).hasMessageContaining("HOST:PORT");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--client", "127.0.0.1:0"), "sim0")).hasMessageContaining("HOST:PORT");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--client", "127.0.0.1:70000"), "sim0")).hasMessageContaining("HOST:PORT");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--client"), "sim0")).hasMessageContaining("Missing required parameter for option '--client'");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--client", "nosuch.invalid:7700"), "sim0"))
                .hasMessageContaining("unknown host 'nosuch.invalid'");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--no-such"), "sim0")).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("'--no-such'");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("sim0", "extra"), "sim0")).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("'extra'");
    }

    @Test
    void sizesBeyondTheBenchmarksBuffers_andOverflowingOnes_areUsageErrors() {
        assertThat(PerfOptions.parse(List.of("--sizes", "8M", "--latency-sizes", "4M"), "sim0").bandwidthSizes()).containsExactly(8L << 20);
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--sizes", "64,9M"), "sim0")).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--sizes takes sizes of at most 8M");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--latency-sizes", "5M"), "sim0"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("--latency-sizes takes sizes of at most 4M");
        // 2^54 + 1 KiB units wrap to 1 KiB in a plain multiplication
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--sizes", "18014398509481985K"), "sim0"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("not a size: '18014398509481985K'");
        assertThat(PerfOptions.usage().replaceAll("\\s+", " ")).contains("at most 8M", "at most 4M", "at most 10000000");
    }

    @Test
    void iterationsBeyondTheSamplesKept_areAUsageError() {
        assertThat(PerfOptions.parse(List.of("--iterations", "10000000"), "sim0").latencyIterations()).isEqualTo(10_000_000);
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--iterations", "2147483647"), "sim0"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("--iterations takes at most 10000000");
    }

    @Test
    void aTimeOrConnectionCountBeyondItsBound_andABlankIaName_areUsageErrors() {
        assertThat(PerfOptions.parse(List.of("--time", "60000", "--connections", "1000000"), "sim0").connections()).isEqualTo(1_000_000);
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--time", "60001"), "sim0")).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--time takes at most 60000 ms per bandwidth point, not 60001");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--connections", "2147483647"), "sim0"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessage("--connections takes at most 1000000, not 2147483647");
        assertThatThrownBy(() -> PerfOptions.parse(List.of(" "), "sim0")).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("needs an IA name, not ' '");
        assertThat(PerfOptions.usage().replaceAll("\\s+", " ")).contains("at most 60000", "at most 1000000");
    }

    @Test
    void theUsageSaysHowEachKindOfRunWarmsTheConnectionsUp() {
        assertThat(PerfOptions.usage().replaceAll("\\s+", " ")).contains("in one JVM of a quarter as many; with --client of as many");
    }

    @Test
    void theDepthReachesAClient_andTheUsageSaysWhereItApplies() {
        assertThat(PerfOptions.parse(List.of("tcpA", "--client", "127.0.0.1:7700"), "sim0").depth()).isEqualTo(PerfServer.CLIENT_DEPTH);
        assertThat(PerfOptions.parse(List.of("sim0"), "sim0").depth()).isEqualTo(PerfServer.DEFAULT_DEPTH);
        assertThat(PerfOptions.parse(List.of("tcpA", "--client", "127.0.0.1:7700", "--depth", "8"), "sim0").depth()).isEqualTo(8);
        assertThat(PerfOptions.parse(List.of("sim0", "--depth", "4"), "sim0").depth()).isEqualTo(4);
        assertThat(PerfOptions.usage().replaceAll("\\s+", " ")).contains("with --client the RDMA", "not an option of --server");
    }

    @Test
    void theRoundsReachAClient_andNothingElseTakesThem() {
        String client = "127.0.0.1:7700";
        assertThat(PerfOptions.parse(List.of("tcpA", "--client", client), "sim0").rounds()).isEqualTo(PerfOptions.DEFAULT_ROUNDS);
        assertThat(PerfOptions.parse(List.of("tcpA", "--rounds", "8", "--client", client), "sim0").rounds()).isEqualTo(8);
        assertThat(PerfOptions.parse(List.of("tcpA", "--client", client, "--rounds", "100"), "sim0").rounds()).isEqualTo(100);
        assertThatThrownBy(() -> PerfOptions.parse(List.of("tcpA", "--client", client, "--rounds", "101"), "sim0"))
                .hasMessage("--rounds takes at most 100, not 101");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("tcpA", "--client", client, "--rounds", "0"), "sim0"))
                .hasMessage("Invalid value for option '--rounds': needs a positive number, not '0'");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("sim0", "--rounds", "8"), "sim0"))
                .hasMessageStartingWith("--rounds is an option of --client");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("tcpB", "--server", "--rounds", "8"), "sim0"))
                .hasMessageStartingWith("--rounds is not an option of --server");
        assertThat(PerfOptions.usage().replaceAll("\\s+", " ")).contains("--rounds=N", "median round");
    }

    @Test
    void theSignalIntervalReachesAClient_andNothingElseTakesIt() {
        String client = "127.0.0.1:7700";
        assertThat(PerfOptions.parse(List.of("tcpA", "--client", client), "sim0").signalEvery()).as("every write").isEqualTo(1);
        assertThat(PerfOptions.parse(List.of("tcpA", "--client", client, "--signal-every", "32"), "sim0").signalEvery()).isEqualTo(32);
        assertThatThrownBy(() -> PerfOptions.parse(List.of("tcpA", "--client", client, "--signal-every", "0"), "sim0"))
                .hasMessage("Invalid value for option '--signal-every': needs a positive number, not '0'");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("sim0", "--signal-every", "8"), "sim0"))
                .hasMessageStartingWith("--signal-every is an option of --client");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("tcpB", "--server", "--signal-every", "8"), "sim0"))
                .hasMessageStartingWith("--signal-every is not an option of --server");
        assertThat(PerfOptions.usage().replaceAll("\\s+", " ")).contains("--signal-every=N", "--cq-mod");
    }

    @Test
    void aServerRefusesTheDepth_itTakesEachClients() {
        assertThat(PerfOptions.parse(List.of("tcpB", "--server"), "sim0").depth()).isEqualTo(PerfServer.DEFAULT_DEPTH);
        assertThatThrownBy(() -> PerfOptions.parse(List.of("tcpB", "--server", "--depth", "8"), "sim0"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageStartingWith("--depth is not an option of --server");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--depth", "32", "tcpB", "--server"), "sim0"))
                .hasMessageStartingWith("--depth is not an option of --server");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--depth", "0"), "sim0")).hasMessage("Invalid value for option '--depth': needs a positive number, not '0'");
    }

    /** A server measures nothing: an option that says what to measure is a mistake it names, not one it ignores. */
    @Test
    void aServerRefusesEveryMeasuringOption() {
        for (List<String> option : List.of(List.of("--quick"), List.of("--sizes", "64K"), List.of("--latency-sizes", "8"),
                List.of("--iterations", "10"), List.of("--time", "10"), List.of("--rounds", "8"), List.of("--connections", "5"), List.of("--json", "f.json"),
                List.of("--plot", "f.png"))) {
            List<String> args = new java.util.ArrayList<>(List.of("tcpB", "--server"));
            args.addAll(option);
            assertThatThrownBy(() -> PerfOptions.parse(args, "sim0")).hasMessageStartingWith(option.get(0) + " is not an option of --server");
            if (!option.get(0).equals("--rounds")) {
                assertThat(PerfOptions.parse(option, "sim0").server()).isFalse(); // a one-process run takes it
            }
        }
    }

    @Test
    void thePortsOfAServerAreOptions_andEachSideTakesOnlyItsOwn() {
        PerfOptions server = PerfOptions.parse(List.of("tcpB", "--server", "--qualifier", "9000", "--nio-port", "0"), "sim0");
        assertThat(server.qualifier()).isEqualTo(9000);
        assertThat(server.nioPort()).isZero();
        PerfOptions defaults = PerfOptions.parse(List.of("tcpB", "--server"), "sim0");
        assertThat(defaults.qualifier()).isEqualTo(PerfServer.QUALIFIER);
        assertThat(defaults.nioPort()).isEqualTo(PerfServer.NIO_PORT);
        assertThat(PerfOptions.parse(List.of("tcpA", "--client", "127.0.0.1:7700", "--qualifier", "9000"), "sim0").qualifier())
                .isEqualTo(9000);
        assertThatThrownBy(() -> PerfOptions.parse(List.of("tcpA", "--client", "127.0.0.1:7700", "--nio-port", "9001"), "sim0"))
                .hasMessageStartingWith("--nio-port is an option of --server");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("sim0", "--qualifier", "9000"), "sim0"))
                .hasMessageStartingWith("--qualifier is an option of --server and --client");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("tcpB", "--server", "--nio-port", "70000"), "sim0"))
                .hasMessageContaining("'70000'");
    }

    @Test
    void anOutputFileIsCheckedBeforeTheRun(@TempDir Path dir) throws IOException {
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--plot", "/nonexistent/x.png"), "sim0"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--plot /nonexistent/x.png: the directory /nonexistent does not exist");
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--json", dir.toString()), "sim0"))
                .hasMessageEndingWith(": is a directory");
        Path file = dir.resolve("figures.json");
        assertThat(PerfOptions.parse(List.of("--json", file.toString()), "sim0").json()).isEqualTo(file);
        assertThat(file).doesNotExist(); // checked, not created
        assertThatThrownBy(() -> PerfOptions.parse(List.of("--json", file.toString(), "--plot", file.toString()), "sim0"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("name the same file");
    }

    @Test
    void onlyAnIaWithAHostAndPortIsServed() {
        assertThat(PerfCommands.reachable(new InetSocketAddress("127.0.0.1", 7700))).isTrue();
        assertThat(PerfCommands.reachable(new InetSocketAddress("127.77.0.0", 0))).as("an in-JVM sim IA").isFalse();
        assertThat(PerfCommands.reachable(new InetSocketAddress("127.0.0.1", 0))).as("an ofi or verbs IA on lo: qualifiers are ports")
                .isTrue();
        assertThat(PerfCommands.reachable(new InetSocketAddress("192.0.2.1", 0))).as("on no interface of this host").isFalse();
        assertThat(PerfCommands.reachable(InetSocketAddress.createUnresolved("nowhere.invalid", 7700))).isFalse();
        assertThat(PerfCommands.reachable(null)).isFalse();
    }

    @Test
    void theCongestionControlIsReadWhereTheFileIsAndOmittedElsewhere(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("tcp_congestion_control"), "bbr\n");
        assertThat(PerfCommands.congestionControl(file)).contains("bbr");
        assertThat(PerfCommands.congestionControl(dir.resolve("absent"))).isEmpty();
        assertThat(PerfCommands.congestionControl(Files.writeString(dir.resolve("empty"), "\n"))).isEmpty();
    }
}
