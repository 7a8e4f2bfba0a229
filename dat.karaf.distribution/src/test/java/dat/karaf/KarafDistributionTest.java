package dat.karaf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dat.karaf.probe.DatProbe;
import dat.karaf.probe.DatProbeMXBean;
import dat.karaf.probe.ProbeActivator;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.management.JMX;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The project's Karaf distribution ({@code target/dat-karaf-<version>.tar.gz}) as a user runs it:
 * unpacked, started with {@code bin/karaf server} on JDK 25 with nothing but a user added to
 * {@code etc/users.properties} and free ports chosen, then driven through its own shell over SSH
 * with {@code bin/client} — {@code dat:providers}, a short {@code dat:perf --quick}, a Config Admin
 * property set with {@code config:property-set} and seen applied by {@code dat:ia}, the README's
 * {@code feature:repo-add} and a {@code feature:install} — and stopped with {@code bin/stop}. Every
 * wait is bounded.
 *
 * <p>Beside the shell, a probe bundle dropped into {@code deploy/} ({@code dat.karaf.probe}, a DAT
 * consumer built only against {@code dat.api}) answers over the JVM's JMX agent on loopback: it
 * runs verified traffic through the registry, holds an IA open while its MXBean is read, and stops
 * and starts the sim provider's bundle (the hot swap).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(300)
class KarafDistributionTest {

    private static final String VERSION = System.getProperty("dat.version");
    private static final String USER = "dattest";
    private static final String PASSWORD = UUID.randomUUID().toString();
    private static final Duration COMMAND_LIMIT = Duration.ofSeconds(120);

    private static Path karaf;
    private static Path clientHome;
    private static int sshPort;
    private static int httpPort;
    private static Process server;
    private static JMXConnector jmx;
    private static MBeanServerConnection mbeans;
    private static DatProbeMXBean probe;

    /** What {@code bin/client} printed for one command, and its exit status. */
    record Console(int exit, String output) {
    }

    @BeforeAll
    static void startKaraf() throws Exception {
        Path archive = Path.of(System.getProperty("karaf.archive"));
        Path work = Path.of(System.getProperty("karaf.work"));
        assertThat(archive).as("the distribution this build made").isRegularFile();
        deleteTree(work);
        Files.createDirectories(work);
        Process untar = new ProcessBuilder("tar", "xzf", archive.toString(), "-C", work.toString()).inheritIO().start();
        assertThat(untar.waitFor(120, TimeUnit.SECONDS)).as("tar ended").isTrue();
        assertThat(untar.exitValue()).isZero();
        karaf = work.resolve("dat-karaf-" + VERSION);
        assertThat(karaf.resolve("bin/karaf")).as("the distribution's start script").isExecutable();
        clientHome = Files.createDirectories(work.resolve("client-home"));

        // what the recipe of docs/karaf.md has a user do: a user for bin/client (Karaf ships none);
        // here also ports nothing else uses
        Files.writeString(karaf.resolve("etc/users.properties"), "\n" + USER + " = " + PASSWORD + ",admin,manager,viewer,systembundles,ssh\n",
                java.nio.file.StandardOpenOption.APPEND);
        sshPort = freePort();
        Path shell = karaf.resolve("etc/org.apache.karaf.shell.cfg");
        Files.writeString(shell, Files.readString(shell).replaceAll("(?m)^sshHost\\s*=.*$", "sshHost = 127.0.0.1")
                .replaceAll("(?m)^sshPort\\s*=.*$", "sshPort = " + sshPort));
        writeProbeBundle(karaf.resolve("deploy/dat.karaf.probe.jar"));
        // offline, and no ~/.m2: every feature the test installs comes from the distribution's system repository
        Path mvn = karaf.resolve("etc/org.ops4j.pax.url.mvn.cfg");
        Files.writeString(mvn, Files.readString(mvn).replaceAll("(?ms)^org\\.ops4j\\.pax\\.url\\.mvn\\.repositories\\s*=.*?(?<!\\\\)\n", "")
                + "\norg.ops4j.pax.url.mvn.repositories =\norg.ops4j.pax.url.mvn.localRepository = "
                + work.resolve("empty-local-repository").toUri() + "\n");
        // the HTTP port of Pax Web, for the web console test (feature http, installed there)
        httpPort = freePort();
        Files.writeString(karaf.resolve("etc/org.ops4j.pax.web.cfg"), "org.osgi.service.http.port = " + httpPort + "\n"
                + "org.ops4j.pax.web.listening.addresses = 127.0.0.1\n");

        int jmxPort = freePort();
        ProcessBuilder builder = new ProcessBuilder(karaf.resolve("bin/karaf").toString(), "server").directory(karaf.toFile())
                .redirectErrorStream(true).redirectOutput(karaf.resolve("server.out").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().remove("JAVA_OPTS");
        builder.environment().put("EXTRA_JAVA_OPTS", String.join(" ",
                "-Dcom.sun.management.jmxremote.port=" + jmxPort,
                "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort,
                "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-Djava.rmi.server.hostname=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false",
                "-Dcom.sun.management.jmxremote.ssl=false"));
        server = builder.start();

        awaitTrue("dat:providers through bin/client", Duration.ofSeconds(240), () -> {
            try {
                Console console = client("dat:providers");
                return console.exit() == 0 && console.output().contains("sim0");
            } catch (Exception e) {
                return false;
            }
        });
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi");
        ObjectName probeName = new ObjectName(DatProbeMXBean.OBJECT_NAME);
        awaitTrue("the probe bundle's MXBean over JMX", Duration.ofSeconds(120), () -> {
            try {
                if (jmx == null) {
                    jmx = JMXConnectorFactory.connect(url);
                    mbeans = jmx.getMBeanServerConnection();
                }
                return mbeans.isRegistered(probeName);
            } catch (IOException e) {
                jmx = null;
                return false;
            }
        });
        probe = JMX.newMXBeanProxy(mbeans, probeName, DatProbeMXBean.class);
    }

    @AfterAll
    static void stopKaraf() throws Exception {
        if (jmx != null) {
            try {
                jmx.close();
            } catch (IOException e) {
                // the server goes anyway
            }
        }
        if (server == null) {
            return;
        }
        Process stop = new ProcessBuilder(karaf.resolve("bin/stop").toString()).directory(karaf.toFile())
                .redirectErrorStream(true).redirectOutput(karaf.resolve("stop.out").toFile()).start();
        stop.getOutputStream().close();
        boolean stopped = stop.waitFor(60, TimeUnit.SECONDS) && server.waitFor(90, TimeUnit.SECONDS);
        server.descendants().forEach(ProcessHandle::destroyForcibly);
        server.destroyForcibly();
        stop.destroyForcibly();
        assertThat(stopped).as("bin/stop ends Karaf").isTrue();
    }

    // ---- the shell, over SSH ---------------------------------------------------------------------

    @Test
    @Order(1)
    void theBootFeaturesStartTheDatBundles_andTheShellListsTheProviders() throws Exception {
        for (String bsn : List.of("dat.api", "dat.registry", "dat.provider.sim", "dat.provider.verbs", "dat.provider.ofi", "dat.shell", "dat.management",
                "dat.switching", "org.apache.felix.scr", "picocli", "com.fasterxml.jackson.core.jackson-databind")) {
            awaitTrue("bundle " + bsn + " active", Duration.ofSeconds(60), () -> probe.bundleState(bsn).startsWith("ACTIVE"));
        }
        assertThat(probe.bundleState("dat.example.provider")).as("not a boot feature").isEqualTo("MISSING");
        Console providers = client("dat:providers");
        assertThat(providers.exit()).as(providers.output()).isZero();
        assertThat(providers.output()).containsPattern("(?m)^sim0 +1\\.2 +yes +sim +sim +1\\.0 +dynamic +active ")
                .containsPattern("(?m)^- .* verbs .* unavailable ");
        Console json = client("dat:providers --json");
        JsonNode parsed = new ObjectMapper().readTree(json.output().substring(json.output().indexOf('{')));
        assertThat(parsed.get("providers").findValuesAsText("iaName")).contains("sim0");
        Console help = client("dat:help");
        assertThat(help.output()).contains("providers", "perf", "stats", "ia", "checkconf").doesNotContain("  exit ");
    }

    @Test
    @Order(2)
    void aShortPerfRunsThroughTheShell() throws Exception {
        Console perf = client("dat:perf sim0 --quick --latency-sizes 8 --sizes 4K --iterations 500 --time 20 --connections 8");
        assertThat(perf.exit()).as(perf.output()).isZero();
        assertThat(perf.output()).contains("dat perf sim0: one JVM", "send/recv latency 8 B", "RDMA write bandwidth 4 KiB",
                "connection setup");
    }

    @Test
    @Order(3)
    void aConfigAdminPropertySetInTheShell_isApplied_andUnsetAgain() throws Exception {
        assertThat(probe.metatype("dat.provider.sim")).as("the Metatype description of the sim provider")
                .contains("max.eps", "idle.strategy", "dat.ia.name");
        String bundleBefore = probe.bundleState("dat.provider.sim");
        Console set = client("config:property-set -p dat.provider.sim max.eps 64");
        assertThat(set.exit()).as(set.output()).isZero();
        awaitTrue("dat:ia sim0 --json shows maxEps 64", Duration.ofSeconds(60), () -> maxEps() == 64);
        assertThat(probe.exchange("sim0", 10)).startsWith("ok");
        assertThat(probe.bundleState("dat.provider.sim")).as("the same bundle, never restarted").isEqualTo(bundleBefore);

        Console unset = client("config:property-delete -p dat.provider.sim max.eps");
        assertThat(unset.exit()).as(unset.output()).isZero();
        awaitTrue("the default maxEps again", Duration.ofSeconds(60), () -> maxEps() == 4096);
    }

    @Test
    @Order(4)
    void theReadmesFeatureCommandsWork_andAVendorProviderInstallsWhileTheContainerRuns() throws Exception {
        Console repo = client("feature:repo-add mvn:io.github.datforjava/dat.karaf/" + VERSION + "/xml/features");
        assertThat(repo.exit()).as(repo.output()).isZero();
        Console dat = client("feature:install dat");
        assertThat(dat.exit()).as(dat.output()).isZero();
        Console install = client("feature:install dat-example-provider");
        assertThat(install.exit()).as(install.output()).isZero();
        awaitTrue("metered-sim0 offered", Duration.ofSeconds(60),
                () -> probe.providers().stream().anyMatch(p -> p.startsWith("metered-sim0 metered ")));
        assertThat(probe.bundleState("dat.example.provider")).startsWith("ACTIVE");
        assertThat(probe.exchange("metered-sim0", 50)).startsWith("ok metered-sim0");
    }

    @Test
    @Order(5)
    void aUsageErrorIsOneLineNamingTheArgument() throws Exception {
        Console ia = client("dat:ia");
        assertThat(ia.output()).contains("Missing required parameter: 'IA'").doesNotContain("\tat ", "Cannot coerce");
    }

    @Test
    @Order(10)
    void theDatPageShowsInKarafsWebConsole() throws Exception {
        Console install = client("feature:install http webconsole dat-webconsole");
        assertThat(install.exit()).as(install.output()).isZero();
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        String auth = java.util.Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        String base = "http://127.0.0.1:" + httpPort + "/system/console/dat";
        String[] page = new String[1];
        awaitTrue("the DAT page of Karaf's web console", Duration.ofSeconds(120), () -> {
            try {
                java.net.http.HttpResponse<String> response = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base))
                        .header("Authorization", "Basic " + auth).timeout(Duration.ofSeconds(20)).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                page[0] = response.body();
                return response.statusCode() == 200 && response.body().contains("id=\"dat-providers\"");
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        assertThat(page[0]).as("the console's frame around the page").contains("Web Console");
        java.net.http.HttpResponse<String> data = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "/data.json"))
                .header("Authorization", "Basic " + auth).timeout(Duration.ofSeconds(20)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(data.statusCode()).as(data.body()).isEqualTo(200);
        JsonNode shown = new ObjectMapper().readTree(data.body());
        JsonNode shell = new ObjectMapper().readTree(jsonOf(client("dat:providers --json")));
        assertThat(shown.get("providers").findValuesAsText("iaName")).isEqualTo(shell.get("providers").findValuesAsText("iaName"));
        assertThat(shown.get("providers").findValuesAsText("state")).isEqualTo(shell.get("providers").findValuesAsText("state"));
        assertThat(shown.get("unavailable").findValuesAsText("providerName")).contains("verbs");
    }

    private static String jsonOf(Console console) {
        assertThat(console.exit()).as(console.output()).isZero();
        return console.output().substring(console.output().indexOf('{'));
    }

    // ---- a DAT consumer in the container, through the probe --------------------------------------

    @Test
    @Order(6)
    void aConsumerBundleRunsVerifiedTrafficThroughTheRegistry() throws Exception {
        assertThat(probe.exchange("sim0", 200)).startsWith("ok sim0: 200 messages");
    }

    @Test
    @Order(7)
    void theCountersOfAnOpenIaAreMxBeans_andDatStatsShowsThem() throws Exception {
        // the metering provider counts for any IA it decorates (the sim provider keeps no counters).
        // The IAs the earlier exchanges opened and closed keep their MXBeans until the publisher's sweep
        // sees them closed; one could go between a query and a read of it, so wait for them to go first.
        awaitTrue("the MXBeans of the IAs closed earlier go", Duration.ofSeconds(10),
                () -> query("dat:type=IA,name=metered-sim0,*").isEmpty());
        probe.hold("metered-sim0");
        try {
            Set<ObjectName> names = query("dat:type=IA,name=metered-sim0,*");
            assertThat(names).as("the dat:type=IA MXBean of the held metered-sim0").hasSize(1);
            long posted = 0;
            for (ObjectName name : names) {
                posted += (Long) mbeans.getAttribute(name, "OperationsPosted");
            }
            assertThat(posted).as("operations posted on the held IA (10 sends, 10 receives)").isGreaterThanOrEqualTo(20);
            Console stats = client("dat:stats metered-sim0");
            assertThat(stats.exit()).as(stats.output()).isZero();
            assertThat(stats.output()).containsPattern("IA metered-sim0 #\\d+  provider metered  open");
        } finally {
            probe.release();
        }
        awaitTrue("the MXBeans go with the IA", Duration.ofSeconds(10),
                () -> query("dat:type=IA,name=metered-sim0,*").isEmpty());
    }

    @Test
    @Order(8)
    void aConfigurationFileInEtc_appliesWithoutRestart() throws Exception {
        Path cfg = karaf.resolve("etc/dat.provider.sim.cfg");
        Files.writeString(cfg, "max.eps = 7\n");
        awaitTrue("dat:ia sim0 shows maxEps 7", Duration.ofSeconds(60), () -> maxEps() == 7);
        Files.delete(cfg);
        awaitTrue("the default maxEps again", Duration.ofSeconds(60), () -> maxEps() == 4096);
    }

    @Test
    @Order(9)
    void aProviderStopsAndStartsWhileTheContainerRuns() throws Exception {
        probe.setBundleStarted("dat.provider.sim", false);
        awaitTrue("sim0 gone", Duration.ofSeconds(30), () -> probe.providers().stream().noneMatch(p -> p.startsWith("sim0 ")));
        assertThat(client("dat:providers").output()).doesNotContain("dat.provider.sim");

        probe.setBundleStarted("dat.provider.sim", true);
        awaitTrue("sim0 back", Duration.ofSeconds(30), () -> probe.providers().stream().anyMatch(p -> p.startsWith("sim0 ")));
        assertThat(probe.exchange("sim0", 20)).startsWith("ok");
    }

    // ---------------------------------------------------------------------------------------------

    /**
     * Runs one command in Karaf's shell over SSH, as a script does: {@code bin/client -u USER -p
     * PASSWORD -b} with the command on its standard input (batch mode; a command given as an argument
     * needs a terminal's open input, and ends at once on an empty one). Its home is a directory of
     * the test's, so that the host keys of earlier runs on the same port are not in its known hosts.
     */
    static Console client(String command) throws Exception {
        Path input = Files.writeString(Files.createTempFile(clientHome, "command", ".txt"), command + "\n");
        Path output = Files.createTempFile(clientHome, "client", ".out");
        ProcessBuilder builder = new ProcessBuilder(karaf.resolve("bin/client").toString(), "-h", "127.0.0.1", "-a",
                Integer.toString(sshPort), "-u", USER, "-p", PASSWORD, "-b").directory(karaf.toFile())
                .redirectErrorStream(true).redirectOutput(output.toFile()).redirectInput(input.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("HOME", clientHome.toString());
        builder.environment().remove("JAVA_OPTS");
        builder.environment().put("EXTRA_JAVA_OPTS", "-Duser.home=" + clientHome + " --enable-native-access=ALL-UNNAMED");
        Process client = builder.start();
        if (!client.waitFor(COMMAND_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
            client.descendants().forEach(ProcessHandle::destroyForcibly);
            client.destroyForcibly();
            throw new AssertionError("bin/client " + command + " did not end within " + COMMAND_LIMIT + ": " + Files.readString(output));
        }
        String printed = Files.readString(output);
        Files.delete(output);
        Files.delete(input);
        return new Console(client.exitValue(), printed);
    }

    /** {@code maxEps} of sim0 as {@code dat:ia sim0 --json} shows it in the shell, or -1. */
    private static long maxEps() {
        try {
            Console ia = client("dat:ia sim0 --json");
            if (ia.exit() != 0) {
                return -1;
            }
            return new ObjectMapper().readTree(ia.output().substring(ia.output().indexOf('{'))).get("iaAttributes").get("maxEps")
                    .asLong();
        } catch (Exception e) {
            return -1;
        }
    }

    private static Set<ObjectName> query(String pattern) {
        try {
            return mbeans.queryNames(new ObjectName(pattern), null);
        } catch (IOException | javax.management.MalformedObjectNameException e) {
            throw new AssertionError(e);
        }
    }

    private static void awaitTrue(String what, Duration limit, BooleanSupplier condition) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            boolean met;
            try {
                met = condition.getAsBoolean();
            } catch (RuntimeException e) {
                met = false;
            }
            if (met) {
                return;
            }
            if (server != null && !server.isAlive()) {
                throw new AssertionError("Karaf ended (exit " + server.exitValue() + ") while waiting for " + what + ": " + serverLog());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + limit.toSeconds() + " s: " + what + "\nKaraf log:\n" + serverLog());
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }

    /** The probe bundle: the probe's classes from the test classes, with an OSGi manifest. */
    private static void writeProbeBundle(Path jar) throws Exception {
        Path classes = Path.of(DatProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path probeDir = classes.resolve("dat/karaf/probe");
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue("Bundle-ManifestVersion", "2");
        main.putValue("Bundle-SymbolicName", "dat.karaf.probe");
        main.putValue("Bundle-Version", "1.0.0");
        main.putValue("Bundle-Activator", ProbeActivator.class.getName());
        main.putValue("Require-Capability", "osgi.ee;filter:=\"(&(osgi.ee=JavaSE)(version=25))\"");
        main.putValue("Import-Package", String.join(",",
                "dat.api;version=\"[1.0,2)\"",
                "javax.management",
                "org.osgi.framework;version=\"[1.8,2)\"",
                "org.osgi.service.metatype;version=\"[1.2,2)\"",
                "org.osgi.util.tracker;version=\"[1.5,2)\""));
        Files.createDirectories(jar.getParent());
        Path partial = jar.resolveSibling(jar.getFileName() + ".part");
        try (OutputStream out = Files.newOutputStream(partial); JarOutputStream jarOut = new JarOutputStream(out, manifest);
                Stream<Path> files = Files.list(probeDir)) {
            for (Path file : (Iterable<Path>) files.sorted()::iterator) {
                jarOut.putNextEntry(new JarEntry("dat/karaf/probe/" + file.getFileName()));
                Files.copy(file, jarOut);
                jarOut.closeEntry();
            }
        }
        Files.move(partial, jar, StandardCopyOption.ATOMIC_MOVE); // File Install sees the whole jar at once
    }

    private static String serverLog() {
        try {
            Path log = karaf.resolve("data/log/karaf.log");
            String text = Files.exists(log) ? Files.readString(log) : Files.readString(karaf.resolve("server.out"));
            return text.length() > 8000 ? text.substring(text.length() - 8000) : text;
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(path);
            }
        }
    }
}
