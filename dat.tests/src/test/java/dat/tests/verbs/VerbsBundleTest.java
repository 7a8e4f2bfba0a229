package dat.tests.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.test.common.annotation.InjectBundleContext;
import org.osgi.test.junit5.context.BundleContextExtension;

/**
 * The verbs provider bundle inside the framework on a machine without RDMA (the CI host: the
 * Debian libraries are installed, the kernel has no RDMA): it resolves and starts, registers no IA
 * factory but a {@link DatProviderStatus} saying why, and stops and starts again cleanly (its
 * libraries are unloaded and reloaded).
 */
@ExtendWith(BundleContextExtension.class)
@Timeout(60)
class VerbsBundleTest {

    @InjectBundleContext
    BundleContext context;

    private Bundle verbsBundle() {
        return Arrays.stream(context.getBundles()).filter(b -> "dat.provider.verbs".equals(b.getSymbolicName()))
                .findFirst().orElseThrow(() -> new AssertionError("dat.provider.verbs is not installed"));
    }

    private int verbsFactories() throws InvalidSyntaxException {
        var references = context.getServiceReferences(DatIaFactory.class, "(dat.provider.name=verbs)");
        return references.size();
    }

    @Test
    void startsAndRegistersNothingWithoutKernelRdma() throws Exception {
        assumeTrue(!Files.isDirectory(Path.of("/sys/class/infiniband_verbs")), "this machine has kernel RDMA");
        Bundle bundle = verbsBundle();
        assertThat(bundle.getState()).as("bundle state").isEqualTo(Bundle.ACTIVE);
        assertThat(verbsFactories()).isZero();
        var statuses = context.getServiceReferences(DatProviderStatus.class, "(dat.provider.name=verbs)");
        assertThat(statuses).hasSize(1);
        String reason = context.getService(statuses.iterator().next()).unavailableReason();
        assertThat(reason).containsAnyOf("ENOSYS", "no RDMA device", "no usable RDMA port", "cannot be loaded");
        context.ungetService(statuses.iterator().next());
        bundle.stop();
        assertThat(context.getServiceReferences(DatProviderStatus.class, "(dat.provider.name=verbs)")).isEmpty();
        assertThat(bundle.getState()).isEqualTo(Bundle.RESOLVED);
        bundle.start();
        assertThat(bundle.getState()).isEqualTo(Bundle.ACTIVE);
        assertThat(verbsFactories()).isZero();
    }
}
