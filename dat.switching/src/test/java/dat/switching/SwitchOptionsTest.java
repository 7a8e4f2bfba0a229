package dat.switching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dat.api.DatException;
import dat.api.DatReturn;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SwitchOptionsTest {

    private static void refusedNaming(String argument, Runnable construction) {
        DatException refused = catchThrowableOfType(DatException.class, construction::run);
        assertThat(refused).as("refused with a DatException").isNotNull();
        assertThat(refused.type()).isEqualTo(DatReturn.INVALID_PARAMETER);
        assertThat(refused.argument()).isEqualTo(argument);
    }

    @Test
    void nullArgumentsAreRefusedByName() {
        Duration second = Duration.ofSeconds(1);
        refusedNaming("name", () -> SwitchOptions.of(null, ""));
        refusedNaming("filter", () -> SwitchOptions.of("s", null));
        refusedNaming("preferences", () -> new SwitchOptions("s", "", null, second, second, second));
        refusedNaming("preferences[1]", () -> SwitchOptions.of("s", "").withPreferences("(a=b)", null));
        refusedNaming("preferences", () -> SwitchOptions.of("s", "").withPreferences((String[]) null));
        refusedNaming("preferences[0]", () -> new SwitchOptions("s", "", Arrays.asList((String) null), second, second, second));
        refusedNaming("callbackTimeout", () -> SwitchOptions.of("s", "").withCallbackTimeout(Duration.ZERO));
    }

    @Test
    void validOptionsKeepTheirPreferences() {
        SwitchOptions options = SwitchOptions.of("s", "(dat.transport=sim)").withPreferences("(a=b)", "(c=d)");
        assertThat(options.preferences()).isEqualTo(List.of("(a=b)", "(c=d)"));
        assertThat(options.filter()).isEqualTo("(dat.transport=sim)");
    }
}
