package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.isType;
import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.LmrTriplet;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.SimEvd;
import dat.provider.sim.internal.core.SimIa;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A consumer waiting in dat_evd_wait(3DAT) on a TCP IA's EVD drives the I/O agent; when its cycle
 * finds nothing it looks at the sockets without sleeping for {@code tcp_spin_us} before its select
 * waits. The spin changes who sleeps, never what completes: these cases check that the answers a
 * spin takes are the right ones, that the spin ends with the wait's deadline, and that
 * {@code tcp_spin_us=0} never spins.
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
            Fabric.Side a = p.a;
            Fabric.Side b = p.b;
            // a first message makes the connection's I/O agent the driver of a's receive EVD
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 0, 0));
            ok(b.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 8)}, 0, 0));
            assertThat(wait(a.recvEvd, new DatEvent()).userCookie()).isZero();
            assertThat(wait(b.reqEvd, new DatEvent()).userCookie()).isZero();
            TcpTransport t = transport(a);
            long looks = t.spinLooks();
            long answered = t.spinsAnswered();
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
            assertThat(t.spinLooks()).as("a's waits looked at the sockets without sleeping").isGreaterThan(looks);
            assertThat(t.spinsAnswered()).as("a's spins that a message ended").isGreaterThan(answered);
        }
    }

    @Test
    void noSpin_whenTcpSpinIsZero() {
        try (TcpPair p = new TcpPair("tcp=127.0.0.1:0 tcp_timeout_ms=3600000 tcp_spin_us=0", "noSpinA", "noSpinB", 1 << 16)) {
            p.connect(32, p.b.ep);
            pingPong(p);
            assertThat(transport(p.a).drivesBegun()).as("a's waits drove the agent").isPositive();
            assertThat(transport(p.a).spinLooks()).isZero();
            assertThat(transport(p.b).spinLooks()).isZero();
        }
    }

    @Test
    void aSpinLongerThanTheWait_endsWithTheWait() {
        try (TcpPair p = new TcpPair("tcp=127.0.0.1:0 tcp_timeout_ms=3600000 tcp_spin_us=10000", "shortA", "shortB", 1 << 16)) {
            p.connect(33, p.b.ep);
            // a first message makes the connection's I/O agent the driver of a's receive EVD
            ok(p.a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(p.a.lmr, 0, 64)}, 1, 0));
            ok(p.a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(p.a.lmr, 0, 64)}, 2, 0));
            ok(p.b.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(p.b.lmr, 0, 8)}, 1, 0));
            assertThat(wait(p.a.recvEvd, new DatEvent()).userCookie()).isEqualTo(1);
            long spins = transport(p.a).spinLooks();
            long drives = transport(p.a).drivesBegun();
            DatEvent event = new DatEvent();
            // 3 ms: a drive (more than a select's grain) whose spin is cut to what the wait leaves; nothing comes
            for (int i = 0; i < 5; i++) {
                isType(p.a.recvEvd.await(3_000, 1, event), DatReturn.TIMEOUT_EXPIRED);
            }
            assertThat(transport(p.a).drivesBegun()).isGreaterThan(drives);
            assertThat(transport(p.a).spinLooks()).isGreaterThan(spins);
            // the receive is still there for the next message
            ok(p.b.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(p.b.lmr, 0, 16)}, 2, 0));
            DatEvent got = wait(p.a.recvEvd, event);
            assertThat(got.userCookie()).isEqualTo(2);
            assertThat(got.transferredLength()).isEqualTo(16);
        }
    }

    /** a sends ROUNDS messages of distinct bytes; b echoes each from its own wait; a checks each echo. */
    private static void pingPong(TcpPair p) {
        Fabric.Side a = p.a;
        Fabric.Side b = p.b;
        DatEvent event = new DatEvent();
        for (int round = 0; round < ROUNDS; round++) {
            a.mem.asSlice(0, 32).fill((byte) round);
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 4096, 32)}, 100 + round, 0));
            ok(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 32)}, 200 + round, 0));
            ok(a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 32)}, round, 0));
            DatEvent atB = wait(b.recvEvd, event);
            assertThat(atB.userCookie()).isEqualTo(200 + round);
            ok(b.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 32)}, round, 0));
            DatEvent atA = wait(a.recvEvd, event);
            assertThat(atA.userCookie()).isEqualTo(100 + round);
            assertThat(atA.transferredLength()).isEqualTo(32);
            for (int i = 0; i < 32; i++) {
                assertThat(a.mem.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 4096 + i)).isEqualTo((byte) round);
            }
            assertThat(wait(a.reqEvd, event).userCookie()).isEqualTo(round);
            assertThat(wait(b.reqEvd, event).userCookie()).isEqualTo(round);
        }
    }

    private static DatEvent wait(dat.api.EventDispatcher evd, DatEvent event) {
        ok(evd.await(10_000_000, 1, event));
        assertThat(event.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        return event;
    }

    private static TcpTransport transport(Fabric.Side s) {
        return (TcpTransport) ((SimIa) s.ia).adapter().transport();
    }
}
