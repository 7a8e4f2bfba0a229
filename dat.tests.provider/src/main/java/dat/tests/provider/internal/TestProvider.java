package dat.tests.provider.internal;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.InterfaceAdapter;
import dat.api.ProviderInfo;
import dat.api.spi.DatProviderConstants;
import dat.api.spi.IaOpenRequest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One test provider instance, behind one factory service: the IA names it serves (its own
 * {@code dat.ia.name} and those the static registry initialized), its open IAs, and the hot-swap
 * shutdown.
 */
final class TestProvider {

    /** The prefix of every thread this provider starts; tests look for leftovers by it. */
    static final String THREAD_PREFIX = "dat-tests-provider-";

    /** How long the shutdown waits for the IAs' async threads, at most. */
    private static final long SHUTDOWN_MILLIS = 5000;

    private final String label;
    private final String providerName;
    private final Set<String> ownNames;
    private final boolean threadSafe;
    private final int versionMajor;
    private final int versionMinor;
    private final int maxIas;
    private final Map<String, String> initialized = new ConcurrentHashMap<>();
    private final List<TestIa> open = new CopyOnWriteArrayList<>();
    private final AtomicInteger threadNumbers = new AtomicInteger();
    private volatile boolean stopping;

    TestProvider(Map<String, ?> properties) {
        this.label = string(properties, "dat.tests.label", "test");
        this.providerName = string(properties, DatProviderConstants.DAT_PROVIDER_NAME, "test");
        this.ownNames = Set.copyOf(names(properties.get(DatProviderConstants.DAT_IA_NAME)));
        this.threadSafe = Boolean.TRUE.equals(properties.get(DatProviderConstants.DAT_THREAD_SAFE));
        String version = string(properties, DatProviderConstants.DAT_API_VERSION, "1.2");
        int dot = version.indexOf('.');
        this.versionMajor = Integer.parseInt(version.substring(0, dot));
        this.versionMinor = Integer.parseInt(version.substring(dot + 1));
        this.maxIas = properties.get("dat.tests.max.ias") instanceof Integer max ? max : 0;
    }

    private static String string(Map<String, ?> properties, String key, String defaultValue) {
        return properties.get(key) instanceof String s ? s : defaultValue;
    }

    private static List<String> names(Object value) {
        List<String> names = new ArrayList<>();
        if (value instanceof String s) {
            names.add(s);
        } else if (value instanceof String[] array) {
            names.addAll(List.of(array));
        } else if (value instanceof Collection<?> collection) {
            collection.forEach(name -> names.add(String.valueOf(name)));
        }
        return names;
    }

    String label() {
        return label;
    }

    String providerName() {
        return providerName;
    }

    boolean threadSafe() {
        return threadSafe;
    }

    int versionMajor() {
        return versionMajor;
    }

    int versionMinor() {
        return versionMinor;
    }

    String initData(String iaName) {
        return initialized.getOrDefault(iaName, "");
    }

    String threadName(String iaName) {
        return THREAD_PREFIX + label + "-" + iaName + "-async-" + threadNumbers.incrementAndGet();
    }

    InterfaceAdapter openIa(IaOpenRequest request) {
        String name = request.iaName();
        if (stopping) {
            throw DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                    "test provider '" + label + "' is stopping");
        }
        if (!ownNames.contains(name) && !initialized.containsKey(name)) {
            throw DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                    "test provider '" + label + "' does not serve IA '" + name + "'");
        }
        EventDispatcher asyncEvd = request.asyncEvd();
        if (asyncEvd == null) {
            if (request.asyncEvdMinQlen() < 1 || request.asyncEvdMinQlen() > TestEvd.MAX_QLEN) {
                throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "asyncEvdMinQlen",
                        request.asyncEvdMinQlen() + " is not in 1.." + TestEvd.MAX_QLEN);
            }
        } else if (asyncEvd != EventDispatcher.ASYNC_EXISTS
                && !(asyncEvd instanceof TestEvd evd && evd.ia().provider() == this && evd.isOpen())) {
            throw DatException.of(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_ASYNC, "asyncEvd",
                    "not an open async EVD of test provider '" + label + "'");
        }
        synchronized (open) {
            if (maxIas > 0 && open.size() >= maxIas) {
                throw DatException.of(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_DEVICE, null,
                        "test provider '" + label + "' opens at most " + maxIas + " IAs");
            }
            TestIa ia = new TestIa(this, name, request.instanceData(), request.asyncEvdMinQlen(),
                    asyncEvd == null ? null : asyncEvd);
            open.add(ia);
            return ia;
        }
    }

    void closed(TestIa ia) {
        open.remove(ia);
    }

    void init(ProviderInfo providerInfo, String instanceData) {
        if (instanceData.contains("fail")) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.NO_SUBTYPE, "instanceData",
                    "test provider '" + label + "' refuses ia_params '" + instanceData + "'");
        }
        initialized.put(providerInfo.iaName(), instanceData);
    }

    void fini(ProviderInfo providerInfo) {
        initialized.remove(providerInfo.iaName());
    }

    /**
     * The provider leaves while IAs may be open (hot swap, {@code DatIaFactory}): each IA's async
     * thread posts {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC} and fails the IA; this waits for those
     * threads, at most {@value #SHUTDOWN_MILLIS} ms in all.
     */
    void shutdown() {
        stopping = true;
        List<TestIa> failing = List.copyOf(open);
        failing.forEach(TestIa::failCatastrophically);
        TestIa.awaitAll(failing, SHUTDOWN_MILLIS);
    }
}
