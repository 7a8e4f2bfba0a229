package dat.provider.sim.internal.core;

import dat.provider.sim.internal.Fabric;

import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.Qos;
import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The locks of a connection in one JVM: each Endpoint keeps its own, a sender takes the peer's
 * receives under its own lock only, and whatever ends the connection (a disconnect, a break the
 * data path finds) coordinates with a sender that holds only its own lock: every posted DTO
 * completes exactly once, and each side sees one connection event.
 */
@Timeout(120)
class LocalConnectionLocksTest {

    private static final int ROUNDS = 150;
    private static final int DTOS = 96;

    private final Fabric f = new Fabric();
    private final Fabric.Pair p = f.new Pair();
    private final Fabric.Side a = p.a;
    private final Fabric.Side b = p.b;

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void theTwoEndpointsShareNoLock_aSendCompletesWhileTheReceiverHoldsItsOwn() throws Exception {
        ok(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 8)}, 1, 0));
        SpinLock receivers = ((SimEndpoint) b.ep).acquire();
        try {
            CompletableFuture<Integer> send = CompletableFuture.supplyAsync(
                    () -> a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 8)}, 2, 0), LocalConnectionLocksTest::daemon);
            // the sender takes its own lock, never the receiver's: its post and completion come while that is held
            DatEvent sent = a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(sent.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(send.get(Fabric.WAIT, TimeUnit.MICROSECONDS)).isEqualTo(DatReturn.SUCCESS);
            DatEvent received = b.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(received.userCookie()).isEqualTo(1);
        } finally {
            receivers.unlock();
        }
    }

    @Test
    void aDisconnectRacingALocalSender_everyPostedDtoCompletesExactlyOnce() throws Exception {
        SplittableRandom random = new SplittableRandom(35);
        for (int round = 0; round < ROUNDS; round++) {
            CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> sends(a), LocalConnectionLocksTest::daemon);
            CompletableFuture<Void> receiver = CompletableFuture.runAsync(() -> receives(b), LocalConnectionLocksTest::daemon);
            for (int spin = random.nextInt(20_000); spin > 0; spin--) {
                Thread.onSpinWait();
            }
            (random.nextBoolean() ? a : b).ep.disconnect(CloseFlag.ABRUPT);
            sender.get(30, TimeUnit.SECONDS);
            receiver.get(30, TimeUnit.SECONDS);
            expectOneEvent(a, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            expectOneEvent(b, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            reconnect();
        }
    }

    @Test
    void breaksTheDataPathFindsOnBothSidesAtOnce_endTheConnectionOnce_everyDtoCompletesOnce() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            // each side sends 8 bytes into 4-byte receives: both senders break the connection, racing
            CompletableFuture<Void> one = CompletableFuture.runAsync(() -> breakingExchange(a), LocalConnectionLocksTest::daemon);
            CompletableFuture<Void> other = CompletableFuture.runAsync(() -> breakingExchange(b), LocalConnectionLocksTest::daemon);
            one.get(30, TimeUnit.SECONDS);
            other.get(30, TimeUnit.SECONDS);
            expectOneEvent(a, EventNumber.CONNECTION_EVENT_BROKEN);
            expectOneEvent(b, EventNumber.CONNECTION_EVENT_BROKEN);
            reconnect();
        }
    }

    /** Posts {@link #DTOS} sends from {@code s}, reaping as it goes, until each completed once. */
    private static void sends(Fabric.Side s) {
        LmrTriplet[] iov = {LmrTriplet.of(s.lmr, 4096, 8)};
        postEachOnce(cookie -> s.ep.postSend(1, iov, cookie, 0), s.reqEvd);
    }

    /** {@link #sends} for receives. */
    private static void receives(Fabric.Side s) {
        LmrTriplet[] iov = {LmrTriplet.of(s.lmr, 0, 8)};
        postEachOnce(cookie -> s.ep.postRecv(1, iov, cookie, 0), s.recvEvd);
    }

    /**
     * Posts {@link #DTOS} DTOs with cookies 0, 1, ... ({@code post}: cookie to return code), reaping
     * {@code evd} as it goes, until each completed once; a post the queue has no room for is tried again.
     */
    private static void postEachOnce(IntUnaryOperator post, EventDispatcher evd) {
        BitSet done = new BitSet(DTOS);
        DatEvent e = new DatEvent();
        int posted = 0;
        while (done.cardinality() < DTOS) {
            if (posted < DTOS) {
                int rc = post.applyAsInt(posted);
                if (rc == DatReturn.SUCCESS) {
                    posted++;
                } else {
                    assertThat(DatReturn.typeOf(rc)).isEqualTo(DatReturn.INSUFFICIENT_RESOURCES);
                }
            }
            reap(evd, e, done, posted < DTOS);
        }
    }

    /** Takes one completion (waits for it when {@code poll} is false) and marks its cookie, which must be new. */
    private static void reap(EventDispatcher evd, DatEvent e, BitSet done, boolean poll) {
        int rc = poll ? evd.dequeue(e) : evd.await(Fabric.WAIT, 1, e);
        if (poll && DatReturn.typeOf(rc) == DatReturn.QUEUE_EMPTY) {
            return;
        }
        assertThat(DatReturn.describe(rc)).isEqualTo(DatReturn.describe(DatReturn.SUCCESS));
        assertThat(e.eventNumber()).isEqualTo(EventNumber.DTO_COMPLETION_EVENT);
        int cookie = (int) e.userCookie();
        assertThat(done.get(cookie)).as("cookie %d completes once", cookie).isFalse();
        assertThat(e.status()).isIn(DtoCompletionStatus.SUCCESS, DtoCompletionStatus.ERR_FLUSHED);
        done.set(cookie);
    }

    /** Posts two small receives and a larger send on {@code s}, and reaps each completion once. */
    private static void breakingExchange(Fabric.Side s) {
        ok(s.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(s.lmr, 0, 4)}, 0, 0));
        ok(s.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(s.lmr, 16, 4)}, 1, 0));
        int rc = s.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(s.lmr, 4096, 8)}, 2, 0);
        assertThat(DatReturn.describe(rc)).isEqualTo(DatReturn.describe(DatReturn.SUCCESS));
        DatEvent e = new DatEvent();
        BitSet recvs = new BitSet();
        for (int i = 0; i < 2; i++) {
            Fabric.Side.expect(s.recvEvd, EventNumber.DTO_COMPLETION_EVENT, e);
            int cookie = (int) e.userCookie();
            assertThat(recvs.get(cookie)).as("receive %d completes once", cookie).isFalse();
            assertThat(e.status()).isIn(DtoCompletionStatus.ERR_LOCAL_LENGTH, DtoCompletionStatus.ERR_FLUSHED);
            recvs.set(cookie);
        }
        Fabric.Side.expect(s.reqEvd, EventNumber.DTO_COMPLETION_EVENT, e);
        assertThat(e.userCookie()).isEqualTo(2);
        assertThat(e.status()).isIn(DtoCompletionStatus.ERR_REMOTE_RESPONDER, DtoCompletionStatus.ERR_FLUSHED);
    }

    /** {@code eventNumber} is on the side's connect EVD, once, and no DTO completion is left. */
    private static void expectOneEvent(Fabric.Side s, int eventNumber) {
        s.expect(s.connEvd, eventNumber);
        assertThat(DatReturn.typeOf(s.connEvd.dequeue(s.event))).isEqualTo(DatReturn.QUEUE_EMPTY);
        assertThat(DatReturn.typeOf(s.recvEvd.dequeue(s.event))).isEqualTo(DatReturn.QUEUE_EMPTY);
        assertThat(DatReturn.typeOf(s.reqEvd.dequeue(s.event))).isEqualTo(DatReturn.QUEUE_EMPTY);
        assertThat(s.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    private void reconnect() {
        a.ep.reset();
        b.ep.reset();
        a.ep.connect(b.address(), 1000, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(b.ep, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    private static void daemon(Runnable r) {
        Thread t = new Thread(r, "local-locks");
        t.setDaemon(true);
        t.start();
    }
}
