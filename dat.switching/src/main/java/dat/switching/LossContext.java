package dat.switching;

import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import java.time.Instant;
import java.util.Objects;
import org.osgi.annotation.versioning.ProviderType;

/**
 * What {@link IaSession#lost} is told about the IA it leaves.
 *
 * @param provider the IA's provider, as the registry described it when the IA was opened
 * @param ia the IA; failed (its provider left, or it failed), or still working for
 *     {@link SwitchCause#RESELECTED} and {@link SwitchCause#CLOSED}. The switcher closes it abruptly
 *     when {@code lost} returns
 * @param cause why the IA is left
 * @param deadline when the switcher stops waiting for {@code lost} and moves on
 */
@ProviderType
public record LossContext(ProviderDTO provider, InterfaceAdapter ia, SwitchCause cause, Instant deadline) {

    /** Checks for {@code null}s. */
    public LossContext {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(ia, "ia");
        Objects.requireNonNull(cause, "cause");
        Objects.requireNonNull(deadline, "deadline");
    }
}
