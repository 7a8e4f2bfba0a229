package dat.api;

import java.util.Objects;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Which IA a provider offers: the Java form of {@code DAT_PROVIDER_INFO}
 * ({@code ia_name}, {@code dapl_version_major}, {@code dapl_version_minor}, {@code is_thread_safe}).
 *
 * <p>See dat_registry_list_providers(3DAT), dat_registry_add_provider(3DAT), dat_ia_open(3DAT).
 *
 * @param iaName the IA name, at most {@code DAT_NAME_MAX_LENGTH - 1} (255) characters, not empty
 * @param versionMajor the DAT API major version the provider implements ({@code dapl_version_major})
 * @param versionMinor the DAT API minor version the provider implements ({@code dapl_version_minor})
 * @param threadSafe whether the provider's implementation is thread safe ({@code is_thread_safe})
 */
@ProviderType
public record ProviderInfo(String iaName, int versionMajor, int versionMinor, boolean threadSafe) {

    /** {@code DAT_NAME_MAX_LENGTH}: the longest IA name, including C's terminating NUL. */
    private static final int NAME_MAX_LENGTH = 256;

    /**
     * Checks the fields as {@code dat_registry_add_provider} checks its {@code provider_info}.
     *
     * @throws NullPointerException if {@code iaName} is null
     * @throws IllegalArgumentException if the name is empty or too long, or a version is negative
     */
    public ProviderInfo {
        Objects.requireNonNull(iaName, "iaName");
        if (iaName.isEmpty() || iaName.length() >= NAME_MAX_LENGTH) {
            throw new IllegalArgumentException("iaName must have 1.." + (NAME_MAX_LENGTH - 1) + " characters: '" + iaName + "'");
        }
        if (versionMajor < 0 || versionMinor < 0) {
            throw new IllegalArgumentException("negative version " + versionMajor + "." + versionMinor);
        }
    }
}
