package dat.tests.conformance.selftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.framework.BundleContext;
import org.osgi.test.common.annotation.InjectBundleContext;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.junit5.context.BundleContextExtension;
import org.osgi.test.junit5.service.ServiceExtension;
import org.osgi.util.tracker.ServiceTracker;

/** The {@code dat:test} Gogo command: the per-area table, the failures, and failing on a failure. */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
class TestCommandTest {

    @InjectBundleContext
    BundleContext context;

    /** Waits for the command's DS component, which registers it under its own (internal) class. */
    @BeforeEach
    void awaitCommand() throws Exception {
        ServiceTracker<Object, Object> tracker = new ServiceTracker<>(context,
                context.createFilter("(&(osgi.command.scope=dat)(osgi.command.function=test))"), null);
        tracker.open();
        try {
            assertThat(tracker.waitForService(10_000)).as("the dat:test command service").isNotNull();
        } finally {
            tracker.close();
        }
    }

    @Test
    @Timeout(120)
    void passesAndPrintsTheTable(@InjectService(timeout = 10_000) CommandProcessor processor) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
                CommandSession session = processor.createSession(InputStream.nullInputStream(), print, print)) {
            session.execute("dat:test sim0 --filter ^pz/");
        }
        String output = out.toString(StandardCharsets.UTF_8);
        assertThat(output).contains("AREA", "PASSED", "FAILED", "SKIPPED-UNSUPPORTED").containsPattern("(?m)^pz\\s+\\d+\\s+0\\s+");
        assertThat(output).doesNotContain("FAILED dat_");
    }

    @Test
    @Timeout(120)
    void failsOnAFailureAndNamesIt(@InjectService(timeout = 10_000) CommandProcessor processor) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
                CommandSession session = processor.createSession(InputStream.nullInputStream(), print, print)) {
            assertThatThrownBy(() -> session.execute("dat:test broken0 --filter PostSendTest#outsideLmr"))
                    .hasMessageContaining("conformance test run(s) failed");
        }
        String output = out.toString(StandardCharsets.UTF_8);
        assertThat(output).contains("FAILED dat_ep_post_send(3DAT) DAT_INVALID_PARAMETER: an IOV segment pointing to memory outside its LMR [broken0]")
                .contains("expected DAT_INVALID_PARAMETER, got DAT_SUCCESS");
    }

    @Test
    @Timeout(60)
    void rejectsUnknownOptions(@InjectService(timeout = 10_000) CommandProcessor processor) throws Exception {
        try (CommandSession session = processor.createSession(InputStream.nullInputStream(), System.out, System.err)) {
            assertThatThrownBy(() -> session.execute("dat:test --no-such-option")).hasMessageContaining("unknown option --no-such-option");
        }
    }
}
