package dat.shell.internal.perf;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The raw cross-process shared-memory spin ping-pong, the floor of any transport between two
 * processes of one host (BENCHMARKS.md): {@code dat perf --client} and its server map one small file
 * in {@code /dev/shm}, each spins on its own cache line with acquire loads and release stores of a
 * long, and the client times 8-byte round trips (half of each reported). The client creates the
 * file (0600), writes a magic number and a random nonce into it and names it, with the nonce, to
 * the server over a NIO baseline connection of mode {@link #MODE}; the server maps the file (a
 * regular file directly in {@code /dev/shm}, no link followed, of the stated size, with the magic
 * and the nonce), says so, and echoes until the client's stop or {@link #IDLE_NANOS} without a
 * ping. The client removes the file's name once the server mapped it, and on any failure. Neither
 * side spins forever: past a bounded spin each waits with {@link Thread#yield} (two spinners that
 * share one core would otherwise cost a scheduler slice a round trip), and past a deadline gives up.
 */
final class ShmSpin {

    /** The NIO baseline connection's mode. */
    static final byte MODE = 'H';
    /** The size of each message: one long. */
    static final long MESSAGE_BYTES = 8;
    /** The name a figure gives this baseline. */
    static final String BASELINE_NAME = "raw /dev/shm spin ping-pong, 2 JVMs";
    static final Path DIRECTORY = Path.of("/dev/shm");
    static final String PREFIX = "dat-perf-spin-";
    static final long FILE_BYTES = 4096;
    private static final Pattern NAME = Pattern.compile(Pattern.quote(PREFIX) + "[0-9]{1,19}-[0-9a-f]{16}");
    private static final long MAGIC = 0x4441_5453_5049_4e31L; // "DATSPIN1"
    private static final long NONCE_AT = 8;
    /** The client's line and the server's, two 64-byte lines apart (the adjacent-line prefetcher pairs lines). */
    private static final long PING_AT = 128;
    private static final long PONG_AT = 256;
    private static final long STOP = -1;
    /** The server's answers: the file is mapped; the echo ended and the file is unmapped. */
    private static final long MAPPED = 1;
    private static final long UNMAPPED = 2;
    /** Spins on {@link Thread#onSpinWait} before each further try yields. */
    private static final int SPINS_BEFORE_YIELD = 1 << 16;
    /** How long a round trip may take, and the server may go without a ping, before the pair gives up. */
    static final long IDLE_NANOS = 5_000_000_000L;
    /** How long the whole measurement may take. */
    private static final long RUN_NANOS = 60_000_000_000L;
    private static final int ANSWER_MILLIS = 10_000;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private ShmSpin() {
    }

    /**
     * Measures round trips against the server's NIO baseline port.
     *
     * @param nioServer the server's NIO baseline address, on this host
     * @param iterations the round trips measured, after as many (and at least 10,000) unmeasured
     * @return the half round trips, in microseconds
     * @throws IOException when the file cannot be made, the server does not take part, or a round
     *     trip does not come back in time: the message says which
     */
    static Stats halfRoundTrips(InetSocketAddress nioServer, int iterations) throws IOException {
        byte[] nonce = new byte[8];
        new SecureRandom().nextBytes(nonce);
        String name = PREFIX + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(nonce);
        Path file = DIRECTORY.resolve(name);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            throw new IOException("no POSIX file permissions here: " + e.getMessage(), e);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment shared;
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                channel.write(ByteBuffer.allocate(1), FILE_BYTES - 1);
                shared = channel.map(FileChannel.MapMode.READ_WRITE, 0, FILE_BYTES, arena);
            }
            shared.set(ValueLayout.JAVA_LONG, 0, MAGIC);
            shared.set(ValueLayout.JAVA_LONG, NONCE_AT, ByteBuffer.wrap(nonce).getLong());
            try (SocketChannel server = SocketChannel.open(nioServer)) {
                server.setOption(StandardSocketOptions.TCP_NODELAY, true);
                byte[] encoded = name.getBytes(StandardCharsets.US_ASCII);
                ByteBuffer request = ByteBuffer.allocate(PerfServer.NIO_HEAD_BYTES + encoded.length + nonce.length).put(MODE)
                        .putInt(encoded.length).putInt(0).put(encoded).put(nonce).flip();
                while (request.hasRemaining()) {
                    server.write(request);
                }
                if (answer(server) != MAPPED) {
                    throw new IOException("the server did not map the file");
                }
                Files.delete(file); // both sides hold their mappings; the name is not needed any more
                Stats halves;
                try {
                    halves = measure(shared, iterations);
                } finally {
                    LONG.setRelease(shared, PING_AT, STOP);
                }
                answer(server); // the server unmapped the file
                return halves;
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static Stats measure(MemorySegment shared, int iterations) throws IOException {
        int warmup = Math.max(10_000, iterations);
        long[] samples = new long[iterations];
        long end = System.nanoTime() + RUN_NANOS;
        long sequence = 0;
        for (int i = 0; i < warmup + iterations; i++) {
            long half = roundTrip(shared, ++sequence);
            if (half < 0) {
                throw new IOException("no echo from the server within " + IDLE_NANOS / 1_000_000_000 + " s");
            }
            if (i >= warmup) {
                samples[i - warmup] = half;
            }
            if ((i & 0xFFF) == 0 && System.nanoTime() - end > 0) {
                throw new IOException("the ping-pong took longer than " + RUN_NANOS / 1_000_000_000 + " s");
            }
        }
        return Stats.of(samples, iterations, 1e-3);
    }

    /**
     * One round trip, a call of its own (compiled after a few thousand, as the DAT round trips are).
     *
     * @return half of it in nanoseconds, or -1 when the echo did not come within {@link #IDLE_NANOS}
     */
    private static long roundTrip(MemorySegment shared, long sequence) {
        long start = System.nanoTime();
        LONG.setRelease(shared, PING_AT, sequence);
        int spins = 0;
        long deadline = 0;
        while ((long) LONG.getAcquire(shared, PONG_AT) != sequence) {
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
                continue;
            }
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + IDLE_NANOS;
            } else if (now - deadline > 0) {
                return -1;
            }
            Thread.yield();
        }
        return (System.nanoTime() - start) / 2;
    }

    /**
     * The server's side, on a NIO baseline connection that sent mode {@link #MODE}: reads the file's
     * name and nonce, maps the file, echoes, unmaps. Anything amiss closes the connection unanswered.
     *
     * @param channel the connection, its head read
     * @param nameLength the head's size field: the length of the file's name
     */
    static void echo(SocketChannel channel, int nameLength) throws IOException {
        if (nameLength <= 0 || nameLength > 64) {
            return;
        }
        ByteBuffer request = ByteBuffer.allocate(nameLength + 8);
        if (!PerfClient.readFully(channel, request)) {
            return;
        }
        String name = new String(request.array(), 0, nameLength, StandardCharsets.US_ASCII);
        long nonce = request.getLong(nameLength);
        if (!NAME.matcher(name).matches()) {
            return; // not a file of a dat perf client's
        }
        Path file = DIRECTORY.resolve(name);
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isRegularFile() || attributes.size() != FILE_BYTES) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment shared;
            try (FileChannel mapped = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                if (mapped.size() != FILE_BYTES) {
                    return;
                }
                shared = mapped.map(FileChannel.MapMode.READ_WRITE, 0, FILE_BYTES, arena);
            }
            if (shared.get(ValueLayout.JAVA_LONG, 0) != MAGIC || shared.get(ValueLayout.JAVA_LONG, NONCE_AT) != nonce) {
                return;
            }
            tell(channel, MAPPED);
            serve(shared);
        }
        tell(channel, UNMAPPED);
    }

    /** Echoes each ping until the stop, or until no ping came for {@link #IDLE_NANOS}. */
    private static void serve(MemorySegment shared) {
        long last = 0;
        long seenAtCheck = 0;
        long quietSince = System.nanoTime();
        int idle = 0;
        while (true) {
            long ping = (long) LONG.getAcquire(shared, PING_AT);
            if (ping != last) {
                if (ping == STOP) {
                    return;
                }
                LONG.setRelease(shared, PONG_AT, ping);
                last = ping;
                idle = 0;
                continue;
            }
            if (++idle < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
                continue;
            }
            long now = System.nanoTime();
            if (last != seenAtCheck) {
                seenAtCheck = last;
                quietSince = now;
            } else if (now - quietSince > IDLE_NANOS) {
                return; // the client went away
            }
            Thread.yield();
        }
    }

    private static long answer(SocketChannel channel) throws IOException {
        channel.socket().setSoTimeout(ANSWER_MILLIS);
        try {
            return new DataInputStream(channel.socket().getInputStream()).readLong();
        } catch (SocketTimeoutException e) {
            throw new IOException("no answer from the server within " + ANSWER_MILLIS / 1000 + " s", e);
        } catch (EOFException | java.net.SocketException e) {
            // closed, or reset: closed with the request unread
            throw new IOException("the server closed the connection (a dat perf server of another version, or on another host?)", e);
        }
    }

    private static void tell(SocketChannel channel, long value) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(8).putLong(0, value);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }
}
