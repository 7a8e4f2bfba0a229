package dat.switching;

import org.osgi.annotation.versioning.ProviderType;

/** Why an {@link IaSwitcher} opened an IA or left one. */
@ProviderType
public enum SwitchCause {
    /** The first IA of the switcher. */
    INITIAL,
    /** The current IA's provider left the registry (hot swap: the bundle stopped, say). */
    PROVIDER_LEFT,
    /**
     * The current IA failed while its provider stayed: {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC} on
     * its async EVD, or the async EVD became invalid.
     */
    IA_FAILED,
    /** The application asked for the best provider again ({@link IaSwitcher#reselect()}). */
    RESELECTED,
    /** The switcher was closed. */
    CLOSED
}
