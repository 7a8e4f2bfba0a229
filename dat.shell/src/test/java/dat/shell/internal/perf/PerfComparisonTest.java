package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code dat perf --compare}: runs read back from the JSON that {@code dat perf --json} writes, side by side. */
class PerfComparisonTest {

    @TempDir
    Path dir;

    private static Figure latency(double median, double spin) {
        return new Figure("send/recv latency", 8, "us", median, new Stats(median * 0.9, median, median * 2, median * 50, 1000),
                "spin ping-pong", spin, false);
    }

    private static Figure bandwidth(String series, long size, double value) {
        return new Figure(series, size, "GB/s", value, null, "MemorySegment.copy", 40.0, true);
    }

    private static Figure rate(double mops) {
        return new Figure("64 B message rate, 1 completion per 16", 64, "Mops/s", mops, null, null, Double.NaN, true);
    }

    private Path run(String name, List<Figure> figures) throws IOException {
        Path file = dir.resolve(name);
        PerfReport.writeJson(file, "sim0", true, figures);
        return file;
    }

    private List<Figure> figures(double median, double send, double mops) {
        return new ArrayList<>(List.of(latency(median, 0.2), bandwidth("RDMA write bandwidth", 4096, 30.0),
                bandwidth("send bandwidth", 4096, send), rate(mops)));
    }

    @Test
    void eachFigureOfEachRun_besideItsBaselineRatio_andItsSpreadFromTheMean() throws IOException {
        Path first = run("a.json", figures(0.36, 12.0, 5.0));
        Path second = run("b.json", figures(0.40, 15.0, 5.0));
        Path third = run("c.json", figures(0.38, 24.0, 2.0));
        String report = PerfComparison.report(List.of(PerfComparison.read(first), PerfComparison.read(second),
                PerfComparison.read(third)));

        assertThat(report).startsWith("dat perf --compare: 3 runs").contains("run 1: " + first + " (IA sim0, threads pinned)",
                "run 3: " + third);
        assertThat(report).contains("| figure | baseline (same run) | unit | run 1 | run 2 | run 3 | spread |");
        // the median 0.36, 0.40, 0.38 beside a spin of 0.2: the ratios of each run, at most 5% from the mean 0.38
        assertThat(report).contains("| send/recv latency 8 B (median) | spin ping-pong | us | 0.360 (1.80x) | 0.400 (2.00x) | 0.380 (1.90x) | +-5.3% |");
        // send 12, 15, 24 GB/s: mean 17, 24 is 41% above it
        assertThat(report).contains("| send bandwidth 4 KiB | MemorySegment.copy | GB/s | 12.0 (0.30x) | 15.0 (0.38x) | 24.0 (0.60x) | +-41.2% |");
        // send / RDMA write of the same run, after the send row
        assertThat(report).contains("| send bandwidth / RDMA write bandwidth 4 KiB | - | ratio | 0.400 | 0.500 | 0.800 | +-41.2% |");
        assertThat(report.indexOf("| send bandwidth 4 KiB")).isLessThan(report.indexOf("| send bandwidth / RDMA write"));
        assertThat(report).contains("| 64 B message rate, 1 completion per 16 64 B | - | Mops/s | 5.000 | 5.000 | 2.000 | +-50.0% |");
        assertThat(report).endsWith("2 of 5 figures lie within +-20.0% of their mean over the runs; outside: send bandwidth 4 KiB (+-41.2%),"
                + " send bandwidth / RDMA write bandwidth 4 KiB (+-41.2%), 64 B message rate, 1 completion per 16 64 B (+-50.0%)"
                + System.lineSeparator());
    }

    @Test
    void aFigureThatOnlySomeRunsHave_isShownWhereItWasMeasured_andComparedOnlyAcrossThem() throws IOException {
        List<Figure> withExtra = figures(0.36, 12.0, 5.0);
        withExtra.add(bandwidth("RDMA read bandwidth", 1 << 20, 42.0));
        List<Figure> withNaN = figures(0.36, 12.0, 5.0);
        withNaN.set(3, rate(Double.NaN));
        String report = PerfComparison.report(List.of(PerfComparison.read(run("a.json", figures(0.36, 12.0, 5.0))),
                PerfComparison.read(run("b.json", withExtra)), PerfComparison.read(run("c.json", withNaN))));
        assertThat(report).contains("| RDMA read bandwidth 1 MiB | MemorySegment.copy | GB/s | - | 42.0 (1.05x) | - | - |");
        assertThat(report).contains("| 64 B message rate, 1 completion per 16 64 B | - | Mops/s | 5.000 | 5.000 | n/a | +-0.0% |");
        assertThat(report).contains("5 of 5 figures lie within +-20.0% of their mean over the runs" + System.lineSeparator());
    }

    @Test
    void aTwoProcessRun_givesItsRdmaWriteStreamOverTheFramedNioStreamOfTheSameRun() throws IOException {
        List<Path> files = new ArrayList<>();
        double[][] streams = {{1.2, 0.6}, {1.0, 0.8}};
        for (double[] s : streams) {
            files.add(run("run" + files.size() + ".json", List.of(
                    new Figure("RDMA write bandwidth, 2 processes", 4096, "GB/s", s[0], null, "NIO SocketChannel stream", 0.5, true),
                    new Figure("NIO framed stream bandwidth, 2 processes", 4096, "GB/s", s[1], null, "NIO SocketChannel stream", 0.5, true))));
        }
        String report = PerfComparison.report(List.of(PerfComparison.read(files.get(0)), PerfComparison.read(files.get(1))));
        assertThat(report).contains("| RDMA write / NIO framed stream bandwidth, 2 processes 4 KiB | - | ratio | 2.000 | 1.250 | +-23.1% |");
        assertThat(report.indexOf("| RDMA write / NIO framed")).isBetween(report.indexOf("| RDMA write bandwidth, 2 processes 4 KiB"),
                report.indexOf("| NIO framed stream bandwidth, 2 processes 4 KiB"));
    }

    @Test
    void aFileThatIsNotARunsJson_isRefusedSayingWhy() throws IOException {
        Path text = Files.writeString(dir.resolve("notes.txt"), "send/recv 0.36 us\n");
        assertThatThrownBy(() -> PerfComparison.read(text)).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("not JSON");
        Path other = Files.writeString(dir.resolve("other.json"), "{\"providers\": []}");
        assertThatThrownBy(() -> PerfComparison.read(other)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not the JSON of dat perf --json");
        Path empty = Files.writeString(dir.resolve("empty.json"), "");
        assertThatThrownBy(() -> PerfComparison.read(empty)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not the JSON of dat perf --json");
        Path broken = Files.writeString(dir.resolve("broken.json"), "{\"ia\": \"sim0\", \"figures\": [{\"series\": \"x\"}]}");
        assertThatThrownBy(() -> PerfComparison.read(broken)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a figure without series, size, unit and value");
    }

    @Test
    void compareTakesTwoFilesOrMore_andNothingElse() throws IOException {
        Path a = run("a.json", figures(0.36, 12.0, 5.0));
        Path b = run("b.json", figures(0.40, 15.0, 5.0));
        assertThat(PerfOptions.compared(PerfOptions.commandLine(List.of("--compare", a.toString(), b.toString())))).containsExactly(a, b);
        assertThat(PerfOptions.compared(PerfOptions.commandLine(List.of("--quick")))).isNull();
        assertThatThrownBy(() -> PerfOptions.commandLine(List.of("--compare", a.toString())))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("--compare");
        assertThatThrownBy(() -> PerfOptions.compared(PerfOptions.commandLine(List.of("--compare", a.toString(), b.toString(), "--quick"))))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("--quick is not an option of --compare");
        assertThatThrownBy(() -> PerfOptions.compared(PerfOptions.commandLine(List.of("sim0", "--compare", a.toString(), b.toString()))))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("--compare takes no IA");
    }

    @Test
    void aMissingOrUnreadableFile_isAUsageErrorNamingIt() throws IOException {
        Path a = run("a.json", figures(0.36, 12.0, 5.0));
        CommandLine cli = PerfOptions.commandLine(List.of("--compare", a.toString(), "x.json"));
        assertThatThrownBy(() -> PerfCommands.compare(cli, List.of(a, dir.resolve("nosuch.json"))))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessage("--compare " + dir.resolve("nosuch.json") + ": no such file");
        assertThatThrownBy(() -> PerfCommands.compare(cli, List.of(a, dir))).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--compare " + dir + ": not a readable file");
        Path text = Files.writeString(dir.resolve("notes.txt"), "0.36\n");
        assertThatThrownBy(() -> PerfCommands.compare(cli, List.of(a, text))).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageStartingWith("--compare " + text + ": not the JSON of dat perf --json");
        assertThat(PerfCommands.compare(cli, List.of(a, a))).contains("5 of 5 figures");
    }
}
