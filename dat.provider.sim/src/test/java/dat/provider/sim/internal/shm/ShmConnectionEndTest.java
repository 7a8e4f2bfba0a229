package dat.provider.sim.internal.shm;

import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.LmrTriplet;
import dat.api.Qos;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The end of a shared-memory connection lets go of its rings only once no thread reads them. A
 * consumer busy-polling dat_evd_dequeue(3DAT) polls every shared-memory connection of its IA; other
 * connections of that IA end one after another meanwhile. Closing a mapping under a reader would
 * set the reader's interrupt status (the JDK unwinds its access that way), so the consumer's thread
 * would find itself interrupted by the provider, and its next blocking call would end at once.
 */
@Timeout(120)
class ShmConnectionEndTest {

    private static final String SHM = "tcp=127.0.0.1:0 shm=on";
    /** Connections that end beside the busy consumer: enough that an unmapping under it would not go unseen. */
    private static final int ROUNDS = 60;
    private final Fabric fa = new Fabric(ProviderSettings.defaults().limits(), SHM);
    private final Fabric fb = new Fabric(ProviderSettings.defaults().limits(), SHM);
    private final Fabric.Side a = fa.new Side("shmA", null, 4096);
    private final Fabric.Side b = fb.new Side("shmB", null, 4096);

    @AfterEach
    void close() {
        Fabric.closeAll(fa, fb);
    }

    @Test
    void connectionsEndingBesideABusyPollingConsumer_neverInterruptItsThread_andItsConnectionServesOn() throws Exception {
        ShmDtoTest.connectOverSharedMemory(a, b);
        List<String> firstConnection = RingFiles.mapped();
        ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 7, 0));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger interrupts = new AtomicInteger();
        AtomicLong polls = new AtomicLong();
        DatEvent got = new DatEvent();
        Thread consumer = Thread.ofPlatform().name("busy-polling consumer").start(() -> {
            while (!stop.get()) {
                if (a.recvEvd.dequeue(got) == DatReturn.SUCCESS) {
                    break;
                }
                if (Thread.interrupted()) { // counted and cleared: each ended connection gets its own chance
                    interrupts.incrementAndGet();
                }
                polls.incrementAndGet();
            }
        });
        try {
            Beside beside = new Beside();
            for (int round = 0; round < ROUNDS; round++) {
                beside.connectThenEnd(round);
            }
            assertThat(polls.get()).as("the consumer polled while the connections ended").isPositive();
            assertThat(consumer.isAlive()).as("the consumer still polls").isTrue();
            ok(b.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 8)}, 1, 0));
            consumer.join(10_000);
            assertThat(consumer.isAlive()).as("the send over the first connection reached the consumer").isFalse();
        } finally {
            stop.set(true);
            consumer.join(10_000);
        }
        assertThat(got.eventNumber()).isEqualTo(EventNumber.DTO_COMPLETION_EVENT);
        assertThat(got.userCookie()).isEqualTo(7);
        assertThat(interrupts.get()).as("times the consumer's thread found itself interrupted").isZero();
        // the connections beside went through the ring files their sockets kept: a connect that
        // came before the last one's socket idled again took a socket and a file of its own
        long reused = Long.parseLong(a.ia.query().iaAttributes().transportAttributes().get("tcp.reused"));
        assertThat(reused).as("connections that took the socket and ring file of one before").isGreaterThanOrEqualTo(ROUNDS / 2);
        assertThat(RingFiles.files()).as("the first connection's file, and those kept for the next").containsAll(RingFiles.files(firstConnection))
                .hasSizeLessThanOrEqualTo(1 + ROUNDS - (int) reused);
    }

    /** A second connection between the two IAs, over shared memory, set up and ended each round. */
    private final class Beside {
        private final EventDispatcher aDto = a.ia.createEventDispatcher(16, null, EvdFlags.DTO);
        private final EventDispatcher aConn = a.ia.createEventDispatcher(4, null, EvdFlags.CONNECTION);
        private final EventDispatcher bDto = b.ia.createEventDispatcher(16, null, EvdFlags.DTO);
        private final EventDispatcher bConn = b.ia.createEventDispatcher(4, null, EvdFlags.CONNECTION);
        private final DatEvent event = new DatEvent();

        void connectThenEnd(int round) {
            try (Endpoint a2 = a.ia.createEndpoint(a.pz, aDto, aDto, aConn, null);
                    Endpoint b2 = b.ia.createEndpoint(b.pz, bDto, bDto, bConn, null)) {
                a2.connect(b.address(), 100, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
                Fabric.Side.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT, event).connectionRequest().accept(b2, null);
                Fabric.Side.expect(bConn, EventNumber.CONNECTION_EVENT_ESTABLISHED, event);
                Fabric.Side.expect(aConn, EventNumber.CONNECTION_EVENT_ESTABLISHED, event);
                assertThat(a.ia.query().iaAttributes().transportAttributes())
                        .as("round %d over shared memory", round).containsEntry("shm.established", String.valueOf(round + 2));
                a2.disconnect(CloseFlag.ABRUPT);
                Fabric.Side.expect(aConn, EventNumber.CONNECTION_EVENT_DISCONNECTED, event);
                Fabric.Side.expect(bConn, EventNumber.CONNECTION_EVENT_DISCONNECTED, event);
            }
        }
    }
}
