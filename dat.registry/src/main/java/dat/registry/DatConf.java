package dat.registry;

import dat.api.ProviderInfo;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A parsed static registry file, {@code dat.conf(4)}: its good entries and its bad lines.
 *
 * <p>Each entry is one line of eight fields separated by blanks (spaces or tabs):
 * <pre>
 * ia_name api_version threadsafe|nonthreadsafe default|nondefault provider provider_version ia_params platform_params
 * sim0    u1.2        threadsafe               default            sim      dat.1.0          ""        ""
 * </pre>
 * as in Solaris' and OFED's {@code dat.conf}, except that the fifth field names a provider by its
 * {@code dat.provider.name} instead of a C library path. The rules:
 * <ul>
 * <li>{@code #} outside quotes starts a comment that runs to the end of the line; blank lines are
 *     ignored;</li>
 * <li>a field may be enclosed in double quotes, which may contain blanks and {@code #}; {@code ""}
 *     is an empty field;</li>
 * <li>a backslash escapes the next character, inside or outside quotes: {@code \\}, {@code \"},
 *     {@code \#}, a space or a tab; any other escape is an error;</li>
 * <li>a backslash at the very end of a line (outside quotes and comments) continues the entry on
 *     the next line, as in the manual page's synopsis;</li>
 * <li>{@code api_version} is {@code u<major>.<minor>}, for example {@code u1.2}; kDAPL
 *     ({@code k1.2}) entries are not supported;</li>
 * <li>two entries with the same IA name, API version and thread safety are an error: the first
 *     one counts;</li>
 * <li>the file is UTF-8 (ASCII in practice), a byte order mark at its start is ignored, and it
 *     is at most {@link #MAX_FILE_SIZE} bytes.</li>
 * </ul>
 *
 * <p>Unlike the C registries, which skip a malformed line in silence, every bad line is a
 * {@link Problem} with the file, the line number and the reason; the good lines still count. This
 * class only parses: it neither looks for providers nor opens anything. It is what the registry
 * reads and what the {@code dat:checkconf} command reports.
 *
 * @param source the name the problems carry, usually the file's path
 * @param entries the good entries, in file order
 * @param problems the bad lines, in file order
 */
@ProviderType
public record DatConf(String source, List<Entry> entries, List<Problem> problems) {

    /** The largest static registry file read: 1 MiB. */
    public static final int MAX_FILE_SIZE = 1 << 20;

    /** The number of fields of an entry. */
    public static final int FIELDS = 8;

    /** Copies the lists. */
    public DatConf {
        Objects.requireNonNull(source, "source");
        entries = List.copyOf(entries);
        problems = List.copyOf(problems);
    }

    /**
     * One good entry of the static registry.
     *
     * @param source the file it comes from
     * @param line the line number where it starts (1-based)
     * @param iaName the IA name ({@code ia_name})
     * @param versionMajor the DAT API major version ({@code api_version})
     * @param versionMinor the DAT API minor version
     * @param threadSafe {@code threadsafe} or {@code nonthreadsafe}
     * @param isDefault {@code default} or {@code nondefault}
     * @param provider the provider's {@code dat.provider.name} (the C {@code lib_path} field)
     * @param providerVersion the provider version field, for example {@code dat.1.0}
     * @param iaParams the provider's instance data for this IA ({@code ia_params})
     * @param platformParams the platform-specific string ({@code platform_params})
     */
    public record Entry(String source, int line, String iaName, int versionMajor, int versionMinor, boolean threadSafe,
            boolean isDefault, String provider, String providerVersion, String iaParams, String platformParams) {

        /**
         * The IA name, version and thread safety of this entry.
         *
         * @return the provider information
         */
        public ProviderInfo info() {
            return new ProviderInfo(iaName, versionMajor, versionMinor, threadSafe);
        }

        /**
         * The API version as the file writes it.
         *
         * @return for example {@code "u1.2"}
         */
        public String apiVersion() {
            return "u" + versionMajor + "." + versionMinor;
        }

        /**
         * Where the entry is.
         *
         * @return {@code "file:line"}
         */
        public String location() {
            return source + ":" + line;
        }
    }

    /**
     * A bad line: the file, the line and the reason.
     *
     * @param source the file
     * @param line the line number (1-based), or 0 for a problem with the whole file
     * @param reason why the line is bad
     */
    public record Problem(String source, int line, String reason) {

        /** @return {@code "file:line: reason"}, or {@code "file: reason"} for the whole file */
        @Override
        public String toString() {
            return line > 0 ? source + ":" + line + ": " + reason : source + ": " + reason;
        }
    }

    /**
     * Whether the file has no bad line.
     *
     * @return {@code true} when there is no problem
     */
    public boolean isClean() {
        return problems.isEmpty();
    }

    /**
     * Reads and parses a static registry file.
     *
     * @param file the file
     * @return the entries and problems; a line that is not UTF-8 is a problem of its own, and the
     *     other lines still count; a file larger than {@link #MAX_FILE_SIZE}, or one that is not a
     *     regular file (a FIFO would block the reader), gives one problem and no entry
     * @throws IOException when the file cannot be read, for example
     *     {@link java.nio.file.NoSuchFileException}
     */
    public static DatConf read(Path file) throws IOException {
        String source = file.toString();
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            return new DatConf(source, List.of(), List.of(new Problem(source, 0, "not a regular file")));
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_FILE_SIZE + 1);
        }
        if (bytes.length > MAX_FILE_SIZE) {
            return new DatConf(source, List.of(), List.of(new Problem(source, 0, "larger than " + MAX_FILE_SIZE + " bytes")));
        }
        // line by line, so that one line in another encoding is named and hides no other
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        StringBuilder text = new StringBuilder(bytes.length);
        List<Problem> undecodable = new ArrayList<>();
        int line = 1;
        for (int start = 0; start <= bytes.length; line++) {
            int end = start;
            while (end < bytes.length && bytes[end] != '\n') {
                end++;
            }
            try {
                text.append(utf8.decode(ByteBuffer.wrap(bytes, start, end - start))); // resets the decoder first
            } catch (CharacterCodingException e) {
                undecodable.add(new Problem(source, line, "not UTF-8 text"));
            }
            if (end < bytes.length) {
                text.append('\n');
            }
            start = end + 1;
        }
        DatConf parsed = parse(source, text.toString());
        if (undecodable.isEmpty()) {
            return parsed;
        }
        List<Problem> problems = new ArrayList<>(parsed.problems());
        problems.addAll(undecodable);
        problems.sort(java.util.Comparator.comparingInt(Problem::line));
        return new DatConf(source, parsed.entries(), problems);
    }

    /**
     * Parses the text of a static registry.
     *
     * @param source the name the entries and problems carry, usually the file's path
     * @param text the file's content
     * @return the entries and problems
     */
    public static DatConf parse(String source, String text) {
        Objects.requireNonNull(source, "source");
        // a byte order mark some editors write is no part of the first IA name
        String[] lines = (text.startsWith("\uFEFF") ? text.substring(1) : text).split("\n", -1);
        List<Entry> entries = new ArrayList<>();
        List<Problem> problems = new ArrayList<>();
        Map<ProviderInfo, Entry> seen = new HashMap<>();
        int index = 0;
        while (index < lines.length) {
            Logical logical = tokenize(lines, index);
            int firstLine = index + 1;
            index = logical.nextIndex();
            if (logical.error() != null) {
                problems.add(new Problem(source, logical.errorLine(), logical.error()));
                continue;
            }
            List<String> fields = logical.fields();
            if (fields.isEmpty()) {
                continue; // blank or comment
            }
            try {
                Entry entry = entry(source, firstLine, fields);
                Entry first = seen.putIfAbsent(entry.info(), entry);
                if (first != null) {
                    throw new BadLine("duplicate entry for IA '" + entry.iaName() + "' " + entry.apiVersion() + " "
                            + threadSafety(entry.threadSafe()) + ": first at line " + first.line());
                }
                entries.add(entry);
            } catch (BadLine bad) {
                problems.add(new Problem(source, firstLine, bad.getMessage()));
            }
        }
        return new DatConf(source, entries, problems);
    }

    private static String threadSafety(boolean threadSafe) {
        return threadSafe ? "threadsafe" : "nonthreadsafe";
    }

    private static Entry entry(String source, int line, List<String> fields) {
        if (fields.size() != FIELDS) {
            throw new BadLine("expected " + FIELDS + " fields but found " + fields.size()
                    + " (ia_name api_version threadsafe|nonthreadsafe default|nondefault provider provider_version"
                    + " ia_params platform_params)");
        }
        String iaName = fields.get(0);
        if (iaName.isEmpty()) {
            throw new BadLine("empty IA name");
        }
        if (iaName.length() > 255) {
            throw new BadLine("IA name longer than 255 characters");
        }
        if (iaName.startsWith("RO_AWARE_")) {
            throw new BadLine("IA name '" + iaName + "' starts with RO_AWARE_, which dat_ia_open removes before matching");
        }
        int[] version = apiVersion(fields.get(1));
        boolean threadSafe = switch (fields.get(2)) {
            case "threadsafe" -> true;
            case "nonthreadsafe" -> false;
            default -> throw new BadLine("bad thread safety '" + fields.get(2) + "': expected threadsafe or nonthreadsafe");
        };
        boolean isDefault = switch (fields.get(3)) {
            case "default" -> true;
            case "nondefault" -> false;
            default -> throw new BadLine("bad default field '" + fields.get(3) + "': expected default or nondefault");
        };
        String provider = fields.get(4);
        if (provider.isEmpty()) {
            throw new BadLine("empty provider name");
        }
        return new Entry(source, line, iaName, version[0], version[1], threadSafe, isDefault, provider, fields.get(5),
                fields.get(6), fields.get(7));
    }

    private static int[] apiVersion(String field) {
        if (field.startsWith("k")) {
            throw new BadLine("kDAPL API version '" + field + "': only uDAPL entries (u<major>.<minor>) are supported");
        }
        int dot = field.indexOf('.');
        if (!field.startsWith("u") || dot < 2 || dot == field.length() - 1
                || !digits(field, 1, dot) || !digits(field, dot + 1, field.length())) {
            throw new BadLine("bad API version '" + field + "': expected u<major>.<minor>, for example u1.2");
        }
        try {
            return new int[] {Integer.parseInt(field, 1, dot, 10), Integer.parseInt(field, dot + 1, field.length(), 10)};
        } catch (NumberFormatException e) {
            throw new BadLine("bad API version '" + field + "': expected u<major>.<minor>, for example u1.2");
        }
    }

    private static boolean digits(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** One logical line: its fields, or the first lexical error, and the index of the next line. */
    private record Logical(List<String> fields, String error, int errorLine, int nextIndex) {
    }

    /**
     * Splits the logical line that starts at {@code lines[index]} into fields, following
     * backslash continuations.
     */
    private static Logical tokenize(String[] lines, int index) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = null; // null between fields
        boolean quoted = false;
        boolean closedQuote = false; // just after a closing quote: a blank must follow
        int lineIndex = index;
        while (true) {
            String line = stripCr(lines[lineIndex]);
            int lineNumber = lineIndex + 1;
            boolean continued = false;
            int length = line.length();
            for (int i = 0; i < length; i++) {
                char c = line.charAt(i);
                int column = i + 1;
                if (quoted) {
                    if (c == '"') {
                        quoted = false;
                        closedQuote = true;
                    } else if (c == '\\') {
                        if (i + 1 == length) {
                            return error(lines, "unterminated quoted field (a quoted field cannot span lines)", lineNumber, lineIndex);
                        }
                        char next = line.charAt(++i);
                        if (!isEscapable(next)) {
                            return error(lines, unknownEscape(next, column), lineNumber, lineIndex);
                        }
                        field.append(next);
                    } else {
                        field.append(c);
                    }
                    continue;
                }
                if (c == ' ' || c == '\t') {
                    if (field != null) {
                        fields.add(field.toString());
                        field = null;
                    }
                    closedQuote = false;
                    continue;
                }
                if (c == '#') {
                    break; // a comment runs to the end of the line and is never continued
                }
                if (closedQuote) {
                    return error(lines, "text after a closing quote at column " + column + " (separate fields with a blank)",
                            lineNumber, lineIndex);
                }
                if (c == '"') {
                    if (field != null) {
                        return error(lines, "quote inside a field at column " + column + " (quote the whole field)", lineNumber,
                                lineIndex);
                    }
                    field = new StringBuilder();
                    quoted = true;
                    continue;
                }
                if (c == '\\') {
                    if (i + 1 == length) {
                        continued = true;
                        break;
                    }
                    char next = line.charAt(++i);
                    if (!isEscapable(next)) {
                        return error(lines, unknownEscape(next, column), lineNumber, lineIndex);
                    }
                    c = next;
                }
                if (field == null) {
                    field = new StringBuilder();
                }
                field.append(c);
            }
            if (quoted) {
                return error(lines, "unterminated quoted field (a quoted field cannot span lines)", lineNumber, lineIndex);
            }
            if (!continued) {
                if (field != null) {
                    fields.add(field.toString());
                }
                return new Logical(fields, null, 0, lineIndex + 1);
            }
            // a continuation separates fields like a blank
            if (field != null) {
                fields.add(field.toString());
                field = null;
            }
            closedQuote = false;
            if (lineIndex + 1 == lines.length || lineIndex + 2 == lines.length && lines[lineIndex + 1].isEmpty()) {
                return error(lines, "the file ends after a line continuation ('\\' at the end of the line)", lineNumber, lines.length - 1);
            }
            lineIndex++;
        }
    }

    /** A lexical error; the rest of the entry (its continuation lines) is skipped with it. */
    private static Logical error(String[] lines, String reason, int lineNumber, int lastIndex) {
        int next = lastIndex + 1;
        String line = stripCr(lines[lastIndex]);
        while (next < lines.length && continues(line)) {
            line = stripCr(lines[next]);
            next++;
        }
        return new Logical(List.of(), reason, lineNumber, next);
    }

    /**
     * Whether a line ends with a continuation as {@link #tokenize} reads it: a backslash at the
     * end, outside quotes and comments. Escapes are skipped without being checked, since the line
     * is already known to be bad; a line starts outside quotes, as a quoted field cannot span lines.
     */
    private static boolean continues(String line) {
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\') {
                if (i + 1 == line.length()) {
                    return !quoted;
                }
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == '#' && !quoted) {
                return false;
            }
        }
        return false;
    }

    private static boolean isEscapable(char c) {
        return c == '\\' || c == '"' || c == '#' || c == ' ' || c == '\t';
    }

    private static String unknownEscape(char c, int column) {
        return "unknown escape '\\" + c + "' at column " + column + " (escape only \\\\, \\\", \\#, space and tab)";
    }

    private static String stripCr(String line) {
        return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    }

    /** A bad line's reason, thrown inside the parser only. */
    private static final class BadLine extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadLine(String reason) {
            super(reason, null, false, false);
        }
    }
}
