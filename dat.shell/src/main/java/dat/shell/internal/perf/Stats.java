package dat.shell.internal.perf;

import java.util.Arrays;

/**
 * Order statistics of a latency sample, in nanoseconds.
 *
 * @param min the smallest
 * @param median the 50th percentile
 * @param p99 the 99th percentile
 * @param max the largest
 * @param count the number of samples
 */
record Stats(double min, double median, double p99, double max, int count) {

    static Stats of(long[] samples, int count, double scale) {
        long[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        if (count == 0) {
            return new Stats(Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0);
        }
        return new Stats(sorted[0] * scale, sorted[count / 2] * scale, sorted[Math.min(count - 1, (int) (count * 0.99))] * scale,
                sorted[count - 1] * scale, count);
    }
}
