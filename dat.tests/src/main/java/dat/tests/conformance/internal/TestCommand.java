package dat.tests.conformance.internal;

import dat.tests.conformance.ConformanceReport;
import dat.tests.conformance.ConformanceSuite;
import dat.api.DatRegistry;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The {@code dat:test} Gogo command: runs the conformance suite against one IA (or every IA under
 * test), prints the per-area table and the failures, and fails (so that {@code ./dat test} exits
 * non-zero) when a test failed or none ran.
 */
@Component(service = TestCommand.class, property = {
    "osgi.command.scope=dat",
    "osgi.command.function=test"
})
public final class TestCommand {

    static final String USAGE = """
            usage: test [IA...] [--filter REGEX] [--skipped] [--peer HOST:PORT] | test --serve IA [--listen HOST:PORT]
              | test --coverage
              IA              the IA names to test (default: every registered IA whose factory does not
                              set dat.conformance=false)
              --filter REGEX  run only the tests where REGEX is found (case-insensitively) in
                              "area/TestClass#method display name", e.g. --filter dat_ep_post_send,
                              --filter '^rdma/', --filter DAT_INVALID_STATE
              --skipped       also list the skipped tests and why
              --peer HOST:PORT  the peer agent at HOST:PORT (another process, started with --serve) holds
                              the passive sides: the transaction tests' server sides, and every other
                              test's second IA instance (through proxies; its buffers lie in /dev/shm
                              files both processes map, so on the same host only: across hosts, add
                              --filter '^transactions/')
              --serve IA      be that peer agent for IA: serve control connections until the process ends
              --listen HOST:PORT  the agent's control address (default: the IA address's host, port 7701)
              --xml FILE      also write the results as JUnit XML (one testsuite; CI counts it)
              --coverage      print, instead of running, which tests cover each return value of each man
                              page (a Markdown table), and why the others are not covered
            """;

    private final DatRegistry registry;

    /**
     * Creates the command; DS instantiates it.
     *
     * @param registry the registry the peer agent opens its IA through
     */
    @Activate
    public TestCommand(@Reference DatRegistry registry) {
        this.registry = registry;
    }

    /** @return the coverage of the man pages' return values as a Markdown table */
    static String coverageTable() {
        StringBuilder table = new StringBuilder("| page | return value | conformance tests |\n|---|---|---|\n");
        int covered = 0;
        int total = 0;
        for (ConformanceSuite.Coverage row : ConformanceSuite.coverage()) {
            total++;
            String tests;
            if (row.tests().isEmpty()) {
                tests = row.note().isEmpty() ? "**none**" : "_" + row.note() + "_";
            } else {
                covered++;
                tests = String.join("<br>", row.tests().stream().map(name -> name.substring(name.indexOf(':') + 1).strip()).toList());
            }
            table.append("| ").append(row.page()).append(" | ").append(row.returnValue()).append(" | ").append(tests.replace("|", "\\|"))
                    .append(" |\n");
        }
        return table.append("\n").append(covered).append(" of ").append(total).append(" return values covered.\n").toString();
    }

    /**
     * Runs the conformance suite.
     *
     * @param args IA names and options; {@code --help} lists them
     */
    @Descriptor("run the DAT conformance suite against an IA (default: every IA under test); test --help for options")
    public void test(@Descriptor("IA names and options") String... args) {
        PrintStream out = System.out;
        List<String> iaNames = new ArrayList<>();
        String filter = "";
        boolean skipped = false;
        String peer = null;
        String serve = null;
        String listen = null;
        String xml = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--help", "-h" -> {
                    out.print(USAGE);
                    return;
                }
                case "--filter", "-f" -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("--filter needs a regular expression\n" + USAGE);
                    }
                    filter = args[++i];
                }
                case "--skipped" -> skipped = true;
                case "--peer" -> peer = value(args, ++i, "--peer");
                case "--serve" -> serve = value(args, ++i, "--serve");
                case "--listen" -> listen = value(args, ++i, "--listen");
                case "--xml" -> xml = value(args, ++i, "--xml");
                case "--coverage" -> {
                    out.print(coverageTable());
                    return;
                }
                default -> {
                    if (args[i].startsWith("-")) {
                        throw new IllegalArgumentException("unknown option " + args[i] + "\n" + USAGE);
                    }
                    iaNames.add(args[i]);
                }
            }
        }
        if (serve != null) {
            serve(serve, listen, out);
            return;
        }
        Map<String, String> parameters = new HashMap<>();
        if (peer != null) {
            TestEnvironment.parseAddress(peer, "--peer", false); // a bad address fails here, not in every test
            parameters.put(ConformanceSuite.PEER_PARAMETER, peer);
        }
        out.println("dat test: " + (iaNames.isEmpty() ? "every IA under test" : String.join(", ", iaNames))
                + (filter.isEmpty() ? "" : ", tests matching /" + filter + "/") + (peer == null ? "" : ", peer agent at " + peer));
        out.flush();
        long remoteInstances = RemoteIa.INSTANCES.get();
        long remoteCalls = RemoteIa.CALLS.get();
        ConformanceReport report = ConformanceSuite.run(iaNames, filter, parameters, line -> {
            out.println(line);
            out.flush();
        });
        if (xml != null) {
            writeXml(java.nio.file.Path.of(xml), "dat test " + String.join(" ", args), report);
        }
        out.println();
        out.print(report.table());
        if (peer != null) {
            out.println("peer agent: " + (RemoteIa.INSTANCES.get() - remoteInstances) + " peer IA instances lived in its process, "
                    + (RemoteIa.CALLS.get() - remoteCalls) + " calls crossed to them");
        }
        if (skipped) {
            out.println();
            out.print(report.skipReport());
        }
        if (!report.failures().isEmpty()) {
            out.println();
            out.print(report.failureReport());
        }
        out.flush();
        if (!report.failures().isEmpty()) {
            throw new IllegalStateException(report.failures().size() + " conformance test run(s) failed");
        }
        if (!report.passed()) {
            throw new IllegalStateException("no conformance test ran" + (filter.isEmpty() ? "" : " (does the filter match any?)"));
        }
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length) {
            throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
        }
        return args[index];
    }

    /** Runs the peer agent until the command's thread is interrupted (the framework stops). */
    private void serve(String iaName, String listen, PrintStream out) {
        java.net.InetSocketAddress address = listen == null ? null : TestEnvironment.parseAddress(listen, "--listen", true);
        try (PeerAgent agent = PeerAgent.start(registry, iaName, address, out)) {
            out.println("dat test --serve: IA " + iaName + " at " + agent.iaAddress() + ", control connections at " + agent.address());
            out.flush();
            while (true) {
                Thread.sleep(Long.MAX_VALUE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.io.IOException e) {
            throw new IllegalStateException("dat test --serve: cannot listen at " + (address != null ? address
                    : "port " + PeerProtocol.DEFAULT_PORT + " of " + iaName + "'s host") + ": " + e.getMessage(), e);
        }
    }

    /** The report as JUnit XML: one testcase per test run, its class name the test class (the area). */
    static void writeXml(java.nio.file.Path file, String name, ConformanceReport report) {
        StringBuilder cases = new StringBuilder();
        int failures = 0;
        int skipped = 0;
        for (ConformanceReport.Result result : report.results()) {
            cases.append("  <testcase classname=\"").append(xmlEscape(result.testClass())).append("\" name=\"")
                    .append(xmlEscape(result.displayName())).append("\">");
            switch (result.outcome()) {
                case FAILED -> {
                    failures++;
                    cases.append("<failure message=\"").append(xmlEscape(result.message())).append("\"/>");
                }
                case SKIPPED, SKIPPED_UNSUPPORTED -> {
                    skipped++;
                    cases.append("<skipped message=\"").append(xmlEscape(result.message())).append("\"/>");
                }
                case PASSED -> {
                    // nothing to add
                }
            }
            cases.append("</testcase>\n");
        }
        String text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"" + xmlEscape(name) + "\" tests=\""
                + report.results().size() + "\" failures=\"" + failures + "\" errors=\"0\" skipped=\"" + skipped + "\">\n" + cases
                + "</testsuite>\n";
        try {
            java.nio.file.Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                java.nio.file.Files.createDirectories(parent);
            }
            java.nio.file.Files.writeString(file, text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("writing " + file, e);
        }
    }

    private static String xmlEscape(String text) {
        StringBuilder b = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                default -> {
                    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
                        b.append(' ');
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }
}
