package dat.switching.internal;

import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatRegistry;
import dat.api.DatRegistryListener;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.switching.Accounting;
import dat.switching.IaSession;
import dat.switching.IaSwitcher;
import dat.switching.LossContext;
import dat.switching.SwitchCause;
import dat.switching.SwitchEvent;
import dat.switching.SwitchListener;
import dat.switching.SwitchOptions;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link IaSwitcher}: one thread of its own ({@code dat-switcher-<name>}) that opens, watches
 * and leaves IAs, and a registry listener that feeds it signals. Callbacks run on virtual threads
 * and are waited for with the callback timeout, so that an application callback that hangs cannot
 * hang the switcher.
 *
 * @param <S> the application's state on one IA
 */
public final class Switcher<S> implements IaSwitcher<S> {

    private static final System.Logger LOG = System.getLogger("dat.switching");

    /** The IA in use: its provider, the application's state on it, and its generation. */
    private record Current<S>(InterfaceAdapter ia, ProviderDTO provider, EventDispatcher asyncEvd, S session, long generation) {
    }

    /** What the registry listener or an application call asks of the switcher's thread. */
    private enum Signal { PROVIDERS_CHANGED, RESELECT, CLOSE }

    /** A loss waiting to be reported with the next switch. */
    private record Loss(ProviderDTO from, SwitchCause cause, Accounting accounting, Instant at, String detail) {
    }

    private final DatRegistry registry;
    private final SwitchOptions options;
    private final IaSession<S> callbacks;
    private final CopyOnWriteArrayList<SwitchListener> listeners = new CopyOnWriteArrayList<>();
    private final LinkedBlockingQueue<Signal> signals = new LinkedBlockingQueue<>();
    private final ExecutorService callbackThreads = Executors.newVirtualThreadPerTaskExecutor();
    private final ReentrantLock lock = new ReentrantLock();
    /**
     * Orders listener calls: the switcher's thread delivers a switch and {@link #addListener}
     * replays the current one under it, so that each listener sees each switch exactly once.
     */
    private final ReentrantLock listenerLock = new ReentrantLock();
    /** The switch that opened the current session; guarded by {@link #listenerLock}. */
    private SwitchEvent currentSwitch;
    private final Condition changed = lock.newCondition();
    private final DatRegistryListener registryListener;
    private final Thread thread;
    private volatile Current<S> current;
    private volatile State state = State.STARTING;
    private volatile long generation;
    private volatile boolean closing;
    /**
     * The current IA's entry, once the registry stopped listing it as active; the switcher's thread
     * then asks the registry whether its provider left or another provider merely shadows it.
     */
    private final AtomicReference<ProviderDTO> departed = new AtomicReference<>();

    private Switcher(DatRegistry registry, SwitchOptions options, IaSession<S> callbacks) {
        this.registry = registry;
        this.options = options;
        this.callbacks = callbacks;
        this.registryListener = new DatRegistryListener() {
            @Override
            public void providerAdded(ProviderDTO provider) {
                signals.offer(Signal.PROVIDERS_CHANGED);
            }

            @Override
            public void providerRemoved(ProviderDTO provider) {
                Current<S> c = current;
                if (c != null && c.provider().id() == provider.id() && c.provider().iaName().equals(provider.iaName())) {
                    departed.set(provider);
                }
                signals.offer(Signal.PROVIDERS_CHANGED);
            }
        };
        this.thread = Thread.ofPlatform().name("dat-switcher-" + options.name()).daemon().unstarted(this::run);
    }

    /**
     * Starts a switcher; see {@link IaSwitcher#start}.
     *
     * @param <S> the application's state on one IA
     * @param registry the registry
     * @param options the options
     * @param callbacks the application's callbacks
     * @return the running switcher
     */
    public static <S> Switcher<S> start(DatRegistry registry, SwitchOptions options, IaSession<S> callbacks) {
        if (registry == null || options == null || callbacks == null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.NO_SUBTYPE, "registry, options, session",
                    "none may be null");
        }
        registry.findProviders(options.filter()); // the filters are checked before anything starts
        for (String preference : options.preferences()) {
            registry.findProviders(and(options.filter(), preference));
        }
        Switcher<S> switcher = new Switcher<>(registry, options, callbacks);
        registry.addListener(switcher.registryListener);
        switcher.thread.start();
        return switcher;
    }

    private static String and(String filter, String preference) {
        if (filter.isBlank()) {
            return preference;
        }
        return "(&" + filter + preference + ")";
    }

    // ---------------------------------------------------------------------------------------------
    // IaSwitcher
    // ---------------------------------------------------------------------------------------------

    @Override
    public State state() {
        return state;
    }

    @Override
    public S session() {
        Current<S> c = current;
        return c == null ? null : c.session();
    }

    @Override
    public S awaitSession(Duration timeout) throws InterruptedException {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                Current<S> c = current;
                if (c != null) {
                    return c.session();
                }
                if (state == State.CLOSED || remaining <= 0) {
                    return null;
                }
                remaining = changed.awaitNanos(remaining);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Optional<ProviderDTO> provider() {
        Current<S> c = current;
        return c == null ? Optional.empty() : Optional.of(c.provider());
    }

    @Override
    public long generation() {
        return generation;
    }

    @Override
    public void addListener(SwitchListener listener) {
        if (listener == null) {
            return;
        }
        listenerLock.lock();
        try {
            // a listener added after the switcher opened its session is told of that switch too
            if (listeners.addIfAbsent(listener) && currentSwitch != null && current != null) {
                tell(listener, currentSwitch);
            }
        } finally {
            listenerLock.unlock();
        }
    }

    @Override
    public void removeListener(SwitchListener listener) {
        listeners.remove(listener);
    }

    @Override
    public void reselect() {
        signals.offer(Signal.RESELECT);
    }

    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        signals.offer(Signal.CLOSE);
        registry.removeListener(registryListener);
        if (Thread.currentThread() == thread) {
            // a SwitchListener runs on the switcher's thread: joining it would only wait out the
            // bound, and the session is settled by the loop's end once the listener returns
            return;
        }
        try {
            thread.join(options.callbackTimeout().plus(options.asyncPoll()).plusSeconds(1).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        callbackThreads.shutdownNow();
        if (thread.isAlive()) {
            LOG.log(Level.WARNING, "IA switcher '" + options.name() + "' did not stop in time; its thread is left to end");
        }
        publish(null, State.CLOSED);
    }

    // ---------------------------------------------------------------------------------------------
    // the switcher's thread
    // ---------------------------------------------------------------------------------------------

    private void run() {
        Loss pending = null;
        DatEvent event = new DatEvent();
        try {
            while (!closing) {
                Current<S> c = current;
                if (c == null) {
                    pending = openBest(pending);
                    if (current == null && !closing) {
                        publish(null, generation == 0 ? State.STARTING : State.WAITING);
                        Signal signal = signals.poll(options.retryInterval().toMillis(), TimeUnit.MILLISECONDS);
                        if (signal != null) {
                            signals.clear(); // one look at the registry answers them all
                        }
                    }
                    continue;
                }
                SwitchCause cause = watch(c, event);
                if (cause != null) {
                    pending = leave(c, cause);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "IA switcher '" + options.name() + "' stopped on an unexpected error", e);
        } finally {
            Current<S> c = current;
            if (c != null) {
                leave(c, SwitchCause.CLOSED);
            }
            publish(null, State.CLOSED);
            callbackThreads.shutdown(); // callbacks run only for this thread
        }
    }

    /**
     * Watches the current IA for at most one async EVD poll.
     *
     * @return the cause to leave it, or {@code null} to keep it
     */
    private SwitchCause watch(Current<S> c, DatEvent event) throws InterruptedException {
        if (departed.getAndSet(null) != null && !stillRegistered(c.provider())) {
            return SwitchCause.PROVIDER_LEFT;
        }
        Signal signal = signals.poll();
        if (signal == Signal.CLOSE) {
            return null; // the loop ends; the finally block settles the session
        }
        if (signal == Signal.RESELECT) {
            List<ProviderDTO> best = candidates();
            if (!best.isEmpty() && !sameEntry(best.getFirst(), c.provider())) {
                return SwitchCause.RESELECTED;
            }
        }
        int status;
        if (c.asyncEvd() == null || c.asyncEvd() == EventDispatcher.OUT_OF_SCOPE) {
            Thread.sleep(options.asyncPoll().toMillis());
            return c.ia().isOpen() ? null : failureCause(c);
        }
        status = c.asyncEvd().await(options.asyncPoll().toNanos() / 1000, 1, event);
        if (status == DatReturn.SUCCESS) {
            if (event.eventNumber() == EventNumber.ASYNC_ERROR_IA_CATASTROPHIC) {
                return failureCause(c);
            }
            hand(c, event);
            return null;
        }
        int type = DatReturn.typeOf(status);
        if (type == DatReturn.TIMEOUT_EXPIRED || type == DatReturn.INTERRUPTED_CALL) {
            return null;
        }
        if (type == DatReturn.INVALID_STATE) {
            // someone else waits on the async EVD: fall back to looking at the IA
            Thread.sleep(options.asyncPoll().toMillis());
            return c.ia().isOpen() ? null : failureCause(c);
        }
        return failureCause(c); // ABORT, INVALID_HANDLE
    }

    /**
     * Why the current IA failed. The registry updates its view before it fails the IAs of a
     * departing provider and tells its listeners only afterwards, so the catastrophic event can
     * overtake {@code providerRemoved}: the registry's view, not the listener, decides.
     */
    private SwitchCause failureCause(Current<S> c) {
        return stillRegistered(c.provider()) ? SwitchCause.IA_FAILED : SwitchCause.PROVIDER_LEFT;
    }

    /**
     * Whether the provider of an IA still offers its IA name, active or shadowed. The registry
     * reports an entry removed also when another provider of that name outranks it (a higher
     * ranking, a static entry): that provider has not left, and the IAs it opened still work.
     */
    private boolean stillRegistered(ProviderDTO provider) {
        try {
            for (ProviderDTO entry : registry.getRuntimeDTO().providers()) {
                if (entry.id() == provider.id() && entry.iaName().equals(provider.iaName())
                        && entry.state() != ProviderDTO.State.FAILED) {
                    return true;
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "IA switcher '" + options.name() + "': the registry failed to describe its providers", e);
        }
        return false;
    }

    /**
     * Whether two DTOs describe the same registry entry. One provider service can serve several
     * entries (its own IAs, the static entries that name it), so the service id alone does not.
     */
    private static boolean sameEntry(ProviderDTO a, ProviderDTO b) {
        return a.id() == b.id() && a.iaName().equals(b.iaName()) && a.versionMajor() == b.versionMajor()
                && a.versionMinor() == b.versionMinor() && a.threadSafe() == b.threadSafe() && a.origin() == b.origin()
                && a.source().equals(b.source()) && a.instanceData().equals(b.instanceData());
    }

    private void hand(Current<S> c, DatEvent event) {
        DatEvent copy = new DatEvent().copyFrom(event);
        call(() -> {
            callbacks.asyncEvent(c.session(), copy);
            return null;
        });
    }

    /** Leaves an IA: the application settles it, the switcher closes it. */
    private Loss leave(Current<S> c, SwitchCause cause) {
        Instant at = Instant.now();
        listenerLock.lock();
        try {
            currentSwitch = null; // no replay of a switch whose session is ending
        } finally {
            listenerLock.unlock();
        }
        publish(null, closing ? State.CLOSED : State.SWITCHING);
        Instant deadline = at.plus(options.callbackTimeout());
        Outcome<Accounting> settled = call(() -> callbacks.lost(c.session(), new LossContext(c.provider(), c.ia(), cause, deadline)));
        try {
            c.ia().close();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "closing the left IA " + c.provider().iaName() + " failed", e);
        }
        Accounting accounting = settled.value();
        String detail = settled.problem() != null ? "the application's lost() " + settled.problem()
                : accounting != null && !accounting.balanced() ? accounting.unaccounted() + " operation(s) of the old IA unaccounted"
                : "";
        if (accounting != null && !accounting.balanced()) {
            LOG.log(Level.WARNING, "IA switcher '" + options.name() + "': left " + c.provider().iaName() + " (" + cause + ") with "
                    + accounting);
        }
        return new Loss(c.provider(), cause, accounting, at, detail);
    }

    /** Opens the best candidate that works; on success reports the switch and returns no loss. */
    private Loss openBest(Loss pending) {
        for (ProviderDTO candidate : candidates()) {
            if (closing) {
                return pending;
            }
            InterfaceAdapter ia;
            try {
                // the candidate's version and thread safety select exactly its entry among those of its name
                ia = registry.openIa(candidate.iaName(), DatRegistry.DEFAULT_ASYNC_EVD_QLEN, null, candidate.versionMajor(),
                        candidate.versionMinor(), candidate.threadSafe());
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "IA switcher '" + options.name() + "': cannot open " + candidate.iaName() + ": " + e.getMessage());
                continue;
            }
            Outcome<S> opened = call(() -> callbacks.open(ia, candidate));
            if (opened.problem() != null) {
                LOG.log(Level.WARNING, "IA switcher '" + options.name() + "': the application's open() on " + candidate.iaName() + " "
                        + opened.problem());
                closeQuietly(ia);
                continue;
            }
            EventDispatcher asyncEvd;
            try {
                asyncEvd = ia.query().asyncEvd();
            } catch (RuntimeException e) {
                closeQuietly(ia);
                continue;
            }
            long next = generation + 1;
            generation = next;
            departed.set(null);
            publish(new Current<>(ia, candidate, asyncEvd, opened.value(), next), State.ACTIVE);
            SwitchEvent event = pending == null
                    ? new SwitchEvent(next, SwitchCause.INITIAL, null, candidate, Accounting.NONE, Duration.ZERO, "")
                    : new SwitchEvent(next, pending.cause(), pending.from(), candidate, pending.accounting(),
                            Duration.between(pending.at(), Instant.now()), pending.detail());
            LOG.log(Level.INFO, "IA switcher '" + options.name() + "': " + event);
            listenerLock.lock();
            try {
                currentSwitch = event;
                for (SwitchListener listener : listeners) {
                    tell(listener, event);
                }
            } finally {
                listenerLock.unlock();
            }
            return null;
        }
        return pending;
    }

    private static void tell(SwitchListener listener, SwitchEvent event) {
        try {
            listener.switched(event);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "switch listener " + listener + " failed", e);
        }
    }

    /** The candidate IAs, best first: by preference, then in the registry's order. */
    private List<ProviderDTO> candidates() {
        Map<String, ProviderDTO> ordered = new LinkedHashMap<>();
        try {
            for (String preference : options.preferences()) {
                for (ProviderDTO provider : registry.findProviders(and(options.filter(), preference))) {
                    ordered.putIfAbsent(provider.iaName(), provider);
                }
            }
            for (ProviderDTO provider : registry.findProviders(options.filter())) {
                ordered.putIfAbsent(provider.iaName(), provider);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "IA switcher '" + options.name() + "': the registry failed to list providers", e);
        }
        return new ArrayList<>(ordered.values());
    }

    private void publish(Current<S> next, State nextState) {
        lock.lock();
        try {
            current = next;
            state = nextState;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private static void closeQuietly(InterfaceAdapter ia) {
        try {
            ia.close();
        } catch (RuntimeException e) {
            // closing a failed IA may complain; it is gone either way
        }
    }

    /** The outcome of a callback: its value, or what went wrong. */
    private record Outcome<T>(T value, String problem) {
    }

    /** Runs an application callback on a virtual thread, bounded by the callback timeout. */
    private <T> Outcome<T> call(Callable<T> callback) {
        Future<T> future;
        try {
            future = callbackThreads.submit(callback);
        } catch (RuntimeException e) {
            return new Outcome<>(null, "could not run: " + e);
        }
        try {
            return new Outcome<>(future.get(options.callbackTimeout().toMillis(), TimeUnit.MILLISECONDS), null);
        } catch (ExecutionException e) {
            return new Outcome<>(null, "failed: " + e.getCause());
        } catch (TimeoutException e) {
            future.cancel(true);
            return new Outcome<>(null, "did not return within " + options.callbackTimeout().toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(true);
            return new Outcome<>(null, "was interrupted");
        }
    }

    @Override
    public String toString() {
        Current<S> c = current;
        return "IaSwitcher[" + options.name() + ", " + state + (c == null ? "" : ", " + c.provider().iaName()) + "]";
    }
}
