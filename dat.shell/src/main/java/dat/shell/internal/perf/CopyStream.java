package dat.shell.internal.perf;

import java.lang.foreign.MemorySegment;

/**
 * {@code MemorySegment.copy} of a stream's chunks, the baseline of the bandwidth figures: chunks
 * of one size from rotating slots of a source, in order, into the same slots of a target (as the
 * RDMA writes or sends of a window move them), so that both see the same cache footprint. The
 * clock is read once per batch of about 1 MiB of copies, so that small copies are not timed by
 * {@code System.nanoTime}.
 */
final class CopyStream {

    private final MemorySegment source;
    private final MemorySegment target;
    private final long size;
    private final int window;
    private int slot;

    CopyStream(MemorySegment source, MemorySegment target, long size, int window) {
        this.source = source;
        this.target = target;
        this.size = size;
        this.window = window;
    }

    /** @return the bytes copied and the nanoseconds they took */
    long[] run(long nanos) {
        long batch = Math.max(1, (1L << 20) / size);
        long start = System.nanoTime();
        long end = start + nanos;
        long bytes = 0;
        long now;
        do {
            for (long i = 0; i < batch; i++) {
                long offset = slot * size;
                MemorySegment.copy(source, offset, target, offset, size);
                slot = slot + 1 == window ? 0 : slot + 1;
            }
            bytes += batch * size;
            now = System.nanoTime();
        } while (now < end);
        return new long[] {bytes, now - start};
    }
}
