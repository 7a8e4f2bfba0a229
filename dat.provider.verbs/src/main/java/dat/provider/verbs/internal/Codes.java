package dat.provider.verbs.internal;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.provider.support.ReturnCodes;
import dat.provider.verbs.internal.ffi.Errno;
import dat.provider.verbs.internal.ffi.NativeException;

/** The DAT return codes the provider answers ({@link ReturnCodes}), and the mapping of native failures to them. */
final class Codes extends ReturnCodes {

    private Codes() {
    }

    /** The DAT form of a failed native control call: resources, parameters, or an internal error. */
    static DatException fromNative(NativeException e, String argument) {
        int type = switch (e.errno()) {
            case Errno.ENOMEM, Errno.ENOSPC, Errno.EAGAIN -> DatReturn.INSUFFICIENT_RESOURCES;
            case Errno.EINVAL, Errno.EFAULT -> DatReturn.INVALID_PARAMETER;
            case Errno.EADDRINUSE -> DatReturn.CONN_QUAL_IN_USE;
            case Errno.EADDRNOTAVAIL, Errno.ENETUNREACH, Errno.EHOSTUNREACH -> DatReturn.INVALID_ADDRESS;
            case Errno.EOPNOTSUPP, Errno.ENOSYS -> DatReturn.MODEL_NOT_SUPPORTED;
            case Errno.EPERM, Errno.EACCES -> DatReturn.PRIVILEGES_VIOLATION;
            default -> DatReturn.INTERNAL_ERROR;
        };
        return nativeFailure(type, argument, e);
    }
}
