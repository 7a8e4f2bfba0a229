package dat.registry.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.spi.DatIaFactory;
import dat.registry.RecordingFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the standalone registry's close does with the provider instances it owns. */
class StandaloneTest {

    @Test
    void aProviderFailingToClose_leavesTheOthersToCloseAllTheSame() {
        RecordingFactory failing = new RecordingFactory("failing", "fail0") {
            @Override
            public void close() {
                calls.add("close");
                throw new IllegalStateException("refuses to close");
            }
        };
        RecordingFactory after = new RecordingFactory("after", "after0");
        DatIaFactory notCloseable = request -> RecordingFactory.ia(request.iaName());
        Standalone registry = new Standalone(new Registry(0), List.of(failing, notCloseable, after));

        registry.close();

        assertThat(failing.calls).containsExactly("close");
        assertThat(after.calls).containsExactly("close");
        assertThat(registry).hasToString("closed standalone DAT registry, 3 provider(s) loaded");
    }
}
