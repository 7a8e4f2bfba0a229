package dat.tests.management;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.EventNumber;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.MemPrivileges;
import dat.api.ext.IaStatistics;
import dat.api.ext.IaStatisticsSnapshot;
import dat.api.ext.Operation;
import dat.api.spi.DatIaFactory;
import dat.tests.OutrankedSim0;
import dat.management.IaStatisticsMXBean;
import dat.tests.ext.Link;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.function.BooleanSupplier;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
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
 * The per-IA counters as JMX MXBeans ({@code dat.management}): an MXBean appears for every open IA
 * whose provider keeps counters, shows the counts, and goes away when the IA closes or its provider
 * leaves; {@code dat:stats} prints the same figures. Run against the test provider (counters, no
 * data path) and the example provider (metered-sim0, whose counters see real traffic).
 */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
@Timeout(60)
class StatisticsMBeanTest {

    @InjectBundleContext
    BundleContext context;

    @InjectService(timeout = 5000)
    DatRegistry registry;

    @InjectService(timeout = 5000)
    CommandProcessor processor;

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

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

    /** The MXBeans of an IA name now. */
    private Set<ObjectName> beansOf(String iaName) throws Exception {
        return server.queryNames(new ObjectName("dat:type=IA,name=" + iaName + ",*"), null);
    }

    /**
     * Waits for the one MXBean of an IA name that was not there before, and names it. (The beans
     * of IAs that earlier tests closed may still be going away: they are unregistered
     * asynchronously, so the count of beans says nothing, only a name not seen before does.)
     */
    private ObjectName newBeanOf(String iaName, Set<ObjectName> before) throws Exception {
        assertThat(eventually(() -> {
            try {
                return !newBeans(iaName, before).isEmpty();
            } catch (Exception e) {
                return false;
            }
        })).as("a new MXBean of %s besides %s: %s", iaName, before, beansOf(iaName)).isTrue();
        Set<ObjectName> added = newBeans(iaName, before);
        assertThat(added).as("one new MXBean of %s", iaName).hasSize(1);
        return added.iterator().next();
    }

    private Set<ObjectName> newBeans(String iaName, Set<ObjectName> before) throws Exception {
        Set<ObjectName> now = new java.util.HashSet<>(beansOf(iaName));
        now.removeAll(before);
        return now;
    }

    private boolean unregistered(ObjectName name) throws InterruptedException {
        return eventually(() -> !server.isRegistered(name));
    }

    /** Runs a command; returns what it printed (the dat commands print their output rather than returning it). */
    private String run(String command) throws Exception {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        try (PrintStream print = new PrintStream(console, true, StandardCharsets.UTF_8);
                CommandSession session = processor.createSession(InputStream.nullInputStream(), print, print)) {
            session.execute(command);
        }
        return console.toString(StandardCharsets.UTF_8);
    }

    @Test
    void anOpenIaWithCountersHasAnMXBeanUntilItCloses() throws Exception {
        Set<ObjectName> before = beansOf("test0");
        InterfaceAdapter ia = registry.openIa("test0");
        ObjectName name;
        try {
            name = newBeanOf("test0", before);
            IaStatisticsMXBean bean = JMX.newMXBeanProxy(server, name, IaStatisticsMXBean.class);
            assertThat(bean.getIaName()).isEqualTo("test0");
            assertThat(bean.getProviderName()).isEqualTo("test");
            assertThat(bean.isOpen()).isTrue();
            assertThat(bean.getOperationsPosted()).isZero();
            assertThat(bean.getOperationsPostedByKind()).containsKeys("SEND", "RECEIVE", "RDMA_READ", "RDMA_WRITE");
            assertThat(name.getDomain()).isEqualTo("dat");
            assertThat(name.getKeyProperty("type")).isEqualTo("IA");
            assertThat(Long.parseLong(name.getKeyProperty("instance"))).isPositive();
        } finally {
            ia.close();
        }
        assertThat(unregistered(name)).as("the MXBean of the closed IA is unregistered").isTrue();
    }

    @Test
    void theMXBeanGoesWhenTheProviderLeaves() throws Exception {
        Bundle provider = bundle("dat.tests.provider");
        Set<ObjectName> before = beansOf("test0");
        InterfaceAdapter ia = registry.openIa("test0");
        try {
            ObjectName name = newBeanOf("test0", before);
            provider.stop();
            assertThat(unregistered(name)).as("the MXBean of an IA whose provider left is unregistered").isTrue();
            assertThat(ia.extension(IaStatistics.class).orElseThrow().snapshot().asyncErrors())
                    .as("the catastrophic error counted").isEqualTo(1);
        } finally {
            ia.close();
            provider.start();
        }
        assertThat(eventually(() -> !registry.findProviders("(dat.ia.name=test0)").isEmpty())).isTrue();
    }

    @Test
    void theMXBeanStaysWhileTheIaIsOpenWhenAnotherProviderOutranksItsProvider() throws Exception {
        assertThat(eventually(() -> !registry.findProviders("(dat.ia.name=sim0)").isEmpty())).isTrue();
        Set<ObjectName> before = beansOf("sim0");
        ServiceReference<DatIaFactory> sim = context.getServiceReferences(DatIaFactory.class, "(dat.provider.name=sim)")
                .iterator().next();
        ObjectName name;
        try (InterfaceAdapter ia = registry.openIa("sim0")) {
            name = newBeanOf("sim0", before);
            ServiceRegistration<DatIaFactory> outranking = OutrankedSim0.register(context, context.getService(sim));
            try {
                assertThat(eventually(() -> registry.findProviders("(dat.ia.name=sim0)").stream()
                        .anyMatch(provider -> provider.providerName().equals("outranking"))))
                        .as("the outranking factory serves sim0").isTrue();
                Thread.sleep(1000); // two sweeps: time for a wrong removal

                assertThat(ia.isOpen()).isTrue();
                assertThat(server.isRegistered(name)).as("the MXBean of the open IA, whose provider is still registered").isTrue();
            } finally {
                outranking.unregister();
                context.ungetService(sim);
            }
        }
        assertThat(unregistered(name)).as("the MXBean of the closed IA is unregistered").isTrue();
    }

    @Test
    void theMeteredIaCountsRealTrafficInItsMXBeanAndInDatStats() throws Exception {
        assertThat(eventually(() -> !registry.findProviders("(dat.ia.name=metered-sim0)").isEmpty())).isTrue();
        int messages = 10;
        long size = 100;
        assertThat(eventually(() -> {
            try {
                return beansOf("metered-sim0").isEmpty();
            } catch (Exception e) {
                return false;
            }
        })).as("no metered IA left open by an earlier test").isTrue();
        try (Link link = Link.open(registry, "metered-sim0", MemPrivileges.ALL)) {
            LmrTriplet[] send = {link.active.segment(0, size)};
            LmrTriplet[] recv = {link.passive.segment(0, Link.BUFFER_SIZE)};
            DatEvent event = new DatEvent();
            for (int i = 0; i < messages; i++) {
                assertThat(link.passive.ep.postRecv(1, recv, i, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
                assertThat(link.active.ep.postSend(1, send, i, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
                assertThat(link.active.requestEvd.await(Link.EVENT_TIMEOUT_MICROS, 1, event)).isEqualTo(DatReturn.SUCCESS);
                assertThat(link.passive.recvEvd.await(Link.EVENT_TIMEOUT_MICROS, 1, event)).isEqualTo(DatReturn.SUCCESS);
                assertThat(event.eventNumber()).isEqualTo(EventNumber.DTO_COMPLETION_EVENT);
                assertThat(event.transferredLength()).isEqualTo(size);
            }
            // a refused post counts as an error of its type
            assertThat(DatReturn.typeOf(link.active.ep.postSend(1, send, 0, 0xFF))).isEqualTo(DatReturn.INVALID_PARAMETER);

            IaStatisticsSnapshot sender = link.active.ia.extension(IaStatistics.class).orElseThrow().snapshot();
            assertThat(sender.iaName()).isEqualTo("metered-sim0");
            assertThat(sender.posted().get(Operation.SEND)).isEqualTo(messages);
            assertThat(sender.postedBytes().get(Operation.SEND)).isEqualTo(messages * size);
            assertThat(sender.completions()).isEqualTo(messages);
            assertThat(sender.postErrors()).containsEntry(DatReturn.INVALID_PARAMETER, 1L);
            IaStatisticsSnapshot receiver = link.passive.ia.extension(IaStatistics.class).orElseThrow().snapshot();
            assertThat(receiver.posted().get(Operation.RECEIVE)).isEqualTo(messages);
            assertThat(receiver.completedBytes()).isEqualTo(messages * size);
            assertThat(receiver.totalCompletionErrors()).isZero();

            assertThat(eventually(() -> {
                try {
                    return beansOf("metered-sim0").size() >= 2;
                } catch (Exception e) {
                    return false;
                }
            })).as("an MXBean per open instance").isTrue();
            long sends = 0;
            long completedBytes = 0;
            for (ObjectName name : beansOf("metered-sim0")) { // this test's two IAs are the only open ones
                IaStatisticsMXBean bean = JMX.newMXBeanProxy(server, name, IaStatisticsMXBean.class);
                sends += bean.getOperationsPostedByKind().get("SEND");
                completedBytes += bean.getCompletedBytes();
                assertThat(bean.getProviderName()).isEqualTo("metered");
            }
            assertThat(sends).isEqualTo(messages);
            assertThat(completedBytes).as("the sends' and the receives' completions").isEqualTo(2 * messages * size);

            String stats = run("dat:stats metered-sim0");
            assertThat(stats).contains("IA metered-sim0 #", "provider metered", "SEND " + messages + " (" + messages * size + " B)",
                    "RECEIVE " + messages, "DAT_INVALID_PARAMETER 1");
        }
        assertThat(run("dat:stats nosuch0")).contains("no open instance of IA 'nosuch0'");
    }

    @Test
    void anIaGetsAnMXBeanExactlyWhenItKeepsCounters() throws Exception {
        for (String iaName : new String[] {"sim0", "metered-sim0", "test0"}) {
            if (registry.findProviders("(dat.ia.name=" + iaName + ")").isEmpty()) {
                continue;
            }
            Set<ObjectName> before = beansOf(iaName);
            try (InterfaceAdapter ia = registry.openIa(iaName)) {
                boolean counts = ia.extension(IaStatistics.class).isPresent();
                if (counts) {
                    assertThat(eventually(() -> {
                        try {
                            return !newBeans(iaName, before).isEmpty();
                        } catch (Exception e) {
                            return false;
                        }
                    })).as("an MXBean for %s, which keeps counters", iaName).isTrue();
                } else {
                    Thread.sleep(100);
                    assertThat(newBeans(iaName, before)).as("no MXBean for %s, which keeps no counters", iaName).isEmpty();
                }
            }
        }
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle bundle : context.getBundles()) {
            if (symbolicName.equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }
}
