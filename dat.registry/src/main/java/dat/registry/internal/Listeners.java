package dat.registry.internal;

import dat.api.DatRegistryListener;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Delivers registry changes to listeners, in the order the registry made them, one call at a time,
 * never under the registry's lock.
 *
 * <p>Events are queued while the registry holds its lock (so their order is the order of the
 * changes), and then delivered by whichever thread finds no other thread delivering: a thread that
 * changes the registry while another delivers does not wait, it leaves its events to that thread.
 * A listener that changes the registry from its callback gets its events delivered after the
 * callback returns, by the same loop.
 */
final class Listeners {

    /**
     * One call to make: the DTO is built at delivery, outside the registry's lock. With an IA it is
     * {@code iaOpened}, else {@code providerAdded} or {@code providerRemoved}; without a listener it
     * is the registry's close, after which no listener is called.
     */
    private record Event(DatRegistryListener listener, boolean added, Supplier<ProviderDTO> provider, InterfaceAdapter ia) {
    }

    private static final System.Logger LOG = System.getLogger(Listeners.class.getName());

    private final CopyOnWriteArrayList<DatRegistryListener> listeners = new CopyOnWriteArrayList<>();
    private final Queue<Event> events = new ConcurrentLinkedQueue<>();
    private final ReentrantLock delivering = new ReentrantLock();

    /** Adds a listener; the caller holds the registry's lock and queues its initial events. */
    boolean add(DatRegistryListener listener) {
        return listeners.addIfAbsent(listener);
    }

    void remove(DatRegistryListener listener) {
        listeners.remove(listener);
    }

    /**
     * Forgets every listener once the events queued so far are delivered: a thread delivering
     * meanwhile delivers them, and the listeners go when it reaches this point of the queue.
     */
    void close() {
        events.add(new Event(null, false, null, null));
        deliver();
    }

    /**
     * Queues removed-then-added events for the entries that stopped or started being active from
     * one view to the next; the caller holds the registry's lock.
     */
    void queueChanges(View old, View next) {
        Map<Entry.Key, Entry> nowActive = new LinkedHashMap<>();
        next.entries().stream().filter(Entry::active).forEach(entry -> nowActive.put(entry.key(), entry));
        Set<Entry> wasActive = old.entries().stream().filter(Entry::active).collect(Collectors.toSet());
        for (Entry entry : old.entries()) {
            if (entry.active() && !entry.equals(nowActive.get(entry.key()))) {
                Binding binding = old.bindings().get(entry.key());
                queueAll(false, () -> entry.dto(binding));
            }
        }
        for (Entry entry : nowActive.values()) {
            if (!wasActive.contains(entry)) {
                Binding binding = next.bindings().get(entry.key());
                queueAll(true, () -> entry.dto(binding));
            }
        }
    }

    /** Queues an event for every listener; the caller holds the registry's lock. */
    void queueAll(boolean added, Supplier<ProviderDTO> provider) {
        for (DatRegistryListener listener : listeners) {
            events.add(new Event(listener, added, provider, null));
        }
    }

    /** Queues an {@code iaOpened} call for every listener. */
    void queueOpened(Supplier<ProviderDTO> provider, InterfaceAdapter ia) {
        for (DatRegistryListener listener : listeners) {
            events.add(new Event(listener, true, provider, ia));
        }
    }

    /** Queues an {@code iaOpened} call for one listener. */
    void queueOpened(DatRegistryListener listener, Supplier<ProviderDTO> provider, InterfaceAdapter ia) {
        events.add(new Event(listener, true, provider, ia));
    }

    /** Queues an event for one listener; the caller holds the registry's lock. */
    void queue(DatRegistryListener listener, boolean added, Supplier<ProviderDTO> provider) {
        events.add(new Event(listener, added, provider, null));
    }

    /** Delivers the queued events, unless another thread (or an outer call on this one) does. */
    void deliver() {
        while (!events.isEmpty()) {
            if (delivering.isHeldByCurrentThread() || !delivering.tryLock()) {
                return;
            }
            try {
                Event event;
                while ((event = events.poll()) != null) {
                    if (event.listener() == null) {
                        listeners.clear();
                    } else if (listeners.contains(event.listener())) {
                        call(event);
                    }
                }
            } finally {
                delivering.unlock();
            }
        }
    }

    private static void call(Event event) {
        ProviderDTO provider = event.provider().get();
        try {
            if (event.ia() != null) {
                event.listener().iaOpened(provider, event.ia());
            } else if (event.added()) {
                event.listener().providerAdded(provider);
            } else {
                event.listener().providerRemoved(provider);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "DAT registry listener " + event.listener() + " failed on "
                    + (event.ia() != null ? "iaOpened" : event.added() ? "providerAdded" : "providerRemoved") + " of "
                    + provider.iaName(), e);
        }
    }
}
