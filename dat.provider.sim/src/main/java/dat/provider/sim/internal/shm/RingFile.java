package dat.provider.sim.internal.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The file of one shared-memory connection: a header page and four rings, mapped by both
 * processes. The active side creates it in {@code /dev/shm} (mode 0600) and offers its name and a
 * random nonce in the CONNECT_REQUEST; the passive side maps it only if the nonce it finds there
 * is the one offered (so the file is the active side's: both are on one host), writes a nonce of
 * its own and answers with it in the ACCEPT, which the active side checks against the file (so the
 * passive side mapped this very file). Each side unlinks the file as soon as it has it mapped: a
 * file lives in {@code /dev/shm} only while a connection is being set up, and one left by a
 * process that died meanwhile is removed by the next transport that starts ({@link #removeStale}).
 * A connection that ends by the exchange of DISCONNECTs leaves its socket to the next connection
 * between the same two IAs, and the file, still mapped on both sides, goes with it
 * ({@link IdleRingFile}): that connection offers it again with new nonces ({@link #reoffer},
 * {@link #retake}), each side's words starting again as in a new file.
 *
 * <p>Layout (the host's byte order; see {@code docs/sim-provider.md}):
 * <pre>
 *    0  8  magic "DATSHM01"
 *    8  4  version 3
 *   12  4  ring capacity (a power of two)
 *   16 16  the active side's nonce
 *   32 16  the passive side's nonce (0 until the passive side mapped the file)
 *   48  8  the active side's pid
 *   56  8  the passive side's pid
 *   64  8  file size
 *  128  4  the active side wants a doorbell (its rings' consumer sleeps)
 *  256  4  the passive side wants a doorbell
 * 4096     ring 0: active to passive, requests   (a 4096-byte control block, then capacity bytes)
 *          ring 1: active to passive, responses
 *          ring 2: passive to active, requests
 *          ring 3: passive to active, responses
 * </pre>
 */
final class RingFile {

    static final long MAGIC = 0x3130_4D48_5354_4144L; // "DATSHM01" in little-endian bytes
    static final int VERSION = 3;
    static final long H_MAGIC = 0;
    static final long H_VERSION = 8;
    static final long H_CAPACITY = 12;
    static final long H_ACTIVE_NONCE = 16;
    static final long H_PASSIVE_NONCE = 32;
    static final long H_ACTIVE_PID = 48;
    static final long H_PASSIVE_PID = 56;
    static final long H_SIZE = 64;
    static final long ACTIVE_DOORBELL = 128;
    static final long PASSIVE_DOORBELL = 256;
    static final int HEADER_BYTES = 4096;
    static final int NONCE_BYTES = 16;
    static final int MIN_CAPACITY = 64 * 1024;
    static final int MAX_CAPACITY = 64 << 20;
    /** The capacity of each ring this implementation creates. */
    static final int DEFAULT_CAPACITY = 1 << 20;

    static final String DIRECTORY = "/dev/shm";
    private static final Pattern NAME = Pattern.compile("dat-sim-([0-9]{1,10})-[0-9a-f]{16}\\.ring");
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Arena arena;
    private final MemorySegment file;
    private final String name;
    private final boolean active;
    private final int capacity;
    private volatile boolean linked;
    /** This side's rings: what it produces, what it consumes; new for each connection the file carries ({@link #restart}). */
    Ring txRequests;
    Ring txResponses;
    Ring rxRequests;
    Ring rxResponses;

    private RingFile(Arena arena, MemorySegment file, String name, boolean active, int capacity) {
        this.arena = arena;
        this.file = file;
        this.name = name;
        this.active = active;
        this.capacity = capacity;
        this.linked = true;
        sideRings();
    }

    private void sideRings() {
        Ring[] r = new Ring[4];
        for (int i = 0; i < 4; i++) {
            long at = HEADER_BYTES + (long) i * (Ring.CONTROL_BYTES + capacity);
            r[i] = new Ring(file.asSlice(at, Ring.CONTROL_BYTES), file.asSlice(at + Ring.CONTROL_BYTES, capacity));
        }
        txRequests = active ? r[0] : r[2];
        txResponses = active ? r[1] : r[3];
        rxRequests = active ? r[2] : r[0];
        rxResponses = active ? r[3] : r[1];
    }

    static long fileSize(int capacity) {
        return HEADER_BYTES + 4L * (Ring.CONTROL_BYTES + capacity);
    }

    String name() {
        return name;
    }

    int capacity() {
        return capacity;
    }

    /** The ring file's mapping, for tests that play a hostile peer. */
    MemorySegment mapping() {
        return file;
    }

    // ---------------------------------------------------------------------------------------------
    // the active side
    // ---------------------------------------------------------------------------------------------

    /**
     * Creates and maps a new ring file in {@code /dev/shm}.
     *
     * @param capacity each ring's capacity
     * @param nonce receives the nonce the CONNECT_REQUEST offers
     * @throws IOException when there is no {@code /dev/shm}, no room, or no mapping
     */
    static RingFile create(int capacity, byte[] nonce) throws IOException {
        RANDOM.nextBytes(nonce);
        byte[] id = new byte[8];
        RANDOM.nextBytes(id);
        String name = "dat-sim-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(id) + ".ring";
        Path path = Path.of(DIRECTORY, name);
        long size = fileSize(capacity);
        Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            ch.write(ByteBuffer.wrap(new byte[1]), size - 1); // sized, sparse: pages come as the rings are used
            MemorySegment m = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            m.set(ValueLayout.JAVA_INT, H_VERSION, VERSION);
            m.set(ValueLayout.JAVA_INT, H_CAPACITY, capacity);
            MemorySegment.copy(MemorySegment.ofArray(nonce), 0, m, H_ACTIVE_NONCE, NONCE_BYTES);
            m.set(ValueLayout.JAVA_LONG, H_ACTIVE_PID, ProcessHandle.current().pid());
            m.set(ValueLayout.JAVA_LONG, H_SIZE, size);
            VarHandle.releaseFence();
            m.set(ValueLayout.JAVA_LONG, H_MAGIC, MAGIC);
            return new RingFile(arena, m, name, true, capacity);
        } catch (IOException | RuntimeException e) {
            arena.close();
            deleteQuietly(path);
            throw e;
        }
    }

    /**
     * The active side, at the ACCEPT: whether the passive side wrote {@code passiveNonce} into this
     * file (it mapped the very file offered). Unlinks the file either way.
     */
    boolean confirm(byte[] passiveNonce) {
        unlink();
        VarHandle.acquireFence();
        byte[] found = file.asSlice(H_PASSIVE_NONCE, NONCE_BYTES).toArray(ValueLayout.JAVA_BYTE);
        return passiveNonce.length == NONCE_BYTES && !Arrays.equals(found, new byte[NONCE_BYTES]) && Arrays.equals(found, passiveNonce);
    }

    // ---------------------------------------------------------------------------------------------
    // the passive side
    // ---------------------------------------------------------------------------------------------

    /**
     * Maps the ring file a CONNECT_REQUEST offers, if it is one: a regular file of the right name,
     * size and layout directly in {@code /dev/shm}, holding {@code nonce}. Writes this side's
     * nonce into it (returned in {@code passiveNonce}) and unlinks it.
     *
     * @param name the offered name
     * @param nonce the offered nonce
     * @param passiveNonce receives this side's nonce, for the ACCEPT
     * @return the mapped file
     * @throws IOException with the reason when the offer cannot be taken
     */
    static RingFile open(String name, byte[] nonce, byte[] passiveNonce) throws IOException {
        if (!NAME.matcher(name).matches()) {
            throw new IOException("not a ring file name: " + name);
        }
        Path path = Path.of(DIRECTORY, name);
        BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        long size = attrs.size();
        if (!attrs.isRegularFile() || size < fileSize(MIN_CAPACITY) || size > fileSize(MAX_CAPACITY)) {
            throw new IOException("not a ring file: " + path);
        }
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            MemorySegment m = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            if (m.get(ValueLayout.JAVA_LONG, H_MAGIC) != MAGIC || m.get(ValueLayout.JAVA_INT, H_VERSION) != VERSION) {
                throw new IOException("not a ring file of this version: " + path);
            }
            VarHandle.acquireFence();
            int capacity = m.get(ValueLayout.JAVA_INT, H_CAPACITY);
            if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1
                    || fileSize(capacity) != size || m.get(ValueLayout.JAVA_LONG, H_SIZE) != size) {
                throw new IOException("a ring file of a bad size: " + path);
            }
            if (!Arrays.equals(m.asSlice(H_ACTIVE_NONCE, NONCE_BYTES).toArray(ValueLayout.JAVA_BYTE), nonce)) {
                throw new IOException("the ring file holds another nonce: " + path);
            }
            RANDOM.nextBytes(passiveNonce);
            m.set(ValueLayout.JAVA_LONG, H_PASSIVE_PID, ProcessHandle.current().pid());
            MemorySegment.copy(MemorySegment.ofArray(passiveNonce), 0, m, H_PASSIVE_NONCE, NONCE_BYTES);
            VarHandle.fullFence();
            RingFile f = new RingFile(arena, m, name, false, capacity);
            f.unlink();
            return f;
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        } catch (InternalError e) {
            // the file was cut short between its size check and the reads: a fault in the mapping
            arena.close();
            throw new IOException("the ring file was cut short: " + path, e);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the next connection on the same socket
    // ---------------------------------------------------------------------------------------------

    /**
     * The active side offers this file, kept mapped since its last connection ended
     * ({@link IdleRingFile}), to the next connection on the same socket: this side's words start
     * again as in a new file ({@link #restart}), and a new nonce goes in, which the passive side
     * must find in its own mapping of the file, as for a new file.
     *
     * @param nonce receives the nonce the CONNECT_REQUEST offers
     */
    void reoffer(byte[] nonce) {
        RANDOM.nextBytes(nonce);
        restart();
        file.asSlice(H_PASSIVE_NONCE, NONCE_BYTES).fill((byte) 0);
        MemorySegment.copy(MemorySegment.ofArray(nonce), 0, file, H_ACTIVE_NONCE, NONCE_BYTES);
        VarHandle.fullFence(); // before the CONNECT_REQUEST that offers it
    }

    /**
     * The passive side takes the offer of this file, kept mapped since its last connection ended,
     * whose name the offer gave: only if its mapping holds the offered nonce (the active side wrote
     * it into this very file). This side's words start again as in a new file, and a new nonce of its
     * own goes in for the ACCEPT, which the active side checks as for a new file ({@link #confirm}).
     *
     * @param passiveNonce receives this side's nonce, for the ACCEPT
     * @throws IOException when the offer holds another nonce
     */
    void retake(byte[] nonce, byte[] passiveNonce) throws IOException {
        VarHandle.acquireFence();
        if (!Arrays.equals(file.asSlice(H_ACTIVE_NONCE, NONCE_BYTES).toArray(ValueLayout.JAVA_BYTE), nonce)) {
            throw new IOException("the kept ring file holds another nonce than the offer: " + name);
        }
        restart();
        RANDOM.nextBytes(passiveNonce);
        MemorySegment.copy(MemorySegment.ofArray(passiveNonce), 0, file, H_PASSIVE_NONCE, NONCE_BYTES);
        VarHandle.fullFence(); // before the ACCEPT that answers
    }

    /**
     * This side's words back to those of a new file, and new ring objects for the next connection:
     * the first record of each ring it produces has no mark yet (the peer's consumer starts there),
     * its acknowledgement and its consumer positions are 0, it wants no doorbell. Only once no
     * thread of the last connection is inside the mappings, and before the handshake frame that
     * lets the peer read them; the peer restarts its own words the same way before it reads these.
     */
    private void restart() {
        sideRings();
        for (Ring produced : new Ring[] {txRequests, txResponses}) {
            produced.data().set(ValueLayout.JAVA_LONG, 0, 0L);
            produced.acknowledge(0);
        }
        rxRequests.restartConsumer();
        rxResponses.restartConsumer();
        wantDoorbell(false);
    }

    // ---------------------------------------------------------------------------------------------
    // doorbells
    // ---------------------------------------------------------------------------------------------

    /** This side's rings' consumer is about to sleep: the peer rings the doorbell after its next publication. */
    void wantDoorbell(boolean want) {
        INT.setVolatile(file, active ? ACTIVE_DOORBELL : PASSIVE_DOORBELL, want ? 1 : 0);
    }

    /**
     * After this side published records (with the full fence between that store and this load,
     * against the peer's store of its flag and its load of the positions): whether the peer wants
     * a doorbell; taking the wish, so one doorbell answers it.
     */
    boolean peerWantsDoorbell() {
        long at = active ? PASSIVE_DOORBELL : ACTIVE_DOORBELL;
        VarHandle.fullFence();
        return (int) INT.getVolatile(file, at) != 0 && INT.compareAndSet(file, at, 1, 0);
    }

    /** Whether the peer's poller sleeps on its doorbell now (its flag set); a look, not taking the wish. */
    boolean peerSleeps() {
        return (int) INT.getVolatile(file, active ? PASSIVE_DOORBELL : ACTIVE_DOORBELL) != 0;
    }

    // ---------------------------------------------------------------------------------------------
    // the end
    // ---------------------------------------------------------------------------------------------

    /** Removes the file's name (the mappings stay); idempotent. */
    void unlink() {
        if (linked) {
            linked = false;
            deleteQuietly(Path.of(DIRECTORY, name));
        }
    }

    /**
     * Unlinks and unmaps: this side's mapping leaves {@code /proc/self/maps}. Only once no thread
     * reads the rings ({@link MappingUsers}): one that did would meet an exception and have its
     * interrupt status set.
     */
    void close() {
        unlink();
        try {
            arena.close();
        } catch (IllegalStateException e) {
            // closed already
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // gone, or not ours to delete: the next transport's clean-up looks again
        }
    }

    /**
     * Removes the ring files in {@code /dev/shm} of processes that no longer run (pids in this
     * process's namespace): files a process left when it died between creating a file and the
     * peer's answer.
     *
     * @return how many were removed
     */
    static int removeStale() {
        Path dir = Path.of(DIRECTORY);
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "dat-sim-*.ring")) {
            for (Path p : files) {
                java.util.regex.Matcher m = NAME.matcher(p.getFileName().toString());
                if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                    try {
                        Files.delete(p);
                        removed++;
                    } catch (NoSuchFileException gone) {
                        // another transport took it
                    } catch (IOException e) {
                        // not ours to delete
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return removed;
        }
        return removed;
    }
}
