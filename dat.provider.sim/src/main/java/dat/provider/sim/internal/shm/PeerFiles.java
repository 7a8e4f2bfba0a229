package dat.provider.sim.internal.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The target side's read-only mappings of the files the peer announced (FILE records): what its
 * by-reference sends and writes copy from. A file is mapped only if it is a regular file directly
 * in {@code /dev/shm} (no link followed) whose inode is the one announced and which is at least
 * the announced size; the mapping is read-only, in an arena of the connection's own (created at
 * the first file), so it goes with the connection, while the ring file may stay mapped for the
 * next one ({@link IdleRingFile}). The file is opened for reading and writing, though only read:
 * such an open of a FIFO does not wait for a writer (a read-only one would, holding the
 * Endpoint's lock), so a peer that swaps one in after the checks gets a refusal, not a hang; a
 * file this process may read but not write is refused, and the peer's requests naming it go by
 * value. A file cut short between the size check and the mapping is extended back to the
 * announced size by the mapping (the JDK extends a file a writable channel maps past its end). A
 * descriptor is served only inside its file's mapping; a file cut short later (a peer that
 * truncates it) faults the copy, which the JVM reports as an {@link InternalError}: the connection
 * breaks.
 */
final class PeerFiles {

    /** {@link #announce}'s answer to an id announced before: a violation, not a refusal. */
    static final String DUPLICATE = "a file id announced twice";

    /** Created at the first file announced (with the Endpoint's lock held, inside the mappings); {@code null} till then. */
    private Arena arena;
    private final MemorySegment[] files = new MemorySegment[ShmRecord.MAX_FILES];

    /** Whether {@code name} may name a file of {@code /dev/shm}: no directory, no dot file, plain characters. */
    static boolean validName(String name) {
        if (name.isEmpty() || name.length() > ShmRecord.MAX_FILE_NAME || name.charAt(0) == '.') {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /**
     * A FILE record: maps the file, if it is what the peer says.
     *
     * @return whether it is mapped ({@link ShmRecord#FILE_ACCEPTED}), else why not
     */
    String announce(int id, long inode, long size, String name) {
        if (files[id] != null) {
            return DUPLICATE;
        }
        if (!validName(name) || size <= 0) {
            return "not a file name of /dev/shm";
        }
        Path path = Path.of(RingFile.DIRECTORY, name);
        try {
            BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            Object ino = Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile() || !(ino instanceof Long l) || l != inode || a.size() < size) {
                return "not the file announced";
            }
            if (arena == null) {
                arena = Arena.ofShared();
            }
            files[id] = map(path, size, arena);
            return null;
        } catch (IOException | RuntimeException e) {
            return "cannot map it: " + e.getMessage();
        }
    }

    /**
     * Maps the first {@code size} bytes of {@code path} read-only: the open does not wait for a
     * FIFO's writer (see the class comment), and what holds fewer bytes than {@code size} (a FIFO
     * holds none) is refused.
     *
     * @throws IOException when it cannot be opened or mapped, or is shorter than {@code size}
     */
    static MemorySegment map(Path path, long size, Arena arena) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            if (ch.size() < size) {
                throw new IOException("it holds " + ch.size() + " bytes, not " + size);
            }
            return ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
        }
    }

    /**
     * The bytes a descriptor names, or {@code null} when its file is unknown or the range lies
     * outside it.
     */
    MemorySegment range(int id, long offset, long length) {
        if (id < 0 || id >= files.length) {
            return null;
        }
        MemorySegment f = files[id];
        if (f == null || offset < 0 || length < 0 || length > f.byteSize() - offset) {
            return null;
        }
        return f;
    }

    /** Unmaps every file mapped; once no thread of the connection is inside the mappings ({@link MappingUsers}). */
    void close() {
        Arena a = arena;
        if (a != null) {
            try {
                a.close();
            } catch (IllegalStateException e) {
                // closed already
            }
        }
    }
}
