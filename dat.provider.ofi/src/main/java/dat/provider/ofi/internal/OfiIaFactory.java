package dat.provider.ofi.internal;

import dat.api.DatReturn;
import dat.api.InterfaceAdapter;
import dat.api.ProviderInfo;
import dat.api.ext.IaStatistics;
import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.api.spi.IaOpenRequest;
import dat.provider.ofi.internal.ffi.Fabric;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The IA factory of one libfabric provider and domain: opens {@link OfiIa}s named
 * {@code ofi-<provider>-<domain>} on the address discovery chose, and the IAs of {@code dat.conf}
 * entries bound to it, each with its own {@code ia_params} ({@link IaConfig#with}).
 */
final class OfiIaFactory implements DatIaFactory {

    /**
     * The service property by which the conformance suite leaves an IA out ({@code false}): the
     * suite runs against the loopback IA of each libfabric provider in the OSGi test runs; the IAs
     * of the other domains differ only by their address (the ofi CI stage runs it on the addresses
     * it configures).
     */
    static final String CONFORMANCE_PROPERTY = "dat.conformance";

    private final Fabric fabric;
    private final IaConfig config;
    private final Discovery.Offer offer;
    private final Set<OfiIa> open = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    OfiIaFactory(Fabric fabric, Discovery.Offer offer) {
        this.fabric = fabric;
        this.offer = offer;
        this.config = offer.config();
    }

    IaConfig config() {
        return config;
    }

    @Override
    public InterfaceAdapter openIa(IaOpenRequest request) {
        if (stopped) {
            throw Codes.exception(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName", "the ofi provider is stopping");
        }
        IaConfig chosen;
        if (!request.instanceData().isBlank()) {
            chosen = config.with(request.instanceData());
        } else if (config.iaName().equals(request.iaName())) {
            chosen = config;
        } else {
            throw Codes.exception(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                    "this factory serves " + config.iaName() + ", not " + request.iaName() + " (a dat.conf entry names"
                            + " its provider, domain and address in ia_params)");
        }
        OfiIa ia = new OfiIa(this, fabric, chosen, request.iaName(), request.asyncEvdMinQlen(), request.asyncEvd());
        open.add(ia);
        if (stopped) {
            ia.fail();
        }
        return ia;
    }

    /** dat_provider_init of a {@code dat.conf} entry: its {@code ia_params} must parse. */
    @Override
    public void init(ProviderInfo providerInfo, String instanceData) {
        if (stopped) {
            throw Codes.exception(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName", "the ofi provider is stopping");
        }
        config.with(instanceData == null ? "" : instanceData);
    }

    void closed(OfiIa ia) {
        open.remove(ia);
    }

    /** The hot-swap contract: every open IA fails (catastrophic event, flush, teardown). */
    void stop() {
        stopped = true;
        for (OfiIa ia : List.copyOf(open)) {
            ia.fail();
        }
    }

    int openCount() {
        return open.size();
    }

    /** The optional features the IA's attributes declare ({@link Attributes}): {@code dat.capability}. */
    static List<String> capabilities(boolean srq) {
        List<String> capabilities = new ArrayList<>(List.of("rdma.read", "rdma.write", "rmr", "cno", "lmr.shared",
                "ep.recv_query", "psp.provider"));
        if (srq) {
            capabilities.addAll(List.of("srq", "srq.watermarks"));
        }
        return List.copyOf(capabilities);
    }

    @Override
    public Map<String, Object> properties() {
        return Map.of(CONFORMANCE_PROPERTY, config.address().isLoopbackAddress(),
                DatProviderConstants.DAT_PROVIDER_NAME, "ofi",
                DatProviderConstants.DAT_IA_NAME, config.iaName(),
                DatProviderConstants.DAT_API_VERSION, DatProviderConstants.DAT_API_VERSION_1_2,
                DatProviderConstants.DAT_PROVIDER_VERSION, "1.0",
                DatProviderConstants.DAT_THREAD_SAFE, Boolean.TRUE,
                DatProviderConstants.DAT_TRANSPORT, "ofi-" + config.provider(),
                DatProviderConstants.DAT_CAPABILITY, capabilities(offer.srq()),
                DatProviderConstants.DAT_EXTENSION, extensions(offer));
    }

    /** The {@code dat.api.ext} interfaces the IA offers (its statistics) and its Endpoints offer ({@link Extensions}). */
    static List<String> extensions(Discovery.Offer offer) {
        List<String> names = new ArrayList<>();
        names.add(IaStatistics.class.getName());
        if (offer.cqData().immediateData()) {
            names.add(Extensions.IMMEDIATE_DATA);
        }
        if (offer.atomics()) {
            names.add(Extensions.ATOMICS);
        }
        return List.copyOf(names);
    }

    @Override
    public String toString() {
        return "OfiIaFactory{" + config.iaName() + " on " + config.address().getHostAddress() + "}";
    }
}
