package dat.registry.internal;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.InterfaceAdapter;
import dat.api.ProviderInfo;
import dat.api.spi.DatIaFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The mutable state that goes with one {@link Entry}: whether its provider was initialized for it
 * ({@code dat_provider_init}) and finished ({@code dat_provider_fini}), and the IAs opened through
 * it, held weakly so that the registry never keeps an IA alive. One binding lives as long as its
 * entry's key, and once retired until its {@code fini} is decided.
 *
 * <p>The registry's own lock is never held while a binding's lock is taken (removing an added
 * provider takes the registry's lock inside its bindings' locks, see {@link #holdingAll}). The
 * provider's {@code init} runs under a lock of its own and the registry's lock that orders
 * {@code init} and {@code fini} of its provider and IA name, so that counting IAs (for a list, a
 * listener or a removal) never waits for it; {@code isOpen} runs under the binding's lock;
 * {@code openIa} runs under no registry lock at all.
 */
final class Binding {

    private static final AtomicLong CREATED = new AtomicLong();

    private final Entry.Key key;
    /** The order in which {@link #holdingAll} takes the locks of several bindings. */
    private final long order = CREATED.incrementAndGet();
    private final Object lock = new Object();
    /** Held while the provider's {@code init} runs, so that counting IAs never waits for an {@code init}. */
    private final Object initLock = new Object();
    private final List<WeakReference<InterfaceAdapter>> ias = new ArrayList<>();
    private volatile boolean initialized; // written under initLock
    /**
     * No new init or open. Set to {@code true} only, and also without {@link #lock}: the registry
     * refuses opens under its own lock, which {@link #holdingAll} takes inside binding locks, and
     * gives a {@code fini} up without waiting on provider code ({@code isOpen}) under a binding lock.
     */
    private volatile boolean retired;
    /** {@code fini} was called, or will never be; set to {@code true} only, like {@link #retired}. */
    private volatile boolean finished;
    /** Set under the registry's lock when the entry leaves the view; {@link #retire} follows. */
    private volatile boolean retiring;
    private int opening;

    Binding(Entry.Key key) {
        this.key = key;
    }

    Entry.Key key() {
        return key;
    }

    /**
     * Calls the provider's {@code init} once, before the first open of a static entry's IA.
     *
     * @return whether {@code init} was called now
     * @throws DatException the provider's failure, or {@link DatReturn#PROVIDER_NOT_FOUND} when the
     *     entry went away meanwhile
     */
    boolean ensureInitialized(DatIaFactory factory, ProviderInfo info, String instanceData) {
        synchronized (initLock) {
            refuseIfRetired();
            if (initialized) {
                return false;
            }
            factory.init(info, instanceData);
            initialized = true;
            return true;
        }
    }

    /**
     * Refuses an init or open once the binding is retired.
     *
     * @throws DatException {@link DatReturn#PROVIDER_NOT_FOUND} when it is
     */
    void refuseIfRetired() {
        if (retired) {
            throw gone();
        }
    }

    /** Whether the binding takes no more inits or opens. */
    boolean isRetired() {
        return retired;
    }

    /** Counts an open under way, so that removal and {@code fini} see it. */
    void beginOpen() {
        synchronized (lock) {
            refuseIfRetired();
            opening++;
        }
    }

    /** Ends an open under way, keeping the IA it gave (weakly), if any. */
    void endOpen(InterfaceAdapter ia) {
        synchronized (lock) {
            opening--;
            if (ia != null) {
                prune();
                ias.add(new WeakReference<>(ia));
            }
        }
    }

    /**
     * How many IAs opened through this entry are still open, opens under way included.
     *
     * @return the count
     */
    int openCount() {
        synchronized (lock) {
            prune();
            return ias.size() + opening;
        }
    }

    /**
     * The IAs opened through this entry that are still open.
     *
     * @return a snapshot
     */
    List<InterfaceAdapter> openIas() {
        synchronized (lock) {
            prune();
            List<InterfaceAdapter> open = new ArrayList<>(ias.size());
            for (WeakReference<InterfaceAdapter> reference : ias) {
                InterfaceAdapter ia = reference.get();
                if (ia != null) {
                    open.add(ia);
                }
            }
            return open;
        }
    }

    /** Whether the provider's {@code init} was called for this binding. */
    boolean isInitialized() {
        return initialized;
    }

    /** What {@link #retire} decides about the provider's {@code fini}. */
    enum Fini {
        /** Call it now: the binding was initialized and nothing opened through it is open. */
        NOW,
        /** Ask again later: IAs opened through it are still open. */
        LATER,
        /** Never: it was not initialized, was finished already, or its IAs are left to the provider. */
        NEVER
    }

    /**
     * Marks the binding as gone (no new open or init) and decides on the provider's {@code fini},
     * which comes once: when it was initialized and nothing opened through it is open. Called
     * again while IAs are open, it answers {@link Fini#LATER} as long as {@code mayWait}.
     *
     * @param mayWait whether the provider stays, so that {@code fini} may follow the last IA's
     *     close; without it, open IAs are the provider's to clean up (it is leaving)
     * @return the decision
     */
    Fini retire(boolean mayWait) {
        synchronized (lock) {
            retired = true;
            if (finished) {
                return Fini.NEVER;
            }
            prune();
            boolean inUse = !ias.isEmpty() || opening > 0;
            if (initialized && inUse && mayWait) {
                return Fini.LATER;
            }
            finished = true;
            return initialized && !inUse ? Fini.NOW : Fini.NEVER;
        }
    }

    /**
     * Gives up the {@code fini} still due: a later {@code init} of the same IA name by the same
     * provider replaced what this binding's {@code init} set up, and a {@code fini} now would undo
     * the replacement; or the registry gave up waiting for an {@code init} or {@code fini} of the
     * provider that does not return. Where it races a {@link #retire}, the registry calls
     * {@code fini} only for the thread that took the binding off its list of undecided ones.
     */
    void superseded() {
        retired = true; // a thread with an older view may still hold it: no init or open through it
        finished = true;
    }

    /**
     * Refuses every later init and open; {@link #retire} still decides on {@code fini}. An init
     * under way completes, and the open that asked for it is refused.
     */
    void refuseOpens() {
        retired = true;
    }

    /**
     * Runs an action while holding the locks of several bindings, taken in creation order so that
     * two callers cannot deadlock; no {@code beginOpen} of these bindings runs meanwhile.
     *
     * @param bindings the bindings
     * @param action what to do
     * @return what the action returns
     */
    static <T> T holdingAll(List<Binding> bindings, Supplier<T> action) {
        List<Binding> ordered = bindings.stream().sorted(Comparator.comparingLong((Binding b) -> b.order)).toList();
        return holding(ordered, 0, action);
    }

    private static <T> T holding(List<Binding> ordered, int from, Supplier<T> action) {
        if (from == ordered.size()) {
            return action.get();
        }
        synchronized (ordered.get(from).lock) {
            return holding(ordered, from + 1, action);
        }
    }

    /** Marks the binding as leaving; called under the registry's lock, so it takes no lock. */
    void markRetiring() {
        retiring = true;
    }

    /** Whether the binding is leaving, so that a returning entry gets a new one. */
    boolean isRetiring() {
        return retiring;
    }

    private void prune() {
        for (Iterator<WeakReference<InterfaceAdapter>> it = ias.iterator(); it.hasNext();) {
            InterfaceAdapter ia = it.next().get();
            if (ia == null || !isOpen(ia)) {
                it.remove();
            }
        }
    }

    private static boolean isOpen(InterfaceAdapter ia) {
        try {
            return ia.isOpen();
        } catch (RuntimeException e) {
            return false; // a provider that fails to answer has no usable IA
        }
    }

    private DatException gone() {
        return DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                "IA '" + key.iaName() + "' left the registry while being opened");
    }
}
