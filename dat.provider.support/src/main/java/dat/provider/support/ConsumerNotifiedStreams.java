package dat.provider.support;

import dat.api.CompletionFlags;
import dat.api.EpAttributes;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The DTO streams that notify their consumer only when asked (configured
 * {@code DAT_COMPLETION_UNSIGNALLED_FLAG} or {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}), counted per
 * EVD: while an EVD has any, dat_evd_wait(3DAT) takes only a threshold of 1.
 */
public final class ConsumerNotifiedStreams {

    private ConsumerNotifiedStreams() {
    }

    /**
     * Counts an Endpoint's DTO streams into (delta 1) or out of (delta -1) the counters of the EVDs
     * they feed.
     *
     * @param recvEvdStreams the counter of the receive EVD, or {@code null} for none
     * @param requestEvdStreams the counter of the request EVD, or {@code null} for none
     * @param attributes the Endpoint's attributes, whose completion flags configure the streams
     * @param delta 1 or -1
     */
    public static void count(AtomicInteger recvEvdStreams, AtomicInteger requestEvdStreams, EpAttributes attributes, int delta) {
        if (recvEvdStreams != null && isConsumerNotified(attributes.recvCompletionFlags())) {
            recvEvdStreams.addAndGet(delta);
        }
        if (requestEvdStreams != null && isConsumerNotified(attributes.requestCompletionFlags())) {
            requestEvdStreams.addAndGet(delta);
        }
    }

    private static boolean isConsumerNotified(int completionFlags) {
        return completionFlags == CompletionFlags.UNSIGNALLED || completionFlags == CompletionFlags.SOLICITED_WAIT;
    }
}
