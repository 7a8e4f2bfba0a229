package dat.shell.internal.perf;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dat.shell.internal.Json;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Formats {@code dat perf} figures: one table line each, and JSON. */
final class PerfReport {

    static final String HEADER = String.format(Locale.ROOT, "%-44s %9s %-8s %-38s %12s %8s", "figure", "value", "unit",
            "baseline (same run)", "baseline", "ratio");

    private PerfReport() {
    }

    static String line(Figure figure) {
        String name = figure.size() > 0 ? figure.series() + " " + size(figure.size()) : figure.series();
        String value = number(figure.value());
        if (figure.stats() != null) {
            name = name + " (median)";
        }
        String baseline = figure.baselineName() == null ? "-" : figure.baselineName();
        String ratio = figure.baselineName() == null ? "" : String.format(Locale.ROOT, "%.2fx", figure.ratio());
        String text = String.format(Locale.ROOT, "%-44s %9s %-8s %-38s %12s %8s", name, value, figure.unit(), baseline,
                figure.baselineName() == null ? "" : number(figure.baseline()), ratio);
        if (figure.stats() != null) {
            Stats s = figure.stats();
            text += String.format(Locale.ROOT, "%n%-44s min %s  p99 %s  max %s  (%d round trips, half RTT)", "", number(s.min()),
                    number(s.p99()), number(s.max()), s.count());
        }
        if (figure.spread() != null) {
            text += String.format(Locale.ROOT, "%n%-44s %s", "", spread(figure.spread(), figure.unit()));
        }
        return text;
    }

    /**
     * The second line's text for a figure measured in parts: each part's smallest and largest value
     * and, where the baseline was measured part by part, the baseline's and the part-by-part ratio's.
     */
    static String spread(Spread spread, String unit) {
        String text = String.format(Locale.ROOT, "%s: %s to %s %s", spread.parts(), number(spread.min()), number(spread.max()), unit);
        if (spread.hasBaseline()) {
            text += String.format(Locale.ROOT, ", baseline %s to %s, ratio %.2fx to %.2fx", number(spread.baselineMin()),
                    number(spread.baselineMax()), spread.ratioMin(), spread.ratioMax());
        }
        return text;
    }

    static String size(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }

    static String number(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        if (value >= 100) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (value >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.3f", value);
    }

    /**
     * Writes the figures as JSON (through Jackson): the IA, whether the threads were pinned, and
     * each figure with its statistics, baseline and spread where it has them; a number that is not
     * finite is {@code null}.
     */
    static void writeJson(Path file, String ia, boolean pinned, List<Figure> figures) throws IOException {
        Json.write(file, json(ia, pinned, figures));
    }

    static ObjectNode json(String ia, boolean pinned, List<Figure> figures) {
        ObjectNode root = Json.object();
        root.put("ia", ia);
        root.put("pinned", pinned);
        ArrayNode array = root.putArray("figures");
        for (Figure f : figures) {
            ObjectNode node = array.addObject();
            node.put("series", f.series());
            node.put("size", f.size());
            node.put("unit", f.unit());
            Json.number(node, "value", f.value());
            if (f.stats() != null) {
                Json.number(node, "min", f.stats().min());
                Json.number(node, "median", f.stats().median());
                Json.number(node, "p99", f.stats().p99());
                Json.number(node, "max", f.stats().max());
                node.put("samples", f.stats().count());
            }
            if (f.baselineName() != null) {
                node.put("baseline", f.baselineName());
                Json.number(node, "baselineValue", f.baseline());
                Json.number(node, "ratio", f.ratio());
            }
            if (f.spread() != null) {
                Spread s = f.spread();
                ObjectNode spread = node.putObject("spread");
                spread.put("parts", s.parts());
                spread.put("count", s.count());
                Json.number(spread, "min", s.min());
                Json.number(spread, "max", s.max());
                if (s.hasBaseline()) {
                    Json.number(spread, "baselineMin", s.baselineMin());
                    Json.number(spread, "baselineMax", s.baselineMax());
                    Json.number(spread, "ratioMin", s.ratioMin());
                    Json.number(spread, "ratioMax", s.ratioMax());
                }
            }
        }
        return root;
    }
}
