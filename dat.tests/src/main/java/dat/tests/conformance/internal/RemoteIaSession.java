package dat.tests.conformance.internal;

import dat.api.CloseFlag;
import dat.api.DatEvent;
import dat.api.DatRegistry;
import dat.api.InterfaceAdapter;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's side of a {@link RemoteIa}: one instance of the agent's IA, opened for the
 * connection, and every object made from it, each known to the suite by an id. Each call runs on
 * a thread of its own (a wait blocks only itself) against the real object, and its reply (result
 * or exception, and the events it filled) goes back when it returns. When the connection ends, the
 * IA instance is closed abruptly, which frees everything in it.
 */
final class RemoteIaSession implements RemoteCalls.Context {

    private final DataInputStream in;
    private final DataOutputStream out;
    private final SharedFiles memory = new SharedFiles(false);
    private final Map<Integer, Object> objects = new ConcurrentHashMap<>();
    private final Map<Object, Integer> ids = new IdentityHashMap<>(); // under out
    private final Set<Integer> sent = new HashSet<>(); // under out
    /** The ids first sent by the reply being encoded: unsent again if it cannot be encoded (under out). */
    private final List<Integer> sentNow = new java.util.ArrayList<>();
    private int nextId = 1;

    RemoteIaSession(DataInputStream in, DataOutputStream out) {
        this.in = in;
        this.out = out;
    }

    /** Opens the IA instance, then serves calls until the suite closes the connection. */
    void run(DatRegistry registry, String iaName) throws IOException {
        InterfaceAdapter ia;
        try {
            ia = registry.openIa(iaName);
        } catch (RuntimeException e) {
            out.writeByte(PeerProtocol.FAILED);
            out.writeUTF(String.valueOf(e.getMessage()));
            out.flush();
            return;
        }
        try {
            synchronized (out) {
                out.writeByte(PeerProtocol.OK);
                RemoteCalls.write(out, ia, this);
                out.flush();
            }
            serve();
        } finally {
            try {
                ia.close(CloseFlag.ABRUPT);
            } catch (RuntimeException e) {
                // closing anyway
            }
            memory.close();
        }
    }

    private void serve() throws IOException {
        while (true) {
            byte op;
            try {
                op = in.readByte();
            } catch (EOFException e) {
                return; // the suite closed the connection
            }
            if (op != RemoteCalls.CALL) {
                throw new IOException("unexpected request " + op);
            }
            long id = in.readLong();
            String declaring = in.readUTF();
            String name = in.readUTF();
            Class<?>[] types = new Class<?>[in.readByte()];
            for (int i = 0; i < types.length; i++) {
                types[i] = RemoteCalls.typeNamed(in.readUTF());
            }
            Object target = objects.get(in.readInt());
            Object[] args = new Object[types.length];
            for (int i = 0; i < args.length; i++) {
                args[i] = RemoteCalls.read(in, this);
            }
            Method method;
            try {
                if (!declaring.startsWith("dat.api.")) {
                    throw new NoSuchMethodException("only methods of the DAT API can be called: " + declaring);
                }
                method = RemoteCalls.apiClass(declaring).getMethod(name, types);
            } catch (NoSuchMethodException e) {
                reply(id, null, new UnsupportedOperationException("no method " + declaring + "." + name), args);
                continue;
            }
            Thread.ofVirtual().name("dat-peer-agent-call").start(() -> {
                Object result = null;
                Throwable thrown = null;
                try {
                    result = method.invoke(target, args);
                } catch (InvocationTargetException e) {
                    thrown = e.getCause();
                } catch (ReflectiveOperationException | RuntimeException e) {
                    thrown = e;
                }
                try {
                    reply(id, result, thrown, args);
                } catch (IOException e) {
                    // the suite is gone; the session ends with its connection
                }
            });
        }
    }

    private void reply(long id, Object result, Throwable thrown, Object[] args) throws IOException {
        synchronized (out) {
            sentNow.clear();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream reply = new DataOutputStream(bytes);
            reply.writeByte(RemoteCalls.REPLY);
            reply.writeLong(id);
            try {
                if (thrown == null) {
                    reply.writeByte(RemoteCalls.RETURNED);
                    RemoteCalls.write(reply, result, this);
                } else {
                    RemoteCalls.writeThrown(reply, thrown);
                }
                int events = 0;
                for (Object arg : args) {
                    events += arg instanceof DatEvent ? 1 : 0;
                }
                reply.writeByte(events);
                for (int i = 0; i < args.length; i++) {
                    if (args[i] instanceof DatEvent event) {
                        reply.writeByte(i);
                        RemoteCalls.write(reply, event, this);
                    }
                }
            } catch (RuntimeException e) {
                // the result cannot cross (a callback, a context object): the call fails instead
                sent.removeAll(sentNow);
                bytes.reset();
                reply.writeByte(RemoteCalls.REPLY);
                reply.writeLong(id);
                RemoteCalls.writeThrown(reply, e);
                reply.writeByte(0);
            }
            out.write(bytes.toByteArray());
            out.flush();
        }
    }

    @Override
    public int idOf(Object handle) {
        Integer id = ids.get(handle);
        if (id == null) {
            id = nextId++;
            ids.put(handle, id);
            objects.put(id, handle);
        }
        return id;
    }

    @Override
    public boolean firstSent(int id) {
        if (sent.add(id)) {
            sentNow.add(id);
            return true;
        }
        return false;
    }

    @Override
    public Object resolve(int id, List<Class<?>> interfaces) {
        Object object = objects.get(id);
        if (object == null) {
            throw new IllegalArgumentException("no object " + id + " in this session");
        }
        return object;
    }

    @Override
    public Object foreign(List<Class<?>> interfaces) {
        // a handle of the suite's process: the provider here sees an object that is not its own
        return Proxy.newProxyInstance(RemoteIaSession.class.getClassLoader(), interfaces.toArray(Class<?>[]::new), (p, m, a) -> {
            if (m.getDeclaringClass() == Object.class) {
                return RemoteCalls.objectMethod(p, m, a, "a handle of the suite's process");
            }
            throw new IllegalStateException("a handle of the suite's process cannot be used in the peer agent");
        });
    }

    @Override
    public SharedFiles memory() {
        return memory;
    }
}
