package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * dat_evd_wait on a DTO EVD past its spin: a platform thread blocks in its own {@code poll(2)} on
 * the CQ's wait descriptor and reads the completion itself; it is woken by a completion, a
 * software event, {@code dat_evd_set_unwaitable}, the EVD's free and an interrupt. A virtual
 * thread parks, and the event thread wakes it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EvdWaitTest extends LoopbackIaTest {

    private static final long WAIT = TimeUnit.SECONDS.toMicros(30);


    /** A thread waiting on {@code evd} with an infinite timeout; its result code and event. */
    private static CompletableFuture<DatEvent> waiter(EventDispatcher evd, boolean virtual, int[] code) {
        CompletableFuture<DatEvent> done = new CompletableFuture<>();
        Runnable wait = () -> {
            DatEvent event = new DatEvent();
            code[0] = evd.await(dat.api.DatConstants.TIMEOUT_INFINITE, 1, event);
            done.complete(event);
        };
        if (virtual) {
            Thread.ofVirtual().start(wait);
        } else {
            Thread.ofPlatform().daemon().start(wait);
        }
        return done;
    }

    private static void until(BooleanSupplier condition) {
        while (!condition.getAsBoolean()) {
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    private void receiveWakesTheWaiter(boolean virtual) throws Exception {
        LoopbackPair pair = LoopbackPair.connect(ia);
        OfiEvd server = (OfiEvd) pair.serverEvd();
        LocalMemoryRegion lmr = ia.registerMemory(arena.allocate(4096, 4096), pair.pz(),
                MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        assertThat(pair.server().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 2048)}, 5, CompletionFlags.DEFAULT))
                .isEqualTo(DatReturn.SUCCESS);
        int[] code = new int[1];
        CompletableFuture<DatEvent> done = waiter(server, virtual, code);
        until(virtual ? server::waiterParked : server::waiterBlocksNatively);
        assertThat(pair.client().postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, 2048, 100)}, 6, CompletionFlags.DEFAULT))
                .isEqualTo(DatReturn.SUCCESS);
        DatEvent event = done.get(30, TimeUnit.SECONDS);
        assertThat(code[0]).as(DatReturn.describe(code[0])).isEqualTo(DatReturn.SUCCESS);
        assertThat(event.eventNumber()).isEqualTo(EventNumber.DTO_COMPLETION_EVENT);
        assertThat(event.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(event.userCookie()).isEqualTo(5);
        assertThat(event.transferredLength()).isEqualTo(100);
        assertThat(server.waiterBlocksNatively()).isFalse();
    }

    @Test
    void aPlatformThreadBlockedOnTheCqReadsTheCompletionItself() throws Exception {
        receiveWakesTheWaiter(false);
    }

    @Test
    void aVirtualThreadParksAndTheEventThreadWakesIt() throws Exception {
        receiveWakesTheWaiter(true);
    }

    @Test
    void aBlockedWaiterIsWokenByASoftwareEventAndByUnwaitable() throws Exception {
        OfiEvd evd = (OfiEvd) ia.createEventDispatcher(16, null, EvdFlags.DTO | EvdFlags.SOFTWARE);
        int[] code = new int[1];
        CompletableFuture<DatEvent> done = waiter(evd, false, code);
        until(evd::waiterBlocksNatively);
        Object pointer = new Object();
        assertThat(evd.postSoftwareEvent(pointer)).isEqualTo(DatReturn.SUCCESS);
        DatEvent event = done.get(30, TimeUnit.SECONDS);
        assertThat(code[0]).as(DatReturn.describe(code[0])).isEqualTo(DatReturn.SUCCESS);
        assertThat(event.eventNumber()).isEqualTo(EventNumber.SOFTWARE_EVENT);
        assertThat(event.softwarePointer()).isSameAs(pointer);

        done = waiter(evd, false, code);
        until(evd::waiterBlocksNatively);
        evd.setUnwaitable();
        done.get(30, TimeUnit.SECONDS);
        assertThat(DatReturn.typeOf(code[0])).as(DatReturn.describe(code[0])).isEqualTo(DatReturn.INVALID_STATE);
        evd.close();
    }

    /** dat_evd_enable(3DAT): "The enabling and disabling EVD has no effect on direct waiters". */
    @Test
    void aParkedWaiterOnADisabledEvd_isWokenByItsEvent() throws Exception {
        OfiEvd evd = (OfiEvd) ia.createEventDispatcher(16, null, EvdFlags.SOFTWARE);
        evd.disable();
        int[] code = new int[1];
        CompletableFuture<DatEvent> done = waiter(evd, false, code);
        until(evd::waiterParked);
        assertThat(evd.postSoftwareEvent("x")).isEqualTo(DatReturn.SUCCESS);
        DatEvent event = done.get(30, TimeUnit.SECONDS);
        assertThat(code[0]).as(DatReturn.describe(code[0])).isEqualTo(DatReturn.SUCCESS);
        assertThat(event.softwarePointer()).isEqualTo("x");
        evd.close();
    }

    @Test
    void aBlockedWaiterAbortsWhenItsEvdIsFreed() throws Exception {
        OfiEvd evd = (OfiEvd) ia.createEventDispatcher(16, null, EvdFlags.DTO);
        int[] code = new int[1];
        CompletableFuture<DatEvent> done = waiter(evd, false, code);
        until(evd::waiterBlocksNatively);
        evd.close();
        done.get(30, TimeUnit.SECONDS);
        assertThat(DatReturn.typeOf(code[0])).as(DatReturn.describe(code[0])).isEqualTo(DatReturn.ABORT);
    }

    @Test
    void anInterruptedBlockedWaiterReturnsInterrupted() throws Exception {
        OfiEvd evd = (OfiEvd) ia.createEventDispatcher(16, null, EvdFlags.DTO);
        int[] code = new int[1];
        CompletableFuture<DatEvent> done = new CompletableFuture<>();
        Thread thread = Thread.ofPlatform().daemon().start(() -> {
            code[0] = evd.await(WAIT, 1, new DatEvent());
            done.complete(null);
        });
        until(evd::waiterBlocksNatively);
        thread.interrupt();
        done.get(30, TimeUnit.SECONDS);
        assertThat(DatReturn.typeOf(code[0])).as(DatReturn.describe(code[0])).isEqualTo(DatReturn.INTERRUPTED_CALL);
        evd.close();
    }

    /**
     * A DTO EVD whose ring filled (the event thread leaves a full ring's CQ alone until a consumer
     * makes room) and that dat_evd_resize then grew is watched again: a virtual thread parked on it
     * for more events than the old ring held is woken by the completions that come after.
     */
    @Test
    void aFullRingGrownByResize_isWatchedAgainForAParkedWaiter() throws Exception {
        LoopbackPair pair = LoopbackPair.connect(ia, 16);
        OfiEvd server = (OfiEvd) pair.serverEvd();
        LocalMemoryRegion lmr = ia.registerMemory(arena.allocate(4096, 4096), pair.pz(),
                MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        for (int i = 0; i < 20; i++) {
            assertThat(pair.server().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 64L * i, 64)}, i, CompletionFlags.DEFAULT))
                    .isEqualTo(DatReturn.SUCCESS);
        }
        DatEvent sent = new DatEvent();
        Runnable send = () -> {
            assertThat(pair.client().postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, 2048, 8)}, 0, CompletionFlags.DEFAULT))
                    .isEqualTo(DatReturn.SUCCESS);
            assertThat(pair.clientEvd().await(WAIT, 1, sent)).isEqualTo(DatReturn.SUCCESS);
        };
        for (int i = 0; i < 17; i++) {
            send.run(); // sixteen fill the server's ring, the seventeenth finds it full
        }
        until(server.cq::isStalled);
        server.resize(64);
        int[] code = new int[1];
        CompletableFuture<DatEvent> done = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            DatEvent event = new DatEvent();
            code[0] = server.await(dat.api.DatConstants.TIMEOUT_INFINITE, 20, event);
            done.complete(event);
        });
        until(server::waiterParked);
        for (int i = 0; i < 3; i++) {
            send.run();
        }
        DatEvent first = done.get(30, TimeUnit.SECONDS);
        assertThat(code[0]).as(DatReturn.describe(code[0])).isEqualTo(DatReturn.SUCCESS);
        assertThat(first.userCookie()).isEqualTo(0);
        assertThat(first.moreEvents()).isEqualTo(19);
    }

    @Test
    void aWaitOnAnEmptyCqTimesOut() {
        OfiEvd evd = (OfiEvd) ia.createEventDispatcher(16, null, EvdFlags.DTO);
        DatEvent event = new DatEvent();
        int code = evd.await(TimeUnit.MILLISECONDS.toMicros(30), 1, event);
        assertThat(DatReturn.typeOf(code)).as(DatReturn.describe(code)).isEqualTo(DatReturn.TIMEOUT_EXPIRED);
        assertThat(evd.waiterBlocksNatively()).isFalse();
        evd.close();
    }
}
