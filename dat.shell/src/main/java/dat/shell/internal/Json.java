package dat.shell.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The JSON of the dat commands, written through Jackson: {@code providers --json}, {@code ia --json}
 * and {@code perf --json FILE}. Documents are built as trees, so that a field's name is what the
 * code says here, never what a Java accessor happens to be called.
 */
public final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {
    }

    /** @return a new empty object */
    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** @return a new empty array */
    public static ArrayNode array() {
        return JsonNodeFactory.instance.arrayNode();
    }

    /**
     * A number, or {@code null} where it is not finite (JSON has no NaN or infinity).
     *
     * @param node the object to set it in
     * @param name the field
     * @param value the number
     */
    public static void number(ObjectNode node, String name, double value) {
        if (Double.isFinite(value)) {
            node.put(name, value);
        } else {
            node.putNull(name);
        }
    }

    /**
     * @param document the document
     * @return it as indented text, ending with a line break
     */
    public static String text(Object document) {
        try {
            return MAPPER.writeValueAsString(document) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Writes a document into a file, as indented text.
     *
     * @param file the file
     * @param document the document
     * @throws IOException when the file cannot be written
     */
    public static void write(Path file, Object document) throws IOException {
        Files.writeString(file, text(document));
    }
}
