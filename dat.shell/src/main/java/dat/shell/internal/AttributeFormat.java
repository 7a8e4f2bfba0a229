package dat.shell.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dat.api.CompletionFlags;
import dat.api.EvdFlags;
import dat.api.EvdParamMask;
import dat.api.EvdParams;
import dat.api.EvdState;
import dat.api.EventDispatcher;
import dat.api.Qos;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * How {@code dat ia} shows the attributes of {@code dat_ia_query}: or-ed flags by their constants'
 * names, the largest {@code int} or {@code long} of a limit as {@code unlimited}, the stream pairs
 * of {@code evdStreamMerging}, addresses as {@code host:port}. The JSON keeps the numbers as they
 * are and gives flags as arrays of names.
 */
final class AttributeFormat {

    /** The event streams in the order of {@code evdStreamMerging}'s rows and columns. */
    private static final String[] STREAMS = {"software", "CR", "DTO", "connection", "RMR bind", "async"};
    private static final long ALL_PAIRS = (1L << (STREAMS.length * STREAMS.length)) - 1;

    private AttributeFormat() {
    }

    /** One attribute: its name, its text, its JSON value. */
    record Attribute(String name, String text, JsonNode json) {
    }

    /** @return the components of an attributes record, readable */
    static List<Attribute> attributes(Record attributes) {
        List<Attribute> result = new ArrayList<>();
        for (RecordComponent component : attributes.getClass().getRecordComponents()) {
            Object value;
            try {
                value = component.getAccessor().invoke(attributes);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot read the attribute " + component.getName() + ": " + e.getMessage(), e);
            }
            result.add(attribute(component.getName(), value));
        }
        return result;
    }

    static Attribute attribute(String name, Object value) {
        JsonNodeFactory json = JsonNodeFactory.instance;
        return switch (name) {
            case "qosSupported" -> flags(name, (Integer) value, Qos.class);
            case "completionFlagsSupported" -> flags(name, (Integer) value, CompletionFlags.class);
            case "evdStreamMerging" -> streamMerging(name, (Long) value);
            default -> {
                if (value instanceof Integer n && name.startsWith("max") && n == Integer.MAX_VALUE
                        || value instanceof Long l && name.startsWith("max") && l == Long.MAX_VALUE) {
                    yield new Attribute(name, "unlimited", json.numberNode(((Number) value).longValue()));
                }
                yield new Attribute(name, text(value), json(value));
            }
        };
    }

    /** An or-ed set of flags: the names of its constants, the zero constant's name when none is set. */
    private static Attribute flags(String name, int value, Class<?> constants) {
        List<String> names = flagNames(value, constants);
        ArrayNode array = Json.array();
        names.forEach(array::add);
        return new Attribute(name, String.join(", ", names), array);
    }

    /**
     * @param value or-ed flags
     * @param constants the class whose {@code public static final int} single-bit constants name them
     * @return the names of the bits set (an unknown bit as hex), or the zero constant's name
     */
    static List<String> flagNames(int value, Class<?> constants) {
        List<String> names = new ArrayList<>();
        String zero = null;
        int known = 0;
        for (Field field : constants.getFields()) {
            int modifiers = field.getModifiers();
            if (field.getType() != int.class || !Modifier.isStatic(modifiers) || !Modifier.isFinal(modifiers)) {
                continue;
            }
            int bit;
            try {
                bit = field.getInt(null);
            } catch (IllegalAccessException e) {
                continue;
            }
            if (bit == 0) {
                zero = field.getName();
            } else if (Integer.bitCount(bit) == 1 && (value & bit) != 0) {
                names.add(field.getName());
                known |= bit;
            }
        }
        int unknown = value & ~known;
        if (unknown != 0) {
            names.add(String.format(Locale.ROOT, "0x%x", unknown));
        }
        if (names.isEmpty()) {
            names.add(zero != null ? zero : "none");
        }
        return names;
    }

    /** Bit {@code 6 * row + column}: streams {@code row} and {@code column} may feed one EVD. */
    private static Attribute streamMerging(String name, long value) {
        List<String> pairs = new ArrayList<>();
        for (int row = 0; row < STREAMS.length; row++) {
            for (int column = row + 1; column < STREAMS.length; column++) {
                if ((value >>> (STREAMS.length * row + column) & 1) != 0 || (value >>> (STREAMS.length * column + row) & 1) != 0) {
                    pairs.add(STREAMS[row] + "+" + STREAMS[column]);
                }
            }
        }
        ArrayNode array = Json.array();
        pairs.forEach(array::add);
        String text;
        if ((value & ALL_PAIRS) == ALL_PAIRS) {
            text = "any (all of " + String.join(", ", STREAMS) + " may feed one EVD)";
        } else if (pairs.isEmpty()) {
            text = "none (each event stream needs an EVD of its own)";
        } else {
            text = String.join(", ", pairs);
        }
        return new Attribute(name, text, array);
    }

    /** @return the IA's async EVD, readable: its queue length and state, or what the marker says */
    static String asyncEvd(EventDispatcher evd) {
        if (evd == null) {
            return "none";
        }
        if (evd == EventDispatcher.OUT_OF_SCOPE || evd == EventDispatcher.ASYNC_EXISTS) {
            return evd.toString();
        }
        EvdParams params = evd.query(EvdParamMask.EVD_QLEN | EvdParamMask.EVD_STATE | EvdParamMask.EVD_FLAGS);
        return "queue length " + params.qlen() + ", " + String.join(", ", flagNames(params.state(), EvdState.class)).toLowerCase(Locale.ROOT)
                + ", streams " + String.join(", ", flagNames(params.flags(), EvdFlags.class));
    }

    /** @return the async EVD as JSON */
    static ObjectNode asyncEvdJson(EventDispatcher evd) {
        ObjectNode node = Json.object();
        if (evd == null || evd == EventDispatcher.OUT_OF_SCOPE || evd == EventDispatcher.ASYNC_EXISTS) {
            node.put("handle", evd == null ? "none" : evd.toString());
            return node;
        }
        EvdParams params = evd.query(EvdParamMask.EVD_QLEN | EvdParamMask.EVD_STATE | EvdParamMask.EVD_FLAGS);
        node.put("qlen", params.qlen());
        ArrayNode state = node.putArray("state");
        flagNames(params.state(), EvdState.class).forEach(state::add);
        ArrayNode flags = node.putArray("flags");
        flagNames(params.flags(), EvdFlags.class).forEach(flags::add);
        return node;
    }

    private static String text(Object value) {
        if (value instanceof Map<?, ?> map) {
            return map.isEmpty() ? "{}" : sorted(map).toString();
        }
        if (value instanceof Collection<?> collection) {
            return collection.isEmpty() ? "none" : collection.stream().map(String::valueOf).sorted().collect(Collectors.joining(", "));
        }
        if (value instanceof InetSocketAddress address) {
            return address(address);
        }
        return String.valueOf(value);
    }

    private static JsonNode json(Object value) {
        JsonNodeFactory json = JsonNodeFactory.instance;
        return switch (value) {
            case null -> json.nullNode();
            case Integer n -> json.numberNode(n);
            case Long n -> json.numberNode(n);
            case Boolean b -> json.booleanNode(b);
            case InetSocketAddress address -> json.textNode(address(address));
            case Map<?, ?> map -> {
                ObjectNode node = Json.object();
                sorted(map).forEach(node::put);
                yield node;
            }
            case Collection<?> collection -> {
                ArrayNode array = Json.array();
                collection.stream().map(String::valueOf).sorted().forEach(array::add);
                yield array;
            }
            default -> json.textNode(String.valueOf(value));
        };
    }

    private static Map<String, String> sorted(Map<?, ?> map) {
        return new TreeMap<>(map.entrySet().stream().collect(Collectors.toMap(e -> String.valueOf(e.getKey()),
                e -> String.valueOf(e.getValue()))));
    }

    /** @return {@code host:port}, the host as its literal address where it has one */
    static String address(InetSocketAddress address) {
        String host = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}
