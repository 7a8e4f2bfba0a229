package dat.provider.support;

import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import dat.api.ext.IbExtension;

/**
 * The checks of an atomic's buffers ({@code dat_ib_post_fetch_and_add},
 * {@code dat_ib_post_cmp_and_swap}, {@link dat.api.ext.AtomicEndpoint}) every provider makes
 * alike, after the handle, the state and the flags: both buffers given, each exactly
 * {@link IbExtension#ATOMIC_OPERAND_SIZE} bytes long, the remote one aligned to them. Data path:
 * a return code, no allocation.
 */
public final class AtomicArguments {

    private AtomicArguments() {
    }

    /**
     * @param local the buffer that receives the value from before the operation
     * @param remote the operand in the peer's memory
     * @param localArg the argument subtype of the local buffer ({@code DAT_INVALID_ARG3} for
     *     fetch-and-add, {@code DAT_INVALID_ARG4} for compare-and-swap); the remote buffer is two
     *     arguments after it
     * @return 0, or {@code DAT_INVALID_PARAMETER} naming the argument, or {@code DAT_LENGTH_ERROR}
     */
    public static int check(LmrTriplet local, RmrTriplet remote, int localArg) {
        if (local == null) {
            return ReturnCodes.invalidParameter(localArg);
        }
        if (remote == null) {
            return ReturnCodes.invalidParameter(localArg + 2);
        }
        if (local.segmentLength() != IbExtension.ATOMIC_OPERAND_SIZE || remote.segmentLength() != IbExtension.ATOMIC_OPERAND_SIZE) {
            return ReturnCodes.LENGTH_ERROR;
        }
        if ((remote.targetAddress() & (IbExtension.ATOMIC_OPERAND_SIZE - 1)) != 0) {
            return ReturnCodes.invalidParameter(localArg + 2);
        }
        return 0;
    }
}
