package dat.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The fenced code blocks of a Markdown file, as they are printed. */
final class Markdown {

    /** One fenced block: its info string ({@code java}, {@code xml}, {@code sh}) and its text. */
    record Block(String language, String text) {
    }

    private Markdown() {
    }

    /**
     * The fenced blocks under a heading, up to the next heading of the same or a higher level.
     *
     * @param file the Markdown file
     * @param heading the heading line, e.g. {@code ### Plain Java (no OSGi)}
     * @return the blocks, in order
     * @throws IOException when the file cannot be read
     */
    static List<Block> blocks(Path file, String heading) throws IOException {
        List<String> lines = Files.readAllLines(file);
        int start = lines.indexOf(heading);
        if (start < 0) {
            throw new AssertionError(file + " has no heading '" + heading + "'");
        }
        int level = heading.indexOf(' ');
        List<Block> blocks = new ArrayList<>();
        String language = null;
        StringBuilder text = new StringBuilder();
        for (String line : lines.subList(start + 1, lines.size())) {
            if (language == null) {
                if (line.startsWith("#") && line.indexOf(' ') > 0 && line.indexOf(' ') <= level) {
                    break;
                }
                if (line.startsWith("```")) {
                    language = line.substring(3).strip();
                    text.setLength(0);
                }
            } else if (line.equals("```")) {
                blocks.add(new Block(language, text.toString()));
                language = null;
            } else {
                text.append(line).append('\n');
            }
        }
        return blocks;
    }

    /**
     * The one block of a language under a heading.
     *
     * @param file the Markdown file
     * @param heading the heading line
     * @param language the block's info string
     * @return its text
     * @throws IOException when the file cannot be read
     */
    static String block(Path file, String heading, String language) throws IOException {
        List<Block> matching = blocks(file, heading).stream().filter(b -> b.language().equals(language)).toList();
        if (matching.size() != 1) {
            throw new AssertionError(file + " has " + matching.size() + " ```" + language + " blocks under '" + heading + "', not one");
        }
        return matching.getFirst().text();
    }
}
