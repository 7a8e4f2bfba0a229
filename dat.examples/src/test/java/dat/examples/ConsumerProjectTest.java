package dat.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a user of the published artifacts meets, after {@code mvn install}: the local repository
 * holds every published bundle with its sources and Javadoc jar (the very jars this build made),
 * the BOM and the Karaf features; and the README's project — its {@code pom.xml}, its
 * {@code Hello.java} and its two commands, exactly as printed — builds outside the reactor against
 * those coordinates and prints what the README says. Runs in the {@code install} phase of the
 * reactor's last module, so every other module is installed by then.
 */
class ConsumerProjectTest {

    private static final Path ROOT = Path.of(System.getProperty("dat.root")).toAbsolutePath().normalize();
    private static final String VERSION = System.getProperty("dat.version");
    private static final Path REPOSITORY = Path.of(System.getProperty("dat.local.repository"));
    private static final String GROUP = "io/github/datforjava";

    /** The published bundles: every module that is an OSGi bundle for users (not the test-only ones or the benchmarks). */
    static final List<String> BUNDLES = List.of("dat.api", "dat.registry", "dat.provider.sim", "dat.provider.verbs", "dat.provider.ofi", "dat.shell",
            "dat.management", "dat.switching", "dat.example.provider", "dat.webconsole", "dat.tests");

    @Test
    void everyPublishedBundleIsInstalled_withItsSourcesAndJavadoc() throws Exception {
        for (String bundle : BUNDLES) {
            Path dir = REPOSITORY.resolve(GROUP).resolve(bundle).resolve(VERSION);
            for (String suffix : List.of(".jar", "-sources.jar", "-javadoc.jar")) {
                String name = bundle + "-" + VERSION + suffix;
                Path installed = dir.resolve(name);
                assertThat(installed).as("installed: " + installed).isRegularFile();
                assertThat(Files.mismatch(installed, ROOT.resolve(bundle).resolve("target").resolve(name)))
                        .as(installed + " is the jar this build made").isEqualTo(-1L);
            }
            assertThat(dir.resolve(bundle + "-" + VERSION + ".pom")).isRegularFile();
        }
        assertThat(REPOSITORY.resolve(GROUP).resolve("dat.bom").resolve(VERSION).resolve("dat.bom-" + VERSION + ".pom")).isRegularFile();
        assertThat(REPOSITORY.resolve(GROUP).resolve("dat.karaf").resolve(VERSION).resolve("dat.karaf-" + VERSION + "-features.xml"))
                .isRegularFile();
    }

    @Test
    @Timeout(900)
    void theReadmesProjectBuildsOutsideTheReactor_andRuns() throws Exception {
        Path readme = ROOT.resolve("README.md");
        String heading = "### Plain Java (no OSGi)";
        Path project = Path.of(System.getProperty("dat.work"), "consumer-project");
        deleteTree(project);
        Files.createDirectories(project.resolve("src/main/java"));
        Files.writeString(project.resolve("pom.xml"), Markdown.block(readme, heading, "xml"));
        Files.writeString(project.resolve("src/main/java/Hello.java"), Markdown.block(readme, heading, "java"));
        String commands = Markdown.block(readme, heading, "sh");

        // the README's commands as a user's shell runs them: JDK 25 first on the PATH, Maven on the
        // same local repository as this build
        Path javaHome = Path.of(System.getProperty("java.home"));
        Processes.Result run = Processes.run(project, Duration.ofSeconds(600), Map.of(
                "JAVA_HOME", javaHome.toString(),
                "PATH", javaHome.resolve("bin") + java.io.File.pathSeparator + System.getenv("PATH"),
                "MAVEN_OPTS", "-Dmaven.repo.local=" + REPOSITORY),
                List.of("bash", "-euo", "pipefail", "-c", commands));
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).as("what the README says it prints").endsWith("opened sim0 of provider sim\n");
        assertThat(Files.readString(project.resolve("classpath.txt")))
                .contains(REPOSITORY.resolve(GROUP).resolve("dat.api").resolve(VERSION).toString())
                .contains("dat.registry-" + VERSION + ".jar", "dat.provider.sim-" + VERSION + ".jar");
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
