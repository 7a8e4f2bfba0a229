package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Fabric;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A TCP IA under a thousand idle sockets that never send a connection request: each costs a
 * selection key of the IA's one I/O agent, no thread, and the handshake timeout closes it, while
 * a well-behaved peer goes on exchanging verified data through the same agent.
 */
@Timeout(120)
class TcpIdleConnectionsTest {

    private static final int IDLE = 1000;
    /** Longer than opening the thousand sockets takes on a slow machine, so that all are open at once. */
    private static final long TIMEOUT_MS = 8000;

    private final TcpPair pair = new TcpPair("tcp=127.0.0.1:0 tcp_timeout_ms=" + TIMEOUT_MS, "tcpA", "tcpB", 1 << 20);
    private final Fabric.Side a = pair.a;
    private final Fabric.Side b = pair.b;
    private final List<Socket> idle = new ArrayList<>();

    @AfterEach
    void close() throws IOException {
        for (Socket s : idle) {
            s.close();
        }
        pair.close();
    }


    @Test
    void aThousandIdleSockets_costNoThread_andTheHandshakeTimeoutClosesThem_whileAPeerExchangesData() throws Exception {
        b.ia.createPublicServicePoint(5, b.crEvd, PspFlag.CONSUMER);
        a.ep.connect(b.address(), 5, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(b.ep, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        exchange(0, 20); // what the data path needs is loaded and started before the count
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();

        long opened = System.nanoTime();
        InetAddress host = b.address().getAddress();
        int port = b.address().getPort();
        for (int i = 0; i < IDLE; i++) {
            idle.add(new Socket(host, port));
        }
        for (long deadline = System.nanoTime() + 10_000_000_000L;
                transport(b).connections().size() < IDLE + 1 && System.nanoTime() < deadline;) {
            Thread.sleep(5);
        }
        assertThat(transport(b).connections()).as("connections the IA accepted").hasSize(IDLE + 1);
        int threadsWith = ManagementFactory.getThreadMXBean().getThreadCount();
        assertThat(threadsWith - threadsBefore).as("threads added by %d idle sockets", IDLE).isLessThanOrEqualTo(4);

        // the good pair goes on, through the same agent, while the idle sockets wait (at least one
        // exchange however long opening them took on a loaded machine, more until half the timeout)
        int rounds = 0;
        int heldDuringFirst = 0;
        do {
            exchange(++rounds, 20);
            if (rounds == 1) {
                heldDuringFirst = transport(b).connections().size();
            }
        } while ((System.nanoTime() - opened) / 1_000_000 < TIMEOUT_MS / 2);
        assertThat(heldDuringFirst).as("connections held while the pair exchanged").isEqualTo(IDLE + 1);

        // every idle socket is closed by the IA once the timeout passes without its request
        for (Socket s : idle) {
            s.setSoTimeout((int) (TIMEOUT_MS * 5));
            long waited = System.nanoTime();
            int got;
            try {
                got = s.getInputStream().read();
            } catch (SocketTimeoutException stillOpen) {
                got = -2;
            } catch (IOException reset) {
                got = -1;
            }
            assertThat(got).as("an idle socket's read, %d ms after it was waited on", (System.nanoTime() - waited) / 1_000_000)
                    .isEqualTo(-1);
        }
        long closedAfter = (System.nanoTime() - opened) / 1_000_000;
        assertThat(closedAfter).as("ms until every idle socket was closed").isGreaterThanOrEqualTo(TIMEOUT_MS);
        for (long deadline = System.nanoTime() + 5_000_000_000L;
                transport(b).connections().size() > 1 && System.nanoTime() < deadline;) {
            Thread.sleep(5);
        }
        assertThat(transport(b).connections()).as("connections left: the good one").hasSize(1);
        assertThat(transport(b).violations.get()).as("idle sockets closed by the timeout, counted").isEqualTo(IDLE);
        exchange(rounds + 1, 20);
        assertThat(ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore).as("threads added after all")
                .isLessThanOrEqualTo(4);
    }

    /** {@code n} sends from a to b and an RDMA write of random bytes, each verified where it landed. */
    private void exchange(long seed, int n) {
        SplittableRandom random = new SplittableRandom(seed);
        DatEvent got = new DatEvent();
        for (int i = 0; i < n; i++) {
            long value = random.nextLong();
            a.mem.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
            ok(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 4096, 64)}, i, 0));
            ok(a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 8)}, i, 0));
            Fabric.Side.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT, got);
            assertThat(got.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(b.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 4096)).as("send %d of round %d", i, seed).isEqualTo(value);
            assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        for (int i = 0; i < 8192; i += 8) {
            a.mem.set(ValueLayout.JAVA_LONG_UNALIGNED, 8192 + i, random.nextLong());
        }
        ok(a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 8192, 8192)}, 100, RmrTriplet.of(b.lmr, 16384, 8192), 0));
        assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(b.mem.asSlice(16384, 8192).mismatch(a.mem.asSlice(8192, 8192))).as("the write of round %d", seed).isEqualTo(-1);
    }
}
