package dat.shell.internal.perf;

import dat.api.DatRegistry;
import dat.api.ProviderInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The benchmark commands of scope {@code dat}: {@code perf} (the dtest / perftest role) and
 * {@code demo} (the README's main job: the providers, then a short perf run).
 */
@Component(service = PerfCommands.class, property = {
    "osgi.command.scope=dat",
    "osgi.command.function=perf",
    "osgi.command.function=demo"
})
public final class PerfCommands {

    private final DatRegistry registry;

    /**
     * Creates the commands.
     *
     * @param registry the registry that opens the IAs to measure
     */
    @Activate
    public PerfCommands(@Reference DatRegistry registry) {
        this.registry = registry;
    }

    /**
     * Measures an IA: latency, bandwidth over a size sweep, message rate and connection rate,
     * each beside a baseline measured in the same run.
     *
     * @param args the IA and options; {@code --help} lists them
     * @throws IOException when the JSON or PNG file cannot be written
     */
    @Descriptor("measure an IA: latency, bandwidth, message and connection rate, with baselines (--help for options)")
    public void perf(@Descriptor("IA and options") String... args) throws IOException {
        run(PerfOptions.parse(Arrays.asList(args), defaultIa()), System.out);
    }

    /**
     * The main job: lists the providers, then runs a short perf on the default IA.
     *
     * @param session the Gogo session, to run the providers command
     * @param args options passed on to perf, e.g. an IA name
     * @throws Exception when the providers command or the measurement fails
     */
    @Descriptor("list the providers, then run a short perf on the default IA")
    public void demo(CommandSession session, @Descriptor("IA and perf options") String... args) throws Exception {
        PrintStream out = System.out;
        Object providers = session.execute("dat:providers");
        if (providers != null) {
            out.println(providers);
        }
        List<String> perfArgs = new java.util.ArrayList<>(List.of("--quick"));
        perfArgs.addAll(Arrays.asList(args));
        run(PerfOptions.parse(perfArgs, defaultIa()), out);
    }

    private void run(PerfOptions options, PrintStream out) throws IOException {
        if (options.server()) {
            serve(options, out);
            return;
        }
        List<Figure> figures;
        boolean pinned = false;
        if (options.client() != null) {
            out.printf("dat perf %s --client %s: two processes, depth %d, %d CPUs here; waits block, nothing spins%n", options.iaName(),
                    options.client(), options.depth(), Runtime.getRuntime().availableProcessors());
            congestionControl(CONGESTION_CONTROL).ifPresent(cc -> out.printf(
                    "TCP congestion control here: %s (the large-write figures over loopback depend on it: docs/sim-provider.md)%n", cc));
            out.flush();
            figures = new PerfClient(registry, options, out).run(); // prints the table's header once it reached the server
        } else {
            out.printf("dat perf %s: one JVM, %d CPUs%n", options.iaName(), Runtime.getRuntime().availableProcessors());
            out.println(PerfReport.HEADER);
            out.flush();
            PerfRunner runner = new PerfRunner(registry, options, out);
            figures = runner.run();
            pinned = runner.pinned();
            out.println(pinned ? "(benchmark threads pinned to CPUs 0 and 1 with sched_setaffinity)"
                    : "(benchmark threads NOT pinned: fewer than 2 CPUs or sched_setaffinity unavailable; spinning pairs may share a core)");
        }
        if (options.json() != null) {
            PerfReport.writeJson(options.json(), options.iaName(), pinned, figures);
            out.println("figures written to " + options.json().toAbsolutePath());
        }
        if (options.plot() != null) {
            PerfPlot.write(options.plot(), "dat perf " + options.iaName(), figures);
            out.println("plot written to " + options.plot().toAbsolutePath());
        }
        out.flush();
    }

    /** Linux: the congestion control that new TCP connections use. */
    static final Path CONGESTION_CONTROL = Path.of("/proc/sys/net/ipv4/tcp_congestion_control");

    /**
     * The congestion control named in {@code file} (Linux's {@link #CONGESTION_CONTROL}), reported
     * beside the figures: with BBR on loopback the RDMA write stream of large frames, which waits
     * for each frame's completion, reads lower against NIO than with cubic.
     *
     * @return its name, or empty where the file is missing or unreadable (not Linux, a sandbox)
     */
    static Optional<String> congestionControl(Path file) {
        try {
            String name = Files.readString(file).strip();
            return name.isEmpty() ? Optional.empty() : Optional.of(name);
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** Serves --client runs until the command's thread is interrupted (the framework stops). */
    private void serve(PerfOptions options, PrintStream out) throws IOException {
        PerfServer server = new PerfServer(registry.openIa(options.iaName()), out);
        try (server) {
            out.printf("dat perf --server: IA %s at %s, PSP qualifier %d, NIO baseline port %d; serving until stopped%n", options.iaName(),
                    server.iaAddress(), PerfServer.QUALIFIER, server.nioPort());
            out.flush();
            server.serve();
        }
    }

    private String defaultIa() {
        List<ProviderInfo> providers = registry.listProviders();
        for (ProviderInfo info : providers) {
            if (info.iaName().equals("sim0")) {
                return "sim0";
            }
        }
        if (providers.isEmpty()) {
            throw new IllegalStateException("no provider is registered; start a provider bundle (e.g. dat.provider.sim)");
        }
        return providers.getFirst().iaName();
    }
}
