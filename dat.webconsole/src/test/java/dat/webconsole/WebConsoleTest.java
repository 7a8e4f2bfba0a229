package dat.webconsole;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dat.api.CompletionFlags;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.ProviderDTO;
import dat.api.spi.DatProviderStatus;
import java.io.File;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.test.common.annotation.InjectBundleContext;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.junit5.context.BundleContextExtension;
import org.osgi.test.junit5.service.ServiceExtension;
import org.osgi.util.tracker.ServiceTracker;

/**
 * The DAT page of the Felix Web Console, as a browser shows it: headless Chromium loads
 * {@code /system/console/dat} (the console's user and password in the URL), runs its script, and
 * the DOM it leaves must show what the registry says — every provider row with its state, the
 * installed provider that offers no IA with its reason, and an open IA's counters as its MXBean
 * has them. The page's data ({@code data.json}, Jackson's) says the same. A screenshot of the page
 * goes to {@code target/test-reports/webconsole/dat-webconsole.png}.
 */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
@Timeout(300)
class WebConsoleTest {

    private static final Pattern ROW = Pattern.compile("<tr data-ia=\"([^\"]*)\"(?: data-provider=\"([^\"]*)\")? data-state=\"([^\"]*)\"");

    @InjectBundleContext
    BundleContext context;

    @InjectService(timeout = 20_000)
    DatRegistry registry;

    @Test
    void theBrowserShowsTheRegistrysProviders_theUnavailableOnes_andAnOpenIasLiveCounters() throws Exception {
        String endpoint = httpEndpoint();
        awaitPlugin();
        assertThat(registry.listProviders()).as("the example provider's IA").anyMatch(p -> p.iaName().equals("metered-sim0"));

        try (Arena arena = Arena.ofShared();
                InterfaceAdapter ia = registry.openIa("metered-sim0");
                ProtectionZone pz = ia.createProtectionZone();
                EventDispatcher evd = ia.createEventDispatcher(8, null, EvdFlags.DTO);
                EventDispatcher conn = ia.createEventDispatcher(8, null, EvdFlags.CONNECTION);
                LocalMemoryRegion lmr = ia.registerMemory(arena.allocate(4096, 64), pz, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
                Endpoint ep = ia.createEndpoint(pz, evd, evd, conn, EpAttributes.builder().maxMessageSize(4096).maxRecvDtos(4)
                        .maxRequestDtos(4).maxRecvIov(1).maxRequestIov(1).build())) {
            // live counters: a receive posted before a connection (allowed), a send without one (refused)
            LmrTriplet[] iov = {LmrTriplet.of(lmr, 0, 64)};
            assertThat(ep.postRecv(1, iov, 1, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
            assertThat(DatReturn.typeOf(ep.postSend(1, iov, 2, CompletionFlags.DEFAULT))).isEqualTo(DatReturn.INVALID_STATE);
            long posted = counter("OperationsPosted");
            long postErrors = counter("PostErrors");
            assertThat(posted).isPositive();
            assertThat(postErrors).isPositive();

            JsonNode data = new ObjectMapper().readTree(get(endpoint + "system/console/dat/data.json"));
            assertThat(providerRows(data)).isEqualTo(registryRows());
            assertThat(providerDetails(data)).as("the fields of providers --json").isEqualTo(registryDetails());
            JsonNode open = data.get("openIas").get(0);
            assertThat(open.get("iaName").asText()).isEqualTo("metered-sim0");
            assertThat(open.get("operationsPosted").asLong()).isEqualTo(posted);
            assertThat(open.get("postErrors").asLong()).isEqualTo(postErrors);

            String dom = chromium("--dump-dom", url(endpoint));
            Set<String> shown = new TreeSet<>();
            Matcher rows = ROW.matcher(dom);
            while (rows.find()) {
                shown.add(rows.group(3).equals("unavailable") ? "unavailable " + rows.group(2) : rows.group(1) + " " + rows.group(3));
            }
            Set<String> expected = registryRows();
            for (ServiceReference<DatProviderStatus> ref : context.getServiceReferences(DatProviderStatus.class, null)) {
                DatProviderStatus status = context.getService(ref);
                expected.add("unavailable " + status.providerName());
                assertThat(dom).contains(status.unavailableReason().replace("&", "&amp;").replace("<", "&lt;"));
                context.ungetService(ref);
            }
            assertThat(shown).as("the provider rows the browser shows").isEqualTo(expected).contains("sim0 active", "unavailable verbs");
            String iaRow = dom.substring(dom.indexOf("<tr data-ia=\"metered-sim0\" data-instance="));
            iaRow = iaRow.substring(0, iaRow.indexOf("</tr>"));
            assertThat(iaRow).contains("data-counter=\"operationsPosted\">" + posted + "<",
                    "data-counter=\"postErrors\">" + postErrors + "<");

            Path reports = Files.createDirectories(Path.of(context.getProperty("dat.webconsole.reports")));
            Path screenshot = reports.resolve("dat-webconsole.png");
            Files.deleteIfExists(screenshot);
            chromium("--screenshot=" + screenshot, "--window-size=1400,1000", url(endpoint));
            assertThat(screenshot).as("the screenshot in the test reports").isRegularFile();
            byte[] png = Files.readAllBytes(screenshot);
            assertThat(png.length).isGreaterThan(10_000);
            assertThat(new String(png, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
        }
    }

    /** The registry's IAs as "name state", the way the page's rows carry them. */
    private Set<String> registryRows() {
        Set<String> rows = new TreeSet<>();
        for (ProviderDTO p : registry.getRuntimeDTO().providers()) {
            rows.add(p.iaName() + " " + p.state().name().toLowerCase(Locale.ROOT));
        }
        return rows;
    }

    /** The registry's IAs as "name service-id ranking [ia_params]". */
    private Set<String> registryDetails() {
        Set<String> rows = new TreeSet<>();
        for (ProviderDTO p : registry.getRuntimeDTO().providers()) {
            rows.add(p.iaName() + " " + p.id() + " " + p.ranking() + " [" + p.instanceData() + "]");
        }
        return rows;
    }

    /** The data's IAs as {@link #registryDetails()} has them, a missing field as "missing". */
    private static Set<String> providerDetails(JsonNode data) {
        Set<String> rows = new TreeSet<>();
        data.get("providers").forEach(p -> rows.add(field(p, "iaName") + " " + field(p, "serviceId") + " "
                + field(p, "ranking") + " [" + field(p, "instanceData") + "]"));
        return rows;
    }

    private static String field(JsonNode node, String name) {
        return node.has(name) ? node.get(name).asText() : "missing";
    }

    private static Set<String> providerRows(JsonNode data) {
        Set<String> rows = new TreeSet<>();
        data.get("providers").forEach(p -> rows.add(p.get("iaName").asText() + " " + p.get("state").asText()));
        return rows;
    }

    private static long counter(String attribute) throws Exception {
        Set<ObjectName> names = ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName("dat:type=IA,name=metered-sim0,*"),
                null);
        assertThat(names).as("the MXBean of the open metered-sim0").hasSize(1);
        return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(names.iterator().next(), attribute);
    }

    /** The HTTP service's endpoint, e.g. {@code http://127.0.0.1:34567/}, from its runtime service. */
    private String httpEndpoint() throws Exception {
        ServiceTracker<Object, Object> tracker = new ServiceTracker<>(context,
                context.createFilter("(&(objectClass=org.osgi.service.servlet.runtime.HttpServiceRuntime)(osgi.http.endpoint=*))"), null);
        tracker.open();
        try {
            assertThat(tracker.waitForService(20_000)).as("the servlet runtime").isNotNull();
            Object endpoint = tracker.getServiceReference().getProperty("osgi.http.endpoint");
            String first = endpoint instanceof String[] all ? all[0] : endpoint instanceof java.util.Collection<?> c
                    ? String.valueOf(c.iterator().next()) : String.valueOf(endpoint);
            return first.endsWith("/") ? first : first + "/";
        } finally {
            tracker.close();
        }
    }

    private void awaitPlugin() throws Exception {
        ServiceTracker<Object, Object> tracker = new ServiceTracker<>(context,
                context.createFilter("(&(objectClass=jakarta.servlet.Servlet)(felix.webconsole.label=dat))"), null);
        tracker.open();
        try {
            assertThat(tracker.waitForService(20_000)).as("the DAT page's servlet").isNotNull();
        } finally {
            tracker.close();
        }
    }

    private String get(String url) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        String auth = Base64.getEncoder().encodeToString((user() + ":" + password()).getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> response = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            response = client.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Basic " + auth)
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 200) {
                return response.body();
            }
            Thread.sleep(250); // the console registers its servlets a moment after the HTTP service starts
        }
        throw new AssertionError("GET " + url + ": " + (response == null ? "no answer" : response.statusCode() + " " + response.body()));
    }

    private String url(String endpoint) {
        return endpoint.replace("://", "://" + user() + ":" + password() + "@") + "system/console/dat";
    }

    private String user() {
        return context.getProperty("felix.webconsole.username");
    }

    private String password() {
        return context.getProperty("felix.webconsole.password");
    }

    /** Runs Debian's headless Chromium once, bounded; returns what it printed on stdout. */
    private static String chromium(String... args) throws Exception {
        boolean installed = java.util.Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, "chromium")));
        assertThat(installed).as("Debian's chromium on the PATH (apt-get install chromium; .ci/run installs it)").isTrue();
        Path home = Files.createTempDirectory("dat-chromium");
        List<String> command = new ArrayList<>(List.of("chromium", "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + home.resolve("profile"),
                "--virtual-time-budget=8000"));
        command.addAll(List.of(args));
        Path out = home.resolve("stdout");
        Path err = home.resolve("stderr");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new AssertionError("chromium did not end within 120 s: " + Files.readString(err));
        }
        assertThat(process.exitValue()).as("chromium's exit; it said: " + Files.readString(err)).isZero();
        return Files.readString(out);
    }
}
