package dat.tests.conformance.selftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.framework.BundleContext;
import org.osgi.test.common.annotation.InjectBundleContext;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.junit5.context.BundleContextExtension;
import org.osgi.test.junit5.service.ServiceExtension;
import org.osgi.util.tracker.ServiceTracker;

/** The {@code dat:test} Gogo command: the per-area table, the failures, and failing on a failure. */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
class TestCommandTest {

    @InjectBundleContext
    BundleContext context;

    /** Waits for the command's DS component, which registers it under its own (internal) class. */
    @BeforeEach
    void awaitCommand() throws Exception {
        ServiceTracker<Object, Object> tracker = new ServiceTracker<>(context,
                context.createFilter("(&(osgi.command.scope=dat)(osgi.command.function=test))"), null);
        tracker.open();
        try {
            assertThat(tracker.waitForService(10_000)).as("the dat:test command service").isNotNull();
        } finally {
            tracker.close();
        }
    }

    @Test
    @Timeout(120)
    void passesAndPrintsTheTable(@InjectService(timeout = 10_000) CommandProcessor processor) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
                CommandSession session = processor.createSession(InputStream.nullInputStream(), print, print)) {
            session.execute("dat:test sim0 --filter ^pz/");
        }
        String output = out.toString(StandardCharsets.UTF_8);
        assertThat(output).contains("AREA", "PASSED", "FAILED", "SKIPPED-UNSUPPORTED").containsPattern("(?m)^pz\\s+\\d+\\s+0\\s+");
        assertThat(output).doesNotContain("FAILED dat_");
    }

    @Test
    @Timeout(120)
    void failsOnAFailureAndNamesIt(@InjectService(timeout = 10_000) CommandProcessor processor) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
                CommandSession session = processor.createSession(InputStream.nullInputStream(), print, print)) {
            assertThatThrownBy(() -> session.execute("dat:test broken0 --filter PostSendTest#outsideLmr"))
                    .hasMessageContaining("conformance test run(s) failed");
        }
        String output = out.toString(StandardCharsets.UTF_8);
        assertThat(output).contains("FAILED dat_ep_post_send(3DAT) DAT_INVALID_PARAMETER: an IOV segment pointing to memory outside its LMR [broken0]")
                .contains("expected DAT_INVALID_PARAMETER, got DAT_SUCCESS");
    }

    /**
     * {@code --xml} writes JUnit XML whose testcases carry their durations: the CNO wait of 100 ms
     * takes at least that, and the testsuite's time is the sum of its testcases'.
     */
    @Test
    @Timeout(120)
    void theXmlReportTimesEachTest(@InjectService(timeout = 10_000) CommandProcessor processor) throws Exception {
        java.nio.file.Path xml = java.nio.file.Files.createTempDirectory("dat-test-xml").resolve("report.xml");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
                CommandSession session = processor.createSession(InputStream.nullInputStream(), print, print)) {
            session.execute("dat:test sim0 --filter ^cno/ --xml " + xml);
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("FAILED dat_");
        org.w3c.dom.Element suite = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile())
                .getDocumentElement();
        org.w3c.dom.NodeList cases = suite.getElementsByTagName("testcase");
        assertThat(cases.getLength()).isGreaterThan(5);
        java.math.BigDecimal sum = java.math.BigDecimal.ZERO;
        java.math.BigDecimal waited = null;
        for (int i = 0; i < cases.getLength(); i++) {
            org.w3c.dom.Element testcase = (org.w3c.dom.Element) cases.item(i);
            java.math.BigDecimal time = new java.math.BigDecimal(testcase.getAttribute("time"));
            assertThat(time.signum()).as(testcase.getAttribute("name")).isGreaterThanOrEqualTo(0);
            sum = sum.add(time);
            if (testcase.getAttribute("name").startsWith("dat_cno_wait(3DAT) DAT_QUEUE_EMPTY: the timeout expires")) {
                waited = time;
            }
        }
        assertThat(waited).as("the time of the CNO wait that times out after 100 ms").isNotNull()
                .isGreaterThanOrEqualTo(new java.math.BigDecimal("0.099"));
        java.math.BigDecimal total = new java.math.BigDecimal(suite.getAttribute("time"));
        assertThat(total.subtract(sum).abs()).as("the suite's time " + total + " against its testcases' " + sum)
                .isLessThanOrEqualTo(new java.math.BigDecimal("0.001").multiply(java.math.BigDecimal.valueOf(cases.getLength())));
    }

    @Test
    @Timeout(60)
    void rejectsUnknownOptions(@InjectService(timeout = 10_000) CommandProcessor processor) throws Exception {
        try (CommandSession session = processor.createSession(InputStream.nullInputStream(), System.out, System.err)) {
            assertThatThrownBy(() -> session.execute("dat:test --no-such-option")).hasMessageContaining("Unknown option: '--no-such-option'");
        }
    }

    /**
     * {@code dat:test --serve} is a peer agent: the transaction tests with their server sides in
     * it pass (here the agent serves another instance of sim0 in this framework, driven over its control connections),
     * so do the other tests with their second IA instance in it, and a run whose agent is gone
     * fails instead of passing without it.
     */
    @Test
    @Timeout(180)
    void theTransactionTestsRunAgainstAPeerAgent(@InjectService(timeout = 10_000) CommandProcessor processor) throws Exception {
        ByteArrayOutputStream agentOut = new ByteArrayOutputStream();
        PrintStream agentPrint = new PrintStream(agentOut, true, StandardCharsets.UTF_8);
        CommandSession agentSession = processor.createSession(InputStream.nullInputStream(), agentPrint, agentPrint);
        Thread agent = new Thread(() -> {
            try {
                agentSession.execute("dat:test --serve sim0 --listen 127.0.0.1:0");
            } catch (Exception e) {
                agentPrint.println("agent ended: " + e);
            }
        }, "peer-agent");
        agent.start();
        String address = null;
        java.util.regex.Pattern ready = java.util.regex.Pattern.compile("control connections at /?([0-9.]+:[0-9]+)");
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (address == null && System.nanoTime() < deadline) {
            java.util.regex.Matcher m = ready.matcher(agentOut.toString(StandardCharsets.UTF_8));
            if (m.find()) {
                address = m.group(1);
            } else {
                Thread.sleep(50);
            }
        }
        assertThat(address).as("the agent's ready line in: " + agentOut.toString(StandardCharsets.UTF_8)).isNotNull();
        try {
            dat.tests.conformance.ConformanceReport report = dat.tests.conformance.ConformanceSuite.run(java.util.List.of("sim0"),
                    "^transactions/", java.util.Map.of(dat.tests.conformance.ConformanceSuite.PEER_PARAMETER, address), null);
            assertThat(report.failures()).as("failures against the agent").isEmpty();
            assertThat(report.count(dat.tests.conformance.ConformanceReport.Outcome.PASSED)).isEqualTo(7);
            // the other tests with their second IA instance in the agent: its objects are proxies,
            // every call on them crosses the control connection, and the buffers are shared files
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
                    CommandSession session = processor.createSession(InputStream.nullInputStream(), print, print)) {
                session.execute("dat:test sim0 --peer " + address + " --filter '^(connection|dto|rdma|sp|srq|common)/'");
            }
            String output = out.toString(StandardCharsets.UTF_8);
            assertThat(output).as(output).doesNotContain("FAILED dat_").containsPattern("(?m)^dto\\s+\\d+\\s+0\\s+")
                    .containsPattern("(?m)^rdma\\s+\\d+\\s+0\\s+");
            java.util.regex.Matcher crossed = java.util.regex.Pattern.compile("peer agent: (\\d+) peer IA instances lived in its process,"
                    + " (\\d+) calls crossed to them").matcher(output);
            assertThat(crossed.find()).as("the run's peer summary in: " + output).isTrue();
            assertThat(Long.parseLong(crossed.group(1))).as("peer IA instances in the agent").isGreaterThan(50);
            assertThat(Long.parseLong(crossed.group(2))).as("calls to them").isGreaterThan(1000);
        } finally {
            agent.interrupt();
            agent.join(10_000);
            agentSession.close();
        }
        assertThat(agent.isAlive()).as("the agent ends when its command thread is interrupted").isFalse();
        dat.tests.conformance.ConformanceReport gone = dat.tests.conformance.ConformanceSuite.run(java.util.List.of("sim0"),
                "^transactions/TransactionTest#sendReceive", java.util.Map.of(dat.tests.conformance.ConformanceSuite.PEER_PARAMETER, address),
                null);
        assertThat(gone.failures()).as("a run against an agent that is gone").hasSize(1);
        assertThat(gone.failures().getFirst().message()).contains("peer agent");
    }
}
