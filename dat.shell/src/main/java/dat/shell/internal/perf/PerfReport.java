package dat.shell.internal.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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

    static void writeJson(Path file, String ia, boolean pinned, List<Figure> figures) throws IOException {
        StringBuilder json = new StringBuilder();
        json.append("{\n  \"ia\": ").append(quote(ia)).append(",\n  \"pinned\": ").append(pinned).append(",\n  \"figures\": [");
        for (int i = 0; i < figures.size(); i++) {
            Figure f = figures.get(i);
            json.append(i == 0 ? "\n" : ",\n").append("    {\"series\": ").append(quote(f.series()))
                    .append(", \"size\": ").append(f.size())
                    .append(", \"unit\": ").append(quote(f.unit()))
                    .append(", \"value\": ").append(jsonNumber(f.value()));
            if (f.stats() != null) {
                json.append(", \"min\": ").append(jsonNumber(f.stats().min()))
                        .append(", \"median\": ").append(jsonNumber(f.stats().median()))
                        .append(", \"p99\": ").append(jsonNumber(f.stats().p99()))
                        .append(", \"max\": ").append(jsonNumber(f.stats().max()))
                        .append(", \"samples\": ").append(f.stats().count());
            }
            if (f.baselineName() != null) {
                json.append(", \"baseline\": ").append(quote(f.baselineName()))
                        .append(", \"baselineValue\": ").append(jsonNumber(f.baseline()))
                        .append(", \"ratio\": ").append(jsonNumber(f.ratio()));
            }
            if (f.spread() != null) {
                Spread s = f.spread();
                json.append(", \"spread\": {\"parts\": ").append(quote(s.parts()))
                        .append(", \"count\": ").append(s.count())
                        .append(", \"min\": ").append(jsonNumber(s.min()))
                        .append(", \"max\": ").append(jsonNumber(s.max()));
                if (s.hasBaseline()) {
                    json.append(", \"baselineMin\": ").append(jsonNumber(s.baselineMin()))
                            .append(", \"baselineMax\": ").append(jsonNumber(s.baselineMax()))
                            .append(", \"ratioMin\": ").append(jsonNumber(s.ratioMin()))
                            .append(", \"ratioMax\": ").append(jsonNumber(s.ratioMax()));
                }
                json.append('}');
            }
            json.append('}');
        }
        json.append("\n  ]\n}\n");
        Files.writeString(file, json, StandardCharsets.UTF_8);
    }

    private static String jsonNumber(double value) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.6g", value) : "null";
    }

    private static String quote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
