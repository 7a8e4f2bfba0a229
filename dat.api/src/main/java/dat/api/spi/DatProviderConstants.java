package dat.api.spi;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Names of the service properties a {@link DatIaFactory} service carries, the Java form of
 * {@code DAT_PROVIDER_INFO} plus what a registry needs to choose between providers. Consumers may
 * select providers with LDAP filters over them, for example {@code (dat.transport=sim)}.
 */
@ProviderType
public final class DatProviderConstants {

    private DatProviderConstants() {
    }

    /**
     * Service property naming the provider itself, for example {@code "sim"} or {@code "verbs"}; a
     * static registry ({@code dat.conf}) entry names its provider by this value. Required.
     *
     * <p>The value of this service property must be of type {@code String}.
     */
    public static final String DAT_PROVIDER_NAME = "dat.provider.name";

    /**
     * Service property listing the IA names the provider offers by itself ({@code ia_name} of
     * {@code DAT_PROVIDER_INFO}), for example {@code "sim0"} or {@code "ofa-v2-rxe0-1"}. A factory
     * with no IA name serves only IA names a static registry maps to it.
     *
     * <p>The value of this service property must be of type {@code String}, {@code String[]} or
     * {@code Collection<String>}.
     */
    public static final String DAT_IA_NAME = "dat.ia.name";

    /**
     * Service property giving the DAT API version the provider implements, as
     * {@code "major.minor"} ({@code dapl_version_major}, {@code dapl_version_minor}), for example
     * {@code "1.2"}. Default {@link #DAT_API_VERSION_1_2}.
     *
     * <p>The value of this service property must be of type {@code String}.
     */
    public static final String DAT_API_VERSION = "dat.api.version";

    /** The DAT API version this API package describes: {@code "1.2"}. */
    public static final String DAT_API_VERSION_1_2 = "1.2";

    /**
     * Service property giving the provider's own version, {@code "major.minor"}
     * ({@code provider_version_major}, {@code provider_version_minor}).
     *
     * <p>The value of this service property must be of type {@code String}.
     */
    public static final String DAT_PROVIDER_VERSION = "dat.provider.version";

    /**
     * Service property saying whether the provider is thread safe ({@code is_thread_safe}).
     * Default {@code false}.
     *
     * <p>The value of this service property must be of type {@code Boolean}.
     */
    public static final String DAT_THREAD_SAFE = "dat.thread.safe";

    /**
     * Service property naming the transport, for example {@code "sim"}, {@code "tcp"},
     * {@code "ib"}, {@code "roce"}, {@code "iwarp"}.
     *
     * <p>The value of this service property must be of type {@code String}.
     */
    public static final String DAT_TRANSPORT = "dat.transport";

    /**
     * Service property listing the optional capabilities that work, so that consumers can select
     * providers with a filter such as {@code (dat.capability=srq)}. A capability is listed only
     * when it works, and these are listed exactly when the IA's attributes declare them (the
     * conformance suite checks it): {@code "rdma.read"} ({@code max_rdma_read_per_ep_in} and
     * {@code _out} above 0), {@code "rmr"} ({@code max_rmrs} above 0), {@code "srq"}
     * ({@code srq_supported}), {@code "srq.watermarks"} ({@code srq_watermarks_supported}),
     * {@code "ep.recv_query"} ({@code ep_recv_info_supported}), {@code "psp.provider"}
     * ({@code ep_creator} other than {@code DAT_PSP_CREATES_EP_NEVER}), {@code "lmr.shared"}
     * ({@code DAT_MEM_TYPE_SHARED_VIRTUAL} among {@code lmr_mem_types_supported}). Others, such
     * as {@code "rdma.write"} and {@code "cno"}, name what works without an attribute to match.
     *
     * <p>The value of this service property must be of type {@code String}, {@code String[]} or
     * {@code Collection<String>}.
     */
    public static final String DAT_CAPABILITY = "dat.capability";

    /**
     * Service property listing the fully qualified names of the extension interfaces the
     * provider's handles offer through {@link dat.api.DatHandle#extension(Class)}.
     *
     * <p>The value of this service property must be of type {@code String}, {@code String[]} or
     * {@code Collection<String>}.
     */
    public static final String DAT_EXTENSION = "dat.extension";

    /**
     * Service property listing the file names of the C uDAPL provider libraries whose static
     * registry entries this provider serves, for example {@code "libdaplofa.so.2"}: an OFED
     * {@code dat.conf} line names its provider by library path
     * ({@code ofa-v2-ib0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "ib0 0" ""}), and a
     * registry binds such a line to the provider that lists the path's file name here, at that
     * provider's own DAT version. A provider lists a library only where it speaks that library's
     * wire protocol (OFED's cma provider for verbs over rdma_cm).
     *
     * <p>The value of this service property must be of type {@code String}, {@code String[]} or
     * {@code Collection<String>}.
     */
    public static final String DAT_PROVIDER_LIBRARY = "dat.provider.library";
}
