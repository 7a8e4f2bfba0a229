package dat.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code ./dat} command line as a user meets it: every command with no argument, with
 * {@code --help} and with a wrong argument, and the cases of the command line's contract — exit
 * codes (0 success, 1 failure, 2 usage error), what goes to stdout and what to stderr, one line per
 * error naming the argument, and never a Gogo internal ({@code Cannot coerce}), an exception's
 * name or a stack frame. Each run is bounded by a timeout; nothing timed is asserted.
 */
class CliTest {

    /** The commands of scope dat that {@code ./dat help} lists. */
    private static final List<String> COMMANDS = List.of("checkconf", "demo", "exit", "help", "ia", "perf", "providers", "stats", "test");
    private static final Pattern STACK_FRAME = Pattern.compile("(?m)^\\s+at [\\w.$/]+\\(.*\\)$");
    private static final Duration SHORT = Duration.ofSeconds(120);
    private static final Duration LONG = Duration.ofSeconds(600);

    private static Path root;
    private static final List<Process> SERVERS = new ArrayList<>();

    @TempDir
    static Path dir;

    /** What a run printed and how it ended. */
    record Result(List<String> command, int exit, String out, String err) {
        @Override
        public String toString() {
            return String.join(" ", command) + " -> exit " + exit + "\n--- stdout:\n" + out + "--- stderr:\n" + err;
        }
    }

    @BeforeAll
    static void findLauncher() {
        root = Path.of(System.getProperty("dat.root")).toAbsolutePath().normalize();
        assertThat(root.resolve("dat")).as("the launcher").isExecutable();
        assertThat(root.resolve("dat.app/target/app.jar")).as("the application this build made").exists();
    }

    @AfterAll
    static void stopServers() {
        SERVERS.forEach(CliTest::kill);
    }

    // ---- every command: no argument, --help, a wrong argument --------------------------------------

    @Test
    @Timeout(1800)
    void everyCommandWithoutArguments() throws Exception {
        for (String command : COMMANDS) {
            Result r = dat(command.equals("perf") || command.equals("test") ? LONG : SHORT, command);
            clean(r);
            switch (command) {
                case "ia", "checkconf", "stats" -> usageError(r, command);
                case "exit" -> {
                    assertThat(r.exit()).as(r.toString()).isZero();
                    assertThat(r.out() + r.err()).as(r.toString()).isEmpty();
                }
                default -> {
                    assertThat(r.exit()).as(r.toString()).isZero();
                    assertThat(r.err()).as(r.toString()).isEmpty();
                    assertThat(r.out()).as(r.toString()).isNotBlank();
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"checkconf", "demo", "exit", "help", "ia", "perf", "providers", "stats", "test"})
    @Timeout(300)
    void everyCommandTakesHelp_toStdoutWithExit0(String command) throws Exception {
        for (String help : List.of("--help", "-h")) {
            Result r = dat(SHORT, command, help);
            clean(r);
            assertThat(r.exit()).as(r.toString()).isZero();
            assertThat(r.err()).as(r.toString()).isEmpty();
            assertThat(r.out()).as(r.toString()).startsWith("usage: dat " + command).contains("-h, --help");
        }
        Result viaHelp = dat(SHORT, "help", command);
        assertThat(viaHelp.exit()).as(viaHelp.toString()).isZero();
        assertThat(viaHelp.out()).as(viaHelp.toString()).startsWith("usage: dat " + command);
    }

    @ParameterizedTest
    @ValueSource(strings = {"checkconf", "demo", "exit", "help", "ia", "perf", "providers", "stats", "test"})
    @Timeout(300)
    void everyCommandRefusesAWrongArgument_inOneLineNamingIt(String command) throws Exception {
        Result r = dat(SHORT, command, "--no-such-option");
        clean(r);
        usageError(r, command);
        assertThat(r.err()).contains("'--no-such-option'");
    }

    // ---- the launcher -----------------------------------------------------------------------------

    @Test
    @Timeout(300)
    void theLauncher_helpUnknownCommandsAndNoCommand() throws Exception {
        Result help = dat(SHORT, "--help");
        clean(help);
        assertThat(help.exit()).as(help.toString()).isZero();
        assertThat(help.err()).as(help.toString()).isEmpty();
        assertThat(help.out()).startsWith("usage: ./dat [-v] COMMAND").contains("./dat [-v] shell");
        for (String command : COMMANDS) {
            assertThat(help.out()).as("the list names " + command).containsPattern("(?m)^  " + command + " +\\S");
        }
        Result list = dat(SHORT, "help");
        assertThat(help.out()).endsWith(list.out());

        Result none = dat(SHORT);
        clean(none);
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.out()).isEmpty();
        assertThat(none.err().lines()).hasSize(1);

        Result unknown = dat(SHORT, "nosuch");
        clean(unknown);
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).isEqualTo("dat: unknown command 'nosuch'; './dat help' lists the commands\n");
        // a name with a scope reaches Gogo only as a dat command: no other scope, no second command
        for (String name : List.of("x:(", "dat:providers;dat:exit 7", "felix:lb")) {
            Result scoped = dat(SHORT, name);
            clean(scoped);
            assertThat(scoped.exit()).as(scoped.toString()).isEqualTo(2);
            assertThat(scoped.err()).isEqualTo("dat: unknown command '" + name + "'; './dat help' lists the commands\n");
        }

        Result helpUnknown = dat(SHORT, "help", "nosuch");
        clean(helpUnknown);
        usageError(helpUnknown, "help");
    }

    @Test
    @Timeout(300)
    void logsAreQuiet_unlessVerbose() throws Exception {
        Result quiet = dat(SHORT, "providers");
        assertThat(quiet.err()).as(quiet.toString()).isEmpty();
        Result verbose = dat(SHORT, "-v", "providers");
        assertThat(verbose.exit()).isZero();
        assertThat(verbose.out().replaceAll("service \\d+", "service N")).isEqualTo(quiet.out().replaceAll("service \\d+", "service N"));
        assertThat(verbose.err()).contains("dat: INFO: ");
    }

    // ---- one clear line for each mistake of the issue ---------------------------------------------

    @Test
    @Timeout(300)
    void testFailsOnceForAnUnknownIa_anUnreachablePeer_andABadFilter() throws Exception {
        Result unknownIa = dat(SHORT, "test", "nosuch");
        clean(unknownIa);
        assertThat(unknownIa.exit()).isEqualTo(1);
        assertThat(unknownIa.out()).isEmpty();
        assertThat(unknownIa.err()).startsWith("dat test: cannot open IA 'nosuch': DAT_PROVIDER_NOT_FOUND").hasLineCount(1);

        Result peer = dat(SHORT, "test", "sim0", "--peer", "127.0.0.1:1");
        clean(peer);
        assertThat(peer.exit()).isEqualTo(1);
        assertThat(peer.out()).isEmpty();
        assertThat(peer.err()).startsWith("dat test: no peer agent answers at 127.0.0.1:1").hasLineCount(1);

        Result filter = dat(SHORT, "test", "--filter", "(");
        clean(filter);
        usageError(filter, "test");
        assertThat(filter.err()).contains("--filter '(' is not a regular expression");

        Result coverage = dat(SHORT, "test", "--coverage", "--filter", "(");
        clean(coverage);
        usageError(coverage, "test");
        assertThat(coverage.err()).contains("--coverage runs no test");

        Result comma = dat(SHORT, "test", "sim0,sim1");
        clean(comma);
        usageError(comma, "test");
        assertThat(comma.err()).contains("'sim0,sim1' is no IA name");

        // the report's file is checked before the suite runs, not when it is written after it
        Path notADirectory = Files.writeString(dir.resolve("plain-file"), "");
        Result xml = dat(SHORT, "test", "sim0", "--xml", notADirectory.resolve("reports/r.xml").toString());
        clean(xml);
        usageError(xml, "test");
        assertThat(xml.err()).contains(notADirectory + " is not a directory");
    }

    @Test
    @Timeout(300)
    void perfAndIaFailOnceForAnUnknownIa_beforeAnyTable() throws Exception {
        List<List<String>> commands = List.of(List.of("perf", "nosuch"), List.of("perf", "nosuch", "--client", "127.0.0.1:7700"),
                List.of("perf", "nosuch", "--server"), List.of("ia", "nosuch"));
        for (List<String> command : commands) {
            Result r = dat(SHORT, command.toArray(String[]::new));
            clean(r);
            assertThat(r.exit()).as(r.toString()).isEqualTo(1);
            assertThat(r.out()).as(r.toString()).isEmpty();
            assertThat(r.err()).as(r.toString()).startsWith("dat " + command.get(0) + ": cannot open IA 'nosuch': DAT_PROVIDER_NOT_FOUND")
                    .contains("; 'dat providers' lists the IAs").hasLineCount(1);
        }
    }

    @Test
    @Timeout(300)
    void perfChecksItsOutputsAndItsServerIaBeforeItRuns() throws Exception {
        Result plot = dat(SHORT, "perf", "--plot", "/nonexistent/x.png");
        clean(plot);
        usageError(plot, "perf");
        assertThat(plot.err()).contains("/nonexistent/x.png", "does not exist");

        Result json = dat(SHORT, "perf", "--json", dir.toString());
        clean(json);
        usageError(json, "perf");

        Result inJvm = dat(SHORT, "perf", "sim0", "--server");
        clean(inJvm);
        usageError(inJvm, "perf");
        assertThat(inJvm.err()).contains("reachable only from this process");

        Result port = dat(SHORT, "perf", "sim0", "--server", "--nio-port", "70000");
        clean(port);
        usageError(port, "perf");
        assertThat(port.err()).contains("--nio-port", "'70000'");
    }

    @Test
    @Timeout(300)
    void perfWritesItsFiguresAsJson_whichParseBack() throws Exception {
        Path file = dir.resolve("perf.json");
        Result r = dat(SHORT, "perf", "sim0", "--quick", "--latency-sizes", "8", "--sizes", "4K", "--iterations", "200", "--time", "20",
                "--connections", "8", "--json", file.toString());
        clean(r);
        assertThat(r.exit()).as(r.toString()).isZero();
        JsonNode root = new ObjectMapper().readTree(file.toFile());
        assertThat(root.get("ia").asText()).isEqualTo("sim0");
        List<String> series = new ArrayList<>();
        root.get("figures").forEach(f -> series.add(f.get("series").asText() + " " + f.get("size").asLong()));
        assertThat(series).contains("send/recv latency 8", "RDMA write bandwidth 4096", "RDMA read bandwidth 4096", "send bandwidth 4096");
        root.get("figures").forEach(f -> {
            assertThat(f.get("value").isNumber() || f.get("value").isNull()).isTrue();
            assertThat(r.out()).contains(f.get("series").asText());
        });

        Result compared = dat(SHORT, "perf", "--compare", file.toString(), file.toString());
        clean(compared);
        assertThat(compared.exit()).as(compared.toString()).isZero();
        assertThat(compared.out()).startsWith("dat perf --compare: 2 runs").contains("| send/recv latency 8 B (median) | spin ping-pong | us |",
                "| send bandwidth / RDMA write bandwidth 4 KiB | - | ratio |");
        assertThat(compared.out().strip().lines().reduce((a, b) -> b).orElseThrow())
                .matches("(\\d+) of \\1 figures lie within \\+-20.0% of their mean over the runs");
        for (List<String> bad : List.of(List.of("perf", "--compare", file.toString()),
                List.of("perf", "--compare", file.toString(), dir.resolve("nosuch.json").toString()),
                List.of("perf", "--compare", file.toString(), file.toString(), "--quick"))) {
            Result refused = dat(SHORT, bad.toArray(String[]::new));
            clean(refused);
            usageError(refused, "perf");
        }
    }

    // ---- JSON and readable attributes ------------------------------------------------------------

    @Test
    @Timeout(300)
    void providersAndIaWriteJson_thatSaysWhatTheTextSays() throws Exception {
        Result table = dat(SHORT, "providers");
        Result json = dat(SHORT, "providers", "--json");
        clean(json);
        assertThat(json.exit()).isZero();
        JsonNode providers = new ObjectMapper().readTree(json.out());
        List<String> names = new ArrayList<>();
        providers.get("providers").forEach(p -> names.add(p.get("iaName").asText() + " " + p.get("state").asText()));
        assertThat(names).contains("sim0 active", "metered-sim0 active");
        for (JsonNode p : providers.get("providers")) {
            assertThat(table.out()).containsPattern("(?m)^" + Pattern.quote(p.get("iaName").asText()) + " +1\\.2 ");
        }
        assertThat(providers.get("unavailable").get(0).get("providerName").asText()).isEqualTo("verbs");
        assertThat(table.out()).contains(providers.get("unavailable").get(0).get("reason").asText());

        Result text = dat(SHORT, "ia", "sim0");
        clean(text);
        assertThat(text.out()).containsPattern("(?m)^  qosSupported +HIGH_THROUGHPUT, LOW_LATENCY$")
                .containsPattern("(?m)^  maxLmrBlockSize +unlimited$")
                .containsPattern("(?m)^  evdStreamMerging +any ")
                .containsPattern("(?m)^  async EVD queue length \\d+, ")
                .doesNotContain(Long.toString(Long.MAX_VALUE), "@");
        Result iaJson = dat(SHORT, "ia", "sim0", "--json");
        clean(iaJson);
        JsonNode ia = new ObjectMapper().readTree(iaJson.out());
        assertThat(ia.get("ia").asText()).isEqualTo("sim0");
        assertThat(ia.get("iaAttributes").get("maxLmrBlockSize").asLong()).isEqualTo(Long.MAX_VALUE);
        assertThat(ia.get("iaAttributes").get("maxEps").asInt()).isPositive();
        assertThat(text.out()).containsPattern("(?m)^  maxEps +" + ia.get("iaAttributes").get("maxEps").asInt() + "$");
        List<String> qos = new ArrayList<>();
        ia.get("providerAttributes").get("qosSupported").forEach(q -> qos.add(q.asText()));
        assertThat(qos).containsExactly("HIGH_THROUGHPUT", "LOW_LATENCY");
        assertThat(ia.get("asyncEvd").get("qlen").asInt()).isPositive();
    }

    // ---- stats attaches to a running application -----------------------------------------------------

    @Test
    @Timeout(300)
    void statsAttachesToARunningApplication_byPid() throws Exception {
        Path out = dir.resolve("serve.out");
        Process agent = start(out, "test", "--serve", "metered-sim0", "--listen", "127.0.0.1:0");
        awaitLine(agent, out, "dat test --serve: IA metered-sim0");
        ProcessHandle java = agent.toHandle().descendants().filter(p -> p.info().command().orElse("").endsWith("/java"))
                .findFirst().orElseThrow(() -> new AssertionError("no java process under the agent's ./dat"));

        Result text = dat(SHORT, "stats", "--pid", Long.toString(java.pid()));
        clean(text);
        assertThat(text.exit()).as(text.toString()).isZero();
        assertThat(text.out()).containsPattern("(?m)^IA metered-sim0 #\\d+  provider metered  open  since ");
        Result json = dat(SHORT, "stats", "metered-sim0", "--pid", Long.toString(java.pid()), "--json");
        clean(json);
        JsonNode ias = new ObjectMapper().readTree(json.out()).get("ias");
        assertThat(ias).hasSize(1);
        assertThat(ias.get(0).get("iaName").asText()).isEqualTo("metered-sim0");
        assertThat(ias.get(0).get("open").asBoolean()).isTrue();
        assertThat(ias.get(0).get("objectName").asText()).startsWith("dat:type=IA,name=metered-sim0,instance=");

        Result nobody = dat(SHORT, "stats", "--pid", "999999999");
        clean(nobody);
        assertThat(nobody.exit()).isEqualTo(1);
        assertThat(nobody.err()).startsWith("dat stats: cannot attach to process 999999999").hasLineCount(1);
        Result both = dat(SHORT, "stats", "--pid", "1", "--jmx", "service:jmx:rmi:///jndi/rmi://127.0.0.1:1/jmxrmi");
        clean(both);
        usageError(both, "stats");
        kill(agent);
    }

    @Test
    @Timeout(300)
    void statsRefusesAProcessIdOrJmxUrlThatCannotBeOne() throws Exception {
        for (String pid : List.of("-1", "0", "99999999999", "x")) {
            Result r = dat(SHORT, "stats", "--pid", pid);
            clean(r);
            usageError(r, "stats");
            assertThat(r.err()).contains("needs a process id", "'" + pid + "'");
        }
        Result url = dat(SHORT, "stats", "--jmx", "notaurl");
        clean(url);
        usageError(url, "stats");
        assertThat(url.err()).contains("needs a JMX service URL", "'notaurl'");
        Result port = dat(SHORT, "stats", "--jmx", "service:jmx:rmi:///jndi/rmi://127.0.0.1:99999/jmxrmi");
        clean(port);
        usageError(port, "stats");
        assertThat(port.err()).contains("port 99999 out of range");
        Result protocol = dat(SHORT, "stats", "--jmx", "service:jmx:foo:///x");
        clean(protocol);
        usageError(protocol, "stats");
        assertThat(protocol.err()).contains("the rmi protocol, not foo");
        Result blank = dat(SHORT, "stats", "", "--pid", "1");
        clean(blank);
        usageError(blank, "stats");
        assertThat(blank.err()).contains("needs an IA name, not ''");
        // nothing listens on port 1: the RMI connector's failure of several lines comes out as one
        Result refused = dat(SHORT, "stats", "--jmx", "service:jmx:rmi:///jndi/rmi://127.0.0.1:1/jmxrmi");
        clean(refused);
        assertThat(refused.exit()).as(refused.toString()).isEqualTo(1);
        assertThat(refused.err()).startsWith("dat stats: cannot connect to service:jmx:rmi:///jndi/rmi://127.0.0.1:1/jmxrmi")
                .hasLineCount(1);
    }

    @Test
    @Timeout(600)
    void argumentsThatNameNothingAreUsageErrors() throws Exception {
        Result conf = dat(SHORT, "checkconf", "");
        clean(conf);
        usageError(conf, "checkconf");
        assertThat(conf.err()).contains("needs a file name, not ''");

        Result serve = dat(SHORT, "test", "--serve", " ");
        clean(serve);
        usageError(serve, "test");
        assertThat(serve.err()).contains("--serve ' ' is no IA name");
        for (List<String> unknownHost : List.of(List.of("test", "--serve", "sim0", "--listen", "nosuchhost.invalid:5000"),
                List.of("test", "sim0", "--peer", "nosuchhost.invalid:5000"))) {
            Result r = dat(SHORT, unknownHost.toArray(String[]::new));
            clean(r);
            usageError(r, "test");
            assertThat(r.err()).contains(unknownHost.get(unknownHost.size() - 2) + " nosuchhost.invalid:5000: the host nosuchhost.invalid"
                    + " is unknown");
        }

        Result slash = dat(SHORT, "perf", "--json", "/");
        clean(slash);
        usageError(slash, "perf");
        assertThat(slash.err()).contains("--json /: is a directory");
        Result noSizes = dat(SHORT, "perf", "--sizes", ",");
        clean(noSizes);
        usageError(noSizes, "perf");
        assertThat(noSizes.err()).contains("--sizes needs at least one size");
        Result inJvmClient = dat(SHORT, "perf", "sim0", "--client", "127.0.0.1:7700");
        clean(inJvmClient);
        usageError(inJvmClient, "perf");
        assertThat(inJvmClient.err()).contains("--client needs an IA that other processes reach");

        // after --, an IA name that looks like an option is an IA name, checked before the providers' table
        Result demo = dat(SHORT, "demo", "--", "--server");
        clean(demo);
        assertThat(demo.exit()).as(demo.toString()).isEqualTo(1);
        assertThat(demo.err()).as(demo.toString()).startsWith("dat demo: cannot open IA '--server'").hasLineCount(1);

        Result shell = dat(SHORT, "shell", "--bogus");
        assertThat(shell.exit()).as(shell.toString()).isEqualTo(2);
        assertThat(shell.out()).isEmpty();
        assertThat(shell.err()).isEqualTo("dat: shell takes no arguments, not '--bogus' (usage: './dat --help')\n");
        Result option = dat(SHORT, "-x");
        assertThat(option.exit()).as(option.toString()).isEqualTo(2);
        assertThat(option.err()).isEqualTo("dat: unknown option '-x' (usage: './dat --help')\n");
    }

    // ---- the shell ----------------------------------------------------------------------------------

    @Test
    @Timeout(300)
    void theShellSaysHowToListTheCommands_andExitWorks() throws Exception {
        Result r = run(SHORT, "providers\nexit 3\n", List.of(root.resolve("dat").toString(), "shell"));
        clean(r);
        assertThat(r.exit()).as(r.toString()).isEqualTo(3);
        assertThat(r.out()).startsWith("DAT for Java shell. 'help' lists the dat commands").contains("sim0");
        Result eof = run(SHORT, "help\n", List.of(root.resolve("dat").toString(), "shell"));
        assertThat(eof.exit()).as(eof.toString()).isZero();
        for (String command : COMMANDS) {
            assertThat(eof.out()).containsPattern("(?m)^(dat> )?  " + command + " +\\S");
        }
    }

    // ---- helpers ------------------------------------------------------------------------------------

    /** No Gogo internals, exception names, stack frames or log lines in anything a run printed. */
    private static void clean(Result r) {
        String all = r.out() + r.err();
        assertThat(all).as(r.toString()).doesNotContain("Cannot coerce", "Exception", "INFO:", "gogo:");
        assertThat(STACK_FRAME.matcher(all).find()).as("a stack frame in " + r).isFalse();
    }

    /** Exit 2, nothing on stdout, one line on stderr that names the command and points at its help. */
    private static void usageError(Result r, String command) {
        assertThat(r.exit()).as(r.toString()).isEqualTo(2);
        assertThat(r.out()).as(r.toString()).isEmpty();
        assertThat(r.err()).as(r.toString()).startsWith("dat " + command + ": ").hasLineCount(1)
                .endsWith("(usage: './dat " + command + " --help')\n");
    }

    private static Result dat(Duration limit, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(root.resolve("dat").toString()));
        command.addAll(List.of(args));
        return run(limit, null, command);
    }

    private static Result run(Duration limit, String stdin, List<String> command) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().put("DAT_NO_BUILD", "1");
        if (stdin == null) {
            builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        }
        Process process = builder.start();
        if (stdin != null) {
            try (var in = process.getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        if (!process.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
            kill(process);
            throw new AssertionError(String.join(" ", command) + " did not end within " + limit + "; it printed:\n"
                    + Files.readString(out) + Files.readString(err));
        }
        return new Result(command.subList(1, command.size()), process.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static Process start(Path out, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(root.resolve("dat").toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().put("DAT_NO_BUILD", "1");
        Process process = builder.start();
        SERVERS.add(process);
        return process;
    }

    private static void awaitLine(Process process, Path out, String prefix) throws Exception {
        long deadline = System.nanoTime() + SHORT.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<String> line = Files.readAllLines(out).stream().filter(l -> l.startsWith(prefix)).findFirst();
            if (line.isPresent()) {
                return;
            }
            if (!process.isAlive()) {
                throw new AssertionError("ended before printing '" + prefix + "':\n" + Files.readString(out));
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no line '" + prefix + "' within " + SHORT + ":\n" + Files.readString(out));
    }

    /** Ends a process and the JVM the launcher started under it. */
    private static void kill(Process process) {
        process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
