package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;

import dat.provider.sim.internal.SimIaFactory;
import dat.registry.DatRegistries;
import dat.registry.StandaloneRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dat perf --client} against {@code dat perf --server} in one JVM: two TCP IAs of the sim
 * provider on loopback (and two with {@code shm=on}), a short run (its warm-ups, about 6 s, are the client's own).
 */
class PerfClientServerTest {

    @Test
    void theClientsDepthReachesTheServer_andTheFiguresMeasuredInPartsComeWithTheirSpread(@TempDir Path dir) throws Exception {
        try (SimIaFactory sim = new SimIaFactory(); StandaloneRegistry registry = registry(dir, sim)) {
            run(registry);
        }
    }

    @Test
    void overSharedMemory_theWritesComeFromAFileInDevShm_besideMemorySegmentCopy_andTheFileGoes(@TempDir Path dir) throws Exception {
        try (SimIaFactory sim = new SimIaFactory(); StandaloneRegistry registry = registry(dir, sim)) {
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
            try (PerfServer server = new PerfServer(registry.openIa("shmB"), out, 0)) {
                Thread serving = Thread.ofPlatform().daemon().name("perf-test-shm-server").start(server::serve);
                try {
                    PerfOptions options = PerfOptions.parse(List.of("shmA", "--client", "127.0.0.1:" + server.iaAddress().getPort(), "--depth",
                            "4", "--latency-sizes", "8", "--iterations", "200", "--sizes", "64K", "--time", "40", "--rounds", "3",
                            "--connections", "2", "--signal-every", "3", "--quick"), "shmA");
                    List<Figure> figures = new PerfClient(registry, options, out, iaAddress -> { }).run();

                    Figure write = figures.stream().filter(f -> f.series().equals("RDMA write bandwidth, 2 processes")).findFirst().orElseThrow();
                    Figure besideCopy = figures.stream()
                            .filter(f -> f.series().equals("RDMA write bandwidth, 2 processes, beside MemorySegment.copy")).findFirst()
                            .orElseThrow();
                    assertThat(besideCopy.value()).as("the same write stream").isEqualTo(write.value());
                    assertThat(besideCopy.baselineName()).isEqualTo("MemorySegment.copy");
                    assertThat(besideCopy.baseline()).isPositive();
                    Spread rounds = besideCopy.spread();
                    assertThat(rounds.parts()).isEqualTo("3 alternating rounds");
                    assertThat(rounds.baselineMin()).isPositive().isLessThanOrEqualTo(besideCopy.baseline())
                            .isLessThanOrEqualTo(rounds.baselineMax());
                    String text = printed.toString(StandardCharsets.UTF_8);
                    assertThat(text).contains("(--signal-every 3: one RDMA write in 3 of each write stream asks for a completion")
                            .contains("this side's buffer: a shared mapping of " + SharedBuffer.DIRECTORY + "/" + SharedBuffer.PREFIX)
                            .containsPattern("this IA's connections so far: [1-9][0-9]* over shared memory, 0 over TCP");
                    try (var left = Files.list(SharedBuffer.DIRECTORY)) {
                        assertThat(left.map(f -> f.getFileName().toString()))
                                .as("the buffer's file goes with the run")
                                .noneMatch(name -> name.startsWith(SharedBuffer.PREFIX + ProcessHandle.current().pid() + "-"));
                    }
                } finally {
                    serving.interrupt();
                    serving.join(5_000);
                }
            }
        }
    }

    @Test
    void aServerWhoseNioPortIsTaken_saysWhichAndHowToChooseAnother_andClosesItsIa(@TempDir Path dir) throws Exception {
        try (SimIaFactory sim = new SimIaFactory(); StandaloneRegistry registry = registry(dir, sim);
                java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            dat.api.InterfaceAdapter ia = registry.openIa("tcpB");
            PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new PerfServer(ia, out, PerfServer.QUALIFIER, taken.getLocalPort()))
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("cannot listen for the NIO baselines at 127.0.0.1:" + taken.getLocalPort() + ": ")
                    .hasMessageContaining("--nio-port PORT, 0 for any free one");
            org.assertj.core.api.Assertions.assertThatThrownBy(ia::query).as("the IA closed with the server that could not start")
                    .isInstanceOf(dat.api.DatException.class);
            // the qualifier is free again: a server on another port starts
            try (PerfServer server = new PerfServer(registry.openIa("tcpB"), out, PerfServer.QUALIFIER, 0)) {
                assertThat(server.nioPort()).isNotEqualTo(taken.getLocalPort());
                assertThat(server.qualifier()).isEqualTo(PerfServer.QUALIFIER);
            }
        }
    }

    @Test
    void aServerWhoseIaFailsUnderIt_failsWithTheReason(@TempDir Path dir) throws Exception {
        SimIaFactory sim = new SimIaFactory();
        try (StandaloneRegistry registry = registry(dir, sim)) {
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8);
            try (PerfServer server = new PerfServer(registry.openIa("tcpB"), out, PerfServer.QUALIFIER, 0)) {
                java.util.concurrent.CompletableFuture<Throwable> ended = new java.util.concurrent.CompletableFuture<>();
                Thread serving = Thread.ofPlatform().start(() -> {
                    try {
                        server.serve();
                        ended.complete(null);
                    } catch (Throwable e) {
                        ended.complete(e);
                    }
                });
                sim.close(); // the provider stops under the serving IA, as a bundle stop would
                Throwable failure = ended.get(30, java.util.concurrent.TimeUnit.SECONDS);
                serving.join();
                assertThat(failure).as("what serve() ended with; it printed: " + text).isInstanceOf(IllegalStateException.class)
                        .hasMessageStartingWith("waiting for connection requests: DAT_");
            }
        }
    }

    private static void run(StandaloneRegistry registry) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        try (PerfServer server = new PerfServer(registry.openIa("tcpB"), out, 0)) {
            Thread serving = Thread.ofPlatform().daemon().name("perf-test-server").start(server::serve);
            try {
                InetSocketAddress address = server.iaAddress();
                PerfOptions options = PerfOptions.parse(List.of("tcpA", "--client", "127.0.0.1:" + address.getPort(), "--depth", "4",
                        "--latency-sizes", "8", "--iterations", "200", "--sizes", "64K", "--time", "40", "--rounds", "3", "--connections", "8", "--quick"), "tcpA");
                PerfClient client = new PerfClient(registry, options, out, iaAddress -> { });
                List<Figure> figures = client.run();

                assertThat(client.depth()).isEqualTo(4);
                assertThat(client.window(65536)).as("RDMA writes in flight at 64 KiB").isEqualTo(4);
                assertThat(client.serverDepth()).as("the depth the server's Endpoints took").isEqualTo(4);
                List<String> latencies = new ArrayList<>(List.of("send/recv latency, 2 processes"));
                // the same ping-pong beside the raw spin over a file in /dev/shm, both processes on this host
                assertThat(ShmSpin.DIRECTORY).as("this test runs where /dev/shm is").isDirectory();
                latencies.add("send/recv latency, 2 processes, beside raw shm spin");
                Figure spin = figures.get(1);
                assertThat(spin.value()).isEqualTo(figures.get(0).value());
                assertThat(spin.baselineName()).isEqualTo(ShmSpin.BASELINE_NAME);
                assertThat(spin.baseline()).isPositive();
                if (LibfabricPingPong.find().isPresent()) { // the same ping-pong beside libfabric's, both processes on this host
                    latencies.addAll(List.of("send/recv latency, 2 processes, beside libfabric tcp",
                            "send/recv latency, 2 processes, beside libfabric shm"));
                    for (Figure beside : figures.subList(2, 4)) {
                        assertThat(beside.value()).isEqualTo(figures.get(0).value());
                        assertThat(beside.baselineName()).startsWith("fi_pingpong -p ");
                        assertThat(beside.baseline()).isPositive();
                    }
                }
                List<String> expected = new ArrayList<>(latencies);
                expected.addAll(List.of("RDMA write bandwidth, 2 processes", "NIO framed stream bandwidth, 2 processes",
                        "NIO framed non-blocking, 2 processes",
                        "connection setup, 2 processes (create, connect, accept, established, disconnect)"));
                assertThat(figures).extracting(Figure::series).containsExactlyElementsOf(expected);
                figures = figures.subList(latencies.size() - 1, figures.size()); // the bandwidths from index 1, as without libfabric
                for (Figure bandwidth : figures.subList(1, 4)) {
                    Spread rounds = bandwidth.spread();
                    assertThat(rounds.parts()).isEqualTo("3 alternating rounds");
                    assertThat(rounds.min()).isPositive().isLessThanOrEqualTo(bandwidth.value()).isLessThanOrEqualTo(rounds.max());
                    assertThat(rounds.baselineMin()).isPositive().isLessThanOrEqualTo(bandwidth.baseline())
                            .isLessThanOrEqualTo(rounds.baselineMax());
                    assertThat(rounds.ratioMin()).isPositive().isLessThanOrEqualTo(rounds.ratioMax());
                }
                Spread batches = figures.get(4).spread();
                assertThat(batches.parts()).isEqualTo("4 batches of 2 connections");
                assertThat(batches.min()).isPositive().isLessThanOrEqualTo(figures.get(4).value()).isLessThanOrEqualTo(batches.max());
                assertThat(printed.toString(StandardCharsets.UTF_8)).contains("3 alternating rounds: ", "4 batches of 2 connections: ",
                        "raw spin min ", "this IA's connections so far: ")
                        .doesNotContain("(--depth", "dat perf --server:");
            } finally {
                serving.interrupt();
                serving.join(5_000);
            }
        }
    }

    /**
     * A plain-Java registry of the sim provider, with two TCP IAs on free loopback ports, as a dat.conf names them. The
     * provider is given, so the caller closes it after the registry (which closes only what it loaded).
     */
    private static StandaloneRegistry registry(Path dir, SimIaFactory sim) throws IOException {
        Path conf = Files.writeString(dir.resolve("dat.conf"), """
                tcpA u1.2 threadsafe default sim 1.0 "tcp=127.0.0.1:0" ""
                tcpB u1.2 threadsafe default sim 1.0 "tcp=127.0.0.1:0" ""
                shmA u1.2 threadsafe default sim 1.0 "tcp=127.0.0.1:0 shm=on" ""
                shmB u1.2 threadsafe default sim 1.0 "tcp=127.0.0.1:0 shm=on" ""
                """);
        return DatRegistries.builder().serviceLoader(false).staticRegistry(conf).provider(sim).build();
    }
}
