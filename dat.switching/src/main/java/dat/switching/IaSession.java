package dat.switching;

import dat.api.DatEvent;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * What an application does with the IAs an {@link IaSwitcher} gives it: build its objects on each
 * new IA ({@link #open}), and settle them when the switcher leaves the IA ({@link #lost}). The
 * switcher calls these methods one at a time, on a thread of its own, each bounded by
 * {@link SwitchOptions#callbackTimeout()}: a call that does not return in time is abandoned (its
 * IA closed) and the switcher moves on.
 *
 * <p>The application's own threads use the session while it is current
 * ({@link IaSwitcher#session()}); when a data-path call answers {@code DAT_INVALID_HANDLE} or a wait
 * answers {@code DAT_ABORT}, the IA is gone: they finish reaping what is left and then ask for the
 * next session ({@link IaSwitcher#awaitSession}).
 *
 * @param <S> the application's state on one IA: its PZ, LMRs, EVDs, Endpoints, ledger...
 */
@ConsumerType
public interface IaSession<S> {

    /**
     * Builds the application's objects on a newly opened IA: protection zone, memory
     * registrations, EVDs, Endpoints, connections. Memory the application keeps across IAs (its
     * buffers) is registered again here, since registrations belong to an IA.
     *
     * @param ia the open IA, which the switcher owns (and closes when it leaves it)
     * @param provider the IA's provider
     * @return the application's state on this IA, which {@link IaSwitcher#session()} then returns
     * @throws Exception when the IA cannot serve; the switcher closes it and tries the next provider
     */
    S open(InterfaceAdapter ia, ProviderDTO provider) throws Exception;

    /**
     * Settles the application's state on an IA the switcher leaves: typically stops posting,
     * reaps the remaining completions (a provider that left flushes every outstanding DTO, then
     * its handles answer {@code DAT_INVALID_HANDLE}) and reports what became of the posted
     * operations. The switcher closes the IA abruptly afterwards, which frees the state's objects.
     *
     * @param session the state {@link #open} returned
     * @param context the IA, its provider, the cause and the deadline
     * @return the accounting of the IA's operations ({@link DtoLedger} keeps one)
     * @throws Exception when settling failed; the switch goes on, reported without accounting
     */
    Accounting lost(S session, LossContext context) throws Exception;

    /**
     * An asynchronous event of the current IA other than its catastrophic failure (an Endpoint
     * broke, an EVD overflowed, an SRQ watermark): the switcher owns the IA's async EVD and hands
     * these on. The default ignores them.
     *
     * @param session the current state
     * @param event the event; valid only during the call
     */
    default void asyncEvent(S session, DatEvent event) {
    }
}
