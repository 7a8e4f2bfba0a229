package dat.management.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.management.IaStatisticsMXBean;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.MBeanServerConnection;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code dat:stats}'s report over an MBean server of the test's own. */
class StatsCommandTest {

    /** A server the factory keeps no reference to: nothing to release. */
    private final MBeanServer server = MBeanServerFactory.newMBeanServer();

    /** Fixed figures of one IA. */
    private record Fixed(String getIaName, long getInstance) implements IaStatisticsMXBean {
        @Override public String getProviderName() { return "sim"; }
        @Override public long getProviderId() { return 12; }
        @Override public boolean isOpen() { return true; }
        @Override public String getSince() { return "2025-01-01T00:00:00Z"; }
        @Override public long getOperationsPosted() { return 3; }
        @Override public Map<String, Long> getOperationsPostedByKind() { return Map.of("SEND", 3L); }
        @Override public long getBytesPosted() { return 300; }
        @Override public Map<String, Long> getBytesPostedByKind() { return Map.of("SEND", 300L); }
        @Override public long getPostErrors() { return 0; }
        @Override public Map<String, Long> getPostErrorsByType() { return Map.of(); }
        @Override public long getCompletions() { return 3; }
        @Override public long getCompletedBytes() { return 300; }
        @Override public long getCompletionErrors() { return 0; }
        @Override public Map<String, Long> getCompletionErrorsByStatus() { return Map.of(); }
        @Override public long getFlushed() { return 0; }
        @Override public long getAsyncErrors() { return 0; }
    }

    private ObjectName register(String iaName) throws Exception {
        ObjectName name = IaStatisticsMXBean.objectName(iaName, 1);
        server.registerMBean(new StandardMBean(new Fixed(iaName, 1), IaStatisticsMXBean.class, true), name);
        return name;
    }

    /** The server, where an IA closes (its MXBean goes) right after each query. */
    private MBeanServerConnection closingAfterTheQuery(ObjectName closing) {
        return (MBeanServerConnection) Proxy.newProxyInstance(MBeanServerConnection.class.getClassLoader(),
                new Class<?>[] {MBeanServerConnection.class}, (self, method, args) -> {
                    try {
                        Object result = method.invoke(server, args);
                        if (method.getName().equals("queryNames") && server.isRegistered(closing)) {
                            server.unregisterMBean(closing);
                        }
                        return result;
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void anIaThatClosesWhileTheReportRunsIsLeftOut() throws Exception {
        ObjectName closing = register("stats-a0");
        register("stats-b0");

        String text = StatsCommand.report(closingAfterTheQuery(closing), "", false);
        assertThat(text).contains("IA stats-b0 #1", "SEND 3 (300 B)").doesNotContain("stats-a0");

        register("stats-a0");
        String json = StatsCommand.report(closingAfterTheQuery(closing), "", true);
        assertThat(json).contains("\"iaName\" : \"stats-b0\"").doesNotContain("stats-a0");

        register("stats-a0");
        assertThat(StatsCommand.report(closingAfterTheQuery(closing), "stats-a0", false))
                .contains("no open instance of IA 'stats-a0'");
    }

    @Test
    void aBlankIaNameIsAUsageError() {
        StatsCommand command = new StatsCommand(null, null);
        for (String blank : new String[] {"", " "}) {
            assertThatThrownBy(() -> command.stats(blank)).as("dat stats '" + blank + "'")
                    .isInstanceOf(CommandLine.ParameterException.class)
                    .hasMessageContaining("needs an IA name, not '" + blank + "'");
        }
    }
}
