package dat.shell.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The exit status of the dat application, for the {@code ./dat} launcher: bnd's launcher exits
 * with 117 whenever the framework stops itself, so the status goes through a file the launcher
 * names in the framework property {@value #FILE} and reads afterwards. The first status written
 * stands: {@code exit 3} run as a one-shot command keeps its 3 when the command's own end would
 * say 0.
 */
final class ExitStatus {

    /** The framework property naming the status file. */
    static final String FILE = "dat.exitfile";

    private ExitStatus() {
    }

    /**
     * Writes the status unless one was written already.
     *
     * @param file the file, or {@code null} when the launcher named none
     * @param status the status
     */
    static synchronized void write(String file, int status) {
        if (file == null) {
            return;
        }
        Path path = Path.of(file);
        try {
            if (Files.exists(path) && Files.size(path) > 0) {
                return;
            }
            Files.writeString(path, Integer.toString(status), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            System.err.println("dat: cannot write the exit status to " + file + ": " + e.getMessage());
        }
    }
}
