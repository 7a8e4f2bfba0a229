package dat.tests.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.spi.DatProviderConstants;
import dat.api.spi.DatProviderStatus;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceRegistration;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.junit5.service.ServiceExtension;

/** The registry's Gogo commands: providers, ia, checkconf. */
@ExtendWith(ServiceExtension.class)
@Timeout(60)
class CommandsTest {

    @InjectService(timeout = 5000)
    CommandProcessor processor;

    private final ByteArrayOutputStream console = new ByteArrayOutputStream();

    /** Runs a command; returns what it printed (the dat commands print their output rather than returning it). */
    private String run(String command) throws Exception {
        console.reset();
        try (PrintStream print = new PrintStream(console, true, StandardCharsets.UTF_8);
                CommandSession session = processor.createSession(InputStream.nullInputStream(), print, print)) {
            session.execute(command);
        }
        return console.toString(StandardCharsets.UTF_8);
    }

    @Test
    void providersIsATableOfEveryProvider() throws Exception {
        String table = run("dat:providers");
        String[] lines = table.split("\n");
        assertThat(lines[0]).startsWith("IA NAME").contains("API", "THREAD SAFE", "TRANSPORT", "PROVIDER", "VERSION",
                "ORIGIN", "STATE", "OPEN", "SOURCE / REASON");
        assertThat(table).containsPattern("(?m)^test0 +1\\.2 +no +loopback +test +1\\.0 +dynamic +active +0 +service \\d+ of"
                + " bundle dat.tests.provider$");
        assertThat(table).contains("static registry: ");
    }

    @Test
    void providersListsAnUnavailableProviderWithItsReason() throws Exception {
        BundleContext context = FrameworkUtil.getBundle(CommandsTest.class).getBundleContext();
        DatProviderStatus status = new DatProviderStatus() {
            @Override
            public String providerName() {
                return "absent";
            }

            @Override
            public String unavailableReason() {
                return "no device on this test host";
            }
        };
        ServiceRegistration<DatProviderStatus> registration = context.registerService(DatProviderStatus.class, status,
                FrameworkUtil.asDictionary(Map.of(DatProviderConstants.DAT_PROVIDER_NAME, "absent")));
        try {
            assertThat(run("dat:providers"))
                    .containsPattern("(?m)^- +- +- +- +absent +- +dynamic +unavailable +0 +no device on this test host$");
        } finally {
            registration.unregister();
        }
        assertThat(run("dat:providers")).doesNotContain("absent");
    }

    @Test
    void iaOpensAnIaAndShowsItsAttributes() throws Exception {
        String shown = run("dat:ia test0");
        assertThat(shown).startsWith("IA test0\n  provider  test 1.0, transport loopback, DAT 1.2, not thread safe, dynamic,");
        assertThat(shown).containsPattern("(?m)^  adapterName +test0$").containsPattern("(?m)^  providerName +test$")
                .containsPattern("(?m)^  maxEvds +16$");
        assertThatThrownBy(() -> run("dat:ia nosuch0")).hasMessageContaining("DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED");
    }

    @Test
    void checkconfReportsEntriesAndFailsOnBadLines() throws Exception {
        Path good = Files.createTempFile("good", ".conf");
        Path bad = Files.createTempFile("bad", ".conf");
        try {
            Files.writeString(good, "sim0 u1.2 threadsafe default sim dat.1.0 \"port=1\" \"\"\n");
            String report = run("dat:checkconf " + good);
            assertThat(report).startsWith(good + ": 1 entry, 0 bad lines\n"
                    + "LINE  IA NAME  API   THREAD SAFE  DEFAULT  PROVIDER  PROVIDER VERSION  IA PARAMS  PLATFORM PARAMS\n"
                    + "1     sim0     u1.2  threadsafe   default  sim       \"dat.1.0\"         \"port=1\"   \"\"\n");

            Files.writeString(bad, "sim0 u1.2 threadsafe default sim dat.1.0 \"\" \"\"\nsim1 u9 threadsafe\n");
            assertThatThrownBy(() -> run("dat:checkconf " + bad)).hasMessageContaining(bad + " has 1 bad line");
            assertThat(console.toString(StandardCharsets.UTF_8)).contains(bad + ": 1 entry, 1 bad line",
                    "bad lines:\n  " + bad + ":2: expected 8 fields but found 3");
            assertThatThrownBy(() -> run("dat:checkconf /nonexistent/dat.conf"))
                    .hasMessageContaining("/nonexistent/dat.conf: no such file");
        } finally {
            Files.deleteIfExists(good);
            Files.deleteIfExists(bad);
        }
    }
}
