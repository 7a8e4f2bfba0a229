package dat.provider.support;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.EpState;

/**
 * The DAT return codes a native provider answers, built once (the data path returns them without
 * computing them), and the {@link DatException}s of its control path. A provider's own codes class
 * extends this one with the mapping of its native failures.
 */
public class ReturnCodes {

    protected ReturnCodes() {
    }

    public static final int SUCCESS = DatReturn.SUCCESS;
    public static final int QUEUE_EMPTY = DatReturn.error(DatReturn.QUEUE_EMPTY, DatReturn.NO_SUBTYPE);
    public static final int QUEUE_FULL = DatReturn.error(DatReturn.QUEUE_FULL, DatReturn.NO_SUBTYPE);
    public static final int TIMEOUT_EXPIRED = DatReturn.error(DatReturn.TIMEOUT_EXPIRED, DatReturn.NO_SUBTYPE);
    public static final int ABORT = DatReturn.error(DatReturn.ABORT, DatReturn.NO_SUBTYPE);
    public static final int INTERRUPTED = DatReturn.error(DatReturn.INTERRUPTED_CALL, DatReturn.NO_SUBTYPE);
    public static final int INVALID_STATE = DatReturn.error(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE);
    public static final int INVALID_STATE_EVD_WAITER = DatReturn.error(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_WAITER);
    public static final int INVALID_STATE_EVD_UNWAITABLE =
            DatReturn.error(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_UNWAITABLE);
    public static final int INVALID_STATE_EVD_THRESHOLD =
            DatReturn.error(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_CONFIG_THRESHOLD);
    public static final int INSUFFICIENT_RESOURCES = DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.NO_SUBTYPE);
    public static final int LENGTH_ERROR = DatReturn.error(DatReturn.LENGTH_ERROR, DatReturn.NO_SUBTYPE);
    public static final int INTERNAL_ERROR = DatReturn.error(DatReturn.INTERNAL_ERROR, DatReturn.NO_SUBTYPE);
    public static final int PROTECTION_VIOLATION = DatReturn.error(DatReturn.PROTECTION_VIOLATION, DatReturn.NO_SUBTYPE);
    public static final int PRIVILEGES_READ = DatReturn.error(DatReturn.PRIVILEGES_VIOLATION, DatReturn.PRIVILEGES_READ);
    public static final int PRIVILEGES_WRITE = DatReturn.error(DatReturn.PRIVILEGES_VIOLATION, DatReturn.PRIVILEGES_WRITE);
    public static final int PRIVILEGES_UNKNOWN = DatReturn.error(DatReturn.PRIVILEGES_VIOLATION, DatReturn.NO_SUBTYPE);

    public static int invalidParameter(int argSubtype) {
        return DatReturn.error(DatReturn.INVALID_PARAMETER, argSubtype);
    }

    public static int invalidHandle(int subtype) {
        return DatReturn.error(DatReturn.INVALID_HANDLE, subtype);
    }

    public static DatException exception(int type, int subtype, String argument, String detail) {
        return DatException.of(type, subtype, argument, detail);
    }

    public static DatException invalidParameterException(int argSubtype, String argument, String detail) {
        return DatException.of(DatReturn.INVALID_PARAMETER, argSubtype, argument, detail);
    }

    public static DatException invalidState(int subtype, String detail) {
        return DatException.of(DatReturn.INVALID_STATE, subtype, null, detail);
    }

    /**
     * The {@code DAT_INVALID_STATE} code of an Endpoint in state {@code s}, with the state's
     * {@code DAT_INVALID_STATE_EP_*} subtype: what a call the state does not allow answers.
     */
    public static int epState(EpState s) {
        return EP_STATE_CODES[s.value()];
    }

    /** The control path's form of {@link #epState}: the Endpoint (argument {@code ep}) is in the wrong state. */
    public static DatException epStateException(EpState s, String detail) {
        return new DatException(epState(s), "ep", detail, null);
    }

    private static final int[] EP_STATE_CODES = new int[EpState.values().length];

    static {
        for (EpState s : EpState.values()) {
            int subtype = switch (s) {
                case UNCONNECTED -> DatReturn.INVALID_STATE_EP_UNCONNECTED;
                case ACTIVE_CONNECTION_PENDING -> DatReturn.INVALID_STATE_EP_ACTCONNPENDING;
                case PASSIVE_CONNECTION_PENDING -> DatReturn.INVALID_STATE_EP_PASSCONNPENDING;
                case TENTATIVE_CONNECTION_PENDING -> DatReturn.INVALID_STATE_EP_TENTCONNPENDING;
                case CONNECTED -> DatReturn.INVALID_STATE_EP_CONNECTED;
                case DISCONNECTED -> DatReturn.INVALID_STATE_EP_DISCONNECTED;
                case RESERVED -> DatReturn.INVALID_STATE_EP_RESERVED;
                case COMPLETION_PENDING -> DatReturn.INVALID_STATE_EP_COMPLPENDING;
                case DISCONNECT_PENDING -> DatReturn.INVALID_STATE_EP_DISCPENDING;
                case UNCONFIGURED_UNCONNECTED -> DatReturn.INVALID_STATE_EP_UNCONFIGURED;
                case UNCONFIGURED_RESERVED -> DatReturn.INVALID_STATE_EP_UNCONFRESERVED;
                case UNCONFIGURED_PASSIVE -> DatReturn.INVALID_STATE_EP_UNCONFPASSIVE;
                case UNCONFIGURED_TENTATIVE -> DatReturn.INVALID_STATE_EP_UNCONFTENTATIVE;
            };
            EP_STATE_CODES[s.value()] = DatReturn.error(DatReturn.INVALID_STATE, subtype);
        }
    }

    public static DatException notSupported(String argument, String detail) {
        return DatException.of(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, argument, detail);
    }

    /**
     * The DAT form of a failed native control call, given the DAT type its error number maps to:
     * resources carry the device subtype.
     */
    public static DatException nativeFailure(int type, String argument, Exception cause) {
        int subtype = type == DatReturn.INSUFFICIENT_RESOURCES ? DatReturn.RESOURCE_DEVICE : DatReturn.NO_SUBTYPE;
        return new DatException(DatReturn.error(type, subtype), argument, cause.getMessage(), cause);
    }
}
