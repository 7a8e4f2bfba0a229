package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a waiter spins before it blocks ({@link SpinWindow}). */
class SpinWindowTest {

    private static final long START = 1_000_000_000L;

    @Test
    void spinsWhileWaitsAreShortStopsAfterLongOnesInARowAndResumesAfterAShortOne() {
        SpinWindow window = new SpinWindow();
        assertThat(window.spinUntil(START)).as("a first wait spins").isEqualTo(START + OfiIa.SPIN_NANOS);
        for (int i = 0; i < SpinWindow.LONG_WAITS - 1; i++) {
            window.waited(OfiIa.SPIN_NANOS * 3);
        }
        assertThat(window.spinUntil(START)).as("fewer long waits in a row than the limit").isEqualTo(START + OfiIa.SPIN_NANOS);
        window.waited(OfiIa.SPIN_NANOS / 2);
        for (int i = 0; i < SpinWindow.LONG_WAITS - 1; i++) {
            window.waited(OfiIa.SPIN_NANOS * 3);
        }
        assertThat(window.spinUntil(START)).as("a short wait restarted the count").isEqualTo(START + OfiIa.SPIN_NANOS);
        window.waited(OfiIa.SPIN_NANOS);
        assertThat(window.spinUntil(START)).as("long waits in a row: the next blocks at once").isEqualTo(START);
        window.waited(OfiIa.SPIN_NANOS * 100);
        assertThat(window.spinUntil(START)).isEqualTo(START);
        window.waited(OfiIa.SPIN_NANOS - 1);
        assertThat(window.spinUntil(START)).as("a wait that ended within the window, though it blocked").isEqualTo(START + OfiIa.SPIN_NANOS);
    }
}
