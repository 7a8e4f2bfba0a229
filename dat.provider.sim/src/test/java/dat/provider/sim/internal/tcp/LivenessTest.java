package dat.provider.sim.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The verdicts of a connection's liveness check, on a clock the test turns. */
class LivenessTest {

    private static final long T = 1_000_000_000L;

    private final Liveness l = new Liveness();
    private final long start = System.nanoTime();

    @Test
    void anAcceptedSocketWithoutItsRequest_isDroppedAfterTheTimeout_whateverItSends() {
        l.read(); // a byte: not proof enough
        assertThat(l.check(start + T / 2, T, false, false, false)).isEqualTo(Liveness.Verdict.ALIVE);
        assertThat(l.check(start + T + 1, T, false, false, false)).isEqualTo(Liveness.Verdict.NO_REQUEST);
    }

    @Test
    void aQuietConnection_sendsANop_thenBreaksWhenNothingIsRead() {
        assertThat(l.check(start, T, true, true, false)).isEqualTo(Liveness.Verdict.ALIVE);
        long seen = System.nanoTime();
        assertThat(l.check(seen + T / 3 + T / 10, T, true, true, false)).isEqualTo(Liveness.Verdict.SEND_NOP);
        assertThat(l.check(seen + T + T / 10, T, true, true, false)).isEqualTo(Liveness.Verdict.NO_READS);
    }

    @Test
    void aReadResetsTheClock() {
        l.check(start, T, true, true, false);
        l.read();
        long seen = System.nanoTime();
        assertThat(l.check(seen, T, true, true, false)).isEqualTo(Liveness.Verdict.ALIVE);
        assertThat(l.check(seen + T - T / 10, T, true, true, false)).isNotEqualTo(Liveness.Verdict.NO_READS);
    }

    @Test
    void outputWaitingWithoutProgress_breaks_butProgressKeepsItAlive() {
        l.waiting(true);
        l.check(start, T, true, true, false);
        l.read();
        long seen = System.nanoTime();
        l.check(seen, T, true, true, false);
        l.progressed();
        l.read();
        l.check(seen + T / 2, T, true, true, false); // the progress seen now
        l.read();
        assertThat(l.check(System.nanoTime() + T / 2, T, true, true, false)).as("progress half a timeout ago")
                .isNotEqualTo(Liveness.Verdict.NO_WRITE_PROGRESS);
        l.read();
        assertThat(l.check(System.nanoTime() + 2 * T, T, true, true, false)).isEqualTo(Liveness.Verdict.NO_WRITE_PROGRESS);
    }

    @Test
    void afterItsLastWord_aSideClosesOnceThePeerIsSilentForTheTimeout() {
        assertThat(l.check(start, T, true, true, true)).as("the FIN first seen").isEqualTo(Liveness.Verdict.ALIVE);
        long seen = System.nanoTime();
        assertThat(l.check(seen + T / 2, T, true, true, true)).isEqualTo(Liveness.Verdict.ALIVE);
        assertThat(l.check(seen + 2 * T, T, true, true, true)).isEqualTo(Liveness.Verdict.NOT_CLOSING);
    }

    @Test
    void anAttemptInProgress_isGovernedByItsOwnTimeout() {
        assertThat(l.check(start + 10 * T, T, true, false, false)).isEqualTo(Liveness.Verdict.ALIVE);
    }
}
