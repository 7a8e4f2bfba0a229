package dat.tests.conformance.internal;

import dat.tests.conformance.ConformanceReport;
import dat.tests.conformance.ConformanceSuite;
import dat.api.DatException;
import dat.api.DatRegistry;
import dat.api.InterfaceAdapter;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

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

    @Command(name = "test", sortOptions = false, description = {
        "Run the DAT conformance suite against IAs: a table per area, the failures; fail on a failure.",
        "Or be the peer agent of another process's run (--serve), or print the coverage of the man pages (--coverage)."})
    static final class TestOptions {
        @Parameters(arity = "0..*", paramLabel = "IA", description = "the IA names to test (default: every registered IA whose"
                + " factory does not set dat.conformance=false)")
        List<String> iaNames = new ArrayList<>();
        @Option(names = {"-f", "--filter"}, paramLabel = "REGEX", description = "run only the tests where REGEX is found"
                + " (case-insensitively) in \"area/TestClass#method display name\", e.g. --filter dat_ep_post_send,"
                + " --filter '^rdma/', --filter DAT_INVALID_STATE")
        String filter = "";
        @Option(names = "--skipped", description = "also list the skipped tests and why")
        boolean skipped;
        @Option(names = "--peer", paramLabel = "HOST:PORT", description = "the peer agent at HOST:PORT (another process, started with"
                + " --serve) holds the passive sides: the transaction tests' server sides, and every other test's second IA"
                + " instance (through proxies; its buffers lie in /dev/shm files both processes map, so on the same host only:"
                + " across hosts, add --filter '^transactions/')")
        String peer;
        @Option(names = "--serve", paramLabel = "IA", description = "be that peer agent for IA: serve control connections until the"
                + " process ends")
        String serve;
        @Option(names = "--listen", paramLabel = "HOST:PORT", description = "the agent's control address (default: the IA address's"
                + " host, port " + PeerProtocol.DEFAULT_PORT + ")")
        String listen;
        @Option(names = "--xml", paramLabel = "FILE", description = "also write the results as JUnit XML (one testsuite; CI counts it)")
        Path xml;
        @Option(names = "--coverage", description = "print, instead of running, which tests cover each return value of each man page"
                + " (a Markdown table), and why the others are not covered")
        boolean coverage;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
        boolean help;
    }

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

    /** How long the check of --peer waits for the agent to answer. */
    private static final int PEER_CONNECT_TIMEOUT_MILLIS = 10_000;

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
    public void test(@Descriptor("[IA...] [options]") String... args) {
        CommandLine cli = new CommandLine(new TestOptions())
                .setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF))
                .setExpandAtFiles(false)
                .setUsageHelpWidth(100);
        cli.getCommandSpec().usageMessage().synopsisHeading("usage: dat ").abbreviateSynopsis(true);
        cli.parseArgs(args == null ? new String[0] : args);
        PrintStream out = System.out;
        if (cli.isUsageHelpRequested()) {
            out.print(cli.getUsageMessage());
            out.flush();
            return;
        }
        TestOptions options = cli.getCommand();
        check(cli, options);
        if (options.coverage) {
            out.print(coverageTable());
            return;
        }
        if (options.serve != null) {
            serve(options.serve, options.listen == null ? null : address(cli, options.listen, "--listen", true), out);
            return;
        }
        Map<String, String> parameters = new HashMap<>();
        if (options.peer != null) {
            reachable(address(cli, options.peer, "--peer", false));
            parameters.put(ConformanceSuite.PEER_PARAMETER, options.peer);
        }
        for (String iaName : options.iaNames) {
            opens(iaName);
        }
        String filter = options.filter;
        List<String> iaNames = options.iaNames;
        out.println("dat test: " + (iaNames.isEmpty() ? "every IA under test" : String.join(", ", iaNames))
                + (filter.isEmpty() ? "" : ", tests matching /" + filter + "/")
                + (options.peer == null ? "" : ", peer agent at " + options.peer));
        out.flush();
        long remoteInstances = RemoteIa.INSTANCES.get();
        long remoteCalls = RemoteIa.CALLS.get();
        ConformanceReport report = ConformanceSuite.run(iaNames, filter, parameters, line -> {
            out.println(line);
            out.flush();
        });
        out.println();
        out.print(report.table());
        if (options.peer != null) {
            out.println("peer agent: " + (RemoteIa.INSTANCES.get() - remoteInstances) + " peer IA instances lived in its process, "
                    + (RemoteIa.CALLS.get() - remoteCalls) + " calls crossed to them");
        }
        if (options.skipped) {
            out.println();
            out.print(report.skipReport());
        }
        if (!report.failures().isEmpty()) {
            out.println();
            out.print(report.failureReport());
        }
        out.flush();
        if (options.xml != null) { // after the report, which a file that cannot be written then does not take along
            writeXml(options.xml, "dat test " + String.join(" ", args), report);
        }
        if (!report.failures().isEmpty()) {
            throw new IllegalStateException(report.failures().size() + " conformance test run(s) failed");
        }
        if (!report.passed()) {
            throw new IllegalStateException("no conformance test ran" + (filter.isEmpty() ? "" : " (does the filter match any?)"));
        }
    }

    /** The checks of the arguments that need no IA: options that exclude each other, the filter, the XML file. */
    private static void check(CommandLine cli, TestOptions options) {
        if (options.coverage && (options.serve != null || options.peer != null || options.listen != null || !options.iaNames.isEmpty()
                || !options.filter.isEmpty() || options.xml != null || options.skipped)) {
            throw new CommandLine.ParameterException(cli, "--coverage runs no test: it takes no other option");
        }
        for (String name : options.iaNames) {
            if (name.isBlank() || name.indexOf(',') >= 0) {
                throw new CommandLine.ParameterException(cli, "'" + name + "' is no IA name: "
                        + (name.isBlank() ? "it is empty" : "the suite takes IA names apart at commas"));
            }
        }
        if (options.serve != null && options.serve.isBlank()) {
            throw new CommandLine.ParameterException(cli, "--serve '" + options.serve + "' is no IA name: it is blank");
        }
        if (options.serve != null && (options.peer != null || !options.iaNames.isEmpty() || !options.filter.isEmpty()
                || options.xml != null || options.skipped)) {
            throw new CommandLine.ParameterException(cli, "--serve runs no test: it takes only --listen");
        }
        if (options.listen != null && options.serve == null) {
            throw new CommandLine.ParameterException(cli, "--listen is an option of --serve");
        }
        try {
            Pattern.compile(options.filter);
        } catch (PatternSyntaxException e) {
            throw new CommandLine.ParameterException(cli, "--filter '" + options.filter + "' is not a regular expression: "
                    + e.getDescription() + (e.getIndex() >= 0 ? " at index " + e.getIndex() : ""));
        }
        if (options.xml != null) {
            String problem = xmlProblem(options.xml.toAbsolutePath());
            if (problem != null) {
                throw new CommandLine.ParameterException(cli, "--xml " + options.xml + ": " + problem);
            }
        }
    }

    /**
     * Why the report could not be written to {@code file}, or {@code null}: the file is written after
     * the run, its missing directories made then, so the first directory that exists must take them.
     */
    static String xmlProblem(Path file) {
        if (Files.isDirectory(file)) {
            return "is a directory";
        }
        if (Files.exists(file)) {
            return Files.isRegularFile(file) && Files.isWritable(file) ? null : "cannot be written";
        }
        Path existing = file.getParent();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null || !Files.isDirectory(existing)) {
            return (existing == null ? "no directory of it exists" : existing + " is not a directory");
        }
        return Files.isWritable(existing) ? null : "the directory " + existing + " cannot be written";
    }

    private static InetSocketAddress address(CommandLine cli, String text, String option, boolean anyPort) {
        InetSocketAddress address;
        try {
            address = TestEnvironment.parseAddress(text, option, anyPort);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cli, e.getMessage());
        }
        if (address.isUnresolved()) {
            throw new CommandLine.ParameterException(cli, option + " " + text + ": the host " + address.getHostString() + " is unknown");
        }
        return address;
    }

    /** Fails once, in one line, where no peer agent answers: not once per test that would need it. */
    private static void reachable(InetSocketAddress agent) {
        try (Socket socket = new Socket()) {
            socket.connect(agent, PEER_CONNECT_TIMEOUT_MILLIS);
        } catch (IOException e) {
            throw new IllegalStateException("no peer agent answers at " + agent.getHostString() + ":" + agent.getPort() + " ("
                    + e.getMessage() + "); start one with 'dat test --serve IA' in another process");
        }
    }

    /** Fails once, in one line, for an IA the registry cannot open: not once per test. */
    private void opens(String iaName) {
        try (InterfaceAdapter ia = registry.openIa(iaName)) {
            ia.name();
        } catch (DatException e) {
            throw new IllegalStateException("cannot open IA '" + iaName + "': " + e.getMessage() + "; 'dat providers' lists the IAs");
        }
    }

    /** Runs the peer agent until the command's thread is interrupted (the framework stops). */
    private void serve(String iaName, InetSocketAddress address, PrintStream out) {
        try (PeerAgent agent = PeerAgent.start(registry, iaName, address, out)) {
            out.println("dat test --serve: IA " + iaName + " at " + agent.iaAddress() + ", control connections at " + agent.address());
            out.flush();
            while (true) {
                Thread.sleep(Long.MAX_VALUE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(address != null ? "--listen " + address.getHostString() + ":" + address.getPort()
                    + ": cannot listen there: " + e.getMessage() : "cannot listen at port " + PeerProtocol.DEFAULT_PORT + " of "
                    + iaName + "'s host: " + e.getMessage() + "; choose another with --listen HOST:PORT", e);
        }
    }

    /**
     * The report as JUnit XML: one testcase per test run, its class name the test class (the area),
     * its {@code time} the run's duration in seconds; the testsuite's {@code time} their sum.
     */
    static void writeXml(java.nio.file.Path file, String name, ConformanceReport report) {
        StringBuilder cases = new StringBuilder();
        int failures = 0;
        int skipped = 0;
        for (ConformanceReport.Result result : report.results()) {
            cases.append("  <testcase classname=\"").append(xmlEscape(result.testClass())).append("\" name=\"")
                    .append(xmlEscape(result.displayName())).append("\" time=\"").append(seconds(result.duration())).append("\">");
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
                + report.results().size() + "\" failures=\"" + failures + "\" errors=\"0\" skipped=\"" + skipped + "\" time=\""
                + seconds(report.duration()) + "\">\n" + cases
                + "</testsuite>\n";
        try {
            java.nio.file.Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                java.nio.file.Files.createDirectories(parent);
            }
            java.nio.file.Files.writeString(file, text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("writing " + file + ": " + e, e);
        }
    }

    /** Seconds with millisecond precision, as JUnit's XML reports write them. */
    private static String seconds(java.time.Duration d) {
        return java.math.BigDecimal.valueOf(d.toMillis(), 3).toPlainString();
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
