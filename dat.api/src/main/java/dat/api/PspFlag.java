package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Who creates the Endpoint for a connection request that arrives at a Public Service Point,
 * {@code DAT_PSP_FLAGS}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_psp_create(3DAT), dat_psp_create_any(3DAT).
 */
@ProviderType
public enum PspFlag {

    /** The Consumer supplies the Endpoint when it accepts: {@code DAT_PSP_CONSUMER_FLAG} = 0. */
    CONSUMER(0),

    /**
     * The Provider creates an Endpoint in the {@link EpState#TENTATIVE_CONNECTION_PENDING} state
     * for each request: {@code DAT_PSP_PROVIDER_FLAG} = 1.
     */
    PROVIDER(1);

    /** The constants indexed by C value (the values are 0..1 in declaration order). */
    private static final PspFlag[] BY_VALUE = values();

    /** The C value. */
    private final int value;

    /**
     * Binds a constant to its C value.
     *
     * @param value the {@code DAT_PSP_FLAGS} value
     */
    PspFlag(int value) {
        this.value = value;
    }

    /**
     * The C value of this constant.
     *
     * @return the {@code DAT_PSP_FLAGS} value
     */
    public int value() {
        return value;
    }

    /**
     * The constant of a C value.
     *
     * @param value a {@code DAT_PSP_FLAGS} value
     * @return the constant with that value
     * @throws IllegalArgumentException if DAT 1.2 defines no constant with that value
     */
    public static PspFlag of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("undefined DAT_PSP_FLAGS value " + value);
        }
        return BY_VALUE[value];
    }
}
