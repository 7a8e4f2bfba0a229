package dat.tests.conformance.internal;

import dat.api.DatEvent;
import dat.api.InterfaceAdapter;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An instance of the peer agent's IA, used from this process as if it were local: every object it
 * creates is a proxy, and every call on one runs on the real object in the agent's process
 * ({@code dat test --serve}), with its arguments, result, exception and event carried by
 * {@link RemoteCalls}. With it, {@link IaUnderTest#peer()} lives in another JVM and the whole
 * suite runs across processes: each connection between the two instances is a real connection of
 * the provider between two processes, and the suite still checks both ends of it.
 *
 * <p>Buffers the agent's IA registers must be {@link SharedFiles} memory of the same host (the
 * suite allocates every buffer there in this mode), so that both processes see the same bytes.
 * Calls from several threads run concurrently; each waits for its own reply.
 */
final class RemoteIa implements AutoCloseable {

    /** Instances opened in the agent's process, and calls sent to them, since this class loaded (for reports). */
    static final AtomicLong INSTANCES = new AtomicLong();
    static final AtomicLong CALLS = new AtomicLong();

    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private final SharedFiles memory;
    private final Map<Integer, Object> proxies = new ConcurrentHashMap<>();
    private final Map<Object, Integer> ids = Collections.synchronizedMap(new IdentityHashMap<>());
    private final Map<Long, CompletableFuture<Reply>> pending = new ConcurrentHashMap<>();
    private final AtomicLong calls = new AtomicLong();
    private final Context context = new Context();
    private final InterfaceAdapter adapter;
    private final Thread reader;
    private volatile String ended;

    private record Reply(byte outcome, Object result, RuntimeException thrown, Map<Integer, DatEvent> events) {
    }

    private RemoteIa(Socket socket, SharedFiles memory) throws IOException {
        this.socket = socket;
        this.memory = memory;
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        out.writeInt(RemoteCalls.MAGIC);
        out.flush();
        if (in.readByte() != PeerProtocol.OK) {
            throw new IOException("the peer agent could not open its IA: " + in.readUTF());
        }
        this.adapter = (InterfaceAdapter) RemoteCalls.read(in, context);
        this.reader = Thread.ofPlatform().daemon().name("dat-test-remote-ia").start(this::readReplies);
        INSTANCES.incrementAndGet();
    }

    /**
     * Opens an instance of the agent's IA.
     *
     * @param agent the agent's control address
     * @param memory where this process allocates the memory the agent's IA registers
     * @return the connection; {@link #adapter()} is the IA
     * @throws IOException when the agent cannot be reached or cannot open its IA
     */
    static RemoteIa open(InetSocketAddress agent, SharedFiles memory) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(agent, 10_000);
            return new RemoteIa(socket, memory);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** @return the agent's IA instance, as a proxy */
    InterfaceAdapter adapter() {
        return adapter;
    }

    private Object call(int target, Method method, Object[] args) throws Throwable {
        long id = calls.incrementAndGet();
        CALLS.incrementAndGet();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream request = new DataOutputStream(bytes);
        request.writeByte(RemoteCalls.CALL);
        request.writeLong(id);
        request.writeUTF(method.getDeclaringClass().getName());
        request.writeUTF(method.getName());
        Class<?>[] types = method.getParameterTypes();
        request.writeByte(types.length);
        for (Class<?> type : types) {
            request.writeUTF(type.getName());
        }
        request.writeInt(target);
        for (int i = 0; i < types.length; i++) {
            RemoteCalls.write(request, args[i], context); // fails here, before anything is sent, for what cannot cross
        }
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        pending.put(id, reply);
        try {
            synchronized (out) {
                if (ended != null) {
                    throw new IllegalStateException(ended);
                }
                out.write(bytes.toByteArray());
                out.flush();
            }
            Reply r;
            try {
                r = reply.get();
            } catch (ExecutionException e) {
                throw e.getCause();
            }
            for (Map.Entry<Integer, DatEvent> e : r.events().entrySet()) {
                RemoteCalls.copyEvent(e.getValue(), (DatEvent) args[e.getKey()]);
            }
            if (r.thrown() != null) {
                throw r.thrown();
            }
            return r.result();
        } finally {
            pending.remove(id);
        }
    }

    private void readReplies() {
        try {
            while (true) {
                if (in.readByte() != RemoteCalls.REPLY) {
                    throw new IOException("a malformed reply from the peer agent");
                }
                long id = in.readLong();
                byte outcome = in.readByte();
                Object result = null;
                RuntimeException thrown = null;
                if (outcome == RemoteCalls.RETURNED) {
                    result = RemoteCalls.read(in, context);
                } else {
                    thrown = RemoteCalls.readThrown(outcome, in);
                }
                int n = in.readByte();
                Map<Integer, DatEvent> events = n == 0 ? Map.of() : new java.util.HashMap<>();
                for (int i = 0; i < n; i++) {
                    int index = in.readByte();
                    events.put(index, (DatEvent) RemoteCalls.read(in, context));
                }
                CompletableFuture<Reply> waiting = pending.get(id);
                if (waiting != null) {
                    waiting.complete(new Reply(outcome, result, thrown, events));
                }
            }
        } catch (IOException | RuntimeException e) {
            String why = "the connection to the peer agent ended: " + e;
            synchronized (out) {
                ended = why;
            }
            for (CompletableFuture<Reply> waiting : pending.values()) {
                waiting.completeExceptionally(new IllegalStateException(why));
            }
        }
    }

    /** Ends the connection; the agent closes its IA instance and everything in it. */
    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closed anyway
        }
        try {
            reader.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Proxies of the agent's objects, made once per id, so that identity holds as for local handles. */
    private final class Context implements RemoteCalls.Context {
        @Override
        public int idOf(Object handle) {
            Integer id = ids.get(handle);
            return id == null ? -1 : id;
        }

        @Override
        public boolean firstSent(int id) {
            return false; // the agent knows every id it gave
        }

        @Override
        public Object resolve(int id, List<Class<?>> interfaces) {
            Object known = proxies.get(id);
            if (known != null || interfaces == null) {
                if (known == null) {
                    throw new IllegalStateException("the peer agent named an object it never sent: " + id);
                }
                return known;
            }
            Object proxy = Proxy.newProxyInstance(RemoteIa.class.getClassLoader(), interfaces.toArray(Class<?>[]::new),
                    new Forwarder(id, interfaces.getFirst().getSimpleName()));
            Object raced = proxies.putIfAbsent(id, proxy);
            if (raced != null) {
                return raced;
            }
            ids.put(proxy, id);
            return proxy;
        }

        @Override
        public Object foreign(List<Class<?>> interfaces) {
            throw new IllegalStateException("the peer agent sent a handle of this process");
        }

        @Override
        public SharedFiles memory() {
            return memory;
        }
    }

    /** Forwards a call on a proxy to the agent; the API's default methods run here, over the proxy. */
    private final class Forwarder implements InvocationHandler {
        private final int id;
        private final String kind;
        private volatile Object context;

        Forwarder(int id, String kind) {
            this.id = id;
            this.kind = kind;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getDeclaringClass() == Object.class) {
                return RemoteCalls.objectMethod(proxy, method, args, "remote " + kind + " #" + id);
            }
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            // the consumer's context is an object of this process, which the provider only keeps
            // (dat_set_consumer_context(3DAT)): the proxy keeps it
            if (method.getName().equals("setConsumerContext") && args != null && args.length == 1) {
                context = args[0];
                return null;
            }
            if (method.getName().equals("consumerContext") && (args == null || args.length == 0)) {
                return context;
            }
            return call(id, method, args == null ? new Object[0] : args);
        }
    }
}
