package dat.provider.support;

import dat.api.CompletionFlags;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.LmrTriplet;
import dat.api.MemPrivileges;

/**
 * The checks of dat_rmr_bind(3DAT)'s arguments every provider makes alike, with the argument
 * numbers of its page: the triplet (2), the privileges (3) and the completion flags (6) before
 * anything is looked up, then the triplet's LMR and the local access a remote privilege needs
 * once the provider found it.
 */
public final class RmrBindArguments {

    private RmrBindArguments() {
    }

    /**
     * The arguments a bind checks before it looks the LMR up: a triplet given and of a length not
     * below 0 (0 unbinds), no privilege bit outside {@code definedPrivileges}, and completion
     * flags that a bind may carry (not {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG} nor
     * {@code DAT_COMPLETION_EVD_THRESHOLD_FLAG}, which name receives and waits).
     *
     * @param lmrTriplet the segment to bind
     * @param memPrivileges the privileges asked for
     * @param definedPrivileges the privilege bits the provider defines (the remote atomic bit
     *     where it has atomics)
     * @param completionFlags the bind's completion flags
     * @throws DatException DAT_INVALID_PARAMETER naming the argument
     */
    public static void check(LmrTriplet lmrTriplet, int memPrivileges, int definedPrivileges, int completionFlags) {
        if (lmrTriplet == null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "lmrTriplet", "null triplet");
        }
        if ((memPrivileges & ~definedPrivileges) != 0) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3, "memPrivileges",
                    "undefined bits 0x" + Integer.toHexString(memPrivileges & ~definedPrivileges));
        }
        if (!CompletionFlags.isValid(completionFlags)
                || (completionFlags & (CompletionFlags.SOLICITED_WAIT | CompletionFlags.EVD_THRESHOLD)) != 0) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6, "completionFlags",
                    "bad flags 0x" + Integer.toHexString(completionFlags));
        }
        if (lmrTriplet.segmentLength() < 0) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "lmrTriplet", "negative length");
        }
    }

    /**
     * The triplet's LMR, once the provider looked its context up: an LMR of the IA that is not
     * freed ({@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_ARG2}), holding the whole segment
     * (the same), and in the RMR's PZ ({@code DAT_PROTECTION_VIOLATION}), checked in that order.
     *
     * @param known whether the context names a live LMR of the IA
     * @param holdsSegment whether that LMR holds the segment (not looked at when unknown)
     * @param inRmrPz whether that LMR is in the RMR's PZ (not looked at when unknown)
     * @throws DatException naming {@code lmrTriplet}
     */
    public static void checkLmr(boolean known, boolean holdsSegment, boolean inRmrPz) {
        if (!known) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "lmrTriplet", "unknown LMR context");
        }
        if (!holdsSegment) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "lmrTriplet", "the segment exceeds the LMR");
        }
        if (!inRmrPz) {
            throw DatException.of(DatReturn.PROTECTION_VIOLATION, DatReturn.NO_SUBTYPE, "lmrTriplet", "the LMR is in another PZ");
        }
    }

    /**
     * The LMR's local access the remote privileges need (dat_rmr_bind(3DAT)): remote read needs
     * local read, remote write (and a remote atomic, which writes) local write.
     *
     * @param remoteRead whether the bind grants remote read
     * @param remoteWrite whether it grants remote write or remote atomics
     * @param localRead whether the LMR has local read
     * @param localWrite whether the LMR has local write
     * @throws DatException DAT_PRIVILEGES_VIOLATION naming {@code memPrivileges}
     */
    public static void checkLmrAccess(boolean remoteRead, boolean remoteWrite, boolean localRead, boolean localWrite) {
        if ((remoteRead && !localRead) || (remoteWrite && !localWrite)) {
            throw DatException.of(DatReturn.PRIVILEGES_VIOLATION, DatReturn.NO_SUBTYPE, "memPrivileges",
                    "remote read needs local read and remote write needs local write on the LMR (dat_rmr_bind(3DAT))");
        }
    }

    /**
     * The privilege bits DAT 1.2 defines for a bind: local and remote read and write.
     *
     * @return the mask of {@link MemPrivileges}' read and write bits
     */
    public static int readWritePrivileges() {
        return MemPrivileges.REMOTE_READ | MemPrivileges.REMOTE_WRITE | MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE;
    }
}
