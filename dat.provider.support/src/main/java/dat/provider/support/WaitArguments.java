package dat.provider.support;

import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatReturn;

/** The checks dat_evd_wait(3DAT) makes of its arguments once the EVD handle is known to be open, before it looks at the queue. */
public final class WaitArguments {

    private WaitArguments() {
    }

    /**
     * @param qlen the EVD's queue length, the largest threshold
     * @param consumerNotifiedStreams the DTO streams configured UNSIGNALLED or SOLICITED_WAIT that
     *     feed the EVD ({@link ConsumerNotifiedStreams})
     * @return {@link ReturnCodes#SUCCESS}, or the code of the first bad argument:
     *     {@code DAT_INVALID_PARAMETER} naming it, or {@code DAT_INVALID_STATE} for a threshold above 1
     *     on an EVD with consumer-notified streams
     */
    public static int check(long timeoutMicros, int threshold, int qlen, DatEvent event, int consumerNotifiedStreams) {
        if (!DatConstants.isValidTimeout(timeoutMicros)) {
            return ReturnCodes.invalidParameter(DatReturn.INVALID_ARG2);
        }
        if (threshold < 1 || threshold > qlen) {
            return ReturnCodes.invalidParameter(DatReturn.INVALID_ARG3);
        }
        if (event == null) {
            return ReturnCodes.invalidParameter(DatReturn.INVALID_ARG4);
        }
        if (threshold > 1 && consumerNotifiedStreams > 0) {
            return ReturnCodes.INVALID_STATE_EVD_THRESHOLD;
        }
        return ReturnCodes.SUCCESS;
    }
}
