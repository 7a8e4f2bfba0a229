package dat.tests.registry;

import static dat.tests.registry.Support.assertCode;
import static dat.tests.registry.Support.assertStatus;
import static dat.tests.registry.Support.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.AsyncErrorReason;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatRegistry;
import dat.api.DatRegistryListener;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
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
 * Hot swap: the provider bundle stops while a consumer holds an open IA, with threads waiting on
 * its EVDs. The IA gets DAT_ASYNC_ERROR_IA_CATASTROPHIC, every waiter wakes, every handle answers
 * DAT_INVALID_HANDLE afterwards, the provider leaves no thread behind and nothing keeps the IA alive,
 * the registry stops listing it; when the bundle starts again, the IA opens again.
 */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
@Timeout(60)
class HotSwapTest {

    @InjectBundleContext
    BundleContext context;

    @InjectService(timeout = 5000)
    DatRegistry registry;

    @Test
    void theProviderBundleStopsUnderAnOpenIaAndComesBack() throws Exception {
        Bundle provider = Support.bundle(context, "dat.tests.provider");
        assertThat(eventually(() -> Support.active(registry, "test0").isPresent())).isTrue();
        List<String> threadsBefore = Support.providerThreads();
        BlockingQueue<String> changes = new LinkedBlockingQueue<>();
        DatRegistryListener listener = new DatRegistryListener() {
            @Override
            public void providerAdded(ProviderDTO dto) {
                if (dto.iaName().equals("test0")) {
                    changes.add("added");
                }
            }

            @Override
            public void providerRemoved(ProviderDTO dto) {
                if (dto.iaName().equals("test0")) {
                    changes.add("removed");
                }
            }
        };
        registry.addListener(listener);
        WeakReference<InterfaceAdapter> failedIa;
        try {
            assertThat(changes.poll(5, TimeUnit.SECONDS)).isEqualTo("added");
            failedIa = stopTheProviderUnderAnOpenIa(provider, threadsBefore);
            assertThat(changes.poll(5, TimeUnit.SECONDS)).isEqualTo("removed");
        } finally {
            provider.start();
        }

        // nothing keeps the failed IA alive once its consumer lets go of it: not the registry either
        for (int i = 0; i < 100 && failedIa.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(failedIa.get()).as("the failed IA is garbage once the consumer drops it").isNull();

        // the provider comes back: the consumer that follows the registry opens again
        assertThat(changes.poll(10, TimeUnit.SECONDS)).isEqualTo("added");
        registry.removeListener(listener);
        try (InterfaceAdapter again = registry.openIa("test0")) {
            assertThat(again.isOpen()).isTrue();
            assertThat(again.query().iaAttributes().adapterName()).isEqualTo("test0");
        }
        assertThat(Support.providerThreads()).isEqualTo(threadsBefore);
    }

    /** Opens test0, has two threads wait on it, stops the provider bundle, checks the aftermath. */
    private WeakReference<InterfaceAdapter> stopTheProviderUnderAnOpenIa(Bundle provider, List<String> threadsBefore)
            throws Exception {
        InterfaceAdapter ia = registry.openIa("test0");
        EventDispatcher asyncEvd = ia.query().asyncEvd();
        EventDispatcher evd = ia.createEventDispatcher(8, null, EvdFlags.SOFTWARE | EvdFlags.DTO);
        assertThat(Support.providerThreads()).as("the IA's async event thread").hasSize(threadsBefore.size() + 1);

        // two consumers wait: one for async errors, one for completions that will never come
        DatEvent asyncEvent = new DatEvent();
        DatEvent completion = new DatEvent();
        CompletableFuture<Integer> asyncWait = CompletableFuture.supplyAsync(
                () -> asyncEvd.await(DatConstants.TIMEOUT_INFINITE, 1, asyncEvent));
        CompletableFuture<Integer> completionWait = CompletableFuture.supplyAsync(
                () -> evd.await(DatConstants.TIMEOUT_INFINITE, 1, completion));
        assertThat(eventually(() -> evd.dequeue(new DatEvent()) == DatReturn.error(DatReturn.INVALID_STATE,
                DatReturn.NO_SUBTYPE))).as("the completion waiter is waiting").isTrue();

        provider.stop();

        // the catastrophe reaches the async EVD's waiter; the other waiter is woken
        assertThat(asyncWait.get(10, TimeUnit.SECONDS)).isEqualTo(DatReturn.SUCCESS);
        assertThat(asyncEvent.eventNumber()).isEqualTo(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC);
        assertThat(asyncEvent.asyncHandle()).isSameAs(ia);
        assertThat(asyncEvent.asyncReason()).isEqualTo(AsyncErrorReason.IA_CATASTROPHIC_ERROR);
        assertStatus(completionWait.get(10, TimeUnit.SECONDS), DatReturn.ABORT);

        // every handle answers DAT_INVALID_HANDLE from now on
        assertThat(ia.isOpen()).isFalse();
        assertCode(ia::query, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_IA);
        assertCode(() -> ia.createEventDispatcher(1, null, EvdFlags.SOFTWARE), DatReturn.INVALID_HANDLE,
                DatReturn.INVALID_HANDLE_IA);
        assertCode(ia::createProtectionZone, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_IA);
        assertStatus(asyncEvd.dequeue(new DatEvent()), DatReturn.INVALID_HANDLE);
        assertStatus(evd.postSoftwareEvent("late"), DatReturn.INVALID_HANDLE);
        assertStatus(evd.await(0, 1, new DatEvent()), DatReturn.INVALID_HANDLE);

        // no thread left behind, and the registry no longer offers the IA
        assertThat(Support.providerThreads()).isEqualTo(threadsBefore);
        assertThat(Support.all(registry, "test0")).isEmpty();
        assertThat(registry.listProviders()).noneMatch(info -> info.iaName().equals("test0"));
        assertCode(() -> registry.openIa("test0"), DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED);

        // freeing what the consumer holds still works
        evd.close();
        ia.close();
        asyncEvent.clear();
        return new WeakReference<>(ia);
    }
}
