package dat.provider.support;

import dat.api.DtoCompletionStatus;

/**
 * The status of a verbs work completion ({@code enum ibv_wc_status} of
 * {@code <infiniband/verbs.h>}) as a {@code DAT_DTO_COMPLETION_STATUS}: what the verbs provider
 * reads from its CQs, and what the ofi provider reads from libfabric's verbs provider, which
 * passes the device's status on as the {@code prov_errno} of a CQ error entry.
 */
public final class WorkCompletionStatus {

    private WorkCompletionStatus() {
    }

    /**
     * Maps a work completion status.
     *
     * @param wcStatus {@code IBV_WC_SUCCESS} (0) .. {@code IBV_WC_TM_RNDV_INCOMPLETE}
     * @return the DTO completion status; {@code DAT_DTO_ERR_TRANSPORT} for one DAT has no closer name for
     */
    public static int toDat(int wcStatus) {
        return switch (wcStatus) {
            case 0 -> DtoCompletionStatus.SUCCESS;
            case 1 -> DtoCompletionStatus.ERR_LOCAL_LENGTH; // LOC_LEN_ERR
            case 2 -> DtoCompletionStatus.ERR_LOCAL_EP; // LOC_QP_OP_ERR
            case 4, 8 -> DtoCompletionStatus.ERR_LOCAL_PROTECTION; // LOC_PROT_ERR, LOC_ACCESS_ERR
            case 5 -> DtoCompletionStatus.ERR_FLUSHED; // WR_FLUSH_ERR
            case 6 -> DtoCompletionStatus.RMR_OPERATION_FAILED; // MW_BIND_ERR
            case 7 -> DtoCompletionStatus.ERR_BAD_RESPONSE; // BAD_RESP_ERR
            case 10 -> DtoCompletionStatus.ERR_REMOTE_ACCESS; // REM_ACCESS_ERR
            case 9, 11 -> DtoCompletionStatus.ERR_REMOTE_RESPONDER; // REM_INV_REQ_ERR, REM_OP_ERR
            case 13 -> DtoCompletionStatus.ERR_RECEIVER_NOT_READY; // RNR_RETRY_EXC_ERR
            default -> DtoCompletionStatus.ERR_TRANSPORT;
        };
    }
}
