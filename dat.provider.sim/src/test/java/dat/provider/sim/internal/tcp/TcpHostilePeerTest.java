package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.*;

import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EvdFlags;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.api.RemoteMemoryRegion;
import dat.api.RmrTriplet;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A live TCP IA under attack: raw sockets send malformed frames (generated and mutated valid
 * ones), as first frames and on established connections, while a well-behaved Endpoint pair keeps
 * exchanging data. Every hostile connection must be closed by the IA and counted as a violation
 * (or, for an access the checks refuse, answered with a refusal), the good pair must keep working,
 * and the threads, heap, open descriptors and direct memory must not grow.
 */
@Timeout(180)
class TcpHostilePeerTest {

    private static final String TCP = "tcp=127.0.0.1:0";
    private static final int HOSTILE = Integer.getInteger("dat.sim.fuzz.frames", 100_000);
    private static final TcpFrame.Limits LIMITS = TcpFrame.Limits.WIRE;

    private final TcpPair pair = new TcpPair(TCP, "tcpG", "tcpT", 1 << 16);
    /** The IA under attack (passive side of the good pair). */
    private final Fabric.Side target = pair.b;
    private final Fabric.Side good = pair.a;

    @AfterEach
    void close() {
        // checks too that a peer's frame, however hostile, ended its connection through the wire's
        // checks: none through the I/O agent's catch-all for a defect (which only logs)
        pair.close();
    }

    private TcpTransport transport() {
        return ((TcpTransport) ((SimIa) target.ia).adapter().transport());
    }

    private void connectGoodPair() {
        pair.connect(1, target.ep);
    }

    /** One round of the good pair: a send into a receive and an RDMA write, bytes verified. */
    private void goodRound(int round) {
        good.mem.asSlice(0, 256).fill((byte) round);
        ok(target.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(target.lmr, 1024, 256)}, round, 0));
        ok(good.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(good.lmr, 0, 256)}, round, 0));
        ok(good.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(good.lmr, 0, 256)}, round,
                RmrTriplet.of(target.lmr, 4096, 256), 0));
        DatEvent r = target.expect(target.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
        assertThat(r.status()).as("good round %d: the receive", round).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(good.expect(good.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).as("good round %d: the send", round)
                .isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(good.expect(good.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).as("good round %d: the write", round)
                .isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(target.mem.asSlice(1024, 256).mismatch(good.mem.asSlice(0, 256))).isEqualTo(-1);
        assertThat(target.mem.asSlice(4096, 256).mismatch(good.mem.asSlice(0, 256))).isEqualTo(-1);
    }

    /**
     * A hostile first frame of one of several kinds, each malformed by construction (the comment
     * of each kind says why), so that no decoder decides which frames the test sends: a decoder
     * that took one of them for a valid CONNECT_REQUEST fails the test instead of thinning it.
     */
    static byte[] hostileFrame(SplittableRandom rnd) {
        switch (rnd.nextInt(8)) {
            case 0 -> { // random bytes, whose first four are not those of a CONNECT_REQUEST
                byte[] f = new byte[TcpFrame.HEADER_BYTES + rnd.nextInt(200)];
                rnd.nextBytes(f);
                if (f[0] == (byte) 0xDA && f[1] == 0x7A && f[2] == TcpFrame.VERSION && f[3] == TcpFrame.CONNECT_REQUEST) {
                    f[3] = 0; // no opcode
                }
                return f;
            }
            case 1 -> { // a valid request, 8 bytes of private data, with 1 to 4 of its fatal header bits flipped
                byte[] f = header(TcpFrame.CONNECT_REQUEST, 8, 0, 7000, 1, 1, 8);
                int[] bits = java.util.stream.IntStream.generate(() -> FATAL_REQUEST_BITS[rnd.nextInt(FATAL_REQUEST_BITS.length)])
                        .distinct().limit(1 + rnd.nextInt(4)).toArray();
                for (int bit : bits) {
                    f[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
                }
                return f;
            }
            case 2 -> { // lengths over the maximum; a send before any connection
                return rnd.nextBoolean() ? header(TcpFrame.CONNECT_REQUEST, LIMITS.maxPrivateData() + 1 + rnd.nextInt(1 << 20), 0, 0, 0, 1, 0)
                        : header(TcpFrame.SEND, 0xFFFF_FFFFL - rnd.nextInt(1000), 0, 0, 0, 0, 0);
            }
            case 3 -> { // a truncated header
                byte[] f = header(TcpFrame.CONNECT_REQUEST, 0, 0, 0, 0, 1, 0);
                return java.util.Arrays.copyOf(f, 1 + rnd.nextInt(TcpFrame.HEADER_BYTES - 1));
            }
            case 4 -> { // a request whose private data never comes in full
                int len = 8 + rnd.nextInt(LIMITS.maxPrivateData() - 8);
                return java.util.Arrays.copyOf(header(TcpFrame.CONNECT_REQUEST, len, 0, 0, 0, 1, 0), TcpFrame.HEADER_BYTES + rnd.nextInt(len));
            }
            case 5 -> { // an unknown opcode, a bad magic or version
                byte[] f = header(TcpFrame.CONNECT_REQUEST, 0, 0, 0, 0, 1, 0);
                switch (rnd.nextInt(3)) {
                    case 0 -> f[3] = (byte) (TcpFrame.MAX_OPCODE + 1 + rnd.nextInt(255 - TcpFrame.MAX_OPCODE));
                    case 1 -> f[0] = (byte) rnd.nextInt(0xDA);
                    default -> f[2] = (byte) (TcpFrame.VERSION + 1 + rnd.nextInt(200));
                }
                return f;
            }
            case 6 -> { // a DTO before any connection: a forged RDMA write
                int len = rnd.nextInt(64);
                return header(TcpFrame.RDMA_WRITE, len, rnd.nextInt(), 0, rnd.nextLong(), rnd.nextLong(), len);
            }
            default -> { // out-of-range values: an IA port over 16 bits, a reject reason (a REJECT is no first frame either)
                return rnd.nextBoolean() ? header(TcpFrame.CONNECT_REQUEST, 0, 0, 70_000 + rnd.nextInt(1000), 0, 1, 0)
                        : header(TcpFrame.REJECT, 0, 0, 2 + rnd.nextInt(100), 0, 0, 0);
            }
        }
    }

    /**
     * The header bits (0: the first byte's most significant) of the request of {@link #hostileFrame}'s
     * case 1 each of which, flipped alone or with others of them, leaves no valid CONNECT_REQUEST:
     * the magic, the version and the opcode (any change is fatal); the context's WITH_ATTRIBUTES
     * bit (8 bytes cannot hold the attributes); the length's bits but the one set (8: it grows
     * past the 8 bytes that come, or past the maximum); the upper half of the IA port (over 16
     * bits). Not the QoS, nor the qualifiers: their flips are valid requests.
     */
    private static final int[] FATAL_REQUEST_BITS = fatalRequestBits();

    private static int[] fatalRequestBits() {
        List<Integer> bits = new ArrayList<>();
        for (int bit = 0; bit < 4 * 8; bit++) {
            bits.add(bit); // magic, version, opcode
        }
        for (int bit = 4 * 8; bit < 8 * 8; bit++) {
            if (bit != 8 * 8 - 4) { // the length's bit of 8
                bits.add(bit);
            }
        }
        bits.add(8 * 8); // the context's most significant bit: WITH_ATTRIBUTES
        for (int bit = 12 * 8; bit < 14 * 8; bit++) {
            bits.add(bit); // the upper half of aux, the IA port
        }
        return bits.stream().mapToInt(Integer::intValue).toArray();
    }

    private static byte[] header(int op, long len, int ctx, int aux, long seq, long addr, int extra) {
        ByteBuffer b = ByteBuffer.allocate(TcpFrame.HEADER_BYTES + extra);
        TcpFrame.encode(b, op, len, ctx, aux, seq, addr);
        return b.array();
    }

    /**
     * Sends one hostile frame on a fresh connection from a random loopback source address (so 100k
     * connections do not exhaust one address's ports), and waits for the IA to close it.
     *
     * @return whether the IA closed the connection (EOF or reset) within the time
     */
    private static boolean attack(InetSocketAddress ia, SplittableRandom rnd) throws IOException {
        byte[] frame = hostileFrame(rnd);
        try (Socket s = new Socket()) {
            InetAddress src = InetAddress.getByAddress(new byte[] {127, (byte) (1 + rnd.nextInt(250)),
                    (byte) rnd.nextInt(256), (byte) (1 + rnd.nextInt(250))});
            s.bind(new InetSocketAddress(src, 0));
            s.connect(ia, 5_000);
            s.setSoTimeout(10_000);
            try {
                s.getOutputStream().write(frame);
                s.shutdownOutput(); // a truncated frame ends here
            } catch (IOException e) {
                return true; // already reset by the IA
            }
            InputStream in = s.getInputStream();
            byte[] sink = new byte[256];
            try {
                while (in.read(sink) >= 0) {
                    // an answer to a hostile frame is not expected; drain until the IA closes
                }
                return true;
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException e) {
                return true; // reset
            }
        }
    }

    /**
     * A first frame whose header alone is malformed is rejected on the header: the IA closes the
     * connection without waiting for a payload or for the end of the stream. The fuzz test ends
     * each of its connections itself, which cannot show that. Each header here is sent alone, the
     * peer's side left open; the IA's timeout (10 s: a request must come whole within it) is twice
     * the wait, so only a rejection on the header closes the connection in time.
     */
    @Test
    void aMalformedFirstHeader_isRejectedAtOnce_notAfterItsPayloadOrTheTimeout() throws Exception {
        byte[] badMagic = header(TcpFrame.CONNECT_REQUEST, 0, 0, 1, 0, 2, 0);
        badMagic[0] ^= 0x40;
        byte[] unknownOpcode = header(TcpFrame.CONNECT_REQUEST, 0, 0, 1, 0, 2, 0);
        unknownOpcode[3] = (byte) (TcpFrame.MAX_OPCODE + 1);
        byte[][] headers = {
            header(TcpFrame.CONNECT_REQUEST, 0xFFFF_FFFFL, 0, 1, 0, 2, 0), // 4 GiB of private data announced
            header(TcpFrame.CONNECT_REQUEST, SimLimits.MAX_PRIVATE_DATA + TcpFrame.ATTRIBUTES_BYTES + 1, TcpFrame.WITH_ATTRIBUTES, 1, 0, 2, 0),
            header(TcpFrame.CONNECT_REQUEST, 8, TcpFrame.WITH_ATTRIBUTES, 1, 0, 2, 0), // no room for the attributes
            header(TcpFrame.SEND, 1 << 20, 0, 0, 0, 0, 0), // data before any connection
            header(TcpFrame.RDMA_WRITE, 1 << 20, 1234, 0, 0, 0, 0),
            badMagic,
            unknownOpcode,
        };
        long before = transport().violations.get();
        for (byte[] h : headers) {
            try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), target.address().getPort())) {
                s.setSoTimeout(5_000);
                s.getOutputStream().write(h, 0, TcpFrame.HEADER_BYTES); // and nothing more; not even an end
                long began = System.nanoTime();
                try {
                    assertThat(s.getInputStream().read()).as("the IA's answer to a malformed header: none, the end").isEqualTo(-1);
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("the IA waited " + (System.nanoTime() - began) / 1_000_000
                            + " ms without rejecting header " + java.util.HexFormat.of().formatHex(h, 0, 4), e);
                } catch (java.net.SocketException reset) {
                    // closed with a reset: rejected too
                }
            }
        }
        for (long deadline = System.nanoTime() + 5_000_000_000L;
                transport().violations.get() - before < headers.length && System.nanoTime() < deadline;) {
            Thread.sleep(5);
        }
        assertThat(transport().violations.get() - before).as("violations counted").isEqualTo(headers.length);
    }

    @Test
    void aHundredThousandMalformedFramesAreEachRejected_whileAGoodPairKeepsWorking() throws Exception {
        connectGoodPair();
        goodRound(0);
        TcpTransport t = transport();
        Footprint footprint = Footprint.measure();
        long before = t.violations.get();
        int clients = 4;
        AtomicLong closedByIa = new AtomicLong();
        AtomicLong stuck = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Future<?>> jobs = new ArrayList<>();
        try {
            for (int c = 0; c < clients; c++) {
                int seed = c;
                jobs.add(pool.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(1000 + seed);
                    for (int i = seed; i < HOSTILE; i += clients) {
                        if (attack(t.address(), rnd)) {
                            closedByIa.incrementAndGet();
                        } else {
                            stuck.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            int round = 1;
            while (!jobs.stream().allMatch(Future::isDone)) {
                goodRound(round++);
            }
            for (Future<?> j : jobs) {
                j.get();
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(stuck.get()).as("connections the IA left open").isZero();
        assertThat(closedByIa.get()).as("connections the IA closed").isEqualTo(HOSTILE);
        // each one was rejected as a violation (the IA counts them as it closes them)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (t.violations.get() - before < HOSTILE && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(t.violations.get() - before).as("hostile first frames counted as violations").isEqualTo(HOSTILE);
        // the good pair still works, the IA holds no hostile connection, no thread was left behind
        goodRound(1_000_000);
        assertThat(target.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        while (t.connections().size() > 1 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(t.connections()).hasSize(1);
        footprint.assertFlat(t, HOSTILE + " hostile frames");
    }

    /**
     * What a leak per connection or per frame would grow: the used heap and direct buffer memory
     * after collections have settled, the platform threads, the open file descriptors (-1 where
     * there is no /proc/self/fd to count them).
     */
    private record Footprint(long heap, long direct, int threads, long fds) {

        static Footprint measure() throws InterruptedException {
            long heap = Long.MAX_VALUE;
            long direct = Long.MAX_VALUE;
            for (int i = 0; i < 5; i++) {
                System.gc(); // and the cleaners free the direct buffers of connections collected
                Thread.sleep(50);
                heap = Math.min(heap, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
                direct = Math.min(direct, directMemory());
            }
            return new Footprint(heap, direct, ManagementFactory.getThreadMXBean().getThreadCount(), openFds());
        }

        private static long directMemory() {
            return ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
                    .filter(p -> p.getName().equals("direct")).mapToLong(java.lang.management.BufferPoolMXBean::getMemoryUsed)
                    .sum();
        }

        private static long openFds() {
            java.nio.file.Path fds = java.nio.file.Path.of("/proc/self/fd");
            if (!java.nio.file.Files.isDirectory(fds)) {
                return -1;
            }
            try (java.util.stream.Stream<java.nio.file.Path> open = java.nio.file.Files.list(fds)) {
                return open.count();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        /**
         * Asserts that this footprint, measured before {@code what} with the good pair connected,
         * has not grown since; every hostile connection of {@code t} has ended.
         */
        void assertFlat(TcpTransport t, String what) throws InterruptedException {
            Footprint now = measure();
            // the transport's one I/O agent serves every connection: no thread per connection
            assertThat(t.threads()).as("transport threads after %s", what).isEqualTo(1);
            assertThat(now.threads).as("platform threads after %s", what).isLessThanOrEqualTo(threads);
            // thousands of connections leave nothing behind: a leak of even one small object per
            // frame would be several MiB
            assertThat(now.heap - heap).as("heap growth after %s, bytes", what).isLessThan(2L << 20);
            // each connection has a socket, closed when it ends: a leak of one per connection would
            // be thousands; the slack is
            // for descriptors the JVM opens lazily (class files, /proc)
            if (fds >= 0) {
                assertThat(now.fds - fds).as("open file descriptors added by %s", what).isLessThanOrEqualTo(16);
            }
            // a connection's direct buffers (an 8 KiB read-ahead, a 16 KiB scratch buffer once it
            // skips a payload, headers) go with it; the NIO's per-thread temporary buffers hold a few
            // KiB; one leaked read-ahead per connection would be tens of MiB
            assertThat(now.direct - direct).as("direct buffer memory added by %s, bytes", what).isLessThan(1L << 20);
        }
    }

    /**
     * Hostile frames on established connections (the test accepts each): a forged or replayed RMR
     * context, an access out of bounds, a response to nothing, a CM frame, a truncated payload,
     * random mutations. Each breaks that connection alone (BROKEN on its Endpoint), touches no
     * memory outside the target region, and the good pair goes on.
     */
    @Test
    void hostileFramesOnEstablishedConnectionsBreakThatConnectionAlone() throws Exception {
        connectGoodPair();
        target.ia.createPublicServicePoint(2, target.crEvd, PspFlag.CONSUMER);
        // a region the attacker may write 64 bytes of, inside memory it must not touch beyond
        java.lang.foreign.MemorySegment guarded = pair.fb.memory(256);
        dat.api.LocalMemoryRegion window = target.ia.registerMemory(guarded.asSlice(64, 64), target.pz, dat.api.MemPrivileges.ALL);
        int oldContext = target.lmr.rmrContext();
        SplittableRandom rnd = new SplittableRandom(5);
        for (int i = 0; i < 200; i++) {
            Endpoint ep = target.ia.createEndpoint(target.pz, target.recvEvd, target.reqEvd, target.connEvd, null);
            try (Socket s = rawPeer(ep)) {
                byte[] frame = switch (i % 7) {
                    case 0 -> header(TcpFrame.RDMA_WRITE, 8, rnd.nextInt(), 0, 0, window.registeredAddress(), 8); // forged
                    case 1 -> header(TcpFrame.RDMA_WRITE, 8, window.rmrContext(), 0, 0, window.registeredAddress() + 60, 8); // bounds
                    case 2 -> header(TcpFrame.RDMA_READ_REQUEST, 0, window.rmrContext(), 65, 0, window.registeredAddress(), 0);
                    case 3 -> header(TcpFrame.ACK, 0, 0, 0, 7, 0, 0); // a response to nothing
                    case 4 -> header(TcpFrame.CONNECT_REQUEST, 0, 0, 1, 0, 2, 0); // a CM frame mid-connection
                    case 5 -> java.util.Arrays.copyOf(header(TcpFrame.RDMA_WRITE, 64, window.rmrContext(), 0, 0,
                            window.registeredAddress(), 64), TcpFrame.HEADER_BYTES + 10); // truncated payload
                    default -> {
                        byte[] f = header(TcpFrame.RDMA_WRITE, 8, oldContext ^ (1 << rnd.nextInt(32)), 0, 0, 0, 8);
                        f[rnd.nextInt(TcpFrame.HEADER_BYTES)] ^= (byte) (1 << rnd.nextInt(8));
                        yield f;
                    }
                };
                java.util.Arrays.fill(frame, TcpFrame.HEADER_BYTES, frame.length, (byte) 0x5A);
                long violations = transport().violations.get();
                s.getOutputStream().write(frame);
                if (i % 7 >= 5) {
                    // the truncation: the stream ends inside the payload; and a mutated header may
                    // be a valid one announcing more payload, which only the end tells from a slow peer
                    s.shutdownOutput();
                }
                // the peer stays connected otherwise: the IA breaks the connection on the frame
                // itself (an end of stream alone would break it too), long before its liveness
                // timeout (10 s) could, within the 5 s wait
                DatEvent e = target.next(target.connEvd);
                assertThat(e.endpoint()).isSameAs(ep);
                assertThat(EventNumber.name(e.eventNumber())).isEqualTo(EventNumber.name(EventNumber.CONNECTION_EVENT_BROKEN));
                assertThat(ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
                // what the peer got back: a refusal of an access (REMOTE_ACCESS), never its success;
                // else the frame was counted a protocol violation
                int refused = 0;
                for (TcpFrame answer; (answer = nextFrameOrEnd(s)) != null;) {
                    assertThat(answer.aux).as("frame %d: the answer's status", i).isNotEqualTo(TcpFrame.STATUS_OK);
                    refused++;
                }
                long counted = transport().violations.get() - violations;
                if (i % 7 <= 2) {
                    assertThat(refused).as("frame %d: refusals", i).isEqualTo(1);
                } else if (i % 7 <= 5) {
                    assertThat(counted).as("frame %d: protocol violations counted", i).isEqualTo(1);
                } else {
                    // a mutation may be refused or counted; or the IA, closing with bytes of ours
                    // unread, resets the connection before the refusal is read
                    assertThat(refused + counted).as("frame %d: refused or counted", i).isLessThanOrEqualTo(1);
                }
            }
            ep.close();
            if (i % 20 == 0) {
                goodRound(i + 1);
            }
        }
        // nothing outside the 64-byte window was ever written
        for (int k = 0; k < 64; k++) {
            assertThat(guarded.get(ValueLayout.JAVA_BYTE, k)).isZero();
            assertThat(guarded.get(ValueLayout.JAVA_BYTE, 128 + k)).isZero();
        }
        goodRound(10_000);
        assertThat(target.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
    }

    /**
     * A frame that the end of the stream cuts short on an established connection is a protocol
     * violation whatever the target does with it: counted, as when its payload lands, also when
     * its header is cut, or when its payload is skipped (a write the checks refuse, a send that
     * finds no receive). Those broke the connection uncounted, and the refusal was never sent.
     */
    @Test
    void aFrameCutShortOnAnEstablishedConnection_isAViolation_alsoWhenItsPayloadIsSkipped() throws Exception {
        target.ia.createPublicServicePoint(2, target.crEvd, PspFlag.CONSUMER);
        long address = target.lmr.registeredAddress();
        String[] what = {"a write's payload, landing", "a header", "a refused write's payload, skipped",
            "the payload of a send no receive awaits, skipped"};
        byte[][] frames = {
            header(TcpFrame.RDMA_WRITE, 64, target.lmr.rmrContext(), 0, 1, address, 64),
            header(TcpFrame.NOP, 0, 0, 0, 0, 0, 0),
            header(TcpFrame.RDMA_WRITE, 64, target.lmr.rmrContext() ^ 1, 0, 1, address, 64), // no such context
            header(TcpFrame.SEND, 64, 0, 0, 1, 0, 64),
        };
        for (int i = 0; i < frames.length; i++) {
            Endpoint ep = target.ia.createEndpoint(target.pz, target.recvEvd, target.reqEvd, target.connEvd, null);
            try (Socket s = rawPeer(ep)) {
                long before = transport().violations.get();
                s.getOutputStream().write(frames[i], 0, i == 1 ? 20 : TcpFrame.HEADER_BYTES + 10);
                s.shutdownOutput();
                assertThat(nextFrameOrEnd(s)).as("the answer to %s cut short", what[i]).isNull();
                DatEvent e = target.next(target.connEvd);
                assertThat(e.endpoint()).isSameAs(ep);
                assertThat(EventNumber.name(e.eventNumber())).isEqualTo(EventNumber.name(EventNumber.CONNECTION_EVENT_BROKEN));
                assertThat(transport().violations.get() - before).as("violations counted for %s cut short", what[i]).isEqualTo(1);
            }
            ep.close();
        }
    }

    /**
     * The passive side's accept completes only with the active side's READY_TO_USE: an active
     * peer that closes after the ACCEPT (it timed out meanwhile) or answers with anything else
     * leaves the Endpoint with ACCEPT_COMPLETION_ERROR, never ESTABLISHED (dat_cr_accept(3DAT)).
     */
    @Test
    void anAcceptWithoutReadyToUseFails() throws Exception {
        connectGoodPair();
        target.ia.createPublicServicePoint(2, target.crEvd, PspFlag.CONSUMER);
        for (int i = 0; i < 4; i++) {
            Endpoint ep = target.ia.createEndpoint(target.pz, target.recvEvd, target.reqEvd, target.connEvd, null);
            try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), target.address().getPort())) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(header(TcpFrame.CONNECT_REQUEST, 0, 0, 1, 0, 2, 0));
                target.expect(target.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(ep, null);
                assertThat(s.getInputStream().readNBytes(TcpFrame.HEADER_BYTES)[3]).isEqualTo((byte) TcpFrame.ACCEPT);
                assertThat(ep.getStatus().state()).isEqualTo(EpState.COMPLETION_PENDING);
                long violations = transport().violations.get();
                switch (i) {
                    case 0 -> s.shutdownOutput(); // the requester gave up
                    case 1 -> s.getOutputStream().write(header(TcpFrame.NOP, 0, 0, 0, 0, 0, 0)); // not the answer
                    case 2 -> s.getOutputStream().write(header(TcpFrame.SEND, 0, 0, 0, 0, 0, 0)); // data before it
                    default -> { // the answer cut short
                        s.getOutputStream().write(header(TcpFrame.READY_TO_USE, 0, 0, 0, 0, 0, 0), 0, 10);
                        s.shutdownOutput();
                    }
                }
                DatEvent e = target.next(target.connEvd);
                assertThat(e.endpoint()).isSameAs(ep);
                assertThat(EventNumber.name(e.eventNumber())).isEqualTo(EventNumber.name(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR));
                assertThat(ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
                // at most a DISCONNECT, then the IA closes the connection
                byte[] rest = s.getInputStream().readAllBytes();
                assertThat(rest.length).as("bytes after the ACCEPT").isIn(0, TcpFrame.HEADER_BYTES);
                if (rest.length > 0) {
                    assertThat(rest[3]).isEqualTo((byte) TcpFrame.DISCONNECT);
                }
                // giving up is the requester's right; anything else is a violation, counted
                assertThat(transport().violations.get() - violations).as("violations counted, case %d", i).isEqualTo(i == 0 ? 0 : 1);
            }
            ep.close();
        }
        goodRound(7);
    }

    /** The target's PSP on qualifier 2, which {@link #rawPeer} connects to, and an Endpoint to accept into. */
    private Endpoint endpointForRawPeer() {
        target.ia.createPublicServicePoint(2, target.crEvd, PspFlag.CONSUMER);
        return target.ia.createEndpoint(target.pz, target.recvEvd, target.reqEvd, target.connEvd, null);
    }

    /**
     * A raw peer connected to {@code ep} of the target: CONNECT_REQUEST on qualifier 2, the
     * target's accept, READY_TO_USE; the target's Endpoint is ESTABLISHED when this returns.
     */
    private Socket rawPeer(Endpoint ep) throws IOException {
        return rawPeer(ep, 0);
    }

    /** {@link #rawPeer(Endpoint)} with a socket receive buffer of {@code receiveBuffer} bytes (0: the default). */
    private Socket rawPeer(Endpoint ep, int receiveBuffer) throws IOException {
        return rawPeer(ep, receiveBuffer, target.crEvd, target.connEvd, target.event);
    }

    /**
     * {@link #rawPeer(Endpoint, int)} for a PSP on qualifier 2 that posts to {@code crEvd} and an
     * Endpoint whose connection events go to {@code connEvd}, waiting into {@code e}.
     */
    private Socket rawPeer(Endpoint ep, int receiveBuffer, EventDispatcher crEvd, EventDispatcher connEvd, DatEvent e)
            throws IOException {
        Socket s = new Socket();
        if (receiveBuffer > 0) {
            s.setReceiveBufferSize(receiveBuffer); // before the connect: it sets the window offered
        }
        s.setTcpNoDelay(true); // frames written in pieces go out at once, not after the peer's delayed ACK
        s.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), target.address().getPort()));
        s.setSoTimeout(10_000);
        s.getOutputStream().write(header(TcpFrame.CONNECT_REQUEST, 0, 0, 1, 0, 2, 0));
        Fabric.Side.expect(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, e).connectionRequest().accept(ep, null);
        assertThat(s.getInputStream().readNBytes(TcpFrame.HEADER_BYTES)[3]).isEqualTo((byte) TcpFrame.ACCEPT);
        s.getOutputStream().write(header(TcpFrame.READY_TO_USE, 0, 0, 0, 0, 0, 0));
        assertThat(Fabric.Side.expect(connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, e).endpoint()).isSameAs(ep);
        return s;
    }

    /** The next event of {@code evd} by dequeue alone (a wait would read the connection itself), or {@code null}. */
    private static DatEvent poll(dat.api.EventDispatcher evd, long millis) throws InterruptedException {
        DatEvent e = new DatEvent();
        for (long deadline = System.nanoTime() + millis * 1_000_000L;;) {
            if (evd.dequeue(e) == dat.api.DatReturn.SUCCESS) {
                return e;
            }
            if (System.nanoTime() > deadline) {
                return null;
            }
            Thread.sleep(2);
        }
    }

    /**
     * A receive too small for the send that came for it completes LOCAL_LENGTH once: the flush of
     * a disconnect that comes while the reader still skips that send's payload (the peer holds it
     * back) does not complete it again, flushed.
     */
    @Test
    void aReceiveCompletedWhileItsSendIsSkipped_isNotFlushedAgain() throws Exception {
        Endpoint ep = endpointForRawPeer();
        try (Socket s = rawPeer(ep)) {
            ok(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(target.lmr, 0, 8)}, 41, 0));
            s.getOutputStream().write(header(TcpFrame.SEND, 64, 0, 0, 0, 0, 0)); // and no payload yet
            DatEvent r = poll(target.recvEvd, 5_000);
            assertThat(r).as("the receive's completion").isNotNull();
            assertThat(r.userCookie()).isEqualTo(41);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_LENGTH);
            ep.disconnect(dat.api.CloseFlag.ABRUPT);
            assertThat(poll(target.recvEvd, 200)).as("a second completion of the receive").isNull();
        }
        ep.close();
    }

    /** {@link #nextFrame}, or {@code null} at the end of the stream or a reset, skipping payloads. */
    private static TcpFrame nextFrameOrEnd(Socket s) throws IOException {
        try {
            TcpFrame f = nextFrame(s);
            if (f != null) {
                s.getInputStream().skipNBytes(f.payloadLength);
            }
            return f;
        } catch (java.net.SocketException | java.io.EOFException reset) {
            return null;
        }
    }

    /** The next frame from the target that is not a keepalive: its header, decoded. */
    private static TcpFrame nextFrame(Socket s) throws IOException {
        for (;;) {
            byte[] h = s.getInputStream().readNBytes(TcpFrame.HEADER_BYTES);
            if (h.length < TcpFrame.HEADER_BYTES) {
                return null; // the target closed
            }
            TcpFrame f = new TcpFrame();
            assertThat(f.decode(ByteBuffer.wrap(h), LIMITS)).isNull();
            if (f.opcode != TcpFrame.NOP) {
                return f;
            }
        }
    }

    /** Waits until {@code length} bytes from {@code offset} of the target's memory read {@code value}. */
    private void awaitBytes(long offset, int length, byte value) throws InterruptedException {
        for (long deadline = System.nanoTime() + 5_000_000_000L;; Thread.sleep(1)) {
            boolean all = true;
            for (int k = 0; k < length; k++) {
                all &= target.mem.get(ValueLayout.JAVA_BYTE, offset + k) == value;
            }
            if (all) {
                return;
            }
            assertThat(System.nanoTime()).as("bytes landed in time").isLessThan(deadline);
        }
    }

    /** A peer's RDMA write of 64 bytes of 0x5A into {@code context} at the target's memory, of which 8 are sent now. */
    private byte[] writeBegun(Socket s, int context) throws Exception {
        byte[] frame = header(TcpFrame.RDMA_WRITE, 64, context, 0, 1, target.lmr.registeredAddress(), 64);
        java.util.Arrays.fill(frame, TcpFrame.HEADER_BYTES, frame.length, (byte) 0x5A);
        s.getOutputStream().write(frame, 0, TcpFrame.HEADER_BYTES + 8);
        s.getOutputStream().flush();
        awaitBytes(0, 8, (byte) 0x5A); // the write is under way: its first bytes landed
        return frame;
    }

    /**
     * dat_rmr_bind(3DAT): once the bind that unbinds an RMR has completed, no RDMA operation goes
     * through the old context. A write that the peer began before the unbind and sends the rest
     * of afterwards lands no more bytes, and is refused with REMOTE_ACCESS (both sides break).
     */
    @Test
    void anRdmaWriteUnderWayWhenItsRmrIsUnbound_landsNoMoreAndIsRefused() throws Exception {
        Endpoint ep = endpointForRawPeer();
        try (Socket s = rawPeer(ep)) {
            dat.api.RemoteMemoryRegion rmr = target.pz.createRemoteMemoryRegion();
            int context = rmr.bind(LmrTriplet.of(target.lmr, 0, 64), dat.api.MemPrivileges.REMOTE_WRITE, ep, 1, 0);
            assertThat(poll(target.reqEvd, 5_000).eventNumber()).isEqualTo(EventNumber.RMR_BIND_COMPLETION_EVENT);
            byte[] frame = writeBegun(s, context);
            rmr.bind(LmrTriplet.of(target.lmr, 0, 0), 0, ep, 2, 0); // unbinds
            DatEvent unbound = poll(target.reqEvd, 5_000);
            assertThat(unbound.eventNumber()).isEqualTo(EventNumber.RMR_BIND_COMPLETION_EVENT);
            assertThat(unbound.userCookie()).isEqualTo(2);
            s.getOutputStream().write(frame, TcpFrame.HEADER_BYTES + 8, 56);
            TcpFrame answer = nextFrame(s);
            assertThat(answer).as("the target's answer").isNotNull();
            assertThat(answer.opcode).isEqualTo(TcpFrame.ACK);
            assertThat(answer.seq).isEqualTo(1);
            assertThat(answer.aux).isEqualTo(TcpFrame.STATUS_REMOTE_ACCESS);
            target.expect(target.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
            for (int k = 8; k < 64; k++) {
                assertThat(target.mem.get(ValueLayout.JAVA_BYTE, k)).as("byte %d after the unbind", k).isZero();
            }
        }
        ep.close();
    }

    /**
     * A write the peer began before this side's abrupt disconnect lands nothing after it: the
     * peer may ignore the DISCONNECT and send on, and the Endpoint may be reset and connected anew.
     */
    @Test
    void anRdmaWriteUnderWayAtAnAbruptDisconnect_landsNoMore() throws Exception {
        Endpoint ep = endpointForRawPeer();
        try (Socket s = rawPeer(ep)) {
            byte[] frame = writeBegun(s, target.lmr.rmrContext());
            ep.disconnect(dat.api.CloseFlag.ABRUPT);
            target.expect(target.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            s.getOutputStream().write(frame, TcpFrame.HEADER_BYTES + 8, 56);
            TcpFrame next = nextFrame(s);
            assertThat(next).as("after the write: the DISCONNECT, or the end").satisfiesAnyOf(
                    f -> assertThat(f).isNull(), f -> assertThat(f.opcode).isEqualTo(TcpFrame.DISCONNECT));
            s.shutdownOutput();
            s.getInputStream().readAllBytes(); // the target closes once the peer has
            for (int k = 8; k < 64; k++) {
                assertThat(target.mem.get(ValueLayout.JAVA_BYTE, k)).as("byte %d after the disconnect", k).isZero();
            }
        }
        ep.close();
    }

    /**
     * An RDMA read response the target sends from an RMR stops when the RMR is unbound: the peer,
     * which read slowly, gets no byte the target's memory holds after the unbind (the old
     * context is invalid once dat_rmr_bind returns); the response cannot be finished, so the
     * connection breaks.
     */
    @Test
    void aReadResponseUnderWayWhenItsRmrIsUnbound_sendsNoMoreOfIt() throws Exception {
        int size = 32 << 20; // more than the socket buffers hold
        java.lang.foreign.MemorySegment big = pair.fb.memory(size);
        big.fill((byte) 0x11);
        dat.api.LocalMemoryRegion bigLmr = target.ia.registerMemory(big, target.pz, dat.api.MemPrivileges.ALL);
        Endpoint ep = endpointForRawPeer();
        try (Socket s = rawPeer(ep, 4096)) { // a small window: the target's writer stalls soon
            dat.api.RemoteMemoryRegion rmr = target.pz.createRemoteMemoryRegion();
            int context = rmr.bind(LmrTriplet.of(bigLmr, 0, size), dat.api.MemPrivileges.REMOTE_READ, ep, 1, 0);
            assertThat(poll(target.reqEvd, 5_000).eventNumber()).isEqualTo(EventNumber.RMR_BIND_COMPLETION_EVENT);
            s.getOutputStream().write(header(TcpFrame.RDMA_READ_REQUEST, 0, context, size, 1, bigLmr.registeredAddress(), 0));
            Thread.sleep(300); // the response fills the socket buffers and stalls
            // unbinds: the old context is invalid once the call returns (its completion waits for
            // the writer, which waits for the peer)
            rmr.bind(LmrTriplet.of(bigLmr, 0, 0), 0, ep, 2, 0);
            big.fill((byte) 0x22); // what the peer may no longer read
            InputStream in = s.getInputStream();
            byte[] chunk = new byte[1 << 16];
            long got = 0;
            boolean leaked = false;
            for (int n; (n = readOrReset(in, chunk)) > 0;) {
                for (int k = 0; k < n; k++) {
                    leaked |= chunk[k] == 0x22;
                }
                got += n;
            }
            assertThat(leaked).as("bytes written after the unbind reached the peer").isFalse();
            assertThat(got).as("bytes of the response the peer got").isLessThan(size);
        }
        target.expect(target.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        ep.close();
    }

    /** A read that ends at a reset as at the end of the stream. */
    private static int readOrReset(InputStream in, byte[] b) throws IOException {
        try {
            return in.read(b);
        } catch (java.net.SocketException reset) {
            return -1;
        }
    }

    /**
     * An RDMA read whose local LMR is freed before its response lands completes with
     * DAT_DTO_ERR_LOCAL_PROTECTION and breaks the connection, as in one JVM (dat_ep_post_rdma_read):
     * not flushed, as if the peer had broken the protocol. The peer here is a raw passive side.
     */
    @Test
    void aReadWhoseLocalLmrIsFreedBeforeItsResponse_failsWithLocalProtection() throws Exception {
        java.lang.foreign.MemorySegment local = pair.fb.memory(64);
        dat.api.LocalMemoryRegion localLmr = target.ia.registerMemory(local, target.pz, dat.api.MemPrivileges.ALL);
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            server.setSoTimeout(10_000);
            target.ep.connect(new InetSocketAddress("127.0.0.1", server.getLocalPort()), 5, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
            try (Socket s = server.accept()) {
                s.setSoTimeout(10_000);
                TcpFrame request = nextFrame(s);
                assertThat(request.opcode).isEqualTo(TcpFrame.CONNECT_REQUEST);
                s.getInputStream().readNBytes((int) request.payloadLength);
                s.getOutputStream().write(header(TcpFrame.ACCEPT, 0, 0, 0, 0, 0, 0));
                assertThat(nextFrame(s).opcode).isEqualTo(TcpFrame.READY_TO_USE);
                target.expect(target.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                ok(target.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(localLmr, 0, 64)}, 77,
                        new RmrTriplet(12345, 4096, 64), 0));
                TcpFrame read = nextFrame(s);
                assertThat(read.opcode).isEqualTo(TcpFrame.RDMA_READ_REQUEST);
                localLmr.close(); // the consumer frees the read's memory while the response is on its way
                byte[] response = header(TcpFrame.RDMA_READ_RESPONSE, 64, 0, TcpFrame.STATUS_OK, read.seq, 0, 64);
                s.getOutputStream().write(response);
                DatEvent done = target.expect(target.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
                assertThat(done.userCookie()).isEqualTo(77);
                assertThat(done.status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_PROTECTION);
                target.expect(target.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
            }
        }
        assertThat(transport().violations.get()).as("protocol violations counted").isZero();
    }

    /**
     * dat_lmr_free of one registration waits for no write that lands through another registration
     * of the same memory: the write under way goes on and succeeds, its connection unbroken.
     */
    @Test
    void freeingAnotherLmrOverTheSameMemory_leavesAWriteUnderWayAlone() throws Exception {
        Endpoint ep = endpointForRawPeer();
        dat.api.LocalMemoryRegion twin = target.ia.registerMemory(target.mem, target.pz, dat.api.MemPrivileges.ALL);
        try (Socket s = rawPeer(ep)) {
            byte[] frame = writeBegun(s, target.lmr.rmrContext());
            twin.close(); // returns at once: the write under way lands through target.lmr, not twin
            s.getOutputStream().write(frame, TcpFrame.HEADER_BYTES + 8, 56);
            TcpFrame answer = nextFrame(s);
            assertThat(answer).as("the target's answer").isNotNull();
            assertThat(answer.opcode).isEqualTo(TcpFrame.ACK);
            assertThat(answer.aux).isEqualTo(TcpFrame.STATUS_OK);
            awaitBytes(0, 64, (byte) 0x5A);
            assertThat(ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
        ep.close();
    }

    /**
     * A read whose target memory's arena closes after the request was checked, while its
     * response waits behind another, is refused with REMOTE_ACCESS, as in one JVM: not a
     * connection broken without an answer.
     */
    @Test
    void aReadWhoseTargetArenaClosesBeforeItsResponse_isRefusedWithRemoteAccess() throws Exception {
        int size = 32 << 20; // more than the socket buffers hold
        dat.api.LocalMemoryRegion bigLmr = target.ia.registerMemory(pair.fb.memory(size), target.pz, dat.api.MemPrivileges.ALL);
        java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
        dat.api.LocalMemoryRegion doomed = target.ia.registerMemory(arena.allocate(64), target.pz, dat.api.MemPrivileges.ALL);
        Endpoint ep = endpointForRawPeer();
        try (Socket s = rawPeer(ep, 4096)) { // the first response stalls the target's writer
            s.getOutputStream().write(header(TcpFrame.RDMA_READ_REQUEST, 0, bigLmr.rmrContext(), size, 1, bigLmr.registeredAddress(), 0));
            s.getOutputStream().write(header(TcpFrame.RDMA_READ_REQUEST, 0, doomed.rmrContext(), 64, 2, doomed.registeredAddress(), 0));
            Thread.sleep(300); // both requests checked; the first response fills the socket buffers
            arena.close();
            TcpFrame first = nextFrame(s);
            assertThat(first.opcode).isEqualTo(TcpFrame.RDMA_READ_RESPONSE);
            assertThat(first.aux).isEqualTo(TcpFrame.STATUS_OK);
            s.getInputStream().skipNBytes(first.payloadLength);
            TcpFrame second = nextFrame(s);
            assertThat(second).as("the second read's answer").isNotNull();
            assertThat(second.opcode).isEqualTo(TcpFrame.RDMA_READ_RESPONSE);
            assertThat(second.seq).isEqualTo(2);
            assertThat(second.aux).isEqualTo(TcpFrame.STATUS_REMOTE_ACCESS);
        }
        ep.close();
    }

    /**
     * A receive whose send is still landing is posted and not completed: dat_ep_recv_query counts
     * it and dat_ep_get_status reports receives in progress, as in one JVM (where taking and
     * completing it are one step): taken out of the ring, it still counts.
     */
    @Test
    void aReceiveWhoseSendIsLanding_stillCountsAsPosted() throws Exception {
        Endpoint ep = endpointForRawPeer();
        try (Socket s = rawPeer(ep)) {
            ok(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(target.lmr, 0, 64)}, 3, 0));
            byte[] frame = header(TcpFrame.SEND, 64, 0, 0, 1, 0, 64);
            java.util.Arrays.fill(frame, TcpFrame.HEADER_BYTES, frame.length, (byte) 0x5A);
            byte[] second = header(TcpFrame.SEND, 64, 0, 0, 2, 0, 64);
            java.util.Arrays.fill(second, TcpFrame.HEADER_BYTES, second.length, (byte) 0x5A);
            s.getOutputStream().write(frame, 0, TcpFrame.HEADER_BYTES + 8);
            awaitBytes(0, 8, (byte) 0x5A); // the receive was taken and is being filled
            assertThat(ep.recvQuery().nbufsAllocated()).isEqualTo(1);
            assertThat(ep.getStatus().recvIdle()).isFalse();
            s.getOutputStream().write(frame, TcpFrame.HEADER_BYTES + 8, 56);
            DatEvent r = poll(target.recvEvd, 5_000);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(ep.recvQuery().nbufsAllocated()).isZero();
            assertThat(ep.getStatus().recvIdle()).isTrue();
            // and a receive flushed while it lands is counted out once
            target.mem.asSlice(0, 64).fill((byte) 0);
            ok(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(target.lmr, 0, 64)}, 4, 0));
            s.getOutputStream().write(second, 0, TcpFrame.HEADER_BYTES + 8);
            awaitBytes(0, 8, (byte) 0x5A);
            assertThat(ep.recvQuery().nbufsAllocated()).isEqualTo(1);
            ep.disconnect(dat.api.CloseFlag.ABRUPT);
            assertThat(poll(target.recvEvd, 5_000).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
            assertThat(ep.recvQuery().nbufsAllocated()).isZero();
            assertThat(ep.getStatus().recvIdle()).isTrue();
        }
        ep.close();
    }

    // ---------------------------------------------------------------------------------------------
    // the data phase: mutated frames on established connections
    // ---------------------------------------------------------------------------------------------

    /** The data-phase frames the fuzz sends at least (valid and mutated ones, probes). */
    private static final int DATA_FRAMES = Integer.getInteger("dat.sim.fuzz.dataFrames", 20_000);
    /** The data-phase fuzz's seed: a failure's message says the frames; the seed repeats them. */
    private static final long DATA_SEED = Long.getLong("dat.sim.fuzz.seed", 7);

    /**
     * Raw peers connect to a live target IA one after another, and on each connection send valid
     * data-phase frames (sends into posted receives, RDMA writes and reads through LMR and RMR
     * contexts, NOPs, ACK requests, answers to the target's own sends and reads) interleaved with
     * mutated ones, until one ends it. A frame malformed by construction ends its connection alone:
     * BROKEN on that Endpoint, which is DISCONNECTED, the frame counted as a violation or, for an
     * access the checks refuse, answered with a refusal. A random bit flip may make a valid frame:
     * then a probe that follows is served, or the connection ends the same way. No byte outside
     * the windows changes, the good pair works throughout, and the connections leave nothing behind.
     */
    @Test
    @Timeout(60)
    void aMutatedDataFrame_endsItsConnectionAlone_whileTheValidFramesAroundItAndAGoodPairAreServed() throws Exception {
        connectGoodPair();
        goodRound(0);
        DataPhase attack = new DataPhase(new SplittableRandom(DATA_SEED));
        attack.run(200); // before the footprint: what the first connections make once (classes, kept threads)
        attack.dropLastEvent();
        Footprint footprint = Footprint.measure();
        long violations = transport().violations.get();
        long counted = attack.tally.counted + attack.tally.flipsCounted;
        long began = System.nanoTime();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        int round = 1;
        try {
            Future<?> job = pool.submit(() -> {
                attack.run(DATA_FRAMES);
                return null;
            });
            while (!job.isDone()) {
                goodRound(round++);
            }
            job.get();
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        long millis = (System.nanoTime() - began) / 1_000_000;
        DataPhase.Tally tally = attack.tally;
        System.out.printf("data-phase fuzz (seed %d): %s in %d ms, %d good rounds meanwhile%n", DATA_SEED, tally, millis, round - 1);
        assertThat(transport().agent().unexpectedEnds()).as("connections that ended on an unexpected exception").isZero();
        // every malformed frame was counted, and nothing else was
        assertThat(transport().violations.get() - violations).as("violations counted")
                .isEqualTo(tally.counted + tally.flipsCounted - counted);
        assertThat(tally.kinds.keySet()).as("classes of malformed frames sent").containsAll(DataPhase.KINDS);
        goodRound(1_000_000);
        assertThat(target.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        // nothing of the good pair's memory changed but what its rounds wrote (the attacker's
        // contexts are of another PZ, and the good pair's own was refused)
        for (long k = 0; k < target.mem.byteSize(); k++) {
            if ((k < 1024 || k >= 1024 + 256) && (k < 4096 || k >= 4096 + 256)) {
                assertThat(target.mem.get(ValueLayout.JAVA_BYTE, k)).as("the good pair's byte %d", k).isZero();
            }
        }
        for (long deadline = System.nanoTime() + 5_000_000_000L; transport().connections().size() > 1 && System.nanoTime() < deadline;) {
            Thread.sleep(10);
        }
        assertThat(transport().connections()).as("connections the IA holds after the fuzz").hasSize(1);
        attack.dropLastEvent();
        footprint.assertFlat(transport(), tally.frames + " data-phase frames");
    }

    /** Where a context lets a peer reach: {@code length} bytes from {@code address}, at {@code offset} of the memory. */
    private record Window(int context, long address, int offset, int length) {}

    /** A receive posted on a raw peer's Endpoint, at {@code offset} of the local area. */
    private record Recv(long cookie, int offset, int length) {}

    /**
     * A malformed frame of a known class: sent up to {@code sent} (less than its length: the stream
     * then ends inside it); {@code answerOp} 0 when the target must count it a violation and answer
     * nothing, else the refusal ({@code answerOp} with {@code status} for request {@code seq}) it
     * must answer.
     */
    private record Hostile(String kind, byte[] bytes, int sent, int answerOp, long seq, int status) {

        static Hostile violation(String kind, byte[] bytes) {
            return new Hostile(kind, bytes, bytes.length, 0, 0, 0);
        }

        static Hostile truncated(String kind, byte[] bytes, int sent) {
            return new Hostile(kind, bytes, sent, 0, 0, 0);
        }

        static Hostile refused(String kind, byte[] bytes, int answerOp, long seq, int status) {
            return new Hostile(kind, bytes, bytes.length, answerOp, seq, status);
        }

        String describe() {
            return kind + " " + HexFormat.of().formatHex(bytes, 0, Math.min(sent, 2 * TcpFrame.HEADER_BYTES));
        }
    }

    /** A frame: a header and {@code payload}. */
    private static byte[] frame(int op, int ctx, int aux, long seq, long addr, byte[] payload) {
        byte[] f = header(op, payload.length, ctx, aux, seq, addr, payload.length);
        System.arraycopy(payload, 0, f, TcpFrame.HEADER_BYTES, payload.length);
        return f;
    }

    /**
     * The target's side of the data-phase fuzz and the attacker that drives it. The target's
     * Endpoints are in a PZ of their own, with EVDs of their own (the good pair's are another
     * thread's); its memory holds the windows the attacker may reach, between guard bytes:
     *
     * <pre>
     * [W, +W_LEN)      read and write through an LMR; write only through a second one
     * [B, +B_LEN)      an LMR of local access only, with an RMR bound over its middle
     *                  [B + BOUND, +BOUND_LEN) anew for each connection: read and write there
     *                  (around it, guard bytes that the RMR's own memory holds)
     * [RO, +RO_LEN)    remote read only; never changes
     * [R, +R_LEN)      local only: the receives, the target's own sends and reads
     * </pre>
     */
    private final class DataPhase {

        static final int W = 1024;
        static final int W_LEN = 1024;
        static final int B = 2048;
        static final int B_LEN = 1024;
        static final int BOUND = 256;
        static final int BOUND_LEN = 512;
        static final int RO = 3072;
        static final int RO_LEN = 256;
        static final int R = 4096;
        static final int R_LEN = 1024;
        static final int SIZE = 6144;
        /** The classes of malformed frames {@link #malformed} sends. */
        static final List<String> KINDS = List.of("bad magic", "bad version", "unknown opcode", "a field its opcode does not use",
                "aux out of range", "payload on an opcode that takes none", "length over the maximum", "random bytes where a header belongs",
                "a connection-management frame", "a response to nothing", "a wrong response", "truncated payload",
                "truncated header", "refused: forged context", "refused: stale context", "refused: another PZ's memory",
                "refused: out of the window", "refused: no privilege", "refused: a send longer than its receive");

        /** What the fuzz sent and saw. */
        static final class Tally {
            long frames;
            long valid;
            long malformed;
            long refused;
            long counted;
            long flips;
            long flipsServed;
            long flipsCounted;
            long flipsRefused;
            long connections;
            final java.util.Map<String, Long> kinds = new java.util.TreeMap<>();

            @Override
            public String toString() {
                return frames + " frames on " + connections + " connections: " + valid + " valid, " + malformed
                        + " malformed by construction (" + counted + " counted as violations, " + refused + " refused), " + flips
                        + " bit-flipped (" + flipsServed + " served, " + flipsCounted + " counted, " + flipsRefused
                        + " refused, the rest valid but ending their connections)";
            }
        }

        final Tally tally = new Tally();
        private final SplittableRandom rnd;
        private final ProtectionZone pz = target.ia.createProtectionZone();
        private final EventDispatcher recvEvd = evd(EvdFlags.DTO);
        private final EventDispatcher reqEvd = evd(EvdFlags.DTO | EvdFlags.RMR_BIND);
        private final EventDispatcher connEvd = evd(EvdFlags.CONNECTION);
        private final EventDispatcher crEvd = evd(EvdFlags.CR);
        /** This thread's events: the Sides' are the good pair's, on another thread. */
        private final DatEvent event = new DatEvent();
        private final MemorySegment memory = pair.fb.memory(SIZE);
        /** What {@link #memory} must hold outside W and the RMR's range: guard bytes (random), RO, and R where nothing of the peer landed. */
        private final byte[] expected = new byte[SIZE];
        private final LocalMemoryRegion whole;
        private final LocalMemoryRegion underRmr;
        private final LocalMemoryRegion writeOnly;
        private final LocalMemoryRegion readOnly;
        private final LocalMemoryRegion local;
        private final RemoteMemoryRegion rmr;
        private int boundContext;
        /** Windows valid once: the RMR's earlier binds, LMRs over W since freed. */
        private final List<Window> stale = new ArrayList<>();
        private long cookies;

        DataPhase(SplittableRandom rnd) {
            this.rnd = rnd;
            target.ia.createPublicServicePoint(2, crEvd, PspFlag.CONSUMER);
            rnd.nextBytes(expected);
            MemorySegment.copy(MemorySegment.ofArray(expected), 0, memory, 0, SIZE);
            int mp = MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE;
            whole = target.ia.registerMemory(memory.asSlice(W, W_LEN), pz, MemPrivileges.ALL);
            writeOnly = target.ia.registerMemory(memory.asSlice(W, W_LEN), pz, mp | MemPrivileges.REMOTE_WRITE);
            underRmr = target.ia.registerMemory(memory.asSlice(B, B_LEN), pz, mp);
            readOnly = target.ia.registerMemory(memory.asSlice(RO, RO_LEN), pz, MemPrivileges.READ);
            local = target.ia.registerMemory(memory.asSlice(R, R_LEN), pz, mp);
            rmr = pz.createRemoteMemoryRegion();
        }

        private static final int QLEN = 16;

        private EventDispatcher evd(int flags) {
            return target.ia.createEventDispatcher(QLEN, null, flags);
        }

        /** Lets go of the last event this side dequeued, which holds its Endpoint, before a footprint is taken. */
        void dropLastEvent() {
            event.clear();
        }

        private Window whole() {
            return new Window(whole.rmrContext(), whole.registeredAddress(), W, W_LEN);
        }

        private Window bound() {
            return new Window(boundContext, underRmr.registeredAddress() + BOUND, B + BOUND, BOUND_LEN);
        }

        private Window writeOnly() {
            return new Window(writeOnly.rmrContext(), writeOnly.registeredAddress(), W, W_LEN);
        }

        private Window readOnly() {
            return new Window(readOnly.rmrContext(), readOnly.registeredAddress(), RO, RO_LEN);
        }

        private Window writable() {
            return switch (rnd.nextInt(3)) {
                case 0 -> whole();
                case 1 -> bound();
                default -> writeOnly();
            };
        }

        private Window readable() {
            return switch (rnd.nextInt(3)) {
                case 0 -> whole();
                case 1 -> bound();
                default -> readOnly();
            };
        }

        /** The contexts that are valid now (an LMR of local access only has none: 0). */
        private java.util.Set<Integer> live() {
            return java.util.Set.of(whole.rmrContext(), writeOnly.rmrContext(), readOnly.rmrContext(), boundContext, target.lmr.rmrContext());
        }

        /** Connections until {@code frames} more frames were sent. */
        void run(long frames) throws Exception {
            for (long end = tally.frames + frames; tally.frames < end;) {
                connection();
            }
        }

        /** One raw peer: valid frames, flipped ones, until a malformed one (or a DISCONNECT) ends it. */
        private void connection() throws Exception {
            Endpoint ep = target.ia.createEndpoint(pz, recvEvd, reqEvd, connEvd, null);
            try (Socket s = rawPeer(ep, 0, crEvd, connEvd, event)) {
                Link l = new Link(ep, s);
                rebind(ep);
                while (!l.ended) {
                    int r = rnd.nextInt(100);
                    if (r < 60) {
                        valid(l);
                    } else if (r < 78) {
                        flipped(l);
                    } else if (r < 98) {
                        hostile(l, malformed(l));
                    } else {
                        disconnect(l);
                    }
                }
            }
            ep.close();
            checkMemory();
            tally.connections++;
        }

        /** Binds the RMR anew through {@code ep}; its earlier context and, now and then, a freed LMR's go stale. */
        private void rebind(Endpoint ep) {
            if (boundContext != 0) {
                stale(bound());
            }
            boundContext = rmr.bind(LmrTriplet.of(underRmr, BOUND, BOUND_LEN), MemPrivileges.REMOTE_READ
                    | MemPrivileges.REMOTE_WRITE, ep, ++cookies, 0);
            assertThat(Fabric.Side.expect(reqEvd, EventNumber.RMR_BIND_COMPLETION_EVENT, event).status())
                    .isEqualTo(DtoCompletionStatus.SUCCESS);
            if (tally.connections % 8 == 0) {
                LocalMemoryRegion freed = target.ia.registerMemory(memory.asSlice(W, W_LEN), pz, MemPrivileges.ALL);
                stale(new Window(freed.rmrContext(), freed.registeredAddress(), W, W_LEN));
                freed.close();
            }
        }

        private void stale(Window w) {
            stale.add(w);
            if (stale.size() > 64) {
                stale.remove(0);
            }
        }

        /** The raw peer of one connection. */
        private final class Link {
            final Endpoint ep;
            final Socket s;
            final java.io.OutputStream out;
            final InputStream in;
            long seq = 1;
            /** Receives posted on the Endpoint and not completed, oldest first. */
            final java.util.ArrayDeque<Recv> recvs = new java.util.ArrayDeque<>();
            /** The cookie of the target's request that a malformed or flipped frame answers, else 0. */
            long pendingRequest;
            /** Where in R its answer (a read response) may land, else -1. */
            int pendingOffset = -1;
            int pendingLength;
            /** How it completed when the connection ended: not successfully. */
            int pendingStatus;
            boolean ended;

            Link(Endpoint ep, Socket s) throws IOException {
                this.ep = ep;
                this.s = s;
                this.out = s.getOutputStream();
                this.in = s.getInputStream();
            }

            /** The headers sent, for the messages of failures. */
            final List<String> sent = new ArrayList<>();

            void send(byte[] frame) throws IOException {
                sent(frame);
                out.write(frame);
                tally.frames++;
            }

            void sent(byte[] frame) {
                sent.add(HexFormat.of().formatHex(frame, 0, Math.min(frame.length, TcpFrame.HEADER_BYTES)));
            }

            /**
             * The target's next frame but NOPs, {@code null} at the end of the stream or a reset.
             * Its NOPs do not extend the wait: a frame the target does not end the connection on
             * within 5 s is one it took for valid (its liveness timeout, 10 s, would end it
             * later, a violation too).
             */
            TcpFrame nextOrEnd() throws IOException {
                long deadline = System.nanoTime() + 5_000_000_000L;
                for (;;) {
                    long left = (deadline - System.nanoTime()) / 1_000_000;
                    if (left <= 0) {
                        throw new AssertionError("the target neither answered nor ended the connection in 5 s after " + String.join(" ", sent));
                    }
                    s.setSoTimeout((int) left);
                    byte[] h;
                    try {
                        h = in.readNBytes(TcpFrame.HEADER_BYTES);
                    } catch (SocketTimeoutException e) {
                        continue;
                    } catch (java.net.SocketException reset) {
                        return null;
                    }
                    if (h.length < TcpFrame.HEADER_BYTES) {
                        return null;
                    }
                    TcpFrame f = new TcpFrame();
                    assertThat(f.decode(ByteBuffer.wrap(h), LIMITS)).as("a frame of the target's").isNull();
                    if (f.opcode != TcpFrame.NOP) {
                        s.setSoTimeout(5_000); // for its payload
                        return f;
                    }
                }
            }

            /** The target's answer to a valid request: {@code op} for {@code seq} with {@code status}; its payload is next. */
            TcpFrame answer(int op, long seq, int status) throws IOException {
                TcpFrame a = nextOrEnd();
                if (a == null) {
                    DatEvent e = new DatEvent();
                    throw new AssertionError("the connection ended before the answer to request " + seq + " (event "
                            + (connEvd.dequeue(e) == DatReturn.SUCCESS ? EventNumber.name(e.eventNumber()) : "none")
                            + ", violations " + transport().violations.get() + ") after " + String.join(" ", sent));
                }
                assertThat(TcpFrame.opcodeName(a.opcode)).as("the answer to request %d", seq).isEqualTo(TcpFrame.opcodeName(op));
                assertThat(a.seq).isEqualTo(seq);
                assertThat(a.aux).as("the status of the answer to request %d", seq).isEqualTo(status);
                return a;
            }
        }

        private byte[] bytes(int n) {
            byte[] b = new byte[n];
            rnd.nextBytes(b);
            return b;
        }

        private Recv postRecv(Link l, int length) {
            Recv r = new Recv(++cookies, rnd.nextInt(R_LEN - length + 1), length);
            ok(l.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(local, r.offset, r.length)}, r.cookie, 0));
            l.recvs.add(r);
            return r;
        }

        /** The oldest receive completed with {@code len} bytes, {@code data} when not {@code null}. */
        private void received(Link l, long len, byte[] data) {
            Recv r = l.recvs.poll();
            DatEvent e = Fabric.Side.expect(recvEvd, EventNumber.DTO_COMPLETION_EVENT, event);
            assertThat(e.userCookie()).isEqualTo(r.cookie);
            assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(e.transferredLength()).isEqualTo(len);
            if (data != null) {
                assertThat(memory.asSlice(R + r.offset, len).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(data);
            }
            landed(R + r.offset, len);
        }

        /** Bytes of R that a send or the target's read legitimately changed. */
        private void landed(long offset, long len) {
            MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, offset, expected, (int) offset, (int) len);
        }

        /** Nothing outside W changed but where the peer's sends and the target's reads landed. */
        private void checkMemory() {
            landed(W, W_LEN); // the attacker's to write
            landed(B + BOUND, BOUND_LEN);
            assertThat(memory.mismatch(MemorySegment.ofArray(expected)))
                    .as("the first byte changed outside the windows, at offset (W %d, RO %d, R %d)", W, RO, R).isEqualTo(-1);
        }

        // -----------------------------------------------------------------------------------------
        // valid frames

        private void valid(Link l) throws IOException {
            switch (rnd.nextInt(10)) {
                case 0, 1 -> write(l, writable(), false);
                case 2 -> write(l, whole(), true);
                case 3, 4 -> read(l, readable());
                case 5 -> sendIntoReceive(l);
                case 6 -> sendNotReady(l);
                case 7 -> {
                    l.send(header(rnd.nextBoolean() ? TcpFrame.NOP : TcpFrame.ACK_REQUEST, 0, 0, 0, 0, 0, 0));
                    tally.valid++;
                }
                case 8 -> targetSend(l);
                default -> targetRead(l);
            }
        }

        /** An RDMA write inside {@code w}; deferrable, its ACK asked for with an ACK_REQUEST. */
        private void write(Link l, Window w, boolean deferrable) throws IOException {
            int off = rnd.nextInt(w.length + 1);
            byte[] data = bytes(rnd.nextInt(Math.min(256, w.length - off) + 1));
            long seq = l.seq++;
            l.send(frame(TcpFrame.RDMA_WRITE, w.context, deferrable ? TcpFrame.ACK_DEFERRABLE : 0, seq, w.address + off, data));
            if (deferrable) {
                l.send(header(TcpFrame.ACK_REQUEST, 0, 0, 0, 0, 0, 0));
            }
            l.answer(TcpFrame.ACK, seq, TcpFrame.STATUS_OK);
            assertThat(memory.asSlice(w.offset + off, data.length).toArray(ValueLayout.JAVA_BYTE)).as("written").isEqualTo(data);
            tally.valid += deferrable ? 2 : 1;
        }

        /** An RDMA read inside {@code w}: the bytes there come back. */
        private void read(Link l, Window w) throws IOException {
            int off = rnd.nextInt(w.length + 1);
            int len = rnd.nextInt(Math.min(512, w.length - off) + 1);
            long seq = l.seq++;
            l.send(header(TcpFrame.RDMA_READ_REQUEST, 0, w.context, len, seq, w.address + off, 0));
            assertThat(l.answer(TcpFrame.RDMA_READ_RESPONSE, seq, TcpFrame.STATUS_OK).payloadLength).isEqualTo(len);
            assertThat(l.in.readNBytes(len)).as("read").isEqualTo(memory.asSlice(w.offset + off, len).toArray(ValueLayout.JAVA_BYTE));
            tally.valid++;
        }

        /** A send that fits the oldest receive posted (one is posted if there is none). */
        private void sendIntoReceive(Link l) throws IOException {
            Recv r = l.recvs.isEmpty() ? postRecv(l, 1 + rnd.nextInt(320)) : l.recvs.peek();
            byte[] data = bytes(rnd.nextInt(r.length + 1));
            long seq = l.seq++;
            l.send(frame(TcpFrame.SEND, 0, rnd.nextBoolean() ? TcpFrame.SOLICITED : 0, seq, 0, data));
            l.answer(TcpFrame.ACK, seq, TcpFrame.STATUS_OK);
            received(l, data.length, data);
            tally.valid++;
        }

        /** A send before any receive: receiver not ready; once one is posted, the same send again lands. */
        private void sendNotReady(Link l) throws IOException {
            if (!l.recvs.isEmpty()) {
                sendIntoReceive(l);
                return;
            }
            byte[] data = bytes(rnd.nextInt(257));
            long seq = l.seq++;
            byte[] f = frame(TcpFrame.SEND, 0, 0, seq, 0, data);
            l.send(f);
            l.answer(TcpFrame.ACK, seq, TcpFrame.STATUS_RNR);
            postRecv(l, Math.max(1, data.length + rnd.nextInt(64)));
            l.send(f);
            l.answer(TcpFrame.ACK, seq, TcpFrame.STATUS_OK);
            received(l, data.length, data);
            tally.valid += 2;
        }

        /** The target's Endpoint posts a send from R; the peer takes it and acknowledges it. */
        private void targetSend(Link l) throws IOException {
            long cookie = ++cookies;
            TcpFrame f = targetSendPosted(l, cookie);
            l.send(header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, f.seq, 0, 0));
            requestDone(cookie, true);
            tally.valid++;
        }

        /** Posts a send of the target's, and takes it: its header (its payload checked). */
        private TcpFrame targetSendPosted(Link l, long cookie) throws IOException {
            int len = 1 + rnd.nextInt(256);
            int off = rnd.nextInt(R_LEN - len + 1);
            ok(l.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(local, off, len)}, cookie, 0));
            TcpFrame f = l.nextOrEnd();
            assertThat(f).as("the target's send").isNotNull();
            assertThat(TcpFrame.opcodeName(f.opcode)).isEqualTo("SEND");
            assertThat(f.payloadLength).isEqualTo(len);
            assertThat(l.in.readNBytes(len)).isEqualTo(memory.asSlice(R + off, len).toArray(ValueLayout.JAVA_BYTE));
            return f;
        }

        /** The target's Endpoint posts an RDMA read into R; the peer answers it with random bytes, which land. */
        private void targetRead(Link l) throws IOException {
            long cookie = ++cookies;
            TcpFrame f = targetReadPosted(l, cookie);
            byte[] data = bytes(f.aux);
            l.send(frame(TcpFrame.RDMA_READ_RESPONSE, 0, TcpFrame.STATUS_OK, f.seq, 0, data));
            requestDone(cookie, true);
            int off = (int) (readAt - local.registeredAddress());
            assertThat(memory.asSlice(R + off, data.length).toArray(ValueLayout.JAVA_BYTE)).as("read into R").isEqualTo(data);
            landed(R + off, data.length);
            tally.valid++;
        }

        /** The local address of the target's last read. */
        private long readAt;

        /** Posts a read of the target's, and takes its request; {@code aux} is its length. */
        private TcpFrame targetReadPosted(Link l, long cookie) throws IOException {
            int len = 1 + rnd.nextInt(256);
            int off = rnd.nextInt(R_LEN - len + 1);
            int context = rnd.nextInt();
            long address = rnd.nextLong();
            readAt = local.registeredAddress() + off;
            ok(l.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(local, off, len)}, cookie, new RmrTriplet(context, address, len), 0));
            TcpFrame f = l.nextOrEnd();
            assertThat(f).as("the target's read").isNotNull();
            assertThat(TcpFrame.opcodeName(f.opcode)).isEqualTo("RDMA_READ_REQUEST");
            assertThat(f.context).isEqualTo(context);
            assertThat(f.address).isEqualTo(address);
            assertThat(f.aux).isEqualTo(len);
            return f;
        }

        /** The target's request {@code cookie} completed: successfully, or not (flushed, or failed); its status. */
        private int requestDone(long cookie, boolean success) {
            DatEvent e = Fabric.Side.expect(reqEvd, EventNumber.DTO_COMPLETION_EVENT, event);
            assertThat(e.userCookie()).isEqualTo(cookie);
            if (success) {
                assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            } else {
                assertThat(e.status()).isNotEqualTo(DtoCompletionStatus.SUCCESS);
            }
            return e.status();
        }

        /** A graceful end: DISCONNECT; the target's Endpoint is DISCONNECTED, nothing counted. */
        private void disconnect(Link l) throws IOException {
            long before = transport().violations.get();
            l.send(header(TcpFrame.DISCONNECT, 0, 0, 0, 0, 0, 0));
            tally.valid++;
            for (TcpFrame a : rest(l)) {
                assertThat(TcpFrame.opcodeName(a.opcode)).as("after a DISCONNECT").isEqualTo("DISCONNECT");
            }
            ended(l, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertThat(transport().violations.get() - before).as("violations counted for a DISCONNECT").isZero();
        }

        /**
         * The connection ended with {@code eventNumber} on the target's Endpoint, now DISCONNECTED;
         * the receives still posted complete, not successfully. A receive whose send was cut may
         * hold some of it: its buffer was the peer's to write.
         */
        private void ended(Link l, int eventNumber) {
            assertThat(EventNumber.name(ended(l, false))).isEqualTo(EventNumber.name(eventNumber));
        }

        /**
         * {@link #ended(Link, int)}, with BROKEN or DISCONNECTED: which. After a {@code flipped}
         * frame, which may have been a send that landed before the end, the oldest receive may have
         * completed successfully.
         */
        private int ended(Link l, boolean flipped) {
            DatEvent e = Fabric.Side.next(connEvd, event);
            assertThat(e.endpoint()).isSameAs(l.ep);
            int eventNumber = e.eventNumber();
            assertThat(EventNumber.name(eventNumber)).isIn(EventNumber.name(EventNumber.CONNECTION_EVENT_BROKEN),
                    EventNumber.name(EventNumber.CONNECTION_EVENT_DISCONNECTED));
            assertThat(l.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
            l.ended = true;
            for (Recv r; (r = l.recvs.poll()) != null; flipped = false) {
                DatEvent c = Fabric.Side.expect(recvEvd, EventNumber.DTO_COMPLETION_EVENT, event);
                assertThat(c.userCookie()).isEqualTo(r.cookie);
                if (!flipped || c.status() != DtoCompletionStatus.SUCCESS) {
                    assertThat(c.status()).isNotEqualTo(DtoCompletionStatus.SUCCESS);
                }
                landed(R + r.offset, r.length);
            }
            if (l.pendingRequest != 0) {
                l.pendingStatus = requestDone(l.pendingRequest, false);
                if (l.pendingOffset >= 0) {
                    landed(R + l.pendingOffset, l.pendingLength); // some of a cut response may have landed
                }
            }
            return eventNumber;
        }

        /** The rest of the target's frames, until the end of the stream; their payloads skipped. */
        private List<TcpFrame> rest(Link l) throws IOException {
            List<TcpFrame> answers = new ArrayList<>();
            try {
                for (TcpFrame a; (a = l.nextOrEnd()) != null && skipped(l, a);) {
                    answers.add(a);
                }
            } catch (AssertionError notEnded) {
                throw new AssertionError("the connection goes on after answers " + answers + ": " + notEnded.getMessage(), notEnded);
            }
            return answers;
        }

        /** Skips the payload of {@code a}: whether it came whole (not cut by a reset or the end). */
        private boolean skipped(Link l, TcpFrame a) throws IOException {
            try {
                l.in.skipNBytes(a.payloadLength);
                return true;
            } catch (java.net.SocketException | java.io.EOFException reset) {
                return false;
            }
        }

        // -----------------------------------------------------------------------------------------
        // malformed frames, each of a known class

        /** A valid request header for mutations of the header alone (no payload: the header is rejected first). */
        private byte[] someHeader(long seq) {
            Window w = whole();
            return switch (rnd.nextInt(5)) {
                case 0 -> header(TcpFrame.RDMA_WRITE, 0, w.context, 0, seq, w.address, 0);
                case 1 -> header(TcpFrame.RDMA_READ_REQUEST, 0, w.context, 8, seq, w.address, 0);
                case 2 -> header(TcpFrame.SEND, 0, 0, 0, seq, 0, 0);
                case 3 -> header(TcpFrame.NOP, 0, 0, 0, 0, 0, 0);
                default -> header(TcpFrame.ACK_REQUEST, 0, 0, 0, 0, 0, 0);
            };
        }

        private int forgedContext() {
            java.util.Set<Integer> live = live();
            for (;;) {
                int c = rnd.nextInt();
                if (!live.contains(c)) {
                    return c;
                }
            }
        }

        /** A random int that is not 0. */
        private int nonZeroInt() {
            return rnd.nextBoolean() ? 1 << rnd.nextInt(32) : rnd.nextInt() | 1;
        }

        /** {@code header} with {@code n} random payload bytes after it. */
        private byte[] withPayload(byte[] header, int n) {
            byte[] f = Arrays.copyOf(header, header.length + n);
            System.arraycopy(bytes(n), 0, f, header.length, n);
            return f;
        }

        /** An RDMA write of a few bytes or a read through {@code context} at {@code address}, refused with REMOTE_ACCESS. */
        private Hostile accessRefused(String kind, long seq, int context, long address, boolean write, int len) {
            return write
                    ? Hostile.refused(kind, frame(TcpFrame.RDMA_WRITE, context, 0, seq, address, bytes(len)), TcpFrame.ACK, seq,
                            TcpFrame.STATUS_REMOTE_ACCESS)
                    : Hostile.refused(kind, header(TcpFrame.RDMA_READ_REQUEST, 0, context, len, seq, address, 0),
                            TcpFrame.RDMA_READ_RESPONSE, seq, TcpFrame.STATUS_REMOTE_ACCESS);
        }

        /** A malformed frame of a class chosen at random, with what it needs posted first. */
        private Hostile malformed(Link l) throws IOException {
            long seq = l.seq++;
            String kind = KINDS.get(rnd.nextInt(KINDS.size()));
            Window w = whole();
            switch (kind) {
                case "bad magic" -> {
                    byte[] f = someHeader(seq);
                    int magic = rnd.nextInt(1 << 16);
                    if ((short) magic == TcpFrame.MAGIC) {
                        magic ^= 1 << rnd.nextInt(16);
                    }
                    f[0] = (byte) (magic >> 8);
                    f[1] = (byte) magic;
                    return Hostile.violation(kind, f);
                }
                case "bad version" -> {
                    byte[] f = someHeader(seq);
                    f[2] = (byte) (TcpFrame.VERSION + 1 + rnd.nextInt(255)); // any byte but the version
                    return Hostile.violation(kind, f);
                }
                case "unknown opcode" -> {
                    byte[] f = someHeader(seq);
                    f[3] = (byte) (rnd.nextInt(4) == 0 ? 0 : TcpFrame.MAX_OPCODE + 1 + rnd.nextInt(255 - TcpFrame.MAX_OPCODE));
                    return Hostile.violation(kind, f);
                }
                case "a field its opcode does not use" -> {
                    int[] ops = {TcpFrame.NOP, TcpFrame.ACK_REQUEST, TcpFrame.DISCONNECT, TcpFrame.SEND, TcpFrame.ACK, TcpFrame.RDMA_READ_RESPONSE};
                    int op = ops[rnd.nextInt(ops.length)];
                    boolean request = op == TcpFrame.SEND || op == TcpFrame.ACK || op == TcpFrame.RDMA_READ_RESPONSE;
                    int field = rnd.nextInt(request ? 2 : 4); // these use aux and seq: only the context or the address then
                    long wide = rnd.nextBoolean() ? 1L << rnd.nextInt(64) : rnd.nextLong() | 1;
                    return Hostile.violation(kind, header(op, 0, field == 0 ? nonZeroInt() : 0, field == 2 ? nonZeroInt() : 0,
                            field == 3 ? wide : request ? seq : 0, field == 1 ? wide : 0, 0));
                }
                case "aux out of range" -> {
                    int bit = rnd.nextInt(31);
                    int notDeferrable = bit == 0 ? 0 : bit + 1; // any bit of a write's aux but ACK_DEFERRABLE's
                    return Hostile.violation(kind, switch (rnd.nextInt(4)) {
                        case 0 -> header(TcpFrame.SEND, 0, 0, rnd.nextInt(4) | 1 << (2 + rnd.nextInt(30)), seq, 0, 0);
                        case 1 -> header(TcpFrame.RDMA_WRITE, 0, w.context, 1 << notDeferrable, seq, w.address, 0);
                        case 2 -> header(TcpFrame.ACK, 0, 0, rnd.nextBoolean() ? TcpFrame.MAX_STATUS + 1 + rnd.nextInt(1000) : -1 - rnd.nextInt(1000),
                                seq, 0, 0);
                        default -> header(TcpFrame.RDMA_READ_RESPONSE, 0, 0, rnd.nextBoolean() ? TcpFrame.STATUS_RNR : TcpFrame.MAX_STATUS + 1
                                + rnd.nextInt(1000), seq, 0, 0);
                    });
                }
                case "payload on an opcode that takes none" -> {
                    long len = switch (rnd.nextInt(3)) {
                        case 0 -> 1; // off by one
                        case 1 -> 2 + rnd.nextInt(1 << 20);
                        default -> 0xFFFF_FFFFL;
                    };
                    int[] ops = {TcpFrame.NOP, TcpFrame.ACK_REQUEST, TcpFrame.DISCONNECT, TcpFrame.RDMA_READ_REQUEST, TcpFrame.ACK,
                        TcpFrame.RDMA_READ_RESPONSE};
                    int op = ops[rnd.nextInt(ops.length)];
                    boolean read = op == TcpFrame.RDMA_READ_REQUEST;
                    int aux = read ? 8 : op == TcpFrame.RDMA_READ_RESPONSE ? 1 + rnd.nextInt(2) : 0; // a response that is no success has no data
                    long s = read || op == TcpFrame.ACK || op == TcpFrame.RDMA_READ_RESPONSE ? seq : 0;
                    return Hostile.violation(kind, withPayload(header(op, len, read ? w.context : 0, aux, s, read ? w.address : 0, 0),
                            (int) Math.min(len, 16)));
                }
                case "length over the maximum" -> {
                    long len = switch (rnd.nextInt(3)) {
                        case 0 -> TcpFrame.Limits.WIRE.maxRdmaSize() + 1; // off by one
                        case 1 -> (1L << 31) + rnd.nextLong(1L << 31);
                        default -> 0xFFFF_FFFFL;
                    };
                    return Hostile.violation(kind, switch (rnd.nextInt(4)) {
                        case 0 -> withPayload(header(TcpFrame.SEND, len, 0, 0, seq, 0, 0), 16);
                        case 1 -> withPayload(header(TcpFrame.RDMA_WRITE, len, w.context, 0, seq, w.address, 0), 16);
                        case 2 -> withPayload(header(TcpFrame.RDMA_READ_RESPONSE, len, 0, TcpFrame.STATUS_OK, seq, 0, 0), 16);
                        default -> header(TcpFrame.RDMA_READ_REQUEST, 0, w.context, (int) len, seq, w.address, 0); // aux: the read's length
                    });
                }
                case "random bytes where a header belongs" -> { // after a NOP: a header with a bad magic
                    byte[] f = withPayload(header(TcpFrame.NOP, 0, 0, 0, 0, 0, 0), TcpFrame.HEADER_BYTES + rnd.nextInt(64));
                    f[TcpFrame.HEADER_BYTES] = f[TcpFrame.HEADER_BYTES] == (byte) 0xDA ? 0 : f[TcpFrame.HEADER_BYTES];
                    return Hostile.violation(kind, f);
                }
                case "a connection-management frame" -> {
                    return Hostile.violation(kind, switch (rnd.nextInt(4)) {
                        case 0 -> frame(TcpFrame.CONNECT_REQUEST, 0, rnd.nextInt(1 << 16), rnd.nextLong(), rnd.nextLong(), bytes(rnd.nextInt(65)));
                        case 1 -> frame(TcpFrame.ACCEPT, 0, 0, 0, 0, bytes(rnd.nextInt(65)));
                        case 2 -> header(TcpFrame.REJECT, 0, 0, rnd.nextInt(2), 0, 0, 0);
                        default -> header(TcpFrame.READY_TO_USE, 0, 0, 0, 0, 0, 0);
                    });
                }
                case "a response to nothing" -> { // the target has no request in flight
                    return Hostile.violation(kind, switch (rnd.nextInt(3)) {
                        case 0 -> header(TcpFrame.ACK, 0, 0, rnd.nextInt(TcpFrame.MAX_STATUS + 1), rnd.nextLong(), 0, 0);
                        case 1 -> frame(TcpFrame.RDMA_READ_RESPONSE, 0, TcpFrame.STATUS_OK, rnd.nextLong(), 0, bytes(rnd.nextInt(65)));
                        default -> header(TcpFrame.RDMA_READ_RESPONSE, 0, 0, 1 + rnd.nextInt(2), rnd.nextLong(), 0, 0);
                    });
                }
                case "a wrong response" -> { // to the one request of the target's in flight
                    l.pendingRequest = ++cookies;
                    if (rnd.nextBoolean()) {
                        TcpFrame q = targetSendPosted(l, l.pendingRequest);
                        return Hostile.violation(kind, switch (rnd.nextInt(3)) {
                            case 0 -> header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, q.seq + 1 + rnd.nextInt(1000), 0, 0); // not sent yet
                            case 1 -> header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, q.seq - 1 - rnd.nextInt(1000), 0, 0); // done already
                            default -> header(TcpFrame.RDMA_READ_RESPONSE, 0, 0, TcpFrame.STATUS_OK, q.seq, 0, 0); // of a read
                        });
                    }
                    TcpFrame q = targetReadPosted(l, l.pendingRequest);
                    return Hostile.violation(kind, switch (rnd.nextInt(4)) {
                        case 0 -> frame(TcpFrame.RDMA_READ_RESPONSE, 0, TcpFrame.STATUS_OK, q.seq + 1 + rnd.nextInt(1000), 0, bytes(q.aux));
                        case 1 -> frame(TcpFrame.RDMA_READ_RESPONSE, 0, TcpFrame.STATUS_OK, q.seq, 0, bytes(q.aux + (rnd.nextBoolean() ? 1 : -1)));
                        case 2 -> header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, q.seq, 0, 0); // of a send or write
                        default -> header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_RNR, q.seq, 0, 0); // receiver not ready, for a read
                    });
                }
                case "truncated payload" -> {
                    switch (rnd.nextInt(3)) {
                        case 0 -> {
                            Window t = writable();
                            int len = 1 + rnd.nextInt(Math.min(256, t.length));
                            byte[] f = frame(TcpFrame.RDMA_WRITE, t.context, 0, seq, t.address + rnd.nextInt(t.length - len + 1), bytes(len));
                            return Hostile.truncated(kind, f, TcpFrame.HEADER_BYTES + rnd.nextInt(len));
                        }
                        case 1 -> {
                            Recv r = l.recvs.isEmpty() ? postRecv(l, 1 + rnd.nextInt(320)) : l.recvs.peek();
                            int len = 1 + rnd.nextInt(r.length);
                            return Hostile.truncated(kind, frame(TcpFrame.SEND, 0, 0, seq, 0, bytes(len)), TcpFrame.HEADER_BYTES + rnd.nextInt(len));
                        }
                        default -> { // the response to the target's read: what came of it may land
                            l.pendingRequest = ++cookies;
                            TcpFrame q = targetReadPosted(l, l.pendingRequest);
                            l.pendingOffset = (int) (readAt - local.registeredAddress());
                            l.pendingLength = q.aux;
                            byte[] f = frame(TcpFrame.RDMA_READ_RESPONSE, 0, TcpFrame.STATUS_OK, q.seq, 0, bytes(q.aux));
                            return Hostile.truncated(kind, f, TcpFrame.HEADER_BYTES + rnd.nextInt(q.aux));
                        }
                    }
                }
                case "truncated header" -> {
                    return Hostile.truncated(kind, someHeader(seq), 1 + rnd.nextInt(TcpFrame.HEADER_BYTES - 1));
                }
                case "refused: forged context" -> {
                    Window t = rnd.nextBoolean() ? whole() : bound();
                    int context = rnd.nextInt(8) == 0 ? 0 : forgedContext(); // 0: that of memory of local access only
                    return accessRefused(kind, seq, context, t.address + rnd.nextInt(t.length - 64), rnd.nextBoolean(), 1 + rnd.nextInt(64));
                }
                case "refused: stale context" -> { // used as it was valid once: what the peer may have kept
                    java.util.Set<Integer> live = live();
                    List<Window> old = stale.stream().filter(o -> !live.contains(o.context)).toList();
                    Window o = old.get(rnd.nextInt(old.size()));
                    int len = 1 + rnd.nextInt(64);
                    return accessRefused(kind, seq, o.context, o.address + rnd.nextInt(o.length - len + 1), rnd.nextBoolean(), len);
                }
                case "refused: another PZ's memory" -> { // the good pair's, through its valid context
                    return accessRefused(kind, seq, target.lmr.rmrContext(), target.lmr.registeredAddress() + rnd.nextInt((1 << 16) - 64),
                            rnd.nextBoolean(), 1 + rnd.nextInt(64));
                }
                case "refused: out of the window" -> {
                    boolean write = rnd.nextBoolean();
                    Window t = write ? writable() : readable();
                    switch (rnd.nextInt(write ? 4 : 5)) {
                        case 0 -> { // from below its start
                            return accessRefused(kind, seq, t.context, t.address - 1 - rnd.nextInt(1024), write, 1 + rnd.nextInt(64));
                        }
                        case 1 -> { // one byte past its end
                            int off = rnd.nextInt(t.length + 1);
                            return accessRefused(kind, seq, t.context, t.address + off, write, t.length - off + 1);
                        }
                        case 2 -> { // past its end
                            return accessRefused(kind, seq, t.context, t.address + t.length + rnd.nextInt(1 << 20), write, 1 + rnd.nextInt(64));
                        }
                        case 3 -> { // where an offset from its start wraps around
                            long address = rnd.nextBoolean() ? Long.MAX_VALUE - rnd.nextInt(64) : Long.MIN_VALUE + rnd.nextInt(64);
                            return accessRefused(kind, seq, t.context, address, write, 1 + rnd.nextInt(64));
                        }
                        default -> { // a read of up to 2 GiB - 1: a valid header, the window refuses it
                            return accessRefused(kind, seq, t.context, t.address, false, t.length + 1 + rnd.nextInt(Integer.MAX_VALUE - t.length));
                        }
                    }
                }
                case "refused: no privilege" -> {
                    boolean write = rnd.nextBoolean();
                    Window t = write ? readOnly() : writeOnly();
                    int len = 1 + rnd.nextInt(64);
                    return accessRefused(kind, seq, t.context, t.address + rnd.nextInt(t.length - len + 1), write, len);
                }
                case "refused: a send longer than its receive" -> {
                    Recv r = l.recvs.isEmpty() ? postRecv(l, 1 + rnd.nextInt(256)) : l.recvs.peek();
                    int len = r.length + 1 + (rnd.nextBoolean() ? 0 : rnd.nextInt(256)); // off by one, or more
                    return Hostile.refused(kind, frame(TcpFrame.SEND, 0, 0, seq, 0, bytes(len)), TcpFrame.ACK, seq, TcpFrame.STATUS_REMOTE_LENGTH);
                }
                default -> throw new AssertionError(kind);
            }
        }

        /** Sends a malformed frame and checks its end: BROKEN on that Endpoint alone, a violation counted or a refusal. */
        private void hostile(Link l, Hostile h) throws IOException {
            long before = transport().violations.get();
            l.sent(h.bytes);
            l.out.write(h.bytes, 0, h.sent);
            tally.frames++;
            tally.malformed++;
            tally.kinds.merge(h.kind, 1L, Long::sum);
            if (h.sent < h.bytes.length) {
                l.s.shutdownOutput(); // the stream ends inside the frame
            }
            List<TcpFrame> answers = rest(l);
            ended(l, EventNumber.CONNECTION_EVENT_BROKEN);
            long counted = transport().violations.get() - before;
            if (h.answerOp == 0) {
                assertThat(answers).as("answers to %s", h.describe()).isEmpty();
                assertThat(counted).as("violations counted for %s", h.describe()).isEqualTo(1);
                tally.counted++;
            } else {
                assertThat(counted).as("violations counted for %s", h.describe()).isZero();
                assertThat(answers).as("answers to %s", h.describe()).hasSize(1);
                TcpFrame a = answers.get(0);
                assertThat(TcpFrame.opcodeName(a.opcode)).as("the refusal of %s", h.describe()).isEqualTo(TcpFrame.opcodeName(h.answerOp));
                assertThat(a.seq).as("the refusal of %s", h.describe()).isEqualTo(h.seq);
                assertThat(a.aux).as("the refusal of %s", h.describe()).isEqualTo(h.status);
                tally.refused++;
            }
        }

        // -----------------------------------------------------------------------------------------
        // random bit flips

        /**
         * A valid frame to flip bits of: a write, a read, a send (a receive posted for it), a NOP,
         * an ACK_REQUEST, a DISCONNECT, the answer to a send or read of the target's (posted now).
         */
        private byte[] flipBase(Link l, long seq) throws IOException {
            int len = rnd.nextInt(65);
            byte[] data = unlikeAHeader(bytes(len));
            return switch (rnd.nextInt(8)) {
                case 0 -> {
                    Window t = writable();
                    yield frame(TcpFrame.RDMA_WRITE, t.context, 0, seq, t.address + rnd.nextInt(t.length - len + 1), data);
                }
                case 1 -> {
                    Window t = readable();
                    yield header(TcpFrame.RDMA_READ_REQUEST, 0, t.context, len, seq, t.address + rnd.nextInt(t.length - len + 1), 0);
                }
                case 2 -> {
                    Recv r = l.recvs.isEmpty() ? postRecv(l, 64 + rnd.nextInt(256)) : l.recvs.peek();
                    yield frame(TcpFrame.SEND, 0, 0, seq, 0, Arrays.copyOf(data, Math.min(len, r.length)));
                }
                case 3 -> header(TcpFrame.NOP, 0, 0, 0, 0, 0, 0);
                case 4 -> header(TcpFrame.ACK_REQUEST, 0, 0, 0, 0, 0, 0);
                case 5 -> header(TcpFrame.DISCONNECT, 0, 0, 0, 0, 0, 0);
                case 6 -> {
                    l.pendingRequest = ++cookies;
                    yield header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, targetSendPosted(l, l.pendingRequest).seq, 0, 0);
                }
                default -> {
                    l.pendingRequest = ++cookies;
                    TcpFrame q = targetReadPosted(l, l.pendingRequest);
                    l.pendingOffset = (int) (readAt - local.registeredAddress());
                    l.pendingLength = q.aux;
                    yield frame(TcpFrame.RDMA_READ_RESPONSE, 0, TcpFrame.STATUS_OK, q.seq, 0, unlikeAHeader(bytes(q.aux)));
                }
            };
        }

        /** {@code payload} with no byte 0xDA: what is left of it after a flip shortened its frame is read as a header, one with a bad magic. */
        private static byte[] unlikeAHeader(byte[] payload) {
            for (int k = 0; k < payload.length; k++) {
                payload[k] = payload[k] == (byte) 0xDA ? 0 : payload[k];
            }
            return payload;
        }

        /** The target sent its send again (a flip made its answer receiver-not-ready): take it and acknowledge it. */
        private void sentAgain(Link l, TcpFrame again) throws IOException {
            assertThat(again).as("the target's send, again").isNotNull();
            assertThat(TcpFrame.opcodeName(again.opcode)).as("a frame of the target's").isEqualTo("SEND");
            l.in.skipNBytes(again.payloadLength);
            l.send(header(TcpFrame.ACK, 0, 0, TcpFrame.STATUS_OK, again.seq, 0, 0));
            tally.valid++;
        }

        /**
         * A valid frame with 1 to 3 bits of its header flipped, which may leave it valid: then the
         * probe that follows it (an RDMA read) is served; else the connection ends as for a
         * malformed frame, counted once or refused once. A frame whose length a flip changed is
         * followed by the end of the stream, not a probe: it is then cut or overlong, and the
         * connection ends.
         */
        private void flipped(Link l) throws IOException {
            long seq = l.seq++;
            byte[] f = flipBase(l, seq);
            byte[] m = f.clone();
            for (int bit : rnd.ints(0, TcpFrame.HEADER_BYTES * 8).distinct().limit(1 + rnd.nextInt(3)).toArray()) {
                m[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
            }
            String what = "flipped " + HexFormat.of().formatHex(f, 0, TcpFrame.HEADER_BYTES) + " to "
                    + HexFormat.of().formatHex(m, 0, TcpFrame.HEADER_BYTES);
            boolean lengthFlipped = !Arrays.equals(m, 4, 8, f, 4, 8);
            long before = transport().violations.get();
            l.sent(m);
            l.out.write(m);
            tally.frames++;
            tally.flips++;
            long probe = ~seq; // apart from any seq a flip of seq's bits makes
            int at = rnd.nextInt(W_LEN - 7);
            byte[] probeFrame = header(TcpFrame.RDMA_READ_REQUEST, 0, whole.rmrContext(), 8, probe, whole.registeredAddress() + at, 0);
            if (lengthFlipped) {
                l.s.shutdownOutput();
            } else {
                l.send(probeFrame);
            }
            int refusals = 0;
            boolean sentAgain = false;
            for (TcpFrame a; (a = l.nextOrEnd()) != null;) {
                if (a.opcode == TcpFrame.RDMA_READ_RESPONSE && a.seq == probe) {
                    // the target answers in order: whatever it answered the flipped frame came before
                    assertThat(a.aux).as("the probe's status after %s", what).isEqualTo(TcpFrame.STATUS_OK);
                    assertThat(a.payloadLength).isEqualTo(8);
                    assertThat(l.in.readNBytes(8)).as("the probe after %s", what)
                            .isEqualTo(memory.asSlice(W + at, 8).toArray(ValueLayout.JAVA_BYTE));
                    served(l, f, m, before, refusals, sentAgain, what);
                    tally.valid++;
                    return;
                }
                if (a.opcode == TcpFrame.ACK && a.aux == TcpFrame.STATUS_RNR && !lengthFlipped) {
                    // a send that found no receive: the target drops what follows (the probe) until it comes again
                    Recv r = postRecv(l, 1 + rnd.nextInt(64));
                    byte[] data = bytes(rnd.nextInt(r.length + 1));
                    l.send(frame(TcpFrame.SEND, 0, 0, a.seq, 0, data));
                    l.answer(TcpFrame.ACK, a.seq, TcpFrame.STATUS_OK);
                    received(l, data.length, data);
                    l.send(probeFrame);
                    tally.valid++;
                    continue;
                }
                if (a.opcode == TcpFrame.SEND && !lengthFlipped) {
                    sentAgain(l, a);
                    sentAgain = true;
                    continue;
                }
                if ((a.opcode == TcpFrame.ACK || a.opcode == TcpFrame.RDMA_READ_RESPONSE) && a.aux != TcpFrame.STATUS_OK
                        && a.aux != TcpFrame.STATUS_RNR) {
                    refusals++;
                }
                if (!skipped(l, a)) {
                    break;
                }
            }
            // the connection ended: on the flipped frame, which was malformed, or a DISCONNECT, or
            // the answer to the target's request with an error status (which breaks the connection)
            int eventNumber = ended(l, true);
            boolean failedByPeer = l.pendingRequest != 0 && (l.pendingStatus == DtoCompletionStatus.ERR_REMOTE_ACCESS
                    || l.pendingStatus == DtoCompletionStatus.ERR_REMOTE_RESPONDER);
            long counted = transport().violations.get() - before;
            tally.flipsCounted += counted;
            tally.flipsRefused += refusals;
            assertThat(counted + refusals).as("violations counted and refusals for %s, which ended with %s, the target's request %s",
                    what, EventNumber.name(eventNumber), l.pendingRequest == 0 ? "none" : DtoCompletionStatus.name(l.pendingStatus))
                    .isEqualTo(eventNumber == EventNumber.CONNECTION_EVENT_BROKEN && !failedByPeer ? 1 : 0);
        }

        /**
         * The flip of {@code f} to {@code m} was served: nothing counted or refused, the connection
         * goes on; the target's request {@code f} answers (when it does) completes, {@code sentAgain}
         * when its send came again already.
         */
        private void served(Link l, byte[] f, byte[] m, long before, int refusals, boolean sentAgain, String what) throws IOException {
            assertThat(refusals).as("refusals of %s, then served", what).isZero();
            assertThat(transport().violations.get() - before).as("violations counted for %s, then served", what).isZero();
            assertThat(l.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
            assertThat(connEvd.dequeue(event)).as("a connection event after %s", what).isNotEqualTo(DatReturn.SUCCESS);
            if (l.pendingRequest != 0) {
                // the target's request it answered completed, or was sent again (a flip to
                // receiver-not-ready) and is answered now
                if (!sentAgain && reqEvd.dequeue(event) != DatReturn.SUCCESS) {
                    if (m[3] == TcpFrame.ACK && ByteBuffer.wrap(m, 12, 4).getInt() == TcpFrame.STATUS_RNR) {
                        sentAgain(l, l.nextOrEnd()); // its send comes again after a backoff
                    } else {
                        l.send(f); // a flip made it a frame of another kind (a NOP, a send...): the answer now
                    }
                    sentAgain = true;
                }
                if (sentAgain) {
                    Fabric.Side.next(reqEvd, event);
                }
                assertThat(event.userCookie()).isEqualTo(l.pendingRequest);
                assertThat(event.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                if (l.pendingOffset >= 0) {
                    assertThat(memory.asSlice(R + l.pendingOffset, l.pendingLength).toArray(ValueLayout.JAVA_BYTE))
                            .as("the response after %s", what).isEqualTo(Arrays.copyOfRange(f, TcpFrame.HEADER_BYTES, f.length));
                    landed(R + l.pendingOffset, l.pendingLength);
                }
                l.pendingRequest = 0;
                l.pendingOffset = -1;
            }
            // a send lands in the oldest receive (it was served: its completion is there)
            while (recvEvd.dequeue(event) == DatReturn.SUCCESS) {
                Recv r = l.recvs.poll();
                assertThat(event.userCookie()).isEqualTo(r.cookie);
                assertThat(event.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                assertThat(event.transferredLength()).isLessThanOrEqualTo(r.length);
                landed(R + r.offset, event.transferredLength());
            }
            tally.flipsServed++;
        }
    }
}
