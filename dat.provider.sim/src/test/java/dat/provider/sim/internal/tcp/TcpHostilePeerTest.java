package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.tcp.RawFrames.LIMITS;
import static dat.provider.sim.internal.tcp.RawFrames.header;
import static dat.provider.sim.internal.tcp.RawFrames.nextFrameOrEnd;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.PspFlag;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.SimLimits;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
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
 * Raw sockets attack a live TCP IA with malformed frames (generated and mutated valid ones) as
 * first frames, in the handshake and on established connections, while a well-behaved Endpoint
 * pair keeps exchanging data: every hostile connection must be closed by the IA and counted as a
 * violation (or, for an access the checks refuse, answered with a refusal), the good pair must
 * keep working, and the threads, heap, open descriptors and direct memory must not grow.
 */
@Timeout(180)
class TcpHostilePeerTest {

    private static final int HOSTILE = Integer.getInteger("dat.sim.fuzz.frames", 100_000);

    private final AttackedIa attacked = new AttackedIa();
    private final Fabric.Side target = attacked.target;

    @AfterEach
    void close() {
        attacked.close();
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
        long before = attacked.transport().violations.get();
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
                attacked.transport().violations.get() - before < headers.length && System.nanoTime() < deadline;) {
            Thread.sleep(5);
        }
        assertThat(attacked.transport().violations.get() - before).as("violations counted").isEqualTo(headers.length);
    }

    @Test
    void aHundredThousandMalformedFramesAreEachRejected_whileAGoodPairKeepsWorking() throws Exception {
        attacked.connectGoodPair();
        attacked.goodRound(0);
        TcpTransport t = attacked.transport();
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
                attacked.goodRound(round++);
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
        attacked.goodRound(1_000_000);
        assertThat(target.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        while (t.connections().size() > 1 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(t.connections()).hasSize(1);
        footprint.assertFlat(t, HOSTILE + " hostile frames");
    }

    /**
     * Hostile frames on established connections (the test accepts each): a forged or replayed RMR
     * context, an access out of bounds, a response to nothing, a CM frame, a truncated payload,
     * random mutations. Each breaks that connection alone (BROKEN on its Endpoint), touches no
     * memory outside the target region, and the good pair goes on.
     */
    @Test
    void hostileFramesOnEstablishedConnectionsBreakThatConnectionAlone() throws Exception {
        attacked.connectGoodPair();
        target.ia.createPublicServicePoint(2, target.crEvd, PspFlag.CONSUMER);
        // a region the attacker may write 64 bytes of, inside memory it must not touch beyond
        java.lang.foreign.MemorySegment guarded = attacked.pair.fb.memory(256);
        dat.api.LocalMemoryRegion window = target.ia.registerMemory(guarded.asSlice(64, 64), target.pz, dat.api.MemPrivileges.ALL);
        int oldContext = target.lmr.rmrContext();
        SplittableRandom rnd = new SplittableRandom(5);
        for (int i = 0; i < 200; i++) {
            Endpoint ep = target.ia.createEndpoint(target.pz, target.recvEvd, target.reqEvd, target.connEvd, null);
            try (Socket s = attacked.rawPeer(ep)) {
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
                long violations = attacked.transport().violations.get();
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
                long counted = attacked.transport().violations.get() - violations;
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
                attacked.goodRound(i + 1);
            }
        }
        // nothing outside the 64-byte window was ever written
        for (int k = 0; k < 64; k++) {
            assertThat(guarded.get(ValueLayout.JAVA_BYTE, k)).isZero();
            assertThat(guarded.get(ValueLayout.JAVA_BYTE, 128 + k)).isZero();
        }
        attacked.goodRound(10_000);
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
            try (Socket s = attacked.rawPeer(ep)) {
                long before = attacked.transport().violations.get();
                s.getOutputStream().write(frames[i], 0, i == 1 ? 20 : TcpFrame.HEADER_BYTES + 10);
                s.shutdownOutput();
                assertThat(nextFrameOrEnd(s)).as("the answer to %s cut short", what[i]).isNull();
                DatEvent e = target.next(target.connEvd);
                assertThat(e.endpoint()).isSameAs(ep);
                assertThat(EventNumber.name(e.eventNumber())).isEqualTo(EventNumber.name(EventNumber.CONNECTION_EVENT_BROKEN));
                assertThat(attacked.transport().violations.get() - before).as("violations counted for %s cut short", what[i]).isEqualTo(1);
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
        attacked.connectGoodPair();
        target.ia.createPublicServicePoint(2, target.crEvd, PspFlag.CONSUMER);
        for (int i = 0; i < 4; i++) {
            Endpoint ep = target.ia.createEndpoint(target.pz, target.recvEvd, target.reqEvd, target.connEvd, null);
            try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), target.address().getPort())) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(header(TcpFrame.CONNECT_REQUEST, 0, 0, 1, 0, 2, 0));
                target.expect(target.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(ep, null);
                assertThat(s.getInputStream().readNBytes(TcpFrame.HEADER_BYTES)[3]).isEqualTo((byte) TcpFrame.ACCEPT);
                assertThat(ep.getStatus().state()).isEqualTo(EpState.COMPLETION_PENDING);
                long violations = attacked.transport().violations.get();
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
                assertThat(attacked.transport().violations.get() - violations).as("violations counted, case %d", i).isEqualTo(i == 0 ? 0 : 1);
            }
            ep.close();
        }
        attacked.goodRound(7);
    }
}
