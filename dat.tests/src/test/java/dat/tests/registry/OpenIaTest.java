package dat.tests.registry;

import static dat.tests.registry.Support.assertCode;
import static dat.tests.registry.Support.assertStatus;
import static dat.tests.registry.Support.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.IaQuery;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.api.ProviderInfo;
import dat.api.spi.DatIaFactory;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.common.service.ServiceAware;
import org.osgi.test.junit5.context.BundleContextExtension;
import org.osgi.test.junit5.service.ServiceExtension;

/**
 * Listing and opening through the registry service inside a framework, with the test provider
 * bundle's always-present IA {@code test0}: dat_registry_list_providers and dat_ia_open with every
 * return code of dat_ia_open(3DAT).
 */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
@Timeout(60)
class OpenIaTest {

    @InjectService(timeout = 5000)
    DatRegistry registry;

    @InjectService(timeout = 5000)
    ConfigurationAdmin cm;

    @Test
    void listsTheTestProvider(
            @InjectService(filter = "(dat.provider.name=test)", timeout = 5000) ServiceAware<DatIaFactory> factories)
            throws InterruptedException {
        assertThat(factories.getServices()).isNotEmpty();
        assertThat(eventually(() -> Support.active(registry, "test0").isPresent())).isTrue();
        assertThat(registry.listProviders()).contains(new ProviderInfo("test0", 1, 2, false));
        ProviderDTO test0 = Support.active(registry, "test0").orElseThrow();
        assertThat(test0.providerName()).isEqualTo("test");
        assertThat(test0.transport()).isEqualTo("loopback");
        assertThat(test0.origin()).isEqualTo(ProviderDTO.Origin.DYNAMIC);
        assertThat(test0.source()).startsWith("service ").endsWith(" of bundle dat.tests.provider");
        assertThat(test0.id()).isPositive();
        assertThat(registry.findProviders("(&(dat.transport=loopback)(dat.tests.label=default))"))
                .extracting(ProviderDTO::iaName).contains("test0");
        ProviderInfo[] list = new ProviderInfo[64];
        int n = registry.listProviders(64, list);
        assertThat(list).contains(new ProviderInfo("test0", 1, 2, false));
        assertThat(n).isEqualTo(registry.listProviders().size());
    }

    @Test
    void opensTheSimProviderWhenItIsThere(
            @InjectService(filter = "(dat.provider.name=sim)", cardinality = 0) ServiceAware<DatIaFactory> sim)
            throws InterruptedException {
        Assumptions.assumeFalse(sim.isEmpty(), "no sim provider in this run");
        Object names = sim.getServiceReference().getProperty("dat.ia.name");
        String iaName = names instanceof String[] array ? array[0] : String.valueOf(names);
        assertThat(eventually(() -> Support.active(registry, iaName).isPresent())).isTrue();
        try (InterfaceAdapter ia = registry.openIa(iaName)) {
            assertThat(ia.query().providerAttributes().providerName()).isEqualTo("sim");
            assertThat(Support.active(registry, iaName).orElseThrow().openIas()).isEqualTo(1);
        }
    }

    @Test
    void opensQueriesAndClosesAnIa() {
        try (InterfaceAdapter ia = registry.openIa("test0")) {
            assertThat(ia.name()).isEqualTo("test0");
            IaQuery query = ia.query();
            assertThat(query.iaAttributes().adapterName()).isEqualTo("test0");
            assertThat(query.iaAttributes().vendorAttributes()).containsEntry("dat.tests.label", "default");
            assertThat(query.providerAttributes().providerName()).isEqualTo("test");
            assertThat(Support.active(registry, "test0").orElseThrow().openIas()).isEqualTo(1);

            // the async EVD is a real queue; a software EVD too
            EventDispatcher asyncEvd = query.asyncEvd();
            DatEvent event = new DatEvent();
            assertStatus(asyncEvd.dequeue(event), DatReturn.QUEUE_EMPTY);
            EventDispatcher evd = ia.createEventDispatcher(4, null, EvdFlags.SOFTWARE);
            assertThat(evd.postSoftwareEvent("hello")).isEqualTo(DatReturn.SUCCESS);
            assertThat(evd.await(1_000_000, 1, event)).isEqualTo(DatReturn.SUCCESS);
            assertThat(event.eventNumber()).isEqualTo(EventNumber.SOFTWARE_EVENT);
            assertThat(event.softwarePointer()).isEqualTo("hello");
            assertStatus(evd.await(1000, 1, event), DatReturn.TIMEOUT_EXPIRED);
            evd.close();

            // what this provider does not implement, it says so
            assertCode(ia::createProtectionZone, DatReturn.NOT_IMPLEMENTED, DatReturn.NO_SUBTYPE);
        }
        assertThat(Support.active(registry, "test0").orElseThrow().openIas()).isZero();
    }

    @Test
    void answersEveryCodeOfDatIaOpen() throws Exception {
        // DAT_PROVIDER_NOT_FOUND with each subtype
        assertCode(() -> registry.openIa("nosuch0"), DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED);
        assertCode(() -> registry.openIa("test0", 8, null, 2, 0, false), DatReturn.PROVIDER_NOT_FOUND,
                DatReturn.MAJOR_NOT_FOUND);
        assertCode(() -> registry.openIa("test0", 8, null, 1, 3, false), DatReturn.PROVIDER_NOT_FOUND,
                DatReturn.MINOR_NOT_FOUND);
        assertCode(() -> registry.openIa("test0", 8, null, 1, 2, true), DatReturn.PROVIDER_NOT_FOUND,
                DatReturn.THREAD_SAFETY_NOT_FOUND);
        // DAT_INVALID_PARAMETER
        assertCode(() -> registry.openIa(""), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1);
        assertCode(() -> registry.openIa("test0", 0, null, 1, 2, false), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG2);
        assertCode(() -> registry.openIa("test0", 100_000, null, 1, 2, false), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG2);

        Configuration other = Support.testProvider(cm, "open-codes", Map.of(
                "dat.ia.name", new String[] {"limited0"}, "dat.tests.max.ias", 1, "dat.tests.label", "limited"));
        try {
            assertThat(eventually(() -> Support.active(registry, "limited0").isPresent())).isTrue();
            // DAT_INSUFFICIENT_RESOURCES: this instance opens one IA at a time
            try (InterfaceAdapter first = registry.openIa("limited0")) {
                assertCode(() -> registry.openIa("limited0"), DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_DEVICE);

                // DAT_INVALID_HANDLE: an async EVD of another provider instance, and a closed one
                EventDispatcher foreign = first.query().asyncEvd();
                assertCode(() -> registry.openIa("test0", 8, foreign, 1, 2, false), DatReturn.INVALID_HANDLE,
                        DatReturn.INVALID_HANDLE_EVD_ASYNC);
                EventDispatcher closed = first.createEventDispatcher(1, null, EvdFlags.SOFTWARE);
                closed.close();
                assertCode(() -> registry.openIa("limited0", 8, closed, 1, 2, false), DatReturn.INVALID_HANDLE,
                        DatReturn.INVALID_HANDLE_EVD_ASYNC);
            }
            // DAT_SUCCESS again once the first IA is closed
            registry.openIa("limited0").close();
        } finally {
            Support.delete(other);
        }
    }

    @Test
    void sharesAnAsyncEvdAndAcceptsAnExistingOneElsewhere() {
        try (InterfaceAdapter first = registry.openIa("test0")) {
            EventDispatcher asyncEvd = first.query().asyncEvd();
            try (InterfaceAdapter second = registry.openIa("test0", 8, asyncEvd, 1, 2, false);
                    InterfaceAdapter third = registry.openIa("RO_AWARE_test0", 0, EventDispatcher.ASYNC_EXISTS, 1, 2, false)) {
                assertThat(second.query().asyncEvd()).isSameAs(asyncEvd);
                assertThat(third.query().asyncEvd()).isSameAs(EventDispatcher.OUT_OF_SCOPE);
                assertThat(third.name()).isEqualTo("test0");
            }
        }
    }

    @Test
    void aThreadSafeProviderServesEveryConsumer() throws Exception {
        Configuration safe = Support.testProvider(cm, "thread-safe", Map.of(
                "dat.ia.name", "safe0", "dat.thread.safe", Boolean.TRUE, "dat.api.version", "1.3"));
        try {
            assertThat(eventually(() -> Support.active(registry, "safe0").isPresent())).isTrue();
            registry.openIa("safe0", 8, null, 1, 2, true).close();
            registry.openIa("safe0", 8, null, 1, 3, false).close();
            assertThat(registry.listProviders()).contains(new ProviderInfo("safe0", 1, 3, true));
        } finally {
            Support.delete(safe);
        }
        assertThat(eventually(() -> Support.all(registry, "safe0").isEmpty())).isTrue();
    }
}
