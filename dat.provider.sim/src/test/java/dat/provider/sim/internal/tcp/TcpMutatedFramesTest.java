package dat.provider.sim.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.EpState;
import dat.provider.sim.internal.Fabric;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The data phase under a fuzz: raw peers send valid and mutated frames on established
 * connections to a live TCP IA ({@link DataPhase}), while a well-behaved Endpoint pair keeps
 * exchanging data with it; each mutated frame ends its connection alone, and the connections
 * leave nothing behind.
 */
@Timeout(180)
class TcpMutatedFramesTest {

    /** The data-phase frames the fuzz sends at least (valid and mutated ones, probes). */
    private static final int DATA_FRAMES = Integer.getInteger("dat.sim.fuzz.dataFrames", 20_000);
    /** The data-phase fuzz's seed: a failure's message says the frames; the seed repeats them. */
    private static final long DATA_SEED = Long.getLong("dat.sim.fuzz.seed", 7);

    private final AttackedIa attacked = new AttackedIa();
    private final Fabric.Side target = attacked.target;

    @AfterEach
    void close() {
        attacked.close();
    }

    /**
     * Raw peers connect to a live target IA one after another, and on each connection send valid
     * data-phase frames (sends into posted receives, RDMA writes and reads through LMR and RMR
     * contexts, NOPs, ACK requests, answers to the target's own sends and reads) interleaved with
     * mutated ones, until one ends it. A frame malformed by construction ends its connection alone:
     * BROKEN on that Endpoint, which is DISCONNECTED, the frame counted as a violation or, for an
     * access the checks refuse, answered with a refusal. A random bit flip may make a valid frame:
     * then a probe that follows is served, or the connection ends the same way. No byte outside
     * the windows changes, the good pair works throughout, and the connections leave nothing behind.
     */
    @Test
    @Timeout(60)
    void aMutatedDataFrame_endsItsConnectionAlone_whileTheValidFramesAroundItAndAGoodPairAreServed() throws Exception {
        attacked.connectGoodPair();
        attacked.goodRound(0);
        DataPhase attack = new DataPhase(attacked, new SplittableRandom(DATA_SEED));
        attack.run(200); // before the footprint: what the first connections make once (classes, kept threads)
        attack.dropLastEvent();
        Footprint footprint = Footprint.measure();
        long violations = attacked.transport().violations.get();
        long counted = attack.tally.counted + attack.tally.flipsCounted;
        long began = System.nanoTime();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        int round = 1;
        try {
            Future<?> job = pool.submit(() -> {
                attack.run(DATA_FRAMES);
                return null;
            });
            while (!job.isDone()) {
                attacked.goodRound(round++);
            }
            job.get();
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        long millis = (System.nanoTime() - began) / 1_000_000;
        DataPhase.Tally tally = attack.tally;
        System.out.printf("data-phase fuzz (seed %d): %s in %d ms, %d good rounds meanwhile%n", DATA_SEED, tally, millis, round - 1);
        assertThat(attacked.transport().agent().unexpectedEnds()).as("connections that ended on an unexpected exception").isZero();
        // every malformed frame was counted, and nothing else was
        assertThat(attacked.transport().violations.get() - violations).as("violations counted")
                .isEqualTo(tally.counted + tally.flipsCounted - counted);
        assertThat(tally.kinds.keySet()).as("classes of malformed frames sent").containsAll(MalformedDataFrames.KINDS);
        attacked.goodRound(1_000_000);
        assertThat(target.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        // nothing of the good pair's memory changed but what its rounds wrote (the attacker's
        // contexts are of another PZ, and the good pair's own was refused)
        for (long k = 0; k < target.mem.byteSize(); k++) {
            if ((k < 1024 || k >= 1024 + 256) && (k < 4096 || k >= 4096 + 256)) {
                assertThat(target.mem.get(ValueLayout.JAVA_BYTE, k)).as("the good pair's byte %d", k).isZero();
            }
        }
        for (long deadline = System.nanoTime() + 5_000_000_000L; attacked.transport().connections().size() > 1 && System.nanoTime() < deadline;) {
            Thread.sleep(10);
        }
        assertThat(attacked.transport().connections()).as("connections the IA holds after the fuzz").hasSize(1);
        attack.dropLastEvent();
        footprint.assertFlat(attacked.transport(), tally.frames + " data-phase frames");
    }
}
