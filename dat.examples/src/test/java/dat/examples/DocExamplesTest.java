package dat.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java of the documentation, exactly as printed, compiled by javac on the plain class path the
 * README names ({@code dat.api}, {@code dat.registry}, {@code dat.provider.sim}: the jars of this
 * build) and run in a JVM of its own: README.md's {@code Hello} and docs/api-mapping.md's complete
 * consumer, which must also be, word for word, the {@code ConsumerExample} CI runs in OSGi.
 */
class DocExamplesTest {

    private static final Path ROOT = Path.of(System.getProperty("dat.root")).toAbsolutePath().normalize();
    private static final Duration RUN_LIMIT = Duration.ofSeconds(120);

    @Test
    @Timeout(300)
    void theReadmesPlainJavaExample_compilesAndRuns(@TempDir Path dir) throws Exception {
        String hello = Markdown.block(ROOT.resolve("README.md"), "### Plain Java (no OSGi)", "java");
        Path classes = compile(dir, "Hello", hello);
        Processes.Result run = run(dir, classes, "Hello");
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).isEqualTo("opened sim0 of provider sim\n");
    }

    @Test
    @Timeout(300)
    void theCompleteConsumerOfTheApiMapping_compilesAndRuns_andIsTheOneCiRunsInOsgi(@TempDir Path dir) throws Exception {
        String consumer = Markdown.block(ROOT.resolve("docs/api-mapping.md"), "## A complete consumer", "java");
        String tested = Files.readString(ROOT.resolve("dat.tests/src/test/java/dat/tests/example/ConsumerExample.java"));
        assertThat(tested).startsWith("package dat.tests.example;\n\n");
        assertThat(consumer).as("the doc's consumer is ConsumerExample.java, its package line aside")
                .isEqualTo(tested.substring("package dat.tests.example;\n\n".length()));
        Path classes = compile(dir, "ConsumerExample", consumer);
        Processes.Result run = run(dir, classes, "ConsumerExample");
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).isEqualTo("hello written-rdma\n");
    }

    /** Compiles one class of the default package against the README's class path; fails on any diagnostic. */
    private static Path compile(Path dir, String className, String source) throws IOException {
        Path sources = Files.createDirectories(dir.resolve("src"));
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Path file = Files.writeString(sources.resolve(className + ".java"), source, StandardCharsets.UTF_8);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            List<String> options = List.of("--release", "25", "-Xlint:all", "-Werror", "-classpath", classPath(), "-d",
                    classes.toString());
            boolean compiled = javac.getTask(null, files, diagnostics, options, null, files.getJavaFileObjects(file)).call();
            assertThat(diagnostics.getDiagnostics()).as("javac's diagnostics on " + className).isEmpty();
            assertThat(compiled).isTrue();
        }
        return classes;
    }

    private static Processes.Result run(Path dir, Path classes, String mainClass) throws Exception {
        List<String> command = new ArrayList<>(List.of(Processes.java(), "--enable-native-access=ALL-UNNAMED", "-cp",
                classes + java.io.File.pathSeparator + classPath(), mainClass));
        return Processes.run(dir, RUN_LIMIT, Map.of(), command);
    }

    /** The three jars of the README's plain-Java class path, as this build made them. */
    private static String classPath() {
        String path = System.getProperty("dat.classpath");
        for (String jar : path.split(java.io.File.pathSeparator)) {
            assertThat(Path.of(jar)).as("a jar of the plain-Java class path").isRegularFile();
        }
        assertThat(path.split(java.io.File.pathSeparator)).hasSize(3);
        return path;
    }
}
