package dat.provider.sim.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.InterfaceAdapter;
import dat.api.ProviderInfo;
import dat.api.spi.IaOpenRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@code dat.conf} entry whose {@code ia_params} change while an IA of it is open: the registry
 * calls {@code init} with the new parameters before the next open, and {@code fini} only for the
 * last {@code init} of the name. IAs opened afterwards get the new parameters; the IAs open keep
 * theirs until they close, and the old set-up goes with the last of them.
 */
class ReinitTest {

    private final SimIaFactory factory = new SimIaFactory();

    @AfterEach
    void close() {
        factory.close();
    }

    private InterfaceAdapter open(String name, String iaParams) {
        return factory.openIa(new IaOpenRequest(name, 8, null, iaParams));
    }

    @Test
    void anInitWithOtherIaParamsServesTheOpensAfterIt_theOpenIaKeepsItsOwn() {
        ProviderInfo info = new ProviderInfo("simR", 1, 2, true);
        factory.init(info, "max_eps=64");
        InterfaceAdapter old = open("simR", "max_eps=64");
        factory.init(info, "max_eps=32");
        try (InterfaceAdapter renewed = open("simR", "max_eps=32");
                InterfaceAdapter other = open("simR", "max_eps=16")) {
            assertThat(renewed.query().iaAttributes().maxEps()).isEqualTo(32);
            assertThat(old.query().iaAttributes().maxEps()).isEqualTo(64);
            assertThat(renewed.query().iaAttributes().iaAddress()).isNotEqualTo(old.query().iaAttributes().iaAddress());
            // only an init sets an IA name up anew: an open with other parameters gets the current set-up
            assertThat(other.query().iaAttributes().maxEps()).isEqualTo(32);
            assertThat(other.query().iaAttributes().iaAddress()).isEqualTo(renewed.query().iaAttributes().iaAddress());
        }
        old.close();
    }

    @Test
    void theReplacedTcpIaListensUntilItsIasClose_thenItsSocketAndThreadGo() throws Exception {
        ProviderInfo info = new ProviderInfo("tcpR", 1, 2, true);
        factory.init(info, "tcp=127.0.0.1:0");
        InterfaceAdapter old = open("tcpR", "tcp=127.0.0.1:0");
        InetSocketAddress oldAddress = old.query().iaAttributes().iaAddress();
        List<Thread> oldThreads = tcpThreads();
        assertThat(oldThreads).hasSize(1);

        String changed = "tcp=127.0.0.1:0 tcp_timeout_ms=5000";
        factory.init(info, changed);
        InterfaceAdapter renewed = open("tcpR", changed);
        InetSocketAddress newAddress = renewed.query().iaAttributes().iaAddress();
        assertThat(newAddress).as("a new listening socket").isNotEqualTo(oldAddress);
        assertThat(accepts(oldAddress)).as("the old one serves the IA still open on it").isTrue();
        assertThat(old.isOpen()).isTrue();

        old.close(); // the last IA of the old set-up: it goes with it
        assertThat(accepts(oldAddress)).as("the old listening socket, its IAs closed").isFalse();
        oldThreads.getFirst().join(10_000);
        assertThat(oldThreads.getFirst().isAlive()).as("the old IA's thread ended").isFalse();
        assertThat(accepts(newAddress)).isTrue();

        renewed.close();
        List<Thread> newThreads = tcpThreads();
        factory.fini(info); // the entry with the new parameters leaves
        assertThat(accepts(newAddress)).isFalse();
        assertEnded(newThreads);
    }

    @Test
    void aFiniWhileAnIaIsOpenLetsTheAdapterGoWithIt() throws Exception {
        ProviderInfo info = new ProviderInfo("tcpR", 1, 2, true);
        factory.init(info, "tcp=127.0.0.1:0");
        InterfaceAdapter open = open("tcpR", "tcp=127.0.0.1:0");
        InetSocketAddress address = open.query().iaAttributes().iaAddress();
        List<Thread> threads = tcpThreads();
        // the registry finishes the last init of a name, while an IA of an init it replaced may be open
        factory.fini(info);
        assertThat(accepts(address)).as("the IA still open keeps its listening socket").isTrue();
        open.close();
        assertThat(accepts(address)).as("gone with the last IA").isFalse();
        assertEnded(threads);
    }

    @Test
    void anInitAfterAFiniWhileAnIaIsOpenTakesItsFixedPortBack() throws Exception {
        ProviderInfo info = new ProviderInfo("tcpR", 1, 2, true);
        InetSocketAddress fixed;
        try (java.nio.channels.ServerSocketChannel probe = java.nio.channels.ServerSocketChannel.open()) {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            fixed = (InetSocketAddress) probe.getLocalAddress();
        }
        String params = "tcp=127.0.0.1:" + fixed.getPort();
        factory.init(info, params);
        InterfaceAdapter first = open("tcpR", params);
        factory.fini(info); // the entry leaves while an IA of it is open...
        factory.init(info, params); // ...and comes back with the same line: the port is still the open IA's
        try (InterfaceAdapter second = open("tcpR", params)) {
            assertThat(second.query().iaAttributes().iaAddress()).isEqualTo(first.query().iaAttributes().iaAddress());
        }
        assertThat(accepts(fixed)).as("the name's set-up again, it outlives the IAs").isTrue();
        first.close();
        assertThat(accepts(fixed)).isTrue();
        factory.fini(info);
        assertThat(accepts(fixed)).isFalse();
    }

    private static void assertEnded(List<Thread> threads) throws InterruptedException {
        for (Thread thread : threads) {
            thread.join(10_000);
            assertThat(thread.isAlive()).as(thread.getName() + " ended").isFalse();
        }
    }

    /** The live threads of the TCP IA tcpR. */
    private static List<Thread> tcpThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("dat-sim-tcp-tcpR") && t.isAlive())
                .toList();
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
