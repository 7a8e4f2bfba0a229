package dat.provider.support;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.EpState;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReturnCodesTest {

    /** Each Endpoint state and the subtype of DAT_INVALID_STATE that names it (dat.h, DAT 1.2). */
    private static final Map<EpState, String> SUBTYPES = new EnumMap<>(Map.ofEntries(
            Map.entry(EpState.UNCONNECTED, "DAT_INVALID_STATE_EP_UNCONNECTED"),
            Map.entry(EpState.UNCONFIGURED_UNCONNECTED, "DAT_INVALID_STATE_EP_UNCONFIGURED"),
            Map.entry(EpState.RESERVED, "DAT_INVALID_STATE_EP_RESERVED"),
            Map.entry(EpState.UNCONFIGURED_RESERVED, "DAT_INVALID_STATE_EP_UNCONFRESERVED"),
            Map.entry(EpState.PASSIVE_CONNECTION_PENDING, "DAT_INVALID_STATE_EP_PASSCONNPENDING"),
            Map.entry(EpState.UNCONFIGURED_PASSIVE, "DAT_INVALID_STATE_EP_UNCONFPASSIVE"),
            Map.entry(EpState.ACTIVE_CONNECTION_PENDING, "DAT_INVALID_STATE_EP_ACTCONNPENDING"),
            Map.entry(EpState.TENTATIVE_CONNECTION_PENDING, "DAT_INVALID_STATE_EP_TENTCONNPENDING"),
            Map.entry(EpState.UNCONFIGURED_TENTATIVE, "DAT_INVALID_STATE_EP_UNCONFTENTATIVE"),
            Map.entry(EpState.CONNECTED, "DAT_INVALID_STATE_EP_CONNECTED"),
            Map.entry(EpState.DISCONNECT_PENDING, "DAT_INVALID_STATE_EP_DISCPENDING"),
            Map.entry(EpState.DISCONNECTED, "DAT_INVALID_STATE_EP_DISCONNECTED"),
            Map.entry(EpState.COMPLETION_PENDING, "DAT_INVALID_STATE_EP_COMPLPENDING")));

    @Test
    void everyEndpointStateHasTheInvalidStateSubtypeThatNamesIt() {
        assertThat(SUBTYPES).hasSize(EpState.values().length);
        SUBTYPES.forEach((state, subtype) -> {
            int code = ReturnCodes.epState(state);
            assertThat(DatReturn.typeOf(code)).as(state.name()).isEqualTo(DatReturn.INVALID_STATE);
            assertThat(DatReturn.describe(code)).as(state.name()).isEqualTo("DAT_INVALID_STATE(" + subtype + ")");
        });
    }

    @Test
    void theExceptionCarriesTheCodeAndNamesTheEndpoint() {
        DatException e = ReturnCodes.epStateException(EpState.COMPLETION_PENDING, "reset needs a disconnected Endpoint");
        assertThat(e.code()).isEqualTo(ReturnCodes.epState(EpState.COMPLETION_PENDING));
        assertThat(e.getMessage())
                .isEqualTo("DAT_INVALID_STATE DAT_INVALID_STATE_EP_COMPLPENDING (ep): reset needs a disconnected Endpoint");
    }
}
