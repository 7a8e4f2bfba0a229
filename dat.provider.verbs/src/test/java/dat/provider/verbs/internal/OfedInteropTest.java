package dat.provider.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.ConnectionRequest;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.RmrTriplet;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.NetworkInterface;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The verbs provider against C uDAPL peers on OFED's libdat2 (the cma provider
 * {@code libdaplofa.so.2}, rdma_cm), on the same device, in both roles: the project's C peer
 * ({@code src/test/c/udapl_peer.c}, whose header describes the exchange: a rejected request with
 * reject data, 56 bytes of private data each way, RMR triplets sent and used for RDMA write and
 * read, a disconnect). (OFED's own test tools of Debian's dapl 2.1.10, dtest and dtestcm, first
 * exchange addresses over a TCP side channel of their own before they connect through DAT, so they
 * talk only to each other; the stage runs them C to C as the reference.) CI runs it in the soft-RoCE VM ({@code .ci/rxe-stage.sh}), which builds the C
 * peer and names it with the system property {@value #PEER_PROPERTY}; where there is no device
 * every test is skipped by assumption, where there is one the peer must be there.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OfedInteropTest extends DeviceIaTest {

    /** The system property naming the built C peer. */
    static final String PEER_PROPERTY = "dat.verbs.udapl.peer";

    private static final long WAIT = TimeUnit.SECONDS.toMicros(20);
    private static final int BUFFER = 64 * 1024;
    private static final int CHUNK = 4096;
    private static final int WRITE_AT = 0;
    private static final int READ_AT = 32 * 1024;
    private static final int LANDING_AT = 16 * 1024;
    private static final int PDATA = 56;
    private static final String C_IA = "ofa-v2-interop";
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);


    @TempDir
    Path temp;

    private Path datConf;
    private final List<Peer> peers = new ArrayList<>();

    @BeforeEach
    void writeDatConf() throws IOException {
        // the C side's dat.conf: OFED's cma provider on the netdev of the Java IA's address
        NetworkInterface netdev = NetworkInterface.getByInetAddress(address().getAddress());
        assertThat(netdev).as("the netdev of %s", address()).isNotNull();
        datConf = temp.resolve("dat.conf");
        Files.writeString(datConf, C_IA + " u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 \"" + netdev.getName() + " 0\" \"\"\n");
    }

    @AfterEach
    void stopPeers() throws InterruptedException {
        for (Peer peer : peers) {
            peer.stop();
        }
    }

    // ---- the C peer ------------------------------------------------------------------------------

    private static String peerBinary() {
        String peer = System.getProperty(PEER_PROPERTY);
        assertThat(peer).as("system property " + PEER_PROPERTY + " (the C peer, built by .ci/rxe-stage.sh)").isNotNull();
        assertThat(Path.of(peer)).as("the C peer").isExecutable();
        return peer;
    }

    /** A C process with the dat.conf of {@link #C_IA}, its output collected. */
    private Peer launch(String... command) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("DAT_OVERRIDE", datConf.toString());
        Process process = builder.start();
        process.getOutputStream().close();
        Peer peer = new Peer(process, String.join(" ", command));
        peers.add(peer);
        return peer;
    }

    /** A running C peer: its output, read as it comes by a thread of its own (a pipe must not fill up). */
    private static final class Peer {
        final Process process;
        final String command;
        private final java.util.concurrent.BlockingQueue<String> lines = new java.util.concurrent.LinkedBlockingQueue<>();
        private final StringBuffer seen = new StringBuffer();
        private final Thread reader;

        Peer(Process process, String command) {
            this.process = process;
            this.command = command;
            this.reader = Thread.ofVirtual().start(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        seen.append(line).append('\n');
                        lines.add(line);
                    }
                } catch (IOException closed) {
                    // the process was killed
                }
            });
        }

        /** Waits (at most 60 s) for a line that starts with {@code prefix}. */
        void awaitLine(String prefix) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line != null && line.startsWith(prefix)) {
                    return;
                }
                if (line == null && !process.isAlive() && !reader.isAlive() && lines.isEmpty()) {
                    break;
                }
            }
            throw new AssertionError("the peer " + command + " did not print '" + prefix + "'; its output:\n" + seen);
        }

        /** Waits for the end and checks the exit status; returns the whole output. */
        String finish(int expectedExit) throws InterruptedException {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s ends; its output:\n%s", command, seen).isTrue();
            reader.join(10_000);
            System.out.println("OfedInteropTest: the output of " + command + ":\n" + seen);
            assertThat(process.exitValue()).as("the exit status of %s; its output:\n%s", command, seen).isEqualTo(expectedExit);
            return seen.toString();
        }

        /** Ends the process if it still runs, and prints what it said. */
        void stop() throws InterruptedException {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
                reader.join(5_000);
                System.out.println("OfedInteropTest: " + command + " was still running; its output:\n" + seen);
            }
        }
    }

    // ---- the Java side of the exchange (udapl_peer.c) --------------------------------------------

    private static byte pattern(char kind, int role, int i) {
        return (byte) switch (kind) {
            case 'P' -> 7 * i + 1;
            case 'Q' -> 11 * i + 5;
            case 'W' -> 13 * i + 3 * role + 1;
            default -> 17 * i + 5 * role + 2;
        };
    }

    private static byte[] pattern(char kind, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = pattern(kind, 0, i);
        }
        return bytes;
    }

    private DatEvent await(EventDispatcher evd, int eventNumber, String what) {
        DatEvent event = new DatEvent();
        int rc = evd.await(WAIT, 1, event);
        assertThat(DatReturn.describe(rc)).as("waiting for %s", what).isEqualTo(DatReturn.describe(DatReturn.SUCCESS));
        assertThat(EventNumber.name(event.eventNumber())).as("%s: %s", what, event).isEqualTo(EventNumber.name(eventNumber));
        if (eventNumber == EventNumber.DTO_COMPLETION_EVENT) {
            assertThat(DtoCompletionStatus.name(event.status())).as(what).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.SUCCESS));
        }
        return event;
    }

    /** One side's memory: the 64 KiB buffer it advertises and the messages. */
    private final class Side {
        final MemorySegment buffer = arena.allocate(BUFFER, 4096);
        final MemorySegment msgs = arena.allocate(4096, 4096);
        final LocalMemoryRegion lmr = ia.registerMemory(buffer, pz, MemPrivileges.ALL);
        final LocalMemoryRegion msgLmr = ia.registerMemory(msgs, pz, MemPrivileges.ALL);
        final Endpoint ep = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        final java.util.Set<Long> completed = new java.util.HashSet<>();

        Side(int role) {
            for (int i = 0; i < CHUNK; i++) {
                buffer.set(ValueLayout.JAVA_BYTE, READ_AT + i, pattern('R', role, i));
            }
            post(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(msgLmr, 16, 16)}, 1, CompletionFlags.DEFAULT), "the triplet receive");
            post(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(msgLmr, 48, 16)}, 2, CompletionFlags.DEFAULT), "the DONE receive");
        }

        private static void post(int rc, String what) {
            assertThat(DatReturn.describe(rc)).as(what).isEqualTo(DatReturn.describe(DatReturn.SUCCESS));
        }

        /** Steps 3 to 5 of the exchange, on the connected Endpoint. */
        void exchange(int role) {
            msgs.set(U64, 0, lmr.registeredAddress());
            msgs.set(U32, 8, lmr.rmrContext());
            msgs.set(U32, 12, BUFFER);
            post(ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(msgLmr, 0, 16)}, 10, CompletionFlags.DEFAULT), "the triplet send");
            awaitCookie(10, "the triplet send");
            awaitCookie(1, "the C peer's triplet");
            RmrTriplet peer = new RmrTriplet(msgs.get(U32, 24), msgs.get(U64, 16), msgs.get(U32, 28));
            for (int i = 0; i < CHUNK; i++) {
                buffer.set(ValueLayout.JAVA_BYTE, LANDING_AT + CHUNK + i, pattern('W', role, i));
            }
            post(ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(lmr, LANDING_AT + CHUNK, CHUNK)}, 11,
                    new RmrTriplet(peer.rmrContext(), peer.targetAddress() + WRITE_AT, CHUNK), CompletionFlags.DEFAULT),
                    "the RDMA write into the peer's buffer");
            awaitCookie(11, "the RDMA write");
            post(ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(lmr, LANDING_AT, CHUNK)}, 12,
                    new RmrTriplet(peer.rmrContext(), peer.targetAddress() + READ_AT, CHUNK), CompletionFlags.DEFAULT),
                    "the RDMA read of the peer's buffer");
            awaitCookie(12, "the RDMA read");
            expectPattern(buffer.asSlice(LANDING_AT, CHUNK), 'R', 3 - role, "the RDMA read of the C peer's advertised buffer");
            msgs.asSlice(32, 4).copyFrom(MemorySegment.ofArray("DONE".getBytes(StandardCharsets.US_ASCII)));
            post(ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(msgLmr, 32, 4)}, 13, CompletionFlags.DEFAULT), "the DONE send");
            awaitCookie(13, "the DONE send");
            awaitCookie(2, "the C peer's DONE");
            assertThat(new String(msgs.asSlice(48, 4).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII)).isEqualTo("DONE");
            expectPattern(buffer.asSlice(WRITE_AT, CHUNK), 'W', 3 - role, "the C peer's RDMA write into the advertised buffer");
        }

        /** Waits for the completion of a cookie; completions of others that come first are remembered. */
        private void awaitCookie(long cookie, String what) {
            while (!completed.contains(cookie)) {
                completed.add(await(dtoEvd, EventNumber.DTO_COMPLETION_EVENT, what).userCookie());
            }
        }
    }

    private static void expectPattern(MemorySegment data, char kind, int role, String what) {
        for (int i = 0; i < data.byteSize(); i++) {
            assertThat(data.get(ValueLayout.JAVA_BYTE, i)).as("%s, byte %d", what, i).isEqualTo(pattern(kind, role, i));
        }
    }

    private static void expectPrefix(byte[] data, byte[] prefix, String what) {
        assertThat(data).as(what).isNotNull().hasSizeGreaterThanOrEqualTo(prefix.length);
        assertThat(Arrays.copyOf(data, prefix.length)).as(what).containsExactly(prefix);
    }

    // ---- the tests -------------------------------------------------------------------------------

    @Test
    void javaClientAgainstTheCServer() throws Exception {
        long qualifier = 110839; // above 65535: both sides map it to rdma_cm port 48370
        Peer server = launch(peerBinary(), "server", C_IA, Long.toString(qualifier));
        server.awaitLine("READY");

        Endpoint first = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        first.connect(address(), qualifier, WAIT, "REJECT-ME".getBytes(StandardCharsets.US_ASCII), 0, 0);
        DatEvent rejected = await(connEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED, "the C server's reject");
        expectPrefix(rejected.privateData(), "NOT-NOW".getBytes(StandardCharsets.US_ASCII),
                "the reject's private data, OFED's version header stripped");

        Side side = new Side(2);
        side.ep.connect(address(), qualifier, WAIT, pattern('P', PDATA), 0, 0);
        DatEvent established = await(connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED");
        expectPrefix(established.privateData(), pattern('Q', PDATA), "the C server's 56 bytes of accept data");
        side.exchange(2);
        side.ep.disconnect(dat.api.CloseFlag.GRACEFUL);
        await(connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED");
        assertThat(server.finish(0)).contains("PASS the first request carries REJECT-ME",
                "PASS the second request's 56 bytes of private data", "PASS the RDMA read of the peer's advertised buffer",
                "PASS the peer's RDMA write into the advertised buffer", "PASS disconnected by the client");
    }

    @Test
    void theCClientAgainstAJavaServer() throws Exception {
        long qualifier = 45311;
        PublicServicePoint psp = ia.createPublicServicePoint(qualifier, crEvd, PspFlag.CONSUMER);
        Peer client = launch(peerBinary(), "client", C_IA, address().getAddress().getHostAddress(), Long.toString(qualifier));

        ConnectionRequest first = await(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the first request").connectionRequest();
        expectPrefix(first.query().privateData(), "REJECT-ME".getBytes(StandardCharsets.US_ASCII),
                "the C client's first private data, as it sent it (no length byte)");
        first.reject();

        Side side = new Side(1);
        ConnectionRequest second = await(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the second request").connectionRequest();
        byte[] request = second.query().privateData();
        assertThat(request).as("the request's whole private-data area").hasSize(PDATA).containsExactly(pattern('P', PDATA));
        second.accept(side.ep, pattern('Q', PDATA));
        await(connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED");
        side.exchange(1);
        await(connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "the C client's disconnect");
        psp.close();
        assertThat(client.finish(0)).contains("PASS PEER_REJECTED", "PASS the accept's 56 bytes of private data",
                "PASS the RDMA read of the peer's advertised buffer", "PASS the peer's RDMA write into the advertised buffer",
                "PASS disconnected");
    }
}
