package dat.switching;

import dat.api.DatRegistry;
import dat.api.ProviderDTO;
import dat.switching.internal.Switcher;
import java.time.Duration;
import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Keeps an application's IA on the best provider available under a filter, and moves it to another
 * provider when the current one leaves: the consumer side of DAT's hot swap.
 *
 * <p>The switcher opens the best candidate IA through the {@link DatRegistry} (the
 * {@link SwitchOptions#filter() filter}, ordered by the {@link SwitchOptions#preferences()
 * preferences}) and lets the application build on it ({@link IaSession#open}). It then watches the
 * IA: a catastrophic error on the IA's async EVD (which the switcher owns) or the provider's
 * departure from the registry ends it. The application settles the old IA
 * ({@link IaSession#lost}: reap the flushed completions, report the {@link Accounting}), the
 * switcher closes it, opens the next best candidate and has the application rebuild (register
 * memory again, reconnect). With no candidate, it waits for a provider to arrive. Each switch is
 * reported to the {@link SwitchListener}s and logged ({@code System.Logger} {@code dat.switching}).
 *
 * <p>The switcher does not move to a better provider that arrives while the current IA works
 * (that would cut working connections): call {@link #reselect()} for that. It never blocks a
 * caller for longer than the caller says ({@link #awaitSession}) or, on {@link #close()}, than the
 * callback timeout, and its own thread never waits on anything without a bound.
 *
 * {@snippet :
 * IaSwitcher<Pair> switcher = IaSwitcher.start(registry,
 *         SwitchOptions.of("orders", "(dat.transport=sim)").withPreferences("(dat.provider.name=verbs)"),
 *         new PairSession());
 * while (running) {
 *     Pair pair = switcher.awaitSession(Duration.ofSeconds(1));
 *     if (pair != null) {
 *         pair.runUntilGone();            // returns when its calls answer DAT_INVALID_HANDLE
 *     }
 * }
 * switcher.close();
 * }
 *
 * @param <S> the application's state on one IA
 * @ThreadSafe every method may be called from any thread
 */
@ProviderType
public interface IaSwitcher<S> extends AutoCloseable {

    /** The switcher's state. */
    enum State {
        /** No IA opened yet: looking for the first candidate. */
        STARTING,
        /** An IA is open and its session ready. */
        ACTIVE,
        /** Leaving an IA and opening the next. */
        SWITCHING,
        /** No candidate could be opened: waiting for a provider. */
        WAITING,
        /** Closed. */
        CLOSED
    }

    /**
     * Starts a switcher: its thread looks for the first IA at once; {@link #awaitSession} waits for
     * it.
     *
     * @param <S> the application's state on one IA
     * @param registry the DAT registry, which must outlive the switcher
     * @param options the filter, preferences and bounds
     * @param session the application's callbacks
     * @return the running switcher
     * @throws dat.api.DatException {@code DAT_INVALID_PARAMETER} for a filter or preference that
     *     does not parse
     */
    static <S> IaSwitcher<S> start(DatRegistry registry, SwitchOptions options, IaSession<S> session) {
        return Switcher.start(registry, options, session);
    }

    /**
     * The current state.
     *
     * @return the state
     */
    State state();

    /**
     * The application's state on the current IA, as {@link IaSession#open} returned it: a volatile
     * read, for the data path.
     *
     * @return the current session, or {@code null} while there is none (starting, switching,
     *     waiting, closed)
     */
    S session();

    /**
     * Waits, boundedly, for a current session.
     *
     * @param timeout the longest wait
     * @return the current session, or {@code null} when the timeout passed or the switcher closed
     * @throws InterruptedException when the calling thread is interrupted
     */
    S awaitSession(Duration timeout) throws InterruptedException;

    /**
     * The provider of the current IA.
     *
     * @return the provider, or empty while there is no current IA
     */
    Optional<ProviderDTO> provider();

    /**
     * How many sessions were opened: 0 before the first, then one more per switch.
     *
     * @return the generation of the current (or last) session
     */
    long generation();

    /**
     * Adds a listener of switches. Adding one twice adds it once. A listener added while a session
     * is current is told at once of the switch that opened it (on the calling thread), so that a
     * listener added right after {@link #start} misses nothing; each listener sees each switch
     * exactly once.
     *
     * @param listener the listener
     */
    void addListener(SwitchListener listener);

    /**
     * Removes a listener.
     *
     * @param listener the listener
     */
    void removeListener(SwitchListener listener);

    /**
     * Moves to the best candidate now, if it is not the current IA: a planned switch
     * ({@link SwitchCause#RESELECTED}), whose {@link IaSession#lost} must quiesce the working IA.
     * Returns at once; the switch happens on the switcher's thread.
     */
    void reselect();

    /**
     * Closes the switcher: the current session is settled ({@link IaSession#lost} with
     * {@link SwitchCause#CLOSED}) and its IA closed, and the switcher stops following the registry.
     * Waits at most about {@link SwitchOptions#callbackTimeout()} plus the async EVD poll; a second
     * call does nothing. Called from a {@link SwitchListener}, which runs on the switcher's thread,
     * it returns at once, and the session is settled as soon as the listener returns.
     */
    @Override
    void close();
}
