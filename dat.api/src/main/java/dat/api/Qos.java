package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The quality of service of a connection, {@code DAT_QOS}: the {@code qos} argument of
 * {@code dat_ep_connect} and the Endpoint attribute {@code qos}; as the Provider attribute
 * {@code dat_qos_supported}, a bit set of the levels the Provider supports.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_ep_connect(3DAT), dat_ep_create(3DAT),
 * dat_ia_query(3DAT).
 */
@ProviderType
public final class Qos {

    /** Best effort: {@code DAT_QOS_BEST_EFFORT} = 0x00. */
    public static final int BEST_EFFORT = 0x00;

    /** High throughput: {@code DAT_QOS_HIGH_THROUGHPUT} = 0x01. */
    public static final int HIGH_THROUGHPUT = 0x01;

    /** Low latency: {@code DAT_QOS_LOW_LATENCY} = 0x02. */
    public static final int LOW_LATENCY = 0x02;

    /** Neither low latency nor high throughput: {@code DAT_QOS_ECONOMY} = 0x04. */
    public static final int ECONOMY = 0x04;

    /** Both low latency and high throughput: {@code DAT_QOS_PREMIUM} = 0x08. */
    public static final int PREMIUM = 0x08;

    /** Every bit DAT 1.2 defines for this type, the union of the constants above. */
    private static final int DEFINED_BITS = HIGH_THROUGHPUT | LOW_LATENCY | ECONOMY | PREMIUM;

    /** Not instantiable: constants and static helpers only. */
    private Qos() {}

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
