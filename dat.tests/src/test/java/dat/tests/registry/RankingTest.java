package dat.tests.registry;

import static dat.tests.registry.Support.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.api.spi.DatIaFactory;
import java.util.List;
import java.util.Map;
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
 * Two providers offer the same IA name with different rankings: the higher ranking serves, the
 * other is listed as shadowed; when the winner leaves (with an IA open), the other takes over.
 */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
@Timeout(60)
class RankingTest {

    @InjectService(timeout = 5000)
    DatRegistry registry;

    @InjectService(timeout = 5000)
    ConfigurationAdmin cm;

    private static String label(InterfaceAdapter ia) {
        return ia.query().iaAttributes().vendorAttributes().get("dat.tests.label");
    }

    @Test
    void theHigherRankingServesAndTheOtherTakesOver(
            @InjectService(filter = "(dat.ia.name=dup0)", cardinality = 0) ServiceAware<DatIaFactory> dup0Factories)
            throws Exception {
        Configuration low = Support.testProvider(cm, "ranking-low",
                Map.of("dat.ia.name", "dup0", "service.ranking", 5, "dat.tests.label", "low"));
        Configuration high = Support.testProvider(cm, "ranking-high",
                Map.of("dat.ia.name", "dup0", "service.ranking", 10, "dat.tests.label", "high"));
        try {
            assertThat(eventually(() -> dup0Factories.size() == 2)).as("both factory services registered").isTrue();
            assertThat(eventually(() -> Support.all(registry, "dup0").size() == 2)).as("the registry has both").isTrue();
            List<ProviderDTO> dup0 = Support.all(registry, "dup0");
            assertThat(dup0).extracting(ProviderDTO::state, ProviderDTO::ranking)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(ProviderDTO.State.ACTIVE, 10),
                            org.assertj.core.groups.Tuple.tuple(ProviderDTO.State.SHADOWED, 5));
            ProviderDTO shadowed = dup0.get(1);
            assertThat(shadowed.failureReason()).isEqualTo(ProviderDTO.FAILURE_REASON_SHADOWED);
            assertThat(shadowed.failureDetail()).startsWith("shadowed by service " + dup0.get(0).id());
            assertThat(registry.listProviders()).filteredOn(info -> info.iaName().equals("dup0")).hasSize(1);

            InterfaceAdapter fromWinner = registry.openIa("dup0");
            assertThat(label(fromWinner)).isEqualTo("high");
            EventDispatcher asyncEvd = fromWinner.query().asyncEvd();

            // the winner leaves while its IA is open
            high.delete();
            high = null;
            assertThat(eventually(() -> dup0Factories.size() == 1)).isTrue();
            DatEvent event = new DatEvent();
            assertThat(asyncEvd.await(DatConstants.TIMEOUT_INFINITE, 1, event)).isEqualTo(DatReturn.SUCCESS);
            assertThat(event.eventNumber()).isEqualTo(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC);
            fromWinner.close();

            assertThat(eventually(() -> Support.active(registry, "dup0").map(ProviderDTO::ranking).orElse(0) == 5)).isTrue();
            assertThat(Support.all(registry, "dup0")).singleElement().extracting(ProviderDTO::state)
                    .isEqualTo(ProviderDTO.State.ACTIVE);
            try (InterfaceAdapter fromOther = registry.openIa("dup0")) {
                assertThat(label(fromOther)).isEqualTo("low");
            }
        } finally {
            Support.delete(high);
            Support.delete(low);
        }
        assertThat(eventually(() -> Support.all(registry, "dup0").isEmpty())).isTrue();
    }
}
