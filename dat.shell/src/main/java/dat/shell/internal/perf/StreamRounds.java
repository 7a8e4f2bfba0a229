package dat.shell.internal.perf;

/**
 * One stream's bytes and nanoseconds, round by round, of {@code dat perf --client}'s alternating
 * rounds; and the figures that set a stream beside its baseline of the same rounds.
 */
final class StreamRounds {

    private final long[] bytes;
    private final long[] nanos;

    StreamRounds(int rounds) {
        bytes = new long[rounds];
        nanos = new long[rounds];
    }

    void record(int round, long[] bytesAndNanos) {
        bytes[round] = bytesAndNanos[0];
        nanos[round] = bytesAndNanos[1];
    }

    /** GB/s of each round. */
    double[] each() {
        double[] gbs = new double[bytes.length];
        for (int round = 0; round < bytes.length; round++) {
            gbs[round] = (double) bytes[round] / nanos[round];
        }
        return gbs;
    }

    /**
     * A stream's figure beside the raw NIO stream: the median round of each (all bytes over all
     * time would let one slow round of four weigh a quarter), with the spread of single
     * rounds, each round's ratio against the raw stream of the same round.
     */
    static Figure besideRaw(String series, long size, StreamRounds stream, StreamRounds raw) {
        return beside(series, size, stream, "NIO SocketChannel stream", raw);
    }

    /** The RDMA write stream beside the copies of the same chunks in this process, round by round as {@link #besideRaw}. */
    static Figure besideCopy(long size, StreamRounds writes, StreamRounds copies) {
        return beside("RDMA write bandwidth, 2 processes, beside MemorySegment.copy", size, writes, "MemorySegment.copy", copies);
    }

    private static Figure beside(String series, long size, StreamRounds stream, String baselineName, StreamRounds baseline) {
        double[] streamRounds = stream.each();
        double[] baselineRounds = baseline.each();
        return new Figure(series, size, "GB/s", Spread.median(streamRounds), null, baselineName, Spread.median(baselineRounds), true,
                Spread.of(streamRounds.length + " alternating rounds", streamRounds, baselineRounds));
    }
}
