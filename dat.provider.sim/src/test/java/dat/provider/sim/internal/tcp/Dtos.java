package dat.provider.sim.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.provider.sim.internal.Fabric;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/** Steps of the TCP DTO tests: a scatter-gather list, seeded bytes, the next completion, the completions queued. */
final class Dtos {

    private Dtos() {
    }

    /** The segments {@code t}: a scatter-gather list. */
    static LmrTriplet[] iov(LmrTriplet... t) {
        return t;
    }

    /** {@code len} bytes from {@code off} of {@code m}, filled with the random bytes of {@code seed}. */
    static void fill(MemorySegment m, long off, int len, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < len; i++) {
            m.set(ValueLayout.JAVA_BYTE, off + i, (byte) r.nextInt());
        }
    }

    /** The next DTO completion of {@code s}: on its receive EVD if {@code recv}, else on its request EVD. */
    static DatEvent dto(Fabric.Side s, boolean recv) {
        return s.expect(recv ? s.recvEvd : s.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
    }

    /** Takes the send completions queued now; every one must be a success. */
    static int drain(dat.api.EventDispatcher evd) {
        DatEvent event = new DatEvent();
        int n = 0;
        while (evd.dequeue(event) == dat.api.DatReturn.SUCCESS) {
            assertThat(event.status()).as("a send completion").isEqualTo(DtoCompletionStatus.SUCCESS);
            n++;
        }
        return n;
    }
}
