package dat.shell.internal.perf;

/**
 * One measured figure, with the baseline measured in the same run.
 *
 * @param series what was measured, e.g. "send/recv latency" or "RDMA write bandwidth"
 * @param size the message size in bytes, or 0 when it does not apply
 * @param unit the unit of value and baseline, e.g. "us" or "GB/s" or "ops/s"
 * @param value the figure (for latency: the median half round trip)
 * @param stats latency order statistics (half round trip, in the unit), or {@code null}
 * @param baselineName what the baseline is, or {@code null} when none fits
 * @param baseline the baseline in the same unit, or NaN
 * @param higherIsBetter whether a larger value is better (bandwidth, rates)
 * @param spread how the parts the figure pools spread (rounds, batches), or {@code null} when it was measured in one piece
 */
record Figure(String series, long size, String unit, double value, Stats stats, String baselineName, double baseline,
        boolean higherIsBetter, Spread spread) {

    /** A figure measured in one piece: no spread. */
    Figure(String series, long size, String unit, double value, Stats stats, String baselineName, double baseline,
            boolean higherIsBetter) {
        this(series, size, unit, value, stats, baselineName, baseline, higherIsBetter, null);
    }

    /** value / baseline, or NaN without a baseline. */
    double ratio() {
        return baselineName == null ? Double.NaN : value / baseline;
    }
}
