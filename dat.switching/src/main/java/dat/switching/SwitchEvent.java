package dat.switching;

import dat.api.ProviderDTO;
import java.time.Duration;
import java.util.Objects;
import org.osgi.annotation.versioning.ProviderType;

/**
 * One switch of an {@link IaSwitcher}, as {@link SwitchListener}s and the log see it: the IA it
 * left and the IA it opened.
 *
 * @param generation the number of the session opened: 1 for the first, then one more per switch
 * @param cause why the switcher left the previous IA ({@link SwitchCause#INITIAL} for the first)
 * @param from the previous IA's provider, or {@code null} for the first
 * @param to the new IA's provider
 * @param accounting what the application reported of the previous IA's operations
 *     ({@link IaSession#lost}); {@link Accounting#NONE} for the first, {@code null} when
 *     {@code lost} failed or did not return in time
 * @param downtime from the loss of the previous IA to the new session's being ready; zero for the
 *     first
 * @param detail a sentence on the loss, for the log
 */
@ProviderType
public record SwitchEvent(long generation, SwitchCause cause, ProviderDTO from, ProviderDTO to, Accounting accounting,
        Duration downtime, String detail) {

    /** Checks for {@code null}s where none is allowed. */
    public SwitchEvent {
        Objects.requireNonNull(cause, "cause");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(downtime, "downtime");
        Objects.requireNonNull(detail, "detail");
    }

    @Override
    public String toString() {
        return "switch #" + generation + " (" + cause + "): " + (from == null ? "-" : from.iaName() + " (" + from.providerName() + ")")
                + " -> " + to.iaName() + " (" + to.providerName() + ") in " + downtime.toMillis() + " ms"
                + (accounting == null ? "; old IA: not accounted" : "; old IA: " + accounting) + (detail.isEmpty() ? "" : "; " + detail);
    }
}
