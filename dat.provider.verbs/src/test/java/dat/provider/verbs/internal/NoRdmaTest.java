package dat.provider.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dat.provider.verbs.internal.ffi.Verbs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider where RDMA is unavailable, against the real Debian libraries: the library missing,
 * a kernel without RDMA ({@code ibv_get_device_list} NULL + ENOSYS, as on the CI host), and an
 * empty device list. In each case the provider starts, makes no factory, and says why; nothing
 * throws and nothing crashes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NoRdmaTest {

    @Test
    void aMissingLibraryIsReportedNotThrown() {
        try (VerbsRuntime runtime = VerbsRuntime.start("libibverbs-not-installed.so.1", Verbs.LIBRDMACM)) {
            assertThat(runtime.factories()).isEmpty();
            assertThat(runtime.unavailableReason()).contains("cannot be loaded").contains("libibverbs-not-installed.so.1");
        }
    }

    @Test
    void aKernelWithoutRdmaIsReportedNotThrown() {
        try (VerbsRuntime runtime = VerbsRuntime.start()) {
            assumeTrue(runtime.factories().isEmpty(), "this machine has an RDMA device");
            assumeTrue(!runtime.unavailableReason().contains("cannot be loaded"), "libibverbs is not installed");
            System.out.println("NoRdmaTest: " + runtime.unavailableReason());
            assertThat(runtime.unavailableReason()).containsAnyOf("ENOSYS", "no RDMA device", "no usable RDMA port");
        }
    }

    @Test
    void serviceLoaderFindsTheProviderWhichOffersNothingWithoutRdma() {
        java.util.List<dat.api.spi.DatIaFactory> loaded = java.util.ServiceLoader.load(dat.api.spi.DatIaFactory.class,
                NoRdmaTest.class.getClassLoader()).stream().map(java.util.ServiceLoader.Provider::get).toList();
        assertThat(loaded).hasSize(1).first().isInstanceOf(VerbsFactory.class);
        try (VerbsFactory factory = (VerbsFactory) loaded.getFirst()) {
            assumeTrue(factory.unavailableReason() != null, "this machine has an RDMA device");
            assertThat(factory.properties()).containsEntry(dat.api.spi.DatProviderConstants.DAT_PROVIDER_NAME, "verbs")
                    .containsEntry(dat.api.spi.DatProviderConstants.DAT_IA_NAME, java.util.List.of())
                    .containsEntry(dat.api.spi.DatProviderConstants.DAT_PROVIDER_LIBRARY, VerbsIaFactory.LIBRARIES);
            assertThatThrownBy(() -> factory.openIa(new dat.api.spi.IaOpenRequest("ofa-v2-ib0", 8, null, "ib0 0")))
                    .isInstanceOf(dat.api.DatException.class).hasMessageContaining("RDMA unavailable");
        }
    }

    @Test
    void theLibrariesLoadBindAndUnloadCleanly() {
        Verbs verbs;
        try {
            verbs = Verbs.load();
        } catch (IllegalArgumentException notInstalled) {
            assumeTrue(false, "libibverbs/librdmacm are not installed: " + notInstalled.getMessage());
            return;
        }
        verbs.close();
        // a call through a closed library is refused in Java, not made into unmapped code
        assertThatThrownBy(() -> {
            try (Arena arena = Arena.ofConfined()) {
                verbs.deviceList(arena);
            }
        }).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anEmptyDeviceListIsReportedNotThrown(@TempDir Path sysfs) throws IOException, InterruptedException {
        try (VerbsRuntime runtime = VerbsRuntime.start()) {
            assumeTrue(!String.valueOf(runtime.unavailableReason()).contains("cannot be loaded"), "libibverbs is not installed");
        }
        // libibverbs reads its sysfs root from SYSFS_PATH: an empty class/infiniband_verbs is "a kernel with RDMA, no device"
        Files.createDirectories(sysfs.resolve("class/infiniband_verbs"));
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", classPathOf(ReasonMain.class, VerbsRuntime.class,
                        dat.provider.support.ReturnCodes.class, dat.api.spi.DatIaFactory.class),
                ReasonMain.class.getName()).redirectErrorStream(true);
        builder.environment().put("SYSFS_PATH", sysfs.toString());
        Process child = builder.start();
        child.getOutputStream().close();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        System.out.println("NoRdmaTest (SYSFS_PATH with no device): " + output.strip());
        assertThat(output).as("child output").contains("factories=0").contains("no RDMA device");
    }

    private static String classPathOf(Class<?>... classes) {
        StringBuilder path = new StringBuilder();
        for (Class<?> c : classes) {
            try {
                path.append(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI())).append(java.io.File.pathSeparator);
            } catch (java.net.URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }
        return path.toString();
    }

    /** Prints what the provider found: run in a child JVM with SYSFS_PATH set. */
    public static final class ReasonMain {
        private ReasonMain() {
        }

        public static void main(String[] args) {
            try (VerbsRuntime runtime = VerbsRuntime.start()) {
                System.out.println("factories=" + runtime.factories().size() + " reason=" + runtime.unavailableReason());
            }
        }
    }
}
