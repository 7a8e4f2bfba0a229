package dat.examples;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a command with a bound on its time, its output in files (no pipe to fill). */
final class Processes {

    /** How a run ended and what it printed (stdout and stderr together). */
    record Result(int exit, String output) {
    }

    private Processes() {
    }

    static Result run(Path directory, Duration limit, Map<String, String> environment, List<String> command) throws Exception {
        Path output = Files.createTempFile("dat-examples-run", ".out");
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().putAll(environment);
        Process process = builder.start();
        if (!process.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
            process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError(String.join(" ", command) + " did not end within " + limit + "; it printed:\n"
                    + Files.readString(output));
        }
        String printed = Files.readString(output);
        Files.delete(output);
        return new Result(process.exitValue(), printed);
    }

    /** @return the {@code java} launcher of the JDK this test runs on (JDK 25, the build's toolchain) */
    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
