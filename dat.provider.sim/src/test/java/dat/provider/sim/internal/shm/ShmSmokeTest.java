package dat.provider.sim.internal.shm;

import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ShmSmokeTest {
    private static final String SHM = "tcp=127.0.0.1:0 tcp_timeout_ms=3600000 shm=on";
    private final Fabric fa = new Fabric(ProviderSettings.defaults().limits(), SHM);
    private final Fabric fb = new Fabric(ProviderSettings.defaults().limits(), SHM);
    private final Fabric.Side a = fa.new Side("shmA", null, 1 << 20);
    private final Fabric.Side b = fb.new Side("shmB", null, 1 << 20);

    @AfterEach
    void close() {
        fa.close();
        fb.close();
    }

    @Test
    void sendWriteRead() {
        b.ia.createPublicServicePoint(100, b.crEvd, PspFlag.CONSUMER);
        a.ep.connect(b.address(), 100, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(b.ep, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(a.ia.query().iaAttributes().transportAttributes()).containsEntry("shm", "on")
                .containsEntry("shm.established", "1").containsEntry("tcp.established", "0");
        for (int i = 0; i < 100; i++) {
            a.mem.set(ValueLayout.JAVA_INT, 0, i);
            ok(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 4096, 4096)}, i, 0));
            ok(a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, i, 0));
            DatEvent e = b.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(e.transferredLength()).isEqualTo(64);
            assertThat(b.mem.get(ValueLayout.JAVA_INT, 4096)).isEqualTo(i);
            e = a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
        // a large write, fragments
        for (int k = 0; k < 512 * 1024; k += 4) {
            a.mem.set(ValueLayout.JAVA_INT, k, k);
        }
        ok(a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 512 * 1024)}, 7,
                new RmrTriplet(b.lmr.rmrContext(), b.lmr.registeredAddress() + 512 * 1024, 512 * 1024), 0));
        DatEvent e = a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
        assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(b.mem.asSlice(512 * 1024, 512 * 1024).mismatch(a.mem.asSlice(0, 512 * 1024))).isEqualTo(-1);
        ok(a.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 512 * 1024, 512 * 1024)}, 8,
                new RmrTriplet(b.lmr.rmrContext(), b.lmr.registeredAddress() + 512 * 1024, 512 * 1024), 0));
        e = a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
        assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(a.mem.asSlice(512 * 1024, 512 * 1024).mismatch(a.mem.asSlice(0, 512 * 1024))).isEqualTo(-1);
        for (Fabric.Side s : new Fabric.Side[] {a, b}) {
            assertThat(s.ia.query().iaAttributes().transportAttributes()).as(s.ia.query().iaAttributes().adapterName())
                    .containsEntry("shm.established", "1").containsEntry("shm.connections", "1").containsEntry("tcp.established", "0");
        }
    }
}
