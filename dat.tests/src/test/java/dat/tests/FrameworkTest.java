package dat.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatRegistry;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.framework.BundleContext;
import org.osgi.test.common.annotation.InjectBundleContext;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.junit5.context.BundleContextExtension;
import org.osgi.test.junit5.service.ServiceExtension;

/** The framework runs the dat bundles on Java 25 with native access, and the registry is a service. */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
class FrameworkTest {

    @InjectBundleContext
    BundleContext context;

    @Test
    void registryServiceIsRegistered(@InjectService(timeout = 5000) DatRegistry registry) {
        assertThat(registry).isNotNull();
        assertThat(registry.listProviders()).isNotNull();
    }

    @Test
    void runsOnJava25(@InjectService(timeout = 5000) DatRegistry registry) {
        String framework = context.getBundle(0).getSymbolicName();
        System.out.println("FRAMEWORK=" + framework + " " + context.getBundle(0).getVersion()
                + " java=" + Runtime.version());
        assertThat(Runtime.version().feature()).isGreaterThanOrEqualTo(25);
        assertThat(framework).isIn("org.apache.felix.framework", "org.eclipse.osgi");
    }

    @Test
    void datCommandsRunThroughGogo(@InjectService(timeout = 5000) CommandProcessor processor) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
                CommandSession session = processor.createSession(InputStream.nullInputStream(), print, print)) {
            session.execute("dat:providers");
            assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("IA NAME");
        }
    }
}
