package dat.provider.sim.internal.shm;

import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import dat.provider.sim.internal.core.SimEvd;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A consumer waiting in dat_evd_wait(3DAT) on an EVD a shared-memory connection feeds polls the
 * rings itself ({@link ShmDriver}) and leaves the wait to the I/O agent when nothing comes: the
 * messages land either way, and a wait with nothing to end it times out as dat_evd_wait says.
 */
@Timeout(60)
class ShmDriverTest {

    private static final String SHM = "tcp=127.0.0.1:0 shm=on";
    private final Fabric fa = new Fabric(ProviderSettings.defaults().limits(), SHM);
    private final Fabric fb = new Fabric(ProviderSettings.defaults().limits(), SHM);
    private final Fabric.Side a = fa.new Side("shmA", null, 1 << 16);
    private final Fabric.Side b = fb.new Side("shmB", null, 1 << 16);

    @AfterEach
    void close() {
        Fabric.closeAll(fa, fb);
    }

    private void connect() {
        ShmDtoTest.connectOverSharedMemory(a, b);
    }

    private static ShmDriver driverOf(Fabric.Side s) {
        assertThat(((SimEvd) s.recvEvd).driver()).as("the receive EVD's driver").isInstanceOf(ShmDriver.class);
        return (ShmDriver) ((SimEvd) s.recvEvd).driver();
    }

    /**
     * Send after send, each waited for in dat_evd_wait: the waiter's own polls of the ring end its
     * waits, and every message lands, past the ring's end (a record per cache line: 16384 in 1 MiB).
     */
    @Test
    void aWaiterPollsTheRingsItself_andEveryMessageLands_pastTheRingsEnd() {
        connect();
        for (int i = 0; i < 20_000; i++) {
            a.mem.set(ValueLayout.JAVA_INT, 0, i);
            ok(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 64, 64)}, i, 0));
            ok(a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 8)}, i, 0));
            DatEvent e = b.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(e.transferredLength()).isEqualTo(8);
            assertThat(b.mem.get(ValueLayout.JAVA_INT, 64)).isEqualTo(i);
            assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        assertThat(driverOf(b).spinsEnded()).as("waits the waiter's own polls ended").isPositive();
    }

    /** A wait nothing ends times out: within the spin, and after it, in the agent's hands. */
    @Test
    void aWaitNothingEnds_timesOut_shortOrLong() {
        connect();
        DatEvent e = new DatEvent();
        assertThat(DatReturn.describe(b.recvEvd.await(10, 1, e))).isEqualTo(DatReturn.describe(DatReturn.TIMEOUT_EXPIRED));
        long before = driverOf(b).handedOver();
        assertThat(DatReturn.describe(b.recvEvd.await(20_000, 1, e))).isEqualTo(DatReturn.describe(DatReturn.TIMEOUT_EXPIRED));
        assertThat(driverOf(b).handedOver()).as("a wait past the spin goes to the agent").isGreaterThan(before);
    }

    /** A message that comes after the waiter left its wait to the agent (which may sleep on the doorbell) still ends it. */
    @Test
    void aMessageAfterTheSpin_reachesAWaiterTheAgentServes() throws Exception {
        connect();
        ok(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 64, 64)}, 7, 0));
        CompletableFuture<DatEvent> waited = CompletableFuture.supplyAsync(() -> {
            DatEvent into = new DatEvent();
            int rc = b.recvEvd.await(Fabric.WAIT, 1, into);
            return rc == DatReturn.SUCCESS ? into : null;
        });
        // past the waiter's spin and the agent's: the wait is the agent's, which sleeps on the doorbell
        Thread.sleep(50);
        assertThat(waited).isNotDone();
        a.mem.set(ValueLayout.JAVA_LONG, 0, 0x1234_5678_9abcL);
        ok(a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 8)}, 1, 0));
        DatEvent e = waited.get(10, TimeUnit.SECONDS);
        assertThat(e).isNotNull();
        assertThat(e.userCookie()).isEqualTo(7);
        assertThat(b.mem.get(ValueLayout.JAVA_LONG, 64)).isEqualTo(0x1234_5678_9abcL);
        assertThat(driverOf(b).handedOver()).isPositive();
    }
}
