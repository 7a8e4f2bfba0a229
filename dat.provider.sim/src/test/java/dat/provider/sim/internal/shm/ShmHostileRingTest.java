package dat.provider.sim.internal.shm;

import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import dat.provider.sim.internal.core.SimEndpoint;
import dat.provider.sim.internal.core.SpinLock;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer that writes what the ring protocol does not allow into the shared file: the side that
 * reads it breaks that connection, both sides see it broken, every posted DTO completes, and the
 * side that found it counts it in its IA's {@code violations} attribute. Side a plays the hostile
 * peer by writing into the file it maps; side b is the one attacked.
 */
@Timeout(60)
class ShmHostileRingTest {

    private static final String SHM = "tcp=127.0.0.1:0 shm=on";
    /** Each side's memory: eight times the ring, so that a read of it cannot be answered without waiting for room. */
    private static final int SIZE = 8 * RingFile.DEFAULT_CAPACITY;
    private final Fabric fa = new Fabric(ProviderSettings.defaults().limits(), SHM);
    private final Fabric fb = new Fabric(ProviderSettings.defaults().limits(), SHM);
    private final Fabric.Side a = fa.new Side("shmA", null, SIZE);
    private final Fabric.Side b = fb.new Side("shmB", null, SIZE);

    @AfterEach
    void close() {
        Fabric.closeAll(fa, fb);
    }

    private static ShmSession session(Fabric.Side s) {
        return ((ShmWire) ((SimEndpoint) s.ep).wire()).session;
    }

    private static String violations(Fabric.Side s) {
        return s.ia.query().iaAttributes().transportAttributes().get("violations");
    }

    /** Polls b's connection on this thread until its Endpoint left CONNECTED, as long as a completion may take. */
    private void pollUntilBroken(ShmSession attacked) {
        long deadline = System.nanoTime() + Fabric.WAIT * 1_000L;
        while (b.ep.getStatus().state() == EpState.CONNECTED && System.nanoTime() < deadline) {
            attacked.poll(false);
            Thread.onSpinWait();
        }
        assertThat(b.ep.getStatus().state()).as("b broke the connection").isNotEqualTo(EpState.CONNECTED);
    }

    @Test
    void aRecordMarkTooShortForAHeader_breaksTheConnection_andIsCountedWhereItWasRead() {
        ShmDtoTest.connectOverSharedMemory(a, b);
        assertThat(violations(b)).isEqualTo("0");
        ok(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 64)}, 1, 0));
        Ring requests = session(a).file().txRequests;
        MemorySegment ring = requests.data();
        ring.set(ValueLayout.JAVA_LONG, requests.offset(requests.tail()), ShmRecord.word(8, ShmRecord.SEND, 0));
        pollUntilBroken(session(b));
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(b.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(violations(b)).as("the ring's violation, counted by the side that read it").isEqualTo("1");
        assertThat(violations(a)).isEqualTo("0");
        RingFiles.assertNoneMapped();
    }

    /**
     * The consumer position of b's answers ring is a's to write. A position ahead of what b
     * produced, read while b waits for room for the rest of a read response, breaks the
     * connection: waiting for room would wait for ever.
     */
    @Test
    void aConsumerPositionAheadOfTheProducer_inTheAnswersRing_breaksTheConnectionInsteadOfStalling() {
        ShmDtoTest.connectOverSharedMemory(a, b);
        ShmSession attacked = session(b);
        RingFile file = session(a).file();
        ok(a.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, SIZE)}, 1, RmrTriplet.of(b.lmr, 0, SIZE), 0));
        // a stops consuming: b fills its answers ring with the response and waits for room
        SpinLock held = ((SimEndpoint) a.ep).acquire();
        try {
            long deadline = System.nanoTime() + Fabric.WAIT * 1_000L;
            while (!attacked.waitingForSpace() && System.nanoTime() < deadline) {
                attacked.poll(false);
                Thread.onSpinWait();
            }
            assertThat(attacked.waitingForSpace()).as("b waits for room in its answers ring").isTrue();
            long answersControl = RingFile.HEADER_BYTES + 3L * (Ring.CONTROL_BYTES + file.capacity());
            file.mapping().set(ValueLayout.JAVA_LONG, answersControl + Ring.CONSUMER, 1L << 40);
            pollUntilBroken(attacked);
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        } finally {
            held.unlock();
        }
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isNotEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(violations(b)).as("the position, counted by the side that read it").isEqualTo("1");
        RingFiles.assertNoneMapped();
    }
}
