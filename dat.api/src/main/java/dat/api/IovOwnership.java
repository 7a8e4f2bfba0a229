package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Who owns the local buffer description (IOV) of a posted data transfer once the post returns,
 * {@code DAT_IOV_OWNERSHIP}: the Provider attribute {@code iov_ownership_on_return}. In every case
 * the Consumer owns it again once the transfer completed.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_ia_query(3DAT), dat_ep_post_send(3DAT).
 */
@ProviderType
public enum IovOwnership {

    /**
     * The Consumer owns the local buffer description (the IOV) again as soon as the post returns:
     * {@code DAT_IOV_CONSUMER} = 0.
     */
    CONSUMER(0),

    /**
     * The Provider still owns the IOV when the post returns, until the transfer completes, but does
     * not modify it: {@code DAT_IOV_PROVIDER_NOMOD} = 1.
     */
    PROVIDER_NOMOD(1),

    /**
     * The Provider still owns the IOV when the post returns, until the transfer completes, and may
     * modify it: {@code DAT_IOV_PROVIDER_MOD} = 2.
     */
    PROVIDER_MOD(2);

    /** The constants indexed by C value (the values are 0..2 in declaration order). */
    private static final IovOwnership[] BY_VALUE = values();

    /** The C value. */
    private final int value;

    /**
     * Binds a constant to its C value.
     *
     * @param value the {@code DAT_IOV_OWNERSHIP} value
     */
    IovOwnership(int value) {
        this.value = value;
    }

    /**
     * The C value of this constant.
     *
     * @return the {@code DAT_IOV_OWNERSHIP} value
     */
    public int value() {
        return value;
    }

    /**
     * The constant of a C value.
     *
     * @param value a {@code DAT_IOV_OWNERSHIP} value
     * @return the constant with that value
     * @throws IllegalArgumentException if DAT 1.2 defines no constant with that value
     */
    public static IovOwnership of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("undefined DAT_IOV_OWNERSHIP value " + value);
        }
        return BY_VALUE[value];
    }
}
