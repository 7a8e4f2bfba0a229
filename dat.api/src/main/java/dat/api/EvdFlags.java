package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The event streams an Event Dispatcher accepts, {@code DAT_EVD_FLAGS}: the {@code evd_flags}
 * argument of {@code dat_evd_create}, a bit set. The bit order is also the row and column order of
 * the Provider attribute {@code evd_stream_merging_supported}.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_evd_create(3DAT), dat_evd_query(3DAT),
 * dat_ia_query(3DAT).
 */
@ProviderType
public final class EvdFlags {

    /**
     * Software events posted with {@code dat_evd_post_se}: {@code DAT_EVD_SOFTWARE_FLAG} = 0x001.
     */
    public static final int SOFTWARE = 0x001;

    /** Connection requests arriving at service points: {@code DAT_EVD_CR_FLAG} = 0x010. */
    public static final int CR = 0x010;

    /** Data transfer completions: {@code DAT_EVD_DTO_FLAG} = 0x020. */
    public static final int DTO = 0x020;

    /** Connection events of Endpoints: {@code DAT_EVD_CONNECTION_FLAG} = 0x040. */
    public static final int CONNECTION = 0x040;

    /** RMR bind completions: {@code DAT_EVD_RMR_BIND_FLAG} = 0x080. */
    public static final int RMR_BIND = 0x080;

    /** Asynchronous errors: {@code DAT_EVD_ASYNC_FLAG} = 0x100. */
    public static final int ASYNC = 0x100;

    /**
     * Every DAT event stream but software events: {@code CR | DTO | CONNECTION | RMR_BIND | ASYNC}:
     * {@code DAT_EVD_DEFAULT_FLAG} = 0x1F0.
     */
    public static final int DEFAULT = 0x1F0;

    /** Every bit DAT 1.2 defines for this type, the union of the constants above. */
    private static final int DEFINED_BITS =
            SOFTWARE | CR | DTO | CONNECTION | RMR_BIND | ASYNC | DEFAULT;

    /** Not instantiable: constants and static helpers only. */
    private EvdFlags() {}

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
