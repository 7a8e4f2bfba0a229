package dat.provider.sim.internal;

import dat.provider.sim.internal.core.*;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.InterfaceAdapter;
import dat.registry.DatRegistries;
import dat.registry.StandaloneRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sim provider in a plain-Java registry ({@link DatRegistries}): what it holds between opens
 * (a TCP IA's listening socket, its threads) goes as the registry closes.
 */
class StandaloneRegistryTest {

    @Test
    void closingTheRegistry_closesItsSimProvider_theListeningSocketsAndThreadsGone(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("dat.conf");
        Files.writeString(conf, """
                tcpKept u1.2 threadsafe default sim 1.0 "tcp=127.0.0.1:0" ""
                tcpHeld u1.2 threadsafe default sim 1.0 "tcp=127.0.0.1:0" ""
                """);
        Set<Thread> before = providerThreads();
        StandaloneRegistry registry = DatRegistries.builder().classLoader(SimIaFactory.class.getClassLoader())
                .staticRegistry(conf).build();
        InetSocketAddress kept;
        try (InterfaceAdapter ia = registry.openIa("tcpKept")) {
            kept = ia.query().iaAttributes().iaAddress();
        }
        InterfaceAdapter held = registry.openIa("tcpHeld");
        InetSocketAddress heldAddress = held.query().iaAttributes().iaAddress();
        assertThat(accepts(kept)).as("an IA name keeps its listening socket between opens").isTrue();
        Set<Thread> started = new HashSet<>(providerThreads());
        started.removeAll(before);
        assertThat(started).extracting(Thread::getName).as("the provider's threads")
                .contains("dat-sim-conductor", "dat-sim-tcp-tcpKept", "dat-sim-tcp-tcpHeld");

        registry.close();

        assertThat(held.isOpen()).as("the IA left open fails as its provider closes").isFalse();
        assertThat(accepts(kept)).as("the listening socket of " + kept + ", its IA name undone (fini)").isFalse();
        assertThat(accepts(heldAddress)).as("the listening socket of " + heldAddress + ", its provider closed").isFalse();
        for (Thread thread : started) {
            thread.join(10_000);
            assertThat(thread.isAlive()).as(thread.getName() + " ended").isFalse();
        }
        held.close(); // a failed IA closes quietly
    }

    /** The live threads of sim providers. */
    private static Set<Thread> providerThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("dat-sim-"))
                .collect(Collectors.toSet());
    }

    /** Whether something listens at the address. */
    private static boolean accepts(InetSocketAddress address) {
        try (SocketChannel channel = SocketChannel.open(address)) {
            return channel.isConnected();
        } catch (IOException refused) {
            return false;
        }
    }
}
