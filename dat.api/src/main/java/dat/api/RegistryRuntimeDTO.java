package dat.api;

import java.util.List;
import java.util.Objects;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A snapshot of the registry's state, in the manner of the OSGi whiteboard runtime DTOs: every IA
 * the registry knows of, active, shadowed or failed, and the state of the static registry.
 *
 * @param providers every IA, active ones first, then by IA name
 * @param staticRegistry the path of the static registry ({@code dat.conf}) in use, or {@code ""}
 *     when none is configured
 * @param staticRegistryRead {@code false} when a static registry is configured but could not be
 *     read (then {@link DatRegistry#listProviders} fails with {@link DatReturn#INTERNAL_ERROR});
 *     {@code true} otherwise
 * @param staticRegistryProblems every bad line of the static registry, as
 *     {@code "file:line: reason"}, and the read error if it could not be read; the good lines
 *     are in {@code providers}
 */
@ProviderType
public record RegistryRuntimeDTO(
        List<ProviderDTO> providers,
        String staticRegistry,
        boolean staticRegistryRead,
        List<String> staticRegistryProblems) {

    /** Checks for {@code null}s and copies the lists. */
    public RegistryRuntimeDTO {
        providers = List.copyOf(providers);
        Objects.requireNonNull(staticRegistry, "staticRegistry");
        staticRegistryProblems = List.copyOf(staticRegistryProblems);
    }

    /**
     * The IAs in one state.
     *
     * @param state the state wanted
     * @return the IAs in that state, in the order of {@link #providers()}
     */
    public List<ProviderDTO> providers(ProviderDTO.State state) {
        return providers.stream().filter(provider -> provider.state() == state).toList();
    }
}
