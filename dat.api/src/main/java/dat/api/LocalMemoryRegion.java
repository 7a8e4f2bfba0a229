package dat.api;

import java.lang.foreign.MemorySegment;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A Local Memory Region (LMR, {@code DAT_LMR_HANDLE}): memory registered with an IA, in a
 * Protection Zone, with privileges. Local DTOs address it through {@link LmrTriplet}s carrying
 * {@link #lmrContext()}; remote peers through {@link RmrTriplet}s carrying {@link #rmrContext()}
 * when the privileges grant remote access. Create one with
 * {@link InterfaceAdapter#registerMemory}.
 *
 * <p>See dat_lmr_create(3DAT), dat_lmr_query(3DAT), dat_lmr_free(3DAT).
 */
@ProviderType
public interface LocalMemoryRegion extends DatHandle {

    /**
     * The context local IOVs name this LMR by ({@code lmr_context}).
     *
     * @return the LMR context
     */
    int lmrContext();

    /**
     * The context remote peers name this LMR by ({@code rmr_context}); meaningful when the LMR
     * grants {@link MemPrivileges#REMOTE_READ} or {@link MemPrivileges#REMOTE_WRITE}.
     *
     * @return the RMR context
     */
    int rmrContext();

    /**
     * The address of the registered range ({@code registered_address}); it may be below the
     * requested address when the provider registers whole pages.
     *
     * @return the registered address
     */
    long registeredAddress();

    /**
     * The size of the registered range ({@code registered_size}).
     *
     * @return the registered size
     */
    long registeredSize();

    /**
     * The registered memory as a segment: the region the consumer gave, not the possibly larger
     * registered range.
     *
     * @return the memory
     */
    MemorySegment memory();

    /**
     * The LMR parameters: {@code dat_lmr_query(3DAT)}.
     *
     * @param lmrParamMask the {@link LmrParamMask} bits wanted
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad mask;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    LmrParams query(int lmrParamMask);

    /**
     * All LMR parameters: {@code dat_lmr_query} with {@link LmrParamMask#ALL}.
     *
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    default LmrParams query() {
        return query(LmrParamMask.ALL);
    }

    /**
     * Deregisters the memory: {@code dat_lmr_free(3DAT)}. The memory itself stays the consumer's.
     *
     * @throws DatException {@link DatReturn#INVALID_STATE} while an RMR is bound to it or another
     *     LMR shares its registration
     */
    @Override
    void close();
}
