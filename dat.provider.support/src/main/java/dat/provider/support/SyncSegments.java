package dat.provider.support;

import dat.api.DatReturn;
import dat.api.LmrTriplet;

/**
 * The checks of dat_lmr_sync_rdma_read(3DAT) and dat_lmr_sync_rdma_write(3DAT) on a host whose
 * memory is coherent ({@code lmr_sync_req} false): the calls move nothing, but each segment must lie
 * inside an LMR of the IA, and a bad one is named.
 */
public final class SyncSegments {

    /** The IA's LMRs, looked up by context. */
    @FunctionalInterface
    public interface Lmrs {
        /** Whether the LMR of {@code lmrContext} exists in the IA and holds {@code [address, address + length)}. */
        boolean holds(int lmrContext, long address, long length);
    }

    private SyncSegments() {
    }

    /**
     * Checks {@code count} segments of {@code segments} against the IA's LMRs.
     *
     * @throws dat.api.DatException {@code DAT_INVALID_PARAMETER}: {@code DAT_INVALID_ARG3} for a count
     *     the array does not hold (no array holds none), {@code DAT_INVALID_ARG2} for a null segment or one outside its LMR
     */
    public static void check(LmrTriplet[] segments, int count, Lmrs lmrs) {
        if (count < 0 || count > (segments == null ? 0 : segments.length)) {
            throw ReturnCodes.invalidParameterException(DatReturn.INVALID_ARG3, "numSegments", "bad segment count " + count);
        }
        for (int i = 0; i < count; i++) {
            LmrTriplet t = segments[i];
            if (t == null) {
                throw ReturnCodes.invalidParameterException(DatReturn.INVALID_ARG2, "localSegments", "null segment " + i);
            }
            if (!lmrs.holds(t.lmrContext(), t.virtualAddress(), t.segmentLength())) {
                throw ReturnCodes.invalidParameterException(DatReturn.INVALID_ARG2, "localSegments", "segment " + i + " is outside its LMR");
            }
        }
    }
}
