package dat.registry.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatRegistryListener;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.api.ProviderInfo;
import dat.registry.RecordingFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link DatRegistryListener#iaOpened}: a listener hears of every IA opened through the registry,
 * and, when it is added, of every IA open at that moment; a closed IA is not replayed.
 */
class IaOpenedListenerTest {

    private final Registry registry = new Registry(4);

    /** Records "opened <ia> by <provider>" lines. */
    private static final class Recorder implements DatRegistryListener {
        final List<String> opened = new ArrayList<>();
        final List<InterfaceAdapter> ias = new ArrayList<>();

        @Override
        public void providerAdded(ProviderDTO provider) {
        }

        @Override
        public void providerRemoved(ProviderDTO provider) {
        }

        @Override
        public void iaOpened(ProviderDTO provider, InterfaceAdapter ia) {
            opened.add("opened " + ia.name() + " by " + provider.providerName());
            ias.add(ia);
        }
    }

    @Test
    void everyOpenIsReportedWithItsProviderAndIa() {
        registry.addProvider(new RecordingFactory("rec"), new ProviderInfo("rec0", 1, 2, false));
        Recorder recorder = new Recorder();
        registry.addListener(recorder);

        InterfaceAdapter first = registry.openIa("rec0");
        InterfaceAdapter second = registry.openIa("rec0");

        assertThat(recorder.opened).containsExactly("opened rec0 by rec", "opened rec0 by rec");
        assertThat(recorder.ias).containsExactly(first, second);
    }

    @Test
    void aListenerAddedLaterHearsOfTheIasOpenThenButNotOfClosedOnes() {
        registry.addProvider(new RecordingFactory("rec"), new ProviderInfo("rec0", 1, 2, false));
        InterfaceAdapter open = registry.openIa("rec0");
        InterfaceAdapter closed = registry.openIa("rec0");
        closed.close();

        Recorder recorder = new Recorder();
        registry.addListener(recorder);

        assertThat(recorder.ias).containsExactly(open);
    }

    @Test
    void aFailedOpenIsNotReported() {
        RecordingFactory failing = new RecordingFactory("rec");
        failing.failOpen = new IllegalStateException("no");
        registry.addProvider(failing, new ProviderInfo("rec0", 1, 2, false));
        Recorder recorder = new Recorder();
        registry.addListener(recorder);

        try {
            registry.openIa("rec0");
        } catch (RuntimeException expected) {
            // the open fails
        }

        assertThat(recorder.opened).isEmpty();
    }
}
