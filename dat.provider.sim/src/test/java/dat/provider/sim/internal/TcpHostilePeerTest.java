package dat.provider.sim.internal;

import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.api.RmrTriplet;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
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
 * ones) while a well-behaved Endpoint pair keeps exchanging data. Every hostile connection must be
 * closed by the IA and counted as a violation, the good pair must keep working, and the threads
 * must not grow.
 */
@Timeout(180)
class TcpHostilePeerTest {

    private static final String TCP = "tcp=127.0.0.1:0";
    private static final int HOSTILE = Integer.getInteger("dat.sim.fuzz.frames", 100_000);
    private static final TcpFrame.Limits LIMITS = TcpFrame.Limits.WIRE;

    private final Fabric fa = new Fabric(ProviderSettings.defaults().limits(), TCP);
    private final Fabric fb = new Fabric(ProviderSettings.defaults().limits(), TCP);
    /** The IA under attack (passive side of the good pair). */
    private final Fabric.Side target = fa.new Side("tcpT", null, 1 << 16);
    private final Fabric.Side good = fb.new Side("tcpG", null, 1 << 16);

    @AfterEach
    void close() {
        fa.close();
        fb.close();
    }

    private TcpTransport transport() {
        return ((SimIa) target.ia).adapter.tcp;
    }

    private void connectGoodPair() {
        target.ia.createPublicServicePoint(1, target.crEvd, PspFlag.CONSUMER);
        good.ep.connect(target.address(), 1, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        target.expect(target.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(target.ep, null);
        target.expect(target.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        good.expect(good.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    /** One round of the good pair: a send into a receive and an RDMA write, bytes verified. */
    private void goodRound(int round) {
        good.mem.asSlice(0, 256).fill((byte) round);
        ok(target.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(target.lmr, 1024, 256)}, round, 0));
        ok(good.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(good.lmr, 0, 256)}, round, 0));
        ok(good.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(good.lmr, 0, 256)}, round,
                RmrTriplet.of(target.lmr, 4096, 256), 0));
        DatEvent r = target.expect(target.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(good.expect(good.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(good.expect(good.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
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
        while (t.connections.size() > 1 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(t.connections).hasSize(1);
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
            // the transport keeps up to IDLE_LIMIT threads of ended connections for the next ones,
            // beside the good pair's reader and writer
            assertThat(t.threads.threads()).as("transport threads after %s", what).isLessThanOrEqualTo(ConnectionThreads.IDLE_LIMIT + 2);
            assertThat(now.threads).as("platform threads after %s", what).isLessThanOrEqualTo(threads + 2 + ConnectionThreads.IDLE_LIMIT);
            // thousands of connections leave nothing behind: a leak of even one small object per
            // frame would be several MiB
            assertThat(now.heap - heap).as("heap growth after %s, bytes", what).isLessThan(2L << 20);
            // each connection has a socket and up to three selectors (two descriptors each), all
            // closed when it ends: a leak of one per connection would be thousands; the slack is
            // for descriptors the JVM opens lazily (class files, /proc)
            if (fds >= 0) {
                assertThat(now.fds - fds).as("open file descriptors added by %s", what).isLessThanOrEqualTo(16);
            }
            // a connection's direct buffers (an 8 KiB read-ahead, a 16 KiB scratch buffer once it
            // skips a payload, headers) go with it; the idle threads kept and the NIO's per-thread
            // temporary buffers hold a few KiB each; one leaked read-ahead per connection would be
            // tens of MiB
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
        java.lang.foreign.MemorySegment guarded = fa.memory(256);
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
        for (int i = 0; i < 3; i++) {
            Endpoint ep = target.ia.createEndpoint(target.pz, target.recvEvd, target.reqEvd, target.connEvd, null);
            try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), target.address().getPort())) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(header(TcpFrame.CONNECT_REQUEST, 0, 0, 1, 0, 2, 0));
                target.expect(target.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(ep, null);
                assertThat(s.getInputStream().readNBytes(TcpFrame.HEADER_BYTES)[3]).isEqualTo((byte) TcpFrame.ACCEPT);
                assertThat(ep.getStatus().state()).isEqualTo(EpState.COMPLETION_PENDING);
                switch (i) {
                    case 0 -> s.shutdownOutput(); // the requester gave up
                    case 1 -> s.getOutputStream().write(header(TcpFrame.NOP, 0, 0, 0, 0, 0, 0)); // not the answer
                    default -> s.getOutputStream().write(header(TcpFrame.SEND, 0, 0, 0, 0, 0, 0)); // data before it
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
        java.lang.foreign.MemorySegment big = fa.memory(size);
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
        java.lang.foreign.MemorySegment local = fa.memory(64);
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
            twin.close(); // before, this waited 50 ms for the frame to end, then cut the connection
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
        dat.api.LocalMemoryRegion bigLmr = target.ia.registerMemory(fa.memory(size), target.pz, dat.api.MemPrivileges.ALL);
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
     * completing it are one step). Before, taken out of the ring, it counted nowhere.
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
}
