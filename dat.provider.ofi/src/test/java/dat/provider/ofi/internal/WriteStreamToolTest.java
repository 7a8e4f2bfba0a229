package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The C program behind {@code docs/ofi-provider.md}'s libfabric ceiling for the 64 KiB RDMA-write
 * figure ({@code src/test/c/fi_write_stream.c}): it builds against the installed headers, and a
 * client measures both of its streams against a server, so that the documented command still
 * works. Skipped where gcc or libfabric's headers are missing ({@code .ci/run} installs them).
 */
class WriteStreamToolTest {

    private static final Pattern RESULT = Pattern.compile("median GB/s: write ([0-9.]+) stream ([0-9.]+) ratio ([0-9.]+)");

    @Test
    @Timeout(120)
    void theToolBuilds_andItsClientMeasuresBothStreamsAgainstItsServer(@TempDir Path dir) throws Exception {
        Path binary = dir.resolve("fi_write_stream");
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-O2", "-Wall", "-o", binary.toString(), Path.of("src/test/c/fi_write_stream.c").toString(),
                    "-lfabric", "-lpthread").redirectErrorStream(true).start();
        } catch (IOException noGcc) {
            assumeTrue(false, "gcc is missing");
            return;
        }
        String compiler = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(gcc.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assumeTrue(gcc.exitValue() == 0 || !compiler.contains("rdma/fabric.h"), "libfabric's headers are missing");
        assertThat(gcc.exitValue()).as("gcc:%n%s", compiler).isZero();
        assertThat(compiler).as("gcc's warnings").isEmpty();

        int port = freePortPair();
        Process server = new ProcessBuilder(binary.toString(), "server", "tcp", Integer.toString(port)).redirectErrorStream(true).start();
        try {
            BufferedReader serverOut = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            assertThat(serverOut.readLine()).startsWith("serving tcp on 127.0.0.1:" + port);
            // every write with delivery completion, then one in four (the others without completion)
            for (String completion : new String[] {"delivery", "delivery4"}) {
                Process client = new ProcessBuilder(binary.toString(), "client", "tcp", "127.0.0.1", Integer.toString(port), "64K", "100",
                        "2", "8", completion).redirectErrorStream(true).start();
                String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(client.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(client.exitValue()).as(out).isZero();
                assertThat(out.lines().filter(l -> l.startsWith("round ")).count()).as(out).isEqualTo(2);
                Matcher m = RESULT.matcher(out);
                assertThat(m.find()).as(out).isTrue();
                assertThat(out).contains(completion + " completion");
                assertThat(Double.parseDouble(m.group(1))).as("the RDMA-write stream's GB/s").isPositive();
                assertThat(Double.parseDouble(m.group(2))).as("the TCP stream's GB/s").isPositive();
            }

            Process usage = new ProcessBuilder(binary.toString(), "client", "tcp").redirectErrorStream(true).start();
            String usageOut = new String(usage.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(usage.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(usage.exitValue()).isEqualTo(2);
            assertThat(usageOut).startsWith("usage: fi_write_stream");
        } finally {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            Files.deleteIfExists(binary);
        }
    }

    /** A port whose successor is free too on the loopback address: the server listens on both. */
    private static int freePortPair() throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket first = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int port = first.getLocalPort();
                if (port < 65535) {
                    try {
                        new ServerSocket(port + 1, 1, InetAddress.getLoopbackAddress()).close();
                        return port;
                    } catch (IOException taken) {
                        // try another
                    }
                }
            }
        }
        throw new IOException("no two adjacent free ports on the loopback address");
    }
}
