package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.ThreadLimit;
import dat.provider.sim.internal.core.*;

import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.Qos;
import dat.api.RmrTriplet;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The sim provider across JVMs: a second JVM runs {@link TcpPeerMain}; this one connects to it
 * over TCP, exchanges sends, writes and reads its memory with RDMA, then kills it (SIGKILL) or
 * stops it (SIGSTOP) in the middle of a stream of RDMA writes and checks that every posted DTO is
 * accounted for.
 */
@Timeout(120)
class TcpCrossJvmTest {

    private static final long QUAL = 4711;

    private final Fabric fa = new Fabric(ProviderSettings.defaults().limits(), iaParams());
    private final Fabric.Side a = fa.new Side("tcpL", null, 1 << 20);
    private final List<Process> peers = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (Process p : peers) {
            p.destroyForcibly();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        fa.close();
    }

    /** The {@code ia_params} of both JVMs' IAs. */
    String iaParams() {
        return "tcp=127.0.0.1:0";
    }

    /** Checks the wire a connection just established goes over. */
    void established(Fabric.Side s) {
        assertThat(s.ia.query().iaAttributes().transportAttributes()).containsEntry("tcp.established", "1");
    }

    /** Checks what the connection left behind once it ended. */
    void ended(Fabric.Side s) {
        // a TCP connection leaves nothing this test can see
    }

    /** The peer's port, RMR context and registered address, once it listens. */
    record Peer(Process process, InetSocketAddress address, int rmrContext, long base) {}

    private Peer startPeer() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        // without --add-exports java.base/sun.nio.ch: the peer's readers wait without SO_RCVLOWAT
        // (ReceiveLowWater), as where an embedder does not pass it, while this JVM's use it
        ProcessBuilder pb = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), TcpPeerMain.class.getName(), Long.toString(QUAL), iaParams());
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        peers.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (java.io.IOException e) {
                return null;
            }
        }).get(60, TimeUnit.SECONDS);
        assertThat(line).startsWith("READY ");
        String[] f = line.split(" ");
        return new Peer(p, new InetSocketAddress(InetAddress.getByName("127.0.0.1"), Integer.parseInt(f[1])),
                Integer.parseInt(f[2]), Long.parseLong(f[3]));
    }

    private void connect(Peer peer) {
        a.ep.connect(peer.address(), QUAL, Fabric.WAIT * 4, null, Qos.BEST_EFFORT, 0);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        established(a);
    }

    private DatEvent dto(boolean recv) {
        return a.expect(recv ? a.recvEvd : a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
    }

    @Test
    void sendRecvAndRdmaWithAPeerInAnotherJvm() throws Exception {
        Peer peer = startPeer();
        connect(peer);
        SplittableRandom rnd = new SplittableRandom(3);
        // echo: what we send comes back
        for (int i = 0; i < 50; i++) {
            int len = 1 + rnd.nextInt(4096);
            for (int k = 0; k < len; k++) {
                a.mem.set(java.lang.foreign.ValueLayout.JAVA_BYTE, k, (byte) rnd.nextInt());
            }
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 8192, 4096)}, i, 0));
            ok(a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, len)}, i, 0));
            assertThat(dto(false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            DatEvent r = dto(true);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(r.transferredLength()).isEqualTo(len);
            assertThat(a.mem.asSlice(8192, len).mismatch(a.mem.asSlice(0, len))).isEqualTo(-1);
        }
        // one-sided: write 256 KiB into the peer's memory, read it back into another region
        a.mem.asSlice(0, 256 * 1024).fill((byte) 0x3C);
        for (int k = 0; k < 256 * 1024; k += 4096) {
            a.mem.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, k, k);
        }
        ok(a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 256 * 1024)}, 100,
                new RmrTriplet(peer.rmrContext(), peer.base() + 512 * 1024, 256 * 1024), 0));
        assertThat(dto(false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        ok(a.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 512 * 1024, 256 * 1024)}, 101,
                new RmrTriplet(peer.rmrContext(), peer.base() + 512 * 1024, 256 * 1024), 0));
        DatEvent r = dto(false);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(r.transferredLength()).isEqualTo(256 * 1024);
        assertThat(a.mem.asSlice(512 * 1024, 256 * 1024).mismatch(a.mem.asSlice(0, 256 * 1024))).isEqualTo(-1);
        // out of the peer's bounds: refused over there, REMOTE_ACCESS here, the connection breaks
        ok(a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 16)}, 102,
                new RmrTriplet(peer.rmrContext(), peer.base() + (1 << 20) - 8, 16), 0));
        assertThat(dto(false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(peer.process().waitFor(30, TimeUnit.SECONDS)).as("the peer saw its connection end").isTrue();
        ended(a);
    }

    @Test
    void thePeerKilledMidRdmaWriteStream_everyPostedDtoIsAccountedFor() throws Exception {
        Peer peer = startPeer();
        connect(peer);
        // the kernel closes the killed process's socket at once (a FIN, or an RST for the bytes it
        // left unread): no timeout is involved, the connection breaks within moments
        streamUntilTheConnectionEnds(a, peer, () -> peer.process().destroyForcibly(), 5_000);
        ended(a);
    }

    /**
     * A peer JVM stopped with SIGSTOP neither reads, writes nor closes: only the liveness timeout
     * (here 500 ms) can end the connection, which breaks, and every posted DTO completes.
     */
    @Test
    void thePeerStoppedMidRdmaWriteStream_breaksOnTheLivenessTimeout_everyPostedDtoIsAccountedFor() throws Exception {
        Fabric fs = new Fabric(ProviderSettings.defaults().limits(), iaParams() + " tcp_timeout_ms=500");
        try {
            Fabric.Side s = fs.new Side("tcpS", null, 1 << 20);
            Peer peer = startPeer();
            s.ep.connect(peer.address(), QUAL, Fabric.WAIT * 4, null, Qos.BEST_EFFORT, 0);
            s.expect(s.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            established(s);
            streamUntilTheConnectionEnds(s, peer, () -> {
                try {
                    Process stop = new ProcessBuilder("kill", "-STOP", Long.toString(peer.process().pid())).start();
                    assertThat(stop.waitFor(10, TimeUnit.SECONDS) && stop.exitValue() == 0).as("kill -STOP").isTrue();
                } catch (Exception e) {
                    throw new AssertionError("cannot stop the peer", e);
                }
            }, 10 * 500 + 2_000); // generous against the 500 ms timeout, far below the waits for a completion
            assertThat(peer.process().isAlive()).as("the peer was stopped, not killed").isTrue();
            ended(s);
        } finally {
            fs.close(); // the stopped peer is killed by close() below (SIGKILL ends a stopped process too)
        }
    }

    /**
     * Keeps the Endpoint's queue full of 64 KiB RDMA writes into the peer, each with its posting
     * index as cookie; after 50 succeeded, applies the fault; goes on until the Endpoint is
     * disconnected. Checks that the connection then broke (a peer killed or stopped sends no
     * DISCONNECT) within {@code boundMs} of the fault, and that every posted DTO completed exactly
     * once, in posting order, as a success or flushed (no other status, and no success after a
     * flushed one), and so did the posted receive, flushed.
     */
    private static void streamUntilTheConnectionEnds(Fabric.Side s, Peer peer, Runnable fault, long boundMs) {
        ok(s.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(s.lmr, 0, 4096)}, -1, 0));
        int posted = 0;
        Completions done = new Completions();
        long faultedAt = 0;
        DatEvent e = s.event;
        while (true) {
            int rc = DatReturn.SUCCESS;
            // requests outstanding plus completions not yet dequeued stay within the request EVD: the
            // flush at the break completes every outstanding one at once, and more than the EVD holds
            // would overflow it (dat_evd_create(3DAT): the consumer sizes the EVD for what it posts)
            while (posted - done.next < Fabric.DTO_EVD_ENTRIES
                    && (rc = s.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(s.lmr, 65536, 65536)}, posted,
                            new RmrTriplet(peer.rmrContext(), peer.base() + (posted % 8) * 65536L, 65536), 0)) == DatReturn.SUCCESS) {
                posted++;
            }
            if (DatReturn.typeOf(rc) == DatReturn.INVALID_STATE) {
                break; // DISCONNECTED: nothing more can be posted
            }
            if (rc != DatReturn.SUCCESS) {
                assertThat(DatReturn.typeOf(rc)).isEqualTo(DatReturn.INSUFFICIENT_RESOURCES);
            }
            if (s.reqEvd.await(Fabric.WAIT * 4, 1, e) != DatReturn.SUCCESS) {
                throw new AssertionError("no completion in time: posted " + posted + ", completed " + done.next);
            }
            done.take(e);
            if (faultedAt == 0 && done.succeeded >= 50) {
                fault.run();
                faultedAt = System.nanoTime();
            }
            if (s.ep.getStatus().state() == EpState.DISCONNECTED) {
                break;
            }
        }
        assertThat(faultedAt).as("the fault was applied").isNotZero();
        // the connection ends with an event, and the rest of the requests complete
        DatEvent c = s.next(s.connEvd);
        long brokenAfterMs = (System.nanoTime() - faultedAt) / 1_000_000;
        assertThat(EventNumber.name(c.eventNumber())).as("no DISCONNECT came: the connection broke")
                .isEqualTo(EventNumber.name(EventNumber.CONNECTION_EVENT_BROKEN));
        assertThat(brokenAfterMs).as("ms from the fault to the connection event").isLessThan(boundMs);
        assertThat(s.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        while (done.next < posted) {
            assertThat(s.reqEvd.await(Fabric.WAIT, 1, e)).as("completion of cookie %d of %d", done.next, posted)
                    .isEqualTo(DatReturn.SUCCESS);
            done.take(e);
        }
        assertThat(s.reqEvd.dequeue(e)).as("no completion beyond the posted ones").isNotZero();
        assertThat(done.succeeded + done.flushed).isEqualTo(posted);
        assertThat(done.flushed).as("flushed completions").isPositive();
        assertThat(s.expect(s.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    /** The request completions, checked as they come: each cookie once, in posting order. */
    private static final class Completions {
        int next;
        int succeeded;
        int flushed;

        void take(DatEvent e) {
            assertThat(e.eventNumber()).isEqualTo(EventNumber.DTO_COMPLETION_EVENT);
            assertThat(e.userCookie()).as("the cookie of the next completion (posting order, each once)").isEqualTo(next);
            int st = e.status();
            assertThat(st).as("status of cookie %d", next).isIn(DtoCompletionStatus.SUCCESS, DtoCompletionStatus.ERR_FLUSHED);
            if (st == DtoCompletionStatus.SUCCESS) {
                assertThat(flushed).as("a success after a flushed request (cookie %d)", next).isZero();
                succeeded++;
            } else {
                flushed++;
            }
            next++;
        }
    }
}
