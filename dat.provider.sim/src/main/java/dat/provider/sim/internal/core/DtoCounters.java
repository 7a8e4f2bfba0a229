package dat.provider.sim.internal.core;

import dat.api.DtoCompletionStatus;
import dat.api.ext.Operation;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The statistics one DAT object keeps of its data path: an Endpoint or SRQ counts what is posted
 * to it, an EVD the completions delivered to it. Each count is written only under one lock of its
 * owner's (an Endpoint's: its lock for requests, its receive ring's lock for receives; the SRQ's,
 * the EVD's producers'), so a count is a plain increment published with an opaque store: no atomic
 * instruction. The counts lie between a cache line of padding on each side, so that no
 * count shares a line with whatever the JVM places beside the array (an Endpoint's own fields, which
 * the peer's sender reads for every message). Read
 * at any time by {@link Statistics#snapshot}.
 */
final class DtoCounters {

    /** Completion errors by {@link DtoCompletionStatus}, and one slot for any other status. */
    static final int STATUS_SLOTS = 16;
    private static final int OPERATIONS = Operation.values().length;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    // one array: posted and bytes per operation, completions, bytes, errors per status
    private static final int POSTED = 0;
    private static final int POSTED_BYTES = OPERATIONS;
    private static final int COMPLETIONS = 2 * OPERATIONS;
    private static final int COMPLETED_BYTES = COMPLETIONS + 1;
    private static final int ERRORS = COMPLETED_BYTES + 1;
    private static final int SIZE = ERRORS + STATUS_SLOTS + 1;

    /** The longs of padding before the counts and after them: a cache line's. */
    private static final int PAD = 8;

    private final long[] counts = new long[PAD + SIZE + PAD];

    private void add(int index, long n) {
        int at = PAD + index;
        LONGS.setOpaque(counts, at, (long) LONGS.getOpaque(counts, at) + n);
    }

    /** A post of {@code operation} carrying {@code bytes} succeeded; under the owner's lock. */
    void posted(Operation operation, long bytes) {
        add(POSTED + operation.ordinal(), 1);
        add(POSTED_BYTES + operation.ordinal(), bytes);
    }

    /** A completion was delivered; under the owner's lock. */
    void completed(int status, long transferredLength) {
        add(COMPLETIONS, 1);
        if (status == DtoCompletionStatus.SUCCESS) {
            if (transferredLength > 0) {
                add(COMPLETED_BYTES, transferredLength);
            }
        } else {
            add(ERRORS + (status > 0 && status < STATUS_SLOTS ? status : STATUS_SLOTS), 1);
        }
    }

    /** Adds these counts into {@code into} (a sum being made, or the counts of objects gone). */
    void addTo(long[] into) {
        for (int i = 0; i < SIZE; i++) {
            into[i] += (long) LONGS.getOpaque(counts, PAD + i);
        }
    }

    static long[] sum() {
        return new long[SIZE];
    }

    static long posted(long[] sum, Operation operation) {
        return sum[POSTED + operation.ordinal()];
    }

    static long postedBytes(long[] sum, Operation operation) {
        return sum[POSTED_BYTES + operation.ordinal()];
    }

    static long completions(long[] sum) {
        return sum[COMPLETIONS];
    }

    static long completedBytes(long[] sum) {
        return sum[COMPLETED_BYTES];
    }

    /** Completion errors of status slot {@code slot} (1 .. {@link #STATUS_SLOTS}; the last is "other"). */
    static long errors(long[] sum, int slot) {
        return sum[ERRORS + slot];
    }
}
