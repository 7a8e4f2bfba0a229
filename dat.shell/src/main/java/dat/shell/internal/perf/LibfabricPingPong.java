package dat.shell.internal.perf;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;

/**
 * libfabric's own ping-pong ({@code fi_pingpong} of Debian's {@code libfabric-bin}, C) between two
 * processes of this host, as a baseline for {@code dat perf --client} when its server runs on this
 * host too: libfabric's {@code tcp} provider over connected endpoints ({@code -e msg}), and its
 * {@code shm} provider ({@code -e rdm}), the fastest transport between two processes of one host
 * that libfabric offers. Its {@code usec/xfer} is the half round trip, as the DAT figure is.
 */
final class LibfabricPingPong {

    /** A libfabric provider and endpoint type that {@code fi_pingpong} runs between two processes. */
    enum Fabric {
        TCP("tcp", "msg"), SHM("shm", "rdm");

        final String provider;
        final String endpointType;

        Fabric(String provider, String endpointType) {
            this.provider = provider;
            this.endpointType = endpointType;
        }

        /** The name a figure gives this baseline. */
        String baselineName() {
            return "fi_pingpong -p " + provider + " -e " + endpointType + " (libfabric, C)";
        }
    }

    private static final long RUN_SECONDS = 60;

    private final Path program;

    private LibfabricPingPong(Path program) {
        this.program = program;
    }

    /** The {@code fi_pingpong} on the {@code PATH}, if there is one. */
    static Optional<LibfabricPingPong> find() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, "fi_pingpong");
            if (Files.isExecutable(candidate)) {
                return Optional.of(new LibfabricPingPong(candidate));
            }
        }
        return Optional.empty();
    }

    /** Whether {@code host} is an address of this host, where both ping-pong processes run. */
    static boolean isThisHost(InetAddress host) {
        try {
            return host.isLoopbackAddress() || host.isAnyLocalAddress() || NetworkInterface.getByInetAddress(host) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /**
     * Runs one ping-pong of {@code size}-byte messages, {@code iterations} round trips.
     *
     * @return the half round trip in microseconds, or empty where the pair did not run (the
     *     provider is missing, a process failed): the report then has no such baseline
     */
    OptionalDouble halfRoundTripMicros(Fabric fabric, long size, int iterations) {
        int port = freePort();
        String[] common = {program.toString(), "-p", fabric.provider, "-e", fabric.endpointType, "-S", Long.toString(size), "-I",
            Integer.toString(iterations)};
        Process server = null;
        try {
            server = start(join(common, "-B", Integer.toString(port)), ProcessBuilder.Redirect.DISCARD);
            Thread.sleep(300); // the server's listening socket; a client too early is refused and the run reads empty
            Process client = start(join(common, "-P", Integer.toString(port), "127.0.0.1"), ProcessBuilder.Redirect.PIPE);
            if (!client.waitFor(RUN_SECONDS, TimeUnit.SECONDS)) {
                client.destroyForcibly();
                return OptionalDouble.empty();
            }
            String output = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return client.exitValue() == 0 ? parse(output, size) : OptionalDouble.empty();
        } catch (IOException e) {
            return OptionalDouble.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalDouble.empty();
        } finally {
            if (server != null) {
                server.destroyForcibly();
            }
        }
    }

    /**
     * The {@code usec/xfer} column of the row for {@code size} in {@code fi_pingpong}'s table
     * ({@code bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec}).
     */
    static OptionalDouble parse(String output, long size) {
        for (String line : output.split("\\R")) {
            String[] cells = line.trim().split("\\s+");
            if (cells.length >= 8 && cells[0].equals(Long.toString(size))) {
                try {
                    return OptionalDouble.of(Double.parseDouble(cells[6]));
                } catch (NumberFormatException e) {
                    return OptionalDouble.empty();
                }
            }
        }
        return OptionalDouble.empty();
    }

    private static Process start(String[] command, ProcessBuilder.Redirect output) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output).start();
    }

    private static String[] join(String[] head, String... tail) {
        String[] all = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
