package dat.shell.internal.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code dat perf --compare}: the figures of several runs, read back from their {@code --json} files,
 * side by side, with how far each figure's values stray from their mean (the role of Go's benchstat
 * for {@code dat perf}). A figure is the same in two runs when its series and size are; each cell
 * shows the run's value and its ratio to the baseline of the same run. Where a run has both figures of
 * one of the {@link #QUOTIENTS} at a size, a row gives their ratio.
 */
final class PerfComparison {

    /** How far from the runs' mean each run's value may lie for the runs to agree: ±20%. */
    static final double AGREEMENT = 0.20;

    /**
     * Two figures of one run and size whose ratio is a row of its own: {@code numerator}'s value over
     * {@code denominator}'s, named {@code name}, put after the numerator's row.
     */
    record Quotient(String numerator, String denominator, String name) {
    }

    /**
     * The quotients the runs' rows gain: send against RDMA write of the same size (one JVM), and
     * the RDMA write stream against the NIO stream framed as the sim provider's TCP wire frames
     * (two processes; below 16 KiB the fair baseline, {@code docs/conformance.md}).
     */
    static final List<Quotient> QUOTIENTS = List.of(
            new Quotient(PerfRunner.Op.SEND.bandwidthSeries(), PerfRunner.Op.RDMA_WRITE.bandwidthSeries(),
                    "send bandwidth / RDMA write bandwidth"),
            new Quotient(PerfClient.WRITE_STREAM, PerfClient.FRAMED_STREAM, "RDMA write / NIO framed stream bandwidth, 2 processes"));

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** A figure's identity across runs. */
    record Key(String series, long size) {
        String label(boolean median) {
            String name = size > 0 ? series + " " + PerfReport.size(size) : series;
            return median ? name + " (median)" : name;
        }
    }

    /** One run's figure: its value, and its ratio to the baseline of the same run (NaN where it has none). */
    record Point(String unit, double value, String baseline, double ratio, boolean median) {
    }

    /** One run's figures, from its {@code --json} file, in the file's order. */
    record Run(Path file, String ia, boolean pinned, Map<Key, Point> points) {
    }

    /** One figure across the runs: {@code points[i]} is run i's, or {@code null} where that run lacks it. */
    record Row(Key key, Point[] points) {

        /** The first run's point that exists: the row's unit, baseline and kind. */
        Point first() {
            for (Point p : points) {
                if (p != null) {
                    return p;
                }
            }
            throw new IllegalStateException("a row without points");
        }

        /**
         * The largest distance of a run's value from the mean of the runs' values, as a fraction of
         * that mean; NaN where fewer than two runs have a finite value.
         */
        double spread() {
            double sum = 0;
            int count = 0;
            for (Point p : points) {
                if (p != null && Double.isFinite(p.value())) {
                    sum += p.value();
                    count++;
                }
            }
            if (count < 2) {
                return Double.NaN;
            }
            double mean = sum / count;
            double largest = 0;
            for (Point p : points) {
                if (p != null && Double.isFinite(p.value())) {
                    largest = Math.max(largest, Math.abs(p.value() - mean) / Math.abs(mean));
                }
            }
            return largest;
        }
    }

    private PerfComparison() {
    }

    /**
     * Reads one run's figures.
     *
     * @param file a file that {@code dat perf --json} wrote
     * @return its figures
     * @throws IOException when the file cannot be read
     * @throws IllegalArgumentException when it is not the JSON of {@code dat perf --json}, saying why
     */
    static Run read(Path file) throws IOException {
        JsonNode root;
        try {
            root = MAPPER.readTree(file.toFile());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON (" + e.getOriginalMessage() + ")");
        }
        if (root == null || !root.isObject() || !root.path("figures").isArray() || !root.path("ia").isTextual()) {
            throw new IllegalArgumentException("not the JSON of dat perf --json: it needs \"ia\" and an array \"figures\"");
        }
        Map<Key, Point> points = new LinkedHashMap<>();
        for (JsonNode f : root.get("figures")) {
            if (!f.path("series").isTextual() || !f.path("size").canConvertToLong() || !f.path("unit").isTextual()
                    || !(f.path("value").isNumber() || f.path("value").isNull())) {
                throw new IllegalArgumentException("a figure without series, size, unit and value: " + f);
            }
            Key key = new Key(f.get("series").asText(), f.get("size").asLong());
            String baseline = f.path("baseline").isTextual() ? f.get("baseline").asText() : null;
            points.put(key, new Point(f.get("unit").asText(), number(f.get("value")), baseline,
                    baseline == null ? Double.NaN : number(f.path("ratio")), f.has("median")));
        }
        addQuotients(points);
        return new Run(file, root.get("ia").asText(), root.path("pinned").asBoolean(), points);
    }

    private static double number(JsonNode node) {
        return node.isNumber() ? node.asDouble() : Double.NaN;
    }

    /** Puts each {@link #QUOTIENTS quotient} the run has both figures of after its numerator's row. */
    private static void addQuotients(Map<Key, Point> points) {
        Map<Key, Point> withQuotients = new LinkedHashMap<>();
        for (Map.Entry<Key, Point> e : points.entrySet()) {
            withQuotients.put(e.getKey(), e.getValue());
            for (Quotient q : QUOTIENTS) {
                if (e.getKey().series().equals(q.numerator())) {
                    Point denominator = points.get(new Key(q.denominator(), e.getKey().size()));
                    if (denominator != null && denominator.unit().equals(e.getValue().unit())) {
                        withQuotients.put(new Key(q.name(), e.getKey().size()),
                                new Point("ratio", e.getValue().value() / denominator.value(), null, Double.NaN, false));
                    }
                }
            }
        }
        points.clear();
        points.putAll(withQuotients);
    }

    /** The figures of the runs, in the order the first run lists them, then those only later runs have. */
    static List<Row> rows(List<Run> runs) {
        Map<Key, Point[]> rows = new LinkedHashMap<>();
        for (int i = 0; i < runs.size(); i++) {
            for (Map.Entry<Key, Point> e : runs.get(i).points().entrySet()) {
                rows.computeIfAbsent(e.getKey(), k -> new Point[runs.size()])[i] = e.getValue();
            }
        }
        List<Row> list = new ArrayList<>();
        rows.forEach((key, points) -> list.add(new Row(key, points)));
        return list;
    }

    /**
     * The comparison as text: which file each run is, a Markdown table of the figures (each run's value
     * and ratio, and the spread), and how many figures agree within {@link #AGREEMENT}.
     *
     * @param runs the runs, in the order given
     * @return the text, ending with a line break
     */
    static String report(List<Run> runs) {
        List<Row> rows = rows(runs);
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "dat perf --compare: %d runs%n", runs.size()));
        for (int i = 0; i < runs.size(); i++) {
            Run run = runs.get(i);
            out.append(String.format(Locale.ROOT, "run %d: %s (IA %s%s)%n", i + 1, run.file(), run.ia(),
                    run.pinned() ? ", threads pinned" : ""));
        }
        out.append(System.lineSeparator());
        out.append("| figure | baseline (same run) | unit");
        for (int i = 0; i < runs.size(); i++) {
            out.append(" | run ").append(i + 1);
        }
        out.append(" | spread |").append(System.lineSeparator());
        out.append("|---|---|---").append("|---".repeat(runs.size())).append("|---|").append(System.lineSeparator());
        int compared = 0;
        List<String> outside = new ArrayList<>();
        for (Row row : rows) {
            Point first = row.first();
            String label = row.key().label(first.median());
            out.append("| ").append(label).append(" | ").append(first.baseline() == null ? "-" : first.baseline()).append(" | ")
                    .append(first.unit());
            for (Point p : row.points()) {
                out.append(" | ").append(cell(p));
            }
            double spread = row.spread();
            out.append(" | ").append(Double.isNaN(spread) ? "-" : percent(spread)).append(" |").append(System.lineSeparator());
            if (!Double.isNaN(spread)) {
                compared++;
                if (spread > AGREEMENT) {
                    outside.add(label + " (" + percent(spread) + ")");
                }
            }
        }
        out.append(System.lineSeparator());
        out.append(String.format(Locale.ROOT, "%d of %d figures lie within %s of their mean over the runs", compared - outside.size(),
                compared, percent(AGREEMENT)));
        out.append(outside.isEmpty() ? "" : "; outside: " + String.join(", ", outside)).append(System.lineSeparator());
        return out.toString();
    }

    private static String cell(Point p) {
        if (p == null) {
            return "-";
        }
        String value = PerfReport.number(p.value());
        return Double.isNaN(p.ratio()) ? value : value + String.format(Locale.ROOT, " (%.2fx)", p.ratio());
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "+-%.1f%%", fraction * 100);
    }
}
