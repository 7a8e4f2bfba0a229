package dat.registry.internal;

import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatRegistry;
import dat.api.DatRegistryListener;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.api.ProviderInfo;
import dat.api.RegistryRuntimeDTO;
import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.api.spi.IaOpenRequest;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * The DAT registry itself, free of OSGi: registrations come and go through {@link #register},
 * {@link #unregister} and {@link DatRegistry#addProvider}, the static registry through
 * {@link #setStaticRegistry}; the OSGi component and {@code DatRegistries} feed it.
 *
 * <p>Every change recomputes the whole {@link View} (providers are few) under one lock and
 * publishes it; {@code openIa}, listing and DTOs read the published view without locking.
 *
 * <p>What it does not do: it never closes an IA (a departing provider fails its own IAs, see
 * {@link DatIaFactory}), never calls provider code while holding its lock, never blocks on a
 * provider that comes or goes (but for a provider that leaves, or a close, while an {@code init}
 * or {@code fini} of it is under way: see {@link #finishRetired}), and never holds a strong
 * reference to an opened IA.
 *
 * <p>{@code init} and {@code fini} of static entries are serialized per provider and IA name,
 * under a lock of their own ({@link #setups}), so that a {@code fini} never follows an
 * {@code init} that replaced what it would undo: a provider sees, per IA name, {@code init}s that
 * each replace the set-up before and a {@code fini} that undoes the last one. Opens of other IA
 * names never wait for them.
 */
public final class Registry implements DatRegistry {

    private static final System.Logger LOG = System.getLogger(Registry.class.getName());

    /** How long a provider that leaves, or a close, waits for an {@code init} or {@code fini} under way. */
    static final Duration SETUP_WAIT = Duration.ofSeconds(10);

    private final Object lock = new Object();
    /**
     * Per provider registration and IA name: held while calling {@code init} or {@code fini} and
     * while deciding on {@code fini}; never taken under {@link #lock}, which may be taken under it.
     */
    private final Map<SetupKey, ReentrantLock> setups = new ConcurrentHashMap<>();
    private volatile int maxAddedProviders;
    private final Duration setupWait;
    private final Listeners listeners = new Listeners();

    // guarded by lock
    private final Map<Long, Registration> registrations = new LinkedHashMap<>();
    private final Map<Entry.Key, Binding> bindings = new HashMap<>();
    private final Map<Entry.Key, View.Failure> failures = new HashMap<>();
    /**
     * The bindings that left the view and whose {@code fini} is not decided yet: those with IAs
     * open wait here for their last close. Changed under {@link #lock}; read without it for a quick
     * look whether it is empty.
     */
    private final List<Retired> unfinished = new CopyOnWriteArrayList<>();
    private StaticRegistry staticRegistry = StaticRegistry.NONE;
    private long lastLocalId;
    private volatile boolean closed; // written under lock; openIa reads it without

    private volatile View view = View.EMPTY;

    /**
     * Creates an empty registry.
     *
     * @param maxAddedProviders the most providers {@link #addProvider} accepts
     */
    public Registry(int maxAddedProviders) {
        this(maxAddedProviders, SETUP_WAIT);
    }

    /**
     * Creates an empty registry that waits {@code setupWait} for a provider's {@code init} or
     * {@code fini} under way where a provider leaves or the registry closes (tests).
     */
    Registry(int maxAddedProviders, Duration setupWait) {
        if (maxAddedProviders < 0) {
            throw new IllegalArgumentException("maxAddedProviders " + maxAddedProviders);
        }
        this.maxAddedProviders = maxAddedProviders;
        this.setupWait = setupWait;
    }

    // ---------------------------------------------------------------------------------------------
    // feeding the registry
    // ---------------------------------------------------------------------------------------------

    /**
     * Adds or replaces (same id) a registration: {@code dat_registry_add_provider} for a factory
     * service or a ServiceLoader provider.
     */
    void register(Registration registration) {
        update(() -> {
            Registration old = registrations.put(registration.id(), registration);
            if (old != null) {
                // modified: failures found with the old properties no longer count
                failures.keySet().removeIf(key -> key.registrationId() == registration.id());
            }
        });
    }

    /** Removes a registration: {@code dat_registry_remove_provider} of a factory service. */
    void unregister(long id) {
        Registration removed;
        synchronized (lock) {
            removed = registrations.remove(id);
            failures.keySet().removeIf(key -> key.registrationId() == id);
            recompute();
        }
        letGo(id, removed);
    }

    /**
     * Lets a registration that left go: the {@code fini}s due to it (see {@link #finishLeaving}),
     * then its factory, then the events of its removal.
     *
     * @param removed the registration, or {@code null} when none was registered under the id
     */
    private void letGo(long registrationId, Registration removed) {
        finishLeaving(r -> r.binding().key().registrationId() == registrationId);
        if (removed != null) {
            removed.factory().release();
        }
        listeners.deliver();
    }

    /**
     * Decides on {@code fini} for the retired bindings of the providers that left, waiting for an
     * {@code init} or {@code fini} of theirs under way (the others are decided where no such call
     * is under way), then drops their set-up locks: they are decided while the factories are still
     * held, not later, after the factories were released.
     *
     * @param leaving the retired bindings whose providers left
     */
    private void finishLeaving(Predicate<Retired> leaving) {
        finishRetired(leaving);
        synchronized (lock) {
            forgetSetups();
        }
    }

    /**
     * Changes the most providers {@link #addProvider} accepts; those already added stay.
     *
     * @param max the new maximum
     */
    void setMaxAddedProviders(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("maxAddedProviders " + max);
        }
        maxAddedProviders = max;
    }

    /** @return the most providers {@link #addProvider} accepts */
    int maxAddedProviders() {
        return maxAddedProviders;
    }

    /** A new id for a registration that is not an OSGi service: -1, -2, ... */
    long nextLocalId() {
        synchronized (lock) {
            return --lastLocalId;
        }
    }

    /**
     * Replaces the static registry; its bad lines are logged once each.
     *
     * @param newStaticRegistry the static registry read
     */
    void setStaticRegistry(StaticRegistry newStaticRegistry) {
        newStaticRegistry.problems().forEach(problem -> LOG.log(Level.WARNING, "DAT static registry: " + problem));
        update(() -> staticRegistry = newStaticRegistry);
    }

    /**
     * Retires every entry (calling {@code fini} where due; an entry with an IA open is left to its
     * provider) and forgets the listeners once they have heard every {@code providerRemoved}.
     */
    void close() {
        List<Registration> leaving = new ArrayList<>();
        update(() -> {
            leaving.addAll(registrations.values());
            registrations.clear();
            staticRegistry = StaticRegistry.NONE;
            closed = true;
        });
        finishLeaving(r -> true); // every fini due comes before close returns, even one another thread's init delayed
        leaving.forEach(registration -> registration.factory().release()); // after their fini, which needs the factory
        listeners.close();
    }

    /**
     * Applies a change under the lock, recomputes and publishes the view, queues the listener
     * events, then (without the lock) calls {@code fini} for retired static entries and delivers
     * the events.
     */
    private void update(Runnable change) {
        synchronized (lock) {
            change.run();
            recompute();
        }
        finish();
    }

    /**
     * Recomputes and publishes the view after a change and queues the listener events; called
     * under the lock. The bindings whose entries left the view go to {@link #unfinished}.
     */
    private void recompute() {
        View old = view;
        List<Entry> entries = View.compute(registrations.values(), staticRegistry, failures);
        Map<Entry.Key, Binding> current = new HashMap<>();
        for (Entry entry : entries) {
            current.put(entry.key(), bindings.compute(entry.key(),
                    (key, binding) -> binding == null || binding.isRetiring() ? new Binding(key) : binding));
        }
        // a failure belongs to an entry; one that returns (the same line and ia_params) is tried again
        failures.keySet().retainAll(current.keySet());
        Map<Entry.Key, Entry> oldEntries = new HashMap<>();
        old.entries().forEach(entry -> oldEntries.put(entry.key(), entry));
        for (Map.Entry<Entry.Key, Binding> binding : List.copyOf(bindings.entrySet())) {
            Entry.Key key = binding.getKey();
            if (current.containsKey(key)) {
                continue;
            }
            if (!binding.getValue().isRetiring()) {
                binding.getValue().markRetiring();
                unfinished.add(new Retired(binding.getValue(), oldEntries.get(key)));
            }
            // a retired binding counts the IAs of its registration while that lives (PROVIDER_IN_USE)
            if (!registrations.containsKey(key.registrationId())) {
                bindings.remove(key);
                // its provider left: an open with an older view neither begins nor holds up its fini
                binding.getValue().refuseOpens();
            }
        }
        View next = new View(entries, current, staticRegistry);
        listeners.queueChanges(old, next);
        view = next;
    }

    /** Decides on {@code fini} for the bindings that left the view and delivers the events; without the lock. */
    private void finish() {
        finishRetired(r -> false);
        listeners.deliver();
    }

    /**
     * Calls {@code fini} for each retired binding that is due: initialized and nothing opened
     * through it open. One with IAs open waits while its provider stays, and is looked at again at
     * a later open or change (the registry is not told of closes); when its provider leaves, or
     * the registry closes, its IAs are the provider's.
     *
     * @param wait which bindings to decide on even when an {@code init} or {@code fini} of the same
     *     IA name is under way, waiting for it up to {@link #SETUP_WAIT} (then their
     *     {@code fini} is given up, as for a provider that leaves with IAs open, with a warning);
     *     the others are then left to a later call
     */
    private void finishRetired(Predicate<Retired> wait) {
        if (unfinished.isEmpty()) {
            return;
        }
        for (Retired r : List.copyOf(unfinished)) {
            ReentrantLock setup = setupOf(r.binding());
            if (wait.test(r)) {
                if (!lockWithin(setup)) {
                    giveUp(r);
                    continue;
                }
            } else if (!setup.tryLock()) {
                continue;
            }
            try {
                decide(r);
            } finally {
                setup.unlock();
            }
        }
    }

    private boolean lockWithin(ReentrantLock setup) {
        try {
            return setup.tryLock(setupWait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Gives up the {@code fini} of a retired binding whose provider's {@code init} or {@code fini} does not return. */
    private void giveUp(Retired r) {
        synchronized (lock) {
            if (!unfinished.remove(r)) {
                return;
            }
        }
        r.binding().superseded();
        LOG.log(Level.WARNING, "DAT registry: gave up the fini of IA '" + r.binding().key().iaName() + "': its provider's init or fini "
                + "of that IA name has not returned in " + setupWait.toMillis() + " ms");
    }

    /**
     * Drops the set-up locks of registrations that left once no retired binding of theirs is
     * undecided, so that providers coming and going leave none behind; called under the lock
     * where a registration leaves (its retired bindings all decided then), not on the open path.
     * Nothing takes such a lock afterwards but an open that lost the race with the removal, whose
     * binding refuses it.
     */
    private void forgetSetups() {
        setups.keySet().removeIf(key -> !registrations.containsKey(key.registrationId())
                && unfinished.stream().noneMatch(r -> r.binding().key().registrationId() == key.registrationId()
                        && r.binding().key().iaName().equals(key.iaName())));
    }

    /** Decides on the {@code fini} of one retired binding, if nothing decided it meanwhile; its setup lock held. */
    private void decide(Retired r) {
        boolean providerStays;
        synchronized (lock) {
            if (!unfinished.contains(r)) {
                return;
            }
            providerStays = !closed && registrations.containsKey(r.binding().key().registrationId());
        }
        Binding.Fini fini = r.binding().retire(providerStays);
        if (fini == Binding.Fini.LATER) {
            return;
        }
        boolean mine;
        synchronized (lock) {
            mine = unfinished.remove(r); // not when a registry that stopped waiting gave this fini up meanwhile
        }
        if (mine && fini == Binding.Fini.NOW && r.entry() != null && r.entry().registration() != null) {
            fini(r.entry());
        }
    }

    /**
     * Calls the provider's {@code init} for a static entry before its first open. An {@code init}
     * replaces what the provider set up for the IA name before, so the {@code fini} still due for
     * a retired entry of the same provider and IA name (one whose IAs are open) is given up: after
     * this {@code init} it would undo the new set-up.
     */
    private void initialize(Entry entry, Binding binding, DatIaFactory factory) {
        if (binding.isInitialized()) {
            return; // the open of an entry set up before: no lock beyond its binding's
        }
        binding.refuseIfRetired(); // an open with the view before its provider left: no set-up lock for it
        ReentrantLock setup = setupOf(binding);
        setup.lock();
        try {
            List<Retired> sameName = unfinished.stream().filter(r -> r.binding() != binding && sameSetup(r.binding(), binding))
                    .toList();
            sameName.forEach(this::decide); // a retired entry whose IAs are closed is finished before the new one starts
            if (!binding.ensureInitialized(factory, entry.info(), entry.instanceData())) {
                return;
            }
            // those that retired while the init ran too: each was set up before it
            List<Retired> replaced = new ArrayList<>();
            synchronized (lock) {
                for (Retired r : List.copyOf(unfinished)) {
                    if (r.binding() != binding && sameSetup(r.binding(), binding) && unfinished.remove(r)) {
                        replaced.add(r);
                    }
                }
            }
            replaced.forEach(r -> r.binding().superseded());
        } finally {
            setup.unlock();
            if (binding.isRetired()) {
                synchronized (lock) {
                    forgetSetups(); // the lock of a provider that left while this open looked at it
                }
            }
        }
    }

    /** How many set-up locks the registry keeps (tests: none outlives its registration). */
    int setUpLocks() {
        return setups.size();
    }

    /** The provider registration and IA name whose {@code init} and {@code fini} are ordered. */
    private record SetupKey(long registrationId, String iaName) {
    }

    private ReentrantLock setupOf(Binding binding) {
        return setups.computeIfAbsent(new SetupKey(binding.key().registrationId(), binding.key().iaName()), key -> new ReentrantLock());
    }

    private static boolean sameSetup(Binding a, Binding b) {
        return a.key().registrationId() == b.key().registrationId() && a.key().iaName().equals(b.key().iaName());
    }

    /** A binding whose entry left the view, with that entry (for {@code fini}). */
    private record Retired(Binding binding, Entry entry) {
    }

    private static void fini(Entry entry) {
        DatIaFactory factory = entry.registration().factory().get();
        if (factory == null) {
            return;
        }
        try {
            factory.fini(entry.info());
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError vmError) {
                throw vmError; // the JVM's failure, not the provider's
            }
            // say a LinkageError: the provider's bundle was updated or uninstalled under it; the failure
            // is the provider's, not that of the open or change that happened to decide its fini
            LOG.log(Level.WARNING, "DAT provider '" + entry.registration().providerName() + "' failed in fini of IA '"
                    + entry.iaName() + "'", e);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // DatRegistry
    // ---------------------------------------------------------------------------------------------

    @Override
    public List<ProviderInfo> listProviders() {
        View current = view;
        if (current.staticRegistry().missing()) {
            throw missingStaticRegistry(current.staticRegistry());
        }
        return current.entries().stream().filter(Entry::active).map(Entry::info).distinct()
                .sorted(Comparator.comparing(ProviderInfo::iaName).thenComparing(ProviderInfo::versionMajor)
                        .thenComparing(ProviderInfo::versionMinor).thenComparing(ProviderInfo::threadSafe))
                .toList();
    }

    @Override
    public int listProviders(int maxToReturn, ProviderInfo[] providerList) {
        List<ProviderInfo> providers = listProviders();
        int size = providers.size();
        if (maxToReturn < 0) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1, "maxToReturn",
                    "negative: " + maxToReturn + "; the registry has " + size + " entries");
        }
        if (providerList == null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3, "providerList",
                    "null; the registry has " + size + " entries");
        }
        if (providerList.length < maxToReturn) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3, "providerList",
                    "holds " + providerList.length + " entries, fewer than maxToReturn " + maxToReturn
                            + "; the registry has " + size + " entries");
        }
        if (maxToReturn < size) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1, "maxToReturn",
                    maxToReturn + " is too small: the registry has " + size + " entries");
        }
        for (int i = 0; i < size; i++) {
            providerList[i] = providers.get(i);
        }
        return size;
    }

    private static DatException missingStaticRegistry(StaticRegistry missing) {
        return DatException.of(DatReturn.INTERNAL_ERROR, DatReturn.NO_SUBTYPE, null,
                "the static registry " + missing.path() + " is missing: " + missing.readError());
    }

    @Override
    public InterfaceAdapter openIa(String iaName, int asyncEvdMinQlen, EventDispatcher asyncEvd, int versionMajor,
            int versionMinor, boolean threadSafe) {
        if (iaName == null || iaName.isEmpty()) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1, "iaName",
                    iaName == null ? "null" : "empty");
        }
        if (asyncEvd == null && asyncEvdMinQlen < 1) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "asyncEvdMinQlen",
                    asyncEvdMinQlen + ": the async EVD the provider creates needs room for at least 1 event");
        }
        if (versionMajor < 0) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5, "versionMajor", "negative");
        }
        if (versionMinor < 0) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6, "versionMinor", "negative");
        }
        if (asyncEvd != null && asyncEvd != EventDispatcher.ASYNC_EXISTS && !asyncEvd.isOpen()) {
            throw DatException.of(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_ASYNC, "asyncEvd",
                    "the async EVD is closed");
        }
        if (closed) {
            throw DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                    "the registry is closed (IA '" + iaName + "')");
        }
        String name = iaName.startsWith(DatConstants.IA_NAME_RO_AWARE_PREFIX)
                ? iaName.substring(DatConstants.IA_NAME_RO_AWARE_PREFIX.length()) : iaName;
        finishRetired(r -> false);
        View current = view;
        Entry chosen = current.choose(name, versionMajor, versionMinor, threadSafe);
        Binding binding = current.bindings().get(chosen.key());
        DatIaFactory factory = chosen.registration().factory().get();
        if (factory == null) {
            fail(chosen, ProviderDTO.FAILURE_REASON_SERVICE_UNAVAILABLE, "the provider's factory service could not be obtained");
            throw DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                    "the factory of provider '" + chosen.registration().providerName() + "' for IA '" + name
                            + "' is not available (its provider is leaving or failed to start)");
        }
        if (chosen.staticEntry() != null) {
            try {
                initialize(chosen, binding, factory);
            } catch (RuntimeException e) {
                if (e instanceof DatException failure && failure.type() == DatReturn.PROVIDER_NOT_FOUND) {
                    throw failure;
                }
                String detail = "provider '" + chosen.registration().providerName() + "' failed to initialize IA '" + name
                        + "' (" + chosen.source() + "): " + e.getMessage();
                fail(chosen, ProviderDTO.FAILURE_REASON_INIT_FAILED, detail);
                int code = e instanceof DatException failure ? failure.code()
                        : DatReturn.error(DatReturn.INTERNAL_ERROR, DatReturn.NO_SUBTYPE);
                throw new DatException(code, "iaName", detail, e);
            }
        }
        binding.beginOpen();
        InterfaceAdapter ia = null;
        try {
            ia = factory.openIa(new IaOpenRequest(name, asyncEvdMinQlen, asyncEvd, chosen.instanceData()));
            if (ia == null) {
                throw DatException.of(DatReturn.INTERNAL_ERROR, DatReturn.NO_SUBTYPE, "iaName",
                        "provider '" + chosen.registration().providerName() + "' returned no IA for '" + name + "'");
            }
            InterfaceAdapter opened = ia;
            listeners.queueOpened(() -> chosen.dto(binding), opened);
            return ia;
        } catch (DatException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DatException(DatReturn.error(DatReturn.INTERNAL_ERROR, DatReturn.NO_SUBTYPE), "iaName",
                    "provider '" + chosen.registration().providerName() + "' failed to open IA '" + name + "': " + e, e);
        } finally {
            binding.endOpen(ia);
            if (ia != null) {
                listeners.deliver();
            }
        }
    }

    /** Records a failure of an entry found when opening it, so that the next view shows it. */
    private void fail(Entry entry, int reason, String detail) {
        LOG.log(Level.WARNING, "DAT registry: IA '" + entry.iaName() + "' failed: " + detail);
        update(() -> {
            if (registrations.get(entry.key().registrationId()) == entry.registration()) {
                failures.put(entry.key(), new View.Failure(reason, detail));
            }
        });
    }

    @Override
    public void addProvider(DatIaFactory provider, ProviderInfo providerInfo) {
        if (provider == null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1, "provider", "null");
        }
        if (providerInfo == null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "providerInfo", "null");
        }
        // checked before the provider's properties, which would otherwise carry the blame for it
        String iaNameProblem = Registration.iaNameProblem(providerInfo.iaName());
        if (iaNameProblem != null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "providerInfo",
                    "IA name " + iaNameProblem);
        }
        Map<String, Object> properties;
        try {
            properties = new LinkedHashMap<>(Objects.requireNonNullElse(provider.properties(), Map.of()));
        } catch (RuntimeException e) {
            throw new DatException(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1), "provider",
                    "its properties() failed: " + e, e);
        }
        properties.putIfAbsent(DatProviderConstants.DAT_PROVIDER_NAME, provider.getClass().getName());
        properties.put(DatProviderConstants.DAT_IA_NAME, providerInfo.iaName());
        properties.put(DatProviderConstants.DAT_API_VERSION, providerInfo.versionMajor() + "." + providerInfo.versionMinor());
        properties.put(DatProviderConstants.DAT_THREAD_SAFE, providerInfo.threadSafe());
        DatException[] refused = new DatException[1];
        update(() -> {
            if (closed) {
                refused[0] = DatException.of(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE, null, "the registry is closed");
                return;
            }
            for (Entry entry : view.entries()) {
                if (entry.state() != ProviderDTO.State.FAILED && entry.iaName().equals(providerInfo.iaName())
                        && entry.info().equals(providerInfo)) {
                    refused[0] = DatException.of(DatReturn.PROVIDER_ALREADY_REGISTERED, DatReturn.NO_SUBTYPE, "providerInfo",
                            "IA '" + providerInfo.iaName() + "' DAT " + providerInfo.versionMajor() + "."
                                    + providerInfo.versionMinor() + (providerInfo.threadSafe() ? " thread safe" : "")
                                    + " is already registered by " + entry.source());
                    return;
                }
            }
            long added = registrations.values().stream().filter(r -> r.kind() == Registration.Kind.ADDED).count();
            if (added >= maxAddedProviders) {
                refused[0] = DatException.of(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.NO_SUBTYPE, null,
                        "the registry already holds its maximum of " + maxAddedProviders + " added providers");
                return;
            }
            long id = --lastLocalId;
            Registration registration = Registration.describe(id, Registration.Kind.ADDED,
                    "addProvider (" + provider.getClass().getName() + ")", properties, new Registration.Direct(provider));
            if (!registration.valid()) {
                refused[0] = DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1, "provider",
                        "its properties() are invalid: " + registration.failureDetail());
                return;
            }
            registrations.put(id, registration);
        });
        if (refused[0] != null) {
            throw refused[0];
        }
    }

    @Override
    public void removeProvider(DatIaFactory provider, ProviderInfo providerInfo) {
        if (provider == null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1, "provider", "null");
        }
        if (providerInfo == null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "providerInfo", "null");
        }
        while (true) {
            Registration found = null;
            List<Binding> itsBindings = new ArrayList<>();
            synchronized (lock) {
                for (Registration registration : registrations.values()) {
                    if (registration.kind() == Registration.Kind.ADDED && registration.factory().holds(provider)
                            && registration.iaNames().equals(List.of(providerInfo.iaName()))
                            && registration.versionMajor() == providerInfo.versionMajor()
                            && registration.versionMinor() == providerInfo.versionMinor()
                            && registration.threadSafe() == providerInfo.threadSafe()) {
                        found = registration;
                        break;
                    }
                }
                if (found != null) {
                    itsBindings.addAll(bindingsOf(found.id()));
                }
            }
            if (found == null) {
                throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.NO_SUBTYPE, "provider",
                        "no provider was added with addProvider for IA '" + providerInfo.iaName() + "' DAT "
                                + providerInfo.versionMajor() + "." + providerInfo.versionMinor()
                                + (providerInfo.threadSafe() ? " thread safe" : "") + " and this factory");
            }
            if (remove(found, itsBindings)) {
                letGo(found.id(), found);
                return;
            }
            // a binding of the provider came or went meanwhile: look again
        }
    }

    /**
     * Removes an added provider unless an IA opened through it is open or being opened. Holding
     * every binding's lock makes the count and the removal one step for {@code beginOpen}: an open
     * either is counted (PROVIDER_IN_USE) or finds its binding retired (PROVIDER_NOT_FOUND).
     *
     * @return whether it was removed: {@code false} when the provider's bindings are no longer
     *     {@code itsBindings}
     * @throws DatException PROVIDER_IN_USE
     */
    private boolean remove(Registration registration, List<Binding> itsBindings) {
        return Binding.holdingAll(itsBindings, () -> {
            int open = itsBindings.stream().mapToInt(Binding::openCount).sum();
            if (open > 0) {
                throw DatException.of(DatReturn.PROVIDER_IN_USE, DatReturn.NO_SUBTYPE, "provider",
                        open + " IA" + (open == 1 ? " opened through it is" : "s opened through it are") + " still open");
            }
            synchronized (lock) {
                long id = registration.id();
                if (registrations.get(id) != registration || !Set.copyOf(bindingsOf(id)).equals(Set.copyOf(itsBindings))) {
                    return false;
                }
                registrations.remove(id);
                failures.keySet().removeIf(key -> key.registrationId() == id);
                recompute(); // refuses the opens of its bindings
            }
            return true;
        });
    }

    /** The bindings of a registration, retired ones included; called under the lock. */
    private List<Binding> bindingsOf(long registrationId) {
        List<Binding> found = new ArrayList<>();
        bindings.forEach((key, binding) -> {
            if (key.registrationId() == registrationId) {
                found.add(binding);
            }
        });
        return found;
    }

    @Override
    public List<ProviderDTO> findProviders(String filter) {
        LdapFilter parsed = null;
        if (filter != null && !filter.isBlank()) {
            try {
                parsed = LdapFilter.parse(filter);
            } catch (IllegalArgumentException e) {
                throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1, "filter", e.getMessage());
            }
        }
        View current = view;
        List<ProviderDTO> found = new ArrayList<>();
        List<Entry> active = current.entries().stream().filter(Entry::active).sorted(Entry.PREFERENCE).toList();
        for (Entry entry : active) {
            ProviderDTO dto = entry.dto(current.bindings().get(entry.key()));
            if (parsed == null || parsed.matches(dto.properties())) {
                found.add(dto);
            }
        }
        return List.copyOf(found);
    }

    @Override
    public RegistryRuntimeDTO getRuntimeDTO() {
        View current = view;
        List<ProviderDTO> providers = current.entries().stream()
                .map(entry -> entry.dto(current.bindings().get(entry.key())))
                .toList();
        StaticRegistry statics = current.staticRegistry();
        return new RegistryRuntimeDTO(providers, statics.path(), !statics.missing(), statics.problems());
    }

    @Override
    public void addListener(DatRegistryListener listener) {
        if (listener == null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1, "listener", "null");
        }
        View replay = null;
        synchronized (lock) {
            if (closed) {
                throw DatException.of(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE, null,
                        "the registry is closed: a listener would never be told anything");
            }
            if (listeners.add(listener)) {
                View current = view;
                for (Entry entry : current.entries()) {
                    if (entry.active()) {
                        Binding binding = current.bindings().get(entry.key());
                        listeners.queue(listener, true, () -> entry.dto(binding));
                    }
                }
                replay = current;
            }
        }
        if (replay != null) {
            // the IAs open now, read outside the registry's lock since bindings ask the providers
            for (Entry entry : replay.entries()) {
                Binding binding = replay.bindings().get(entry.key());
                if (entry.active() && binding != null) {
                    for (InterfaceAdapter ia : binding.openIas()) {
                        listeners.queueOpened(listener, () -> entry.dto(binding), ia);
                    }
                }
            }
        }
        listeners.deliver();
    }

    @Override
    public void removeListener(DatRegistryListener listener) {
        if (listener != null) {
            listeners.remove(listener);
        }
    }
}
