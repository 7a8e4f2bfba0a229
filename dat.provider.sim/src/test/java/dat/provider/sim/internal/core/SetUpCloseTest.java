package dat.provider.sim.internal.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An {@code init} with new {@code ia_params} closes the unused adapter it replaces outside the
 * provider's monitor: only the same IA name waits for that close, and it then gets the new adapter.
 * The TCP transports here are stand-ins whose close waits until the test lets it end.
 */
class SetUpCloseTest {

    /** A transport bound to nothing: its close returns only once {@link #closeMayEnd} counts down. */
    private final class SlowClosing implements Transport.Bound {
        final InetSocketAddress address;
        final CountDownLatch closing = new CountDownLatch(1);

        SlowClosing(InetSocketAddress address) {
            this.address = address;
        }

        @Override
        public InetSocketAddress address() {
            return address;
        }

        @Override
        public void start(Adapter adapter) {
        }

        @Override
        public void connect(ConnectAttempt attempt) {
            throw new IllegalStateException("a stand-in transport connects nowhere");
        }

        @Override
        public boolean close() {
            closing.countDown();
            try {
                return closeMayEnd.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        @Override
        public String fabricName() {
            return "stand-in";
        }
    }

    private final CountDownLatch closeMayEnd = new CountDownLatch(1);
    private final List<SlowClosing> bound = new CopyOnWriteArrayList<>();
    private final Transport inJvm = new Transport() {
        @Override
        public void connect(ConnectAttempt attempt) {
            throw new IllegalStateException("a stand-in fabric connects nowhere");
        }

        @Override
        public String fabricName() {
            return "in-jvm stand-in";
        }
    };
    private final SimProvider provider = new SimProvider(ProviderSettings.defaults(), "set-up-close-test", new Transport.Factory() {
        @Override
        public Transport inJvm(SimProvider p) {
            return inJvm;
        }

        @Override
        public Transport.Bound tcp(InetSocketAddress bind, SimLimits limits, String adapterName, long timeoutMs, long spinMicros,
                String shm) {
            SlowClosing transport = new SlowClosing(new InetSocketAddress(bind.getAddress(), 40_000 + bound.size()));
            bound.add(transport);
            return transport;
        }
    });

    @AfterEach
    void shutdown() {
        closeMayEnd.countDown();
        provider.shutdown();
    }

    @Test
    void aReplacedUnusedAdapterClosesWhileOtherNamesOpen_andItsOwnNameWaitsForTheNewAdapter() throws Exception {
        provider.setUp("tcpA", "tcp=127.0.0.1:7700");
        Adapter first = provider.adapter("tcpA", "tcp=127.0.0.1:7700");
        assertThat(bound).hasSize(1);

        CompletableFuture<Void> init = CompletableFuture.runAsync(() -> provider.setUp("tcpA", "tcp=127.0.0.1:7701"));
        assertThat(bound.getFirst().closing.await(5, TimeUnit.SECONDS)).as("the old adapter's close began").isTrue();

        // the close is under way: another IA name is set up and opened meanwhile
        Adapter other = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            provider.setUp("simB", "");
            return provider.adapter("simB", "");
        });
        assertThat(other.name).isEqualTo("simB");
        assertThat(provider.serves("tcpA")).as("the name is still served while its set-up closes the old adapter").isTrue();

        // an open of the same name waits for the set-up, then gets the new adapter
        CompletableFuture<Adapter> open = CompletableFuture.supplyAsync(() -> provider.adapter("tcpA", "tcp=127.0.0.1:7701"));
        Thread.sleep(200);
        assertThat(open).as("an open of the name waits for its set-up").isNotDone();
        assertThat(init).isNotDone();
        assertThat(bound).as("no new transport is bound before the old one closed").hasSize(1);

        closeMayEnd.countDown();
        init.get(5, TimeUnit.SECONDS);
        Adapter next = open.get(5, TimeUnit.SECONDS);
        assertThat(next).isNotSameAs(first);
        assertThat(next.transport).isSameAs(bound.get(1));
        assertThat(bound).hasSize(2);
        assertThat(provider.resolveLocal(first.address)).as("the old adapter's address is released").isNull();
    }

    @Test
    void aSetUpWhoseCloseOutlastsTheProvider_endsStopped_andItsWaitersWake() throws Exception {
        provider.setUp("tcpA", "tcp=127.0.0.1:7700");
        CompletableFuture<Void> init = CompletableFuture.runAsync(() -> provider.setUp("tcpA", "tcp=127.0.0.1:7701"));
        assertThat(bound.getFirst().closing.await(5, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Adapter> open = CompletableFuture.supplyAsync(() -> provider.adapter("tcpA", "tcp=127.0.0.1:7701"));

        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> provider.shutdown());
        closeMayEnd.countDown();
        assertThat(init).failsWithin(5, TimeUnit.SECONDS).withThrowableThat().withMessageContaining("the sim provider has stopped");
        assertThat(open).failsWithin(5, TimeUnit.SECONDS).withThrowableThat().withMessageContaining("the sim provider has stopped");
        assertThat(bound).as("nothing is bound after the provider stopped").hasSize(1);
    }
}
