package dat.provider.ofi.internal;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.support.ReturnCodes;

/** The DAT return codes the provider answers ({@link ReturnCodes}), and the mapping of libfabric failures to them. */
final class Codes extends ReturnCodes {

    private Codes() {
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
        return nativeFailure(type, argument, e);
    }
}
