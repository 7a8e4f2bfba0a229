package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report of {@code dat perf}: a figure's table lines, the spread of its parts, and its JSON. */
class PerfReportTest {

    /** Four rounds whose ratios pair each round's DAT stream with the same round's NIO stream. */
    private static final Spread ROUNDS = Spread.of("4 alternating rounds", new double[] {1.0, 1.2, 1.1, 1.1},
            new double[] {1.0, 1.0, 0.9, 1.2});

    private static Figure bandwidth(Spread spread) {
        return new Figure("RDMA write bandwidth, 2 processes", 65536, "GB/s", 1.1, null, "NIO SocketChannel stream", 1.025, true,
                spread);
    }

    @Test
    void theRatiosSpreadRoundByRound_notAsTheExtremesOfEachStream() {
        // min/max of the ratios of the same round, not 1.0/1.2 (0.83) and 1.2/0.9 (1.33)
        assertThat(ROUNDS.ratioMin()).isCloseTo(1.1 / 1.2, within(1e-12));
        assertThat(ROUNDS.ratioMax()).isCloseTo(1.1 / 0.9, within(1e-12));
        assertThat(ROUNDS.min()).isEqualTo(1.0);
        assertThat(ROUNDS.max()).isEqualTo(1.2);
        assertThat(ROUNDS.baselineMin()).isEqualTo(0.9);
        assertThat(ROUNDS.baselineMax()).isEqualTo(1.2);
        assertThat(ROUNDS.count()).isEqualTo(4);
    }

    @Test
    void theMedianOfTheParts_isTheMiddleOne_orTheMeanOfTheMiddleTwo() {
        double[] odd = {5.0, 1.0, 4.0};
        assertThat(Spread.median(odd)).isEqualTo(4.0);
        assertThat(odd).containsExactly(5.0, 1.0, 4.0); // the parts keep their order
        assertThat(Spread.median(new double[] {1.0, 1.2, 1.1, 1.1})).isCloseTo(1.1, within(1e-12));
        assertThat(Spread.median(new double[] {4.8, 2.0, 4.6, 4.7})).isCloseTo(4.65, within(1e-12)); // one slow round
        assertThat(Spread.median(new double[] {7.0})).isEqualTo(7.0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Spread.median(new double[0]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFigureMeasuredInRounds_printsTheirSpreadOnASecondLine() {
        String[] lines = PerfReport.line(bandwidth(ROUNDS)).split("\\R");
        assertThat(lines).hasSize(2);
        assertThat(lines[0]).startsWith("RDMA write bandwidth, 2 processes 64 KiB").contains("1.100", "GB/s", "1.07x");
        assertThat(lines[1]).startsWith(" ".repeat(45))
                .endsWith("4 alternating rounds: 1.000 to 1.200 GB/s, baseline 0.900 to 1.200, ratio 0.92x to 1.22x");
    }

    @Test
    void aFigureMeasuredInOnePiece_staysOneLine() {
        assertThat(PerfReport.line(bandwidth(null))).doesNotContain("\n", "rounds");
    }

    @Test
    void partsWithoutABaselineOfTheirOwn_printTheirValuesAlone() {
        Spread batches = Spread.of("4 batches of 50 connections", new double[] {980, 1100, 1010, 990});
        Figure setup = new Figure("connection setup", 0, "us/conn", 1020, null, "OFED dtestcm ucm on FDR (published)", 71.85, false,
                batches);
        String[] lines = PerfReport.line(setup).split("\\R");
        assertThat(lines).hasSize(2);
        assertThat(lines[1].strip()).isEqualTo("4 batches of 50 connections: 980 to 1100 us/conn");
    }

    @Test
    void theJsonAddsTheSpread_andKeepsEveryFieldItHadBefore(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("perf.json");
        Spread batches = Spread.of("4 batches of 50 connections", new double[] {980, 1100});
        PerfReport.writeJson(file, "tcpA", false, List.of(bandwidth(null), bandwidth(ROUNDS),
                new Figure("connection setup", 0, "us/conn", 1020, null, null, Double.NaN, false, batches)));
        List<String> figures = Files.readAllLines(file).stream().filter(line -> line.contains("\"series\"")).toList();
        assertThat(figures).hasSize(3);
        String before = "{\"series\": \"RDMA write bandwidth, 2 processes\", \"size\": 65536, \"unit\": \"GB/s\", \"value\": 1.10000,"
                + " \"baseline\": \"NIO SocketChannel stream\", \"baselineValue\": 1.02500, \"ratio\": 1.07317";
        assertThat(figures.get(0).strip()).isEqualTo(before + "},");
        assertThat(figures.get(1).strip()).isEqualTo(before + ", \"spread\": {\"parts\": \"4 alternating rounds\", \"count\": 4,"
                + " \"min\": 1.00000, \"max\": 1.20000, \"baselineMin\": 0.900000, \"baselineMax\": 1.20000,"
                + " \"ratioMin\": 0.916667, \"ratioMax\": 1.22222}},");
        assertThat(figures.get(2).strip()).endsWith("\"spread\": {\"parts\": \"4 batches of 50 connections\", \"count\": 2,"
                + " \"min\": 980.000, \"max\": 1100.00}}");
    }
}
