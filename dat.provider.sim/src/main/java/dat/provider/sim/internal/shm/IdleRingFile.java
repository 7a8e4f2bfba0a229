package dat.provider.sim.internal.shm;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The ring file of an ended shared-memory connection, kept mapped with the connection's socket
 * for the next connection between the same two IAs (socket reuse, {@code docs/sim-provider.md}):
 * that connection starts on it without a file, a mapping, a page fault or an unmapping of its
 * own. It is free once the last thread of the ended connection left the mappings
 * ({@link MappingUsers}); the next connection {@link #take}s it, or it is {@link #close}d with the
 * socket (the peer closed it, it idled too long, the IA closes, or the next connection shares no
 * memory).
 */
public final class IdleRingFile {

    /** How long {@link #take} waits for the last thread of the ended connection to leave its mappings. */
    static final long PATIENCE_NANOS = 1_000_000_000L;

    private static final int IN_USE = 0;
    private static final int FREE = 1;
    private static final int CLOSE_WHEN_FREE = 2;
    private static final int GONE = 3;

    private final RingFile file;
    private final AtomicInteger state = new AtomicInteger(IN_USE);

    IdleRingFile(RingFile file) {
        this.file = file;
    }

    String name() {
        return file.name();
    }

    /** The last thread of the ended connection left the mappings. */
    void free() {
        if (!state.compareAndSet(IN_USE, FREE) && state.compareAndSet(CLOSE_WHEN_FREE, GONE)) {
            file.close();
        }
    }

    /**
     * Claims the file for the next connection, once it is free.
     *
     * @return the file, or {@code null} when it was closed, or its last connection's threads did not
     *     leave within {@link #PATIENCE_NANOS} (it is closed then)
     */
    RingFile take() {
        long start = System.nanoTime();
        for (int spins = 0;; spins++) {
            if (state.compareAndSet(FREE, GONE)) {
                return file;
            }
            if (state.get() != IN_USE || System.nanoTime() - start > PATIENCE_NANOS) {
                close();
                return null;
            }
            Fences.backOff(spins);
        }
    }

    /** Unmaps the file, now or as the last thread of its connection leaves; idempotent, any thread. */
    public void close() {
        for (;;) {
            int s = state.get();
            if (s == FREE && state.compareAndSet(FREE, GONE)) {
                file.close();
                return;
            }
            if (s == IN_USE && state.compareAndSet(IN_USE, CLOSE_WHEN_FREE) || s == CLOSE_WHEN_FREE || s == GONE) {
                return;
            }
        }
    }
}
