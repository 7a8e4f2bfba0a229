package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * How {@code dat_ia_close} and {@code dat_ep_disconnect} close, {@code DAT_CLOSE_FLAGS}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_ia_close(3DAT), dat_ep_disconnect(3DAT).
 */
@ProviderType
public enum CloseFlag {

    /**
     * Abrupt close, the default: {@code dat_ia_close} closes the IA with every object the Consumer
     * created on it; {@code dat_ep_disconnect} completes outstanding DTOs and RMR binds
     * unsuccessfully: {@code DAT_CLOSE_ABRUPT_FLAG} = 0.
     */
    ABRUPT(0),

    /**
     * Graceful close: {@code dat_ia_close} succeeds only if the Consumer freed every object it
     * created first; {@code dat_ep_disconnect} lets outstanding request DTOs and RMR binds try to
     * complete, in {@link EpState#DISCONNECT_PENDING}: {@code DAT_CLOSE_GRACEFUL_FLAG} = 1.
     */
    GRACEFUL(1);

    /** The default close, {@link #ABRUPT}: {@code DAT_CLOSE_DEFAULT}. */
    public static final CloseFlag DEFAULT = ABRUPT;

    /** The constants indexed by C value (the values are 0..1 in declaration order). */
    private static final CloseFlag[] BY_VALUE = values();

    /** The C value. */
    private final int value;

    /**
     * Binds a constant to its C value.
     *
     * @param value the {@code DAT_CLOSE_FLAGS} value
     */
    CloseFlag(int value) {
        this.value = value;
    }

    /**
     * The C value of this constant.
     *
     * @return the {@code DAT_CLOSE_FLAGS} value
     */
    public int value() {
        return value;
    }

    /**
     * The constant of a C value.
     *
     * @param value a {@code DAT_CLOSE_FLAGS} value
     * @return the constant with that value
     * @throws IllegalArgumentException if DAT 1.2 defines no constant with that value
     */
    public static CloseFlag of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("undefined DAT_CLOSE_FLAGS value " + value);
        }
        return BY_VALUE[value];
    }
}
