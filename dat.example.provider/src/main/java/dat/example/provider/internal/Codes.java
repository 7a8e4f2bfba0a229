package dat.example.provider.internal;

import dat.api.DatException;
import dat.api.DatReturn;

/** The return codes and exceptions the decorator gives of its own accord. */
final class Codes {

    /** {@code DAT_INVALID_HANDLE}: what every call answers once the metered provider left. */
    static final int INVALID_HANDLE = DatReturn.error(DatReturn.INVALID_HANDLE, DatReturn.NO_SUBTYPE);

    private Codes() {
    }

    /**
     * The exception of a control-path call on a handle whose metered IA failed because the metered
     * provider left.
     */
    static DatException providerLeft(String handle) {
        return DatException.of(DatReturn.INVALID_HANDLE, DatReturn.NO_SUBTYPE, handle,
                "the metered provider left: the IA failed (DAT_ASYNC_ERROR_IA_CATASTROPHIC)");
    }
}
