package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The event numbers of DAT 1.2, {@code DAT_EVENT_NUMBER}: the kind of a {@code DAT_EVENT} that an
 * Event Dispatcher delivers.
 *
 * <p>Plain {@code int} constants rather than an enum, so that a Provider's extension events (DAT
 * 2.0 numbers them from {@code 0x20000}) travel through the same field. The numbers come in
 * groups: DTO completion {@code 0x0000x}, RMR bind completion {@code 0x0100x}, connection request
 * {@code 0x0200x}, connection events {@code 0x0400x}, asynchronous errors {@code 0x0800x},
 * software events {@code 0x1000x}; the {@code is...} helpers test membership of the numbers DAT
 * 1.2 defines, and {@link #evdFlagOf(int)} names the {@link EvdFlags} stream an EVD must have been
 * created with to receive the event.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_evd_dequeue(3DAT), dat_evd_wait(3DAT),
 * dat_ep_connect(3DAT), dat_evd_post_se(3DAT).
 */
@ProviderType
public final class EventNumber {

    /** A data transfer operation completed: {@code DAT_DTO_COMPLETION_EVENT} = 0x00001. */
    public static final int DTO_COMPLETION_EVENT = 0x0_0001;

    /** An RMR bind completed: {@code DAT_RMR_BIND_COMPLETION_EVENT} = 0x01001. */
    public static final int RMR_BIND_COMPLETION_EVENT = 0x0_1001;

    /**
     * A connection request arrived at a service point: {@code DAT_CONNECTION_REQUEST_EVENT} =
     * 0x02001.
     */
    public static final int CONNECTION_REQUEST_EVENT = 0x0_2001;

    /** The connection is established: {@code DAT_CONNECTION_EVENT_ESTABLISHED} = 0x04001. */
    public static final int CONNECTION_EVENT_ESTABLISHED = 0x0_4001;

    /** The peer rejected the connection: {@code DAT_CONNECTION_EVENT_PEER_REJECTED} = 0x04002. */
    public static final int CONNECTION_EVENT_PEER_REJECTED = 0x0_4002;

    /**
     * The connection was rejected by someone other than the peer Consumer, for example for want of
     * a listener or an unsupported QoS: {@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED} = 0x04003.
     */
    public static final int CONNECTION_EVENT_NON_PEER_REJECTED = 0x0_4003;

    /**
     * The accept of a connection request failed:
     * {@code DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR} = 0x04004.
     */
    public static final int CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR = 0x0_4004;

    /** The connection was disconnected: {@code DAT_CONNECTION_EVENT_DISCONNECTED} = 0x04005. */
    public static final int CONNECTION_EVENT_DISCONNECTED = 0x0_4005;

    /** The connection broke: {@code DAT_CONNECTION_EVENT_BROKEN} = 0x04006. */
    public static final int CONNECTION_EVENT_BROKEN = 0x0_4006;

    /** The connection attempt timed out: {@code DAT_CONNECTION_EVENT_TIMED_OUT} = 0x04007. */
    public static final int CONNECTION_EVENT_TIMED_OUT = 0x0_4007;

    /** The remote address is unreachable: {@code DAT_CONNECTION_EVENT_UNREACHABLE} = 0x04008. */
    public static final int CONNECTION_EVENT_UNREACHABLE = 0x0_4008;

    /** An Event Dispatcher overflowed: {@code DAT_ASYNC_ERROR_EVD_OVERFLOW} = 0x08001. */
    public static final int ASYNC_ERROR_EVD_OVERFLOW = 0x0_8001;

    /**
     * The Interface Adapter failed catastrophically: {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC} =
     * 0x08002.
     */
    public static final int ASYNC_ERROR_IA_CATASTROPHIC = 0x0_8002;

    /** An Endpoint broke: {@code DAT_ASYNC_ERROR_EP_BROKEN} = 0x08003. */
    public static final int ASYNC_ERROR_EP_BROKEN = 0x0_8003;

    /** An operation timed out: {@code DAT_ASYNC_ERROR_TIMED_OUT} = 0x08004. */
    public static final int ASYNC_ERROR_TIMED_OUT = 0x0_8004;

    /**
     * The Provider hit an internal error: {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR} =
     * 0x08005.
     */
    public static final int ASYNC_ERROR_PROVIDER_INTERNAL_ERROR = 0x0_8005;

    /**
     * A Consumer posted a software event with {@code dat_evd_post_se}: {@code DAT_SOFTWARE_EVENT}
     * = 0x10001.
     */
    public static final int SOFTWARE_EVENT = 0x1_0001;

    /** Not instantiable: constants and static helpers only. */
    private EventNumber() {}

    /**
     * The C name of an event number, for example {@code "DAT_CONNECTION_EVENT_ESTABLISHED"}.
     * Allocation-free for defined numbers.
     *
     * @param eventNumber an event number
     * @return its C name, or the number as {@code "0x"} and at least five hexadecimal digits (for
     *     example {@code "0x20001"}) if DAT 1.2 does not define it
     */
    public static String name(int eventNumber) {
        return switch (eventNumber) {
            case DTO_COMPLETION_EVENT -> "DAT_DTO_COMPLETION_EVENT";
            case RMR_BIND_COMPLETION_EVENT -> "DAT_RMR_BIND_COMPLETION_EVENT";
            case CONNECTION_REQUEST_EVENT -> "DAT_CONNECTION_REQUEST_EVENT";
            case CONNECTION_EVENT_ESTABLISHED -> "DAT_CONNECTION_EVENT_ESTABLISHED";
            case CONNECTION_EVENT_PEER_REJECTED -> "DAT_CONNECTION_EVENT_PEER_REJECTED";
            case CONNECTION_EVENT_NON_PEER_REJECTED -> "DAT_CONNECTION_EVENT_NON_PEER_REJECTED";
            case CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR ->
                    "DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR";
            case CONNECTION_EVENT_DISCONNECTED -> "DAT_CONNECTION_EVENT_DISCONNECTED";
            case CONNECTION_EVENT_BROKEN -> "DAT_CONNECTION_EVENT_BROKEN";
            case CONNECTION_EVENT_TIMED_OUT -> "DAT_CONNECTION_EVENT_TIMED_OUT";
            case CONNECTION_EVENT_UNREACHABLE -> "DAT_CONNECTION_EVENT_UNREACHABLE";
            case ASYNC_ERROR_EVD_OVERFLOW -> "DAT_ASYNC_ERROR_EVD_OVERFLOW";
            case ASYNC_ERROR_IA_CATASTROPHIC -> "DAT_ASYNC_ERROR_IA_CATASTROPHIC";
            case ASYNC_ERROR_EP_BROKEN -> "DAT_ASYNC_ERROR_EP_BROKEN";
            case ASYNC_ERROR_TIMED_OUT -> "DAT_ASYNC_ERROR_TIMED_OUT";
            case ASYNC_ERROR_PROVIDER_INTERNAL_ERROR -> "DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR";
            case SOFTWARE_EVENT -> "DAT_SOFTWARE_EVENT";
            default -> String.format("0x%05X", eventNumber);
        };
    }

    /**
     * Whether DAT 1.2 defines an event number.
     *
     * @param eventNumber an event number
     * @return whether it is one of the constants of this class
     */
    public static boolean isDefined(int eventNumber) {
        return evdFlagOf(eventNumber) != 0;
    }

    /**
     * Whether an event number is one of the eight connection events,
     * {@link #CONNECTION_EVENT_ESTABLISHED} to {@link #CONNECTION_EVENT_UNREACHABLE}.
     *
     * @param eventNumber an event number
     * @return whether it is a connection event
     */
    public static boolean isConnectionEvent(int eventNumber) {
        return eventNumber >= CONNECTION_EVENT_ESTABLISHED
                && eventNumber <= CONNECTION_EVENT_UNREACHABLE;
    }

    /**
     * Whether an event number is one of the five asynchronous errors,
     * {@link #ASYNC_ERROR_EVD_OVERFLOW} to {@link #ASYNC_ERROR_PROVIDER_INTERNAL_ERROR}.
     *
     * @param eventNumber an event number
     * @return whether it is an asynchronous error
     */
    public static boolean isAsyncError(int eventNumber) {
        return eventNumber >= ASYNC_ERROR_EVD_OVERFLOW
                && eventNumber <= ASYNC_ERROR_PROVIDER_INTERNAL_ERROR;
    }

    /**
     * Whether an event number reports the completion of a posted operation: a DTO completion or
     * an RMR bind completion.
     *
     * @param eventNumber an event number
     * @return whether it is {@link #DTO_COMPLETION_EVENT} or {@link #RMR_BIND_COMPLETION_EVENT}
     */
    public static boolean isCompletionEvent(int eventNumber) {
        return eventNumber == DTO_COMPLETION_EVENT || eventNumber == RMR_BIND_COMPLETION_EVENT;
    }

    /**
     * The event stream an event belongs to, as the {@link EvdFlags} bit an EVD must have been
     * created with to receive it: {@link EvdFlags#DTO} for a DTO completion, {@link EvdFlags#CR}
     * for a connection request, and so on.
     *
     * @param eventNumber an event number
     * @return the one {@link EvdFlags} bit of its stream, or {@code 0} if DAT 1.2 does not define
     *     the event number
     */
    public static int evdFlagOf(int eventNumber) {
        if (eventNumber == DTO_COMPLETION_EVENT) {
            return EvdFlags.DTO;
        } else if (eventNumber == RMR_BIND_COMPLETION_EVENT) {
            return EvdFlags.RMR_BIND;
        } else if (eventNumber == CONNECTION_REQUEST_EVENT) {
            return EvdFlags.CR;
        } else if (isConnectionEvent(eventNumber)) {
            return EvdFlags.CONNECTION;
        } else if (isAsyncError(eventNumber)) {
            return EvdFlags.ASYNC;
        } else if (eventNumber == SOFTWARE_EVENT) {
            return EvdFlags.SOFTWARE;
        }
        return 0;
    }
}
