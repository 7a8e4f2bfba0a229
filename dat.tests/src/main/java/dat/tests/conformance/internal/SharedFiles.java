package dat.tests.conformance.internal;

import dat.api.DatConstants;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Memory that two processes on one host both see: files (in {@code /dev/shm} where it exists)
 * mapped by each. With a peer agent in another process ({@link RemoteIa}), the suite allocates
 * every buffer here, so that the agent registers the very bytes the suite fills and checks. Each
 * side maps a file once; a location is a file, an offset and a size.
 */
final class SharedFiles implements AutoCloseable {

    /** Where shared memory lies: a file, an offset into it, a size. */
    record Location(String path, long offset, long size) {
    }

    private static final long CHUNK = 16L << 20;

    private final Arena arena = Arena.ofShared();
    private final boolean owner;
    private final List<Path> created = new ArrayList<>();
    /** Every file mapped here, whole, by path. */
    private final ConcurrentHashMap<String, MemorySegment> mappings = new ConcurrentHashMap<>();
    private MemorySegment chunk;
    private String chunkPath;
    private long used;

    /**
     * @param owner whether this side creates the files (the suite) and deletes them on close, or
     *     only maps those the other side names (the agent)
     */
    SharedFiles(boolean owner) {
        this.owner = owner;
    }

    /**
     * Allocates zeroed shared memory, aligned to {@link DatConstants#OPTIMAL_ALIGNMENT}.
     *
     * @param size bytes
     * @return the memory, valid until {@link #close()}
     */
    synchronized MemorySegment allocate(long size) {
        long aligned = (used + DatConstants.OPTIMAL_ALIGNMENT - 1) & -DatConstants.OPTIMAL_ALIGNMENT;
        if (chunk == null || aligned + size > chunk.byteSize()) {
            long length = Math.max(CHUNK, (size + 4095) & -4096L);
            chunkPath = newFile(length);
            chunk = mappings.get(chunkPath);
            aligned = 0;
        }
        used = aligned + Math.max(size, 1);
        return chunk.asSlice(aligned, size);
    }

    private String newFile(long length) {
        try {
            Path dir = Path.of("/dev/shm");
            Path file = Files.isDirectory(dir) && Files.isWritable(dir) ? Files.createTempFile(dir, "dat-test-", ".mem")
                    : Files.createTempFile("dat-test-", ".mem");
            created.add(file);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                channel.write(java.nio.ByteBuffer.wrap(new byte[1]), length - 1); // sized: sparse, zero
                mappings.put(file.toString(), channel.map(FileChannel.MapMode.READ_WRITE, 0, length, arena));
            }
            return file.toString();
        } catch (IOException e) {
            throw new IllegalStateException("cannot create shared memory for the peer agent: " + e, e);
        }
    }

    /** @return where {@code memory} lies in a file mapped here, or {@code null} */
    Location locate(MemorySegment memory) {
        long start = memory.address();
        for (var e : mappings.entrySet()) {
            MemorySegment m = e.getValue();
            if (start >= m.address() && start + memory.byteSize() <= m.address() + m.byteSize()) {
                return new Location(e.getKey(), start - m.address(), memory.byteSize());
            }
        }
        return null;
    }

    /**
     * @param location a file, offset and size
     * @return this side's view of it (the file is mapped on first use)
     * @throws IOException when the file cannot be mapped here (another host's file, for one)
     */
    MemorySegment map(Location location) throws IOException {
        MemorySegment whole = mappings.get(location.path());
        if (whole == null) {
            if (owner) {
                throw new IOException("no shared file " + location.path() + " was created here");
            }
            Path file = Path.of(location.path());
            if (!file.getFileName().toString().startsWith("dat-test-")) {
                throw new IOException("not a file of the suite's shared memory: " + file);
            }
            // one reader thread decodes a session's values, so the file is mapped once
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                whole = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
                mappings.put(location.path(), whole);
            } catch (java.nio.file.NoSuchFileException e) {
                throw new IOException("the suite's shared memory " + file + " is not on this host: a peer agent on another host"
                        + " serves only the transaction tests (--filter '^transactions/')", e);
            }
        }
        return whole.asSlice(location.offset(), location.size());
    }

    /** Unmaps every file, and deletes those this side created. */
    @Override
    public synchronized void close() {
        arena.close();
        for (Path file : created) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // /dev/shm is cleaned at boot anyway
            }
        }
        created.clear();
    }
}
