package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * How a Provider lets Protection Zones be shared, {@code DAT_PZ_SUPPORT}: the Provider attribute
 * {@code pz_support}.
 *
 * <p>Source: DAT 1.2 {@code <dat/udat.h>}; see dat_ia_query(3DAT), dat_pz_create(3DAT).
 */
@ProviderType
public enum PzSupport {

    /** Each Protection Zone is unique: {@code DAT_PZ_UNIQUE} = 0. */
    UNIQUE(0),

    /** All Protection Zones of the IA are the same: {@code DAT_PZ_SAME} = 1. */
    SAME(1),

    /** Protection Zones can be shared: {@code DAT_PZ_SHAREABLE} = 2. */
    SHAREABLE(2);

    /** The constants indexed by C value (the values are 0..2 in declaration order). */
    private static final PzSupport[] BY_VALUE = values();

    /** The C value. */
    private final int value;

    /**
     * Binds a constant to its C value.
     *
     * @param value the {@code DAT_PZ_SUPPORT} value
     */
    PzSupport(int value) {
        this.value = value;
    }

    /**
     * The C value of this constant.
     *
     * @return the {@code DAT_PZ_SUPPORT} value
     */
    public int value() {
        return value;
    }

    /**
     * The constant of a C value.
     *
     * @param value a {@code DAT_PZ_SUPPORT} value
     * @return the constant with that value
     * @throws IllegalArgumentException if DAT 1.2 defines no constant with that value
     */
    public static PzSupport of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("undefined DAT_PZ_SUPPORT value " + value);
        }
        return BY_VALUE[value];
    }
}
