package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The status of a completed data transfer or RMR bind, {@code DAT_DTO_COMPLETION_STATUS}: the
 * {@code status} field of a DTO completion event and of an RMR bind completion event (DAT 1.2
 * defines {@code DAT_RMR_BIND_COMPLETION_STATUS} as the same type).
 *
 * <p>Plain {@code int} constants, as a Provider may report statuses of its own. The transferred
 * length of a completion is defined only when its status is {@link #SUCCESS}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_evd_dequeue(3DAT), dat_ep_post_send(3DAT),
 * dat_ep_post_recv(3DAT), dat_rmr_bind(3DAT).
 */
@ProviderType
public final class DtoCompletionStatus {

    /** The transfer completed successfully: {@code DAT_DTO_SUCCESS} = 0. */
    public static final int SUCCESS = 0;

    /**
     * The operation was flushed, for example because its Endpoint was disconnected or broke
     * before it ran: {@code DAT_DTO_ERR_FLUSHED} = 1.
     */
    public static final int ERR_FLUSHED = 1;

    /** A local buffer was too short for the data: {@code DAT_DTO_ERR_LOCAL_LENGTH} = 2. */
    public static final int ERR_LOCAL_LENGTH = 2;

    /** The local Endpoint failed the operation: {@code DAT_DTO_ERR_LOCAL_EP} = 3. */
    public static final int ERR_LOCAL_EP = 3;

    /**
     * A local buffer violated its LMR's protection or privileges:
     * {@code DAT_DTO_ERR_LOCAL_PROTECTION} = 4.
     */
    public static final int ERR_LOCAL_PROTECTION = 4;

    /** The remote side sent an unexpected response: {@code DAT_DTO_ERR_BAD_RESPONSE} = 5. */
    public static final int ERR_BAD_RESPONSE = 5;

    /**
     * The remote side refused access to its memory (RMR context, bounds or privileges):
     * {@code DAT_DTO_ERR_REMOTE_ACCESS} = 6.
     */
    public static final int ERR_REMOTE_ACCESS = 6;

    /** The remote responder failed the operation: {@code DAT_DTO_ERR_REMOTE_RESPONDER} = 7. */
    public static final int ERR_REMOTE_RESPONDER = 7;

    /** The transport failed: {@code DAT_DTO_ERR_TRANSPORT} = 8. */
    public static final int ERR_TRANSPORT = 8;

    /**
     * The receiver had no receive buffer posted: {@code DAT_DTO_ERR_RECEIVER_NOT_READY} = 9.
     */
    public static final int ERR_RECEIVER_NOT_READY = 9;

    /** Only part of a packet arrived: {@code DAT_DTO_ERR_PARTIAL_PACKET} = 10. */
    public static final int ERR_PARTIAL_PACKET = 10;

    /** An RMR operation failed: {@code DAT_RMR_OPERATION_FAILED} = 11. */
    public static final int RMR_OPERATION_FAILED = 11;

    /**
     * Legacy name of {@link #ERR_LOCAL_LENGTH}, kept by the 1.2 header for backward
     * compatibility: {@code DAT_DTO_LENGTH_ERROR}.
     */
    public static final int LENGTH_ERROR = ERR_LOCAL_LENGTH;

    /**
     * Legacy name of {@link #ERR_FLUSHED}, kept by the 1.2 header for backward compatibility:
     * {@code DAT_DTO_FAILURE}.
     */
    public static final int FAILURE = ERR_FLUSHED;

    /**
     * The status of a successful RMR bind, {@link #SUCCESS}: {@code DAT_RMR_BIND_SUCCESS}, kept by
     * the 1.2 header for backward compatibility.
     */
    public static final int RMR_BIND_SUCCESS = SUCCESS;

    /**
     * The status of a failed RMR bind, {@link #ERR_FLUSHED}: {@code DAT_RMR_BIND_FAILURE}, kept by
     * the 1.2 header for backward compatibility.
     */
    public static final int RMR_BIND_FAILURE = ERR_FLUSHED;

    /** Not instantiable: constants and static helpers only. */
    private DtoCompletionStatus() {}

    /**
     * The C name of a status, for example {@code "DAT_DTO_ERR_FLUSHED"}; a value with a legacy
     * alias gets its primary name. Allocation-free for defined values.
     *
     * @param status a completion status
     * @return its C name, or the value in hexadecimal (for example {@code "0x0000000C"}) if DAT
     *     1.2 does not define it
     */
    public static String name(int status) {
        return switch (status) {
            case SUCCESS -> "DAT_DTO_SUCCESS";
            case ERR_FLUSHED -> "DAT_DTO_ERR_FLUSHED";
            case ERR_LOCAL_LENGTH -> "DAT_DTO_ERR_LOCAL_LENGTH";
            case ERR_LOCAL_EP -> "DAT_DTO_ERR_LOCAL_EP";
            case ERR_LOCAL_PROTECTION -> "DAT_DTO_ERR_LOCAL_PROTECTION";
            case ERR_BAD_RESPONSE -> "DAT_DTO_ERR_BAD_RESPONSE";
            case ERR_REMOTE_ACCESS -> "DAT_DTO_ERR_REMOTE_ACCESS";
            case ERR_REMOTE_RESPONDER -> "DAT_DTO_ERR_REMOTE_RESPONDER";
            case ERR_TRANSPORT -> "DAT_DTO_ERR_TRANSPORT";
            case ERR_RECEIVER_NOT_READY -> "DAT_DTO_ERR_RECEIVER_NOT_READY";
            case ERR_PARTIAL_PACKET -> "DAT_DTO_ERR_PARTIAL_PACKET";
            case RMR_OPERATION_FAILED -> "DAT_RMR_OPERATION_FAILED";
            default -> DatReturn.hex(status);
        };
    }

    /**
     * Whether DAT 1.2 defines a status value.
     *
     * @param status a completion status
     * @return whether it lies in {@link #SUCCESS} to {@link #RMR_OPERATION_FAILED}
     */
    public static boolean isDefined(int status) {
        return status >= SUCCESS && status <= RMR_OPERATION_FAILED;
    }
}
