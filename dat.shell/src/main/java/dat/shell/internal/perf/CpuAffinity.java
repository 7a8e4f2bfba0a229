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

    private static final Optional<MethodHandle> SET_AFFINITY = lookup();

    private CpuAffinity() {
    }

    @SuppressWarnings("restricted") // native access is enabled in every launch (--enable-native-access)
    private static Optional<MethodHandle> lookup() {
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("sched_setaffinity").map(address -> linker.downcallHandle(address,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS)));
        } catch (RuntimeException | LinkageError e) {
            return Optional.empty();
        }
    }

    /**
     * Pins the calling thread.
     *
     * @param cpu the CPU number
     * @return whether the thread is now pinned
     */
    static boolean pinCurrentThread(int cpu) {
        if (SET_AFFINITY.isEmpty() || cpu < 0 || cpu >= 1024) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(128);
            mask.set(ValueLayout.JAVA_BYTE, cpu / 8, (byte) (1 << (cpu % 8)));
            int result = (int) SET_AFFINITY.get().invokeExact(0, 128L, mask);
            return result == 0;
        } catch (Throwable e) {
            return false;
        }
    }
}
