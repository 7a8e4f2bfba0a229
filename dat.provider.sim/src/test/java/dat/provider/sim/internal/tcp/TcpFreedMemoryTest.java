package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.Dtos.dto;
import static dat.provider.sim.internal.tcp.Dtos.iov;
import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Fabric;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Memory freed under DTOs over TCP: a request sent again, a receive or a read with a freed
 * segment fails LOCAL_PROTECTION as in one JVM, and the connections keep no freed memory
 * reachable.
 */
@Timeout(60)
class TcpFreedMemoryTest extends OnTcpPair {

    @Test
    void aRequestWhoseMemoryIsFreedBeforeItIsSentAgain_completesLOCAL_PROTECTION_andTheConnectionBreaks() throws Exception {
        connect(b.ep);
        // b posts no receive: the send is refused (receiver not ready) and sent again and again,
        // the backoff doubling to 10 ms; its memory is freed meanwhile, and the next transmission
        // finds it gone: as in one JVM, the request completes with a protection error
        LocalMemoryRegion doomed = a.ia.registerMemory(a.mem.asSlice(32_768, 4096), a.pz, MemPrivileges.ALL);
        ok(a.ep.postSend(1, iov(LmrTriplet.of(doomed, 0, 64)), 61, 0));
        Thread.sleep(100);
        doomed.close();
        DatEvent done = dto(a, false);
        assertThat(done.userCookie()).isEqualTo(61);
        assertThat(done.status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_PROTECTION);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /**
     * A connection keeps no view of freed memory: after dat_lmr_free, memory of an automatic arena
     * that moved both ways (written inline, gathered by the writer, read into by the target and
     * out of by a read response) can be reclaimed once the consumer drops it.
     */
    @Test
    void freedMemoryOfAnAutomaticArena_isNotKeptReachableByTheConnections() throws Exception {
        connect(b.ep);
        java.lang.ref.WeakReference<MemorySegment.Scope> scopeA = new java.lang.ref.WeakReference<>(moveBothWays(a, b));
        java.lang.ref.WeakReference<MemorySegment.Scope> scopeB = new java.lang.ref.WeakReference<>(moveBothWays(b, a));
        collectUntilCleared(scopeA, scopeB);
        assertThat(scopeA.get()).as("the initiator's freed memory is reclaimed").isNull();
        assertThat(scopeB.get()).as("the target's freed memory is reclaimed").isNull();
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
    }

    /**
     * A free that finds a role taken (here the write lock, as a writer in the middle of a frame
     * holds it) leaves the views to the holder, which drops them as it lets go: the memory is
     * reclaimed though the connection then goes quiet (no next write would drop them).
     */
    @Test
    void freedMemory_isNotKeptReachable_whenTheFreeFoundTheWriteLockTaken() throws Exception {
        connect(b.ep);
        TcpConnection wire = transport(a).connections().iterator().next();
        java.lang.ref.WeakReference<MemorySegment.Scope> scope = new java.lang.ref.WeakReference<>(writtenFromAndFreed(wire));
        collectUntilCleared(scope);
        assertThat(scope.get()).as("the freed memory is reclaimed").isNull();
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
    }

    /** Runs the garbage collector until every reference is cleared, for 10 s at most (the caller asserts). */
    private static void collectUntilCleared(java.lang.ref.WeakReference<?>... refs) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (java.util.Arrays.stream(refs).anyMatch(r -> r.get() != null) && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
    }

    /** A batch of writes from fresh automatic memory (gathered by the writer), then its LMR freed while a thread holds the write lock. */
    private MemorySegment.Scope writtenFromAndFreed(TcpConnection wire) throws Exception {
        MemorySegment memory = Arena.ofAuto().allocate(64 * 1024);
        LocalMemoryRegion lmr = a.ia.registerMemory(memory, a.pz, MemPrivileges.ALL);
        // posted while the write lock is held, so that no post writes inline and the writer gathers
        // them (once, 20 posts that each found fewer than 4 requests in flight all went inline)
        CountDownLatch posted = new CountDownLatch(1);
        Thread poster = WireHooks.holdingTheWriteLock(wire, posted);
        try {
            for (int i = 0; i < 20; i++) {
                ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(lmr, i * 1000L, 1000)), i, RmrTriplet.of(b.lmr, i * 1000L, 1000), 0));
            }
        } finally {
            posted.countDown();
            poster.join();
        }
        for (int i = 0; i < 20; i++) {
            assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        assertThat(wire.largestBatch()).as("the writer gathered frames (views of the memory)").isGreaterThan(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = WireHooks.holdingTheWriteLock(wire, release);
        lmr.close();
        release.countDown();
        holder.join();
        return memory.scope();
    }

    /**
     * Over an LMR of fresh automatic memory of {@code from}: an inline write, a batch of writes, a
     * write into it and a read out of it by {@code to}; then frees the LMR.
     *
     * @return the memory's scope, which nothing else holds
     */
    private MemorySegment.Scope moveBothWays(Fabric.Side from, Fabric.Side to) throws Exception {
        MemorySegment memory = Arena.ofAuto().allocate(64 * 1024);
        LocalMemoryRegion lmr = from.ia.registerMemory(memory, from.pz, MemPrivileges.ALL);
        for (int i = 0; i < 20; i++) {
            ok(from.ep.postRdmaWrite(1, iov(LmrTriplet.of(lmr, i * 1000L, 1000)), i, RmrTriplet.of(to.lmr, i * 1000L, 1000), 0));
        }
        ok(to.ep.postRdmaWrite(1, iov(LmrTriplet.of(to.lmr, 0, 3000)), 30, RmrTriplet.of(lmr, 40_000, 3000), 0));
        ok(to.ep.postRdmaRead(1, iov(LmrTriplet.of(to.lmr, 8000, 3000)), 31, RmrTriplet.of(lmr, 40_000, 3000), 0));
        for (int i = 0; i < 20; i++) {
            assertThat(dto(from, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        for (int i = 0; i < 2; i++) {
            assertThat(dto(to, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        MemorySegment.Scope scope = memory.scope();
        lmr.close();
        return scope;
    }

    /**
     * A receive one of whose segments' LMR was freed fails LOCAL_PROTECTION, and the send
     * REMOTE_ACCESS, even when the message is too short to reach that segment: as in one JVM,
     * which checks every segment of the receive.
     */
    @Test
    void aReceiveWithAFreedSegment_failsLocalProtection_evenWhereNoByteReachesIt() {
        connect(b.ep);
        LocalMemoryRegion spare = b.ia.registerMemory(fb.memory(64), b.pz, MemPrivileges.ALL);
        ok(b.ep.postRecv(2, iov(LmrTriplet.of(b.lmr, 0, 8), LmrTriplet.of(spare, 0, 64)), 5, 0));
        spare.close();
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 4)), 6, 0));
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_PROTECTION);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
    }

    /**
     * An RDMA read one of whose local segments' LMR was freed fails LOCAL_PROTECTION when its
     * response comes, even where no byte would reach that segment, as in one JVM (which checks
     * every segment of the read), and breaks the connection.
     */
    @Test
    void aReadWithAFreedLocalSegment_failsLocalProtection_evenWhereNoByteReachesIt() {
        connect(b.ep);
        LocalMemoryRegion spare = a.ia.registerMemory(fa.memory(64), a.pz, MemPrivileges.ALL);
        TcpConnection target = transport(b).connections().iterator().next();
        target.output.lock.lock(); // b's output holds the response back until the LMR is freed
        try {
            ok(a.ep.postRdmaRead(2, iov(LmrTriplet.of(a.lmr, 0, 64), LmrTriplet.of(spare, 0, 64)), 7,
                    RmrTriplet.of(b.lmr, 0, 64), 0));
            spare.close();
        } finally {
            target.output.unlock();
        }
        target.kick(); // the connection may be gone already: the response went out at the unlock
        DatEvent r = dto(a, false);
        assertThat(r.userCookie()).isEqualTo(7);
        assertThat(DtoCompletionStatus.name(r.status())).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_LOCAL_PROTECTION));
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
    }
}
