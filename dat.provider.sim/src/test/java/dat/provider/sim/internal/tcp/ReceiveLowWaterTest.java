package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.ThreadLimit;
import dat.provider.sim.internal.core.*;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** SO_RCVLOWAT on a socket: what a reader asks for, and that a selector then waits for that many bytes. */
class ReceiveLowWaterTest {

    @Test
    void aReaderAsksForTheRestOfALargePayload_upToTheCap_andForAnyByteOtherwise() {
        assertThat(ReceiveLowWater.forPayload(0)).isEqualTo(1);
        assertThat(ReceiveLowWater.forPayload(ReceiveLowWater.MIN - 1)).isEqualTo(1);
        assertThat(ReceiveLowWater.forPayload(ReceiveLowWater.MIN)).isEqualTo(ReceiveLowWater.MIN);
        assertThat(ReceiveLowWater.forPayload(300_000)).isEqualTo(300_000);
        assertThat(ReceiveLowWater.forPayload(4L << 20)).isEqualTo(ReceiveLowWater.CAP);
        assertThat(ReceiveLowWater.forPayload(Long.MAX_VALUE)).isEqualTo(ReceiveLowWater.CAP);
    }

    /** The build runs its tests with the flags the ./dat launcher passes: there, on Linux, the mark is available. */
    @Test
    void availableWhereTheLauncherRunsIt() {
        assumeLinux();
        assertThat(ReceiveLowWater.available()).as("%s", ReceiveLowWater.unavailableReason()).isTrue();
        assertThat(ReceiveLowWater.unavailableReason()).isNull();
    }

    @Test
    void aSelectorWaitsForTheMark_andForAnyByteOnceItIsBackAtOne() throws Exception {
        assumeLinux();
        assumeTrue(ReceiveLowWater.available(), ReceiveLowWater::unavailableReason);
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel sender = SocketChannel.open(server.getLocalAddress()); SocketChannel receiver = server.accept();
                Selector selector = Selector.open()) {
            receiver.configureBlocking(false);
            receiver.register(selector, SelectionKey.OP_READ);
            ReceiveLowWater mark = new ReceiveLowWater();
            assertThat(mark.current()).isEqualTo(1);

            assertThat(mark.set(receiver, 4096)).isTrue();
            assertThat(mark.current()).isEqualTo(4096);
            sender.write(ByteBuffer.allocate(1000));
            awaitQueued(receiver, 1000);
            assertThat(selector.selectNow()).as("readable with 1000 bytes of 4096 queued").isZero();
            sender.write(ByteBuffer.allocate(3096));
            assertThat(selector.select(5_000)).as("readable once 4096 are queued").isEqualTo(1);
            selector.selectedKeys().clear();
            assertThat(receiver.read(ByteBuffer.allocate(8192))).isEqualTo(4096);

            assertThat(mark.set(receiver, 1)).isTrue();
            assertThat(mark.current()).isEqualTo(1);
            sender.write(ByteBuffer.allocate(1));
            assertThat(selector.select(5_000)).as("readable with one byte").isEqualTo(1);
        }
    }

    /** Waits until the socket holds {@code bytes} (FIONREAD), without reading them. */
    private static void awaitQueued(SocketChannel channel, int bytes) throws Exception {
        java.io.InputStream queue = channel.socket().getInputStream();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (queue.available() < bytes && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(queue.available()).isEqualTo(bytes);
    }

    private static void assumeLinux() {
        String arch = System.getProperty("os.arch");
        assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("linux")
                && (arch.equals("amd64") || arch.equals("aarch64")), "SO_RCVLOWAT is used on Linux x86-64 and AArch64 only");
    }
}
