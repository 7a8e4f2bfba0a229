package dat.provider.verbs.internal.ffi;

import java.io.Serial;

/**
 * A native call failed: the function's name and the {@code errno} (or the positive error number
 * the verbs return directly). Thrown by {@link Verbs}'s control-path wrappers; the provider turns
 * it into a {@code DatException} with the DAT code the man page names.
 */
public final class NativeException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String function;
    private final int errno;

    /**
     * @param function the C function that failed
     * @param errno its error number
     */
    public NativeException(String function, int errno) {
        super(function + " failed: " + Errno.describe(errno));
        this.function = function;
        this.errno = errno;
    }

    /** @return the C function that failed */
    public String function() {
        return function;
    }

    /** @return the error number */
    public int errno() {
        return errno;
    }
}
