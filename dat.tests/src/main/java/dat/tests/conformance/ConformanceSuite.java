package dat.tests.conformance;

import dat.tests.conformance.ConformanceReport.Outcome;
import dat.tests.conformance.ConformanceReport.Result;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.engine.JupiterTestEngine;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.osgi.annotation.versioning.ProviderType;
import org.osgi.framework.Bundle;
import org.osgi.framework.FrameworkUtil;

/**
 * Runs the DAT conformance suite with the JUnit Platform Launcher inside the framework: the test
 * classes named by this bundle's {@code Test-Cases} header, against the given IAs (or every IA
 * under test), optionally filtered, and reports per area.
 *
 * <p>Which IAs are under test by default: every IA name of every registered
 * {@code dat.api.spi.DatIaFactory} service whose service property {@value #SERVICE_PROPERTY} is not
 * {@code false}. Test-only providers (deliberately broken ones) set it to {@code false}.
 */
@ProviderType
public final class ConformanceSuite {

    /**
     * The configuration parameter, or framework property, naming the IAs under test, comma
     * separated: {@value}.
     */
    public static final String IA_PARAMETER = "dat.conformance.ia";

    /**
     * The configuration parameter, or framework property, naming the control address
     * ({@code host:port}) of a peer agent in another process or on another host
     * ({@code dat test --serve}): {@value}. The transaction tests then put their server sides
     * there; the other tests run within this process.
     *
     * @since 1.1
     */
    public static final String PEER_PARAMETER = "dat.conformance.peer";

    /**
     * The service property of a {@code DatIaFactory} that, set to {@code false}, keeps its IAs out
     * of the default IAs under test: {@value}.
     */
    public static final String SERVICE_PROPERTY = "dat.conformance";

    /** The start of the reason of a test skipped because the provider declares a feature unsupported: {@value}. */
    public static final String UNSUPPORTED = "unsupported: ";

    private ConformanceSuite() {
    }

    /**
     * The suite's test classes: those the {@code Test-Cases} header of this bundle names.
     *
     * @return the classes, loaded through this bundle
     */
    public static List<Class<?>> testClasses() {
        Bundle bundle = FrameworkUtil.getBundle(ConformanceSuite.class);
        if (bundle == null) {
            throw new IllegalStateException("the conformance suite runs inside an OSGi framework");
        }
        String header = bundle.getHeaders("").get("Test-Cases");
        if (header == null || header.isBlank()) {
            throw new IllegalStateException("bundle " + bundle.getSymbolicName() + " has no Test-Cases header");
        }
        List<Class<?>> classes = new ArrayList<>();
        for (String name : header.split(",")) {
            String className = name.strip();
            if (className.isEmpty()) {
                continue;
            }
            try {
                classes.add(bundle.loadClass(className));
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("Test-Cases names " + className + ", which the bundle cannot load", e);
            }
        }
        return classes;
    }

    /**
     * One return value of a man page and the suite's tests of it.
     *
     * @param page the page, for example {@code "dat_ep_post_send"}
     * @param returnValue the value as the page writes it, for example {@code "DAT_INVALID_STATE"}
     * @param tests the display names of the tests that cite it
     * @param note {@code ""}, or why no test covers it
     */
    public record Coverage(String page, String returnValue, List<String> tests, String note) {
        /** Copies the list. */
        public Coverage {
            tests = List.copyOf(tests);
        }
    }

    /**
     * The coverage of the man pages' RETURN VALUES: every entry of the catalog
     * {@code return-values.tsv} of this package with the tests whose display names cite it
     * ({@code "page(3DAT) VALUE: ..."}).
     *
     * @return one entry per page and return value, in the catalog's order
     */
    public static List<Coverage> coverage() {
        List<String> names = new ArrayList<>();
        for (Class<?> testClass : testClasses()) {
            for (Method method : testClass.getDeclaredMethods()) {
                DisplayName name = method.getAnnotation(DisplayName.class);
                if (name != null) {
                    names.add(name.value());
                }
            }
        }
        List<Coverage> coverage = new ArrayList<>();
        try (InputStream in = ConformanceSuite.class.getResourceAsStream("return-values.tsv")) {
            if (in == null) {
                throw new IllegalStateException("the catalog return-values.tsv is missing from the bundle");
            }
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] fields = line.split("\t", 3);
                String cited = citation(fields[0], fields[1]);
                List<String> tests = names.stream().filter(name -> name.startsWith(cited + ":") || name.startsWith(cited + " ")).sorted().toList();
                coverage.add(new Coverage(fields[0], fields[1], tests, fields[2].equals("-") ? "" : fields[2]));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return coverage;
    }

    /** How a test's display name cites a return value of a page; the page's typo DAT_UNSUFFICIENT_RESOURCES is cited correctly. */
    private static String citation(String page, String returnValue) {
        String value = returnValue.equals("DAT_UNSUFFICIENT_RESOURCES") ? "DAT_INSUFFICIENT_RESOURCES" : returnValue;
        return page + "(3DAT) " + value;
    }

    /**
     * Runs the suite.
     *
     * @param iaNames the IAs to test, or an empty list for every IA under test
     * @param filter a regular expression, or {@code ""} for all tests: a test runs when the
     *     expression is found (case-insensitively) in {@code "area/TestClass#method display name"}
     * @param progress gets a line when each test class finishes
     * @return the report
     */
    public static ConformanceReport run(List<String> iaNames, String filter, Consumer<String> progress) {
        return run(iaNames, filter, Map.of(), progress);
    }

    /**
     * Runs the suite with further configuration parameters, for example
     * {@link #PEER_PARAMETER}.
     *
     * @param iaNames the IAs to test, or an empty list for every IA under test
     * @param filter a regular expression, or {@code ""} for all tests (see {@link #run(List, String, Consumer)})
     * @param parameters configuration parameters of the run
     * @param progress gets a line when each test class finishes
     * @return the report
     * @since 1.1
     */
    public static ConformanceReport run(List<String> iaNames, String filter, Map<String, String> parameters, Consumer<String> progress) {
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        request.configurationParameters(parameters);
        for (Class<?> testClass : testClasses()) {
            request.selectors(DiscoverySelectors.selectClass(testClass));
        }
        if (!iaNames.isEmpty()) {
            request.configurationParameter(IA_PARAMETER, String.join(",", iaNames));
        }
        if (filter != null && !filter.isBlank()) {
            request.filters(new NameFilter(Pattern.compile(filter, Pattern.CASE_INSENSITIVE)));
        }
        LauncherDiscoveryRequest discovery = request.build();
        Launcher launcher = LauncherFactory.create(LauncherConfig.builder()
                .enableTestEngineAutoRegistration(false)
                .enableLauncherSessionListenerAutoRegistration(false)
                .enableLauncherDiscoveryListenerAutoRegistration(false)
                .enablePostDiscoveryFilterAutoRegistration(false)
                .enableTestExecutionListenerAutoRegistration(false)
                .addTestEngines(new JupiterTestEngine())
                .build());
        Collector collector = new Collector(progress);
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(ConformanceSuite.class.getClassLoader());
        try {
            launcher.execute(discovery, collector);
        } finally {
            thread.setContextClassLoader(previous);
        }
        return new ConformanceReport(collector.results);
    }

    /** Keeps the tests whose area, class, method or display name matches. */
    private record NameFilter(Pattern pattern) implements PostDiscoveryFilter {
        @Override
        public FilterResult apply(TestDescriptor descriptor) {
            String name = descriptor.getDisplayName();
            Optional<TestSource> source = descriptor.getSource();
            if (source.isPresent() && source.get() instanceof MethodSource method) {
                name = ConformanceReport.areaOf(method.getClassName()) + "/" + simpleName(method.getClassName()) + "#"
                        + method.getMethodName() + " " + name;
            } else if (source.isPresent() && source.get() instanceof ClassSource type) {
                name = ConformanceReport.areaOf(type.getClassName()) + "/" + simpleName(type.getClassName()) + " " + name;
            }
            boolean match = pattern.matcher(name).find();
            return FilterResult.includedIf(match, () -> "matches the filter", () -> "does not match the filter");
        }
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    /** Turns the launcher's events into results, and reports each finished class. */
    private static final class Collector implements TestExecutionListener {
        private final Consumer<String> progress;
        private final List<Result> results = Collections.synchronizedList(new ArrayList<>());
        private final Map<String, int[]> perClass = new ConcurrentHashMap<>();
        private final Map<String, Long> started = new ConcurrentHashMap<>();
        private TestPlan plan;

        Collector(Consumer<String> progress) {
            this.progress = progress;
        }

        @Override
        public void testPlanExecutionStarted(TestPlan testPlan) {
            plan = testPlan;
        }

        @Override
        public void executionStarted(TestIdentifier identifier) {
            started.put(identifier.getUniqueId(), System.nanoTime());
        }

        @Override
        public void executionSkipped(TestIdentifier identifier, String reason) {
            if (identifier.isTest()) {
                add(identifier, Outcome.SKIPPED, reason, Duration.ZERO);
            }
        }

        @Override
        public void executionFinished(TestIdentifier identifier, TestExecutionResult result) {
            Long start = started.remove(identifier.getUniqueId());
            Duration took = start == null ? Duration.ZERO : Duration.ofNanos(Math.max(0, System.nanoTime() - start));
            String message = result.getThrowable().map(ConformanceSuite::message).orElse("");
            Outcome outcome = switch (result.getStatus()) {
                case SUCCESSFUL -> Outcome.PASSED;
                case FAILED -> Outcome.FAILED;
                case ABORTED -> message.startsWith(UNSUPPORTED) ? Outcome.SKIPPED_UNSUPPORTED : Outcome.SKIPPED;
            };
            if (identifier.isTest()) {
                add(identifier, outcome, message, took);
            } else if (outcome == Outcome.FAILED) {
                add(identifier, outcome, message, took); // a class or template that could not run at all
            }
            if (identifier.getSource().orElse(null) instanceof ClassSource type && progress != null) {
                int[] c = perClass.getOrDefault(type.getClassName(), new int[Outcome.values().length]);
                progress.accept(String.format("%-16s %-44s %4d passed %3d failed %3d skipped",
                        ConformanceReport.areaOf(type.getClassName()), simpleName(type.getClassName()),
                        c[Outcome.PASSED.ordinal()], c[Outcome.FAILED.ordinal()],
                        c[Outcome.SKIPPED_UNSUPPORTED.ordinal()] + c[Outcome.SKIPPED.ordinal()]));
            }
        }

        private void add(TestIdentifier identifier, Outcome outcome, String message, Duration took) {
            String className = className(identifier);
            results.add(new Result(ConformanceReport.areaOf(className), className, displayName(identifier), outcome, message, took));
            perClass.computeIfAbsent(className, k -> new int[Outcome.values().length])[outcome.ordinal()]++;
        }

        private String className(TestIdentifier identifier) {
            TestIdentifier current = identifier;
            while (current != null) {
                TestSource source = current.getSource().orElse(null);
                if (source instanceof MethodSource method) {
                    return method.getClassName();
                }
                if (source instanceof ClassSource type) {
                    return type.getClassName();
                }
                current = plan == null ? null : plan.getParent(current).orElse(null);
            }
            return identifier.getDisplayName();
        }

        private String displayName(TestIdentifier identifier) {
            return identifier.getDisplayName();
        }
    }

    /** The message of a failure or skip; JUnit's "Assumption failed: " prefix is dropped. */
    private static String message(Throwable throwable) {
        String message = throwable.getMessage();
        if (message == null) {
            return throwable.toString();
        }
        String assumption = "Assumption failed: ";
        return message.startsWith(assumption) ? message.substring(assumption.length()) : message;
    }
}
