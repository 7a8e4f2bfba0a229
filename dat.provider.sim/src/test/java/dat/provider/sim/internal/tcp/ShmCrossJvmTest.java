package dat.provider.sim.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.shm.RingFiles;
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
        assertThat(RingFiles.mapped()).as("the connection's ring file is mapped").isNotEmpty();
    }

    @Override
    void ended(Fabric.Side s) {
        RingFiles.assertNoneMapped();
        assertThat(s.ia.query().iaAttributes().transportAttributes()).containsEntry("shm.connections", "0");
    }
}
