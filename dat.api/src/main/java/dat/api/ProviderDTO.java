package dat.api;

import java.util.Map;
import java.util.Objects;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The registry's view of one IA a provider offers: a row of {@link RegistryRuntimeDTO}, in the
 * manner of the OSGi whiteboard runtime DTOs. An IA comes either from the static registry
 * ({@code dat.conf}, {@link Origin#STATIC}) or from a provider registered dynamically (an OSGi
 * service, a {@link java.util.ServiceLoader} provider or {@link DatRegistry#addProvider},
 * {@link Origin#DYNAMIC}); it is {@link State#ACTIVE} (it can be opened), {@link State#SHADOWED}
 * (another provider offers the same IA name, version and thread safety and wins) or
 * {@link State#FAILED} (with one of the {@code FAILURE_REASON_*} numbers and a sentence saying
 * why).
 *
 * @param id the {@code service.id} of the provider's IA factory service; for a provider found by
 *     {@link java.util.ServiceLoader} or added with {@link DatRegistry#addProvider}, a negative
 *     number the registry assigns; {@code 0} for a static entry whose provider is absent
 * @param iaName the IA name, as {@link DatRegistry#openIa} takes it
 * @param versionMajor the DAT API major version offered
 * @param versionMinor the DAT API minor version offered
 * @param threadSafe whether the IA is offered thread safe
 * @param providerName the provider's name ({@code dat.provider.name}); for a static entry the
 *     name its provider field gives
 * @param providerVersion the provider's own version ({@code dat.provider.version}, or a static
 *     entry's provider version field); {@code ""} when unknown
 * @param transport the provider's transport ({@code dat.transport}); {@code ""} when unknown
 * @param ranking the provider's {@code service.ranking}
 * @param origin static registry entry or dynamic registration
 * @param state active, shadowed or failed
 * @param failureReason {@link #FAILURE_REASON_NONE} when active, else one of the other
 *     {@code FAILURE_REASON_*} numbers
 * @param failureDetail why it is shadowed or failed; {@code ""} when active
 * @param source where it comes from: {@code "file:line"} for a static entry,
 *     {@code "service 42 of bundle b"}, {@code "ServiceLoader"} or {@code "addProvider"}
 * @param instanceData the static entry's {@code ia_params}, passed to the provider; {@code ""}
 * @param openIas how many IAs opened through this entry are still open
 * @param properties the properties LDAP filters are matched against: the provider's service
 *     properties, with {@code dat.ia.name}, {@code dat.api.version} and {@code dat.thread.safe}
 *     set to this IA's values (array values are given as lists)
 */
@ProviderType
public record ProviderDTO(
        long id,
        String iaName,
        int versionMajor,
        int versionMinor,
        boolean threadSafe,
        String providerName,
        String providerVersion,
        String transport,
        int ranking,
        Origin origin,
        State state,
        int failureReason,
        String failureDetail,
        String source,
        String instanceData,
        int openIas,
        Map<String, Object> properties) {

    /** Not failed: the IA is {@link State#ACTIVE}. */
    public static final int FAILURE_REASON_NONE = 0;

    /**
     * Another provider offers the same IA name, version and thread safety and wins: a static
     * entry wins over a dynamic registration, then the higher {@code service.ranking}, then the
     * lower {@code service.id}. The IA takes over when the winner leaves.
     */
    public static final int FAILURE_REASON_SHADOWED = 1;

    /**
     * The provider's service properties are invalid, for example no {@code dat.provider.name}, a
     * malformed {@code dat.api.version} or a {@code dat.thread.safe} that is not a
     * {@code Boolean}.
     */
    public static final int FAILURE_REASON_INVALID_PROPERTIES = 2;

    /** A static entry names a provider ({@code dat.provider.name}) that is not registered. */
    public static final int FAILURE_REASON_NO_PROVIDER = 3;

    /**
     * A static entry asks for what its provider does not offer: a DAT version the provider does
     * not implement, or thread safety from a provider that is not thread safe.
     */
    public static final int FAILURE_REASON_INCOMPATIBLE_PROVIDER = 4;

    /**
     * The provider's {@link dat.api.spi.DatIaFactory#init} ({@code dat_provider_init}) failed for
     * this static entry.
     */
    public static final int FAILURE_REASON_INIT_FAILED = 5;

    /** The provider's factory service could not be obtained from the framework. */
    public static final int FAILURE_REASON_SERVICE_UNAVAILABLE = 6;

    /** Where an IA comes from. */
    public enum Origin {
        /** An entry of the static registry ({@code dat.conf}). */
        STATIC,
        /** A provider registered dynamically: OSGi service, ServiceLoader or addProvider. */
        DYNAMIC
    }

    /** Whether the IA can be opened. */
    public enum State {
        /** It can be opened, and {@link DatRegistry#listProviders()} lists it. */
        ACTIVE,
        /** Another provider of the same IA name, version and thread safety wins. */
        SHADOWED,
        /** It cannot be opened; {@link ProviderDTO#failureReason()} says why. */
        FAILED
    }

    /** Checks for {@code null}s and copies the properties. */
    public ProviderDTO {
        Objects.requireNonNull(iaName, "iaName");
        Objects.requireNonNull(providerName, "providerName");
        Objects.requireNonNull(providerVersion, "providerVersion");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(failureDetail, "failureDetail");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(instanceData, "instanceData");
        properties = Map.copyOf(properties);
    }

    /**
     * The IA name, version and thread safety as {@code dat_registry_list_providers} gives them.
     *
     * @return the provider information
     * @throws IllegalArgumentException if the IA name is empty (a failed registration without a
     *     valid IA name)
     */
    public ProviderInfo info() {
        return new ProviderInfo(iaName, versionMajor, versionMinor, threadSafe);
    }

    /**
     * The name of a {@code FAILURE_REASON_*} number, for example {@code "shadowed"}.
     *
     * @param failureReason a failure reason
     * @return its name in lower case, or {@code "reason N"} for an unknown number
     */
    public static String failureReasonName(int failureReason) {
        return switch (failureReason) {
            case FAILURE_REASON_NONE -> "none";
            case FAILURE_REASON_SHADOWED -> "shadowed";
            case FAILURE_REASON_INVALID_PROPERTIES -> "invalid properties";
            case FAILURE_REASON_NO_PROVIDER -> "no provider";
            case FAILURE_REASON_INCOMPATIBLE_PROVIDER -> "incompatible provider";
            case FAILURE_REASON_INIT_FAILED -> "init failed";
            case FAILURE_REASON_SERVICE_UNAVAILABLE -> "service unavailable";
            default -> "reason " + failureReason;
        };
    }
}
