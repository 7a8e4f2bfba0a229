package dat.provider.sim.internal.shm;

import static org.assertj.core.api.Assertions.assertThat;

import dat.provider.sim.internal.Fabric;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What this process maps of the shared-memory wire's ring files, read from {@code /proc/self/maps}. */
public final class RingFiles {

    private RingFiles() {
    }

    /** The lines of {@code /proc/self/maps} that map a sim ring file. */
    public static List<String> mapped() {
        try {
            return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains("/dev/shm/dat-sim-")).toList();
        } catch (IOException e) {
            throw new AssertionError("cannot read /proc/self/maps", e);
        }
    }

    /** The ring files this process maps, by name (each side of a connection in this process maps its file once). */
    public static java.util.Set<String> files() {
        return files(mapped());
    }

    /** The ring files that lines of {@link #mapped()} map, by name. */
    public static java.util.Set<String> files(List<String> lines) {
        return lines.stream().map(l -> l.substring(l.indexOf("/dev/shm/dat-sim-") + "/dev/shm/".length()).split(" ")[0])
                .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
    }

    /**
     * Once both ends of every connection let go of it (the I/O agent retires a closed connection on
     * its own thread), no ring file stays mapped: waits for that, as long as a completion may take.
     */
    public static void assertNoneMapped() {
        assertMappedOnly(List.of());
    }

    /**
     * Waits, as long as a completion may take, until what is mapped is {@code expected} (lines of
     * {@link #mapped()}): the connections that ended let go of their ring files.
     */
    public static void assertMappedOnly(List<String> expected) {
        long start = System.nanoTime();
        long startMillis = System.currentTimeMillis();
        long deadline = start + Fabric.WAIT * 1000;
        boolean interrupted = false;
        List<String> left = mapped();
        while (!left.equals(expected) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                interrupted = true; // a stray interrupt does not cut the wait short; the flag is restored below
            }
            left = mapped();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        assertThat(left).as("ring files mapped after the connections ended (waited %d ms by the monotonic clock,"
                + " %d ms by the wall clock%s)", (System.nanoTime() - start) / 1_000_000, System.currentTimeMillis() - startMillis,
                interrupted ? "; the waiting thread was interrupted" : "").isEqualTo(expected);
    }
}
