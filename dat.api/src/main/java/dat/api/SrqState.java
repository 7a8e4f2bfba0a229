package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The state of a Shared Receive Queue, {@code DAT_SRQ_STATE}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_srq_create(3DAT), dat_srq_query(3DAT).
 */
@ProviderType
public enum SrqState {

    /** The SRQ works normally: {@code DAT_SRQ_STATE_OPERATIONAL} = 0. */
    OPERATIONAL(0),

    /** The SRQ is in the error state: {@code DAT_SRQ_STATE_ERROR} = 1. */
    ERROR(1);

    /** The constants indexed by C value (the values are 0..1 in declaration order). */
    private static final SrqState[] BY_VALUE = values();

    /** The C value. */
    private final int value;

    /**
     * Binds a constant to its C value.
     *
     * @param value the {@code DAT_SRQ_STATE} value
     */
    SrqState(int value) {
        this.value = value;
    }

    /**
     * The C value of this constant.
     *
     * @return the {@code DAT_SRQ_STATE} value
     */
    public int value() {
        return value;
    }

    /**
     * The constant of a C value.
     *
     * @param value a {@code DAT_SRQ_STATE} value
     * @return the constant with that value
     * @throws IllegalArgumentException if DAT 1.2 defines no constant with that value
     */
    public static SrqState of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("undefined DAT_SRQ_STATE value " + value);
        }
        return BY_VALUE[value];
    }
}
