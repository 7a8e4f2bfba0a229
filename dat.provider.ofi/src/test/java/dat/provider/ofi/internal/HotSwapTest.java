package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.AsyncErrorReason;
import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.spi.DatIaFactory;
import dat.api.spi.IaOpenRequest;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hot-swap contract outside OSGi: the runtime closes (as the bundle stops) with IAs open, a
 * connection up, receives posted and a thread waiting: the async EVD gets
 * {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC}, every posted receive completes as flushed before the
 * EVDs go, the waiter returns, every handle answers {@code DAT_INVALID_HANDLE}, the IA's event
 * threads end, and the factory refuses new opens.
 */
class HotSwapTest {

    /** Each waiter on a thread of its own (the common pool may have a single thread on two cores). */
    private static final java.util.concurrent.Executor OWN_THREAD = task -> Thread.ofPlatform().daemon().start(task);

    /** The cookie and status of every event the EVD still hands out. */
    private static List<String> fates(EventDispatcher evd) {
        List<String> fates = new ArrayList<>();
        DatEvent event = new DatEvent();
        while (evd.dequeue(event) == DatReturn.SUCCESS) {
            fates.add(event.userCookie() + " " + event.status());
        }
        return fates;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void closingTheRuntimeWithOpenIasFailsThemCleanly() throws Exception {
        OfiRuntime runtime = TcpLoopback.start();
        DatIaFactory factory;
        try {
            factory = TcpLoopback.factory(runtime);
        } catch (RuntimeException | Error e) {
            runtime.close();
            throw e;
        }
        try (Arena arena = Arena.ofShared()) {
            InterfaceAdapter ia = factory.openIa(new IaOpenRequest(TcpLoopback.IA, 16, null, ""));
            EventDispatcher async = ia.query().asyncEvd();
            LoopbackPair pair = LoopbackPair.connect(ia);
            LocalMemoryRegion lmr = ia.registerMemory(arena.allocate(4096), pair.pz(), MemPrivileges.ALL);
            for (int i = 0; i < 4; i++) {
                assertThat(pair.server().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 64)}, 10 + i, CompletionFlags.DEFAULT))
                        .isEqualTo(DatReturn.SUCCESS);
            }
            // two messages land in the first two receives, whose completions are not dequeued
            for (int i = 0; i < 2; i++) {
                assertThat(pair.client().postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, 1024, 8)}, i, CompletionFlags.DEFAULT))
                        .isEqualTo(DatReturn.SUCCESS);
            }
            // the read's data comes back once the server has taken the messages before it
            assertThat(pair.client().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(lmr, 2048, 8)}, 9,
                    dat.api.RmrTriplet.of(lmr, 3072, 8), CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
            DatEvent done = new DatEvent();
            do {
                assertThat(pair.clientEvd().await(10_000_000L, 1, done)).isEqualTo(DatReturn.SUCCESS);
            } while (done.userCookie() != 9);
            // a send whose success the provider queues itself (fi_inject), then a suppressed RDMA
            // write that waits for a later DTO to confirm it: the provider flushes the write itself
            assertThat(pair.client().postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, 1024, 8)}, 20, CompletionFlags.DEFAULT))
                    .isEqualTo(DatReturn.SUCCESS);
            assertThat(pair.client().postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(lmr, 1024, 8)}, 21,
                    dat.api.RmrTriplet.of(lmr, 3072, 8), CompletionFlags.SUPPRESS)).isEqualTo(DatReturn.SUCCESS);
            EventDispatcher waitedOn = ia.createEventDispatcher(4, null, EvdFlags.SOFTWARE);
            CompletableFuture<Integer> waiter =
                    CompletableFuture.supplyAsync(() -> waitedOn.await(30_000_000L, 1, new DatEvent()), OWN_THREAD);
            DatEvent catastrophe = new DatEvent();
            CompletableFuture<Integer> asyncWaiter =
                    CompletableFuture.supplyAsync(() -> async.await(30_000_000L, 1, catastrophe), OWN_THREAD);
            Thread.sleep(200); // both waiters park

            runtime.close();

            assertThat(asyncWaiter.get(10, TimeUnit.SECONDS)).isEqualTo(DatReturn.SUCCESS);
            assertThat(catastrophe.eventNumber()).isEqualTo(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC);
            assertThat(catastrophe.asyncReason()).isEqualTo(AsyncErrorReason.IA_CATASTROPHIC_ERROR);
            assertThat(DatReturn.typeOf(waiter.get(10, TimeUnit.SECONDS))).isIn(DatReturn.ABORT, DatReturn.INVALID_HANDLE);
            // each EVD hands out what was queued when the provider went, in posting order: the
            // receives that took the three messages, then the one still posted, flushed; the send,
            // then the write the provider flushed
            assertThat(fates(pair.serverEvd())).containsExactly("10 " + DtoCompletionStatus.SUCCESS, "11 " + DtoCompletionStatus.SUCCESS,
                    "12 " + DtoCompletionStatus.SUCCESS, "13 " + DtoCompletionStatus.ERR_FLUSHED);
            assertThat(fates(pair.clientEvd())).containsExactly("20 " + DtoCompletionStatus.SUCCESS, "21 " + DtoCompletionStatus.ERR_FLUSHED);
            assertThat(DatReturn.typeOf(pair.server().postRecv(0, null, 1, 0))).isEqualTo(DatReturn.INVALID_HANDLE);
            assertThat(DatReturn.typeOf(pair.client().postSend(0, null, 1, 0))).isEqualTo(DatReturn.INVALID_HANDLE);
            assertThat(DatReturn.typeOf(pair.serverEvd().dequeue(new DatEvent()))).isEqualTo(DatReturn.INVALID_HANDLE);
            assertThat(ia.isOpen()).isFalse();
            assertThat(Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(n -> n.startsWith("dat-ofi-")))
                    .as("the IA's event thread").isEmpty();
            Throwable refused = org.assertj.core.api.Assertions.catchThrowable(
                    () -> factory.openIa(new IaOpenRequest(TcpLoopback.IA, 16, null, "")));
            assertThat(refused).isInstanceOf(dat.api.DatException.class);
            assertThat(DatReturn.typeOf(((dat.api.DatException) refused).code())).isEqualTo(DatReturn.PROVIDER_NOT_FOUND);
            Endpoint client = pair.client();
            assertThat(client.isOpen()).isFalse();
        }
    }
}
