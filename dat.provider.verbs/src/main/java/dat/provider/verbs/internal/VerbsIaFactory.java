package dat.provider.verbs.internal;

import dat.api.DatReturn;
import dat.api.InterfaceAdapter;
import dat.api.ProviderInfo;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IaStatistics;
import dat.api.ext.ImmediateDataEndpoint;
import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.api.spi.IaOpenRequest;
import dat.provider.verbs.internal.ffi.Verbs;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The IA factory of one device port: opens {@link VerbsIa}s named {@code ofa-v2-<device>-<port>},
 * and the IAs of static registry entries mapped to the verbs provider, on the port their
 * {@code ia_params} name ({@link PortDirectory}): an OFED {@code dat.conf} line naming
 * {@code libdaplofa.so.2}, whose wire protocol this provider speaks, binds here
 * ({@link DatProviderConstants#DAT_PROVIDER_LIBRARY}).
 */
final class VerbsIaFactory implements DatIaFactory {

    /** The C libraries whose static entries this provider serves: OFED uDAPL's cma provider. */
    static final List<String> LIBRARIES = List.of("libdaplofa.so.2", "libdaplofa.so");

    private final Verbs verbs;
    private final DevicePort port;
    private final PortDirectory directory;
    private final Set<VerbsIa> open = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    VerbsIaFactory(Verbs verbs, DevicePort port, PortDirectory directory) {
        this.verbs = verbs;
        this.port = port;
        this.directory = directory;
    }

    DevicePort port() {
        return port;
    }

    @Override
    public InterfaceAdapter openIa(IaOpenRequest request) {
        if (stopped) {
            throw Codes.exception(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                    "the verbs provider is stopping");
        }
        DevicePort target = portFor(request.iaName(), request.instanceData());
        VerbsIa ia = new VerbsIa(this, verbs, target, request.iaName(), request.asyncEvdMinQlen(), request.asyncEvd());
        open.add(ia);
        if (stopped) {
            ia.fail();
        }
        return ia;
    }

    /** The port an IA opens on: the one its static entry's parameters name, else the one its OFED name names. */
    private DevicePort portFor(String iaName, String instanceData) {
        if (instanceData != null && !instanceData.isBlank()) {
            return directory.resolve(instanceData);
        }
        if (port.iaName().equals(iaName)) {
            return port;
        }
        DevicePort named = directory.byIaName(iaName);
        if (named == null) {
            throw Codes.exception(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                    iaName + " names no usable port (" + port.iaName() + " and the other ofa-v2-<device>-<port> names are"
                            + " served), and no ia_params name one");
        }
        return named;
    }

    /** dat_provider_init of a static entry: its parameters must name a usable port now. */
    @Override
    public void init(ProviderInfo providerInfo, String instanceData) {
        portFor(providerInfo.iaName(), instanceData);
    }

    /** Whether windows on the port's device keep accesses inside their range (probed once per device). */
    boolean windowBoundsEnforced(DevicePort target, Verbs libraries, java.lang.foreign.MemorySegment context) {
        return directory.windowBoundsEnforced(target, context);
    }

    /** The runtime's ports and its shared-memory cookies. */
    PortDirectory directory() {
        return directory;
    }

    void closed(VerbsIa ia) {
        open.remove(ia);
    }

    /** The hot-swap contract: every open IA fails (catastrophic event, teardown). */
    void stop() {
        stopped = true;
        for (VerbsIa ia : List.copyOf(open)) {
            ia.fail();
        }
    }

    int openCount() {
        return open.size();
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put(DatProviderConstants.DAT_PROVIDER_NAME, "verbs");
        properties.put(DatProviderConstants.DAT_IA_NAME, port.iaName());
        properties.put(DatProviderConstants.DAT_API_VERSION, DatProviderConstants.DAT_API_VERSION_1_2);
        properties.put(DatProviderConstants.DAT_PROVIDER_VERSION, "1.0");
        properties.put(DatProviderConstants.DAT_THREAD_SAFE, Boolean.TRUE);
        properties.put(DatProviderConstants.DAT_TRANSPORT, port.transport());
        // what the IA's attributes will declare, as the discovery probed it
        List<String> capabilities = new java.util.ArrayList<>(List.of("rdma.write", "cno", "lmr.shared", "ep.recv_query"));
        if (port.rdmaRead()) {
            capabilities.add("rdma.read");
        }
        if (port.srq()) {
            capabilities.addAll(List.of("srq", "srq.watermarks"));
        }
        if (port.windowType() > 0) {
            capabilities.add("rmr");
        }
        properties.put(DatProviderConstants.DAT_CAPABILITY, List.copyOf(capabilities));
        List<String> extensions = new java.util.ArrayList<>(List.of(IaStatistics.class.getName(), ImmediateDataEndpoint.class.getName()));
        if (port.atomics()) {
            extensions.add(AtomicEndpoint.class.getName());
        }
        properties.put(DatProviderConstants.DAT_EXTENSION, List.copyOf(extensions));
        properties.put(DatProviderConstants.DAT_PROVIDER_LIBRARY, LIBRARIES);
        return properties;
    }

    @Override
    public String toString() {
        return "VerbsIaFactory{" + port.iaName() + " on " + port.address().getHostAddress() + "}";
    }
}
