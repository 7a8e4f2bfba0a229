package dat.shell.internal.perf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of {@code dat perf}, parsed from its arguments.
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
 * @param json where to write the figures as JSON, or {@code null}
 * @param plot where to draw latency and bandwidth against size as PNG, or {@code null}
 * @param server whether to serve {@code --client} runs of other processes instead of measuring
 * @param client the IA address of a {@code --server} to measure against, or {@code null} for a run in one JVM
 */
record PerfOptions(String iaName, List<Long> latencySizes, List<Long> bandwidthSizes, int latencyIterations, long warmupNanos,
        long measureNanos, int depth, int connections, int rounds, Path json, Path plot, boolean server, java.net.InetSocketAddress client) {

    static final String USAGE = """
            usage: dat perf [IA] [options]
              IA                 the IA to measure (default: sim0, else the first provider listed)
              --quick            a short run: fewer sizes, shorter measurements
              --sizes LIST       bandwidth sizes, e.g. 64,4K,1M (default 64 B ... 4 MiB by powers of 4)
              --latency-sizes LIST  latency sizes (default 8,64,512,4K,32K)
              --iterations N     round trips per latency point (default 20000)
              --time MS          measuring time per bandwidth point in ms (default 200; with --client,
                                 that long for each of DAT and NIO, split into --rounds alternating rounds)
              --rounds N         with --client: alternating rounds per bandwidth point (default 4, at most
                                 100); each stream's figure is its median round, the ratio that of the medians
              --depth N          outstanding operations per Endpoint queue (default 32): in one JVM the
                                 bandwidth window and the queues of both Endpoints; with --client the RDMA
                                 write window and the queues of this side's Endpoints and of the server's,
                                 which takes each client's depth (not an option of --server)
              --connections N    connections for the setup rate (default 200), timed in four batches
              --json FILE        write the figures as JSON
              --plot FILE.png    draw latency and bandwidth against message size
              --server           serve --client runs from other processes or hosts until stopped: a PSP on
                                 qualifier 7702 of IA and a NIO baseline server on port 7703 of its host;
                                 it measures nothing, and refuses the options above: they are the client's
              --client HOST:PORT measure against the --server whose IA address is HOST:PORT, beside NIO
                                 baselines between the same two processes (a TCP IA of the sim provider:
                                 ia_params tcp=HOST:PORT)
            """;

    /** The options that say what to measure: the client's, or a one-process run's; not the server's. */
    private static final java.util.Set<String> MEASURING = java.util.Set.of("--quick", "--sizes", "--latency-sizes", "--iterations",
            "--time", "--rounds", "--depth", "--connections", "--json", "--plot");

    static PerfOptions parse(List<String> args, String defaultIa) {
        String ia = null;
        List<Long> latency = List.of(8L, 64L, 512L, 4096L, 32768L);
        List<Long> bandwidth = List.of(64L, 256L, 1024L, 4096L, 16384L, 65536L, 262144L, 1048576L, 4194304L);
        int iterations = 20_000;
        long warmup = 50_000_000;
        long measure = 200_000_000;
        int depth = PerfServer.DEFAULT_DEPTH;
        // the first option given that says what to measure: a server measures nothing, and refuses it
        String measuring = null;
        int connections = 200;
        int rounds = DEFAULT_ROUNDS;
        boolean roundsGiven = false;
        Path json = null;
        Path plot = null;
        boolean server = false;
        java.net.InetSocketAddress client = null;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (measuring == null && MEASURING.contains(arg)) {
                measuring = arg;
            }
            switch (arg) {
                case "--quick" -> {
                    latency = List.of(8L, 4096L);
                    bandwidth = List.of(64L, 4096L, 65536L, 1048576L);
                    iterations = 5_000;
                    warmup = 20_000_000;
                    measure = 80_000_000;
                    connections = 50;
                }
                case "--sizes" -> bandwidth = sizes(value(args, ++i, arg));
                case "--latency-sizes" -> latency = sizes(value(args, ++i, arg));
                case "--iterations" -> iterations = positive(value(args, ++i, arg), arg);
                case "--time" -> measure = positive(value(args, ++i, arg), arg) * 1_000_000L;
                case "--rounds" -> {
                    rounds = positive(value(args, ++i, arg), arg);
                    if (rounds > MAX_ROUNDS) {
                        throw new IllegalArgumentException("--rounds takes at most " + MAX_ROUNDS + ", not " + rounds);
                    }
                    roundsGiven = true;
                }
                case "--depth" -> depth = positive(value(args, ++i, arg), arg);
                case "--connections" -> connections = positive(value(args, ++i, arg), arg);
                case "--json" -> json = Path.of(value(args, ++i, arg));
                case "--plot" -> plot = Path.of(value(args, ++i, arg));
                case "--server" -> server = true;
                case "--client" -> client = address(value(args, ++i, arg));
                case "--help", "-h" -> throw new IllegalArgumentException(USAGE);
                default -> {
                    if (arg.startsWith("-") || ia != null) {
                        throw new IllegalArgumentException("unknown argument '" + arg + "'\n" + USAGE);
                    }
                    ia = arg;
                }
            }
        }
        if (ia == null) {
            ia = defaultIa;
        }
        if (server && client != null) {
            throw new IllegalArgumentException("--server and --client exclude each other\n" + USAGE);
        }
        if (server && measuring != null) {
            throw new IllegalArgumentException(measuring + " is not an option of --server, which measures nothing: each client's"
                    + " options say what it measures (and the server's Endpoints take each client's --depth)\n" + USAGE);
        }
        if (roundsGiven && client == null && !server) {
            throw new IllegalArgumentException("--rounds is an option of --client: a run in one JVM measures each bandwidth point in one"
                    + " piece\n" + USAGE);
        }
        return new PerfOptions(ia, latency, bandwidth, iterations, warmup, measure, depth, connections, rounds, json, plot, server,
                client);
    }

    /** Bandwidth rounds of a {@code --client} run unless {@code --rounds} says otherwise. */
    static final int DEFAULT_ROUNDS = 4;

    /** The most {@code --rounds}: a round of the default 200 ms then lasts 2 ms, a couple of 4 MiB writes. */
    static final int MAX_ROUNDS = 100;

    static java.net.InetSocketAddress address(String text) {
        int colon = text.lastIndexOf(':');
        try {
            if (colon > 0) {
                int port = Integer.parseInt(text.substring(colon + 1));
                if (port > 0 && port <= 0xFFFF) {
                    return new java.net.InetSocketAddress(text.substring(0, colon), port);
                }
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--client needs the server's IA address as HOST:PORT, not '" + text + "'");
    }

    private static String value(List<String> args, int index, String option) {
        if (index >= args.size()) {
            throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
        }
        return args.get(index);
    }

    private static int positive(String text, String option) {
        try {
            int value = Integer.parseInt(text);
            if (value > 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " needs a positive number, not '" + text + "'");
    }

    static List<Long> sizes(String list) {
        List<Long> sizes = new ArrayList<>();
        for (String item : list.split(",")) {
            String text = item.trim().toUpperCase(java.util.Locale.ROOT);
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
                long size = Long.parseLong(text) * unit;
                if (size <= 0) {
                    throw new NumberFormatException();
                }
                sizes.add(size);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a size: '" + item + "' (use e.g. 64, 4K, 1M)");
            }
        }
        return List.copyOf(sizes);
    }
}
