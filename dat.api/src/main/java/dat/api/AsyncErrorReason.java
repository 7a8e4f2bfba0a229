package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The reasons of an asynchronous error event, the {@code reason} field of
 * {@code DAT_ASYNCH_ERROR_EVENT_DATA}. The reason is specific to the type of the object the event
 * names in its {@code dat_handle}: the IA for an unaffiliated error, else the EP, EVD, SRQ, LMR,
 * RMR or PZ. Each object type numbers its reasons from 0, so a reason is meaningful only together
 * with that handle type; {@link #name(HandleType, int)} resolves the pair.
 *
 * <p>The values are those of the 1.2 header's enums {@code DAT_IA_ASYNC_ERROR_REASON},
 * {@code DAT_EP_ASYNC_ERROR_REASON}, {@code DAT_EVD_ASYNC_ERROR_REASON},
 * {@code DAT_SRQ_ASYNC_ERROR_REASON}, {@code DAT_LMR_ASYNC_ERROR_REASON},
 * {@code DAT_RMR_ASYNC_ERROR_REASON} and {@code DAT_PZ_ASYNC_ERROR_REASON}; the constant names
 * are the C names without {@code DAT_}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_evd_dequeue(3DAT), dat_ep_set_watermark(3DAT),
 * dat_srq_set_lw(3DAT).
 */
@ProviderType
public final class AsyncErrorReason {

    /** IA reason: the adapter failed catastrophically: {@code DAT_IA_CATASTROPHIC_ERROR} = 0. */
    public static final int IA_CATASTROPHIC_ERROR = 0;

    /** IA reason: any other error: {@code DAT_IA_OTHER_ERROR} = 1. */
    public static final int IA_OTHER_ERROR = 1;

    /** EP reason: the Endpoint went to the error state: {@code DAT_EP_TRANSFER_TO_ERROR} = 0. */
    public static final int EP_TRANSFER_TO_ERROR = 0;

    /** EP reason: any other error: {@code DAT_EP_OTHER_ERROR} = 1. */
    public static final int EP_OTHER_ERROR = 1;

    /**
     * EP reason: the Endpoint's receives from its SRQ reached the soft high watermark set by
     * {@code dat_ep_set_watermark}: {@code DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT} = 2.
     */
    public static final int SRQ_SOFT_HIGH_WATERMARK_EVENT = 2;

    /** EVD reason: the Event Dispatcher overflowed: {@code DAT_EVD_OVERFLOW_ERROR} = 0. */
    public static final int EVD_OVERFLOW_ERROR = 0;

    /** EVD reason: any other error: {@code DAT_EVD_OTHER_ERROR} = 1. */
    public static final int EVD_OTHER_ERROR = 1;

    /** SRQ reason: the SRQ went to the error state: {@code DAT_SRQ_TRANSFER_TO_ERROR} = 0. */
    public static final int SRQ_TRANSFER_TO_ERROR = 0;

    /** SRQ reason: any other error: {@code DAT_SRQ_OTHER_ERROR} = 1. */
    public static final int SRQ_OTHER_ERROR = 1;

    /**
     * SRQ reason: the SRQ's available receives fell below the low watermark set by
     * {@code dat_srq_set_lw}: {@code DAT_SRQ_LOW_WATERMARK_EVENT} = 2.
     */
    public static final int SRQ_LOW_WATERMARK_EVENT = 2;

    /** LMR reason: any error: {@code DAT_LMR_OTHER_ERROR} = 0. */
    public static final int LMR_OTHER_ERROR = 0;

    /** RMR reason: any error: {@code DAT_RMR_OTHER_ERROR} = 0. */
    public static final int RMR_OTHER_ERROR = 0;

    /** PZ reason: any error: {@code DAT_PZ_OTHER_ERROR} = 0. */
    public static final int PZ_OTHER_ERROR = 0;

    /** C names of the IA reasons, indexed by value. */
    private static final String[] IA_NAMES = {"DAT_IA_CATASTROPHIC_ERROR", "DAT_IA_OTHER_ERROR"};

    /** C names of the EP reasons, indexed by value. */
    private static final String[] EP_NAMES = {
        "DAT_EP_TRANSFER_TO_ERROR", "DAT_EP_OTHER_ERROR", "DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT"
    };

    /** C names of the EVD reasons, indexed by value. */
    private static final String[] EVD_NAMES = {"DAT_EVD_OVERFLOW_ERROR", "DAT_EVD_OTHER_ERROR"};

    /** C names of the SRQ reasons, indexed by value. */
    private static final String[] SRQ_NAMES = {
        "DAT_SRQ_TRANSFER_TO_ERROR", "DAT_SRQ_OTHER_ERROR", "DAT_SRQ_LOW_WATERMARK_EVENT"
    };

    /** C names of the LMR reasons, indexed by value. */
    private static final String[] LMR_NAMES = {"DAT_LMR_OTHER_ERROR"};

    /** C names of the RMR reasons, indexed by value. */
    private static final String[] RMR_NAMES = {"DAT_RMR_OTHER_ERROR"};

    /** C names of the PZ reasons, indexed by value. */
    private static final String[] PZ_NAMES = {"DAT_PZ_OTHER_ERROR"};

    /** Object types without asynchronous error reasons. */
    private static final String[] NO_NAMES = {};

    /** Not instantiable: constants and static helpers only. */
    private AsyncErrorReason() {}

    /**
     * The C name of a reason for the type of the object it concerns, for example
     * {@code name(HandleType.EP, 2)} is {@code "DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT"}.
     * Allocation-free for defined reasons.
     *
     * @param objectType the type of the event's {@code dat_handle}
     * @param reason the reason value
     * @return the C name, or {@code objectType + " reason " + reason} (for example
     *     {@code "CNO reason 0"}) if DAT 1.2 defines no such reason for that object type; CR, PSP,
     *     RSP and CNO have none
     */
    public static String name(HandleType objectType, int reason) {
        String[] names = namesOf(objectType);
        return reason >= 0 && reason < names.length
                ? names[reason]
                : objectType + " reason " + reason;
    }

    /**
     * Whether DAT 1.2 defines a reason for an object type.
     *
     * @param objectType the type of the event's {@code dat_handle}
     * @param reason the reason value
     * @return whether the object type has a reason with that value
     */
    public static boolean isDefined(HandleType objectType, int reason) {
        return reason >= 0 && reason < namesOf(objectType).length;
    }

    /**
     * The C names of one object type's reasons.
     *
     * @param objectType an object type
     * @return the names, indexed by reason value; empty for object types without reasons
     */
    private static String[] namesOf(HandleType objectType) {
        return switch (objectType) {
            case IA -> IA_NAMES;
            case EP -> EP_NAMES;
            case EVD -> EVD_NAMES;
            case SRQ -> SRQ_NAMES;
            case LMR -> LMR_NAMES;
            case RMR -> RMR_NAMES;
            case PZ -> PZ_NAMES;
            case CR, PSP, RSP, CNO -> NO_NAMES;
        };
    }
}
