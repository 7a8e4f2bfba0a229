package dat.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link EpAttributes#withMasked}: what dat_ep_modify(3DAT) takes from the requested attributes. */
class EpAttributesTest {

    private final EpAttributes current = EpAttributes.builder().maxMessageSize(4096).maxRdmaSize(8192).maxRecvDtos(8)
            .maxRequestDtos(8).maxRecvIov(2).maxRequestIov(2).build();
    private final EpAttributes requested = EpAttributes.builder().maxMessageSize(100).maxRdmaSize(200).maxRecvDtos(3)
            .maxRequestDtos(4).maxRecvIov(1).maxRequestIov(1).providerSpecific(Map.of("k", "v")).build();

    @Test
    void takesOnlyTheMaskedFields() {
        EpAttributes merged = current.withMasked(requested, EpParamMask.EP_ATTR_MAX_RECV_DTOS | EpParamMask.EP_ATTR_MAX_MESSAGE_SIZE);
        assertThat(merged.maxRecvDtos()).isEqualTo(3);
        assertThat(merged.maxMessageSize()).isEqualTo(100);
        assertThat(merged.maxRequestDtos()).isEqualTo(8);
        assertThat(merged.maxRdmaSize()).isEqualTo(8192);
        assertThat(merged.maxRecvIov()).isEqualTo(2);
        assertThat(merged.providerSpecific()).isEmpty();
    }

    @Test
    void bitsThatNameNoAttributeChangeNothing() {
        assertThat(current.withMasked(requested, EpParamMask.EP_STATE | EpParamMask.IA_HANDLE)).isEqualTo(current);
        assertThat(current.withMasked(requested, 0)).isEqualTo(current);
    }

    @Test
    void theSpecificAttributesGoTogether() {
        assertThat(current.withMasked(requested, EpParamMask.EP_ATTR_PROVIDER_SPECIFIC_ATTR).providerSpecific()).containsEntry("k", "v");
        assertThatThrownBy(() -> current.withMasked(null, 0)).isInstanceOf(NullPointerException.class);
    }
}
