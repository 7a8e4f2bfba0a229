package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.Dtos.dto;
import static dat.provider.sim.internal.tcp.Dtos.iov;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DtoCompletionStatus;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.SimEvd;

/**
 * Consumer waits that run their IA's I/O agent ({@link IoAgent#drive}): connections whose EVDs
 * know the agent as their driver, so that the next wait on them drives it, and the wait until a
 * waiting consumer does.
 */
final class DrivenWaits {

    private DrivenWaits() {
    }

    /**
     * Connects {@code pair} (a active, b passive, on qualifier 100) and sends once from a to b: the
     * first send makes b's I/O agent b's receive EVD's driver: b's next waits run it themselves.
     */
    static void connectAndFeed(TcpPair pair) {
        Fabric.Side a = pair.a;
        Fabric.Side b = pair.b;
        pair.connect(100, b.ep);
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 64)), 0, 0));
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 0, 0));
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(((SimEvd) b.recvEvd).driver()).as("the receive EVD\'s driver").isNotNull();
    }

    /** Waits until a consumer thread reads a connection from its dat_evd_wait on {@code evd}, while {@code waiterWaits}. */
    static void awaitDriving(dat.api.EventDispatcher evd, java.util.function.BooleanSupplier waiterWaits)
            throws InterruptedException {
        SimEvd waitedOn = (SimEvd) evd;
        for (long deadline = System.nanoTime() + 5_000_000_000L; waitedOn.drivenBy() == null && System.nanoTime() < deadline;) {
            assertThat(waiterWaits.getAsBoolean()).as("the waiter still waits").isTrue();
            Thread.sleep(1);
        }
        assertThat(waitedOn.drivenBy()).as("the waiter reads the connection").isNotNull();
    }

    /**
     * Connects {@code x} to {@code y} and feeds each side's request EVD from the connection (one
     * small write each way, acknowledged), so that a wait on either runs the IA's agent
     * ({@link IoAgent#drive}).
     */
    static void connectLarge(Fabric.Side x, Fabric.Side y) {
        y.ia.createPublicServicePoint(200, y.crEvd, PspFlag.CONSUMER);
        x.ep.connect(y.address(), 200, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        y.expect(y.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(y.ep, null);
        y.expect(y.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        x.expect(x.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        for (Fabric.Side[] pair : new Fabric.Side[][] {{x, y}, {y, x}}) {
            ok(pair[0].ep.postRdmaWrite(1, iov(LmrTriplet.of(pair[0].lmr, 0, 8)), 0, RmrTriplet.of(pair[1].lmr, 0, 8), 0));
            assertThat(pair[0].expect(pair[0].reqEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            SimEvd evd = (SimEvd) pair[0].reqEvd;
            // noted by the reader right after it posted the completion
            for (long deadline = System.nanoTime() + 5_000_000_000L; evd.driver() == null && System.nanoTime() < deadline;) {
                Thread.onSpinWait();
            }
            assertThat(evd.driver()).as("the request EVD's driver").isNotNull();
        }
    }
}
