package dat.tests.broken.internal;

import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.IaQuery;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.ProviderAttributes;
import dat.api.WaitProxyAgent;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Wraps every handle of one IA in a dynamic proxy that forwards to the real handle, except for two
 * deliberate faults the conformance suite must catch:
 * <ul>
 * <li>a successful receive completes with a transferred length one byte too long
 *     (dat_ep_post_recv(3DAT), dat_evd_dequeue(3DAT));</li>
 * <li>a post whose IOV segment lies outside its LMR returns DAT_SUCCESS and is silently dropped,
 *     instead of DAT_INVALID_PARAMETER (dat_ep_post_send(3DAT) and the other posts);</li>
 * <li>a receive too small for its message completes with DAT_DTO_ERR_LOCAL_EP instead of
 *     DAT_DTO_ERR_LOCAL_LENGTH, while the provider attributes declare a different deviation
 *     ({@link #FALSE_DECLARATION}): a declaration must match what the provider does.</li>
 * </ul>
 * Handles, records that hold handles, events, agents and event handlers are translated both ways,
 * so that a consumer only ever sees wrappers.
 */
final class Breakage {

    /** Fault 3's declaration, which does not match what the IA does. */
    static final String FALSE_DECLARATION = "DAT_DTO_ERR_LOCAL_PROTECTION: declared by broken0, which completes such receives"
            + " with DAT_DTO_ERR_LOCAL_EP";

    private final Map<Object, Object> wrappers = Collections.synchronizedMap(new IdentityHashMap<>());
    private final Map<Object, Object> delegates = Collections.synchronizedMap(new IdentityHashMap<>());
    private final Map<Integer, long[]> lmrBounds = new ConcurrentHashMap<>();
    private final Map<Object, Set<Long>> receiveCookies = new ConcurrentHashMap<>();

    /** The wrapper of a handle (or of a record or agent holding handles); other values as they are. */
    Object wrap(Object value) {
        if (value == null || value == EventDispatcher.ASYNC_EXISTS || value == EventDispatcher.OUT_OF_SCOPE) {
            return value;
        }
        if (value instanceof DatHandle handle) {
            synchronized (wrappers) {
                Object existing = wrappers.get(handle);
                if (existing != null) {
                    return existing;
                }
                Object proxy = Proxy.newProxyInstance(Breakage.class.getClassLoader(), interfacesOf(handle), new Forwarder(handle));
                wrappers.put(handle, proxy);
                delegates.put(proxy, handle);
                if (handle instanceof LocalMemoryRegion lmr) {
                    lmrBounds.put(lmr.lmrContext(), new long[] {lmr.registeredAddress(), lmr.registeredSize()});
                }
                return proxy;
            }
        }
        if (value instanceof WaitProxyAgent agent) {
            Object original = delegates.get(agent);
            return original != null ? original : agent;
        }
        if (value instanceof Record record) {
            return mapRecord(record, true);
        }
        return value;
    }

    /** The real handle behind a wrapper (and records, agents, handlers translated); other values as they are. */
    Object unwrap(Object value) {
        if (value == null) {
            return null;
        }
        Object delegate = delegates.get(value);
        if (delegate != null && !(value instanceof WaitProxyAgent)) {
            return delegate;
        }
        if (value instanceof WaitProxyAgent agent) {
            WaitProxyAgent translated = evd -> agent.notify((EventDispatcher) wrap(evd));
            delegates.put(translated, agent);
            return translated;
        }
        if (value instanceof DatEventHandler handler) {
            return (DatEventHandler) event -> {
                translate(event);
                handler.onEvent(event);
            };
        }
        if (value instanceof Record record) {
            return mapRecord(record, false);
        }
        return value;
    }

    /** Every dat.api interface the handle's class implements, directly or through other interfaces. */
    private static Class<?>[] interfacesOf(Object handle) {
        java.util.Set<Class<?>> found = new java.util.LinkedHashSet<>();
        java.util.ArrayDeque<Class<?>> pending = new java.util.ArrayDeque<>();
        for (Class<?> type = handle.getClass(); type != null; type = type.getSuperclass()) {
            pending.addAll(java.util.List.of(type.getInterfaces()));
        }
        while (!pending.isEmpty()) {
            Class<?> candidate = pending.poll();
            if (candidate.getPackageName().equals("dat.api")) {
                found.add(candidate);
            }
            pending.addAll(java.util.List.of(candidate.getInterfaces()));
        }
        return found.toArray(Class<?>[]::new);
    }

    private Object mapRecord(Record record, boolean toWrapper) {
        RecordComponent[] components = record.getClass().getRecordComponents();
        if (!record.getClass().getPackageName().equals("dat.api")) {
            return record;
        }
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        boolean changed = false;
        try {
            for (int i = 0; i < components.length; i++) {
                Object original = components[i].getAccessor().invoke(record);
                values[i] = toWrapper ? wrap(original) : unwrap(original);
                types[i] = components[i].getType();
                changed |= values[i] != original;
            }
            if (!changed) {
                return record;
            }
            Constructor<?> canonical = record.getClass().getDeclaredConstructor(types);
            return canonical.newInstance(values);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot translate " + record.getClass().getSimpleName(), e);
        }
    }

    /** Turns the handles of an event the real IA filled into wrappers, and lies about receive lengths. */
    void translate(DatEvent event) {
        EventDispatcher evd = (EventDispatcher) wrap(event.evd());
        int more = event.moreEvents();
        switch (event.eventNumber()) {
            case EventNumber.DTO_COMPLETION_EVENT -> {
                long length = event.transferredLength();
                int status = event.status();
                Set<Long> cookies = receiveCookies.get(event.endpoint());
                if (cookies != null && cookies.remove(event.userCookie())) {
                    if (status == DtoCompletionStatus.SUCCESS) {
                        length++; // fault 1: the receive's transferred length is one byte too long
                    } else if (status == DtoCompletionStatus.ERR_LOCAL_LENGTH) {
                        status = DtoCompletionStatus.ERR_LOCAL_EP; // fault 3, against its false declaration
                    }
                }
                event.setDtoCompletion(evd, (dat.api.Endpoint) wrap(event.endpoint()), event.userCookie(), status, length);
            }
            case EventNumber.RMR_BIND_COMPLETION_EVENT -> event.setRmrBindCompletion(evd, (dat.api.RemoteMemoryRegion) wrap(event.rmr()),
                    event.userCookie(), event.status());
            case EventNumber.CONNECTION_REQUEST_EVENT -> event.setConnectionRequest(evd, (DatHandle) wrap(event.servicePoint()),
                    event.localIaAddress(), event.connQual(), (dat.api.ConnectionRequest) wrap(event.connectionRequest()));
            case EventNumber.SOFTWARE_EVENT -> event.setSoftwareEvent(evd, event.softwarePointer());
            case 0 -> {
                return;
            }
            default -> {
                if (EventNumber.isConnectionEvent(event.eventNumber())) {
                    event.setConnectionEvent(event.eventNumber(), evd, (dat.api.Endpoint) wrap(event.endpoint()), event.privateData());
                } else {
                    event.setAsyncError(event.eventNumber(), evd, (DatHandle) wrap(event.asyncHandle()), event.asyncReason());
                }
            }
        }
        event.setMoreEvents(more);
    }

    /** The real IA's answer to dat_ia_query with fault 3's false declaration added. */
    private static IaQuery declareFalsely(IaQuery query) {
        ProviderAttributes real = query.providerAttributes();
        Map<String, String> named = new java.util.HashMap<>(real.providerSpecificAttributes());
        named.put(ProviderAttributes.DEVIATION_PREFIX + "recv_length_error", FALSE_DECLARATION);
        return new IaQuery(query.asyncEvd(), query.iaAttributes(), real.toBuilder().providerSpecificAttributes(named).build());
    }

    /** Whether every used segment of an IOV lies within an LMR the wrapped IA registered. */
    private boolean withinLmrs(int numSegments, LmrTriplet[] iov) {
        if (iov == null) {
            return true;
        }
        for (int i = 0; i < Math.min(numSegments, iov.length); i++) {
            LmrTriplet segment = iov[i];
            long[] bounds = lmrBounds.get(segment.lmrContext());
            if (segment.segmentLength() > 0 && bounds != null
                    && (segment.virtualAddress() < bounds[0] || segment.virtualAddress() + segment.segmentLength() > bounds[0] + bounds[1])) {
                return false;
            }
        }
        return true;
    }

    /** Forwards a call on a wrapper to its real handle, translating arguments and results. */
    private final class Forwarder implements InvocationHandler {
        private final Object delegate;

        Forwarder(Object delegate) {
            this.delegate = delegate;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "equals" -> {
                    if (method.getParameterCount() == 1) {
                        return proxy == args[0];
                    }
                }
                case "hashCode" -> {
                    if (method.getParameterCount() == 0) {
                        return System.identityHashCode(proxy);
                    }
                }
                case "toString" -> {
                    if (method.getParameterCount() == 0) {
                        return "broken:" + delegate;
                    }
                }
                default -> {
                }
            }
            Object[] translated = args == null ? null : new Object[args.length];
            if (args != null) {
                for (int i = 0; i < args.length; i++) {
                    translated[i] = unwrap(args[i]);
                }
            }
            String name = method.getName();
            if (name.startsWith("post") && !name.equals("postSoftwareEvent") && args != null && args.length >= 2
                    && args[1] instanceof LmrTriplet[] iov && !withinLmrs((Integer) args[0], iov)) {
                return DatReturn.SUCCESS; // fault 2: a segment outside its LMR is accepted, and the DTO dropped
            }
            if (name.equals("postRecv") && args != null && args.length >= 3 && args[2] instanceof Long cookie) {
                receiveCookies.computeIfAbsent(delegate, key -> ConcurrentHashMap.newKeySet()).add(cookie);
            }
            Object result;
            try {
                result = method.invoke(delegate, translated);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (name.equals("query") && result instanceof IaQuery query) {
                return wrap(declareFalsely(query));
            }
            if ((name.equals("dequeue") || name.equals("await")) && result instanceof Integer code && code == DatReturn.SUCCESS) {
                translate((DatEvent) args[args.length - 1]);
            }
            if (name.equals("postRecv") && result instanceof Integer code && code != DatReturn.SUCCESS && args[2] instanceof Long cookie) {
                Set<Long> cookies = receiveCookies.get(delegate);
                if (cookies != null) {
                    cookies.remove(cookie);
                }
            }
            return wrap(result);
        }
    }
}
