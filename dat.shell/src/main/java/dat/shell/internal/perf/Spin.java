package dat.shell.internal.perf;

import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EventDispatcher;
import dat.api.EventNumber;

/**
 * Busy-poll helpers of the benchmarks. A spin never waits forever: past its deadline it throws,
 * so a broken provider fails the benchmark instead of hanging it.
 */
final class Spin {

    private Spin() {
    }

    /** Spins on {@code evd} until a successful DTO completion arrives, and returns its cookie. */
    static long completion(EventDispatcher evd, DatEvent event, long deadlineNanos) {
        int spins = 0;
        while (true) {
            if (dequeue(evd, event)) {
                return event.userCookie();
            }
            if ((++spins & 0x3FF) == 0 && System.nanoTime() > deadlineNanos) {
                throw new IllegalStateException("no completion within the benchmark's deadline");
            }
            Thread.onSpinWait();
        }
    }

    /** The cookie of a successful DTO completion; anything else fails the run. */
    static long successCookie(DatEvent event) {
        if (event.eventNumber() != EventNumber.DTO_COMPLETION_EVENT || event.status() != DtoCompletionStatus.SUCCESS) {
            throw new IllegalStateException("unexpected event: " + event);
        }
        return event.userCookie();
    }

    /**
     * Takes one completion already queued on {@code evd}, without waiting.
     *
     * @return whether there was one; a failed DTO fails the run
     */
    static boolean dequeue(EventDispatcher evd, DatEvent event) {
        int code = evd.dequeue(event);
        if (code == DatReturn.SUCCESS) {
            successCookie(event);
            return true;
        }
        if (DatReturn.typeOf(code) != DatReturn.QUEUE_EMPTY) {
            throw new DatException(code, "dat_evd_dequeue");
        }
        return false;
    }

    /** Takes every completion already queued on {@code evd}; returns how many. A failed DTO fails the run. */
    static int drain(EventDispatcher evd, DatEvent event) {
        return drain(evd, event, false);
    }

    /** Takes every completion queued after a disconnect: flushed DTOs are expected there, other errors are not. */
    static int drainFlushed(EventDispatcher evd, DatEvent event) {
        return drain(evd, event, true);
    }

    private static int drain(EventDispatcher evd, DatEvent event, boolean flushExpected) {
        int n = 0;
        while (true) {
            int code = evd.dequeue(event);
            if (code != DatReturn.SUCCESS) {
                if (DatReturn.typeOf(code) != DatReturn.QUEUE_EMPTY) {
                    throw new DatException(code, "dat_evd_dequeue");
                }
                return n;
            }
            if (event.eventNumber() == EventNumber.DTO_COMPLETION_EVENT && event.status() != DtoCompletionStatus.SUCCESS
                    && !(flushExpected && event.status() == DtoCompletionStatus.ERR_FLUSHED)) {
                throw new IllegalStateException("DTO failed: " + event);
            }
            n++;
        }
    }

    /** Fails with the code's names unless it is DAT_SUCCESS. */
    static void check(int code, String what) {
        if (code != DatReturn.SUCCESS) {
            throw new DatException(code, what);
        }
    }
}
