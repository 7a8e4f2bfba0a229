package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The kind of memory an LMR registers, {@code DAT_MEM_TYPE}: the {@code mem_type} argument of
 * {@code dat_lmr_create} and the region description it selects.
 *
 * <p>The 1.2 values are not bit flags ({@link #VIRTUAL} is 0), although the header calls them flags
 * for the Provider attribute {@code lmr_mem_types_supported}.
 *
 * <p>Source: DAT 1.2 {@code <dat/udat.h>}; see dat_lmr_create(3DAT), dat_lmr_query(3DAT).
 */
@ProviderType
public enum MemoryType {

    /** A contiguous range of the Consumer's virtual memory: {@code DAT_MEM_TYPE_VIRTUAL} = 0. */
    VIRTUAL(0),

    /**
     * The memory of an existing LMR, named by its handle; the length argument is ignored:
     * {@code DAT_MEM_TYPE_LMR} = 1.
     */
    LMR(1),

    /**
     * Virtual memory shared between processes, named by a cookie of
     * {@link DatConstants#LMR_COOKIE_SIZE} bytes (uDAPL only): {@code DAT_MEM_TYPE_SHARED_VIRTUAL}
     * = 2.
     */
    SHARED_VIRTUAL(2),

    /**
     * Virtual memory with strong ordering, a Solaris addition; an IA opened without the
     * {@link DatConstants#IA_NAME_RO_AWARE_PREFIX} prefix registers {@link #VIRTUAL} memory as this
     * type: {@code DAT_MEM_TYPE_SO_VIRTUAL} = 3.
     */
    SO_VIRTUAL(3);

    /** The constants indexed by C value (the values are 0..3 in declaration order). */
    private static final MemoryType[] BY_VALUE = values();

    /** The C value. */
    private final int value;

    /**
     * Binds a constant to its C value.
     *
     * @param value the {@code DAT_MEM_TYPE} value
     */
    MemoryType(int value) {
        this.value = value;
    }

    /**
     * The C value of this constant.
     *
     * @return the {@code DAT_MEM_TYPE} value
     */
    public int value() {
        return value;
    }

    /**
     * The constant of a C value.
     *
     * @param value a {@code DAT_MEM_TYPE} value
     * @return the constant with that value
     * @throws IllegalArgumentException if DAT 1.2 defines no constant with that value
     */
    public static MemoryType of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("undefined DAT_MEM_TYPE value " + value);
        }
        return BY_VALUE[value];
    }
}
