package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The state of an Event Dispatcher, {@code DAT_EVD_STATE}, as {@code dat_evd_query} reports it. The
 * state has three orthogonal parts, and within each part the values exclude each other: enabled or
 * disabled, waitable or unwaitable, and the notification configuration (notify, solicited or
 * threshold).
 *
 * <p>Source: DAT 1.2 {@code <dat/udat.h>}; see dat_evd_query(3DAT), dat_evd_enable(3DAT),
 * dat_evd_disable(3DAT), dat_evd_set_unwaitable(3DAT), dat_evd_clear_unwaitable(3DAT).
 */
@ProviderType
public final class EvdState {

    /** The EVD is enabled: {@code DAT_EVD_STATE_ENABLED} = 0x01. */
    public static final int ENABLED = 0x01;

    /** The EVD is disabled: {@code DAT_EVD_STATE_DISABLED} = 0x02. */
    public static final int DISABLED = 0x02;

    /** Consumers may wait on the EVD: {@code DAT_EVD_STATE_WAITABLE} = 0x04. */
    public static final int WAITABLE = 0x04;

    /** Waits on the EVD return at once: {@code DAT_EVD_STATE_UNWAITABLE} = 0x08. */
    public static final int UNWAITABLE = 0x08;

    /** Every event notifies: {@code DAT_EVD_STATE_CONFIG_NOTIFY} = 0x10. */
    public static final int CONFIG_NOTIFY = 0x10;

    /** Only solicited events notify: {@code DAT_EVD_STATE_CONFIG_SOLICITED} = 0x20. */
    public static final int CONFIG_SOLICITED = 0x20;

    /**
     * Waiters wake up on their threshold (uDAPL only); the value is
     * {@code CONFIG_NOTIFY | CONFIG_SOLICITED}, so test the configuration as a whole, not bit by
     * bit: {@code DAT_EVD_STATE_CONFIG_THRESHOLD} = 0x30.
     */
    public static final int CONFIG_THRESHOLD = 0x30;

    /** Every bit DAT 1.2 defines for this type, the union of the constants above. */
    private static final int DEFINED_BITS =
            ENABLED | DISABLED | WAITABLE | UNWAITABLE | CONFIG_NOTIFY | CONFIG_SOLICITED
            | CONFIG_THRESHOLD;

    /** Not instantiable: constants and static helpers only. */
    private EvdState() {}

    /**
     * Whether a value sets only bits that DAT 1.2 defines for this type.
     *
     * @param flags a value to check
     * @return {@code true} if every bit it sets belongs to a constant of this class
     */
    public static boolean isValid(int flags) {
        return (flags & ~DEFINED_BITS) == 0;
    }
}
