package dat.tests.ofi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dat.api.AsyncErrorReason;
import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatRegistry;
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
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.spi.DatIaFactory;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.test.common.annotation.InjectBundleContext;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.junit5.context.BundleContextExtension;
import org.osgi.test.junit5.service.ServiceExtension;

/**
 * The ofi provider bundle stopped with an IA open (the hot swap, docs/ofi-provider.md): a
 * connection of {@code ofi-tcp-lo} is up, receives are posted, consumers wait on the async EVD and
 * on a DTO EVD. Stopping the bundle unregisters its factories, posts
 * {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC}, completes every posted receive as flushed (the EVD hands
 * those out, then answers {@code DAT_INVALID_HANDLE}), wakes the waiters, ends the IA's event
 * thread; the bundle starts again and its IAs open again. Skipped where libfabric's tcp provider is
 * missing.
 */
@ExtendWith(BundleContextExtension.class)
@ExtendWith(ServiceExtension.class)
@Timeout(120)
class OfiBundleTest {

    /** Each waiter on a thread of its own (the common pool may have a single thread on two cores). */
    private static final java.util.concurrent.Executor OWN_THREAD = task -> Thread.ofPlatform().daemon().start(task);

    @InjectBundleContext
    BundleContext context;

    @InjectService(timeout = 5000)
    DatRegistry registry;

    private Bundle ofiBundle() {
        return Arrays.stream(context.getBundles()).filter(b -> "dat.provider.ofi".equals(b.getSymbolicName()))
                .findFirst().orElseThrow(() -> new AssertionError("dat.provider.ofi is not installed"));
    }

    private int factories() throws Exception {
        return context.getServiceReferences(DatIaFactory.class, "(dat.ia.name=ofi-tcp-lo)").size();
    }

    private static List<String> ofiThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith("dat-ofi-")).sorted().toList();
    }

    private static int await(EventDispatcher evd, DatEvent event) {
        return evd.await(TimeUnit.SECONDS.toMicros(10), 1, event);
    }

    @Test
    void theBundleStopsUnderAnOpenIaAndComesBack() throws Exception {
        assumeTrue(factories() == 1, "no ofi-tcp-lo: libfabric or its tcp provider is missing");
        Bundle bundle = ofiBundle();
        List<String> threadsBefore = ofiThreads();
        try (Arena arena = Arena.ofShared()) {
            InterfaceAdapter ia = registry.openIa("ofi-tcp-lo");
            EventDispatcher async = ia.query().asyncEvd();
            ProtectionZone pz = ia.createProtectionZone();
            EventDispatcher dto = ia.createEventDispatcher(64, null, EvdFlags.DTO);
            EventDispatcher conn = ia.createEventDispatcher(16, null, EvdFlags.CONNECTION | EvdFlags.CR);
            EventDispatcher quiet = ia.createEventDispatcher(4, null, EvdFlags.SOFTWARE);
            PublicServicePoint psp = ia.createPublicServicePointAny(conn, PspFlag.CONSUMER);
            Endpoint active = ia.createEndpoint(pz, dto, dto, conn, null);
            Endpoint passive = ia.createEndpoint(pz, dto, dto, conn, null);
            active.connect(ia.query().iaAttributes().iaAddress(), psp.connQual(), TimeUnit.SECONDS.toMicros(10), null, 0, 0);
            DatEvent event = new DatEvent();
            for (int established = 0; established < 2;) {
                assertThat(await(conn, event)).isEqualTo(DatReturn.SUCCESS);
                if (event.eventNumber() == EventNumber.CONNECTION_REQUEST_EVENT) {
                    event.connectionRequest().accept(passive, null);
                } else {
                    assertThat(event.eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                    established++;
                }
            }
            LocalMemoryRegion lmr = ia.registerMemory(arena.allocate(4096), pz, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
            for (int i = 0; i < 3; i++) {
                assertThat(passive.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 64)}, 100 + i, CompletionFlags.DEFAULT))
                        .isEqualTo(DatReturn.SUCCESS);
            }
            assertThat(ofiThreads()).as("the IA's event thread").hasSize(threadsBefore.size() + 1);
            DatEvent catastrophe = new DatEvent();
            CompletableFuture<Integer> asyncWait = CompletableFuture.supplyAsync(
                    () -> async.await(DatConstants.TIMEOUT_INFINITE, 1, catastrophe), OWN_THREAD);
            CompletableFuture<Integer> quietWait = CompletableFuture.supplyAsync(
                    () -> quiet.await(DatConstants.TIMEOUT_INFINITE, 1, new DatEvent()), OWN_THREAD);
            for (int i = 0; i < 100 && quiet.dequeue(new DatEvent()) != DatReturn.error(DatReturn.INVALID_STATE,
                    DatReturn.INVALID_STATE_EVD_WAITER); i++) {
                Thread.sleep(20); // until the waiter is registered
            }

            bundle.stop();
            try {
                assertThat(factories()).isZero();
                assertThat(asyncWait.get(10, TimeUnit.SECONDS)).isEqualTo(DatReturn.SUCCESS);
                assertThat(catastrophe.eventNumber()).isEqualTo(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC);
                assertThat(catastrophe.asyncReason()).isEqualTo(AsyncErrorReason.IA_CATASTROPHIC_ERROR);
                assertThat(DatReturn.typeOf(quietWait.get(10, TimeUnit.SECONDS))).isEqualTo(DatReturn.ABORT);
                // every posted receive's fate is there to read, then the EVD is gone
                List<Long> flushed = new ArrayList<>();
                while (dto.dequeue(event) == DatReturn.SUCCESS) {
                    if (event.endpoint() == passive) {
                        assertThat(event.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
                        flushed.add(event.userCookie());
                    }
                }
                assertThat(flushed).containsExactly(100L, 101L, 102L);
                assertThat(DatReturn.typeOf(dto.dequeue(event))).isEqualTo(DatReturn.INVALID_HANDLE);
                assertThat(DatReturn.typeOf(active.postSend(0, null, 1, 0))).isEqualTo(DatReturn.INVALID_HANDLE);
                assertThatThrownBy(ia::createProtectionZone).isInstanceOfSatisfying(DatException.class,
                        e -> assertThat(DatReturn.typeOf(e.code())).isEqualTo(DatReturn.INVALID_HANDLE));
                assertThat(ofiThreads()).isEqualTo(threadsBefore);
                ia.close();
            } finally {
                bundle.start();
            }
        }
        for (int i = 0; i < 250 && factories() == 0; i++) {
            Thread.sleep(20);
        }
        assertThat(factories()).isEqualTo(1);
        try (InterfaceAdapter again = registry.openIa("ofi-tcp-lo")) {
            assertThat(again.isOpen()).isTrue();
        }
        assertThat(ofiThreads()).isEqualTo(threadsBefore);
    }
}
