package dat.provider.ofi.internal.ffi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import org.junit.jupiter.api.Test;

/**
 * Loading libfabric (Debian's links libpsm2 and libinfinipath, whose constructors install signal
 * handlers) and its first {@code fi_getinfo} (which loads the provider plugins) leave every signal
 * handler of the JVM as it was: the JVM relies on its own SIGSEGV handler.
 */
class SignalGuardTest {

    @Test
    void loadingLibfabricKeepsTheJvmsSignalHandlers() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment before = Fabric.saveSignals(arena);
            Fabric fabric;
            try {
                fabric = Fabric.load();
            } catch (IllegalArgumentException missing) {
                assumeTrue(false, "libfabric.so.1 is not installed");
                return;
            }
            try {
                fabric.freeInfo(fabric.getInfo(null, null, 0, MemorySegment.NULL));
            } finally {
                fabric.close();
            }
            assertThat(Fabric.sameDispositions(Fabric.saveSignals(arena), before)).isTrue();
        }
    }

    @Test
    @SuppressWarnings("restricted")
    void theGuardPutsBackAHandlerAConstructorWouldChange() throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle signal = linker.downcallHandle(linker.defaultLookup().find("signal").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        int sigwinch = 28;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment before = Fabric.saveSignals(arena);
            MemorySegment previous = (MemorySegment) signal.invokeExact(sigwinch, MemorySegment.ofAddress(1)); // SIG_IGN
            assertThat(Fabric.sameDispositions(Fabric.saveSignals(arena), before)).as("SIG_IGN took effect").isFalse();
            Fabric.restoreSignals(before);
            assertThat(Fabric.sameDispositions(Fabric.saveSignals(arena), before)).isTrue();
            assertThat(previous.address()).isNotEqualTo(1);
        }
    }
}
