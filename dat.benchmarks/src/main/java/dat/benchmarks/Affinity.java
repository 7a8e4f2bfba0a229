package dat.benchmarks;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Pins the calling thread to one CPU with Linux {@code sched_setaffinity(0, ...)} through
 * {@code java.lang.foreign}; a no-op where the call is missing (not Linux) or fails. Needs
 * {@code --enable-native-access=ALL-UNNAMED} (the benchmarks' forks pass it).
 */
final class Affinity {

    /** The CPUs of the process, counted when the class loads, before any thread here is pinned. */
    private static final int CPUS = Runtime.getRuntime().availableProcessors();


    @SuppressWarnings("restricted") // a deliberate native call; the forks run with --enable-native-access
    private static final Optional<MethodHandle> SET_AFFINITY = Linker.nativeLinker().defaultLookup().find("sched_setaffinity")
            .map(address -> Linker.nativeLinker().downcallHandle(address,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS)));

    private Affinity() {
    }

    /**
     * Pins the calling thread.
     *
     * @param cpu the CPU number
     * @return whether the thread is now pinned
     */
    static boolean pin(int cpu) {
        // CPUS, not availableProcessors() now: that answers with the calling thread's mask, which
        // is one CPU once a thread of the same process pinned itself and this one inherited it
        if (SET_AFFINITY.isEmpty() || cpu < 0 || cpu >= 1024 || cpu >= CPUS) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(128); // cpu_set_t: 1024 bits
            mask.set(ValueLayout.JAVA_LONG, (cpu / 64) * 8L, 1L << (cpu % 64));
            return (int) SET_AFFINITY.get().invokeExact(0, 128L, mask) == 0;
        } catch (Throwable e) {
            return false;
        }
    }
}
