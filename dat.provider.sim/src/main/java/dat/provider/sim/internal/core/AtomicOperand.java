package dat.provider.sim.internal.core;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The 64-bit target of a fetch-and-add or compare-and-swap, wherever the request came from (this
 * JVM or a TCP peer): one CPU atomic instruction on the registered (native) memory, so every
 * atomic on the same 8 bytes is atomic with respect to the others, as an RDMA device's atomics
 * are with respect to each other.
 */
public final class AtomicOperand {

    /** The operand: aligned, for the post checked the remote address against 8, and registered memory is native. */
    private static final VarHandle OPERAND = ValueLayout.JAVA_LONG.varHandle();

    private AtomicOperand() {
    }

    /**
     * Applies an atomic request to the 8 bytes at {@code offset} of {@code memory}.
     *
     * @param op {@link Wr.Request#FETCH_AND_ADD} or {@link Wr.Request#CMP_AND_SWAP}
     * @param operand the value added, or compared
     * @param swap the value a compare-and-swap stores
     * @return the value before the operation
     * @throws IllegalStateException when the memory's arena is closed
     * @throws IndexOutOfBoundsException when the 8 bytes are not all inside the segment
     */
    public static long apply(int op, long operand, long swap, MemorySegment memory, long offset) {
        return op == Wr.Request.FETCH_AND_ADD ? (long) OPERAND.getAndAdd(memory, offset, operand)
                : (long) OPERAND.compareAndExchange(memory, offset, operand, swap);
    }
}
