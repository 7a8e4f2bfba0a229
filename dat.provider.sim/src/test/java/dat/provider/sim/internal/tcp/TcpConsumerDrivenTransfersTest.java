package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.DrivenWaits.awaitDriving;
import static dat.provider.sim.internal.tcp.DrivenWaits.connectLarge;
import static dat.provider.sim.internal.tcp.Dtos.drain;
import static dat.provider.sim.internal.tcp.Dtos.dto;
import static dat.provider.sim.internal.tcp.Dtos.fill;
import static dat.provider.sim.internal.tcp.Dtos.iov;
import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.PingPongAllocation;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transfers carried by the waits of their consumers, each reading its connection itself from
 * dat_evd_wait: ping-pongs, which allocate nothing on the consumer's thread, and large writes and
 * reads both ways at once, every byte arriving.
 */
@Timeout(60)
class TcpConsumerDrivenTransfersTest extends OnTcpPair {

    @Test
    void inAPingPong_theWaitingConsumersReadTheirConnectionThemselves() {
        connect(b.ep);
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 0, 0));
        Thread echo = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 500; i++) {
                ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 64 * ((i + 1) % 2), 64)), 0, 0));
                DatEvent got = dto(b, true);
                assertThat(got.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                ok(b.ep.postSend(1, iov(LmrTriplet.of(b.lmr, 64 * (i % 2), got.transferredLength())), i, 0));
                drain(b.reqEvd);
            }
        });
        ok(a.ep.postRecv(1, iov(LmrTriplet.of(a.lmr, 4096, 64)), 0, 0));
        for (int i = 0; i < 500; i++) {
            a.mem.set(ValueLayout.JAVA_INT, 0, i);
            ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), i, 0));
            assertThat(dto(a, true).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(a.mem.get(ValueLayout.JAVA_INT, 4096)).as("the reply to ping %d", i).isEqualTo(i);
            ok(a.ep.postRecv(1, iov(LmrTriplet.of(a.lmr, 4096, 64)), 0, 0));
            drain(a.reqEvd);
        }
        assertThat(transport(a).framesReadByConsumers()).as("frames a's waiting consumer read").isPositive();
        assertThat(transport(b).framesReadByConsumers()).as("frames b's waiting consumer read").isPositive();
    }

    /**
     * A thread that waits on {@code s}'s request EVD for {@code count} successful completions,
     * returned once it reads the connection; its outcome (a failed wait, a failed completion)
     * comes with {@link java.util.concurrent.FutureTask#get}.
     */
    private static java.util.concurrent.FutureTask<Void> waitingConsumer(Fabric.Side s, int count) throws InterruptedException {
        java.util.concurrent.FutureTask<Void> waits = new java.util.concurrent.FutureTask<>(() -> {
            DatEvent e = new DatEvent();
            for (int i = 0; i < count; i++) {
                succeeded(s.reqEvd.await(Fabric.WAIT, 1, e));
                assertThat(e.status()).as("completion %d of %s", i, s.ia).isEqualTo(DtoCompletionStatus.SUCCESS);
            }
            return null;
        });
        Thread.ofPlatform().name("waiter-" + s.ia).start(waits);
        awaitDriving(s.reqEvd, () -> !waits.isDone());
        return waits;
    }

    @Test
    void largeWritesAndReadsBothWays_whileBothConsumersWait_arriveIntact() throws Exception {
        // RDMA writes over the inline limit (the writer thread's), read requests written inline
        // by the posting thread and RDMA read responses, both ways at once, while each consumer
        // reads its connection from dat_evd_wait: each frame goes between two others, never into
        // one, and every byte arrives
        int chunk = 256 * 1024;
        int chunks = 8;
        long quarter = (long) chunk * chunks;
        // each side's memory: [0] what it writes, [1] what the peer writes, [2] what the peer reads, [3] what it reads
        Fabric.Side x = fa.new Side("tcpX", null, 4 * quarter);
        Fabric.Side y = fb.new Side("tcpY", null, 4 * quarter);
        connectLarge(x, y);
        for (Fabric.Side s : new Fabric.Side[] {x, y}) {
            fill(s.mem, 0, (int) quarter, s == x ? 11 : 21);
            fill(s.mem, 2 * quarter, (int) quarter, s == x ? 12 : 22);
        }
        var xWaits = waitingConsumer(x, 2 * chunks);
        var yWaits = waitingConsumer(y, 2 * chunks);
        for (int i = 0; i < chunks; i++) {
            long at = (long) i * chunk;
            for (Fabric.Side[] pair : new Fabric.Side[][] {{x, y}, {y, x}}) {
                Fabric.Side s = pair[0];
                Fabric.Side peer = pair[1];
                ok(s.ep.postRdmaWrite(1, iov(LmrTriplet.of(s.lmr, at, chunk)), i, RmrTriplet.of(peer.lmr, quarter + at, chunk), 0));
                ok(s.ep.postRdmaRead(1, iov(LmrTriplet.of(s.lmr, 3 * quarter + at, chunk)), 100 + i,
                        RmrTriplet.of(peer.lmr, 2 * quarter + at, chunk), 0));
            }
        }
        xWaits.get(30, java.util.concurrent.TimeUnit.SECONDS); // a failed wait or completion fails the test here
        yWaits.get(30, java.util.concurrent.TimeUnit.SECONDS);
        for (Fabric.Side[] pair : new Fabric.Side[][] {{x, y}, {y, x}}) {
            Fabric.Side s = pair[0];
            Fabric.Side peer = pair[1];
            assertThat(peer.mem.asSlice(quarter, quarter).mismatch(s.mem.asSlice(0, quarter))).as("%s's writes", s.ia).isEqualTo(-1);
            assertThat(s.mem.asSlice(3 * quarter, quarter).mismatch(peer.mem.asSlice(2 * quarter, quarter))).as("what %s read", s.ia)
                    .isEqualTo(-1);
            assertThat(s.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
    }

    @Test
    void crossingWrites_eachLargerThanTheSocketsHold_completeWhileBothConsumersWait() throws Exception {
        // each side's frame is more than the sockets hold, and each consumer reads its connection
        // while the other side's frame arrives: whoever waits for the rest of a frame must not be
        // what the peer waits for to send it (a design where a reading consumer also had to
        // write its own frame, and only between frames, deadlocked here)
        long size = 64L << 20; // more than a loopback socket's send and receive buffers hold (4 + 32 MiB here)
        Fabric.Side x = fa.new Side("tcpX", null, 2 * size);
        Fabric.Side y = fb.new Side("tcpY", null, 2 * size);
        connectLarge(x, y);
        for (Fabric.Side s : new Fabric.Side[] {x, y}) {
            long seed = s == x ? 0x9E3779B97F4A7C15L : 0xC2B2AE3D27D4EB4FL;
            for (long i = 0; i < size; i += 8) {
                s.mem.set(ValueLayout.JAVA_LONG_UNALIGNED, i, (i + 1) * seed);
            }
        }
        var xWaits = waitingConsumer(x, 1);
        var yWaits = waitingConsumer(y, 1);
        ok(x.ep.postRdmaWrite(1, iov(LmrTriplet.of(x.lmr, 0, size)), 1, RmrTriplet.of(y.lmr, size, size), 0));
        ok(y.ep.postRdmaWrite(1, iov(LmrTriplet.of(y.lmr, 0, size)), 1, RmrTriplet.of(x.lmr, size, size), 0));
        xWaits.get(30, java.util.concurrent.TimeUnit.SECONDS); // a failed wait or completion fails the test here
        yWaits.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(y.mem.asSlice(size, size).mismatch(x.mem.asSlice(0, size))).as("x's write in y").isEqualTo(-1);
        assertThat(x.mem.asSlice(size, size).mismatch(y.mem.asSlice(0, size))).as("y's write in x").isEqualTo(-1);
    }

    @Test
    void aPingPongOverTcp_allocatesNothingOnTheConsumerThread() throws Exception {
        // the consumer posts (its small send written inline), waits (reading the connection
        // itself) and reposts: none of it may allocate, as in one JVM (DESIGN: the data path)
        connect(b.ep);
        LmrTriplet[] ping = {LmrTriplet.of(a.lmr, 0, 64)};
        LmrTriplet[] reply = {LmrTriplet.of(a.lmr, 4096, 64)};
        assertPingPongAllocatesNothing(new LmrTriplet[][] {ping}, new LmrTriplet[][] {reply});
    }

    /**
     * As {@link #aPingPongOverTcp_allocatesNothingOnTheConsumerThread}, with the consumer's
     * messages and replies in turn in two LMRs each: the connection keeps the views of the last
     * few segments it moved bytes of. With one view per role, each change of LMR made a new one.
     */
    @Test
    void aPingPongWhoseBuffersAlternateBetweenLmrs_allocatesNothingOnTheConsumerThread() throws Exception {
        connect(b.ep);
        LocalMemoryRegion second = a.ia.registerMemory(fa.memory(8192), a.pz, MemPrivileges.ALL);
        LmrTriplet[][] pings = {{LmrTriplet.of(a.lmr, 0, 64)}, {LmrTriplet.of(second, 0, 64)}};
        LmrTriplet[][] replies = {{LmrTriplet.of(second, 4096, 64)}, {LmrTriplet.of(a.lmr, 4096, 64)}};
        assertPingPongAllocatesNothing(pings, replies);
    }

    /** a pings b (an echo) 1000 times a round, message i from pings[i % n], its reply into replies[i % n]. */
    private void assertPingPongAllocatesNothing(LmrTriplet[][] pings, LmrTriplet[][] replies) throws Exception {
        PingPongAllocation.Result allocated = PingPongAllocation.measure(a, b, pings, replies);
        assertThat(transport(a).framesReadByConsumers()).as("frames the consumer read itself").isPositive();
        // one object per round trip would be 16 KB at least; what is left is the JIT settling
        assertThat(allocated.best()).as("bytes allocated by 1000 round trips in the best round of: " + allocated.rounds()).isLessThan(1024);
    }

    /** A return code check that allocates nothing unless it fails. */
    private static void succeeded(int rc) {
        if (rc != dat.api.DatReturn.SUCCESS) {
            throw new AssertionError(dat.api.DatReturn.describe(rc));
        }
    }
}
