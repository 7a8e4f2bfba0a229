package dat.provider.verbs.internal;

import dat.api.DatReturn;
import dat.api.InterfaceAdapter;
import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.api.spi.IaOpenRequest;
import dat.provider.verbs.internal.ffi.Verbs;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The IA factory of one device port: opens {@link VerbsIa}s named {@code ofa-v2-<device>-<port>}. */
final class VerbsIaFactory implements DatIaFactory {

    private final Verbs verbs;
    private final DevicePort port;
    private final Set<VerbsIa> open = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    VerbsIaFactory(Verbs verbs, DevicePort port) {
        this.verbs = verbs;
        this.port = port;
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
        if (!port.iaName().equals(request.iaName())) {
            throw Codes.exception(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                    "this factory serves " + port.iaName() + ", not " + request.iaName());
        }
        VerbsIa ia = new VerbsIa(this, verbs, port, request.iaName(), request.asyncEvdMinQlen(), request.asyncEvd());
        open.add(ia);
        if (stopped) {
            ia.fail();
        }
        return ia;
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
        return Map.of(
                DatProviderConstants.DAT_PROVIDER_NAME, "verbs",
                DatProviderConstants.DAT_IA_NAME, port.iaName(),
                DatProviderConstants.DAT_API_VERSION, DatProviderConstants.DAT_API_VERSION_1_2,
                DatProviderConstants.DAT_PROVIDER_VERSION, "1.0",
                DatProviderConstants.DAT_THREAD_SAFE, Boolean.TRUE,
                DatProviderConstants.DAT_TRANSPORT, port.transport(),
                DatProviderConstants.DAT_CAPABILITY, List.of("rdma.read", "rdma.write", "srq", "cno"));
    }

    @Override
    public String toString() {
        return "VerbsIaFactory{" + port.iaName() + " on " + port.address().getHostAddress() + "}";
    }
}
