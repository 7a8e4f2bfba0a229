package dat.provider.sim.internal.shm;

import dat.provider.sim.internal.core.SimLmr;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which registered memory of this process a peer on the host can map itself: an LMR whose whole
 * range lies in one shared mapping ({@code MAP_SHARED}) of a file directly under
 * {@code /dev/shm} that still has its name (as {@code FileChannel.map} of such a file gives).
 * Learned from {@code /proc/self/maps} the first time an LMR carries a large send or write
 * ({@link ShmWire#BY_REFERENCE_FROM}), and kept per LMR until it is freed; the data path reads the
 * cache only. Such a request then goes by reference: the peer copies straight from its read-only
 * mapping of the file into the target memory, one copy in all instead of two through the ring.
 */
final class SharedSources {

    /**
     * An LMR's memory as a range of a file in {@code /dev/shm}.
     *
     * @param name the file's name in {@code /dev/shm}
     * @param inode its inode, which the peer checks against the file it opens
     * @param size its size when classified
     * @param offset the file offset of the LMR's first byte
     * @param address the LMR memory's address (the cache holds it against a reused LMR object)
     */
    record Source(String name, long inode, long size, long offset, long address) {
    }

    /** Memory of no shared file. */
    private static final Source NONE = new Source("", 0, 0, 0, 0);

    private final ConcurrentHashMap<SimLmr, Source> known = new ConcurrentHashMap<>();

    /**
     * The file range of {@code lmr}'s memory, or {@code null} when the peer cannot map it. The
     * first call for an LMR reads {@code /proc/self/maps} (and allocates); later calls only look
     * the answer up.
     */
    Source of(SimLmr lmr) {
        Source s = known.get(lmr);
        if (s == null) {
            s = classify(lmr.memory());
            if (!lmr.isFreed()) {
                known.put(lmr, s);
            }
        }
        return s == NONE ? null : s;
    }

    /** dat_lmr_free: the freed LMRs' answers go (the memory may be another's next time). */
    void forgetFreed() {
        known.keySet().removeIf(SimLmr::isFreed);
    }

    int size() {
        return known.size();
    }

    private static Source classify(MemorySegment memory) {
        long start = memory.address();
        long end = start + memory.byteSize();
        List<String> maps;
        try {
            maps = Files.readAllLines(Path.of("/proc/self/maps"));
        } catch (IOException | RuntimeException e) {
            return NONE;
        }
        for (String line : maps) {
            Source s = parse(line, start, end);
            if (s != null) {
                return s;
            }
        }
        return NONE;
    }

    /**
     * One line of {@code /proc/self/maps}: {@code start-end perms offset dev inode path}. The
     * source when it is a shared mapping of a named file in {@code /dev/shm} holding [start, end).
     */
    static Source parse(String line, long start, long end) {
        String[] f = line.trim().split("\\s+", 6);
        if (f.length < 6 || f[1].length() < 4 || f[1].charAt(3) != 's' || !f[5].startsWith(RingFile.DIRECTORY + "/")) {
            return null;
        }
        int dash = f[0].indexOf('-');
        long from;
        long to;
        long offset;
        long inode;
        try {
            from = Long.parseUnsignedLong(f[0], 0, dash, 16);
            to = Long.parseUnsignedLong(f[0], dash + 1, f[0].length(), 16);
            offset = Long.parseUnsignedLong(f[2], 16);
            inode = Long.parseLong(f[4]);
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return null;
        }
        if (start < from || end > to) {
            return null;
        }
        String name = f[5].substring(RingFile.DIRECTORY.length() + 1);
        if (name.endsWith(" (deleted)") || !PeerFiles.validName(name)) {
            return null; // unlinked: the peer cannot open it by name
        }
        try {
            Path path = Path.of(RingFile.DIRECTORY, name);
            Object ino = Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS);
            if (!(ino instanceof Long l) || l != inode) {
                return null; // the name now names another file
            }
            return new Source(name, inode, Files.size(path), offset + (start - from), start);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
