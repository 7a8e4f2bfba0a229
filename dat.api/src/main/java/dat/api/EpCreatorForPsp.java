package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Whether a Provider creates Endpoints for its Public Service Points,
 * {@code DAT_EP_CREATOR_FOR_PSP}: the Provider attribute {@code ep_creator}. The C names are
 * {@code DAT_PSP_CREATES_EP_NEVER}, {@code _IFASKED} and {@code _ALWAYS}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_ia_query(3DAT), dat_psp_create(3DAT).
 */
@ProviderType
public enum EpCreatorForPsp {

    /**
     * The Provider never creates the Endpoint; only {@link PspFlag#CONSUMER} works:
     * {@code DAT_PSP_CREATES_EP_NEVER} = 0.
     */
    NEVER(0),

    /**
     * The Provider creates the Endpoint if asked with {@link PspFlag#PROVIDER}:
     * {@code DAT_PSP_CREATES_EP_IFASKED} = 1.
     */
    IFASKED(1),

    /** The Provider always creates the Endpoint: {@code DAT_PSP_CREATES_EP_ALWAYS} = 2. */
    ALWAYS(2);

    /** The constants indexed by C value (the values are 0..2 in declaration order). */
    private static final EpCreatorForPsp[] BY_VALUE = values();

    /** The C value. */
    private final int value;

    /**
     * Binds a constant to its C value.
     *
     * @param value the {@code DAT_EP_CREATOR_FOR_PSP} value
     */
    EpCreatorForPsp(int value) {
        this.value = value;
    }

    /**
     * The C value of this constant.
     *
     * @return the {@code DAT_EP_CREATOR_FOR_PSP} value
     */
    public int value() {
        return value;
    }

    /**
     * The constant of a C value.
     *
     * @param value a {@code DAT_EP_CREATOR_FOR_PSP} value
     * @return the constant with that value
     * @throws IllegalArgumentException if DAT 1.2 defines no constant with that value
     */
    public static EpCreatorForPsp of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("undefined DAT_EP_CREATOR_FOR_PSP value " + value);
        }
        return BY_VALUE[value];
    }
}
