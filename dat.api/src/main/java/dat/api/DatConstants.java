package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The basic constants of DAT 1.2: version, name length, timeouts, watermarks, alignment.
 *
 * <p><b>Timeouts</b> are {@code DAT_TIMEOUT}, an unsigned 32-bit count of microseconds in C. In
 * Java a timeout is a {@code long} number of microseconds from {@code 0} to
 * {@link #TIMEOUT_INFINITE} ({@code 0xFFFFFFFFL}, the C {@code ~0}), which means "wait forever";
 * {@link #isValidTimeout(long)} checks the range.
 *
 * <p><b>Counts</b> are {@code DAT_COUNT}, a C {@code int}: {@link #WATERMARK_INFINITE},
 * {@link #HW_DEFAULT} and {@link #VALUE_UNKNOWN} are the negative {@code int} values the C casts
 * {@code (DAT_COUNT)~0} and {@code ((DAT_COUNT)~0)-1} give.
 *
 * <p>Source: DAT 1.2 {@code <dat/udat_config.h>} (version), {@code <dat/dat.h>} (name length,
 * timeout, watermarks), {@code <dat/udat.h>} (LMR cookie), {@code <dat/dat_platform_specific.h>}
 * (alignment); see dat_ia_open(3DAT) for the {@code RO_AWARE_} prefix, dat_evd_wait(3DAT) and
 * dat_ep_connect(3DAT) for timeouts, dat_ep_set_watermark(3DAT), dat_srq_create(3DAT),
 * dat_ep_recv_query(3DAT) and dat_srq_query(3DAT) for the counts.
 */
@ProviderType
public final class DatConstants {

    /** The DAT API major version this API implements: {@code DAT_VERSION_MAJOR} = 1. */
    public static final int VERSION_MAJOR = 1;

    /** The DAT API minor version this API implements: {@code DAT_VERSION_MINOR} = 2. */
    public static final int VERSION_MINOR = 2;

    /**
     * The size of a C buffer for an IA, provider or adapter name, including its terminating NUL:
     * {@code DAT_NAME_MAX_LENGTH} = 256. A name therefore has at most 255 characters.
     */
    public static final int NAME_MAX_LENGTH = 256;

    /**
     * The timeout that never expires: {@code DAT_TIMEOUT_INFINITE}, {@code (DAT_TIMEOUT)~0}, the
     * largest unsigned 32-bit value, {@code 0xFFFFFFFFL} microseconds.
     */
    public static final long TIMEOUT_INFINITE = 0xFFFF_FFFFL;

    /**
     * The size in bytes of the cookie that identifies shared memory for an LMR of type
     * {@link MemoryType#SHARED_VIRTUAL}: {@code DAT_LMR_COOKIE_SIZE} = 40.
     */
    public static final int LMR_COOKIE_SIZE = 40;

    /**
     * The buffer alignment in bytes that gives the best transfer performance:
     * {@code DAT_OPTIMAL_ALIGNMENT} = 256.
     */
    public static final int OPTIMAL_ALIGNMENT = 256;

    /** No watermark: {@code DAT_WATERMARK_INFINITE}, {@code (DAT_COUNT)~0} = -1. */
    public static final int WATERMARK_INFINITE = -1;

    /**
     * The Provider's default hard high watermark: {@code DAT_HW_DEFAULT}, defined as
     * {@link #WATERMARK_INFINITE} = -1.
     */
    public static final int HW_DEFAULT = WATERMARK_INFINITE;

    /**
     * A count the Provider cannot report, in {@code dat_ep_recv_query} or {@code dat_srq_query}:
     * {@code DAT_VALUE_UNKNOWN}, {@code ((DAT_COUNT)~0)-1} = -2.
     */
    public static final int VALUE_UNKNOWN = -2;

    /** The default SRQ low watermark, meaning none: {@code DAT_SRQ_LW_DEFAULT} = 0. */
    public static final int SRQ_LW_DEFAULT = 0;

    /**
     * The IA-name prefix by which a Consumer declares that it copes with relaxed memory ordering
     * (Solaris specific, not part of the DAT standard). {@code dat_ia_open} strips it before the
     * name reaches the Provider; without it, on a platform that uses relaxed ordering, the open
     * fails with {@link DatReturn#INVALID_PARAMETER} / {@link DatReturn#INVALID_RO_COOKIE}, and
     * {@link MemoryType#VIRTUAL} memory is registered as {@link MemoryType#SO_VIRTUAL}. See
     * dat_ia_open(3DAT) and dat_lmr_create(3DAT).
     */
    public static final String IA_NAME_RO_AWARE_PREFIX = "RO_AWARE_";

    /** Not instantiable: constants and static helpers only. */
    private DatConstants() {}

    /**
     * Whether a timeout fits {@code DAT_TIMEOUT}: from {@code 0} to {@link #TIMEOUT_INFINITE}
     * microseconds inclusive.
     *
     * @param timeoutMicros a timeout in microseconds
     * @return whether it is a valid DAT timeout
     */
    public static boolean isValidTimeout(long timeoutMicros) {
        return timeoutMicros >= 0 && timeoutMicros <= TIMEOUT_INFINITE;
    }
}
