package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The transport service of an Endpoint, {@code DAT_SERVICE_TYPE}; DAT 1.2 defines reliable
 * connections only.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_ep_create(3DAT), dat_ep_query(3DAT).
 */
@ProviderType
public enum ServiceType {

    /** Reliable connection: {@code DAT_SERVICE_TYPE_RC} = 0. */
    RC(0);

    /** The constants indexed by C value (the values are 0..0 in declaration order). */
    private static final ServiceType[] BY_VALUE = values();

    /** The C value. */
    private final int value;

    /**
     * Binds a constant to its C value.
     *
     * @param value the {@code DAT_SERVICE_TYPE} value
     */
    ServiceType(int value) {
        this.value = value;
    }

    /**
     * The C value of this constant.
     *
     * @return the {@code DAT_SERVICE_TYPE} value
     */
    public int value() {
        return value;
    }

    /**
     * The constant of a C value.
     *
     * @param value a {@code DAT_SERVICE_TYPE} value
     * @return the constant with that value
     * @throws IllegalArgumentException if DAT 1.2 defines no constant with that value
     */
    public static ServiceType of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("undefined DAT_SERVICE_TYPE value " + value);
        }
        return BY_VALUE[value];
    }
}
