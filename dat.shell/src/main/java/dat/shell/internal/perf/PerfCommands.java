package dat.shell.internal.perf;

import dat.api.DatRegistry;
import dat.api.InterfaceAdapter;
import dat.api.ProviderInfo;
import dat.shell.internal.Cli;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
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
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

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
     * each beside a baseline measured in the same run; or serves {@code --client} runs.
     *
     * @param args the IA and options; {@code --help} lists them
     */
    @Descriptor("measure an IA: latency, bandwidth, message and connection rate, with baselines (perf --help for the options)")
    public void perf(@Descriptor("[IA] [options]") String... args) {
        CommandLine cli = PerfOptions.commandLine(Arrays.asList(args));
        if (cli.isUsageHelpRequested()) {
            Cli.print(Cli.usage(cli));
            return;
        }
        List<Path> compared = PerfOptions.compared(cli);
        if (compared != null) {
            Cli.print(compare(cli, compared));
            return;
        }
        PerfOptions options = PerfOptions.of(cli, this::defaultIa);
        if (options.server()) {
            serve(cli, options, System.out);
        } else {
            run(cli, options, System.out);
        }
    }

    @Command(name = "demo", description = "The main job: list the providers, then run a short perf (perf --quick) on an IA.")
    static final class DemoOptions {
        @Parameters(arity = "0..1", paramLabel = "IA", converter = Cli.IaName.class, description = "the IA to measure (default: sim0, else the first provider listed)")
        String ia;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
        boolean help;
    }

    /**
     * The main job: lists the providers, then runs a short perf on the default IA.
     *
     * @param session the Gogo session, to run the providers command
     * @param args an IA name
     * @throws Exception when the providers command or the measurement fails
     */
    @Descriptor("list the providers, then run a short perf on an IA (default sim0)")
    public void demo(CommandSession session, @Descriptor("[IA]") String... args) throws Exception {
        CommandLine cli = Cli.parse(new DemoOptions(), args);
        if (cli.isUsageHelpRequested()) {
            Cli.print(Cli.usage(cli));
            return;
        }
        String ia = cli.<DemoOptions>getCommand().ia;
        List<String> perfArgs = new java.util.ArrayList<>(List.of("--quick"));
        if (ia != null) {
            perfArgs.addAll(List.of("--", ia)); // an IA name, even one that looks like an option
        }
        PerfOptions options = PerfOptions.of(PerfOptions.commandLine(perfArgs), this::defaultIa);
        PrintStream out = System.out;
        session.execute("dat:providers"); // prints the table
        out.println();
        run(cli, options, out);
    }

    private void run(CommandLine cli, PerfOptions options, PrintStream out) {
        List<Figure> figures;
        boolean pinned = false;
        if (options.client() != null) {
            // prints its heading once the IA opened, and the table's header once it reached the server
            figures = new PerfClient(registry, options, out, address -> requireReachable(cli, options, address, "--client")).run();
        } else {
            PerfRunner runner = new PerfRunner(registry, options, out); // prints the heading once the IA opened
            figures = runner.run();
            pinned = runner.pinned();
            out.println(pinned ? "(benchmark threads pinned to CPUs 0 and 1 with sched_setaffinity)"
                    : "(benchmark threads NOT pinned: fewer than 2 CPUs or sched_setaffinity unavailable; spinning pairs may share a core)");
        }
        // the paths were checked before the run; a failure now (the disk filled, the directory went) is reported, not thrown raw
        if (options.json() != null) {
            try {
                PerfReport.writeJson(options.json(), options.iaName(), pinned, figures);
            } catch (IOException e) {
                throw new IllegalStateException("cannot write " + options.json() + ": " + e.getMessage(), e);
            }
            out.println("figures written to " + options.json().toAbsolutePath());
        }
        if (options.plot() != null) {
            try {
                PerfPlot.write(options.plot(), "dat perf " + options.iaName(), figures);
            } catch (IOException e) {
                throw new IllegalStateException("cannot write " + options.plot() + ": " + e.getMessage(), e);
            }
            out.println("plot written to " + options.plot().toAbsolutePath());
        }
        out.flush();
    }

    /** The report of {@code --compare}; a file that cannot be read, or is not a run's JSON, is a usage error naming it. */
    static String compare(CommandLine cli, List<Path> files) {
        List<PerfComparison.Run> runs = new java.util.ArrayList<>();
        for (Path file : files) {
            if (!Files.exists(file)) {
                throw Cli.error(cli, "--compare " + file + ": no such file");
            }
            if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
                throw Cli.error(cli, "--compare " + file + ": not a readable file");
            }
            try {
                runs.add(PerfComparison.read(file));
            } catch (IOException e) {
                throw Cli.error(cli, "--compare " + file + ": cannot be read (" + e.getClass().getSimpleName() + ")");
            } catch (IllegalArgumentException e) {
                throw Cli.error(cli, "--compare " + file + ": " + e.getMessage());
            }
        }
        return PerfComparison.report(runs);
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

    /**
     * Serves --client runs until the command's thread is interrupted (the framework stops). An IA
     * that no other process can reach ({@link #reachable}: the sim provider's in-JVM fabric) is
     * refused before anything is set up.
     */
    private void serve(CommandLine cli, PerfOptions options, PrintStream out) {
        InterfaceAdapter ia = Cli.openIa(registry, options.iaName());
        InetSocketAddress address;
        try {
            address = ia.query().iaAttributes().iaAddress();
        } catch (RuntimeException e) {
            ia.close();
            throw e;
        }
        try {
            requireReachable(cli, options, address, "--server");
        } catch (CommandLine.ParameterException e) {
            ia.close();
            throw e;
        }
        PerfServer server;
        try {
            server = new PerfServer(ia, out, options.qualifier(), options.nioPort());
        } catch (IOException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        try (server) {
            out.printf("dat perf --server: IA %s at %s, PSP qualifier %d, NIO baseline port %d; serving until stopped%n", options.iaName(),
                    server.iaAddress(), server.qualifier(), server.nioPort());
            out.flush();
            server.serve();
        }
    }

    /** Refuses an IA that no other process reaches, for an option that needs one. */
    private static void requireReachable(CommandLine cli, PerfOptions options, InetSocketAddress address, String option) {
        if (!reachable(address)) {
            throw Cli.error(cli, option + " needs an IA that other processes reach; " + options.iaName() + " (address "
                    + (address == null ? "none" : address.getHostString() + ":" + address.getPort()) + ") is reachable only from"
                    + " this process: use a TCP IA, e.g. one of the sim provider with ia_params tcp=HOST:PORT in dat.conf");
        }
    }

    /**
     * Whether another process can connect to an IA address: it has a host and a port (the sim
     * provider's TCP IAs), or it is an address of one of this host's interfaces, on which
     * connection qualifiers are ports (the verbs and ofi providers). The sim provider's in-JVM IAs
     * have addresses with port 0 on no interface (127.77.0.x), which only the IAs of the same JVM reach.
     *
     * @param address an IA address
     * @return whether another process can reach it
     */
    static boolean reachable(InetSocketAddress address) {
        if (address == null || address.isUnresolved()) {
            return false;
        }
        if (address.getPort() != 0) {
            return true;
        }
        try {
            return java.net.NetworkInterface.getByInetAddress(address.getAddress()) != null;
        } catch (java.net.SocketException e) {
            return false;
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
