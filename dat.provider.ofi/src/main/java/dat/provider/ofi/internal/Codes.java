package dat.provider.ofi.internal;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.NativeException;

/** The DAT return codes the provider answers, built once, and the mapping of libfabric failures to them. */
final class Codes {

    private Codes() {
    }

    static final int SUCCESS = DatReturn.SUCCESS;
    static final int QUEUE_EMPTY = DatReturn.error(DatReturn.QUEUE_EMPTY, DatReturn.NO_SUBTYPE);
    static final int QUEUE_FULL = DatReturn.error(DatReturn.QUEUE_FULL, DatReturn.NO_SUBTYPE);
    static final int TIMEOUT_EXPIRED = DatReturn.error(DatReturn.TIMEOUT_EXPIRED, DatReturn.NO_SUBTYPE);
    static final int ABORT = DatReturn.error(DatReturn.ABORT, DatReturn.NO_SUBTYPE);
    static final int INTERRUPTED = DatReturn.error(DatReturn.INTERRUPTED_CALL, DatReturn.NO_SUBTYPE);
    static final int INVALID_STATE = DatReturn.error(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE);
    static final int INVALID_STATE_EVD_WAITER = DatReturn.error(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_WAITER);
    static final int INVALID_STATE_EVD_UNWAITABLE =
            DatReturn.error(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_UNWAITABLE);
    static final int INVALID_STATE_EVD_CNO = DatReturn.error(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EVD_CONFIG_NOTIFY);
    static final int INSUFFICIENT_RESOURCES = DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.NO_SUBTYPE);
    static final int LENGTH_ERROR = DatReturn.error(DatReturn.LENGTH_ERROR, DatReturn.NO_SUBTYPE);
    static final int INTERNAL_ERROR = DatReturn.error(DatReturn.INTERNAL_ERROR, DatReturn.NO_SUBTYPE);
    static final int PROTECTION_VIOLATION = DatReturn.error(DatReturn.PROTECTION_VIOLATION, DatReturn.NO_SUBTYPE);
    static final int PRIVILEGES_READ = DatReturn.error(DatReturn.PRIVILEGES_VIOLATION, DatReturn.PRIVILEGES_READ);
    static final int PRIVILEGES_WRITE = DatReturn.error(DatReturn.PRIVILEGES_VIOLATION, DatReturn.PRIVILEGES_WRITE);
    static final int PRIVILEGES_UNKNOWN = DatReturn.error(DatReturn.PRIVILEGES_VIOLATION, DatReturn.NO_SUBTYPE);

    static int invalidParameter(int argSubtype) {
        return DatReturn.error(DatReturn.INVALID_PARAMETER, argSubtype);
    }

    static int invalidHandle(int subtype) {
        return DatReturn.error(DatReturn.INVALID_HANDLE, subtype);
    }

    static DatException exception(int type, int subtype, String argument, String detail) {
        return DatException.of(type, subtype, argument, detail);
    }

    static DatException invalidParameterException(int argSubtype, String argument, String detail) {
        return DatException.of(DatReturn.INVALID_PARAMETER, argSubtype, argument, detail);
    }

    static DatException invalidState(int subtype, String detail) {
        return DatException.of(DatReturn.INVALID_STATE, subtype, null, detail);
    }

    static DatException notSupported(String argument, String detail) {
        return DatException.of(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, argument, detail);
    }

    /** The DAT form of a failed libfabric control call: resources, parameters, or an internal error. */
    static DatException fromNative(NativeException e, String argument) {
        int type = switch (e.error()) {
            case Fi.ENOMEM, Fi.ENOSPC, Fi.EAGAIN, Fi.EMFILE, Fi.ENOBUFS -> DatReturn.INSUFFICIENT_RESOURCES;
            case Fi.EINVAL, Fi.EFAULT, Fi.EBADFLAGS, Fi.ETOOSMALL -> DatReturn.INVALID_PARAMETER;
            case Fi.EADDRINUSE -> DatReturn.CONN_QUAL_IN_USE;
            case Fi.EADDRNOTAVAIL, Fi.ENETUNREACH, Fi.EHOSTUNREACH -> DatReturn.INVALID_ADDRESS;
            case Fi.EOPNOTSUPP, Fi.ENOSYS -> DatReturn.MODEL_NOT_SUPPORTED;
            case Fi.EPERM, Fi.EACCES -> DatReturn.PRIVILEGES_VIOLATION;
            default -> DatReturn.INTERNAL_ERROR;
        };
        int subtype = type == DatReturn.INSUFFICIENT_RESOURCES ? DatReturn.RESOURCE_DEVICE : DatReturn.NO_SUBTYPE;
        return new DatException(DatReturn.error(type, subtype), argument, e.getMessage(), e);
    }
}
