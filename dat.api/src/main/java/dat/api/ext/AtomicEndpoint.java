package dat.api.ext;

import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Remote atomic operations on a connected {@link dat.api.Endpoint}: the {@code dat_ib_post_fetch_and_add}
 * and {@code dat_ib_post_cmp_and_swap} extensions of OFED uDAPL 2.0
 * ({@code dat2/include/dat2/dat_ib_extensions.h}), modelled after the InfiniBand atomic Fetch and
 * Add and Compare and Swap. Obtain it with {@code ep.extension(AtomicEndpoint.class)}; it is
 * present only when the provider offers it (its factory lists this interface in
 * {@link dat.api.spi.DatProviderConstants#DAT_EXTENSION}, and its IA's provider-specific
 * attributes have {@link IbExtension#ATTR_FETCH_AND_ADD} and {@link IbExtension#ATTR_CMP_AND_SWAP}
 * set to {@code "TRUE"}).
 *
 * <p><b>The operand.</b> Each operation works on one 64-bit integer in the peer's memory: the
 * {@link IbExtension#ATOMIC_OPERAND_SIZE 8} bytes the {@code remoteBuffer} names, at an address
 * aligned to 8 bytes, in the native byte order of the platform
 * ({@link java.nio.ByteOrder#nativeOrder()}; read it with {@link java.lang.foreign.ValueLayout#JAVA_LONG}).
 * The target memory must grant {@link IbExtension#MEM_PRIV_REMOTE_ATOMIC} (on its LMR, or on the
 * RMR bound to it); otherwise the operation completes with
 * {@link dat.api.DtoCompletionStatus#ERR_REMOTE_ACCESS}, as any remote access the target refuses.
 * The operations are atomic with respect to every other atomic operation the same provider
 * performs on the same operand, and with nothing else: CPU stores and RDMA writes to the operand
 * race with them, as on an InfiniBand HCA that reports {@code IBV_ATOMIC_HCA}.
 *
 * <p><b>The result.</b> The remote value from before the operation is written into the 8-byte
 * {@code localBuffer}, which must lie in an LMR with {@link dat.api.MemPrivileges#LOCAL_WRITE};
 * then the operation completes on the Endpoint's request EVD with a {@link dat.api.DatEvent} of
 * event number {@link IbExtension#IB_DTO_EVENT}, {@link dat.api.DatEvent#extensionType()}
 * {@link IbExtension#FETCH_AND_ADD} or {@link IbExtension#CMP_AND_SWAP}, the
 * {@code userCookie}, a {@link dat.api.DtoCompletionStatus} and a transferred length of 8. Like
 * every DTO, a posted operation always completes, with {@link dat.api.DtoCompletionStatus#ERR_FLUSHED}
 * when the connection goes down first; the completion flags are those of
 * {@code dat_ep_post_rdma_read(3DAT)}.
 *
 * <p><b>Data path.</b> Both methods return a {@link dat.api.DatReturn} code and allocate nothing:
 * reuse the triplets. {@link dat.api.DatReturn#SUCCESS}: the operation is posted.
 * {@link dat.api.DatReturn#LENGTH_ERROR}: a buffer is not exactly 8 bytes long.
 * {@link dat.api.DatReturn#INVALID_PARAMETER}: a {@code null} buffer or a remote address that is
 * not 8-byte aligned, with the argument's subtype (the Endpoint being argument 1, as in C).
 * {@link dat.api.DatReturn#PROTECTION_VIOLATION} / {@link dat.api.DatReturn#PRIVILEGES_VIOLATION}:
 * the local buffer's LMR is in another PZ, or lacks local write. {@link dat.api.DatReturn#INVALID_STATE}:
 * the Endpoint is not connected. {@link dat.api.DatReturn#INSUFFICIENT_RESOURCES}: the request
 * queue is full; reap completions and post again. {@link dat.api.DatReturn#INVALID_HANDLE}: the
 * Endpoint was freed or its IA closed or failed.
 *
 * <p>Thread safety is that of the Endpoint ({@link dat.api.ProviderAttributes#threadSafe()}).
 */
@ProviderType
public interface AtomicEndpoint {

    /**
     * Adds {@code addValue} to the remote 64-bit operand and returns its previous value into
     * {@code localBuffer}: {@code dat_ib_post_fetch_and_add(ep, add_val, lbuf, cookie, rbuf, flgs)}.
     * The addition wraps around (two's complement), as on the HCA.
     *
     * @param addValue the value to add (argument 2)
     * @param localBuffer 8 bytes of local memory that receive the previous remote value (argument 3)
     * @param userCookie returned in the completion (argument 4)
     * @param remoteBuffer the 8-byte, 8-byte-aligned remote operand (argument 5)
     * @param completionFlags {@link dat.api.CompletionFlags}, or-ed (argument 6)
     * @return {@link dat.api.DatReturn#SUCCESS} or an error code, see the class comment
     */
    int postFetchAndAdd(long addValue, LmrTriplet localBuffer, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags);

    /**
     * Compares the remote 64-bit operand with {@code compareValue} and, if they are equal, stores
     * {@code swapValue} in it; in every case the previous remote value is returned into
     * {@code localBuffer}: {@code dat_ib_post_cmp_and_swap(ep, cmp_val, swap_val, lbuf, cookie, rbuf, flgs)}.
     * Whether the swap happened is seen by comparing the returned value with {@code compareValue}.
     *
     * @param compareValue the value the operand must have for the swap (argument 2)
     * @param swapValue the value stored when it has (argument 3)
     * @param localBuffer 8 bytes of local memory that receive the previous remote value (argument 4)
     * @param userCookie returned in the completion (argument 5)
     * @param remoteBuffer the 8-byte, 8-byte-aligned remote operand (argument 6)
     * @param completionFlags {@link dat.api.CompletionFlags}, or-ed (argument 7)
     * @return {@link dat.api.DatReturn#SUCCESS} or an error code, see the class comment
     */
    int postCompareAndSwap(long compareValue, long swapValue, LmrTriplet localBuffer, long userCookie,
            RmrTriplet remoteBuffer, int completionFlags);
}
