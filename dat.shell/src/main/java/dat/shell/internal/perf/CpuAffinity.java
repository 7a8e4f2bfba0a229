package dat.shell.internal.perf;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Pins the calling thread to one CPU with Linux {@code sched_setaffinity(0, ...)} through
 * java.lang.foreign: busy-polling pairs must sit on different cores, or a spin costs a whole
 * scheduler slice (BENCHMARKS.md). Where the call is unavailable, pinning is reported as not done.
 */
final class CpuAffinity {

    private static final int MASK_BYTES = 128;
    private static final Optional<MethodHandle> SET_AFFINITY = lookup("sched_setaffinity");
    private static final Optional<MethodHandle> GET_AFFINITY = lookup("sched_getaffinity");

    private CpuAffinity() {
    }

    @SuppressWarnings("restricted") // native access is enabled in every launch (--enable-native-access)
    private static Optional<MethodHandle> lookup(String function) {
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find(function).map(address -> linker.downcallHandle(address,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS)));
        } catch (RuntimeException | LinkageError e) {
            return Optional.empty();
        }
    }

    /**
     * The calling thread's CPU mask, to {@link #restore} after pinning. A thread inherits the mask
     * of the thread that starts it, and the JVM's {@code availableProcessors()} answers with the
     * calling thread's mask: a pinned command thread would leave both wrong for what runs after it.
     *
     * @return the mask, or {@code null} where it cannot be read
     */
    static byte[] currentMask() {
        if (GET_AFFINITY.isEmpty()) {
            return null;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES);
            int result = (int) GET_AFFINITY.get().invokeExact(0, (long) MASK_BYTES, mask);
            return result < 0 ? null : mask.toArray(ValueLayout.JAVA_BYTE);
        } catch (Throwable e) {
            return null;
        }
    }

    /**
     * Sets the calling thread's CPU mask back to one {@link #currentMask} returned.
     *
     * @param mask the mask; {@code null} does nothing
     */
    static void restore(byte[] mask) {
        if (mask != null) {
            setMask(mask);
        }
    }

    /**
     * Pins the calling thread.
     *
     * @param cpu the CPU number
     * @return whether the thread is now pinned
     */
    static boolean pinCurrentThread(int cpu) {
        if (cpu < 0 || cpu >= MASK_BYTES * 8) {
            return false;
        }
        byte[] mask = new byte[MASK_BYTES];
        mask[cpu / 8] = (byte) (1 << (cpu % 8));
        return setMask(mask);
    }

    private static boolean setMask(byte[] bits) {
        if (SET_AFFINITY.isEmpty()) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES);
            MemorySegment.copy(bits, 0, mask, ValueLayout.JAVA_BYTE, 0, Math.min(bits.length, MASK_BYTES));
            int result = (int) SET_AFFINITY.get().invokeExact(0, (long) MASK_BYTES, mask);
            return result == 0;
        } catch (Throwable e) {
            return false;
        }
    }
}
