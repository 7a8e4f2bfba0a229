package dat.tests.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The outcome of a run of the conformance suite: one {@link Result} per test run (per test and IA),
 * counted per area (the sub-package of {@code dat.tests.conformance} a test lives in: {@code ep},
 * {@code rdma}, {@code srq}, ...).
 */
@ProviderType
public final class ConformanceReport {

    /** How a test run ended. */
    public enum Outcome {
        /** The provider behaved as the man page says. */
        PASSED,
        /** The provider did not, or the test could not run (an error counts as a failure). */
        FAILED,
        /** Skipped because the provider declares the feature unsupported in its attributes. */
        SKIPPED_UNSUPPORTED,
        /** Skipped for another reason, for example a limit too large to exhaust in bounded time. */
        SKIPPED
    }

    /**
     * One test run.
     *
     * @param area the area of the test
     * @param testClass the test class, or the failing container's name
     * @param displayName the display name: man page, expectation, IA
     * @param outcome how it ended
     * @param message the failure or skip message, or {@code ""}
     * @param duration how long the run took, from its start to its end as the test engine reported
     *        them ({@link Duration#ZERO} for a test skipped before it started)
     */
    public record Result(String area, String testClass, String displayName, Outcome outcome, String message, Duration duration) {
        /** Checks for {@code null}s and a negative duration. */
        public Result {
            Objects.requireNonNull(area, "area");
            Objects.requireNonNull(testClass, "testClass");
            Objects.requireNonNull(displayName, "displayName");
            Objects.requireNonNull(outcome, "outcome");
            message = message == null ? "" : message;
            duration = duration == null ? Duration.ZERO : duration;
            if (duration.isNegative()) {
                throw new IllegalArgumentException("negative duration " + duration);
            }
        }

        /**
         * A run whose duration is not known ({@link Duration#ZERO}).
         *
         * @param area the area of the test
         * @param testClass the test class, or the failing container's name
         * @param displayName the display name: man page, expectation, IA
         * @param outcome how it ended
         * @param message the failure or skip message, or {@code ""}
         */
        public Result(String area, String testClass, String displayName, Outcome outcome, String message) {
            this(area, testClass, displayName, outcome, message, Duration.ZERO);
        }
    }

    private final List<Result> results;

    /**
     * @param results the test runs, in execution order
     */
    public ConformanceReport(List<Result> results) {
        this.results = List.copyOf(results);
    }

    /** @return every test run, in execution order */
    public List<Result> results() {
        return results;
    }

    /** @return the sum of the runs' durations */
    public Duration duration() {
        return results.stream().map(Result::duration).reduce(Duration.ZERO, Duration::plus);
    }

    /** @return the failed runs */
    public List<Result> failures() {
        return results.stream().filter(r -> r.outcome() == Outcome.FAILED).toList();
    }

    /**
     * @param outcome an outcome
     * @return how many runs ended so
     */
    public int count(Outcome outcome) {
        return (int) results.stream().filter(r -> r.outcome() == outcome).count();
    }

    /** @return whether the run had no failure and ran at least one test */
    public boolean passed() {
        return count(Outcome.FAILED) == 0 && count(Outcome.PASSED) > 0;
    }

    /** @return the counts per area and outcome, areas sorted by name */
    public Map<String, Map<Outcome, Integer>> countsByArea() {
        Map<String, Map<Outcome, Integer>> counts = new TreeMap<>();
        for (Result result : results) {
            counts.computeIfAbsent(result.area(), area -> {
                Map<Outcome, Integer> zero = new EnumMap<>(Outcome.class);
                for (Outcome outcome : Outcome.values()) {
                    zero.put(outcome, 0);
                }
                return zero;
            }).merge(result.outcome(), 1, Integer::sum);
        }
        return counts;
    }

    /**
     * The per-area table: area, passed, failed, skipped-unsupported, skipped (other reasons), and a
     * total line.
     *
     * @return the table, one line per area
     */
    public String table() {
        StringBuilder out = new StringBuilder();
        String format = "%-16s %7s %7s %20s %8s%n";
        out.append(String.format(format, "AREA", "PASSED", "FAILED", "SKIPPED-UNSUPPORTED", "SKIPPED"));
        int[] total = new int[Outcome.values().length];
        for (Map.Entry<String, Map<Outcome, Integer>> area : countsByArea().entrySet()) {
            Map<Outcome, Integer> c = area.getValue();
            out.append(String.format(format, area.getKey(), c.get(Outcome.PASSED), c.get(Outcome.FAILED),
                    c.get(Outcome.SKIPPED_UNSUPPORTED), c.get(Outcome.SKIPPED)));
            for (Outcome outcome : Outcome.values()) {
                total[outcome.ordinal()] += c.get(outcome);
            }
        }
        out.append(String.format(format, "TOTAL", total[0], total[1], total[2], total[3]));
        return out.toString();
    }

    /** @return every failure with its message, or {@code ""} when there is none */
    public String failureReport() {
        StringBuilder out = new StringBuilder();
        for (Result failure : failures()) {
            out.append("FAILED ").append(failure.displayName()).append(" (").append(failure.testClass()).append(")\n");
            for (String line : failure.message().split("\n")) {
                out.append("    ").append(line).append('\n');
            }
        }
        return out.toString();
    }

    /** @return the skipped runs with their reasons, one a line */
    public String skipReport() {
        List<String> lines = new ArrayList<>();
        for (Result result : results) {
            if (result.outcome() == Outcome.SKIPPED_UNSUPPORTED || result.outcome() == Outcome.SKIPPED) {
                lines.add("SKIPPED " + result.displayName() + ": " + result.message());
            }
        }
        return lines.isEmpty() ? "" : String.join("\n", lines) + "\n";
    }

    /**
     * The area of a test class: its package's segment after {@code dat.tests.conformance.}.
     *
     * @param className a fully qualified class name
     * @return the area, or {@code "other"} for a class outside the suite's packages
     */
    public static String areaOf(String className) {
        String prefix = "dat.tests.conformance.";
        int lastDot = className.lastIndexOf('.');
        if (!className.startsWith(prefix) || lastDot < prefix.length()) {
            return "other";
        }
        String packageTail = className.substring(prefix.length(), lastDot);
        int dot = packageTail.indexOf('.');
        return dot < 0 ? packageTail : packageTail.substring(0, dot);
    }
}
