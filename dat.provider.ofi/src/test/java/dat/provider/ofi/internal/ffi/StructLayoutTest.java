package dat.provider.ofi.internal.ffi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
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
 * Checks every hand-written layout of {@link Structs}, and every constant of {@link Fi}, against
 * the installed libfabric headers: a C probe that prints {@code offsetof}/{@code sizeof} of every
 * named member, {@code sizeof}/{@code alignof} of every struct and the value of every constant is
 * generated from the Java side, compiled with gcc against {@code <rdma/fabric.h>} and its
 * companions, run, and compared. A member name that is not a C member fails the compilation, a
 * wrong offset, size or value fails the comparison.
 *
 * <p>Skipped (with a loud message) only where gcc or the headers are missing; {@code .ci/run}
 * installs them (libfabric-dev).
 */
class StructLayoutTest {

    private static final String HEADERS = """
            #include <stdio.h>
            #include <stddef.h>
            #include <stdalign.h>
            #include <poll.h>
            #include <signal.h>
            #include <sys/uio.h>
            #include <netinet/in.h>
            #include <rdma/fabric.h>
            #include <rdma/fi_domain.h>
            #include <rdma/fi_endpoint.h>
            #include <rdma/fi_cm.h>
            #include <rdma/fi_eq.h>
            #include <rdma/fi_rma.h>
            #include <rdma/fi_atomic.h>
            #include <rdma/fi_errno.h>
            #define S(T) printf(#T " SIZEOF %zu %zu\\n", sizeof(struct T), alignof(struct T))
            #define F(T, f) printf(#T "." #f " %zu %zu\\n", offsetof(struct T, f), sizeof(((struct T *)0)->f))
            #define C(J, V) printf("const." J " %lld 0\\n", (long long) (V))
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
            if (name != null) {
                path = prefix.isEmpty() ? name : prefix + "." + name;
                out.put(structName + "." + path, new long[] {base + memberOffset, member.byteSize()});
            }
            if (member instanceof GroupLayout nested) {
                walk(nested, structName, path, base + memberOffset, out);
            }
            offset += member.byteSize();
        }
    }

    /** The constants of {@link Fi}: their Java value, keyed {@code const.<C name>}. */
    static Map<String, long[]> javaConstants() throws IllegalAccessException {
        Map<String, long[]> constants = new LinkedHashMap<>();
        for (Field field : Fi.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && (field.getType() == int.class || field.getType() == long.class)) {
                constants.put("const." + cName(field.getName()), new long[] {((Number) field.get(null)).longValue(), 0});
            }
        }
        return constants;
    }

    private static String cName(String javaName) {
        return javaName.startsWith("VERSION_") ? "FI_VERSION(" + javaName.substring("VERSION_".length()).replace('_', ',') + ")"
                : "FI_" + javaName;
    }

    static String probeSource(List<StructLayout> structs, Map<String, long[]> constants) {
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
        for (String key : constants.keySet()) {
            String cName = key.substring("const.".length());
            c.append("  C(\"").append(cName).append("\", ").append(cName).append(");\n");
        }
        return c.append("  return 0;\n}\n").toString();
    }

    /** Compiles and runs the probe; the map of its output lines, or {@code null} when gcc or the headers are missing. */
    static Map<String, long[]> cMembers(List<StructLayout> structs, Map<String, long[]> constants, Path dir)
            throws IOException, InterruptedException {
        Path source = dir.resolve("layout_probe.c");
        Path binary = dir.resolve("layout_probe");
        Files.writeString(source, probeSource(structs, constants));
        if (!Files.exists(Path.of("/usr/include/rdma/fabric.h"))) {
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
            int last = line.lastIndexOf(' ');
            int middle = line.lastIndexOf(' ', last - 1);
            if (line.contains(" SIZEOF ")) {
                String[] words = line.trim().split(" ");
                members.put(words[0] + " SIZEOF", new long[] {Long.parseLong(words[2]), Long.parseLong(words[3])});
            } else if (middle > 0) {
                members.put(line.substring(0, middle),
                        new long[] {Long.parseLong(line.substring(middle + 1, last)), Long.parseLong(line.substring(last + 1).trim())});
            }
        }
        return members;
    }

    /** The mismatches between the Java side and C, one line each. */
    static List<String> compare(List<StructLayout> structs, Map<String, long[]> constants, Map<String, long[]> c) {
        Map<String, long[]> expected = new LinkedHashMap<>();
        structs.forEach(s -> expected.putAll(javaMembers(s)));
        expected.putAll(constants);
        List<String> mismatches = new ArrayList<>();
        expected.forEach((path, java) -> {
            long[] native_ = c.get(path);
            if (native_ == null) {
                mismatches.add("MISSING " + path);
            } else if (native_[0] != java[0] || native_[1] != java[1]) {
                mismatches.add("MISMATCH " + path + ": C=" + native_[0] + " " + native_[1] + " Java=" + java[0] + " " + java[1]);
            }
        });
        return mismatches;
    }

    @Test
    @Timeout(120)
    void everyLayoutAndConstantMatchesTheRealHeaders(@TempDir Path dir) throws Exception {
        Map<String, long[]> constants = javaConstants();
        Map<String, long[]> c = cMembers(Structs.ALL, constants, dir);
        if (c == null) {
            System.err.println("""
                    ************************************************************************************
                    * StructLayoutTest SKIPPED: gcc or <rdma/fabric.h> missing. The libfabric struct     *
                    * layouts are NOT verified. Install gcc and libfabric-dev.                           *
                    ************************************************************************************""");
        }
        assumeTrue(c != null, "gcc or the libfabric headers are missing: layouts not verified");
        List<String> mismatches = compare(Structs.ALL, constants, c);
        int checked = Structs.ALL.stream().mapToInt(s -> javaMembers(s).size()).sum() + constants.size();
        System.out.println("StructLayoutTest: " + (checked - mismatches.size()) + " members, sizes and constants match the"
                + " libfabric headers, " + mismatches.size() + " differ");
        assertThat(mismatches).as("layouts and constants that differ from the C headers").isEmpty();
        assertThat(checked).isGreaterThan(300);
    }

    @Test
    @Timeout(120)
    void aWrongOffsetIsCaught(@TempDir Path dir) throws Exception {
        // fi_msg with desc and msg_iov swapped: the kind of slip the test exists for
        StructLayout swapped = MemoryLayout.structLayout(
                java.lang.foreign.ValueLayout.ADDRESS.withName("desc"),
                java.lang.foreign.ValueLayout.ADDRESS.withName("msg_iov"),
                java.lang.foreign.ValueLayout.JAVA_LONG.withName("iov_count"),
                java.lang.foreign.ValueLayout.JAVA_LONG.withName("addr"),
                java.lang.foreign.ValueLayout.ADDRESS.withName("context"),
                java.lang.foreign.ValueLayout.JAVA_LONG.withName("data")).withName("fi_msg");
        Map<String, long[]> c = cMembers(List.of(swapped), Map.of("const.FI_ECANCELED", new long[] {124, 0}), dir);
        assumeTrue(c != null, "gcc or the libfabric headers are missing");
        assertThat(compare(List.of(swapped), Map.of("const.FI_ECANCELED", new long[] {124, 0}), c))
                .containsExactlyInAnyOrder("MISMATCH fi_msg.desc: C=8 8 Java=0 8", "MISMATCH fi_msg.msg_iov: C=0 8 Java=8 8",
                        "MISMATCH const.FI_ECANCELED: C=125 0 Java=124 0");
    }
}
