package dat.provider.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.ProviderAttributes;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * The departures from the pages the provider declares in its attributes: the private-data limit
 * of rdma_cm on every device, none of notification (UNSIGNALLED and SOLICITED_WAIT completions
 * notify as the pages say); the receive length error and the receive into a freed LMR only on
 * soft-RoCE, whose driver reports them differently. The conformance suite holds the provider to
 * what it declares.
 */
class DeclaredDeviationsTest {

    private static final DevicePort PORT = new DevicePort("dev0", 1, InetAddress.getLoopbackAddress(), "RoCE", 2, true, true, true);
    private static final String PRIVATE_DATA = ProviderAttributes.DEVIATION_PREFIX + "max_private_data_size";
    private static final String RECV_LENGTH = ProviderAttributes.DEVIATION_PREFIX + "recv_length_error";
    private static final String RECV_FREED_LMR = ProviderAttributes.DEVIATION_PREFIX + "recv_freed_lmr";
    private static final String SOLICITED_NOTIFICATION = ProviderAttributes.DEVIATION_PREFIX + "solicited_wait_notification";
    private static final String UNSIGNALLED_NOTIFICATION = ProviderAttributes.DEVIATION_PREFIX + "unsignalled_notification";

    @Test
    void softRoceDeclaresItsReceiveErrors() {
        ProviderAttributes attributes = VerbsAttributes.provider(PORT, true, VerbsAttributes.SOFT_ROCE_VENDOR_ID, false);
        assertThat(attributes.providerSpecificAttributes().get(RECV_LENGTH)).startsWith("DAT_DTO_ERR_LOCAL_EP:");
        assertThat(attributes.providerSpecificAttributes().get(RECV_FREED_LMR)).startsWith("DAT_DTO_ERR_LOCAL_EP:");
        assertThat(attributes.providerSpecificAttributes().get(PRIVATE_DATA)).startsWith(CmEvents.REQUEST_PRIVATE_DATA + " bytes");
        assertThat(attributes.maxPrivateDataSize()).isEqualTo(CmEvents.REQUEST_PRIVATE_DATA);
    }

    @Test
    void anotherDeviceDeclaresOnlyWhatEveryDeviceDoes() {
        int mellanox = 0x02c9;
        ProviderAttributes attributes = VerbsAttributes.provider(PORT, true, mellanox, true);
        assertThat(attributes.providerSpecificAttributes()).containsKey(PRIVATE_DATA).doesNotContainKey(SOLICITED_NOTIFICATION)
                .doesNotContainKey(UNSIGNALLED_NOTIFICATION).doesNotContainKey(RECV_LENGTH)
                .doesNotContainKey(RECV_FREED_LMR)
                .containsEntry("ia.transport", "RoCE");
    }
}
