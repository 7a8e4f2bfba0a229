package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dat.api.InterfaceAdapter;
import dat.api.spi.DatIaFactory;
import dat.api.spi.IaOpenRequest;
import dat.provider.ofi.internal.ffi.Fabric;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The tests' IA: {@code ofi-tcp-lo}, libfabric's tcp provider on the loopback interface. A test
 * is skipped where libfabric's tcp provider is unavailable, and fails where it is there but offers
 * no loopback IA.
 */
final class TcpLoopback {

    static final String IA = "ofi-tcp-lo";

    private TcpLoopback() {
    }

    /** A runtime on libfabric's tcp provider alone. */
    static OfiRuntime start() {
        return OfiRuntime.start(Fabric.LIBFABRIC, Set.of("tcp"));
    }

    /** The runtime's {@code ofi-tcp-lo} factory. */
    static DatIaFactory factory(OfiRuntime runtime) {
        assumeTrue(!runtime.factories().isEmpty(), () -> "libfabric tcp unavailable: " + runtime.unavailableReason());
        return runtime.factories().stream().filter(f -> IA.equals(f.properties().get("dat.ia.name"))).findFirst()
                .orElseThrow(() -> new AssertionError("no " + IA + " among " + runtime.factories()));
    }

    /** An {@code ofi-tcp-lo} IA with an async EVD of 16 entries. */
    static InterfaceAdapter open(OfiRuntime runtime) {
        return factory(runtime).openIa(new IaOpenRequest(IA, 16, null, ""));
    }

    /**
     * The command that runs {@code main} of a class of these tests in a JVM of its own, on the
     * class path of the provider, its support package and the API, with native access.
     */
    static List<String> javaCommand(Class<?> main, String... args) throws Exception {
        String launcher = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = String.join(java.io.File.pathSeparator, location(main), location(OfiRuntime.class),
                location(dat.provider.support.ReturnCodes.class), location(dat.api.InterfaceAdapter.class));
        List<String> command = new ArrayList<>(List.of(launcher, "--enable-native-access=ALL-UNNAMED", "-cp", classPath, main.getName()));
        command.addAll(List.of(args));
        return command;
    }

    /** Where a class was loaded from (a directory or a jar). */
    private static String location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
