package dat.karaf;

import static org.assertj.core.api.Assertions.assertThat;

import dat.karaf.probe.DatProbe;
import dat.karaf.probe.DatProbeMXBean;
import dat.karaf.probe.ProbeActivator;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
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

/**
 * DAT for Java in a real Apache Karaf: the 4.4.8 distribution from Maven Central, booted as a server
 * process, provisioned the way a container is — this build's features repository and boot features
 * in {@code etc/org.apache.karaf.features.cfg}, bundles resolved from a repository of the bundles
 * this build made (nothing is fetched from the network), a features file and a bundle dropped into
 * {@code deploy/} while it runs, configuration through {@code etc/<pid>.cfg} (File Install → Configuration
 * Admin).
 *
 * <p>Inside runs a probe bundle ({@code dat.karaf.probe}, a DAT consumer built only against
 * {@code dat.api}) that the test reaches over the JVM's JMX agent on loopback; the per-IA counters of
 * {@code dat.management} are read there too, as MXBeans.
 *
 * <p>Two facts of Karaf 4.4.8 on JDK 25 shape the test: its {@code bin/inc} passes
 * {@code -Djava.security.manager=allow}, which JDK 24+ refuses at start (the test replaces that line
 * by a no-op); and its shell cannot open any session, local or over SSH, because
 * {@code ShellUtil.getCurrentUserName} calls {@code Subject.getSubject}, which always throws
 * {@code UnsupportedOperationException} on JDK 24+. So the {@code dat:} commands are invoked through
 * their registered command services, as a shell invokes them, by the probe.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KarafContainerTest {

    private static final List<String> BOOT_FEATURES = List.of("dat-provider-sim", "dat-shell", "dat-management", "dat-switching");
    private static Path karaf;
    private static Path features;
    private static Process server;
    private static JMXConnector jmx;
    private static MBeanServerConnection mbeans;
    private static DatProbeMXBean probe;

    @BeforeAll
    static void bootKaraf() throws Exception {
        Path dist = Path.of(System.getProperty("karaf.dist"));
        karaf = Path.of(System.getProperty("karaf.work"));
        features = Path.of(System.getProperty("dat.features"));
        Path repo = Path.of(System.getProperty("karaf.repo"));
        assertThat(dist.resolve("bin/karaf")).as("the unpacked Karaf distribution").exists();
        assertThat(features).as("the features repository of this build").exists();
        deleteTree(karaf);
        copyTree(dist, karaf);
        int jmxPort = freePort();
        configure(repo);
        writeProbeBundle(karaf.resolve("deploy/dat.karaf.probe.jar"));

        ProcessBuilder builder = new ProcessBuilder(karaf.resolve("bin/karaf").toString(), "server")
                .directory(karaf.toFile())
                .redirectErrorStream(true)
                .redirectOutput(karaf.resolve("server.out").toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().remove("JAVA_OPTS");
        builder.environment().put("EXTRA_JAVA_OPTS", String.join(" ",
                "--enable-native-access=ALL-UNNAMED",
                "-Dcom.sun.management.jmxremote.port=" + jmxPort,
                "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort,
                "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-Djava.rmi.server.hostname=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false",
                "-Dcom.sun.management.jmxremote.ssl=false"));
        server = builder.start();

        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi");
        ObjectName probeName = new ObjectName(DatProbeMXBean.OBJECT_NAME);
        awaitTrue("the probe bundle's MXBean over JMX", Duration.ofSeconds(180), () -> {
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
        stop.waitFor(60, TimeUnit.SECONDS);
        if (!server.waitFor(60, TimeUnit.SECONDS)) {
            server.descendants().forEach(ProcessHandle::destroyForcibly);
            server.destroyForcibly();
            server.waitFor(20, TimeUnit.SECONDS);
        }
        server.descendants().forEach(ProcessHandle::destroyForcibly);
        stop.destroyForcibly();
    }

    @Test
    @Order(1)
    void theBootFeaturesInstallTheDatBundles() {
        for (String bsn : List.of("dat.api", "dat.registry", "dat.provider.sim", "dat.shell", "dat.management", "dat.switching",
                "org.apache.felix.scr")) {
            awaitTrue("bundle " + bsn + " active", Duration.ofSeconds(60), () -> probe.bundleState(bsn).startsWith("ACTIVE"));
        }
        assertThat(probe.bundleState("dat.example.provider")).as("not a boot feature").isEqualTo("MISSING");
    }

    @Test
    @Order(2)
    void theDatCommandsRunInTheContainer() throws Exception {
        awaitTrue("sim0 offered", Duration.ofSeconds(30), () -> probe.providers().stream().anyMatch(p -> p.startsWith("sim0 ")));
        String providers = probe.command("providers", new String[0]);
        assertThat(providers).contains("sim0", "active", "dat.provider.sim");
        String ia = probe.command("ia", new String[] {"sim0"});
        assertThat(ia).contains("IA sim0", "maxEps", "4096");
        assertThat(probe.command("stats", new String[0])).isNotNull();
    }

    @Test
    @Order(3)
    void aConsumerBundleRunsVerifiedTrafficThroughTheRegistry() throws Exception {
        assertThat(probe.exchange("sim0", 200)).startsWith("ok sim0: 200 messages");
    }

    @Test
    @Order(6)
    void theProviderConfigurationIsDescribedByMetatypeAndAppliesWithoutRestart() throws Exception {
        assertThat(probe.metatype("dat.provider.sim")).as("the Metatype description of the sim provider")
                .contains("max.eps", "idle.strategy", "dat.ia.name");
        String bundleBefore = probe.bundleState("dat.provider.sim");

        Path cfg = karaf.resolve("etc/dat.provider.sim.cfg");
        Files.writeString(cfg, "max.eps = 7\n");
        awaitTrue("dat:ia sim0 shows maxEps 7", Duration.ofSeconds(60), () -> maxEps(iaText()) == 7);
        assertThat(probe.exchange("sim0", 10)).startsWith("ok");
        assertThat(probe.bundleState("dat.provider.sim")).as("the same bundle, never restarted").isEqualTo(bundleBefore);

        Files.delete(cfg);
        awaitTrue("the default maxEps again", Duration.ofSeconds(60), () -> maxEps(iaText()) == 4096);
    }

    @Test
    @Order(4)
    void aVendorProviderFeatureInstallsWhileTheContainerRuns() throws Exception {
        probe.installFeature(features.toUri().toString(), "dat-example-provider");
        awaitTrue("metered-sim0 offered", Duration.ofSeconds(60),
                () -> probe.providers().stream().anyMatch(p -> p.startsWith("metered-sim0 metered ")));
        assertThat(probe.bundleState("dat.example.provider")).startsWith("ACTIVE");
        assertThat(probe.exchange("metered-sim0", 50)).startsWith("ok metered-sim0");
    }

    @Test
    @Order(5)
    void theCountersOfAnOpenIaAreMxBeans() throws Exception {
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
            assertThat(probe.command("stats", new String[] {"metered-sim0"})).contains("metered-sim0");
        } finally {
            probe.release();
        }
        awaitTrue("the MXBeans go with the IA", Duration.ofSeconds(10),
                () -> query("dat:type=IA,name=metered-sim0,*").isEmpty());
    }

    @Test
    @Order(7)
    void aProviderStopsAndStartsWhileTheContainerRuns() throws Exception {
        probe.setBundleStarted("dat.provider.sim", false);
        awaitTrue("sim0 gone", Duration.ofSeconds(30), () -> probe.providers().stream().noneMatch(p -> p.startsWith("sim0 ")));
        assertThat(probe.command("providers", new String[0])).doesNotContain("dat.provider.sim");

        probe.setBundleStarted("dat.provider.sim", true);
        awaitTrue("sim0 back", Duration.ofSeconds(30), () -> probe.providers().stream().anyMatch(p -> p.startsWith("sim0 ")));
        assertThat(probe.exchange("sim0", 20)).startsWith("ok");
    }

    // ---------------------------------------------------------------------------------------------

    private static String iaText() {
        try {
            return probe.command("ia", new String[] {"sim0"});
        } catch (Exception e) {
            return "";
        }
    }

    /** The maxEps line of {@code dat:ia}, or -1. */
    private static long maxEps(String iaOutput) {
        return iaOutput.lines().map(String::trim).filter(line -> line.startsWith("maxEps "))
                .mapToLong(line -> Long.parseLong(line.substring("maxEps".length()).trim())).findFirst().orElse(-1);
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

    // ---------------------------------------------------------------------------------------------
    // the Karaf installation
    // ---------------------------------------------------------------------------------------------

    private static void configure(Path repo) throws IOException {
        Path inc = karaf.resolve("bin/inc");
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(inc)) {
            // a no-op in its place keeps the enclosing if-block valid shell
            lines.add(line.contains("-Djava.security.manager=allow") ? "      :" : line);
        }
        Files.write(inc, lines);

        // resolve mvn: URLs from Karaf's system folder and this build's bundles only, never the network
        Files.writeString(karaf.resolve("etc/org.ops4j.pax.url.mvn.cfg"), String.join("\n",
                "org.ops4j.pax.url.mvn.useFallbackRepositories=false",
                "org.ops4j.pax.url.mvn.localRepository=" + karaf.resolve("local-repository").toUri(),
                "org.ops4j.pax.url.mvn.defaultRepositories=${karaf.home.uri}${karaf.default.repository}@id=system.repository@snapshots, "
                        + repo.toUri() + "@id=dat.repository@snapshots",
                "org.ops4j.pax.url.mvn.repositories=",
                ""));

        // provisioning: this build's features repository and the boot features
        Path featuresCfg = karaf.resolve("etc/org.apache.karaf.features.cfg");
        String cfg = Files.readString(featuresCfg);
        assertThat(cfg).contains("featuresRepositories = \\\n", "featuresBoot = \\\n");
        cfg = cfg.replace("featuresRepositories = \\\n", "featuresRepositories = \\\n    " + features.toUri() + ", \\\n")
                .replace("featuresBoot = \\\n", "featuresBoot = \\\n    " + String.join(", ", BOOT_FEATURES) + ", \\\n");
        Files.writeString(featuresCfg, cfg);

        // SSH on loopback and a free port, so that it clashes with nothing (its shell cannot open
        // sessions on JDK 25 anyway, see the class comment)
        Path shell = karaf.resolve("etc/org.apache.karaf.shell.cfg");
        Files.writeString(shell, Files.readString(shell).replaceAll("(?m)^sshHost\\s*=.*$", "sshHost = 127.0.0.1")
                .replaceAll("(?m)^sshPort\\s*=.*$", "sshPort = " + freePort()));
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
                "org.osgi.util.tracker;version=\"[1.5,2)\"",
                "org.apache.karaf.features;version=\"[4.4,5)\""));
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

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES, StandardCopyOption.REPLACE_EXISTING);
                }
            }
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
