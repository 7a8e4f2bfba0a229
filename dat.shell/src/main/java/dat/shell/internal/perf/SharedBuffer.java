package dat.shell.internal.perf;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The client's buffer as a shared mapping of a file of its own in {@code /dev/shm}, for an IA
 * whose connections may move their data through shared memory: registered memory of such a file
 * is what the sim provider's shared-memory wire hands the peer by reference (the peer copies straight
 * from its own mapping of the file, one copy in all), as a user who wants that single copy would
 * allocate it. The file is created 0600 and keeps its name while the run lasts (the peer opens it
 * by name); {@link #close} removes the name, and the mapping goes with the caller's arena.
 */
final class SharedBuffer implements AutoCloseable {

    static final Path DIRECTORY = Path.of("/dev/shm");
    static final String PREFIX = "dat-perf-buffer-";

    private final Path file;
    private final MemorySegment memory;

    private SharedBuffer(Path file, MemorySegment memory) {
        this.file = file;
        this.memory = memory;
    }

    /**
     * Maps a new file of {@code bytes} in {@code /dev/shm} into {@code arena} (the mapping sizes the file).
     *
     * @throws IOException when the file cannot be made or mapped (it is then removed)
     */
    static SharedBuffer map(Arena arena, long bytes) throws IOException {
        byte[] nonce = new byte[8];
        new SecureRandom().nextBytes(nonce);
        Path file = DIRECTORY.resolve(PREFIX + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(nonce));
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return new SharedBuffer(file, channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena));
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
    }

    MemorySegment memory() {
        return memory;
    }

    Path file() {
        return file;
    }

    /** Removes the file's name; the mapping stays valid until its arena closes. */
    @Override
    public void close() throws IOException {
        Files.deleteIfExists(file);
    }
}
