package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.DatReturn;
import dat.provider.ofi.internal.ffi.Fabric;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.Structs;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Finds what libfabric offers that the provider can use: {@code fi_getinfo} with hints for
 * connection-oriented endpoints ({@code FI_EP_MSG}) with messages and RMA ({@code FI_MSG | FI_RMA}),
 * no operation mode ({@code FI_CONTEXT} and the like: the provider never gives libfabric memory
 * of its own with a DTO), and the memory-registration modes the provider handles
 * ({@code FI_MR_LOCAL}, {@code FI_MR_VIRT_ADDR}, {@code FI_MR_ALLOCATED}, {@code FI_MR_PROV_KEY}).
 * Each (provider, domain) pair of the answer becomes one IA, on its first IPv4 address (else its
 * first IPv6 address that is not link-local). The same hints with {@code FI_ATOMIC} added are asked
 * first: a pair that answers them too (libfabric's verbs provider; not tcp) opens its IA from that
 * answer, so that its endpoints may use atomics ({@link Domain#atomics}).
 *
 * <p>Which libfabric providers are offered is the framework or system property
 * {@value #PROVIDERS_PROPERTY} (comma separated), by default {@code tcp} and {@code verbs}: the two
 * that libfabric maintains for connection-oriented endpoints. {@code net} (experimental in 1.17)
 * answers too, and is offered when named there. {@code sockets} (deprecated by libfabric in favour
 * of tcp) is never offered, named or not, nor opened through a {@code dat.conf} entry
 * ({@link #REFUSED}).
 */
final class Discovery {

    private Discovery() {
    }

    /** The property naming the libfabric providers to offer IAs of. */
    static final String PROVIDERS_PROPERTY = "dat.ofi.providers";
    static final String DEFAULT_PROVIDERS = "tcp,verbs";

    /**
     * The libfabric providers never offered, with why: their {@code FI_EP_MSG} endpoints answer
     * {@code fi_getinfo} but do not work. libfabric 1.17's {@code sockets} crashed the JVM in its
     * own progress thread at the first connection of every conformance run (SIGSEGV in
     * {@code libfabric.so.1}), and libfabric's own {@code fi_pingpong -p sockets -e msg} never
     * completed on loopback.
     */
    static final Map<String, String> REFUSED = Map.of("sockets", "libfabric's sockets provider is not offered: deprecated by "
            + "libfabric in favour of tcp, its FI_EP_MSG endpoints crashed the JVM in libfabric's progress thread at the first "
            + "connection (SIGSEGV), and fi_pingpong -p sockets -e msg does not complete; use provider tcp");

    /**
     * One usable provider and domain.
     *
     * @param config its provider, domain and address
     * @param srq whether it has shared receive contexts ({@code max_ep_srx_ctx} above 0)
     * @param cqData what its remote CQ data carries
     * @param atomics whether it answers hints with {@code FI_ATOMIC} too ({@link #ATOMIC_CAPS})
     */
    record Offer(IaConfig config, boolean srq, RemoteCqData cqData, boolean atomics) {
    }

    /** The capabilities asked for first: an IA whose provider has atomics gets endpoints that may use them. */
    static final long ATOMIC_CAPS = Fi.MSG | Fi.RMA | Fi.ATOMIC;

    /**
     * Whether an info lists atomics the provider can carry out: {@code FI_ATOMIC} in its
     * capabilities, on a protocol other than iWARP. libfabric's verbs provider lists
     * {@code FI_ATOMIC} for every device and does not look at the device's {@code atomic_cap}; iWARP
     * has no remote atomics at all.
     */
    static boolean atomicsListed(MemorySegment info) {
        return (info.get(JAVA_LONG, Structs.INFO_CAPS) & Fi.ATOMIC) != 0
                && attr(info, Structs.INFO_EP_ATTR, Structs.FI_EP_ATTR).get(JAVA_INT, Structs.EP_ATTR_PROTOCOL) != Fi.PROTO_IWARP;
    }

    /** @param offers one per usable provider and domain; {@code reason} says why when empty */
    record Result(List<Offer> offers, String reason) {
    }

    /** The providers {@value #PROVIDERS_PROPERTY} names. */
    static Set<String> providers(String property) {
        Set<String> names = new LinkedHashSet<>();
        for (String name : (property == null || property.isBlank() ? DEFAULT_PROVIDERS : property).split(",")) {
            if (!name.isBlank()) {
                names.add(name.trim().toLowerCase(Locale.ROOT));
            }
        }
        return names;
    }

    /** A pointer member of an {@code fi_info}, given the size of the struct it points to. */
    static MemorySegment attr(MemorySegment info, long offset, StructLayout layout) {
        return Fabric.sized(info.get(ADDRESS, offset), layout.byteSize());
    }

    /** The hints: allocated by {@code fi_allocinfo}, freed by the caller with {@link Fabric#freeInfo}. */
    private static MemorySegment hints(Fabric fabric, long caps) {
        MemorySegment hints = fabric.allocInfo();
        hints.set(JAVA_LONG, Structs.INFO_CAPS, caps);
        // remote CQ data may consume a receive (FI_RX_CQ_DATA): the verbs provider then carries
        // its 4 bytes (RemoteCqData), and reports none without the bit
        hints.set(JAVA_LONG, Structs.INFO_MODE, Fi.RX_CQ_DATA);
        attr(hints, Structs.INFO_EP_ATTR, Structs.FI_EP_ATTR).set(JAVA_INT, Structs.EP_ATTR_TYPE, Fi.EP_MSG);
        attr(hints, Structs.INFO_DOMAIN_ATTR, Structs.FI_DOMAIN_ATTR).set(JAVA_INT, Structs.DOMAIN_ATTR_MR_MODE,
                Fi.MR_LOCAL | Fi.MR_VIRT_ADDR | Fi.MR_ALLOCATED | Fi.MR_PROV_KEY);
        return hints;
    }

    private static String providerName(MemorySegment info) {
        return Fabric.string(attr(info, Structs.INFO_FABRIC_ATTR, Structs.FI_FABRIC_ATTR).get(ADDRESS, Structs.FABRIC_ATTR_PROV_NAME));
    }

    private static String domainName(MemorySegment info) {
        return Fabric.string(attr(info, Structs.INFO_DOMAIN_ATTR, Structs.FI_DOMAIN_ATTR).get(ADDRESS, Structs.DOMAIN_ATTR_NAME));
    }

    private static InetSocketAddress sourceAddress(MemorySegment info) {
        long length = info.get(JAVA_LONG, Structs.INFO_SRC_ADDRLEN);
        MemorySegment address = info.get(ADDRESS, Structs.INFO_SRC_ADDR);
        int format = info.get(JAVA_INT, Structs.INFO_ADDR_FORMAT);
        if (address.equals(MemorySegment.NULL) || length < Structs.SOCKADDR_IN.byteSize()
                || (format != Fi.SOCKADDR && format != Fi.SOCKADDR_IN && format != Fi.SOCKADDR_IN6)) {
            return null;
        }
        return Sockaddr.read(Fabric.sized(address, length));
    }

    /** Every usable provider and domain of the providers named, with the address of its IA. */
    static Result discover(Fabric fabric, Set<String> providers) {
        Set<String> atomic = new HashSet<>();
        MemorySegment atomicList = getInfo(fabric, null, 0, ATOMIC_CAPS);
        try {
            for (MemorySegment info = atomicList; !info.equals(MemorySegment.NULL);
                    info = Fabric.sized(info.get(ADDRESS, Structs.INFO_NEXT), Structs.FI_INFO.byteSize())) {
                if (atomicsListed(info)) {
                    atomic.add(providerName(info) + "-" + domainName(info));
                }
            }
        } finally {
            fabric.freeInfo(atomicList);
        }
        MemorySegment list = getInfo(fabric, null, 0, Fi.MSG | Fi.RMA);
        if (list.equals(MemorySegment.NULL)) {
            return new Result(List.of(), "fi_getinfo offers no connection-oriented (FI_EP_MSG) endpoints with FI_MSG and FI_RMA");
        }
        Map<String, Offer> chosen = new LinkedHashMap<>();
        Set<String> seen = new LinkedHashSet<>();
        try {
            for (MemorySegment info = list; !info.equals(MemorySegment.NULL);
                    info = Fabric.sized(info.get(ADDRESS, Structs.INFO_NEXT), Structs.FI_INFO.byteSize())) {
                String provider = providerName(info);
                seen.add(provider);
                InetSocketAddress source = sourceAddress(info);
                if (!providers.contains(provider) || REFUSED.containsKey(provider) || source == null
                        || source.getAddress().isLinkLocalAddress()) {
                    continue;
                }
                String domain = domainName(info);
                String key = provider + "-" + domain;
                Offer current = chosen.get(key);
                InetAddress address = source.getAddress();
                if (current == null || (!(current.config().address() instanceof Inet4Address) && address instanceof Inet4Address)) {
                    MemorySegment domainAttr = attr(info, Structs.INFO_DOMAIN_ATTR, Structs.FI_DOMAIN_ATTR);
                    chosen.put(key, new Offer(new IaConfig(provider, domain, address),
                            domainAttr.get(JAVA_LONG, Structs.DOMAIN_ATTR_MAX_EP_SRX_CTX) > 0,
                            RemoteCqData.of(info), atomic.contains(key)));
                }
            }
        } finally {
            fabric.freeInfo(list);
        }
        if (chosen.isEmpty()) {
            String refused = providers.stream().filter(REFUSED::containsKey).map(REFUSED::get).collect(Collectors.joining("; "));
            return new Result(List.<Offer>of(), (refused.isEmpty() ? "" : refused + "; ") + "fi_getinfo offers FI_EP_MSG endpoints of "
                    + seen + ", none usable of the providers " + providers + " (" + PROVIDERS_PROPERTY + ")");
        }
        return new Result(new ArrayList<>(chosen.values()), null);
    }

    /**
     * The {@code fi_info} of one configuration: {@code fi_getinfo} on its address with
     * {@code FI_SOURCE}, the entry of its provider and domain. Free it with {@link Fabric#freeInfo}.
     *
     * @throws dat.api.DatException {@code DAT_PROVIDER_NOT_FOUND} when libfabric has no such
     *     provider, domain or address
     */
    static MemorySegment find(Fabric fabric, IaConfig config) {
        MemorySegment found = find(fabric, config, ATOMIC_CAPS);
        if (found.equals(MemorySegment.NULL)) {
            found = find(fabric, config, Fi.MSG | Fi.RMA);
        }
        if (found.equals(MemorySegment.NULL)) {
            throw Codes.exception(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "ia_params", "libfabric offers no "
                    + config.provider() + " FI_EP_MSG endpoint in domain " + config.domain() + " at "
                    + config.address().getHostAddress());
        }
        return found;
    }

    /** The entry of the configuration's provider and domain in the answer to hints with {@code caps}, or {@code NULL}. */
    private static MemorySegment find(Fabric fabric, IaConfig config, long caps) {
        MemorySegment list = getInfo(fabric, config.address().getHostAddress(), Fi.SOURCE, caps);
        try {
            for (MemorySegment info = list; !info.equals(MemorySegment.NULL);
                    info = Fabric.sized(info.get(ADDRESS, Structs.INFO_NEXT), Structs.FI_INFO.byteSize())) {
                if (providerName(info).equals(config.provider()) && (config.domain() == null || domainName(info).equals(config.domain()))
                        && sourceAddress(info) != null) {
                    return fabric.dupInfo(info);
                }
            }
        } finally {
            fabric.freeInfo(list);
        }
        return MemorySegment.NULL;
    }

    /** {@code fi_getinfo} with the hints and {@code caps}: the list, or {@code NULL} when nothing matches. */
    private static MemorySegment getInfo(Fabric fabric, String node, long flags, long caps) {
        MemorySegment hints = hints(fabric, caps);
        try {
            return fabric.getInfo(node, null, flags, hints);
        } finally {
            fabric.freeInfo(hints);
        }
    }
}
