package dat.provider.sim.internal;

import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.LmrTriplet;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Test helper: what a consumer's ping-pong allocates on its own thread, over whatever wire joins
 * two connected {@link Fabric.Side}s. {@code a} pings an echo thread of {@code b} 1000 times a
 * round, posting, waiting and reposting as a consumer does; the best of up to eight rounds counts,
 * as the JIT may still settle in the first.
 */
public final class PingPongAllocation {

    private static final int ROUNDS = 8;
    private static final int ROUND_TRIPS = 1000;

    /**
     * @param best the bytes the best round allocated on {@code a}'s thread
     * @param rounds each round's bytes, for the assertion's message
     */
    public record Result(long best, String rounds) {
    }

    private PingPongAllocation() {
    }

    /**
     * Measures; message i goes from {@code pings[i % n]}, its reply lands in {@code replies[i % n]}
     * (64 bytes each at most, as {@code b}'s echo receives).
     */
    public static Result measure(Fabric.Side a, Fabric.Side b, LmrTriplet[][] pings, LmrTriplet[][] replies) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        ok(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 64)}, 0, 0));
        Thread echo = Thread.ofPlatform().start(() -> {
            DatEvent got = new DatEvent();
            while (!stop.get()) {
                if (b.recvEvd.await(100_000, 1, got) != DatReturn.SUCCESS) {
                    continue;
                }
                ok(b.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, got.transferredLength())}, 0, 0));
                ok(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 64)}, 0, 0));
                while (b.reqEvd.dequeue(got) == DatReturn.SUCCESS) {
                    assertThat(got.status()).as("a send completion").isEqualTo(DtoCompletionStatus.SUCCESS);
                }
            }
        });
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().threadId();
        DatEvent event = new DatEvent();
        long best = Long.MAX_VALUE;
        StringBuilder rounds = new StringBuilder();
        int n = pings.length;
        try {
            ok(a.ep.postRecv(1, replies[0], 0, 0));
            for (int round = 0; round < ROUNDS && best > 0; round++) {
                long before = threads.getThreadAllocatedBytes(id);
                for (int i = 0; i < ROUND_TRIPS; i++) {
                    succeeded(a.ep.postSend(1, pings[i % n], i, 0));
                    succeeded(a.recvEvd.await(Fabric.WAIT, 1, event));
                    if (event.status() != DtoCompletionStatus.SUCCESS) {
                        throw new AssertionError("reply " + i + ": " + event.status());
                    }
                    succeeded(a.ep.postRecv(1, replies[(i + 1) % n], 0, 0));
                    while (a.reqEvd.dequeue(event) == DatReturn.SUCCESS) {
                        // send completions
                    }
                }
                long bytes = threads.getThreadAllocatedBytes(id) - before;
                rounds.append(bytes).append(' ');
                best = Math.min(best, bytes);
            }
        } finally {
            stop.set(true);
            echo.join(10_000);
        }
        return new Result(best, rounds.toString());
    }

    /** A return code check that allocates nothing unless it fails. */
    private static void succeeded(int rc) {
        if (rc != DatReturn.SUCCESS) {
            throw new AssertionError(DatReturn.describe(rc));
        }
    }
}
