package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The raw shared-memory spin ping-pong of {@code dat perf --client} against a server's side of it
 * in this JVM: its figures, the file it leaves nowhere (neither name nor mapping, also when the
 * server does not take part or stops echoing), and the files the server refuses to map.
 */
@Timeout(60)
class ShmSpinTest {

    private final ServerSocketChannel listener = open();
    private final String prefix = ShmSpin.PREFIX + ProcessHandle.current().pid() + "-";

    private static ServerSocketChannel open() {
        try {
            return ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @AfterEach
    void close() throws IOException {
        listener.close();
    }

    private InetSocketAddress address() throws IOException {
        return (InetSocketAddress) listener.getLocalAddress();
    }

    /** Serves one connection on its own thread as {@link PerfServer} does: the head, then {@code server}. */
    private Thread serveOne(ServerSide server) {
        return Thread.ofPlatform().daemon().start(() -> {
            try (SocketChannel channel = listener.accept()) {
                ByteBuffer head = ByteBuffer.allocate(PerfServer.NIO_HEAD_BYTES);
                if (PerfClient.readFully(channel, head)) {
                    assertThat(head.get(0)).isEqualTo(ShmSpin.MODE);
                    server.serve(channel, head.getInt(1));
                }
            } catch (IOException e) {
                // the client went away
            }
        });
    }

    private interface ServerSide {
        void serve(SocketChannel channel, int nameLength) throws IOException;
    }

    @Test
    void roundTripsAgainstTheServersEcho_thenNoFileNameAndNoMappingIsLeft() throws Exception {
        Thread server = serveOne(ShmSpin::echo);
        Stats halves = ShmSpin.halfRoundTrips(address(), 2_000);
        server.join(10_000);
        assertThat(server.isAlive()).as("the server's echo ended with the client's stop").isFalse();
        assertThat(halves.count()).isEqualTo(2_000);
        assertThat(halves.min()).isPositive().isLessThanOrEqualTo(halves.median());
        assertThat(halves.median()).isLessThanOrEqualTo(halves.p99()).isLessThanOrEqualTo(halves.max());
        assertNothingLeft();
    }

    @Test
    void aServerThatDoesNotTakePart_failsTheBaselineWithItsReason_andLeavesNoFile() throws Exception {
        Thread server = serveOne((channel, length) -> { }); // an older server: closes a mode it does not know
        assertThatThrownBy(() -> ShmSpin.halfRoundTrips(address(), 100)).isInstanceOf(IOException.class)
                .hasMessageContaining("the server closed the connection");
        server.join(10_000);
        assertNothingLeft();
    }

    @Test
    void aServerThatMapsButNeverEchoes_endsTheRunAfterTheIdleTimeout_andLeavesNoFile() throws Exception {
        AtomicReference<String> named = new AtomicReference<>();
        Thread server = serveOne((channel, length) -> {
            ByteBuffer request = ByteBuffer.allocate(length + 8);
            PerfClient.readFully(channel, request);
            named.set(new String(request.array(), 0, length, StandardCharsets.US_ASCII));
            ByteBuffer mapped = ByteBuffer.allocate(8).putLong(0, 1);
            channel.write(mapped);
            channel.read(ByteBuffer.allocate(1)); // until the client closes
        });
        long start = System.nanoTime();
        assertThatThrownBy(() -> ShmSpin.halfRoundTrips(address(), 100)).isInstanceOf(IOException.class)
                .hasMessageContaining("no echo from the server within 5 s");
        assertThat(System.nanoTime() - start).as("it gave up, after the idle timeout").isGreaterThanOrEqualTo(ShmSpin.IDLE_NANOS);
        server.join(10_000);
        assertThat(named.get()).startsWith(prefix);
        assertNothingLeft();
    }

    @Test
    void theServerMapsOnlyARegularFileOfItsPatternDirectlyInDevShm_noLinkFollowed() throws Exception {
        Path target = Files.createTempFile("dat-perf-spin-target", ".bin");
        Path link = ShmSpin.DIRECTORY.resolve(prefix + "00000000000000aa");
        try {
            Files.write(target, new byte[(int) ShmSpin.FILE_BYTES]);
            Files.createSymbolicLink(link, target);
            for (String name : List.of(link.getFileName().toString(), "../tmp/" + target.getFileName(), "dat-sim-1-00000000000000aa.ring")) {
                Thread server = serveOne((channel, length) -> {
                    try {
                        ShmSpin.echo(channel, length);
                    } catch (IOException e) {
                        // refused as well: the connection closes unanswered
                    }
                });
                try (SocketChannel client = SocketChannel.open(address())) {
                    byte[] encoded = name.getBytes(StandardCharsets.US_ASCII);
                    client.write(ByteBuffer.allocate(PerfServer.NIO_HEAD_BYTES + encoded.length + 8).put(ShmSpin.MODE)
                            .putInt(encoded.length).putInt(0).put(encoded).putLong(0).flip());
                    assertThat(client.read(ByteBuffer.allocate(8))).as(name + ": closed without an answer").isEqualTo(-1);
                }
                server.join(10_000);
            }
            assertThat(mapped()).isEmpty();
        } finally {
            Files.deleteIfExists(link);
            Files.deleteIfExists(target);
        }
    }

    /** No file of this process's runs in /dev/shm, and none mapped. */
    private void assertNothingLeft() throws IOException {
        try (Stream<Path> files = Files.list(ShmSpin.DIRECTORY)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix))).isEmpty();
        }
        assertThat(mapped()).isEmpty();
    }

    private static List<String> mapped() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains(ShmSpin.PREFIX)).toList();
    }
}
