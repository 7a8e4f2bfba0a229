package dat.api;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * Pins the flag sets of DAT12-FACTS.md section 3.6 (illumos {@code dat.h}, {@code udat.h}) and
 * checks that {@code isValid} accepts exactly the defined bits.
 */
class FlagsTest {

    /** Creates the test instance; JUnit calls it. */
    FlagsTest() {}

    /**
     * Checks {@code isValid}: every value made of the defined bits passes; every other single bit
     * fails, alone and added to the defined bits.
     *
     * @param isValid the predicate under test
     * @param definedBits the union of the defined bits, written out by the test
     */
    private static void assertValidBits(IntPredicate isValid, int definedBits) {
        assertThat(isValid.test(0)).isTrue();
        assertThat(isValid.test(definedBits)).isTrue();
        for (int bit = 0; bit < 32; bit++) {
            int flag = 1 << bit;
            boolean defined = (definedBits & flag) != 0;
            assertThat(isValid.test(flag)).as("bit 0x%X", flag).isEqualTo(defined);
            assertThat(isValid.test(definedBits | flag)).as("bits 0x%X", definedBits | flag)
                    .isEqualTo(defined);
        }
    }

    /** DAT_EVD_FLAGS. */
    @Test
    void evdFlags() {
        assertThat(Constants.of(EvdFlags.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("SOFTWARE", 0x001),
                entry("CR", 0x010),
                entry("DTO", 0x020),
                entry("CONNECTION", 0x040),
                entry("RMR_BIND", 0x080),
                entry("ASYNC", 0x100),
                entry("DEFAULT", 0x1F0)));
        assertValidBits(EvdFlags::isValid, 0x1F1);
    }

    /** DAT_EVD_STATE. */
    @Test
    void evdState() {
        assertThat(Constants.of(EvdState.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("ENABLED", 0x01),
                entry("DISABLED", 0x02),
                entry("WAITABLE", 0x04),
                entry("UNWAITABLE", 0x08),
                entry("CONFIG_NOTIFY", 0x10),
                entry("CONFIG_SOLICITED", 0x20),
                entry("CONFIG_THRESHOLD", 0x30)));
        assertValidBits(EvdState::isValid, 0x3F);
    }

    /** DAT_COMPLETION_FLAGS. */
    @Test
    void completionFlags() {
        assertThat(Constants.of(CompletionFlags.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("DEFAULT", 0x00),
                entry("SUPPRESS", 0x01),
                entry("SOLICITED_WAIT", 0x02),
                entry("UNSIGNALLED", 0x04),
                entry("BARRIER_FENCE", 0x08),
                entry("EVD_THRESHOLD", 0x10)));
        assertValidBits(CompletionFlags::isValid, 0x1F);
    }

    /** DAT_MEM_PRIV_FLAGS, with the Sun RO_DISABLE bit and the DAT 1.0 READ and WRITE. */
    @Test
    void memPrivileges() {
        assertThat(Constants.of(MemPrivileges.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("NONE", 0x00),
                entry("LOCAL_READ", 0x01),
                entry("REMOTE_READ", 0x02),
                entry("LOCAL_WRITE", 0x10),
                entry("REMOTE_WRITE", 0x20),
                entry("ALL", 0x33),
                entry("RO_DISABLE", 0x100),
                entry("READ", 0x03),
                entry("WRITE", 0x30)));
        assertValidBits(MemPrivileges::isValid, 0x133);
    }

    /** DAT_QOS. */
    @Test
    void qos() {
        assertThat(Constants.of(Qos.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("BEST_EFFORT", 0),
                entry("HIGH_THROUGHPUT", 1),
                entry("LOW_LATENCY", 2),
                entry("ECONOMY", 4),
                entry("PREMIUM", 8)));
        assertValidBits(Qos::isValid, 0x0F);
    }

    /** DAT_CONNECT_FLAGS. */
    @Test
    void connectFlags() {
        assertThat(Constants.of(ConnectFlags.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("DEFAULT", 0),
                entry("MULTIPATH", 1)));
        assertValidBits(ConnectFlags::isValid, 0x01);
    }
}
