package dat.api;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the event numbers, DTO completion statuses and asynchronous error reasons of
 * DAT12-FACTS.md section 3.5 (illumos {@code dat.h}), and checks their names and helpers.
 */
class EventsTest {

    /** Creates the test instance; JUnit calls it. */
    EventsTest() {}

    /** Every DAT_EVENT_NUMBER with its value, in header order. */
    private static final List<Map.Entry<String, Integer>> EVENTS = List.of(
            entry("DTO_COMPLETION_EVENT", 0x00001),
            entry("RMR_BIND_COMPLETION_EVENT", 0x01001),
            entry("CONNECTION_REQUEST_EVENT", 0x02001),
            entry("CONNECTION_EVENT_ESTABLISHED", 0x04001),
            entry("CONNECTION_EVENT_PEER_REJECTED", 0x04002),
            entry("CONNECTION_EVENT_NON_PEER_REJECTED", 0x04003),
            entry("CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR", 0x04004),
            entry("CONNECTION_EVENT_DISCONNECTED", 0x04005),
            entry("CONNECTION_EVENT_BROKEN", 0x04006),
            entry("CONNECTION_EVENT_TIMED_OUT", 0x04007),
            entry("CONNECTION_EVENT_UNREACHABLE", 0x04008),
            entry("ASYNC_ERROR_EVD_OVERFLOW", 0x08001),
            entry("ASYNC_ERROR_IA_CATASTROPHIC", 0x08002),
            entry("ASYNC_ERROR_EP_BROKEN", 0x08003),
            entry("ASYNC_ERROR_TIMED_OUT", 0x08004),
            entry("ASYNC_ERROR_PROVIDER_INTERNAL_ERROR", 0x08005),
            entry("SOFTWARE_EVENT", 0x10001));

    /** Every event number constant with its exact value, and no other constant. */
    @Test
    void everyEventNumberHasItsDat12Value() {
        assertThat(Constants.of(EventNumber.class)).containsExactlyEntriesOf(toMap(EVENTS));
    }

    /** name gives the C name of every event, and hexadecimal for others. */
    @Test
    void eventNames() {
        for (Map.Entry<String, Integer> event : EVENTS) {
            assertThat(EventNumber.name(event.getValue())).isEqualTo("DAT_" + event.getKey());
            assertThat(EventNumber.isDefined(event.getValue())).isTrue();
        }
        assertThat(EventNumber.name(0x20001)).isEqualTo("0x20001");
        assertThat(EventNumber.name(0x08101)).isEqualTo("0x08101");
        assertThat(EventNumber.name(0)).isEqualTo("0x00000");
        assertThat(EventNumber.isDefined(0x08101)).isFalse();
        assertThat(EventNumber.isDefined(0x04000)).isFalse();
        assertThat(EventNumber.isDefined(0x04009)).isFalse();
    }

    /** The group helpers and the EVD stream of each event. */
    @Test
    void eventGroups() {
        for (Map.Entry<String, Integer> event : EVENTS) {
            String name = event.getKey();
            int number = event.getValue();
            assertThat(EventNumber.isConnectionEvent(number)).as(name)
                    .isEqualTo(name.startsWith("CONNECTION_EVENT_"));
            assertThat(EventNumber.isAsyncError(number)).as(name)
                    .isEqualTo(name.startsWith("ASYNC_ERROR_"));
            assertThat(EventNumber.isCompletionEvent(number)).as(name)
                    .isEqualTo(name.endsWith("COMPLETION_EVENT"));
        }
        assertThat(EventNumber.evdFlagOf(0x00001)).isEqualTo(0x020);
        assertThat(EventNumber.evdFlagOf(0x01001)).isEqualTo(0x080);
        assertThat(EventNumber.evdFlagOf(0x02001)).isEqualTo(0x010);
        for (int connection = 0x04001; connection <= 0x04008; connection++) {
            assertThat(EventNumber.evdFlagOf(connection)).isEqualTo(0x040);
        }
        for (int async = 0x08001; async <= 0x08005; async++) {
            assertThat(EventNumber.evdFlagOf(async)).isEqualTo(0x100);
        }
        assertThat(EventNumber.evdFlagOf(0x10001)).isEqualTo(0x001);
        assertThat(EventNumber.evdFlagOf(0x20000)).isZero();
        assertThat(EventNumber.evdFlagOf(0x04009)).isZero();
        assertThat(EventNumber.evdFlagOf(0x08000)).isZero();
    }

    /** Every DTO completion status with its value, and the legacy aliases. */
    @Test
    void everyDtoCompletionStatusHasItsDat12Value() {
        assertThat(Constants.of(DtoCompletionStatus.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("SUCCESS", 0),
                entry("ERR_FLUSHED", 1),
                entry("ERR_LOCAL_LENGTH", 2),
                entry("ERR_LOCAL_EP", 3),
                entry("ERR_LOCAL_PROTECTION", 4),
                entry("ERR_BAD_RESPONSE", 5),
                entry("ERR_REMOTE_ACCESS", 6),
                entry("ERR_REMOTE_RESPONDER", 7),
                entry("ERR_TRANSPORT", 8),
                entry("ERR_RECEIVER_NOT_READY", 9),
                entry("ERR_PARTIAL_PACKET", 10),
                entry("RMR_OPERATION_FAILED", 11),
                entry("LENGTH_ERROR", 2),
                entry("FAILURE", 1),
                entry("RMR_BIND_SUCCESS", 0),
                entry("RMR_BIND_FAILURE", 1)));
    }

    /** name gives the C name of every status, and hexadecimal for others. */
    @Test
    void dtoCompletionStatusNames() {
        List<String> names = List.of("DAT_DTO_SUCCESS", "DAT_DTO_ERR_FLUSHED",
                "DAT_DTO_ERR_LOCAL_LENGTH", "DAT_DTO_ERR_LOCAL_EP", "DAT_DTO_ERR_LOCAL_PROTECTION",
                "DAT_DTO_ERR_BAD_RESPONSE", "DAT_DTO_ERR_REMOTE_ACCESS",
                "DAT_DTO_ERR_REMOTE_RESPONDER", "DAT_DTO_ERR_TRANSPORT",
                "DAT_DTO_ERR_RECEIVER_NOT_READY", "DAT_DTO_ERR_PARTIAL_PACKET",
                "DAT_RMR_OPERATION_FAILED");
        for (int status = 0; status < names.size(); status++) {
            assertThat(DtoCompletionStatus.name(status)).isEqualTo(names.get(status));
            assertThat(DtoCompletionStatus.isDefined(status)).isTrue();
        }
        assertThat(DtoCompletionStatus.name(12)).isEqualTo("0x0000000C");
        assertThat(DtoCompletionStatus.name(-1)).isEqualTo("0xFFFFFFFF");
        assertThat(DtoCompletionStatus.isDefined(12)).isFalse();
        assertThat(DtoCompletionStatus.isDefined(-1)).isFalse();
    }

    /** Every asynchronous error reason with its value. */
    @Test
    void everyAsyncErrorReasonHasItsDat12Value() {
        assertThat(Constants.of(AsyncErrorReason.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("IA_CATASTROPHIC_ERROR", 0),
                entry("IA_OTHER_ERROR", 1),
                entry("EP_TRANSFER_TO_ERROR", 0),
                entry("EP_OTHER_ERROR", 1),
                entry("SRQ_SOFT_HIGH_WATERMARK_EVENT", 2),
                entry("EVD_OVERFLOW_ERROR", 0),
                entry("EVD_OTHER_ERROR", 1),
                entry("SRQ_TRANSFER_TO_ERROR", 0),
                entry("SRQ_OTHER_ERROR", 1),
                entry("SRQ_LOW_WATERMARK_EVENT", 2),
                entry("LMR_OTHER_ERROR", 0),
                entry("RMR_OTHER_ERROR", 0),
                entry("PZ_OTHER_ERROR", 0)));
    }

    /** Reasons are named per object type; CR, PSP, RSP and CNO have none. */
    @Test
    void asyncErrorReasonNames() {
        Map<HandleType, List<String>> expected = new EnumMap<>(HandleType.class);
        expected.put(HandleType.IA, List.of("DAT_IA_CATASTROPHIC_ERROR", "DAT_IA_OTHER_ERROR"));
        expected.put(HandleType.EP, List.of("DAT_EP_TRANSFER_TO_ERROR", "DAT_EP_OTHER_ERROR",
                "DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT"));
        expected.put(HandleType.EVD, List.of("DAT_EVD_OVERFLOW_ERROR", "DAT_EVD_OTHER_ERROR"));
        expected.put(HandleType.SRQ, List.of("DAT_SRQ_TRANSFER_TO_ERROR", "DAT_SRQ_OTHER_ERROR",
                "DAT_SRQ_LOW_WATERMARK_EVENT"));
        expected.put(HandleType.LMR, List.of("DAT_LMR_OTHER_ERROR"));
        expected.put(HandleType.RMR, List.of("DAT_RMR_OTHER_ERROR"));
        expected.put(HandleType.PZ, List.of("DAT_PZ_OTHER_ERROR"));
        expected.put(HandleType.CR, List.of());
        expected.put(HandleType.PSP, List.of());
        expected.put(HandleType.RSP, List.of());
        expected.put(HandleType.CNO, List.of());
        assertThat(expected).containsOnlyKeys(HandleType.values());
        expected.forEach((type, names) -> {
            for (int reason = 0; reason < names.size(); reason++) {
                assertThat(AsyncErrorReason.name(type, reason)).isEqualTo(names.get(reason));
                assertThat(AsyncErrorReason.isDefined(type, reason)).isTrue();
            }
            assertThat(AsyncErrorReason.isDefined(type, names.size())).isFalse();
            assertThat(AsyncErrorReason.isDefined(type, -1)).isFalse();
            assertThat(AsyncErrorReason.name(type, names.size()))
                    .isEqualTo(type.name() + " reason " + names.size());
        });
    }

    /**
     * An ordered map of a list of entries.
     *
     * @param entries the entries
     * @return the map, in list order, with values boxed as {@code Object}
     */
    private static Map<String, Object> toMap(List<Map.Entry<String, Integer>> entries) {
        Map<String, Object> map = new LinkedHashMap<>();
        entries.forEach(e -> map.put(e.getKey(), e.getValue()));
        return map;
    }
}
