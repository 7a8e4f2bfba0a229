package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.net.InetAddress;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** libfabric's ping-pong as a baseline: its table read, and a run between two processes where installed. */
class LibfabricPingPongTest {

    /** fi_pingpong's output as libfabric 1.17 prints it. */
    private static final String OUTPUT = """
            bytes   #sent   #ack     total       time     MB/sec    usec/xfer   Mxfers/sec
            8       5k      =5k      78k         0.09s      0.87       9.19       0.11
            """;

    @Test
    void theHalfRoundTripIsTheUsecPerXferOfTheSizesRow() {
        assertThat(LibfabricPingPong.parse(OUTPUT, 8)).hasValue(9.19);
        assertThat(LibfabricPingPong.parse(OUTPUT, 64)).isEmpty();
        assertThat(LibfabricPingPong.parse("bind(): Address already in use", 8)).isEmpty();
        assertThat(LibfabricPingPong.parse("8 5k =5k 78k 0.09s 0.87 n/a 0.11", 8)).isEmpty();
    }

    @Test
    void loopbackIsThisHost() throws Exception {
        assertThat(LibfabricPingPong.isThisHost(InetAddress.getLoopbackAddress())).isTrue();
        assertThat(LibfabricPingPong.isThisHost(InetAddress.getByName("192.0.2.1"))).as("TEST-NET-1").isFalse();
    }

    /** Where fi_pingpong is installed (CI installs libfabric-bin), its tcp pair runs and reports a time. */
    @Test
    void anInstalledFiPingpong_measuresATcpPingPong() {
        var pingPong = LibfabricPingPong.find();
        assumeThat(pingPong).as("fi_pingpong on the PATH (Debian's libfabric-bin)").isPresent();
        OptionalDouble micros = pingPong.orElseThrow().halfRoundTripMicros(LibfabricPingPong.Fabric.TCP, 8, 200);
        assertThat(micros).isPresent();
        assertThat(micros.getAsDouble()).isPositive();
    }
}
