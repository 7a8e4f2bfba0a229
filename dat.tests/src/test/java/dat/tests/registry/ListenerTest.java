package dat.tests.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatRegistry;
import dat.api.DatRegistryListener;
import dat.api.ProviderDTO;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.test.common.annotation.InjectBundleContext;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.junit5.context.BundleContextExtension;
import org.osgi.test.junit5.service.ServiceExtension;

/** Listeners registered as whiteboard services hear providers arrive and leave. */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
@Timeout(60)
class ListenerTest {

    @InjectBundleContext
    BundleContext context;

    @InjectService(timeout = 5000)
    DatRegistry registry;

    @InjectService(timeout = 5000)
    ConfigurationAdmin cm;

    /** Records the changes of IA names that start with a prefix. */
    private record Recorder(String prefix, BlockingQueue<String> events) implements DatRegistryListener {
        @Override
        public void providerAdded(ProviderDTO provider) {
            if (provider.iaName().startsWith(prefix)) {
                events.add("+" + provider.iaName());
            }
        }

        @Override
        public void providerRemoved(ProviderDTO provider) {
            if (provider.iaName().startsWith(prefix)) {
                events.add("-" + provider.iaName());
            }
        }
    }

    @Test
    void aWhiteboardListenerHearsProvidersArriveAndLeave() throws Exception {
        Recorder recorder = new Recorder("lis", new LinkedBlockingQueue<>());
        Recorder initial = new Recorder("test0", new LinkedBlockingQueue<>());
        ServiceRegistration<?> registration = context.registerService(DatRegistryListener.class, recorder, null);
        ServiceRegistration<?> initialRegistration = context.registerService(DatRegistryListener.class, initial, null);
        Configuration configuration = null;
        try {
            assertThat(initial.events().poll(10, TimeUnit.SECONDS)).as("told of what is active now").isEqualTo("+test0");
            configuration = Support.testProvider(cm, "listener", Map.of("dat.ia.name", new String[] {"lis0", "lis1"}));
            assertThat(recorder.events().poll(10, TimeUnit.SECONDS)).isEqualTo("+lis0");
            assertThat(recorder.events().poll(10, TimeUnit.SECONDS)).isEqualTo("+lis1");
            configuration.delete();
            configuration = null;
            assertThat(recorder.events().poll(10, TimeUnit.SECONDS)).isEqualTo("-lis0");
            assertThat(recorder.events().poll(10, TimeUnit.SECONDS)).isEqualTo("-lis1");
            registration.unregister();
            registration = null;
            configuration = Support.testProvider(cm, "listener-after", Map.of("dat.ia.name", "lis2"));
            assertThat(Support.eventually(() -> Support.active(registry, "lis2").isPresent())).isTrue();
            assertThat(recorder.events()).as("an unregistered listener hears nothing").isEmpty();
        } finally {
            Support.delete(configuration);
            if (registration != null) {
                registration.unregister();
            }
            initialRegistration.unregister();
        }
    }
}
