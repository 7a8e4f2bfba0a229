package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A PSP on a port the process lacks the privilege to listen on is {@code DAT_INVALID_PARAMETER}
 * naming the qualifier (dat_psp_create(3DAT) has no code of its own for it), not a privileges
 * violation, which the page does not list. {@link PrivilegedPortProbe} asks in a user namespace of
 * its own, where it holds no capability over the host's network, even when the test runs as root.
 */
class PrivilegedQualifierTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aPortTheProcessMayNotBindIsAnInvalidQualifier() throws Exception {
        try (OfiRuntime runtime = TcpLoopback.start()) {
            TcpLoopback.factory(runtime); // skips where libfabric tcp is absent
        }
        int firstUnprivileged;
        try (BufferedReader sysctl = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_unprivileged_port_start"))) {
            firstUnprivileged = Integer.parseInt(sysctl.readLine().strip()); // one read: Files.readString reads a sysctl's first byte
        }
        assumeTrue(firstUnprivileged > 1, "every port is unprivileged on this host (net.ipv4.ip_unprivileged_port_start "
                + firstUnprivileged + ")");
        List<String> command = new ArrayList<>(List.of("unshare", "--user", "--"));
        command.addAll(TcpLoopback.javaCommand(PrivilegedPortProbe.class, Integer.toString(firstUnprivileged - 1)));
        Path output = Files.createTempFile("privileged-port-probe", ".txt");
        Process probe = null;
        try {
            try {
                probe = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
            } catch (IOException e) {
                assumeTrue(false, () -> "no unshare(1) to run the probe in a user namespace: " + e.getMessage());
            }
            assertThat(probe.waitFor(60, TimeUnit.SECONDS)).as("the probe ended").isTrue();
            String out = Files.readString(output);
            assumeFalse(out.startsWith("unshare:"), () -> "no user namespace for the probe here: " + out.strip());
            assertThat(out).as("the probe's output (exit " + probe.exitValue() + ")")
                    .contains("CODE DAT_INVALID_PARAMETER(DAT_INVALID_ARG2)");
        } finally {
            if (probe != null) {
                probe.destroyForcibly();
            }
            Files.deleteIfExists(output);
        }
    }
}
