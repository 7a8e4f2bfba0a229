package dat.registry.internal;

import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * An LDAP filter (RFC 1960, with the matching rules of OSGi Core's {@code Filter}) over a map of
 * properties, so that provider selection works the same inside OSGi and on a plain classpath,
 * where no framework filter exists.
 *
 * <p>Supported: {@code &}, {@code |}, {@code !}, {@code =} (with {@code *} substrings),
 * {@code =*} (presence), {@code ~=} (case- and blank-insensitive), {@code >=}, {@code <=}. Keys
 * match case-insensitively. A value compares according to the property's type: numbers
 * numerically, {@code Boolean} by {@link Boolean#parseBoolean}, strings as strings; arrays and
 * collections match when one element does. A backslash escapes the next character of a value.
 *
 * <p>It does not support OSGi {@code Version} comparison or the {@code valueOf}/constructor
 * conversion of arbitrary {@code Comparable} types: other values compare by their
 * {@code toString()}.
 */
final class LdapFilter {

    private sealed interface Node permits And, Or, Not, Present, Compare, Substring {
        boolean matches(Map<String, ?> properties);
    }

    private record And(List<Node> operands) implements Node {
        @Override
        public boolean matches(Map<String, ?> properties) {
            for (Node operand : operands) {
                if (!operand.matches(properties)) {
                    return false;
                }
            }
            return true;
        }
    }

    private record Or(List<Node> operands) implements Node {
        @Override
        public boolean matches(Map<String, ?> properties) {
            for (Node operand : operands) {
                if (operand.matches(properties)) {
                    return true;
                }
            }
            return false;
        }
    }

    private record Not(Node operand) implements Node {
        @Override
        public boolean matches(Map<String, ?> properties) {
            return !operand.matches(properties);
        }
    }

    private record Present(String key) implements Node {
        @Override
        public boolean matches(Map<String, ?> properties) {
            return lookup(properties, key) != null;
        }
    }

    private enum Operator { EQUAL, APPROX, GREATER_OR_EQUAL, LESS_OR_EQUAL }

    private record Compare(String key, Operator operator, String operand) implements Node {
        @Override
        public boolean matches(Map<String, ?> properties) {
            return compare(lookup(properties, key), operator, operand);
        }
    }

    /** {@code parts} holds the initial, any and final strings; the first and last may be empty. */
    private record Substring(String key, List<String> parts) implements Node {
        @Override
        public boolean matches(Map<String, ?> properties) {
            return substring(lookup(properties, key), parts);
        }
    }

    private final String text;
    private final Node root;

    private LdapFilter(String text, Node root) {
        this.text = text;
        this.root = root;
    }

    /**
     * Parses a filter.
     *
     * @param text the filter, for example {@code (&(dat.transport=sim)(dat.thread.safe=true))}
     * @return the filter
     * @throws IllegalArgumentException when it does not parse; the message names the position
     */
    static LdapFilter parse(String text) {
        Parser parser = new Parser(text);
        parser.skipBlanks();
        Node root = parser.filter();
        parser.skipBlanks();
        if (parser.position < text.length()) {
            throw parser.error("text after the end of the filter");
        }
        return new LdapFilter(text, root);
    }

    /**
     * Whether the properties match.
     *
     * @param properties the properties; keys are compared case-insensitively
     * @return whether the filter matches
     */
    boolean matches(Map<String, ?> properties) {
        return root.matches(properties);
    }

    @Override
    public String toString() {
        return text;
    }

    private static Object lookup(Map<String, ?> properties, String key) {
        Object value = properties.get(key);
        if (value != null) {
            return value;
        }
        for (Map.Entry<String, ?> entry : properties.entrySet()) {
            if (entry.getKey().equalsIgnoreCase(key)) {
                return entry.getValue();
            }
        }
        return null;
    }

    private static boolean compare(Object value, Operator operator, String operand) {
        if (value == null) {
            return false;
        }
        if (value instanceof Collection<?> collection) {
            for (Object element : collection) {
                if (compare(element, operator, operand)) {
                    return true;
                }
            }
            return false;
        }
        if (value.getClass().isArray()) {
            for (int i = 0, n = Array.getLength(value); i < n; i++) {
                if (compare(Array.get(value, i), operator, operand)) {
                    return true;
                }
            }
            return false;
        }
        try {
            return switch (value) {
                case String string -> compareStrings(string, operator, operand);
                case Boolean bool -> (operator == Operator.EQUAL || operator == Operator.APPROX)
                        && bool == Boolean.parseBoolean(operand.trim());
                case Integer number -> ordered(Long.compare(number, Long.parseLong(operand.trim())), operator);
                case Long number -> ordered(Long.compare(number, Long.parseLong(operand.trim())), operator);
                case Short number -> ordered(Long.compare(number, Long.parseLong(operand.trim())), operator);
                case Byte number -> ordered(Long.compare(number, Long.parseLong(operand.trim())), operator);
                case Double number -> ordered(Double.compare(number, Double.parseDouble(operand.trim())), operator);
                case Float number -> ordered(Double.compare(number, Double.parseDouble(operand.trim())), operator);
                case BigInteger number -> ordered(number.compareTo(new BigInteger(operand.trim())), operator);
                case BigDecimal number -> ordered(number.compareTo(new BigDecimal(operand.trim())), operator);
                case Character character -> operand.length() == 1
                        && (operator == Operator.APPROX
                                ? Character.toLowerCase(character) == Character.toLowerCase(operand.charAt(0))
                                : ordered(Character.compare(character, operand.charAt(0)), operator));
                default -> compareStrings(value.toString(), operator, operand);
            };
        } catch (NumberFormatException e) {
            return false; // an operand that is not a number never matches a number
        }
    }

    private static boolean compareStrings(String value, Operator operator, String operand) {
        return switch (operator) {
            case EQUAL -> value.equals(operand);
            case APPROX -> withoutBlanks(value).equalsIgnoreCase(withoutBlanks(operand));
            case GREATER_OR_EQUAL -> value.compareTo(operand) >= 0;
            case LESS_OR_EQUAL -> value.compareTo(operand) <= 0;
        };
    }

    private static boolean ordered(int comparison, Operator operator) {
        return switch (operator) {
            case EQUAL, APPROX -> comparison == 0;
            case GREATER_OR_EQUAL -> comparison >= 0;
            case LESS_OR_EQUAL -> comparison <= 0;
        };
    }

    private static String withoutBlanks(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            if (!Character.isWhitespace(s.charAt(i))) {
                out.append(s.charAt(i));
            }
        }
        return out.toString();
    }

    private static boolean substring(Object value, List<String> parts) {
        if (value instanceof Collection<?> collection) {
            for (Object element : collection) {
                if (substring(element, parts)) {
                    return true;
                }
            }
            return false;
        }
        if (value != null && value.getClass().isArray()) {
            for (int i = 0, n = Array.getLength(value); i < n; i++) {
                if (substring(Array.get(value, i), parts)) {
                    return true;
                }
            }
            return false;
        }
        if (!(value instanceof String string)) {
            return false;
        }
        String initial = parts.getFirst();
        String last = parts.getLast();
        if (!string.startsWith(initial)) {
            return false;
        }
        int from = initial.length();
        for (int i = 1; i < parts.size() - 1; i++) {
            int found = string.indexOf(parts.get(i), from);
            if (found < 0) {
                return false;
            }
            from = found + parts.get(i).length();
        }
        return string.length() - from >= last.length() && string.endsWith(last);
    }

    /** A recursive-descent parser of the filter grammar of RFC 1960. */
    private static final class Parser {
        private final String text;
        private int position;

        Parser(String text) {
            this.text = text;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException(what + " at position " + position + " of " + text);
        }

        void skipBlanks() {
            while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
                position++;
            }
        }

        void expect(char c) {
            if (position >= text.length() || text.charAt(position) != c) {
                throw error(position >= text.length() ? "missing '" + c + "'" : "expected '" + c + "'");
            }
            position++;
        }

        Node filter() {
            expect('(');
            skipBlanks();
            if (position >= text.length()) {
                throw error("unexpected end");
            }
            Node node = switch (text.charAt(position)) {
                case '&' -> {
                    position++;
                    yield new And(list());
                }
                case '|' -> {
                    position++;
                    yield new Or(list());
                }
                case '!' -> {
                    position++;
                    skipBlanks();
                    yield new Not(filter());
                }
                default -> item();
            };
            skipBlanks();
            expect(')');
            return node;
        }

        List<Node> list() {
            List<Node> operands = new ArrayList<>();
            skipBlanks();
            while (position < text.length() && text.charAt(position) == '(') {
                operands.add(filter());
                skipBlanks();
            }
            if (operands.isEmpty()) {
                throw error("empty filter list");
            }
            return List.copyOf(operands);
        }

        Node item() {
            int start = position;
            while (position < text.length() && "=~<>()".indexOf(text.charAt(position)) < 0) {
                position++;
            }
            String key = text.substring(start, position).trim();
            if (key.isEmpty()) {
                throw error("missing attribute name");
            }
            if (position >= text.length()) {
                throw error("unexpected end");
            }
            char c = text.charAt(position);
            Operator operator;
            switch (c) {
                case '=' -> {
                    position++;
                    operator = Operator.EQUAL;
                }
                case '~', '<', '>' -> {
                    position++;
                    expect('=');
                    operator = c == '~' ? Operator.APPROX : c == '<' ? Operator.LESS_OR_EQUAL : Operator.GREATER_OR_EQUAL;
                }
                default -> throw error("expected an operator (=, ~=, >=, <=)");
            }
            List<String> parts = value();
            if (operator == Operator.EQUAL) {
                if (parts.size() == 2 && parts.get(0).isEmpty() && parts.get(1).isEmpty()) {
                    return new Present(key);
                }
                return parts.size() == 1 ? new Compare(key, operator, parts.getFirst()) : new Substring(key, parts);
            }
            if (parts.size() != 1) {
                throw error("a wildcard '*' is allowed only with '='; escape it as \\*");
            }
            return new Compare(key, operator, parts.getFirst());
        }

        /** Reads a value up to the closing parenthesis, split at unescaped wildcards. */
        List<String> value() {
            List<String> parts = new ArrayList<>();
            StringBuilder part = new StringBuilder();
            while (position < text.length()) {
                char c = text.charAt(position);
                if (c == ')') {
                    break;
                }
                if (c == '(') {
                    throw error("unescaped '(' in a value; escape it as \\(");
                }
                if (c == '*') {
                    parts.add(part.toString());
                    part.setLength(0);
                } else if (c == '\\') {
                    position++;
                    if (position >= text.length()) {
                        throw error("escape at the end of the filter");
                    }
                    part.append(text.charAt(position));
                } else {
                    part.append(c);
                }
                position++;
            }
            parts.add(part.toString());
            return parts;
        }
    }
}
