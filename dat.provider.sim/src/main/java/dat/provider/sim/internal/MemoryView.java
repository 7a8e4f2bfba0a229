package dat.provider.sim.internal;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A reusable {@link ByteBuffer} view of consumer memory, for one thread role of a TCP connection
 * (what it reads into, or what it writes from): the view of a whole registered segment is made
 * once and re-aimed (position, limit) for each transfer, so that moving a payload allocates
 * nothing while the same memory comes back ({@link MemorySegment#asSlice} and
 * {@link MemorySegment#asByteBuffer} each make a new object). A segment larger than a
 * {@code ByteBuffer} can span gets a view per transfer.
 *
 * <p>Not thread-safe: used under the connection's read role or write lock. A view of memory whose
 * arena closed fails as the segment would ({@link IllegalStateException}).
 */
final class MemoryView {

    private MemorySegment segment;
    private ByteBuffer whole;

    /**
     * The bytes [offset, offset + length) of {@code memory}.
     *
     * @throws IndexOutOfBoundsException when they are not inside it
     */
    ByteBuffer of(MemorySegment memory, long offset, long length) {
        Objects.checkFromIndexSize(offset, length, memory.byteSize());
        if (memory != segment) {
            if (memory.byteSize() > Integer.MAX_VALUE) {
                return memory.asSlice(offset, length).asByteBuffer();
            }
            whole = memory.asByteBuffer();
            segment = memory;
        }
        whole.limit((int) (offset + length)).position((int) offset);
        return whole;
    }

    /** Drops the view: it keeps no memory reachable once the LMR over that memory was freed. */
    void forget() {
        segment = null;
        whole = null;
    }
}
