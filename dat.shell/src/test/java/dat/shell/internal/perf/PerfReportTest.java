package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
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
    void theJsonIsWrittenByJackson_andParsesBackWithEveryField(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("perf.json");
        Spread batches = Spread.of("4 batches of 50 connections", new double[] {980, 1100});
        PerfReport.writeJson(file, "tcpA \"quoted\"", false, List.of(bandwidth(null), bandwidth(ROUNDS),
                new Figure("connection setup", 0, "us/conn", 1020, null, null, Double.NaN, false, batches)));
        JsonNode root = new ObjectMapper().readTree(file.toFile());
        assertThat(root.get("ia").asText()).isEqualTo("tcpA \"quoted\"");
        assertThat(root.get("pinned").asBoolean(true)).isFalse();
        JsonNode figures = root.get("figures");
        assertThat(figures).hasSize(3);
        for (JsonNode figure : List.of(figures.get(0), figures.get(1))) {
            assertThat(figure.get("series").asText()).isEqualTo("RDMA write bandwidth, 2 processes");
            assertThat(figure.get("size").asLong()).isEqualTo(65536);
            assertThat(figure.get("unit").asText()).isEqualTo("GB/s");
            assertThat(figure.get("value").asDouble()).isEqualTo(1.1);
            assertThat(figure.get("baseline").asText()).isEqualTo("NIO SocketChannel stream");
            assertThat(figure.get("baselineValue").asDouble()).isEqualTo(1.025);
            assertThat(figure.get("ratio").asDouble()).isCloseTo(1.1 / 1.025, within(1e-12));
        }
        assertThat(figures.get(0).has("spread")).isFalse();
        JsonNode spread = figures.get(1).get("spread");
        assertThat(spread.get("parts").asText()).isEqualTo("4 alternating rounds");
        assertThat(spread.get("count").asInt()).isEqualTo(4);
        assertThat(spread.get("min").asDouble()).isEqualTo(1.0);
        assertThat(spread.get("max").asDouble()).isEqualTo(1.2);
        assertThat(spread.get("baselineMin").asDouble()).isEqualTo(0.9);
        assertThat(spread.get("ratioMin").asDouble()).isCloseTo(1.1 / 1.2, within(1e-12));
        JsonNode setup = figures.get(2);
        assertThat(setup.has("baseline")).isFalse();
        assertThat(setup.get("spread").get("max").asDouble()).isEqualTo(1100);
        assertThat(setup.get("spread").has("baselineMin")).isFalse();
    }

    @Test
    void aNumberThatIsNotFinite_isNullInTheJson() throws IOException {
        Figure rate = new Figure("64 B message rate", 64, "Mops/s", Double.NaN, null, null, Double.NaN, true);
        JsonNode figure = new ObjectMapper().readTree(PerfReport.json("sim0", true, List.of(rate)).toString()).get("figures").get(0);
        assertThat(figure.get("value").isNull()).isTrue();
    }
}
