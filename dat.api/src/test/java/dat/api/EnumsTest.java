package dat.api;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * Pins the enums that mirror C enums to their DAT 1.2 values (DAT12-FACTS.md sections 3.1, 3.4
 * and 3.6, illumos {@code dat.h} and {@code udat.h}), checks {@code of(int)} both ways and its
 * rejection of undefined values.
 */
class EnumsTest {

    /** Creates the test instance; JUnit calls it. */
    EnumsTest() {}

    /**
     * Checks an enum against a table of name to value, in declaration order.
     *
     * @param <E> the enum type
     * @param type the enum class
     * @param value its {@code value()} accessor
     * @param of its {@code of(int)} factory
     * @param expected the names and values, in the order of the C enum
     */
    private static <E extends Enum<E>> void assertEnum(
            Class<E> type,
            ToIntFunction<E> value,
            IntFunction<E> of,
            Map<String, Integer> expected) {
        Map<String, Integer> actual = new LinkedHashMap<>();
        for (E constant : type.getEnumConstants()) {
            actual.put(constant.name(), value.applyAsInt(constant));
            assertThat(of.apply(value.applyAsInt(constant))).isSameAs(constant);
        }
        assertThat(actual).containsExactlyEntriesOf(expected);
        int max = expected.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
        for (int undefined : new int[] {-1, max + 1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertThatThrownBy(() -> of.apply(undefined))
                    .as("%s.of(%d)", type.getSimpleName(), undefined)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(Integer.toString(undefined));
        }
    }

    /**
     * An ordered map of the given entries.
     *
     * @param entries name and value pairs
     * @return the map, in argument order
     */
    @SafeVarargs
    private static Map<String, Integer> table(Map.Entry<String, Integer>... entries) {
        Map<String, Integer> table = new LinkedHashMap<>();
        for (Map.Entry<String, Integer> e : entries) {
            table.put(e.getKey(), e.getValue());
        }
        return table;
    }

    /** DAT_HANDLE_TYPE: CR=0 ... SRQ=10. */
    @Test
    void handleType() {
        assertEnum(HandleType.class, HandleType::value, HandleType::of, table(
                entry("CR", 0), entry("EP", 1), entry("EVD", 2), entry("IA", 3), entry("LMR", 4),
                entry("PSP", 5), entry("PZ", 6), entry("RMR", 7), entry("RSP", 8), entry("CNO", 9),
                entry("SRQ", 10)));
    }

    /** DAT_EP_STATE: the 13 states 0..12 and the legacy ERROR alias. */
    @Test
    void epState() {
        assertEnum(EpState.class, EpState::value, EpState::of, table(
                entry("UNCONNECTED", 0),
                entry("UNCONFIGURED_UNCONNECTED", 1),
                entry("RESERVED", 2),
                entry("UNCONFIGURED_RESERVED", 3),
                entry("PASSIVE_CONNECTION_PENDING", 4),
                entry("UNCONFIGURED_PASSIVE", 5),
                entry("ACTIVE_CONNECTION_PENDING", 6),
                entry("TENTATIVE_CONNECTION_PENDING", 7),
                entry("UNCONFIGURED_TENTATIVE", 8),
                entry("CONNECTED", 9),
                entry("DISCONNECT_PENDING", 10),
                entry("DISCONNECTED", 11),
                entry("COMPLETION_PENDING", 12)));
        assertThat(EpState.ERROR).isSameAs(EpState.DISCONNECTED);
        assertThat(EpState.ERROR.value()).isEqualTo(11);
        assertThat(Constants.of(EpState.class)).containsOnlyKeys("ERROR");
    }

    /** DAT_MEM_TYPE: VIRTUAL 0, LMR 1, SHARED_VIRTUAL 2, SO_VIRTUAL 3. */
    @Test
    void memoryType() {
        assertEnum(MemoryType.class, MemoryType::value, MemoryType::of, table(
                entry("VIRTUAL", 0), entry("LMR", 1), entry("SHARED_VIRTUAL", 2),
                entry("SO_VIRTUAL", 3)));
    }

    /** DAT_CLOSE_FLAGS: ABRUPT 0, GRACEFUL 1, DEFAULT = ABRUPT. */
    @Test
    void closeFlag() {
        assertEnum(CloseFlag.class, CloseFlag::value, CloseFlag::of, table(
                entry("ABRUPT", 0), entry("GRACEFUL", 1)));
        assertThat(CloseFlag.DEFAULT).isSameAs(CloseFlag.ABRUPT);
        assertThat(Constants.of(CloseFlag.class)).containsOnlyKeys("DEFAULT");
    }

    /** DAT_PSP_FLAGS: CONSUMER 0, PROVIDER 1. */
    @Test
    void pspFlag() {
        assertEnum(PspFlag.class, PspFlag::value, PspFlag::of, table(
                entry("CONSUMER", 0), entry("PROVIDER", 1)));
    }

    /** DAT_SERVICE_TYPE: RC 0, the only 1.2 service. */
    @Test
    void serviceType() {
        assertEnum(ServiceType.class, ServiceType::value, ServiceType::of, table(entry("RC", 0)));
    }

    /** DAT_IOV_OWNERSHIP: CONSUMER 0, PROVIDER_NOMOD 1, PROVIDER_MOD 2. */
    @Test
    void iovOwnership() {
        assertEnum(IovOwnership.class, IovOwnership::value, IovOwnership::of, table(
                entry("CONSUMER", 0), entry("PROVIDER_NOMOD", 1), entry("PROVIDER_MOD", 2)));
    }

    /** DAT_EP_CREATOR_FOR_PSP: NEVER 0, IFASKED 1, ALWAYS 2. */
    @Test
    void epCreatorForPsp() {
        assertEnum(EpCreatorForPsp.class, EpCreatorForPsp::value, EpCreatorForPsp::of, table(
                entry("NEVER", 0), entry("IFASKED", 1), entry("ALWAYS", 2)));
    }

    /** DAT_PZ_SUPPORT: UNIQUE 0, SAME 1, SHAREABLE 2. */
    @Test
    void pzSupport() {
        assertEnum(PzSupport.class, PzSupport::value, PzSupport::of, table(
                entry("UNIQUE", 0), entry("SAME", 1), entry("SHAREABLE", 2)));
    }

    /** DAT_SRQ_STATE: OPERATIONAL 0, ERROR 1. */
    @Test
    void srqState() {
        assertEnum(SrqState.class, SrqState::value, SrqState::of, table(
                entry("OPERATIONAL", 0), entry("ERROR", 1)));
    }
}
