package dat.tests.conformance.common;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatReturn;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import org.junit.jupiter.api.DisplayName;

/**
 * dat_strerror(3DAT) on the codes the IA under test returns. The function is the API's, not the
 * provider's; it is here so that every code a provider produces is shown to be printable.
 */
class StrerrorTest {

    @ConformanceTest
    @DisplayName("dat_strerror(3DAT) DAT_SUCCESS: a code the provider returned converts to its major and minor names")
    void providerCode(IaUnderTest t) {
        int code = t.evd(dat.api.EvdFlags.SOFTWARE).dequeue(new dat.api.DatEvent());
        assertThat(DatReturn.strerror(code).major()).as(t.at("dat_strerror of the DAT_QUEUE_EMPTY of dat_evd_dequeue"))
                .isEqualTo("DAT_QUEUE_EMPTY");
        assertThat(DatReturn.strerror(DatReturn.SUCCESS)).as(t.at("dat_strerror of DAT_SUCCESS"))
                .isEqualTo(new DatReturn.Strerror("DAT_SUCCESS", ""));
    }

    @ConformanceTest
    @DisplayName("dat_strerror(3DAT) DAT_INVALID_PARAMETER: an undefined DAT_RETURN value")
    void undefinedCode(IaUnderTest t) {
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_strerror of 0x80150000", () -> DatReturn.strerror(0x8015_0000));
    }
}
