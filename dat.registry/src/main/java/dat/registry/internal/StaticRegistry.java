package dat.registry.internal;

import dat.registry.DatConf;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The static registry in use: its path and what was read from it, or why it could not be read.
 *
 * @param path the configured path, or {@code ""} when none is configured
 * @param conf what was read, or {@code null} when nothing is configured or it could not be read
 * @param readError why it could not be read, or {@code null}
 */
record StaticRegistry(String path, DatConf conf, String readError) {

    /** No static registry configured. */
    static final StaticRegistry NONE = new StaticRegistry("", null, null);

    /**
     * Reads the static registry at a path.
     *
     * @param path the file; {@code null} or blank for none
     * @return the static registry, with its read error if it cannot be read
     */
    static StaticRegistry load(String path) {
        if (path == null || path.isBlank()) {
            return NONE;
        }
        try {
            return new StaticRegistry(path, DatConf.read(Path.of(path)), null);
        } catch (NoSuchFileException e) {
            return new StaticRegistry(path, null, "no such file");
        } catch (IOException | RuntimeException e) {
            return new StaticRegistry(path, null, "cannot read: " + e);
        }
    }

    /** Whether a static registry is configured but could not be read (the C "missing" registry). */
    boolean missing() {
        return !path.isEmpty() && conf == null;
    }

    List<DatConf.Entry> entries() {
        return conf == null ? List.of() : conf.entries();
    }

    /** The bad lines, and the read error, as {@code "file:line: reason"}. */
    List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (readError != null) {
            problems.add(path + ": " + readError);
        }
        if (conf != null) {
            conf.problems().forEach(problem -> problems.add(problem.toString()));
        }
        return problems;
    }
}
