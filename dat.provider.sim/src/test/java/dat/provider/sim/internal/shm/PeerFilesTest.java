package dat.provider.sim.internal.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The mapping of a file the peer announced: a peer may swap any kind of file in under the name
 * between the checks and the open, and the open, made with the Endpoint's lock held, must not wait.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // an open that waits fails the test, not the build
class PeerFilesTest {

    private final Path dir = Path.of(RingFile.DIRECTORY);
    private final Path fifo = dir.resolve("dat-sim-test-fifo-" + ProcessHandle.current().pid());
    private final Path file = dir.resolve("dat-sim-test-file-" + ProcessHandle.current().pid());

    @AfterEach
    void remove() throws IOException {
        Files.deleteIfExists(fifo);
        Files.deleteIfExists(file);
    }

    @Test
    void aFifoUnderTheName_isRefusedAtOnce_insteadOfWaitingForAWriter() throws Exception {
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(mkfifo.exitValue()).isZero();
        try (Arena arena = Arena.ofShared()) {
            assertThatThrownBy(() -> PeerFiles.map(fifo, 4096, arena)).isInstanceOf(IOException.class)
                    .hasMessageContaining("holds 0 bytes");
        }
    }

    @Test
    void aRegularFile_isMappedReadOnly_andAShorterOneRefused() throws Exception {
        Files.write(file, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        try (Arena arena = Arena.ofShared()) {
            MemorySegment m = PeerFiles.map(file, 8, arena);
            assertThat(m.get(ValueLayout.JAVA_BYTE, 7)).isEqualTo((byte) 8);
            assertThat(m.isReadOnly()).isTrue();
            assertThatThrownBy(() -> PeerFiles.map(file, 9, arena)).isInstanceOf(IOException.class).hasMessageContaining("holds 8 bytes");
        }
    }
}
