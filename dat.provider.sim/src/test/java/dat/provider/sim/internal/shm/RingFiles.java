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

    /**
     * Once both ends of every connection let go of it (the I/O agent retires a closed connection on
     * its own thread), no ring file stays mapped: waits for that, as long as a completion may take.
     */
    public static void assertNoneMapped() {
        long deadline = System.nanoTime() + Fabric.WAIT * 1000;
        List<String> left = mapped();
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            left = mapped();
        }
        assertThat(left).as("ring files still mapped after the connection ended").isEmpty();
    }
}
