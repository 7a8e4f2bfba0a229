package dat.api.spi;

import dat.api.EventDispatcher;
import java.util.Objects;
import org.osgi.annotation.versioning.ProviderType;

/**
 * What the registry asks of a provider when a consumer opens an IA: the arguments of
 * {@code dat_ia_open(3DAT)} that reach the provider, plus the static-registry parameters of the IA.
 *
 * @param iaName the IA name to open (any {@code RO_AWARE_} prefix already removed)
 * @param asyncEvdMinQlen the queue length of the async EVD to create when {@code asyncEvd} is
 *     {@code null}
 * @param asyncEvd {@code null} to create an async EVD, an existing async EVD of this provider, or
 *     {@link EventDispatcher#ASYNC_EXISTS}
 * @param instanceData the {@code ia_params} of the static registry entry, or {@code ""}
 */
@ProviderType
public record IaOpenRequest(String iaName, int asyncEvdMinQlen, EventDispatcher asyncEvd, String instanceData) {

    /** Checks that the name and instance data are present. */
    public IaOpenRequest {
        Objects.requireNonNull(iaName, "iaName");
        instanceData = instanceData == null ? "" : instanceData;
    }
}
