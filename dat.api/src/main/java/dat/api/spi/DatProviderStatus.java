package dat.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A provider that is installed but offers no IA says why with this service, instead of registering
 * a {@link DatIaFactory}: for example the verbs provider on a machine whose kernel has no RDMA. A
 * registry or a shell may list these beside the providers it tracks ("failed: unavailable"); no IA
 * can be opened through them. Register it with {@link DatProviderConstants#DAT_PROVIDER_NAME}.
 *
 * @ThreadSafe
 */
@ConsumerType
public interface DatProviderStatus {

    /**
     * The provider's name, as its factories' {@link DatProviderConstants#DAT_PROVIDER_NAME} would be.
     *
     * @return the provider name, for example {@code "verbs"}
     */
    String providerName();

    /**
     * Why the provider offers no IA, as one sentence.
     *
     * @return the reason, for example {@code "the kernel has no RDMA support (ibv_get_device_list: ENOSYS (38))"}
     */
    String unavailableReason();
}
