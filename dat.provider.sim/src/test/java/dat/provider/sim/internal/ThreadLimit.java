package dat.provider.sim.internal;

import dat.provider.sim.internal.core.*;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Test fixture: while open, this process can start no thread. It moves the process into a cgroup
 * (v1 {@code pids} hierarchy) of its own whose {@code pids.max} is 1, below the threads it has, so
 * every {@code pthread_create} fails with {@code EAGAIN} and the JVM throws "unable to create
 * native thread", as a process at its limit would; closing moves the process back. Only where the
 * hierarchy is mounted and writable (as root), else {@link #open} answers empty.
 */
public final class ThreadLimit implements AutoCloseable {

    private static final Path PIDS = Path.of("/sys/fs/cgroup/pids");

    private final Path home;
    private final Path group;

    private ThreadLimit(Path home, Path group) {
        this.home = home;
        this.group = group;
    }

    public static Optional<ThreadLimit> open() {
        try {
            Path home = home();
            if (home == null || !Files.isWritable(home.resolve("cgroup.procs"))) {
                return Optional.empty();
            }
            Path group = Files.createDirectories(PIDS.resolve("dat-sim-test-" + ProcessHandle.current().pid()));
            try {
                Files.writeString(group.resolve("pids.max"), "1");
                Files.writeString(group.resolve("cgroup.procs"), Long.toString(ProcessHandle.current().pid()));
            } catch (IOException | RuntimeException e) {
                Files.delete(group); // nothing moved: the group is empty
                throw e;
            }
            return Optional.of(new ThreadLimit(home, group));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** This process's group in the v1 pids hierarchy, or {@code null} where it has none. */
    private static Path home() throws IOException {
        if (!Files.isDirectory(PIDS)) {
            return null;
        }
        for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
            String[] f = line.split(":", 3);
            if (f.length == 3 && f[1].equals("pids")) {
                return PIDS.resolve(f[2].substring(1));
            }
        }
        return null;
    }

    @Override
    public void close() {
        try {
            Files.writeString(group.resolve("pids.max"), "max");
            Files.writeString(home.resolve("cgroup.procs"), Long.toString(ProcessHandle.current().pid()));
            Files.delete(group);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
