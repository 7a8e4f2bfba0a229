package dat.shell.internal.perf;

/**
 * How the parts of one figure's measurement spread. The figure is its median part ({@link #median}),
 * which one bad round cannot move far (medians with their min-max, as this project reports speed);
 * the spread shows how far single parts strayed.
 *
 * @param parts what the parts were, e.g. "4 alternating rounds"
 * @param count how many parts there were
 * @param min the smallest value of one part, in the figure's unit
 * @param max the largest value of one part
 * @param baselineMin the smallest value of the baseline in one part, or NaN when the baseline was not
 *     measured part by part
 * @param baselineMax the largest value of the baseline in one part, or NaN
 * @param ratioMin the smallest ratio of a part's value to the baseline of the same part, or NaN
 * @param ratioMax the largest such ratio, or NaN
 */
record Spread(String parts, int count, double min, double max, double baselineMin, double baselineMax, double ratioMin,
        double ratioMax) {

    /** The spread of parts that each measured the figure and its baseline, {@code values[i]} beside {@code baselines[i]}. */
    static Spread of(String parts, double[] values, double[] baselines) {
        if (values.length == 0 || values.length != baselines.length) {
            throw new IllegalArgumentException(values.length + " values beside " + baselines.length + " baselines");
        }
        double[] ratios = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            ratios[i] = values[i] / baselines[i];
        }
        return new Spread(parts, values.length, min(values), max(values), min(baselines), max(baselines), min(ratios), max(ratios));
    }

    /** The spread of parts that measured the figure alone (its baseline, if any, is not measured in parts). */
    static Spread of(String parts, double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no parts");
        }
        return new Spread(parts, values.length, min(values), max(values), Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }

    /** Whether the baseline was measured part by part (and so the ratio has a spread). */
    boolean hasBaseline() {
        return !Double.isNaN(baselineMin);
    }

    /**
     * The median of {@code values}: the middle one, or the mean of the middle two of an even count.
     * A round in which the host took a core, which would weigh a quarter of a pooled figure of four
     * rounds, moves it only as far as the next round.
     */
    static double median(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no parts");
        }
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static double min(double[] values) {
        double min = Double.POSITIVE_INFINITY;
        for (double value : values) {
            min = Math.min(min, value);
        }
        return min;
    }

    private static double max(double[] values) {
        double max = Double.NEGATIVE_INFINITY;
        for (double value : values) {
            max = Math.max(max, value);
        }
        return max;
    }
}
