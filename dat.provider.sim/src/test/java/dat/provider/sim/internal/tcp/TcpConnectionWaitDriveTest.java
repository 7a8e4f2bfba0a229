package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.EventNumber;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.SimEvd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A consumer waiting for the answer to its own dat_ep_connect(3DAT) or dat_ep_disconnect(3DAT) on
 * a TCP IA drives the I/O agent from its wait, as a consumer waiting for a DTO completion does:
 * the connect and the disconnect note the agent as the connection EVD's driver, and the
 * connection event that answers forgets it, so that a consumer waiting on that EVD later (for the
 * peer's disconnect, a connection long) parks instead of holding the agent's role.
 */
@Timeout(60)
class TcpConnectionWaitDriveTest {

    @Test
    void theConnectingAndDisconnectingConsumer_drives_untilTheAnswer() throws InterruptedException {
        try (TcpPair p = new TcpPair("tcp=127.0.0.1:0 tcp_timeout_ms=3600000", "driveA", "driveB", 1 << 16)) {
            Fabric.Side a = p.a;
            Fabric.Side b = p.b;
            SimEvd events = (SimEvd) a.connEvd;
            b.ia.createPublicServicePoint(41, b.crEvd, PspFlag.CONSUMER);
            a.ep.connect(b.address(), 41, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
            assertThat(events.driver()).as("the connect noted a's agent on a's connection EVD").isNotNull();

            long driven = transport(p.a).drivenCycles();
            Waiter established = Waiter.on(events);
            established.untilDriving();
            b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(b.ep, null);
            established.expect(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertThat(transport(p.a).drivenCycles()).as("a's wait ran a's duty cycles").isGreaterThan(driven);
            assertThat(events.driver()).as("the answer forgot the driver").isNull();

            // a wait for the peer's disconnect does not drive
            DatEvent none = new DatEvent();
            assertThat(DatReturn.typeOf(a.connEvd.await(20_000, 1, none))).isEqualTo(DatReturn.TIMEOUT_EXPIRED);
            assertThat(events.driver()).isNull();

            a.ep.disconnect(CloseFlag.ABRUPT);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertThat(events.driver()).as("the DISCONNECTED event forgot the driver the disconnect noted").isNull();
        }
    }

    /** A thread waiting on an EVD. */
    private static final class Waiter {
        private final SimEvd evd;
        private final DatEvent event = new DatEvent();
        private volatile int code = -1;
        private final Thread thread;

        private Waiter(SimEvd evd) {
            this.evd = evd;
            this.thread = Thread.ofPlatform().start(() -> code = evd.await(10_000_000, 1, event));
        }

        static Waiter on(SimEvd evd) {
            return new Waiter(evd);
        }

        void untilDriving() {
            while (evd.drivenBy() == null && thread.isAlive()) {
                Thread.onSpinWait();
            }
            assertThat(thread.isAlive()).as("the waiter drives").isTrue();
        }

        void expect(int eventNumber) throws InterruptedException {
            thread.join(10_000);
            assertThat(code).isEqualTo(DatReturn.SUCCESS);
            assertThat(event.eventNumber()).isEqualTo(eventNumber);
        }
    }
}
