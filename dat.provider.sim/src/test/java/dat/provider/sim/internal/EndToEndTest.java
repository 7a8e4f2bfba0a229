package dat.provider.sim.internal;

import dat.provider.sim.internal.core.*;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The whole path once: open, connect, accept, send/recv, RDMA write and read, disconnect. */
@Timeout(30)
class EndToEndTest {

    @Test
    void sendRecvRdmaWriteAndReadBetweenTwoIas() {
        try (Fabric f = new Fabric()) {
            Fabric.Pair p = f.new Pair();
            assertThat(p.a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
            assertThat(p.b.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);

            // send / recv
            for (int i = 0; i < 100; i++) {
                p.a.mem.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            LmrTriplet[] recv = {LmrTriplet.of(p.b.lmr, 1000, 100)};
            assertThat(p.b.ep.postRecv(1, recv, 42, 0)).isEqualTo(DatReturn.SUCCESS);
            LmrTriplet[] send = {LmrTriplet.of(p.a.lmr, 0, 100)};
            assertThat(p.a.ep.postSend(1, send, 7, 0)).isEqualTo(DatReturn.SUCCESS);
            DatEvent s = p.a.expect(p.a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(s.userCookie()).isEqualTo(7);
            assertThat(s.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            DatEvent r = p.b.expect(p.b.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(r.userCookie()).isEqualTo(42);
            assertThat(r.transferredLength()).isEqualTo(100);
            for (int i = 0; i < 100; i++) {
                assertThat(p.b.mem.get(ValueLayout.JAVA_BYTE, 1000 + i)).isEqualTo((byte) (i * 7));
            }

            // RDMA write into b's memory at 5000
            RmrTriplet remote = RmrTriplet.of(p.b.lmr, 5000, 100);
            assertThat(p.a.ep.postRdmaWrite(1, send, 8, remote, 0)).isEqualTo(DatReturn.SUCCESS);
            DatEvent w = p.a.expect(p.a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(w.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(w.transferredLength()).isEqualTo(100);
            assertThat(p.b.mem.asSlice(5000, 100).mismatch(p.a.mem.asSlice(0, 100))).isEqualTo(-1);

            // RDMA read b's 1000..1100 into a's 2000
            LmrTriplet[] into = {LmrTriplet.of(p.a.lmr, 2000, 100)};
            assertThat(p.a.ep.postRdmaRead(1, into, 9, RmrTriplet.of(p.b.lmr, 1000, 100), 0)).isEqualTo(DatReturn.SUCCESS);
            DatEvent rd = p.a.expect(p.a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(rd.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(p.a.mem.asSlice(2000, 100).mismatch(p.b.mem.asSlice(1000, 100))).isEqualTo(-1);

            p.a.ep.disconnect(dat.api.CloseFlag.ABRUPT);
            p.a.expect(p.a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            p.b.expect(p.b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertThat(p.b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        }
    }
}
