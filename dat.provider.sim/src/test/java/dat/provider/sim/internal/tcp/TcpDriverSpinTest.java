package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static dat.provider.sim.internal.Codes.isType;
import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.LmrTriplet;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.SimEvd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A consumer waiting in dat_evd_wait(3DAT) on a TCP IA's EVD drives the I/O agent; when its cycle
 * finds nothing it looks at the sockets without sleeping for {@code tcp_spin_us} before its select
 * waits. The spin changes who sleeps, never what completes: these cases check that the answers a
 * spin takes are the right ones, that a wait that finds nothing spins once and times out, that the
 * select after a spin never passes the wait's deadline, and that {@code tcp_spin_us=0} never spins.
 */
@Timeout(60)
class TcpDriverSpinTest {

    private static final int ROUNDS = 40;

    @Test
    void aWaiterSpinning_takesEachAnswer_inOrder_withItsBytes() throws InterruptedException {
        // a spin of 10 ms: each message is sent once a's waiter drives, so it comes within the spin
        // unless this machine stalls a thread that long; one round of forty taken by a spin suffices
        try (TcpPair p = new TcpPair("tcp=127.0.0.1:0 tcp_timeout_ms=3600000 tcp_spin_us=10000", "spinA", "spinB", 1 << 16)) {
            p.connect(31, p.b.ep);
            SocketSpin spin = transport(p.a).spin();
            long looks = spin.looks();
            long answered = spin.answered();
            messagesSentWhileTheReceiverDrives(p);
            assertThat(spin.looks()).as("a's waits looked at the sockets without sleeping").isGreaterThan(looks);
            assertThat(spin.answered()).as("a's spins that ended before their time").isGreaterThan(answered);
        }
    }

    @Test
    void noSpin_whenTcpSpinIsZero() throws InterruptedException {
        try (TcpPair p = new TcpPair("tcp=127.0.0.1:0 tcp_timeout_ms=3600000 tcp_spin_us=0", "noSpinA", "noSpinB", 1 << 16)) {
            p.connect(32, p.b.ep);
            messagesSentWhileTheReceiverDrives(p);
            assertThat(transport(p.a).spin().looks()).isZero();
            assertThat(transport(p.b).spin().looks()).isZero();
        }
    }

    /**
     * b sends ROUNDS messages of distinct bytes to a, each once a's waiting consumer drives a's I/O
     * agent; each arrives in order with its bytes.
     */
    private static void messagesSentWhileTheReceiverDrives(TcpPair p) throws InterruptedException {
        Fabric.Side a = p.a;
        Fabric.Side b = p.b;
        // a first message makes the connection's I/O agent the driver of a's receive EVD
        ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 0, 0));
        ok(b.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 8)}, 0, 0));
        assertThat(wait(a.recvEvd, new DatEvent()).userCookie()).isZero();
        assertThat(wait(b.reqEvd, new DatEvent()).userCookie()).isZero();
        SimEvd receives = (SimEvd) a.recvEvd;
        for (int round = 1; round <= ROUNDS; round++) {
            long at = 4096 + 64L * round;
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, at, 32)}, round, 0));
            DatEvent got = new DatEvent();
            int[] rc = {-1};
            Thread waiter = Thread.ofPlatform().start(() -> rc[0] = a.recvEvd.await(10_000_000, 1, got));
            while (receives.drivenBy() == null && waiter.isAlive()) {
                Thread.onSpinWait();
            }
            assertThat(waiter.isAlive()).as("a's waiter drives, round %d", round).isTrue();
            b.mem.asSlice(0, 32).fill((byte) round);
            ok(b.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 32)}, round, 0));
            waiter.join(10_000);
            assertThat(rc[0]).isEqualTo(DatReturn.SUCCESS);
            assertThat(got.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(got.userCookie()).isEqualTo(round);
            assertThat(got.transferredLength()).isEqualTo(32);
            assertThat(a.mem.asSlice(at, 32).mismatch(b.mem.asSlice(0, 32))).isEqualTo(-1);
            assertThat(wait(b.reqEvd, new DatEvent()).userCookie()).isEqualTo(round);
        }
    }

    @Test
    void aWaitThatFindsNothing_spinsOnce_andTimesOut_andTheReceiveStaysForTheNextMessage() {
        try (TcpPair p = new TcpPair("tcp=127.0.0.1:0 tcp_timeout_ms=3600000 tcp_spin_us=50", "idleA", "idleB", 1 << 16)) {
            p.connect(33, p.b.ep);
            // a first message makes the connection's I/O agent the driver of a's receive EVD
            ok(p.a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(p.a.lmr, 0, 64)}, 1, 0));
            ok(p.a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(p.a.lmr, 0, 64)}, 2, 0));
            ok(p.b.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(p.b.lmr, 0, 8)}, 1, 0));
            assertThat(wait(p.a.recvEvd, new DatEvent()).userCookie()).isEqualTo(1);
            SocketSpin spin = transport(p.a).spin();
            long spins = spin.spins();
            long drives = transport(p.a).drivesBegun();
            DatEvent event = new DatEvent();
            // 5 ms each, nothing comes: a drive of several selects, of which only the first spins
            int waits = 5;
            for (int i = 0; i < waits; i++) {
                isType(p.a.recvEvd.await(5_000, 1, event), DatReturn.TIMEOUT_EXPIRED);
            }
            assertThat(transport(p.a).drivesBegun()).isGreaterThan(drives);
            assertThat(spin.spins() - spins).as("spins in %d waits that found nothing", waits).isBetween(1L, (long) waits);
            ok(p.b.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(p.b.lmr, 0, 16)}, 2, 0));
            DatEvent got = wait(p.a.recvEvd, event);
            assertThat(got.userCookie()).isEqualTo(2);
            assertThat(got.transferredLength()).isEqualTo(16);
        }
    }

    @Test
    void theSelectAfterASpin_waitsWhatIsLeft_neverPastTheDeadline() {
        long ms = 1_000_000;
        // the driver's deadline (4 ms) bounds the wait: 4 ms less a 50 µs spin is 3 whole ms, not 4
        assertThat(SocketSpin.millisAfter(4 * ms, 50_000, 4 * ms)).isEqualTo(3);
        // a timer or the period bounds it (unbounded wait): rounded up, as every select
        assertThat(SocketSpin.millisAfter(2_500_000, 50_000, Long.MAX_VALUE)).isEqualTo(3);
        // a timer due within the spin: a select that does not wait
        assertThat(SocketSpin.millisAfter(30_000, 50_000, 4 * ms)).isZero();
        assertThat(SocketSpin.millisAfter(50_000, 50_000, Long.MAX_VALUE)).isZero();
        // a timer before the deadline: rounded up, yet within the deadline
        assertThat(SocketSpin.millisAfter(3 * ms, 500_000, 4 * ms)).isEqualTo(3);
        for (long max = ms; max <= 6 * ms; max += ms) {
            for (long wait = 1; wait <= max; wait += 37_000) {
                for (long spun = 0; spun <= Math.min(wait, 2 * ms); spun += 13_000) {
                    long millis = SocketSpin.millisAfter(wait, spun, max);
                    assertThat(spun + millis * ms).as("wait %d, spun %d, deadline %d", wait, spun, max).isLessThanOrEqualTo(max);
                    assertThat(millis * ms).as("wait %d, spun %d", wait, spun).isGreaterThanOrEqualTo(Math.min(wait - spun, max - spun - ms + 1));
                }
            }
        }
    }

    private static DatEvent wait(dat.api.EventDispatcher evd, DatEvent event) {
        ok(evd.await(10_000_000, 1, event));
        assertThat(event.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        return event;
    }

}
