package dat.provider.sim.internal.shm;

import static dat.provider.sim.internal.Codes.isType;
import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.Codes.throwsType;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.api.RmrTriplet;
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import dat.provider.sim.internal.EvdWaiter;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.PingPongAllocation;
import dat.provider.sim.internal.core.ProviderSettings;
import dat.provider.sim.internal.core.SimEndpoint;
import dat.provider.sim.internal.core.SpinLock;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DAT semantics over the shared-memory wire, between two TCP IAs of two providers ({@code shm=on}):
 * the target side's checks refuse a request with the completion status dat_ep_post_rdma_write(3DAT),
 * dat_ep_post_rdma_read(3DAT) and dat_ep_post_send(3DAT) name, the connection then breaks and flushes
 * what is behind, and a connection that ended leaves no mapping of its ring file in the process.
 */
@Timeout(60)
class ShmDtoTest {

    private static final String SHM = "tcp=127.0.0.1:0 shm=on";
    private final Fabric fa = new Fabric(ProviderSettings.defaults().limits(), SHM);
    private final Fabric fb = new Fabric(ProviderSettings.defaults().limits(), SHM);
    /** Each side's registered memory. */
    private static final int SIZE = 1 << 20;
    private final Fabric.Side a = fa.new Side("shmA", null, SIZE);
    private final Fabric.Side b = fb.new Side("shmB", null, SIZE);

    @AfterEach
    void close() {
        Fabric.closeAll(fa, fb);
    }

    private void connect() {
        connectOverSharedMemory(a, b);
        assertThat(RingFiles.mapped()).as("the connection's ring file is mapped").isNotEmpty();
    }

    /** Side b listens, side a connects: both ESTABLISHED, over shared memory (the transport says so). */
    static void connectOverSharedMemory(Fabric.Side a, Fabric.Side b) {
        b.ia.createPublicServicePoint(100, b.crEvd, PspFlag.CONSUMER);
        a.ep.connect(b.address(), 100, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(b.ep, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(a.ia.query().iaAttributes().transportAttributes()).containsEntry("shm.established", "1");
        assertThat(b.ia.query().iaAttributes().transportAttributes()).containsEntry("shm.established", "1");
    }

    private static LmrTriplet[] iov(LmrTriplet... t) {
        return t;
    }

    private static DatEvent dto(Fabric.Side s, boolean recv) {
        return s.expect(recv ? s.recvEvd : s.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
    }

    private static void fill(MemorySegment m, long off, int len, int seed) {
        for (int i = 0; i < len; i++) {
            m.set(ValueLayout.JAVA_BYTE, off + i, (byte) (seed + i * 31));
        }
    }

    /** The broken connection ends on both sides, and neither keeps its ring file mapped. */
    private void bothBroken() {
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        RingFiles.assertNoneMapped();
    }

    @Test
    void sendGathersAndScatters_zeroLengthToo() {
        connect();
        fill(a.mem, 0, 10, 1);
        fill(a.mem, 100, 25, 2);
        fill(a.mem, 200, 5, 3);
        ok(b.ep.postRecv(3, iov(LmrTriplet.of(b.lmr, 1000, 12), LmrTriplet.of(b.lmr, 2000, 12), LmrTriplet.of(b.lmr, 3000, 100)), 1, 0));
        ok(a.ep.postSend(3, iov(LmrTriplet.of(a.lmr, 0, 10), LmrTriplet.of(a.lmr, 100, 25), LmrTriplet.of(a.lmr, 200, 5)), 2, 0));
        DatEvent r = dto(b, true);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(r.transferredLength()).isEqualTo(40);
        Fabric.assertGatheredAndScattered(a, b);
        assertThat(dto(a, false).transferredLength()).isEqualTo(40);
        ok(b.ep.postRecv(0, null, 3, 0));
        ok(a.ep.postSend(0, null, 4, 0));
        assertThat(dto(b, true).transferredLength()).isZero();
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
    }

    /**
     * A write with immediate data carries its SOLICITED_WAIT flag across the ring (the record's
     * SOLICITED flag): on a receive stream configured so, an unsolicited write's receive leaves a
     * waiter waiting and the solicited one's ends the wait, which returns the first queued.
     */
    @Test
    void aSolicitedWriteWithImmediateData_endsAWaitOnASolicitedWaitStream_anUnsolicitedOneDoesNot() throws Exception {
        solicitedWritesWithImmediateData(64);
    }

    /** The same with writes of 256 KiB, which cross the ring in fragments: the flag is the first record's. */
    @Test
    void aSolicitedWriteWithImmediateDataInFragments_endsTheWaitToo() throws Exception {
        solicitedWritesWithImmediateData(256 << 10);
    }

    private void solicitedWritesWithImmediateData(int bytes) throws Exception {
        b.ep.close(); // dat_ep_create(3DAT): every receive stream of b's EVD must have SOLICITED_WAIT too
        Endpoint solicited = b.ia.createEndpoint(b.pz, b.recvEvd, b.reqEvd, b.connEvd,
                EpAttributes.builder().recvCompletionFlags(CompletionFlags.SOLICITED_WAIT).build());
        b.ia.createPublicServicePoint(100, b.crEvd, PspFlag.CONSUMER);
        a.ep.connect(b.address(), 100, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(solicited, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(a.ia.query().iaAttributes().transportAttributes()).containsEntry("shm.established", "1");
        ImmediateDataEndpoint immediate = a.ep.extension(ImmediateDataEndpoint.class).orElseThrow();
        ok(solicited.postRecv(0, null, 11, 0));
        ok(solicited.postRecv(0, null, 12, 0));
        DatEvent got;
        // the write must find the waiter waiting: a wait takes an event queued before it began
        try (EvdWaiter waiter = EvdWaiter.waitingOn(b.recvEvd)) {
            ok(immediate.postRdmaWriteImmediate(1, iov(LmrTriplet.of(a.lmr, 0, bytes)), 1, RmrTriplet.of(b.lmr, 0, bytes), 100, 0));
            assertThat(a.expect(a.reqEvd, IbExtension.IB_DTO_EVENT).userCookie()).isEqualTo(1);
            Thread.sleep(100);
            assertThat(waiter.waiting()).as("the wait goes on after an unsolicited write's receive").isTrue();
            ok(immediate.postRdmaWriteImmediate(1, iov(LmrTriplet.of(a.lmr, bytes, bytes)), 2, RmrTriplet.of(b.lmr, bytes, bytes), 101,
                    CompletionFlags.SOLICITED_WAIT));
            ok(waiter.endsWithin(10_000));
            got = waiter.event;
        }
        assertThat(got.userCookie()).isEqualTo(11);
        assertThat(got.immediateData()).isEqualTo(100);
        ok(b.recvEvd.dequeue(got));
        assertThat(got.userCookie()).isEqualTo(12);
        assertThat(got.immediateData()).isEqualTo(101);
        assertThat(got.transferredLength()).isEqualTo(bytes);
        assertThat(a.expect(a.reqEvd, IbExtension.IB_DTO_EVENT).userCookie()).isEqualTo(2);
    }

    /** Sends into posted receives, a 512 KiB RDMA write and read back: every byte lands, over the ring alone. */
    @Test
    void sendsAndALargeWriteAndRead_landEveryByte_overTheRingAlone() {
        connect();
        assertThat(a.ia.query().iaAttributes().transportAttributes()).containsEntry("shm", "on").containsEntry("tcp.established", "0");
        for (int i = 0; i < 100; i++) {
            a.mem.set(ValueLayout.JAVA_INT, 0, i);
            ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 4096, 4096)), i, 0));
            ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 64)), i, 0));
            DatEvent e = dto(b, true);
            assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(e.transferredLength()).isEqualTo(64);
            assertThat(b.mem.get(ValueLayout.JAVA_INT, 4096)).isEqualTo(i);
            assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        int half = SIZE / 2;
        for (int k = 0; k < half; k += 4) {
            a.mem.set(ValueLayout.JAVA_INT, k, k);
        }
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, half)), 7, RmrTriplet.of(b.lmr, half, half), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(b.mem.asSlice(half, half).mismatch(a.mem.asSlice(0, half))).isEqualTo(-1);
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, half, half)), 8, RmrTriplet.of(b.lmr, half, half), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(a.mem.asSlice(half, half).mismatch(a.mem.asSlice(0, half))).isEqualTo(-1);
        for (Fabric.Side s : new Fabric.Side[] {a, b}) {
            assertThat(s.ia.query().iaAttributes().transportAttributes()).as(s.ia.query().iaAttributes().adapterName())
                    .containsEntry("shm.established", "1").containsEntry("shm.connections", "1").containsEntry("tcp.established", "0");
        }
    }

    @Test
    void aSendBeforeAReceiveWaitsForIt_inOrderWithLaterRequests() {
        connect();
        Fabric.assertASendWaitsForItsReceive_inOrderWithLaterRequests(a, b);
    }

    @Test
    void aMessageLargerThanTheReceive_LOCAL_LENGTH_there_REMOTE_RESPONDER_here_andBothBreak() {
        connect();
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 4)), 1, 0));
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 4)), 2, 0));
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 3, 0));
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_LENGTH);
        assertThat(dto(b, true).status()).as("the connection broke: the rest is flushed").isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_RESPONDER);
        bothBroken();
    }

    @Test
    void rdmaWriteOutsideTheRegion_REMOTE_ACCESS_touchesNothing_andFlushesBothSides() {
        connect();
        fill(a.mem, 0, 16, 3);
        ok(b.ep.postRecv(0, null, 9, 0));
        ok(a.ep.postRecv(0, null, 10, 0));
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 16)), 1, RmrTriplet.of(b.lmr, SIZE - 8, 16), 0));
        ok(a.ep.postSend(0, null, 2, 0));
        Fabric.assertRefusedThenFlushed(a);
        assertThat(dto(a, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        bothBroken();
        assertThat(b.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, SIZE - 8)).isZero();
    }

    @Test
    void rdmaReadOutsideTheRegion_REMOTE_ACCESS_andNothingArrives() {
        connect();
        fill(b.mem, SIZE - 64, 64, 9);
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 128)), 1, RmrTriplet.of(b.lmr, SIZE - 64, 128), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        bothBroken();
        assertThat(a.mem.asSlice(0, 128).mismatch(MemorySegment.ofArray(new byte[128]))).isEqualTo(-1);
    }

    @Test
    void rdmaWithAForgedContext_REMOTE_ACCESS() {
        connect();
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1,
                new RmrTriplet(b.lmr.rmrContext() ^ 1, b.lmr.registeredAddress(), 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        bothBroken();
    }

    @Test
    void rdmaWriteWithoutTheRemoteWritePrivilege_REMOTE_ACCESS_whileAReadSucceeds() {
        grantedThenRefused(MemPrivileges.REMOTE_READ, true);
    }

    @Test
    void rdmaReadWithoutTheRemoteReadPrivilege_REMOTE_ACCESS() {
        grantedThenRefused(MemPrivileges.REMOTE_WRITE, false);
    }

    /**
     * b's region grants one remote privilege: a's operation that needs it succeeds, the other one
     * (a write where {@code writeRefused}, else a read) is refused and both sides break.
     */
    private void grantedThenRefused(int remotePrivilege, boolean writeRefused) {
        LocalMemoryRegion region = b.ia.registerMemory(fb.memory(64), b.pz,
                MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE | remotePrivilege);
        connect();
        LmrTriplet[] local = iov(LmrTriplet.of(a.lmr, 0, 8));
        RmrTriplet remote = RmrTriplet.of(region, 0, 8);
        ok(writeRefused ? a.ep.postRdmaRead(1, local, 1, remote, 0) : a.ep.postRdmaWrite(1, local, 1, remote, 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        ok(writeRefused ? a.ep.postRdmaWrite(1, local, 2, remote, 0) : a.ep.postRdmaRead(1, local, 2, remote, 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        bothBroken();
    }

    @Test
    void rdmaIntoAnLmrOfAnotherPz_REMOTE_ACCESS() {
        LocalMemoryRegion elsewhere = b.ia.registerMemory(fb.memory(64), b.ia.createProtectionZone(), MemPrivileges.ALL);
        connect();
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, RmrTriplet.of(elsewhere, 0, 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        bothBroken();
    }

    @Test
    void rdmaIntoAFreedLmr_REMOTE_ACCESS() {
        LocalMemoryRegion gone = b.ia.registerMemory(fb.memory(64), b.pz, MemPrivileges.ALL);
        RmrTriplet remote = RmrTriplet.of(gone, 0, 8);
        connect();
        gone.close();
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, remote, 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        bothBroken();
    }

    /**
     * dat_lmr_free(3DAT) over shared memory returns only once the copy in progress is over: every
     * copy runs with its Endpoint's lock held, and the free, once it marked the LMR freed, takes
     * that lock once. Here the test's thread holds the lock, as a copy would: the free waits for
     * it, and the send that lands in the freed LMR afterwards is refused (LOCAL_PROTECTION at the
     * receiver, REMOTE_ACCESS at the sender, as in one JVM).
     */
    @Test
    void dat_lmr_free_waitsOutTheCopyInProgress_andTheCopyAfterItIsRefused() throws Exception {
        connect();
        LocalMemoryRegion landing = b.ia.registerMemory(fb.memory(64), b.pz, MemPrivileges.ALL);
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(landing, 0, 64)), 1, 0));
        SpinLock copying = ((SimEndpoint) b.ep).acquire(); // as a copy holds it
        assertWaitsWhileHeld(copying, landing::close, "dat_lmr_free");
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, 0));
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_PROTECTION);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        bothBroken();
    }

    /**
     * Runs {@code call} on a thread of its own while the test's thread holds {@code held}: the call
     * must wait for the lock, and end once the lock is let go (here).
     */
    private static void assertWaitsWhileHeld(SpinLock held, Runnable call, String what) throws InterruptedException {
        Thread t = new Thread(call, what);
        try {
            t.start();
            t.join(200);
            assertThat(t.isAlive()).as(what + ", while the Endpoint's lock is held").isTrue();
        } finally {
            held.unlock();
        }
        t.join(10_000);
        assertThat(t.isAlive()).as(what + ", once the lock was let go").isFalse();
    }

    /**
     * A poll that finds the Endpoint's lock held by a post, not by another poller's round, waits
     * for the post and then handles what came: an I/O agent about to sleep with its doorbells
     * armed must not leave behind a record published before them.
     */
    @Test
    void aPollThatFindsAPostHoldingTheLock_waitsForIt_andTheRecordIsHandled() throws Exception {
        // the lock held as a post of b's holds it
        assertWaitsBehindTheLock_andTheRecordIsHandled(session -> ((SimEndpoint) b.ep).acquire(), session -> session.poll(false), "the poll");
    }

    /**
     * With a receive posted on b and the lock of b's Endpoint taken by {@code hold}, a's send puts
     * its record on b's ring; {@code poll} must wait while the lock is held, and the record must
     * then be delivered.
     */
    private void assertWaitsBehindTheLock_andTheRecordIsHandled(Function<ShmSession, SpinLock> hold, Consumer<ShmSession> poll,
            String what) throws InterruptedException {
        connect();
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 1, 0));
        ShmSession session = ((ShmWire) ((SimEndpoint) b.ep).wire()).session;
        SpinLock held = hold.apply(session);
        try {
            ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, 0)); // its record is on b's ring when this returns
        } catch (RuntimeException | Error e) {
            held.unlock();
            throw e;
        }
        assertWaitsWhileHeld(held, () -> poll.accept(session), what);
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
    }

    /**
     * The I/O agent's last look before it sleeps with its doorbells armed ({@code ShmPoller.arm})
     * waits out another poller's round, then handles the record published meanwhile: that round
     * may have passed it, and a consumer's poller need not poll again, so the record would wait
     * for the agent's next period.
     */
    @Test
    void theLastLookBeforeSleeping_waitsOutAnotherPollersRound_andTheRecordIsHandled() throws Exception {
        assertWaitsBehindTheLock_andTheRecordIsHandled(ShmSession::holdAsARoundForTest, session -> session.poll(true, true), "the last look");
    }

    /**
     * The ring file stays mapped for the next connection between the two IAs, with the socket that
     * idles for it; the IA's close unmaps it on both sides.
     */
    @Test
    void aDisconnectFlushesEveryPostedDto_andTheRingFileStaysOnlyForTheNextConnection() {
        connect();
        java.util.Set<String> file = RingFiles.files();
        ok(a.ep.postRecv(0, null, 1, 0));
        ok(b.ep.postRecv(0, null, 3, 0));
        a.ep.disconnect(CloseFlag.ABRUPT);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(dto(a, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThat(RingFiles.files()).as("kept for the next connection").isEqualTo(file);
        a.ia.close(); // its idle socket closes, and the peer closes its end
        RingFiles.assertNoneMapped();
    }

    /**
     * The receiver lands small sends and then does nothing more but disconnect: their
     * acknowledgement, which waits for the receiver's next requests or round, still reaches the
     * sender, whose sends complete successfully rather than flushed.
     */
    @Test
    void sendsTheReceiverFollowsWithNothingButADisconnect_completeSuccessfully() {
        connect();
        for (int i = 0; i < 3; i++) {
            ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 64 * i, 64)), i, 0));
            ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), i, 0));
            assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        b.ep.disconnect(CloseFlag.ABRUPT);
        for (int i = 0; i < 3; i++) {
            DatEvent e = dto(a, false);
            assertThat(e.status()).as("send " + i).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(e.userCookie()).isEqualTo(i);
        }
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(RingFiles.files()).as("the connection's file, kept with the idle socket for the next").hasSize(1);
    }

    /**
     * As over TCP (TcpConsumerDrivenTransfersTest): a consumer's ping-pong over the ring, posting, waiting and
     * reposting, allocates nothing on its thread (DESIGN: the data path); the best of up to eight
     * rounds of 1000 round trips, as the JIT may still settle in the first.
     */
    @Test
    void aPingPongOverSharedMemory_allocatesNothingOnTheConsumerThread() throws Exception {
        connect();
        LmrTriplet[] ping = {LmrTriplet.of(a.lmr, 0, 64)};
        LmrTriplet[] reply = {LmrTriplet.of(a.lmr, 4096, 64)};
        PingPongAllocation.Result allocated = PingPongAllocation.measure(a, b, new LmrTriplet[][] {ping}, new LmrTriplet[][] {reply});
        assertThat(a.ia.query().iaAttributes().transportAttributes()).containsEntry("shm.connections", "1")
                .containsEntry("tcp.established", "0");
        // one object per round trip would be 16 KB at least; what is left is the JIT settling
        assertThat(allocated.best()).as("bytes allocated by 1000 round trips in the best round of: " + allocated.rounds()).isLessThan(1024);
    }

    /**
     * The hot swap of a provider with a connection over shared memory, as in one JVM
     * (SrqHotSwapTest) and over TCP (TcpConnectionTest): its IA fails with the catastrophic
     * asynchronous event, its posted DTOs flush, its handles then answer DAT_INVALID_HANDLE; the
     * peer's connection ends and flushes; neither side keeps the ring file mapped.
     */
    @Test
    void theHotSwapWithAConnectionOverSharedMemory_failsTheIaCatastrophically_flushes_andUnmapsTheRing() {
        connect();
        ok(a.ep.postRecv(0, null, 11, 0));
        ok(a.ep.postSend(0, null, 12, 0)); // b posts no receive: the send waits for one
        EventDispatcher async = a.ia.query().asyncEvd();
        assertThat(fa.factory.shutdown()).as("the provider thread ends").isTrue();
        ok(async.dequeue(a.event));
        assertThat(a.event.eventNumber()).isEqualTo(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC);
        assertThat(a.event.asyncHandle()).isSameAs(a.ia);
        ok(a.recvEvd.dequeue(a.event));
        assertThat(a.event.userCookie()).isEqualTo(11);
        assertThat(a.event.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        ok(a.reqEvd.dequeue(a.event));
        assertThat(a.event.userCookie()).isEqualTo(12);
        assertThat(a.event.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        isType(a.reqEvd.dequeue(a.event), DatReturn.INVALID_HANDLE);
        isType(a.ep.postSend(0, null, 1, 0), DatReturn.INVALID_HANDLE);
        throwsType(a.ia::query, DatReturn.INVALID_HANDLE);
        assertThat(a.ia.isOpen()).isFalse();
        // the peer: its connection ends
        DatEvent end = b.next(b.connEvd);
        assertThat(EventNumber.name(end.eventNumber())).isIn(EventNumber.name(EventNumber.CONNECTION_EVENT_BROKEN),
                EventNumber.name(EventNumber.CONNECTION_EVENT_DISCONNECTED));
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        RingFiles.assertNoneMapped();
        assertThat(b.ia.query().iaAttributes().transportAttributes()).containsEntry("shm.connections", "0");
        a.ia.close(); // releases what is left, never throws
    }
}
