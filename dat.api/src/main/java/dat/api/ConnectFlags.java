package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Options of {@code dat_ep_connect}, {@code DAT_CONNECT_FLAGS}; a bit set.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_ep_connect(3DAT), dat_ia_query(3DAT).
 */
@ProviderType
public final class ConnectFlags {

    /** A plain connection: {@code DAT_CONNECT_DEFAULT_FLAG} = 0x00. */
    public static final int DEFAULT = 0x00;

    /**
     * Ask for a multipath connection, if the Provider attribute {@code supports_multipath} says it
     * can: {@code DAT_CONNECT_MULTIPATH_FLAG} = 0x01.
     */
    public static final int MULTIPATH = 0x01;

    /** Every bit DAT 1.2 defines for this type, the union of the constants above. */
    private static final int DEFINED_BITS = MULTIPATH;

    /** Not instantiable: constants and static helpers only. */
    private ConnectFlags() {}

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
