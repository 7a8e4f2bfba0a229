package dat.api;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The memory an LMR registers, {@code DAT_REGION_DESCRIPTION}: the C union of a virtual address
 * ({@code for_va}), an existing LMR ({@code for_lmr_handle}) and shared memory
 * ({@code for_shared_memory}). Memory is a native {@link MemorySegment}: RDMA needs memory that
 * does not move, so heap segments are refused with {@link DatReturn#INVALID_PARAMETER}.
 *
 * <p>See dat_lmr_create(3DAT).
 */
@ProviderType
public sealed interface RegionDescription {

    /**
     * Memory given by its address ({@code for_va}), for {@link MemoryType#VIRTUAL} and
     * {@link MemoryType#SO_VIRTUAL}.
     *
     * @param memory the native memory
     */
    record Virtual(MemorySegment memory) implements RegionDescription {
        /**
         * Checks the memory is present.
         *
         * @throws NullPointerException for {@code null} memory
         */
        public Virtual {
            Objects.requireNonNull(memory, "memory");
        }
    }

    /**
     * The memory of an existing LMR of the same IA ({@code for_lmr_handle}), for
     * {@link MemoryType#LMR}: the new LMR shares the registration, in another PZ or with other
     * privileges.
     *
     * @param lmr the existing LMR
     */
    record OfLmr(LocalMemoryRegion lmr) implements RegionDescription {
        /**
         * Checks the LMR is present.
         *
         * @throws NullPointerException for a {@code null} LMR
         */
        public OfLmr {
            Objects.requireNonNull(lmr, "lmr");
        }
    }

    /**
     * Memory shared between processes ({@code for_shared_memory}), for
     * {@link MemoryType#SHARED_VIRTUAL}: LMRs registered with the same 40-byte cookie
     * ({@code DAT_LMR_COOKIE}) refer to the same shared memory and may share one registration.
     *
     * @param memory this process's mapping of the shared memory
     * @param cookie the {@link DatConstants#LMR_COOKIE_SIZE}-byte identity of the shared memory
     */
    record SharedMemory(MemorySegment memory, byte[] cookie) implements RegionDescription {
        /**
         * Checks the cookie size and copies the cookie.
         *
         * @throws NullPointerException for {@code null} memory or cookie
         * @throws IllegalArgumentException for a cookie that is not 40 bytes
         */
        public SharedMemory {
            Objects.requireNonNull(memory, "memory");
            Objects.requireNonNull(cookie, "cookie");
            if (cookie.length != DatConstants.LMR_COOKIE_SIZE) {
                throw new IllegalArgumentException("a DAT_LMR_COOKIE has " + DatConstants.LMR_COOKIE_SIZE + " bytes, not " + cookie.length);
            }
            cookie = cookie.clone();
        }

        /**
         * The cookie.
         *
         * @return a copy of the 40-byte cookie
         */
        @Override
        public byte[] cookie() {
            return cookie.clone();
        }
    }

    /**
     * Memory given by its address.
     *
     * @param memory the native memory
     * @return the description
     */
    static RegionDescription virtual(MemorySegment memory) {
        return new Virtual(memory);
    }

    /**
     * The memory of an existing LMR.
     *
     * @param lmr the LMR
     * @return the description
     */
    static RegionDescription ofLmr(LocalMemoryRegion lmr) {
        return new OfLmr(lmr);
    }

    /**
     * Shared memory with its cookie.
     *
     * @param memory this process's mapping of the shared memory
     * @param cookie the 40-byte cookie
     * @return the description
     */
    static RegionDescription sharedMemory(MemorySegment memory, byte[] cookie) {
        return new SharedMemory(memory, cookie);
    }
}
