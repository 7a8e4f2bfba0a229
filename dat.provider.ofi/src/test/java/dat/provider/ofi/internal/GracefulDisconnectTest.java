package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.RmrTriplet;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * dat_ep_disconnect(3DAT) with DAT_CLOSE_GRACEFUL_FLAG over libfabric tcp: the request DTOs in
 * progress complete successfully before the connection goes down; an abrupt one flushes them.
 */
@Timeout(60)
class GracefulDisconnectTest extends LoopbackIaTest {

    private static final long WAIT = TimeUnit.SECONDS.toMicros(20);
    private static final long SIZE = 8L << 20;


    private LocalMemoryRegion lmr(LoopbackPair p) {
        LocalMemoryRegion lmr = ia.registerMemory(arena.allocate(SIZE, 4096), p.pz(), MemPrivileges.ALL);
        return lmr;
    }

    private static DatEvent await(EventDispatcher evd) {
        DatEvent event = new DatEvent();
        int rc = evd.await(WAIT, 1, event);
        assertThat(rc).as("await: %s", DatReturn.describe(rc)).isEqualTo(DatReturn.SUCCESS);
        return event;
    }

    /** Writes of 8 MiB each, the first signalled, the others silent (suppressed), then the disconnect. */
    private List<Long> writeThenDisconnect(LoopbackPair p, CloseFlag flag, LocalMemoryRegion source, LocalMemoryRegion target) {
        for (long i = 0; i < SIZE; i += 8) {
            source.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 7 + 1);
        }
        LmrTriplet[] iov = {LmrTriplet.of(source, 0, SIZE)};
        RmrTriplet remote = RmrTriplet.of(target, 0, SIZE);
        assertThat(p.client().postRdmaWrite(1, iov, 1, remote, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
        for (int i = 2; i <= 3; i++) {
            assertThat(p.client().postRdmaWrite(1, iov, i, remote, CompletionFlags.SUPPRESS)).isEqualTo(DatReturn.SUCCESS);
        }
        p.client().disconnect(flag);
        List<Long> events = new ArrayList<>();
        DatEvent disconnected = null;
        while (disconnected == null) {
            DatEvent e = await(p.connEvd());
            if (e.endpoint() == p.client()) {
                disconnected = e;
            }
        }
        assertThat(disconnected.eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(p.client().query().state()).isEqualTo(EpState.DISCONNECTED);
        DatEvent e = new DatEvent();
        while (p.clientEvd().dequeue(e) == DatReturn.SUCCESS) {
            events.add(e.userCookie() << 8 | e.status());
        }
        return events;
    }

    @Test
    void aGracefulDisconnect_completesTheWritesInProgress_silentOnesToo() {
        LoopbackPair p = LoopbackPair.connect(ia);
        LocalMemoryRegion source = lmr(p);
        LocalMemoryRegion target = lmr(p);
        List<Long> events = writeThenDisconnect(p, CloseFlag.GRACEFUL, source, target);
        assertThat(events).as("cookie << 8 | status of each request completion")
                .containsExactly(1L << 8 | DtoCompletionStatus.SUCCESS);
        assertThat(target.memory().mismatch(source.memory())).as("the bytes all landed").isEqualTo(-1);
    }

    @Test
    void anAbruptDisconnect_flushesTheWritesInProgress() {
        LoopbackPair p = LoopbackPair.connect(ia);
        List<Long> events = writeThenDisconnect(p, CloseFlag.ABRUPT, lmr(p), lmr(p));
        assertThat(events).as("cookie << 8 | status of each request completion")
                .contains(3L << 8 | DtoCompletionStatus.ERR_FLUSHED);
    }
}
