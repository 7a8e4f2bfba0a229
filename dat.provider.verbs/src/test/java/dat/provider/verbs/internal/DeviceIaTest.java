package dat.provider.verbs.internal;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.ProtectionZone;
import dat.api.spi.DatIaFactory;
import dat.api.spi.IaOpenRequest;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The rig of the tests that run on an RDMA device: a runtime for the test class, and for each test
 * an IA of the first device port with a PZ, a DTO EVD, a connection EVD, a CR EVD and a shared
 * arena, closed after it. A test is skipped where the kernel offers no RDMA device (the rxe VM
 * stage runs them). A subclass's own {@code @BeforeEach} runs after this one's, its
 * {@code @AfterEach} before this one's.
 */
abstract class DeviceIaTest {

    static VerbsRuntime runtime;

    DatIaFactory factory;
    InterfaceAdapter ia;
    ProtectionZone pz;
    EventDispatcher dtoEvd;
    EventDispatcher connEvd;
    EventDispatcher crEvd;
    Arena arena;

    @BeforeAll
    static void startRuntime() {
        runtime = VerbsRuntime.start();
    }

    @AfterAll
    static void stopRuntime() {
        if (runtime != null) {
            runtime.close();
            runtime = null;
        }
    }

    /** Opens an IA of the first device port; skips the test where there is none. */
    @BeforeEach
    void openIa() {
        assumeTrue(!runtime.factories().isEmpty(), () -> "no RDMA device: " + runtime.unavailableReason());
        factory = runtime.factories().get(0);
        ia = factory.openIa(new IaOpenRequest((String) factory.properties().get("dat.ia.name"), 16, null, ""));
        pz = ia.createProtectionZone();
        dtoEvd = ia.createEventDispatcher(256, null, EvdFlags.DTO);
        connEvd = ia.createEventDispatcher(32, null, EvdFlags.CONNECTION);
        crEvd = ia.createEventDispatcher(32, null, EvdFlags.CR);
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

    /** The IA's address: where its PSPs listen. */
    InetSocketAddress address() {
        return ia.query().iaAttributes().iaAddress();
    }
}
