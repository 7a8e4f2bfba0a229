package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The type of a DAT handle, {@code DAT_HANDLE_TYPE}, as {@code dat_get_handle_type} reports it.
 * Each constant carries its C value; the enum order is the C order.
 *
 * <p>Source: DAT 1.2 {@code <dat/udat.h>}; see dat_get_handle_type(3DAT).
 */
@ProviderType
public enum HandleType {

    /** Connection Request: {@code DAT_HANDLE_TYPE_CR} = 0. */
    CR(0),

    /** Endpoint: {@code DAT_HANDLE_TYPE_EP} = 1. */
    EP(1),

    /** Event Dispatcher: {@code DAT_HANDLE_TYPE_EVD} = 2. */
    EVD(2),

    /** Interface Adapter: {@code DAT_HANDLE_TYPE_IA} = 3. */
    IA(3),

    /** Local Memory Region: {@code DAT_HANDLE_TYPE_LMR} = 4. */
    LMR(4),

    /** Public Service Point: {@code DAT_HANDLE_TYPE_PSP} = 5. */
    PSP(5),

    /** Protection Zone: {@code DAT_HANDLE_TYPE_PZ} = 6. */
    PZ(6),

    /** Remote Memory Region: {@code DAT_HANDLE_TYPE_RMR} = 7. */
    RMR(7),

    /** Reserved Service Point: {@code DAT_HANDLE_TYPE_RSP} = 8. */
    RSP(8),

    /** Consumer Notification Object: {@code DAT_HANDLE_TYPE_CNO} = 9. */
    CNO(9),

    /** Shared Receive Queue: {@code DAT_HANDLE_TYPE_SRQ} = 10. */
    SRQ(10);

    /** The constants indexed by C value (the values are 0..10 in declaration order). */
    private static final HandleType[] BY_VALUE = values();

    /** The C value. */
    private final int value;

    /**
     * Binds a constant to its C value.
     *
     * @param value the {@code DAT_HANDLE_TYPE} value
     */
    HandleType(int value) {
        this.value = value;
    }

    /**
     * The C value of this handle type.
     *
     * @return the {@code DAT_HANDLE_TYPE} value
     */
    public int value() {
        return value;
    }

    /**
     * The handle type of a C value.
     *
     * @param value a {@code DAT_HANDLE_TYPE} value
     * @return the constant with that value
     * @throws IllegalArgumentException if DAT 1.2 defines no handle type with that value
     */
    public static HandleType of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("undefined DAT_HANDLE_TYPE value " + value);
        }
        return BY_VALUE[value];
    }
}
