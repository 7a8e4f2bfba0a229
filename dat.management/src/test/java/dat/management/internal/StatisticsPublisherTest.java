package dat.management.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.api.RegistryRuntimeDTO;
import dat.api.ext.IaStatistics;
import dat.management.IaStatisticsMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The publisher against a registry view the test sets. */
class StatisticsPublisherTest {

    /** An IA name no other test of this JVM publishes. */
    private static final String IA_NAME = "publisher-test0";

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final List<ProviderDTO> view = new CopyOnWriteArrayList<>();
    /** No sweep during a test: what the test sees comes from the registry's notifications. */
    private final StatisticsPublisher publisher = new StatisticsPublisher(3_600_000,
            () -> List.of(new RegistryRuntimeDTO(view, "", true, List.of())));

    @AfterEach
    void stop() {
        publisher.deactivate();
    }

    private static ProviderDTO entry(long id, ProviderDTO.State state, int ranking) {
        return new ProviderDTO(id, IA_NAME, 1, 2, false, "sim", "1.0", "sim", ranking, ProviderDTO.Origin.DYNAMIC, state,
                state == ProviderDTO.State.ACTIVE ? ProviderDTO.FAILURE_REASON_NONE : ProviderDTO.FAILURE_REASON_SHADOWED,
                state == ProviderDTO.State.ACTIVE ? "" : "shadowed", "service " + id, "", 0, Map.of("dat.ia.name", IA_NAME));
    }

    /** An open IA that keeps counters (never read here). */
    private static InterfaceAdapter openIa() {
        IaStatistics statistics = () -> null;
        return (InterfaceAdapter) Proxy.newProxyInstance(InterfaceAdapter.class.getClassLoader(),
                new Class<?>[] {InterfaceAdapter.class}, (self, method, args) -> switch (method.getName()) {
                    case "name" -> IA_NAME;
                    case "isOpen" -> true;
                    case "extension" -> args[0] == IaStatistics.class ? Optional.of(statistics) : Optional.empty();
                    case "hashCode" -> System.identityHashCode(self);
                    case "equals" -> self == args[0];
                    case "toString" -> "IA " + IA_NAME;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private ObjectName published() {
        List<StatisticsPublisher.Published> published = publisher.published(IA_NAME);
        assertThat(published).hasSize(1);
        ObjectName name = published.getFirst().name();
        assertThat(server.isRegistered(name)).isTrue();
        return name;
    }

    @Test
    void theMXBeanOfAnOpenIaStaysWhenItsProviderIsOnlyOutranked() {
        ProviderDTO sim = entry(12, ProviderDTO.State.ACTIVE, 0);
        view.add(sim);
        publisher.iaOpened(sim, openIa());
        ObjectName name = published();

        // a provider of the same IA with a higher ranking arrives: the registry reports sim removed
        view.set(0, entry(12, ProviderDTO.State.SHADOWED, 0));
        view.addFirst(entry(20, ProviderDTO.State.ACTIVE, 10));
        publisher.providerRemoved(sim);

        assertThat(server.isRegistered(name)).as("the MXBean of the still open IA").isTrue();
        assertThat(publisher.published(IA_NAME)).hasSize(1);
    }

    @Test
    void theMXBeanGoesAtOnceWhenItsProviderLeaves() {
        ProviderDTO sim = entry(12, ProviderDTO.State.ACTIVE, 0);
        view.add(sim);
        publisher.iaOpened(sim, openIa());
        ObjectName name = published();

        view.clear();
        publisher.providerRemoved(sim);

        assertThat(server.isRegistered(name)).isFalse();
        assertThat(publisher.published(IA_NAME)).isEmpty();
        assertThat(name.getKeyProperty("type")).isEqualTo(IaStatisticsMXBean.TYPE_IA);
    }
}
