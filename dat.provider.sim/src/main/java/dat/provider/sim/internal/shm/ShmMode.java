package dat.provider.sim.internal.shm;

import dat.api.DatException;
import dat.api.DatReturn;
import java.util.Locale;

/**
 * Whether a TCP IA moves the data of its connections through shared memory: the {@code shm}
 * key of its {@code ia_params}.
 */
public enum ShmMode {

    /** Offers shared memory when the peer's address is on this host; takes it when offered; else TCP. */
    AUTO,
    /** Only shared memory: offers it to every peer and refuses a connection that cannot share (NON_PEER_REJECTED). */
    ON,
    /** TCP only: never offers shared memory, and declines an offer. */
    OFF;

    /** The mode of an IA whose {@code ia_params} have no {@code shm} key. */
    public static final ShmMode DEFAULT = OFF;

    /**
     * The mode an {@code ia_params} value names.
     *
     * @param value {@code auto}, {@code on} or {@code off}; {@code null}: {@link #DEFAULT}
     * @return the mode
     * @throws DatException {@code DAT_INVALID_PARAMETER} for any other value
     */
    public static ShmMode parse(String value) {
        if (value == null) {
            return DEFAULT;
        }
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "auto" -> AUTO;
            case "on" -> ON;
            case "off" -> OFF;
            default -> throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "ia_params",
                    "shm must be auto, on or off, was '" + value + "'");
        };
    }

    /** The {@code ia_params} value. */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }
}
