package dat.management.internal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code dat stats --jmx} gives up on a JVM that does not answer, instead of waiting as long as the connector would. */
class RemoteJvmTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aListenerThatNeverAnswersIsGivenUpOn() throws Exception {
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        Thread acceptor = Thread.ofPlatform().daemon().start(() -> {
            try {
                while (!silent.isClosed()) {
                    accepted.add(silent.accept()); // held open, never written to
                }
            } catch (IOException closed) {
                // the test ended
            }
        });
        try {
            String url = "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + silent.getLocalPort() + "/jmxrmi";
            assertThatThrownBy(() -> RemoteJvm.connect(url, Duration.ofSeconds(1))).isInstanceOf(IOException.class)
                    .hasMessage("cannot connect to " + url + ": no answer within 1 s");
        } finally {
            silent.close();
            acceptor.join(5_000);
            for (Socket socket : accepted) {
                socket.close();
            }
        }
    }
}
