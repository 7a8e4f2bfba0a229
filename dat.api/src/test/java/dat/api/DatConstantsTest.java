package dat.api;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pins the basic constants of DAT12-FACTS.md section 3.2 and checks the timeout range. */
class DatConstantsTest {

    /** Creates the test instance; JUnit calls it. */
    DatConstantsTest() {}

    /** Every public constant with its exact value. */
    @Test
    void everyConstantHasItsDat12Value() {
        assertThat(Constants.of(DatConstants.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("VERSION_MAJOR", 1),
                entry("VERSION_MINOR", 2),
                entry("NAME_MAX_LENGTH", 256),
                entry("TIMEOUT_INFINITE", 0xFFFFFFFFL),
                entry("LMR_COOKIE_SIZE", 40),
                entry("OPTIMAL_ALIGNMENT", 256),
                entry("WATERMARK_INFINITE", -1),
                entry("HW_DEFAULT", -1),
                entry("VALUE_UNKNOWN", -2),
                entry("SRQ_LW_DEFAULT", 0),
                entry("IA_NAME_RO_AWARE_PREFIX", "RO_AWARE_")));
    }

    /** The C casts: ~0 as u32 for the timeout, ~0 and ~0 - 1 as int for the counts. */
    @Test
    void valuesMatchTheCCasts() {
        assertThat(DatConstants.TIMEOUT_INFINITE).isEqualTo(Integer.toUnsignedLong(~0));
        assertThat(DatConstants.WATERMARK_INFINITE).isEqualTo(~0);
        assertThat(DatConstants.VALUE_UNKNOWN).isEqualTo(~0 - 1);
    }

    /** A DAT timeout is 0..0xFFFFFFFF microseconds. */
    @Test
    void timeoutRange() {
        assertThat(DatConstants.isValidTimeout(0)).isTrue();
        assertThat(DatConstants.isValidTimeout(1_000_000)).isTrue();
        assertThat(DatConstants.isValidTimeout(0xFFFFFFFFL)).isTrue();
        assertThat(DatConstants.isValidTimeout(0x1_0000_0000L)).isFalse();
        assertThat(DatConstants.isValidTimeout(-1)).isFalse();
        assertThat(DatConstants.isValidTimeout(Long.MAX_VALUE)).isFalse();
    }
}
