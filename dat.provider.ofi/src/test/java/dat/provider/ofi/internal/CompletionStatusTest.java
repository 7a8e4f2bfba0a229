package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DtoCompletionStatus;
import dat.provider.ofi.internal.ffi.Fi;
import org.junit.jupiter.api.Test;

/** The DTO status of what a completion queue read: a libfabric error, the provider's own marks, a verbs device's status. */
class CompletionStatusTest {

    private static String status(int error) {
        return DtoCompletionStatus.name(CompletionQueue.status(error));
    }

    @Test
    void libfabricErrors() {
        assertThat(status(0)).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.SUCCESS));
        assertThat(status(Fi.ECANCELED)).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_FLUSHED));
        assertThat(status(Fi.ETRUNC)).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_LOCAL_LENGTH));
        assertThat(status(Fi.EACCES)).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_REMOTE_ACCESS));
        assertThat(status(Fi.EOTHER)).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_TRANSPORT));
    }

    @Test
    void aReceiveIntoAFreedLmrIsAProtectionError() {
        assertThat(status(CompletionQueue.LMR_FREED)).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_LOCAL_PROTECTION));
    }

    @Test
    void aVerbsDeviceStatusIsMappedAsTheVerbsProviderMapsIt() {
        assertThat(status(CompletionQueue.WC_STATUS + 1)).as("IBV_WC_LOC_LEN_ERR")
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_LOCAL_LENGTH));
        assertThat(status(CompletionQueue.WC_STATUS + 2)).as("IBV_WC_LOC_QP_OP_ERR")
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_LOCAL_EP));
        assertThat(status(CompletionQueue.WC_STATUS + 10)).as("IBV_WC_REM_ACCESS_ERR")
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_REMOTE_ACCESS));
    }
}
