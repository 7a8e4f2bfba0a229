package dat.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dat.conf parser against tricky files, with the exact problems it reports. */
class DatConfTest {

    private static List<String> problems(String text) {
        return DatConf.parse("dat.conf", text).problems().stream().map(DatConf.Problem::toString).toList();
    }

    @Test
    void parsesTheSolarisExample() {
        DatConf conf = DatConf.parse("dat.conf", """
                #
                # dat.conf for uDAPL 1.2
                #
                ibd0 u1.2 nonthreadsafe default udapl_tavor.so.1 SUNW.1.0 "" "driver_name=tavor"
                ibd1 u1.2 nonthreadsafe default udapl_tavor.so.1 SUNW.1.0 "" "driver_name=tavor"
                """);
        assertThat(conf.problems()).isEmpty();
        assertThat(conf.entries()).containsExactly(
                new DatConf.Entry("dat.conf", 4, "ibd0", 1, 2, false, true, "udapl_tavor.so.1", "SUNW.1.0", "",
                        "driver_name=tavor"),
                new DatConf.Entry("dat.conf", 5, "ibd1", 1, 2, false, true, "udapl_tavor.so.1", "SUNW.1.0", "",
                        "driver_name=tavor"));
        assertThat(conf.entries().getFirst().apiVersion()).isEqualTo("u1.2");
        assertThat(conf.entries().getFirst().location()).isEqualTo("dat.conf:4");
    }

    @Test
    void parsesAnOfedLineWithQuotedParameters() {
        DatConf conf = DatConf.parse("dat.conf",
                "OpenIB-cma u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 \"ib0 0\" \"\"\n");
        assertThat(conf.problems()).isEmpty();
        assertThat(conf.entries()).singleElement().satisfies(entry -> {
            assertThat(entry.iaName()).isEqualTo("OpenIB-cma");
            assertThat(entry.iaParams()).isEqualTo("ib0 0");
            assertThat(entry.platformParams()).isEmpty();
        });
    }

    @Test
    void quotesEscapesCommentsTabsAndBlankLines() {
        DatConf conf = DatConf.parse("dat.conf", String.join("\n",
                "",
                "   # an indented comment",
                "\t",
                "sim0\tu1.2  threadsafe default sim dat.1.0 \"port=7 # not a comment\" \"say \\\"hi\\\" \\\\ \" # a comment",
                "sim1 u1.2 threadsafe nondefault sim dat.1.0 a\\ b\\#c \"\"#comment right after a field",
                "\"sim 2\" u1.3 nonthreadsafe default \"sim\" \"\" \"\" \"\"\r",
                ""));
        assertThat(conf.problems()).isEmpty();
        assertThat(conf.entries()).hasSize(3);
        DatConf.Entry sim0 = conf.entries().get(0);
        assertThat(sim0.line()).isEqualTo(4);
        assertThat(sim0.threadSafe()).isTrue();
        assertThat(sim0.iaParams()).isEqualTo("port=7 # not a comment");
        assertThat(sim0.platformParams()).isEqualTo("say \"hi\" \\ ");
        DatConf.Entry sim1 = conf.entries().get(1);
        assertThat(sim1.isDefault()).isFalse();
        assertThat(sim1.iaParams()).isEqualTo("a b#c");
        assertThat(sim1.platformParams()).isEmpty();
        DatConf.Entry sim2 = conf.entries().get(2);
        assertThat(sim2.iaName()).isEqualTo("sim 2");
        assertThat(sim2.versionMinor()).isEqualTo(3);
        assertThat(sim2.providerVersion()).isEmpty();
    }

    @Test
    void continuesAnEntryAfterABackslash() {
        DatConf conf = DatConf.parse("dat.conf", """
                ibd0 u1.2 nonthreadsafe default \\
                    sim SUNW.1.0 "" \\
                    "driver_name=tavor"
                ibd1 u1.2 nonthreadsafe default sim SUNW.1.0 "" x\\\\
                """);
        assertThat(conf.problems()).isEmpty();
        assertThat(conf.entries()).extracting(DatConf.Entry::line, DatConf.Entry::platformParams)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, "driver_name=tavor"),
                        org.assertj.core.groups.Tuple.tuple(4, "x\\"));
    }

    @Test
    void reportsWrongFieldCounts() {
        assertThat(problems("""
                ibd0 u1.2 nonthreadsafe default sim SUNW.1.0 ""
                ibd1 u1.2 nonthreadsafe default sim SUNW.1.0 "" "" extra
                ibd2
                """)).containsExactly(
                "dat.conf:1: expected 8 fields but found 7 (ia_name api_version threadsafe|nonthreadsafe"
                        + " default|nondefault provider provider_version ia_params platform_params)",
                "dat.conf:2: expected 8 fields but found 9 (ia_name api_version threadsafe|nonthreadsafe"
                        + " default|nondefault provider provider_version ia_params platform_params)",
                "dat.conf:3: expected 8 fields but found 1 (ia_name api_version threadsafe|nonthreadsafe"
                        + " default|nondefault provider provider_version ia_params platform_params)");
    }

    @Test
    void reportsBadVersionsAndKeywords() {
        assertThat(problems("""
                a u12 nonthreadsafe default sim v "" ""
                b 1.2 nonthreadsafe default sim v "" ""
                c u1. nonthreadsafe default sim v "" ""
                d u1.x nonthreadsafe default sim v "" ""
                e u99999999999.2 nonthreadsafe default sim v "" ""
                f k1.2 nonthreadsafe default sim v "" ""
                g u1.2 threadSafe default sim v "" ""
                h u1.2 nonthreadsafe yes sim v "" ""
                i u1.2 nonthreadsafe default "" v "" ""
                "" u1.2 nonthreadsafe default sim v "" ""
                RO_AWARE_j u1.2 nonthreadsafe default sim v "" ""
                """)).containsExactly(
                "dat.conf:1: bad API version 'u12': expected u<major>.<minor>, for example u1.2",
                "dat.conf:2: bad API version '1.2': expected u<major>.<minor>, for example u1.2",
                "dat.conf:3: bad API version 'u1.': expected u<major>.<minor>, for example u1.2",
                "dat.conf:4: bad API version 'u1.x': expected u<major>.<minor>, for example u1.2",
                "dat.conf:5: bad API version 'u99999999999.2': expected u<major>.<minor>, for example u1.2",
                "dat.conf:6: kDAPL API version 'k1.2': only uDAPL entries (u<major>.<minor>) are supported",
                "dat.conf:7: bad thread safety 'threadSafe': expected threadsafe or nonthreadsafe",
                "dat.conf:8: bad default field 'yes': expected default or nondefault",
                "dat.conf:9: empty provider name",
                "dat.conf:10: empty IA name",
                "dat.conf:11: IA name 'RO_AWARE_j' starts with RO_AWARE_, which dat_ia_open removes before matching");
    }

    @Test
    void reportsQuotingAndEscapeErrors() {
        assertThat(problems(String.join("\n",
                "a u1.2 nonthreadsafe default sim v \"unterminated",
                "b u1.2 nonthreadsafe default sim v \"\"x \"\"",
                "c u1.2 nonthreadsafe default sim v ab\"c\" \"\"",
                "d u1.2 nonthreadsafe default sim v \"\\n\" \"\"",
                "e u1.2 nonthreadsafe default sim v \\q \"\"",
                "f u1.2 nonthreadsafe default sim v \"ends in escape\\",
                "good u1.2 nonthreadsafe default sim v \"\" \"\"",
                "g u1.2 nonthreadsafe default \\"))).containsExactly(
                "dat.conf:1: unterminated quoted field (a quoted field cannot span lines)",
                "dat.conf:2: text after a closing quote at column 38 (separate fields with a blank)",
                "dat.conf:3: quote inside a field at column 38 (quote the whole field)",
                "dat.conf:4: unknown escape '\\n' at column 37 (escape only \\\\, \\\", \\#, space and tab)",
                "dat.conf:5: unknown escape '\\q' at column 36 (escape only \\\\, \\\", \\#, space and tab)",
                "dat.conf:6: unterminated quoted field (a quoted field cannot span lines)",
                "dat.conf:8: the file ends after a line continuation ('\\' at the end of the line)");
        assertThat(DatConf.parse("dat.conf", "good u1.2 nonthreadsafe default sim v \"\" \"\"\n").entries()).hasSize(1);
    }

    @Test
    void aBadContinuedEntryIsOneProblem() {
        DatConf conf = DatConf.parse("dat.conf", """
                a u1.2 nonthreadsafe default \\q \\
                  sim v "" ""
                b u1.2 nonthreadsafe default sim v "" ""
                """);
        assertThat(conf.problems()).extracting(DatConf.Problem::toString)
                .containsExactly("dat.conf:1: unknown escape '\\q' at column 30 (escape only \\\\, \\\", \\#, space and tab)");
        assertThat(conf.entries()).extracting(DatConf.Entry::iaName).containsExactly("b");
    }

    @Test
    void aBackslashEndingACommentOrQuotedFieldOfABadLineContinuesNothing() {
        DatConf conf = DatConf.parse("dat.conf", String.join("\n",
                "bad\\q u1.2 threadsafe default sim v \"\" \"\" # C:\\",
                "sim0 u1.2 threadsafe default sim v \"\" \"\"",
                "bad\\q u1.2 threadsafe default sim v \"\" \"C:\\",
                "sim1 u1.2 threadsafe default sim v \"\" \"\"",
                ""));
        assertThat(conf.entries()).extracting(DatConf.Entry::iaName).containsExactly("sim0", "sim1");
        assertThat(conf.problems()).extracting(DatConf.Problem::line).containsExactly(1, 3);
    }

    @Test
    void ignoresAByteOrderMarkAtTheStart(@TempDir Path dir) throws IOException {
        String line = "sim0 u1.2 threadsafe default sim v \"\" \"\"\n";
        assertThat(DatConf.parse("dat.conf", "\uFEFF" + line).entries()).extracting(DatConf.Entry::iaName)
                .containsExactly("sim0");
        Path file = dir.resolve("dat.conf");
        Files.write(file, ("\uFEFF" + line).getBytes(StandardCharsets.UTF_8));
        DatConf conf = DatConf.read(file);
        assertThat(conf.entries()).extracting(DatConf.Entry::iaName).containsExactly("sim0");
        assertThat(conf.problems()).isEmpty();
    }

    @Test
    void reportsDuplicatesAndKeepsTheFirst() {
        DatConf conf = DatConf.parse("dat.conf", """
                ibd0 u1.2 nonthreadsafe default sim first "" ""
                ibd0 u1.2 threadsafe default sim threadsafe-is-another-entry "" ""
                ibd0 u1.2 nonthreadsafe nondefault sim second "" ""
                """);
        assertThat(conf.problems()).extracting(DatConf.Problem::toString)
                .containsExactly("dat.conf:3: duplicate entry for IA 'ibd0' u1.2 nonthreadsafe: first at line 1");
        assertThat(conf.entries()).extracting(DatConf.Entry::providerVersion)
                .containsExactly("first", "threadsafe-is-another-entry");
    }

    @Test
    void goodLinesLoadBesideBadOnes() {
        DatConf conf = DatConf.parse("dat.conf", """
                bad
                sim0 u1.2 threadsafe default sim v "" ""
                sim1 u1.2 threadsafe sometimes sim v "" ""
                sim2 u1.2 threadsafe default sim v "" ""
                """);
        assertThat(conf.entries()).extracting(DatConf.Entry::iaName).containsExactly("sim0", "sim2");
        assertThat(conf.problems()).extracting(DatConf.Problem::line).containsExactly(1, 3);
        assertThat(conf.isClean()).isFalse();
    }

    @Test
    void anEmptyFileHasNothing() {
        DatConf conf = DatConf.parse("dat.conf", "");
        assertThat(conf.entries()).isEmpty();
        assertThat(conf.isClean()).isTrue();
    }

    @Test
    void readsAFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("dat.conf");
        Files.writeString(file, "sim0 u1.2 threadsafe default sim v \"\" \"\"\nbad\n");
        DatConf conf = DatConf.read(file);
        assertThat(conf.source()).isEqualTo(file.toString());
        assertThat(conf.entries()).singleElement().extracting(DatConf.Entry::location).isEqualTo(file + ":1");
        assertThat(conf.problems()).singleElement().asString().startsWith(file + ":2: expected 8 fields");
    }

    @Test
    void namesTheLinesThatAreNotTextAndRejectsFilesTooLargeOrNotRegular(@TempDir Path dir) throws Exception {
        Path binary = dir.resolve("binary.conf");
        Files.write(binary, new byte[] {'a', ' ', (byte) 0xC3, (byte) 0x28, '\n'});
        assertThat(DatConf.read(binary).problems()).extracting(DatConf.Problem::toString)
                .containsExactly(binary + ":1: not UTF-8 text");
        // a comment in Latin-1 hides none of the lines around it
        Path mixed = dir.resolve("mixed.conf");
        byte[] latin1 = "# caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1);
        byte[] good = "sim0 u1.2 threadsafe default sim v \"\" \"\"\n".getBytes(StandardCharsets.UTF_8);
        Files.write(mixed, concat(good, latin1, good("sim1")));
        DatConf conf = DatConf.read(mixed);
        assertThat(conf.entries()).extracting(DatConf.Entry::iaName).containsExactly("sim0", "sim1");
        assertThat(conf.problems()).extracting(DatConf.Problem::toString).containsExactly(mixed + ":2: not UTF-8 text");
        Path fifo = dir.resolve("fifo.conf");
        if (new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0) {
            assertThat(DatConf.read(fifo).problems()).extracting(DatConf.Problem::toString)
                    .containsExactly(fifo + ": not a regular file");
        }
        Path large = dir.resolve("large.conf");
        Files.write(large, "#".repeat(DatConf.MAX_FILE_SIZE + 1).getBytes(StandardCharsets.US_ASCII));
        assertThat(DatConf.read(large).problems()).extracting(DatConf.Problem::toString)
                .containsExactly(large + ": larger than 1048576 bytes");
    }

    @Test
    void aMissingFileIsAnIOException(@TempDir Path dir) {
        assertThatThrownBy(() -> DatConf.read(dir.resolve("absent.conf"))).isInstanceOf(NoSuchFileException.class);
    }

    private static byte[] good(String iaName) {
        return (iaName + " u1.2 threadsafe default sim v \"\" \"\"\n").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
