package dat.provider.ofi.internal;

import dat.api.InterfaceAdapter;
import java.lang.foreign.Arena;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The rig of the tests that run on one {@link TcpLoopback} IA: a runtime on libfabric's tcp
 * provider for the test class, and an {@code ofi-tcp-lo} IA and a shared arena for each test,
 * closed after it. A subclass's own {@code @BeforeEach} runs after this one's, with {@link #ia} open.
 */
abstract class LoopbackIaTest {

    static OfiRuntime runtime;

    InterfaceAdapter ia;
    Arena arena;

    @BeforeAll
    static void startRuntime() {
        runtime = TcpLoopback.start();
    }

    @AfterAll
    static void stopRuntime() {
        if (runtime != null) {
            runtime.close();
            runtime = null;
        }
    }

    @BeforeEach
    void openIa() {
        ia = TcpLoopback.open(runtime);
        arena = Arena.ofShared();
    }

    @AfterEach
    void closeIa() {
        if (ia != null) {
            ia.close();
        }
        if (arena != null) {
            arena.close();
        }
    }
}
