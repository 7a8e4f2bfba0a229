package dat.tests.conformance.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The data the suite moves: a byte pattern that depends on a seed and the position, so that a
 * transfer landing at the wrong offset, from the wrong buffer or truncated is told apart from a
 * right one. {@link IaUnderTest#verify} fails the test at the first wrong byte.
 */
public final class DataPattern {

    private DataPattern() {
    }

    /**
     * Fills memory with a pattern that depends on a seed and the position.
     *
     * @param memory the memory
     * @param seed the seed
     */
    public static void fill(MemorySegment memory, int seed) {
        for (long i = 0; i < memory.byteSize(); i++) {
            memory.set(ValueLayout.JAVA_BYTE, i, patternByte(seed, i));
        }
    }

    /**
     * @param seed the seed of {@link #fill}
     * @param index the position
     * @return the byte {@link #fill} writes there
     */
    public static byte patternByte(int seed, long index) {
        long x = (index + 1) * 0x9E3779B97F4A7C15L + seed * 0xC2B2AE3D27D4EB4FL;
        return (byte) (x ^ (x >>> 29) ^ (x >>> 47));
    }

    /**
     * Compares memory with the pattern of {@link #fill}.
     *
     * @param memory the memory to check
     * @param seed the seed it was filled with
     * @param firstIndex the pattern position of the memory's first byte
     * @return {@code null}, or which byte is wrong, what it is and what it should be
     */
    public static String mismatch(MemorySegment memory, int seed, long firstIndex) {
        for (long i = 0; i < memory.byteSize(); i++) {
            byte expected = patternByte(seed, firstIndex + i);
            byte actual = memory.get(ValueLayout.JAVA_BYTE, i);
            if (expected != actual) {
                return "byte " + i + " of " + memory.byteSize() + " is 0x" + Integer.toHexString(actual & 0xFF) + ", expected 0x"
                        + Integer.toHexString(expected & 0xFF);
            }
        }
        return null;
    }
}
