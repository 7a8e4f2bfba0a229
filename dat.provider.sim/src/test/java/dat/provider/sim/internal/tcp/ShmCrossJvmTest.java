package dat.provider.sim.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dat.provider.sim.internal.Fabric;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TcpCrossJvmTest} over the shared-memory wire ({@code shm=on} in both JVMs): echo, RDMA
 * write and read of the peer's memory, a write outside it refused with REMOTE_ACCESS; the peer
 * killed (SIGKILL) or stopped (SIGSTOP) in the middle of a stream of RDMA writes, every posted DTO
 * accounted for. Each connection goes through a ring file, and once it ended this process maps
 * no ring file any more.
 */
@Timeout(120)
class ShmCrossJvmTest extends TcpCrossJvmTest {

    @Override
    String iaParams() {
        return "tcp=127.0.0.1:0 shm=on";
    }

    @Override
    void established(Fabric.Side s) {
        assertThat(s.ia.query().iaAttributes().transportAttributes()).containsEntry("shm.established", "1")
                .containsEntry("tcp.established", "0");
        assertThat(ringMappings()).as("the connection's ring file is mapped").isNotEmpty();
    }

    @Override
    void ended(Fabric.Side s) {
        // the I/O agent retires a closed connection on its own thread: wait for it as for a completion
        long deadline = System.nanoTime() + Fabric.WAIT * 1000;
        List<String> left = ringMappings();
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            left = ringMappings();
        }
        assertThat(left).as("ring files still mapped after the connection ended").isEmpty();
        assertThat(s.ia.query().iaAttributes().transportAttributes()).containsEntry("shm.connections", "0");
    }

    /** The lines of {@code /proc/self/maps} that map a sim ring file. */
    private static List<String> ringMappings() {
        try {
            return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains("/dev/shm/dat-sim-")).toList();
        } catch (IOException e) {
            throw new AssertionError("cannot read /proc/self/maps", e);
        }
    }
}
