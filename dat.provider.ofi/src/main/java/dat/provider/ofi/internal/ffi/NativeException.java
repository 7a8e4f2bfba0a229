package dat.provider.ofi.internal.ffi;

import java.io.Serial;

/**
 * A libfabric or libc call failed: the function's name and the positive {@code FI_E*} number
 * (libfabric returns them negated; libc's {@code errno} uses the same numbers below 256). Thrown by
 * the control-path wrappers of {@link Fabric} and {@link Ops}; the provider turns it into a
 * {@code DatException} with the DAT code the man page names.
 */
public final class NativeException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String function;
    private final int error;

    /**
     * @param function the C function that failed
     * @param error its positive error number
     */
    public NativeException(String function, int error) {
        super(function + " failed: " + Fi.describe(error));
        this.function = function;
        this.error = error;
    }

    /** @return the C function that failed */
    public String function() {
        return function;
    }

    /** @return the positive {@code FI_E*} (or errno) number */
    public int error() {
        return error;
    }
}
