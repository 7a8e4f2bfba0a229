package dat.provider.sim.internal.tcp;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Reusable {@link ByteBuffer} views of consumer memory, for one thread role of a TCP connection
 * (what it reads into, or what it writes from): the view of a whole registered segment is made
 * once and re-aimed (position, limit) for each transfer, so that moving a payload allocates
 * nothing while the same memory comes back ({@link MemorySegment#asSlice} and
 * {@link MemorySegment#asByteBuffer} each make a new object). The views of the last
 * {@link #KEPT} segments are kept, the most recently used first: a consumer whose buffers lie in
 * a few LMRs (a send buffer and a receive buffer, buffers taken in turn) reuses them too. A
 * segment larger than a {@code ByteBuffer} can span gets a view per transfer.
 *
 * <p>Not thread-safe: used under the connection's read role or write lock. A view of memory whose
 * arena closed fails as the segment would ({@link IllegalStateException}). A view returned stays
 * aimed as it is until the next call for the same segment.
 */
final class MemoryView {

    /** Segments whose views are kept. */
    static final int KEPT = 4;

    private final MemorySegment[] segments = new MemorySegment[KEPT];
    private final ByteBuffer[] views = new ByteBuffer[KEPT];

    /**
     * The bytes [offset, offset + length) of {@code memory}.
     *
     * @throws IndexOutOfBoundsException when they are not inside it
     */
    ByteBuffer of(MemorySegment memory, long offset, long length) {
        Objects.checkFromIndexSize(offset, length, memory.byteSize());
        int i = 0;
        while (i < KEPT && segments[i] != memory) {
            i++;
        }
        ByteBuffer whole;
        if (i < KEPT) {
            whole = views[i];
        } else {
            if (memory.byteSize() > Integer.MAX_VALUE) {
                return memory.asSlice(offset, length).asByteBuffer();
            }
            whole = memory.asByteBuffer();
            i = KEPT - 1; // the least recently used goes
        }
        if (i > 0) { // to the front: the most recently used are found first
            System.arraycopy(segments, 0, segments, 1, i);
            System.arraycopy(views, 0, views, 1, i);
            segments[0] = memory;
            views[0] = whole;
        }
        whole.limit((int) (offset + length)).position((int) offset);
        return whole;
    }

    /** Drops the views: they keep no memory reachable once the LMR over that memory was freed. */
    void forget() {
        java.util.Arrays.fill(segments, null);
        java.util.Arrays.fill(views, null);
    }
}
