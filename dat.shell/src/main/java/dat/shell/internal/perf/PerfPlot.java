package dat.shell.internal.perf;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * Draws {@code dat perf}'s curves into a PNG with Java2D: latency (half round trip, median)
 * against message size on the left, bandwidth against message size on the right, log-scaled
 * sizes, one line per series and a dashed line per baseline.
 */
final class PerfPlot {

    private static final int WIDTH = 1400;
    private static final int HEIGHT = 560;
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x9467bd),
        new Color(0xff7f0e), new Color(0x8c564b)};

    private PerfPlot() {
    }

    static void write(Path file, String title, List<Figure> figures) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
            g.drawString(title, 20, 26);
            panel(g, 20, 50, WIDTH / 2 - 40, HEIGHT - 80, "latency, half round trip (us, median)", "us", figures, true);
            panel(g, WIDTH / 2 + 20, 50, WIDTH / 2 - 40, HEIGHT - 80, "bandwidth (GB/s)", "GB/s", figures, false);
        } finally {
            g.dispose();
        }
        ImageIO.write(image, "png", file.toFile());
    }

    private static void panel(Graphics2D g, int x, int y, int w, int h, String title, String unit, List<Figure> figures,
            boolean logY) {
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        Map<String, List<double[]>> baselines = new LinkedHashMap<>();
        for (Figure f : figures) {
            if (!f.unit().equals(unit) || f.size() <= 0) {
                continue;
            }
            series.computeIfAbsent(f.series(), k -> new ArrayList<>()).add(new double[] {f.size(), f.value()});
            if (f.baselineName() != null) {
                List<double[]> points = baselines.computeIfAbsent(f.baselineName(), k -> new ArrayList<>());
                if (points.stream().noneMatch(p -> p[0] == f.size())) {
                    points.add(new double[] {f.size(), f.baseline()});
                }
            }
        }
        int left = x + 60;
        int bottom = y + h - 40;
        int plotW = w - 80;
        int plotH = h - 70;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        g.setColor(Color.BLACK);
        g.drawString(title, x + 60, y + 14);
        double minX = Double.MAX_VALUE;
        double maxX = 0;
        double minY = Double.MAX_VALUE;
        double maxY = 0;
        for (Map<String, List<double[]>> m : List.of(series, baselines)) {
            for (List<double[]> points : m.values()) {
                for (double[] p : points) {
                    if (Double.isFinite(p[1]) && p[1] > 0) {
                        minX = Math.min(minX, p[0]);
                        maxX = Math.max(maxX, p[0]);
                        minY = Math.min(minY, p[1]);
                        maxY = Math.max(maxY, p[1]);
                    }
                }
            }
        }
        g.drawRect(left, bottom - plotH, plotW, plotH);
        if (maxX == 0) {
            g.drawString("no data", left + 10, bottom - plotH / 2);
            return;
        }
        if (minX == maxX) {
            maxX = minX * 2;
        }
        double lowY = logY ? Math.pow(10, Math.floor(Math.log10(minY))) : 0;
        double highY = logY ? Math.pow(10, Math.ceil(Math.log10(maxY))) : maxY * 1.1;
        if (highY <= lowY) {
            highY = lowY * 10;
        }
        double lx0 = Math.log(minX);
        double lx1 = Math.log(maxX);
        Scale sx = v -> left + (int) Math.round((Math.log(v) - lx0) / (lx1 - lx0) * plotW);
        double fy0 = lowY;
        double fy1 = highY;
        Scale sy = logY
                ? v -> bottom - (int) Math.round((Math.log10(v) - Math.log10(fy0)) / (Math.log10(fy1) - Math.log10(fy0)) * plotH)
                : v -> bottom - (int) Math.round((v - fy0) / (fy1 - fy0) * plotH);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        for (double size = minX; size <= maxX * 1.0001; size *= (maxX / minX > 4096 ? 4 : 2)) {
            int px = sx.at(size);
            g.setColor(new Color(0xdddddd));
            g.drawLine(px, bottom, px, bottom - plotH);
            g.setColor(Color.BLACK);
            g.drawString(PerfReport.size((long) size), px - 15, bottom + 15);
        }
        g.drawString("message size", left + plotW / 2 - 30, bottom + 32);
        if (logY) {
            for (double v = lowY; v <= highY * 1.0001; v *= 10) {
                int py = sy.at(v);
                g.setColor(new Color(0xdddddd));
                g.drawLine(left, py, left + plotW, py);
                g.setColor(Color.BLACK);
                g.drawString(PerfReport.number(v), x, py + 4);
            }
        } else {
            for (int i = 0; i <= 5; i++) {
                double v = lowY + (highY - lowY) * i / 5;
                int py = sy.at(v);
                g.setColor(new Color(0xdddddd));
                g.drawLine(left, py, left + plotW, py);
                g.setColor(Color.BLACK);
                g.drawString(String.format(Locale.ROOT, "%.1f", v), x + 10, py + 4);
            }
        }
        int legendY = bottom - plotH + 16;
        int colorIndex = 0;
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            Color color = COLORS[colorIndex++ % COLORS.length];
            drawLine(g, e.getValue(), sx, sy, color, false);
            legend(g, left + 10, legendY, e.getKey(), color, false);
            legendY += 16;
        }
        for (Map.Entry<String, List<double[]>> e : baselines.entrySet()) {
            Color color = Color.GRAY;
            drawLine(g, e.getValue(), sx, sy, color, true);
            legend(g, left + 10, legendY, "baseline: " + e.getKey(), color, true);
            legendY += 16;
        }
    }

    @FunctionalInterface
    private interface Scale {
        int at(double value);
    }

    private static void drawLine(Graphics2D g, List<double[]> points, Scale sx, Scale sy, Color color, boolean dashed) {
        points.sort((a, b) -> Double.compare(a[0], b[0]));
        g.setColor(color);
        g.setStroke(dashed ? new BasicStroke(2, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1, new float[] {6, 4}, 0)
                : new BasicStroke(2.5f));
        int[] previous = null;
        for (double[] p : points) {
            if (!Double.isFinite(p[1]) || p[1] <= 0) {
                continue;
            }
            int[] current = {sx.at(p[0]), sy.at(p[1])};
            g.fillOval(current[0] - 3, current[1] - 3, 6, 6);
            if (previous != null) {
                g.drawLine(previous[0], previous[1], current[0], current[1]);
            }
            previous = current;
        }
        g.setStroke(new BasicStroke(1));
    }

    private static void legend(Graphics2D g, int x, int y, String text, Color color, boolean dashed) {
        g.setColor(color);
        g.setStroke(dashed ? new BasicStroke(2, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1, new float[] {6, 4}, 0)
                : new BasicStroke(2.5f));
        g.drawLine(x, y - 4, x + 24, y - 4);
        g.setStroke(new BasicStroke(1));
        g.setColor(Color.BLACK);
        g.drawString(text, x + 30, y);
    }
}
