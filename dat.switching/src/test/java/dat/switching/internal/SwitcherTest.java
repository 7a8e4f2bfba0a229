package dat.switching.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.switching.Accounting;
import dat.switching.IaSession;
import dat.switching.IaSwitcher;
import dat.switching.LossContext;
import dat.switching.SwitchCause;
import dat.switching.SwitchEvent;
import dat.switching.SwitchOptions;
import dat.switching.internal.FakeRegistry.FakeIa;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The switcher against a registry whose entries the tests set. */
@Timeout(60)
class SwitcherTest {

    /** Long enough for the switcher to act on a signal: many async EVD polls of 50 ms. */
    private static final long A_MOMENT_MILLIS = 500;

    private final FakeRegistry registry = new FakeRegistry();
    private final List<SwitchCause> lost = new CopyOnWriteArrayList<>();
    private final List<SwitchEvent> switches = new CopyOnWriteArrayList<>();
    private final IaSession<InterfaceAdapter> session = new IaSession<>() {
        @Override
        public InterfaceAdapter open(InterfaceAdapter ia, ProviderDTO provider) {
            return ia;
        }

        @Override
        public Accounting lost(InterfaceAdapter ia, LossContext context) {
            lost.add(context.cause());
            return Accounting.NONE;
        }
    };
    private IaSwitcher<InterfaceAdapter> switcher;

    @AfterEach
    void close() {
        if (switcher != null) {
            switcher.close();
        }
    }

    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    private IaSwitcher<InterfaceAdapter> start(SwitchOptions options) throws InterruptedException {
        switcher = IaSwitcher.start(registry, options, session);
        switcher.addListener(switches::add);
        return switcher;
    }

    private FakeIa opened(int n) {
        return registry.opens.get(n).ia();
    }

    @Test
    void aProviderOutrankedForItsIaNameHasNotLeftAndItsIaIsKept() throws Exception {
        ProviderDTO sim0 = FakeRegistry.active(12, "sim0");
        registry.add(sim0);
        start(SwitchOptions.of("outranked", "(dat.transport=sim)"));
        assertThat(switcher.awaitSession(Duration.ofSeconds(10))).isNotNull();

        registry.shadow(sim0, FakeRegistry.entry(20, "sim0", ProviderDTO.Origin.DYNAMIC, ProviderDTO.State.ACTIVE, 10, false));
        Thread.sleep(A_MOMENT_MILLIS);

        assertThat(switcher.generation()).as("no switch: %s", switches).isEqualTo(1);
        assertThat(switches).extracting(SwitchEvent::cause).containsExactly(SwitchCause.INITIAL);
        assertThat(switcher.provider().orElseThrow().id()).isEqualTo(12);
        assertThat(opened(0).closed()).as("the working IA").isFalse();
        assertThat(lost).isEmpty();
    }

    @Test
    void aProviderThatLeavesIsLeftForTheNextCandidate() throws Exception {
        ProviderDTO sim0 = FakeRegistry.active(12, "sim0");
        registry.add(sim0);
        registry.add(FakeRegistry.active(13, "sim1"));
        start(SwitchOptions.of("left", "(dat.transport=sim)"));
        assertThat(switcher.awaitSession(Duration.ofSeconds(10))).isNotNull();

        registry.remove(sim0);

        assertThat(eventually(() -> switcher.generation() == 2 && switches.size() == 2)).as("%s", switches).isTrue();
        assertThat(switches.get(1).cause()).isEqualTo(SwitchCause.PROVIDER_LEFT);
        assertThat(switches.get(1).to().iaName()).isEqualTo("sim1");
        assertThat(opened(0).closed()).isTrue();
        assertThat(lost).containsExactly(SwitchCause.PROVIDER_LEFT);
    }

    @Test
    void closeFromASwitchListenerSettlesTheSessionOnceWithoutWaitingForItself() throws Exception {
        Duration callbackTimeout = Duration.ofSeconds(2);
        start(SwitchOptions.of("self-close", "(dat.transport=sim)").withCallbackTimeout(callbackTimeout));
        AtomicLong closeNanos = new AtomicLong(-1);
        switcher.addListener(event -> {
            long before = System.nanoTime();
            switcher.close();
            closeNanos.set(System.nanoTime() - before);
        });

        registry.add(FakeRegistry.active(12, "sim0"));

        assertThat(eventually(() -> switcher.state() == IaSwitcher.State.CLOSED)).as("%s", switcher).isTrue();
        assertThat(eventually(() -> closeNanos.get() >= 0)).isTrue();
        assertThat(registry.opens).hasSize(1);
        assertThat(eventually(() -> opened(0).closed())).as("the IA opened before the close is closed").isTrue();
        assertThat(opened(0).closes.get()).isEqualTo(1);
        assertThat(lost).containsExactly(SwitchCause.CLOSED);
        // a hang guard: joining its own thread would have waited out the callback timeout and more
        assertThat(closeNanos.get()).as("close() on the switcher's own thread").isLessThan(callbackTimeout.toNanos());
        assertThat(switcher.session()).isNull();
    }

    @Test
    void reselectMovesToAPreferredIaOfTheSameProvider() throws Exception {
        registry.add(FakeRegistry.active(12, "sim0"));
        start(SwitchOptions.of("reselect", "(dat.transport=sim)").withPreferences("(dat.ia.name=simB)"));
        assertThat(switcher.awaitSession(Duration.ofSeconds(10))).isNotNull();
        // a static entry the same provider serves
        registry.add(FakeRegistry.entry(12, "simB", ProviderDTO.Origin.STATIC, ProviderDTO.State.ACTIVE, 0, false));
        Thread.sleep(A_MOMENT_MILLIS);
        assertThat(switcher.generation()).as("no move on the arrival alone").isEqualTo(1);

        switcher.reselect();

        assertThat(eventually(() -> switcher.generation() == 2 && switches.size() == 2)).as("%s", switches).isTrue();
        assertThat(switches.get(1).cause()).isEqualTo(SwitchCause.RESELECTED);
        assertThat(switches.get(1).to().iaName()).isEqualTo("simB");
        assertThat(opened(0).closed()).isTrue();

        switcher.reselect(); // already on the best candidate
        Thread.sleep(A_MOMENT_MILLIS);
        assertThat(switcher.generation()).isEqualTo(2);
    }

    @Test
    void theCandidateIsOpenedWithItsOwnVersionAndThreadSafety() throws Exception {
        registry.add(FakeRegistry.entry(12, "simT", ProviderDTO.Origin.DYNAMIC, ProviderDTO.State.ACTIVE, 0, true));
        start(SwitchOptions.of("exact", "(dat.ia.name=simT)"));
        assertThat(switcher.awaitSession(Duration.ofSeconds(10))).isNotNull();

        FakeRegistry.Open open = registry.opens.getFirst();
        assertThat(open.iaName()).isEqualTo("simT");
        assertThat(open.versionMajor()).isEqualTo(1);
        assertThat(open.versionMinor()).isEqualTo(2);
        assertThat(open.threadSafe()).as("the candidate is thread safe").isTrue();
        assertThat(switcher.provider().orElseThrow().threadSafe()).isTrue();
    }
}
