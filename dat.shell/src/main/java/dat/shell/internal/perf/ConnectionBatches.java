package dat.shell.internal.perf;

/**
 * How the connection setup figure is timed: its connections in {@link #BATCHES} batches, one after
 * the other, so that the figure (the median batch's mean) comes with the spread of the batches' means, which a single mean hides.
 */
final class ConnectionBatches {

    /** Batches of the measured connections: the count of connections stays the option's. */
    static final int BATCHES = 4;

    /**
     * @param micros microseconds per connection in the median batch (the mean of the middle two of an even count)
     * @param spread the batches' means, in microseconds per connection
     */
    record Timing(double micros, Spread spread) {

        /** The connection setup figure of {@code series}, beside OFED uDAPL's published dtestcm figure (BENCHMARKS.md). */
        Figure figure(String series) {
            return new Figure(series, 0, "us/conn", micros, null, "OFED dtestcm ucm on FDR (published)", 71.85, false, spread);
        }
    }

    private ConnectionBatches() {
    }

    /** Runs {@code connectAndDisconnect} {@code connections} times, in batches, and times them. */
    static Timing time(int connections, Runnable connectAndDisconnect) {
        int[] sizes = sizes(connections, BATCHES);
        double[] means = new double[sizes.length];
        for (int batch = 0; batch < sizes.length; batch++) {
            long start = System.nanoTime();
            for (int i = 0; i < sizes[batch]; i++) {
                connectAndDisconnect.run();
            }
            means[batch] = (System.nanoTime() - start) / 1e3 / sizes[batch];
        }
        return new Timing(Spread.median(means), Spread.of(describe(sizes), means));
    }

    /** {@code connections} in up to {@code batches} batches, their sizes differing by one at most. */
    static int[] sizes(int connections, int batches) {
        int count = Math.min(batches, connections);
        int[] sizes = new int[count];
        for (int batch = 0; batch < count; batch++) {
            sizes[batch] = connections / count + (batch < connections % count ? 1 : 0);
        }
        return sizes;
    }

    /** e.g. "4 batches of 50 connections", "4 batches of 12 to 13 connections". */
    static String describe(int[] sizes) {
        int smallest = sizes[sizes.length - 1];
        int largest = sizes[0];
        String each = smallest == largest ? Integer.toString(largest) : smallest + " to " + largest;
        return sizes.length + (sizes.length == 1 ? " batch of " : " batches of ") + each + (largest == 1 ? " connection" : " connections");
    }
}
