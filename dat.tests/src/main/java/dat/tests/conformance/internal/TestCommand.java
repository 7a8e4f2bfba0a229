package dat.tests.conformance.internal;

import dat.tests.conformance.ConformanceReport;
import dat.tests.conformance.ConformanceSuite;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Component;

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
            usage: test [IA...] [--filter REGEX] [--skipped] | test --coverage
              IA              the IA names to test (default: every registered IA whose factory does not
                              set dat.conformance=false)
              --filter REGEX  run only the tests where REGEX is found (case-insensitively) in
                              "area/TestClass#method display name", e.g. --filter dat_ep_post_send,
                              --filter '^rdma/', --filter DAT_INVALID_STATE
              --skipped       also list the skipped tests and why
              --coverage      print, instead of running, which tests cover each return value of each man
                              page (a Markdown table), and why the others are not covered
            """;

    /** Creates the command; DS instantiates it. */
    public TestCommand() {
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
        out.println("dat test: " + (iaNames.isEmpty() ? "every IA under test" : String.join(", ", iaNames))
                + (filter.isEmpty() ? "" : ", tests matching /" + filter + "/"));
        out.flush();
        ConformanceReport report = ConformanceSuite.run(iaNames, filter, line -> {
            out.println(line);
            out.flush();
        });
        out.println();
        out.print(report.table());
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
}
