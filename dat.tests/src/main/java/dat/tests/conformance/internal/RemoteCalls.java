package dat.tests.conformance.internal;

import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.EventDispatcher;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The wire form of calls on DAT objects that live in a peer agent's process ({@link RemoteIa}):
 * every value a {@code dat.api} method takes or returns (primitives, strings, byte arrays, the API's
 * enums and records, arrays of them, socket addresses, maps and sets), DAT handles by an id the
 * agent gives them, a {@link DatEvent} by its fields (an out-parameter: it travels both ways), and
 * registered memory by the shared file it lies in ({@link SharedFiles}), so that both processes
 * see the same bytes. Anything else (a callback, a consumer's context object) cannot cross and
 * fails the call with {@link UnsupportedOperationException}.
 */
final class RemoteCalls {

    /** The first int of a remote-IA control connection (a {@link PeerProtocol} pair starts with its own). */
    static final int MAGIC = 0xDA7E_5702;

    /** A call: (call id, declaring interface, method, parameter types, target id, arguments). */
    static final byte CALL = 1;
    /** A reply: (call id, outcome, result or exception, the DatEvent arguments after the call). */
    static final byte REPLY = 2;

    static final byte RETURNED = 0;
    static final byte THREW_DAT = 1;
    static final byte THREW_OTHER = 2;

    private static final byte NULL = 0;
    private static final byte BOOLEAN = 1;
    private static final byte BYTE = 2;
    private static final byte SHORT = 3;
    private static final byte INT = 4;
    private static final byte LONG = 5;
    private static final byte CHAR = 6;
    private static final byte FLOAT = 7;
    private static final byte DOUBLE = 8;
    private static final byte STRING = 9;
    private static final byte BYTES = 10;
    private static final byte ENUM = 11;
    private static final byte RECORD = 12;
    private static final byte ARRAY = 13;
    private static final byte HANDLE = 14;
    private static final byte NEW_HANDLE = 15;
    private static final byte FOREIGN_HANDLE = 16;
    private static final byte MARKER = 17;
    private static final byte ADDRESS = 18;
    private static final byte MAP = 19;
    private static final byte SET = 20;
    private static final byte LIST = 21;
    private static final byte MEMORY = 22;
    private static final byte EVENT = 23;
    private static final byte LMR_TRIPLET = 24;
    private static final byte RMR_TRIPLET = 25;

    /** What a side knows of handles and memory: the agent owns the objects, the suite holds proxies. */
    interface Context {
        /** @return the id of a handle this side may send by id, or -1 (then it is foreign to the peer) */
        int idOf(Object handle);

        /** @return whether the id is new to the peer (the agent sends a new handle's interfaces once) */
        boolean firstSent(int id);

        /** @return the object for an id the peer sent, given the interfaces when it is new */
        Object resolve(int id, List<Class<?>> interfaces);

        /** @return a stand-in for a handle of the peer's process that this side does not own */
        Object foreign(List<Class<?>> interfaces);

        /** @return the shared memory this side maps: memory crosses as a place in it */
        SharedFiles memory();
    }

    /**
     * The {@code Object} methods of a proxy for a handle: identity, as for the real handles.
     *
     * @return the result, or {@code null} when {@code method} is not one of them
     */
    static Object objectMethod(Object proxy, java.lang.reflect.Method method, Object[] args, String description) {
        if (method.getDeclaringClass() != Object.class) {
            return null;
        }
        return switch (method.getName()) {
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            default -> description;
        };
    }

    private RemoteCalls() {
    }

    static void write(DataOutputStream out, Object value, Context context) throws IOException {
        switch (value) {
            case null -> out.writeByte(NULL);
            case Boolean b -> {
                out.writeByte(BOOLEAN);
                out.writeBoolean(b);
            }
            case Byte b -> {
                out.writeByte(BYTE);
                out.writeByte(b);
            }
            case Short s -> {
                out.writeByte(SHORT);
                out.writeShort(s);
            }
            case Integer i -> {
                out.writeByte(INT);
                out.writeInt(i);
            }
            case Long l -> {
                out.writeByte(LONG);
                out.writeLong(l);
            }
            case Character c -> {
                out.writeByte(CHAR);
                out.writeChar(c);
            }
            case Float f -> {
                out.writeByte(FLOAT);
                out.writeFloat(f);
            }
            case Double d -> {
                out.writeByte(DOUBLE);
                out.writeDouble(d);
            }
            case String s -> {
                out.writeByte(STRING);
                out.writeUTF(s);
            }
            case byte[] bytes -> {
                out.writeByte(BYTES);
                out.writeInt(bytes.length);
                out.write(bytes);
            }
            case Enum<?> e -> {
                out.writeByte(ENUM);
                out.writeUTF(e.getDeclaringClass().getName());
                out.writeUTF(e.name());
            }
            case Record r -> writeRecord(out, r, context);
            case InetSocketAddress a -> {
                out.writeByte(ADDRESS);
                byte[] ip = a.getAddress() == null ? new byte[0] : a.getAddress().getAddress();
                out.writeByte(ip.length);
                out.write(ip);
                out.writeInt(a.getPort());
            }
            case Map<?, ?> m -> {
                out.writeByte(MAP);
                out.writeInt(m.size());
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    write(out, e.getKey(), context);
                    write(out, e.getValue(), context);
                }
            }
            case Set<?> s -> {
                out.writeByte(SET);
                out.writeInt(s.size());
                for (Object o : s) {
                    write(out, o, context);
                }
            }
            case List<?> l -> {
                out.writeByte(LIST);
                out.writeInt(l.size());
                for (Object o : l) {
                    write(out, o, context);
                }
            }
            case MemorySegment m -> {
                SharedFiles.Location where = context.memory().locate(m);
                if (where == null) {
                    throw new UnsupportedOperationException("memory at 0x" + Long.toHexString(m.address()) + " is in no file shared"
                            + " with the peer agent (the suite allocates the peer's memory with IaUnderTest.memory)");
                }
                out.writeByte(MEMORY);
                out.writeUTF(where.path());
                out.writeLong(where.offset());
                out.writeLong(where.size());
            }
            case DatEvent e -> writeEvent(out, e, context);
            case LmrTriplet t -> {
                // the addresses are the agent's: a triplet of a peer LMR is made from its registered address
                out.writeByte(LMR_TRIPLET);
                out.writeInt(t.lmrContext());
                out.writeLong(t.virtualAddress());
                out.writeLong(t.segmentLength());
            }
            case RmrTriplet t -> {
                out.writeByte(RMR_TRIPLET);
                out.writeInt(t.rmrContext());
                out.writeLong(t.targetAddress());
                out.writeLong(t.segmentLength());
            }
            default -> writeHandle(out, value, context);
        }
    }

    private static void writeRecord(DataOutputStream out, Record r, Context context) throws IOException {
        RecordComponent[] components = r.getClass().getRecordComponents();
        out.writeByte(RECORD);
        out.writeUTF(r.getClass().getName());
        out.writeByte(components.length);
        for (RecordComponent component : components) {
            try {
                component.getAccessor().setAccessible(true);
                write(out, component.getAccessor().invoke(r), context);
            } catch (ReflectiveOperationException e) {
                throw new IOException("cannot read " + r.getClass().getName() + "." + component.getName(), e);
            }
        }
    }

    private static void writeHandle(DataOutputStream out, Object value, Context context) throws IOException {
        if (value == EventDispatcher.ASYNC_EXISTS || value == EventDispatcher.OUT_OF_SCOPE) {
            out.writeByte(MARKER);
            out.writeBoolean(value == EventDispatcher.ASYNC_EXISTS);
            return;
        }
        if (value.getClass().isArray()) {
            out.writeByte(ARRAY);
            out.writeUTF(value.getClass().getComponentType().getName());
            int n = Array.getLength(value);
            out.writeInt(n);
            for (int i = 0; i < n; i++) {
                write(out, Array.get(value, i), context);
            }
            return;
        }
        List<Class<?>> interfaces = apiInterfaces(value.getClass());
        if (interfaces.isEmpty()) {
            throw new UnsupportedOperationException("a " + value.getClass().getName() + " cannot cross to the peer agent");
        }
        int id = context.idOf(value);
        if (id < 0) {
            out.writeByte(FOREIGN_HANDLE);
            writeInterfaces(out, interfaces);
        } else if (context.firstSent(id)) {
            out.writeByte(NEW_HANDLE);
            out.writeInt(id);
            writeInterfaces(out, interfaces);
        } else {
            out.writeByte(HANDLE);
            out.writeInt(id);
        }
    }

    private static void writeInterfaces(DataOutputStream out, List<Class<?>> interfaces) throws IOException {
        out.writeByte(interfaces.size());
        for (Class<?> type : interfaces) {
            out.writeUTF(type.getName());
        }
    }

    /** The public dat.api interfaces a handle's class implements, directly or not. */
    static List<Class<?>> apiInterfaces(Class<?> type) {
        Set<Class<?>> found = new LinkedHashSet<>();
        List<Class<?>> pending = new ArrayList<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            pending.addAll(List.of(c.getInterfaces()));
        }
        while (!pending.isEmpty()) {
            Class<?> candidate = pending.removeFirst();
            if (candidate.getPackageName().equals("dat.api") && Modifier.isPublic(candidate.getModifiers())) {
                found.add(candidate);
            }
            pending.addAll(List.of(candidate.getInterfaces()));
        }
        return new ArrayList<>(found);
    }

    private static void writeEvent(DataOutputStream out, DatEvent event, Context context) throws IOException {
        out.writeByte(EVENT);
        for (Field field : EVENT_FIELDS) {
            try {
                Object value = field.get(event);
                if (field.getName().equals("softwarePointer") && value != null && !(value instanceof String || value instanceof Number)) {
                    throw new UnsupportedOperationException("a software event's pointer of type " + value.getClass().getName()
                            + " cannot cross to the peer agent");
                }
                write(out, value, context);
            } catch (IllegalAccessException e) {
                throw new IOException(e);
            }
        }
    }

    /** Copies every field of {@code from} into {@code to}: the state of an out-parameter. */
    static void copyEvent(DatEvent from, DatEvent to) {
        for (Field field : EVENT_FIELDS) {
            try {
                field.set(to, field.get(from));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static final List<Field> EVENT_FIELDS = eventFields();

    private static List<Field> eventFields() {
        List<Field> fields = new ArrayList<>();
        for (Field field : DatEvent.class.getDeclaredFields()) {
            if (!Modifier.isStatic(field.getModifiers())) {
                field.setAccessible(true);
                fields.add(field);
            }
        }
        return fields;
    }

    static Object read(DataInputStream in, Context context) throws IOException {
        byte tag = in.readByte();
        return switch (tag) {
            case NULL -> null;
            case BOOLEAN -> in.readBoolean();
            case BYTE -> in.readByte();
            case SHORT -> in.readShort();
            case INT -> in.readInt();
            case LONG -> in.readLong();
            case CHAR -> in.readChar();
            case FLOAT -> in.readFloat();
            case DOUBLE -> in.readDouble();
            case STRING -> in.readUTF();
            case BYTES -> {
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                yield bytes;
            }
            case ENUM -> enumValue(apiClass(in.readUTF()), in.readUTF());
            case RECORD -> readRecord(in, context);
            case ARRAY -> {
                Class<?> component = typeNamed(in.readUTF());
                int n = in.readInt();
                Object array = Array.newInstance(component, n);
                for (int i = 0; i < n; i++) {
                    Array.set(array, i, read(in, context));
                }
                yield array;
            }
            case HANDLE -> context.resolve(in.readInt(), null);
            case NEW_HANDLE -> {
                int id = in.readInt();
                yield context.resolve(id, readInterfaces(in));
            }
            case FOREIGN_HANDLE -> context.foreign(readInterfaces(in));
            case MARKER -> in.readBoolean() ? EventDispatcher.ASYNC_EXISTS : EventDispatcher.OUT_OF_SCOPE;
            case ADDRESS -> {
                byte[] ip = new byte[in.readByte()];
                in.readFully(ip);
                int port = in.readInt();
                yield ip.length == 0 ? new InetSocketAddress(port) : new InetSocketAddress(InetAddress.getByAddress(ip), port);
            }
            case MAP -> {
                int n = in.readInt();
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    map.put(read(in, context), read(in, context));
                }
                yield map;
            }
            case SET -> {
                int n = in.readInt();
                Set<Object> set = new LinkedHashSet<>();
                for (int i = 0; i < n; i++) {
                    set.add(read(in, context));
                }
                yield set;
            }
            case LIST -> {
                int n = in.readInt();
                List<Object> list = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    list.add(read(in, context));
                }
                yield list;
            }
            case MEMORY -> context.memory().map(new SharedFiles.Location(in.readUTF(), in.readLong(), in.readLong()));
            case LMR_TRIPLET -> new LmrTriplet(in.readInt(), in.readLong(), in.readLong());
            case RMR_TRIPLET -> new RmrTriplet(in.readInt(), in.readLong(), in.readLong());
            case EVENT -> {
                DatEvent event = new DatEvent();
                for (Field field : EVENT_FIELDS) {
                    try {
                        field.set(event, read(in, context));
                    } catch (IllegalAccessException e) {
                        throw new IOException(e);
                    }
                }
                yield event;
            }
            default -> throw new IOException("unknown value tag " + tag);
        };
    }

    private static Object readRecord(DataInputStream in, Context context) throws IOException {
        Class<?> type = apiClass(in.readUTF());
        int n = in.readByte();
        Object[] values = new Object[n];
        for (int i = 0; i < n; i++) {
            values[i] = read(in, context);
        }
        RecordComponent[] components = type.getRecordComponents();
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
        }
        try {
            Constructor<?> canonical = type.getDeclaredConstructor(types);
            canonical.setAccessible(true);
            return canonical.newInstance(values);
        } catch (ReflectiveOperationException e) {
            throw new IOException("cannot rebuild a " + type.getName(), e);
        }
    }

    private static List<Class<?>> readInterfaces(DataInputStream in) throws IOException {
        int n = in.readByte();
        List<Class<?>> interfaces = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            interfaces.add(apiClass(in.readUTF()));
        }
        return interfaces;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object enumValue(Class<?> type, String name) {
        return Enum.valueOf((Class) type, name);
    }

    /**
     * A class of the API or the JDK (or an array of one), loaded through the API's class loader:
     * nothing else can be named by the other side.
     */
    static Class<?> apiClass(String name) throws IOException {
        String element = name.replaceFirst("^\\[+L?", "").replaceFirst(";$", "");
        if (!element.startsWith("dat.api.") && !element.startsWith("java.") && !(name.startsWith("[") && element.length() == 1)) {
            throw new IOException("not a class of the DAT API: " + name);
        }
        try {
            return Class.forName(name, false, DatEvent.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IOException("unknown class " + name, e);
        }
    }

    /** A parameter or component type by {@link Class#getName()}, primitives included. */
    static Class<?> typeNamed(String name) throws IOException {
        return switch (name) {
            case "boolean" -> boolean.class;
            case "byte" -> byte.class;
            case "short" -> short.class;
            case "int" -> int.class;
            case "long" -> long.class;
            case "char" -> char.class;
            case "float" -> float.class;
            case "double" -> double.class;
            case "void" -> void.class;
            default -> apiClass(name);
        };
    }

    /** Writes a thrown exception: a DatException keeps its code, argument and detail. */
    static void writeThrown(DataOutputStream out, Throwable thrown) throws IOException {
        if (thrown instanceof DatException d) {
            out.writeByte(THREW_DAT);
            out.writeInt(d.code());
            out.writeBoolean(d.argument() != null);
            if (d.argument() != null) {
                out.writeUTF(d.argument());
            }
            out.writeBoolean(d.detail() != null);
            if (d.detail() != null) {
                out.writeUTF(d.detail());
            }
        } else {
            out.writeByte(THREW_OTHER);
            out.writeUTF(thrown.getClass().getName());
            out.writeUTF(String.valueOf(thrown.getMessage()));
        }
    }

    /** Reads what {@link #writeThrown} wrote (after its outcome byte), as an exception to throw here. */
    static RuntimeException readThrown(byte outcome, DataInputStream in) throws IOException {
        if (outcome == THREW_DAT) {
            int code = in.readInt();
            String argument = in.readBoolean() ? in.readUTF() : null;
            String detail = in.readBoolean() ? in.readUTF() : null;
            return new DatException(code, argument, detail, null);
        }
        String type = in.readUTF();
        String message = in.readUTF();
        try {
            Class<?> c = Class.forName(type, false, RemoteCalls.class.getClassLoader());
            if (RuntimeException.class.isAssignableFrom(c)) {
                return (RuntimeException) c.getConstructor(String.class).newInstance(message);
            }
        } catch (ReflectiveOperationException | LinkageError e) {
            // not rebuildable here: reported as it is below
        }
        return new IllegalStateException(type + " in the peer agent: " + message);
    }
}
