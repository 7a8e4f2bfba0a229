package dat.provider.support;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DtoCompletionStatus;
import org.junit.jupiter.api.Test;

class WorkCompletionStatusTest {

    private static String mapped(int wcStatus) {
        return DtoCompletionStatus.name(WorkCompletionStatus.toDat(wcStatus));
    }

    @Test
    void theLocalErrorsKeepTheirCause() {
        assertThat(mapped(0)).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.SUCCESS));
        assertThat(mapped(1)).as("IBV_WC_LOC_LEN_ERR").isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_LOCAL_LENGTH));
        assertThat(mapped(2)).as("IBV_WC_LOC_QP_OP_ERR").isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_LOCAL_EP));
        assertThat(mapped(4)).as("IBV_WC_LOC_PROT_ERR").isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_LOCAL_PROTECTION));
        assertThat(mapped(8)).as("IBV_WC_LOC_ACCESS_ERR").isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_LOCAL_PROTECTION));
        assertThat(mapped(5)).as("IBV_WC_WR_FLUSH_ERR").isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_FLUSHED));
    }

    @Test
    void theRemoteErrorsNameTheRemoteSide() {
        assertThat(mapped(10)).as("IBV_WC_REM_ACCESS_ERR").isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_REMOTE_ACCESS));
        assertThat(mapped(9)).as("IBV_WC_REM_INV_REQ_ERR").isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_REMOTE_RESPONDER));
        assertThat(mapped(11)).as("IBV_WC_REM_OP_ERR").isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_REMOTE_RESPONDER));
        assertThat(mapped(13)).as("IBV_WC_RNR_RETRY_EXC_ERR")
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_RECEIVER_NOT_READY));
        assertThat(mapped(7)).as("IBV_WC_BAD_RESP_ERR").isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_BAD_RESPONSE));
        assertThat(mapped(6)).as("IBV_WC_MW_BIND_ERR").isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.RMR_OPERATION_FAILED));
    }

    @Test
    void aStatusWithoutACloserNameIsATransportError() {
        assertThat(mapped(12)).as("IBV_WC_RETRY_EXC_ERR").isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_TRANSPORT));
        assertThat(mapped(21)).as("IBV_WC_GENERAL_ERR").isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_TRANSPORT));
    }
}
