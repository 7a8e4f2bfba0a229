package dat.provider.support;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatReturn;
import org.junit.jupiter.api.Test;

class WaitArgumentsTest {

    private final DatEvent event = new DatEvent();

    @Test
    void validArgumentsPass() {
        assertThat(WaitArguments.check(0, 1, 8, event, 0)).isEqualTo(DatReturn.SUCCESS);
        assertThat(WaitArguments.check(DatConstants.TIMEOUT_INFINITE, 8, 8, event, 0)).isEqualTo(DatReturn.SUCCESS);
        assertThat(WaitArguments.check(1000, 1, 8, event, 3)).isEqualTo(DatReturn.SUCCESS);
    }

    @Test
    void eachBadArgumentIsNamed() {
        assertThat(WaitArguments.check(-5, 1, 8, event, 0)).isEqualTo(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2));
        assertThat(WaitArguments.check(0, 0, 8, event, 0)).isEqualTo(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3));
        assertThat(WaitArguments.check(0, 9, 8, event, 0)).isEqualTo(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3));
        assertThat(WaitArguments.check(0, 1, 8, null, 0)).isEqualTo(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4));
    }

    @Test
    void aThresholdAboveOneMeetsConsumerNotifiedStreams() {
        assertThat(WaitArguments.check(0, 2, 8, event, 1))
                .isEqualTo(DatReturn.error(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_CONFIG_THRESHOLD));
    }
}
