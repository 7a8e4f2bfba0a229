package dat.provider.support;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.api.spi.DatProviderStatus;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

class ProviderServicesTest {

    /** A service registered with the fake context below, and whether it was unregistered. */
    private record Registered(String type, Object service, Dictionary<String, ?> properties, boolean[] unregistered) {
    }

    private final List<Registered> registered = new ArrayList<>();

    /** A bundle context that records registrations; the second unregistration of one throws, as the framework's does. */
    private BundleContext context() {
        return (BundleContext) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {BundleContext.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("registerService") || !(args[0] instanceof Class<?> type)) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    @SuppressWarnings("unchecked")
                    Registered r = new Registered(type.getName(), args[1], (Dictionary<String, ?>) args[2], new boolean[1]);
                    registered.add(r);
                    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ServiceRegistration.class},
                            (registration, call, callArgs) -> {
                                if (!call.getName().equals("unregister")) {
                                    throw new UnsupportedOperationException(call.getName());
                                }
                                if (r.unregistered()[0]) {
                                    throw new IllegalStateException("already unregistered");
                                }
                                r.unregistered()[0] = true;
                                return null;
                            });
                });
    }

    private static DatIaFactory factory(Map<String, Object> properties) {
        return new DatIaFactory() {
            @Override
            public dat.api.InterfaceAdapter openIa(dat.api.spi.IaOpenRequest request) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Map<String, Object> properties() {
                return properties;
            }
        };
    }

    @Test
    void anUnavailableProviderRegistersOnlyItsReason() {
        ProviderServices services = ProviderServices.register(context(), "dat.provider.x", "x", "no device", "X", List.of());
        assertThat(registered).hasSize(1);
        Registered status = registered.get(0);
        assertThat(status.type()).isEqualTo(DatProviderStatus.class.getName());
        assertThat(status.properties().get(DatProviderConstants.DAT_PROVIDER_NAME)).isEqualTo("x");
        assertThat(((DatProviderStatus) status.service()).providerName()).isEqualTo("x");
        assertThat(((DatProviderStatus) status.service()).unavailableReason()).isEqualTo("no device");
        services.unregister();
        assertThat(status.unregistered()[0]).isTrue();
    }

    @Test
    void eachFactoryIsRegistered_withItsListPropertiesAsArrays() {
        DatIaFactory first = factory(Map.of("dat.ia.name", "x0", "dat.extension", List.of("a", "b")));
        DatIaFactory second = factory(Map.of("dat.ia.name", "x1"));
        ProviderServices.register(context(), "dat.provider.x", "x", null, "X", List.of(first, second));
        assertThat(registered).extracting(Registered::type).containsExactly(DatIaFactory.class.getName(), DatIaFactory.class.getName());
        assertThat(registered).extracting(Registered::service).containsExactly(first, second);
        assertThat(registered.get(0).properties().get("dat.ia.name")).isEqualTo("x0");
        assertThat(registered.get(0).properties().get("dat.extension")).isEqualTo(new String[] {"a", "b"});
        assertThat(registered.get(1).properties().get("dat.ia.name")).isEqualTo("x1");
    }

    @Test
    void unregisterTakesBackEveryService_thoseTheFrameworkTookAlreadyIncluded() throws Exception {
        ProviderServices services = ProviderServices.register(context(), "dat.provider.x", "x", null, "X",
                List.of(factory(Map.of()), factory(Map.of())));
        registered.get(0).unregistered()[0] = true; // the framework took it back while stopping the bundle
        services.unregister();
        assertThat(registered).allMatch(r -> r.unregistered()[0]);
        services.unregister(); // a second stop finds nothing left
    }
}
