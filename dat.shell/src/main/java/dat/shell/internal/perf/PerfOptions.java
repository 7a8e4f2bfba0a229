package dat.shell.internal.perf;

import dat.shell.internal.Cli;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/**
 * The options of {@code dat perf}, parsed from its arguments by picocli ({@link Arguments}).
 *
 * @param iaName the IA to measure
 * @param latencySizes message sizes of the latency runs
 * @param bandwidthSizes message sizes of the bandwidth sweep
 * @param latencyIterations round trips measured per latency point
 * @param warmupNanos warm-up time before each timed measurement
 * @param measureNanos time of each timed measurement
 * @param depth outstanding operations per Endpoint queue (with {@code client}: also the server's Endpoints')
 * @param connections connections set up for the connection rate
 * @param rounds alternating rounds of each bandwidth point with {@code client} (each stream's figure is its median round)
 * @param signalEvery with {@code client}: one RDMA write in this many of the write stream asks for a completion
 * @param json where to write the figures as JSON, or {@code null}
 * @param plot where to draw latency and bandwidth against size as PNG, or {@code null}
 * @param server whether to serve {@code --client} runs of other processes instead of measuring
 * @param client the IA address of a {@code --server} to measure against, or {@code null} for a run in one JVM
 * @param qualifier the connection qualifier of the server's PSP: the one a server listens on, or a client connects to
 * @param nioPort the port of a server's NIO baselines, 0 for any free one
 * @param quick whether this is a short run ({@code --quick}): the connection setup's warm-up does not wait for the JIT to settle
 */
record PerfOptions(String iaName, List<Long> latencySizes, List<Long> bandwidthSizes, int latencyIterations, long warmupNanos,
        long measureNanos, int depth, int connections, int rounds, int signalEvery, Path json, Path plot, boolean server,
        InetSocketAddress client, long qualifier, int nioPort, boolean quick) {

    /** Bandwidth rounds of a {@code --client} run unless {@code --rounds} says otherwise. */
    static final int DEFAULT_ROUNDS = 4;

    /** The most {@code --rounds}: a round of the default 200 ms then lasts 2 ms, a couple of 4 MiB writes. */
    static final int MAX_ROUNDS = 100;
    /** The largest bandwidth size: half the benchmark's buffer of 16 MiB (a client's writes land in half the server's). */
    static final long MAX_BANDWIDTH_SIZE = 8L << 20;
    /** The largest latency size: in one JVM each side's outbox, inbox and receive lie a quarter of the buffer apart. */
    static final long MAX_LATENCY_SIZE = 4L << 20;
    /** The most round trips of a latency point: each one's time is kept (8 bytes, in a few copies). */
    static final int MAX_ITERATIONS = 10_000_000;
    /** The longest {@code --time}: a minute per bandwidth point, which a sweep of nine sizes and three streams already makes half an hour. */
    static final int MAX_TIME_MS = 60_000;
    /** The most {@code --connections}: some minutes of connections at the slowest setup measured (a few hundred microseconds). */
    static final int MAX_CONNECTIONS = 1_000_000;

    /** The options that say what to measure: the client's, or a one-process run's; not the server's. */
    private static final Set<String> MEASURING = Set.of("--quick", "--sizes", "--latency-sizes", "--iterations", "--time", "--rounds",
            "--signal-every", "--depth", "--connections", "--json", "--plot");

    /** What {@code dat perf} takes, as picocli reads it. */
    @Command(name = "perf", sortOptions = false, description = {
        "Measure an IA: latency (send/recv and RDMA-write ping-pong, half round trip), bandwidth over a size sweep (RDMA write,"
            + " RDMA read, send), message rate and connection setup rate, each beside a baseline measured in the same run.",
        "With --server and --client the two sides are two processes or hosts, and the baselines are NIO streams between the"
            + " same two processes; with the server on this host, the 8 B ping-pong also beside a raw spin ping-pong over a file"
            + " in /dev/shm between them, and beside libfabric's fi_pingpong (tcp, shm) where it is installed; over an IA that"
            + " may share memory, the client's buffer is a file in /dev/shm and each RDMA write size is also shown beside"
            + " MemorySegment.copy of the same chunks."})
    static final class Arguments {
        @Parameters(arity = "0..1", paramLabel = "IA", converter = Cli.IaName.class, description = "the IA to measure (default: sim0, else the first provider listed)")
        String ia;
        @Option(names = "--quick", description = "a short run: fewer sizes, shorter measurements and warm-ups")
        boolean quick;
        @Option(names = "--sizes", paramLabel = "SIZE", split = ",", converter = Size.class,
                description = "bandwidth sizes, e.g. 64,4K,1M (default 64 B to 4 MiB by powers of 4; at most 8M, half the benchmark's"
                        + " buffer)")
        List<Long> sizes;
        @Option(names = "--latency-sizes", paramLabel = "SIZE", split = ",", converter = Size.class,
                description = "latency sizes (default 8,64,512,4K,32K; at most 4M, a quarter of the benchmark's buffer)")
        List<Long> latencySizes;
        @Option(names = "--iterations", paramLabel = "N", converter = Positive.class,
                description = "round trips per latency point (default 20000, at most 10000000)")
        Integer iterations;
        @Option(names = "--time", paramLabel = "MS", converter = Positive.class, description = "measuring time per bandwidth point in ms"
                + " (default 200, at most 60000; with --client, that long for each of DAT and NIO, split into --rounds alternating rounds,"
                + " each at least 500 ms for chunks of 1 MiB and more)")
        Integer time;
        @Option(names = "--rounds", paramLabel = "N", converter = Positive.class, description = "with --client: alternating rounds per"
                + " bandwidth point (default 4, at most 100); each stream's figure is its median round, the ratio that of the medians")
        Integer rounds;
        @Option(names = "--signal-every", paramLabel = "N", converter = Positive.class, description = "with --client: one RDMA write"
                + " in N of the write stream asks for a completion, the others are posted with DAT_COMPLETION_SUPPRESS_FLAG, as"
                + " perftest's --cq-mod (default 1: every write; at most the window, and 1 where the provider cannot suppress)")
        Integer signalEvery;
        @Option(names = "--depth", paramLabel = "N", converter = Positive.class, description = "outstanding operations per Endpoint"
                + " queue: in one JVM the bandwidth window and the queues of both Endpoints (default 32); with --client the RDMA"
                + " write window and the queues of this side's Endpoints and of the server's, which takes each client's depth"
                + " (default 128, as perftest's ib_write_bw; not an option of --server)")
        Integer depth;
        @Option(names = "--connections", paramLabel = "N", converter = Positive.class,
                description = "connections for the setup rate (default 200, at most 1000000), timed in four batches after a warm-up: in one JVM of a"
                        + " quarter as many; with --client of as many, 2 s at least, and (unless --quick) until the JIT settled, 12 s"
                        + " at most")
        Integer connections;
        @Option(names = "--json", paramLabel = "FILE", description = "write the figures as JSON")
        Path json;
        @Option(names = "--plot", paramLabel = "FILE.png", description = "draw latency and bandwidth against message size into a PNG")
        Path plot;
        @Option(names = "--server", description = "serve --client runs from other processes or hosts until stopped: a PSP on"
                + " --qualifier of IA (an IA other processes reach: ia_params tcp=HOST:PORT of the sim provider) and NIO baselines"
                + " on --nio-port of its host; it measures nothing, and refuses the measuring options: they are the client's")
        boolean server;
        @Option(names = "--client", paramLabel = "HOST:PORT", converter = Address.class, description = "measure against the --server"
                + " whose IA address is HOST:PORT, beside NIO baselines between the same two processes")
        InetSocketAddress client;
        @Option(names = "--qualifier", paramLabel = "N", converter = Qualifier.class, description = "the connection qualifier of the"
                + " server's PSP: the one --server listens on, or --client connects to (default " + PerfServer.QUALIFIER + ")")
        Long qualifier;
        @Option(names = "--nio-port", paramLabel = "PORT", converter = Port.class, description = "with --server: the port of the"
                + " NIO baselines (default " + PerfServer.NIO_PORT + "; 0 for any free one, which clients learn as they connect)")
        Integer nioPort;
        @Option(names = "--compare", arity = "2..*", paramLabel = "FILE", description = "measure nothing: print the figures of two or"
                + " more earlier runs from their --json files side by side, each with its ratio to the baseline of its run, and how far"
                + " each figure strays from its mean over the runs (runs agree within +-20%%)")
        List<Path> compare;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
        boolean help;
    }

    /**
     * The files of a {@code --compare}, which excludes every other argument: it measures nothing.
     *
     * @param cli the parsed command line
     * @return the files, or {@code null} when {@code --compare} was not given
     * @throws CommandLine.ParameterException when another argument was given beside it
     */
    static List<Path> compared(CommandLine cli) {
        Arguments a = cli.getCommand();
        if (a.compare == null) {
            return null;
        }
        for (OptionSpec option : cli.getParseResult().matchedOptions()) {
            if (!option.longestName().equals("--compare")) {
                throw Cli.error(cli, option.longestName() + " is not an option of --compare, which measures nothing: it reads the"
                        + " --json files of earlier runs");
            }
        }
        if (a.ia != null) {
            throw Cli.error(cli, "--compare takes no IA, only the --json files of earlier runs, not '" + a.ia + "'");
        }
        return List.copyOf(a.compare);
    }

    /** A count given for {@code option}, if any, is at most {@code max}; {@code why} follows the bound in the error. */
    private static void checkAtMost(CommandLine cli, String option, Integer count, int max, String why) {
        if (count != null && count > max) {
            throw Cli.error(cli, option + " takes at most " + max + why + ", not " + count);
        }
    }

    /** Every size given for {@code option} is at most {@code max}. */
    private static void checkAtMost(CommandLine cli, String option, List<Long> sizes, long max) {
        if (sizes == null) {
            return;
        }
        if (sizes.isEmpty()) {
            throw Cli.error(cli, option + " needs at least one size");
        }
        for (long size : sizes) {
            if (size > max) {
                throw Cli.error(cli, option + " takes sizes of at most " + (max >> 20) + "M (the benchmark's buffers), not " + size);
            }
        }
    }

    /**
     * Reads the arguments.
     *
     * @param args the command's arguments
     * @return the parsed command line, whose {@link CommandLine#isUsageHelpRequested()} says whether
     *         the usage was asked
     * @throws CommandLine.ParameterException on a usage error
     */
    static CommandLine commandLine(List<String> args) {
        return Cli.parse(new Arguments(), args.toArray(String[]::new));
    }

    /**
     * The options of a parsed command line, checked: options that exclude each other, options of
     * one side given to the other, output files that could not be written.
     *
     * @param cli the parsed command line
     * @param defaultIa the IA when none is given
     * @return the options
     * @throws CommandLine.ParameterException on a usage error
     */
    static PerfOptions of(CommandLine cli, Supplier<String> defaultIa) {
        Arguments a = cli.getCommand();
        String measuring = null; // the first option given that says what to measure: a server measures nothing
        for (OptionSpec option : cli.getParseResult().matchedOptions()) {
            if (MEASURING.contains(option.longestName())) {
                measuring = option.longestName();
                break;
            }
        }
        if (a.server && a.client != null) {
            throw Cli.error(cli, "--server and --client exclude each other");
        }
        if (a.server && measuring != null) {
            throw Cli.error(cli, measuring + " is not an option of --server, which measures nothing: each client's options say what it"
                    + " measures (and the server's Endpoints take each client's --depth)");
        }
        if (a.rounds != null && a.client == null) {
            throw Cli.error(cli, "--rounds is an option of --client: a run in one JVM measures each bandwidth point in one piece");
        }
        checkAtMost(cli, "--rounds", a.rounds, MAX_ROUNDS, "");
        if (a.signalEvery != null && a.client == null) {
            throw Cli.error(cli, "--signal-every is an option of --client: a run in one JVM signals every write of its streams");
        }
        if (a.nioPort != null && !a.server) {
            throw Cli.error(cli, "--nio-port is an option of --server: a client learns the server's port as it connects");
        }
        if (a.qualifier != null && !a.server && a.client == null) {
            throw Cli.error(cli, "--qualifier is an option of --server and --client: a run in one JVM uses a PSP of its own");
        }
        checkAtMost(cli, "--sizes", a.sizes, MAX_BANDWIDTH_SIZE);
        checkAtMost(cli, "--latency-sizes", a.latencySizes, MAX_LATENCY_SIZE);
        checkAtMost(cli, "--iterations", a.iterations, MAX_ITERATIONS, " (each round trip's time is kept)");
        checkAtMost(cli, "--time", a.time, MAX_TIME_MS, " ms per bandwidth point");
        checkAtMost(cli, "--connections", a.connections, MAX_CONNECTIONS, "");
        Cli.checkOutput(cli, "--json", a.json);
        Cli.checkOutput(cli, "--plot", a.plot);
        if (a.json != null && a.plot != null && a.json.toAbsolutePath().normalize().equals(a.plot.toAbsolutePath().normalize())) {
            throw Cli.error(cli, "--json and --plot name the same file, " + a.json + ": the plot would overwrite the figures");
        }
        List<Long> latency = a.quick ? List.of(8L, 4096L) : List.of(8L, 64L, 512L, 4096L, 32768L);
        List<Long> bandwidth = a.quick ? List.of(64L, 4096L, 65536L, 1048576L)
                : List.of(64L, 256L, 1024L, 4096L, 16384L, 65536L, 262144L, 1048576L, 4194304L);
        return new PerfOptions(a.ia != null ? a.ia : defaultIa.get(),
                a.latencySizes != null ? List.copyOf(a.latencySizes) : latency,
                a.sizes != null ? List.copyOf(a.sizes) : bandwidth,
                a.iterations != null ? a.iterations : a.quick ? 5_000 : 20_000,
                a.quick ? 20_000_000L : 50_000_000L,
                a.time != null ? a.time * 1_000_000L : a.quick ? 80_000_000L : 200_000_000L,
                a.depth != null ? a.depth : a.client != null ? PerfServer.CLIENT_DEPTH : PerfServer.DEFAULT_DEPTH,
                a.connections != null ? a.connections : a.quick ? 50 : 200,
                a.rounds != null ? a.rounds : DEFAULT_ROUNDS,
                a.signalEvery != null ? a.signalEvery : 1,
                a.json, a.plot, a.server, a.client,
                a.qualifier != null ? a.qualifier : PerfServer.QUALIFIER,
                a.nioPort != null ? a.nioPort : PerfServer.NIO_PORT, a.quick);
    }

    /**
     * Parses and checks the arguments ({@link #commandLine} and {@link #of}).
     *
     * @param args the command's arguments
     * @param defaultIa the IA when none is given
     * @return the options
     * @throws CommandLine.ParameterException on a usage error
     */
    static PerfOptions parse(List<String> args, String defaultIa) {
        return of(commandLine(args), () -> defaultIa);
    }

    /** @return the usage of {@code dat perf} */
    static String usage() {
        return Cli.usage(commandLine(List.of()));
    }

    /** A positive {@code int}. */
    static final class Positive implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            try {
                int value = Integer.parseInt(text.strip());
                if (value > 0) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new TypeConversionException("needs a positive number, not '" + text + "'");
        }
    }

    /** A TCP port, 0 for any. */
    static final class Port implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            try {
                int value = Integer.parseInt(text.strip());
                if (value >= 0 && value <= 0xFFFF) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new TypeConversionException("needs a port from 0 (any) to 65535, not '" + text + "'");
        }
    }

    /** A connection qualifier: a non-negative number. */
    static final class Qualifier implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            try {
                long value = Long.parseLong(text.strip());
                if (value >= 0) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new TypeConversionException("needs a connection qualifier, a number from 0, not '" + text + "'");
        }
    }

    /** {@code HOST:PORT}, the port from 1 to 65535. */
    static final class Address implements ITypeConverter<InetSocketAddress> {
        @Override
        public InetSocketAddress convert(String text) {
            return address(text);
        }
    }

    /** A size in bytes: a number, or a number of KiB ({@code K}) or MiB ({@code M}). */
    static final class Size implements ITypeConverter<Long> {
        @Override
        public Long convert(String item) {
            String text = item.trim().toUpperCase(Locale.ROOT);
            long unit = 1;
            if (text.endsWith("K")) {
                unit = 1024;
            } else if (text.endsWith("M")) {
                unit = 1024 * 1024;
            }
            if (unit != 1) {
                text = text.substring(0, text.length() - 1);
            }
            try {
                long size = Math.multiplyExact(Long.parseLong(text), unit);
                if (size > 0) {
                    return size;
                }
            } catch (NumberFormatException | ArithmeticException e) {
                // reported below
            }
            throw new TypeConversionException("not a size: '" + item + "' (use e.g. 64, 4K, 1M)");
        }
    }

    static InetSocketAddress address(String text) {
        int colon = text.lastIndexOf(':');
        try {
            if (colon > 0) {
                int port = Integer.parseInt(text.substring(colon + 1));
                if (port > 0 && port <= 0xFFFF) {
                    String host = text.substring(0, colon);
                    if (host.startsWith("[") && host.endsWith("]")) {
                        host = host.substring(1, host.length() - 1);
                    }
                    InetSocketAddress address = new InetSocketAddress(host, port);
                    if (address.isUnresolved()) {
                        throw new TypeConversionException("unknown host '" + host + "' in '" + text + "'");
                    }
                    return address;
                }
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new TypeConversionException("needs the server's IA address as HOST:PORT, not '" + text + "'");
    }
}
