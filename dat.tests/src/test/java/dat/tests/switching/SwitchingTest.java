package dat.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatRegistry;
import dat.api.ProviderDTO;
import dat.api.spi.DatIaFactory;
import dat.tests.OutrankedSim0;
import dat.management.IaStatisticsMXBean;
import dat.switching.Accounting;
import dat.switching.IaSwitcher;
import dat.switching.SwitchCause;
import dat.switching.SwitchEvent;
import dat.switching.SwitchOptions;
import java.lang.management.ManagementFactory;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.test.common.annotation.InjectBundleContext;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.junit5.context.BundleContextExtension;
import org.osgi.test.junit5.service.ServiceExtension;

/**
 * Runtime provider switching ({@code dat.switching}) inside the framework: traffic runs on an IA the
 * switcher chose, the provider's bundle stops, and the traffic resumes on another provider (or on
 * the same one when it comes back), with every operation posted on the old IA accounted for
 * (completed or flushed). The providers are the example provider ({@code metered-sim0}, which
 * decorates {@code sim0}) and the sim provider ({@code sim0}), both of transport {@code sim}.
 */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
@Timeout(120)
class SwitchingTest {

    /** Every IA of transport sim, but not the test-only providers. */
    private static final String SIM_IAS = "(&(dat.transport=sim)(!(dat.conformance=false)))";

    @InjectBundleContext
    BundleContext context;

    @InjectService(timeout = 5000)
    DatRegistry registry;

    private final LoopbackTraffic traffic = new LoopbackTraffic();
    private final List<SwitchEvent> switches = new CopyOnWriteArrayList<>();
    private IaSwitcher<LoopbackTraffic.OnIa> switcher;

    /**
     * The n-th switch the listener was told of (0-based). The switcher publishes a session before
     * it tells its listeners, so a test that saw the session may still wait for the event.
     */
    private SwitchEvent told(int n) throws InterruptedException {
        assertThat(eventually(10_000, () -> switches.size() > n)).as("switch %d told to the listener: %s", n, switches).isTrue();
        return switches.get(n);
    }

    private static boolean eventually(long millis, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle bundle : context.getBundles()) {
            if (symbolicName.equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }

    private boolean offered(String iaName) {
        return !registry.findProviders("(dat.ia.name=" + iaName + ")").isEmpty();
    }

    @BeforeEach
    void providersPresent() throws InterruptedException {
        assertThat(eventually(10_000, () -> offered("sim0") && offered("metered-sim0"))).as("sim0 and metered-sim0").isTrue();
    }

    @AfterEach
    void stop() throws Exception {
        if (switcher != null) {
            switcher.close();
            assertThat(switcher.state()).isEqualTo(IaSwitcher.State.CLOSED);
        }
        traffic.finish();
        for (String name : List.of("dat.provider.sim", "dat.example.provider")) {
            Bundle bundle = bundle(name);
            if (bundle.getState() != Bundle.ACTIVE) {
                bundle.start();
            }
        }
        assertThat(traffic.corrupt.get()).as("messages received damaged").isZero();
    }

    private void start(SwitchOptions options) throws InterruptedException {
        switcher = IaSwitcher.start(registry, options.withCallbackTimeout(Duration.ofSeconds(20)), traffic);
        switcher.addListener(switches::add);
        assertThat(switcher.awaitSession(Duration.ofSeconds(10))).as("the first session").isNotNull();
        traffic.start(switcher);
    }

    /** Waits until this many more messages went through, to show traffic flows. */
    private void trafficFlows(long more) throws InterruptedException {
        long target = traffic.roundTrips.get() + more;
        assertThat(eventually(20_000, () -> traffic.roundTrips.get() >= target))
                .as("%d more round trips (now %d) on %s", more, traffic.roundTrips.get(), switcher).isTrue();
    }

    private static void assertEverythingAccounted(SwitchEvent event) {
        Accounting accounting = event.accounting();
        assertThat(accounting).as("the old IA's accounting in %s", event).isNotNull();
        assertThat(accounting.posted()).as("operations posted on the old IA").isPositive();
        assertThat(accounting.unaccounted()).as("operations of the old IA neither completed nor flushed: %s", accounting)
                .isZero();
        assertThat(accounting.completed() + accounting.flushed() + accounting.failed()).isEqualTo(accounting.posted());
        assertThat(accounting.flushed()).as("the receives posted ahead, flushed when the provider left: %s", accounting)
                .isPositive();
    }

    @Test
    void theTrafficMovesToAnotherProviderWhenTheCurrentOneLeaves() throws Exception {
        start(SwitchOptions.of("to-another", SIM_IAS).withPreferences("(dat.provider.name=metered)"));
        assertThat(switcher.provider().orElseThrow().iaName()).as("the preferred provider").isEqualTo("metered-sim0");
        trafficFlows(100);

        bundle("dat.example.provider").stop(); // the metered provider leaves under the running traffic

        assertThat(eventually(20_000, () -> switcher.generation() == 2 && switcher.session() != null))
                .as("a second session, on %s", switcher).isTrue();
        assertThat(switcher.provider().orElseThrow().iaName()).as("the other provider").isEqualTo("sim0");
        trafficFlows(100);

        SwitchEvent moved = told(1);
        assertThat(switches).hasSize(2);
        assertThat(switches.get(0).cause()).isEqualTo(SwitchCause.INITIAL);
        assertThat(moved.cause()).isEqualTo(SwitchCause.PROVIDER_LEFT);
        assertThat(moved.from().iaName()).isEqualTo("metered-sim0");
        assertThat(moved.to().iaName()).isEqualTo("sim0");
        assertThat(moved.generation()).isEqualTo(2);
        assertEverythingAccounted(moved);
    }

    @Test
    void withNoProviderItWaitsWithoutBlockingAndResumesWhenOneComes() throws Exception {
        start(SwitchOptions.of("wait-and-resume", "(dat.ia.name=metered-sim0)"));
        trafficFlows(50);
        Bundle example = bundle("dat.example.provider");

        example.stop();

        assertThat(eventually(10_000, () -> switcher.state() == IaSwitcher.State.WAITING)).as("waiting: %s", switcher).isTrue();
        assertThat(switcher.session()).isNull();
        long before = System.nanoTime();
        assertThat(switcher.awaitSession(Duration.ofMillis(200))).as("no session while no provider").isNull();
        assertThat(System.nanoTime() - before).as("the wait is bounded").isLessThan(5_000_000_000L);

        example.start();

        assertThat(eventually(20_000, () -> switcher.generation() == 2 && switcher.session() != null))
                .as("a session on the returning provider: %s", switcher).isTrue();
        trafficFlows(50);
        SwitchEvent resumed = told(1);
        assertThat(resumed.cause()).isEqualTo(SwitchCause.PROVIDER_LEFT);
        assertThat(resumed.from().iaName()).isEqualTo("metered-sim0");
        assertThat(resumed.to().iaName()).isEqualTo("metered-sim0");
        assertThat(resumed.downtime()).isPositive();
        assertEverythingAccounted(resumed);
    }

    @Test
    void whenTheProviderUnderTheDecoratorLeavesBothIasGoAndTheTrafficComesBack() throws Exception {
        start(SwitchOptions.of("underlying", SIM_IAS).withPreferences("(dat.provider.name=metered)"));
        trafficFlows(50);
        Bundle sim = bundle("dat.provider.sim");

        sim.stop(); // sim0 leaves, and metered-sim0 with it: its IAs fail through the decoration

        assertThat(eventually(10_000, () -> switcher.state() == IaSwitcher.State.WAITING)).as("waiting: %s", switcher).isTrue();
        sim.start();

        assertThat(eventually(20_000, () -> switcher.generation() >= 2 && switcher.session() != null))
                .as("a session once sim is back: %s", switcher).isTrue();
        trafficFlows(50);
        SwitchEvent resumed = told(1);
        assertThat(resumed.cause()).isIn(SwitchCause.PROVIDER_LEFT, SwitchCause.IA_FAILED);
        assertThat(resumed.from().iaName()).isEqualTo("metered-sim0");
        assertEverythingAccounted(resumed);
    }

    @Test
    void aProviderThatOutranksTheCurrentIaNameLeavesTheWorkingSessionAlone() throws Exception {
        start(SwitchOptions.of("outranked", "(dat.ia.name=sim0)"));
        trafficFlows(20);
        ProviderDTO before = switcher.provider().orElseThrow();
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> beans = new HashSet<>();
        for (ObjectName bean : server.queryNames(new ObjectName("dat:type=IA,name=sim0,*"), null)) {
            try {
                if (JMX.newMXBeanProxy(server, bean, IaStatisticsMXBean.class).isOpen()) {
                    beans.add(bean); // not one of an IA an earlier test closed, whose MXBean may still be going
                }
            } catch (UndeclaredThrowableException gone) {
                // one of those, gone already
            }
        }
        assertThat(beans).as("the MXBean of the switcher's IA").isNotEmpty();

        ServiceReference<DatIaFactory> sim = context.getServiceReferences(DatIaFactory.class, "(dat.provider.name=sim)")
                .iterator().next();
        ServiceRegistration<DatIaFactory> outranking = OutrankedSim0.register(context, context.getService(sim));
        try {
            assertThat(eventually(10_000, () -> registry.findProviders("(dat.ia.name=sim0)").stream()
                    .anyMatch(provider -> provider.providerName().equals("outranking"))))
                    .as("the outranking factory serves sim0").isTrue();
            Thread.sleep(1000); // many async EVD polls: time for a wrong move

            assertThat(switcher.generation()).as("no switch: %s", switches).isEqualTo(1);
            assertThat(switches).hasSize(1);
            assertThat(switcher.provider().orElseThrow()).isEqualTo(before);
            trafficFlows(20);
            for (ObjectName bean : beans) {
                assertThat(server.isRegistered(bean)).as("the MXBean %s of the working IA", bean).isTrue();
            }
        } finally {
            outranking.unregister();
            context.ungetService(sim);
        }
    }

    @Test
    void closeSettlesTheSessionAndNeverBlocks() throws Exception {
        start(SwitchOptions.of("close", SIM_IAS));
        trafficFlows(20);
        long before = System.nanoTime();

        switcher.close();

        assertThat(System.nanoTime() - before).as("close is bounded by the callback timeout").isLessThan(25_000_000_000L);
        assertThat(switcher.state()).isEqualTo(IaSwitcher.State.CLOSED);
        assertThat(switcher.session()).isNull();
        assertThat(switcher.awaitSession(Duration.ofSeconds(5))).as("a closed switcher has no session").isNull();
        assertThat(traffic.lastCause).as("lost() was called for the close").isEqualTo(SwitchCause.CLOSED);
        assertThat(traffic.lastAccounting.unaccounted()).as("the quiesced IA: %s", traffic.lastAccounting).isZero();
        assertThat(switches).as("a close is no switch").hasSize(1);
    }
}
