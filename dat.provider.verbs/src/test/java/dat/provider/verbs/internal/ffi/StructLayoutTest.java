package dat.provider.verbs.internal.ffi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks every hand-written layout of {@link Structs} against the real C headers: a C probe that
 * prints {@code offsetof}/{@code sizeof} of every named member (and {@code sizeof}/{@code alignof}
 * of every struct) is generated from the Java layouts, compiled with gcc against
 * {@code <infiniband/verbs.h>} and {@code <rdma/rdma_cma.h>}, run, and compared. A member name that
 * is not a C member fails the compilation, a wrong offset or size fails the comparison.
 *
 * <p>Skipped (with a loud message) only where gcc or the headers are missing; {@code .ci/run}
 * installs them (libibverbs-dev, librdmacm-dev).
 */
class StructLayoutTest {

    private static final String HEADERS = """
            #include <stdio.h>
            #include <stddef.h>
            #include <stdalign.h>
            #include <poll.h>
            #include <netinet/in.h>
            #include <infiniband/verbs.h>
            #include <rdma/rdma_cma.h>
            #define S(T) printf(#T " SIZEOF %zu %zu\\n", sizeof(struct T), alignof(struct T))
            #define F(T, f) printf(#T "." #f " %zu %zu\\n", offsetof(struct T, f), sizeof(((struct T *)0)->f))
            int main(void) {
            """;

    /** The member paths of a layout, as C spells them, with their Java offset and size. */
    static Map<String, long[]> javaMembers(StructLayout struct) {
        Map<String, long[]> members = new LinkedHashMap<>();
        members.put(struct.name().orElseThrow() + " SIZEOF", new long[] {struct.byteSize(), struct.byteAlignment()});
        walk(struct, struct.name().orElseThrow(), "", 0, members);
        return members;
    }

    private static void walk(GroupLayout group, String structName, String prefix, long base, Map<String, long[]> out) {
        long offset = 0;
        for (MemoryLayout member : group.memberLayouts()) {
            long memberOffset = group instanceof StructLayout ? offset : 0;
            String name = member.name().orElse(null);
            String path = prefix;
            if (name != null && !name.startsWith("anon$")) {
                path = prefix.isEmpty() ? name : prefix + "." + name;
                out.put(structName + "." + path, new long[] {base + memberOffset, member.byteSize()});
            }
            if (member instanceof GroupLayout nested) {
                walk(nested, structName, path, base + memberOffset, out);
            }
            offset += member.byteSize();
        }
    }

    static String probeSource(List<StructLayout> structs) {
        StringBuilder c = new StringBuilder(HEADERS);
        for (StructLayout struct : structs) {
            String name = struct.name().orElseThrow();
            c.append("  S(").append(name).append(");\n");
            for (String key : javaMembers(struct).keySet()) {
                if (!key.endsWith(" SIZEOF")) {
                    c.append("  F(").append(name).append(", ").append(key.substring(name.length() + 1)).append(");\n");
                }
            }
        }
        return c.append("  return 0;\n}\n").toString();
    }

    /** Compiles and runs the probe; the map of its output lines, or {@code null} when gcc or the headers are missing. */
    static Map<String, long[]> cMembers(List<StructLayout> structs, Path dir) throws IOException, InterruptedException {
        Path source = dir.resolve("layout_probe.c");
        Path binary = dir.resolve("layout_probe");
        Files.writeString(source, probeSource(structs));
        if (!Files.exists(Path.of("/usr/include/infiniband/verbs.h")) || !Files.exists(Path.of("/usr/include/rdma/rdma_cma.h"))) {
            return null;
        }
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-o", binary.toString(), source.toString()).redirectErrorStream(true).start();
        } catch (IOException noGcc) {
            return null;
        }
        String compilerOutput = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(gcc.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(gcc.exitValue()).as("gcc on the generated probe:%n%s", compilerOutput).isZero();
        Process probe = new ProcessBuilder(binary.toString()).redirectErrorStream(true).start();
        String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(probe.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(probe.exitValue()).isZero();
        Map<String, long[]> members = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            String[] words = line.trim().split(" ");
            if (words.length == 4 && words[1].equals("SIZEOF")) {
                members.put(words[0] + " SIZEOF", new long[] {Long.parseLong(words[2]), Long.parseLong(words[3])});
            } else if (words.length == 3) {
                members.put(words[0], new long[] {Long.parseLong(words[1]), Long.parseLong(words[2])});
            }
        }
        return members;
    }

    /** The mismatches between the Java layouts and C, one line each. */
    static List<String> compare(List<StructLayout> structs, Map<String, long[]> c) {
        List<String> mismatches = new ArrayList<>();
        for (StructLayout struct : structs) {
            javaMembers(struct).forEach((path, java) -> {
                long[] native_ = c.get(path);
                if (native_ == null) {
                    mismatches.add("MISSING " + path);
                } else if (native_[0] != java[0] || native_[1] != java[1]) {
                    mismatches.add("MISMATCH " + path + ": C=" + native_[0] + " " + native_[1] + " Java=" + java[0] + " " + java[1]);
                }
            });
        }
        return mismatches;
    }

    @Test
    @Timeout(120)
    void everyLayoutMatchesTheRealHeaders(@TempDir Path dir) throws Exception {
        Map<String, long[]> c = cMembers(Structs.ALL, dir);
        if (c == null) {
            System.err.println("""
                    ************************************************************************************
                    * StructLayoutTest SKIPPED: gcc or <infiniband/verbs.h>/<rdma/rdma_cma.h> missing.   *
                    * The verbs struct layouts are NOT verified. Install gcc libibverbs-dev librdmacm-dev. *
                    ************************************************************************************""");
        }
        assumeTrue(c != null, "gcc or the rdma-core headers are missing: layouts not verified");
        List<String> mismatches = compare(Structs.ALL, c);
        int checked = Structs.ALL.stream().mapToInt(s -> javaMembers(s).size()).sum();
        System.out.println("StructLayoutTest: " + (checked - mismatches.size()) + " members and sizes match the C headers, "
                + mismatches.size() + " differ");
        assertThat(mismatches).as("layouts that differ from the C headers").isEmpty();
        assertThat(checked).isGreaterThan(250);
    }

    @Test
    @Timeout(120)
    void aWrongOffsetIsCaught(@TempDir Path dir) throws Exception {
        // ibv_send_wr with opcode and send_flags swapped: the kind of slip the test exists for
        StructLayout swapped = MemoryLayout.structLayout(
                java.lang.foreign.ValueLayout.JAVA_LONG.withName("wr_id"),
                java.lang.foreign.ValueLayout.ADDRESS.withName("next"),
                java.lang.foreign.ValueLayout.ADDRESS.withName("sg_list"),
                java.lang.foreign.ValueLayout.JAVA_INT.withName("num_sge"),
                java.lang.foreign.ValueLayout.JAVA_INT.withName("send_flags"),
                java.lang.foreign.ValueLayout.JAVA_INT.withName("opcode"),
                MemoryLayout.paddingLayout(128 - 36)).withName("ibv_send_wr");
        Map<String, long[]> c = cMembers(List.of(swapped), dir);
        assumeTrue(c != null, "gcc or the rdma-core headers are missing");
        assertThat(compare(List.of(swapped), c))
                .containsExactlyInAnyOrder("MISMATCH ibv_send_wr.send_flags: C=32 4 Java=28 4",
                        "MISMATCH ibv_send_wr.opcode: C=28 4 Java=32 4");
    }
}
