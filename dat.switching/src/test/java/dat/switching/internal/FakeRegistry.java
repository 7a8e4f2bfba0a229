package dat.switching.internal;

import dat.api.DatException;
import dat.api.DatRegistry;
import dat.api.DatRegistryListener;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.HandleType;
import dat.api.IaQuery;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.api.ProviderInfo;
import dat.api.RegistryRuntimeDTO;
import dat.api.spi.DatIaFactory;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A registry for the switcher's unit tests: entries the test sets, filters of {@code (key=value)}
 * terms joined by {@code &}, and IAs that only open and close (no async EVD, so the switcher
 * watches them with {@code isOpen()}).
 */
final class FakeRegistry implements DatRegistry {

    private static final Pattern TERM = Pattern.compile("\\(([^()&|!=]+)=([^()]*)\\)");

    /** An {@code openIa} call, with the IA it returned. */
    record Open(String iaName, int versionMajor, int versionMinor, boolean threadSafe, FakeIa ia) {
    }

    /** An IA that only opens and closes. */
    static final class FakeIa {
        final String name;
        final AtomicInteger closes = new AtomicInteger();
        final InterfaceAdapter proxy;

        FakeIa(String name) {
            this.name = name;
            this.proxy = (InterfaceAdapter) Proxy.newProxyInstance(InterfaceAdapter.class.getClassLoader(),
                    new Class<?>[] {InterfaceAdapter.class}, (self, method, args) -> switch (method.getName()) {
                        case "name" -> name;
                        case "isOpen" -> closes.get() == 0;
                        case "close" -> {
                            closes.incrementAndGet();
                            yield null;
                        }
                        case "query" -> new IaQuery(null, null, null);
                        case "extension" -> Optional.empty();
                        case "handleType" -> HandleType.IA;
                        case "toString" -> "FakeIa[" + name + "]";
                        case "hashCode" -> System.identityHashCode(self);
                        case "equals" -> self == args[0];
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }

        boolean closed() {
            return closes.get() > 0;
        }
    }

    final List<ProviderDTO> entries = new CopyOnWriteArrayList<>();
    final List<Open> opens = new CopyOnWriteArrayList<>();
    private final List<DatRegistryListener> listeners = new CopyOnWriteArrayList<>();

    static ProviderDTO entry(long id, String iaName, ProviderDTO.Origin origin, ProviderDTO.State state, int ranking,
            boolean threadSafe) {
        return new ProviderDTO(id, iaName, 1, 2, threadSafe, "sim", "1.0", "sim", ranking, origin, state,
                state == ProviderDTO.State.SHADOWED ? ProviderDTO.FAILURE_REASON_SHADOWED : ProviderDTO.FAILURE_REASON_NONE,
                state == ProviderDTO.State.ACTIVE ? "" : "shadowed", origin == ProviderDTO.Origin.STATIC ? "dat.conf:1" : "service " + id,
                "", 0, Map.of("dat.ia.name", iaName, "dat.provider.name", "sim", "dat.transport", "sim", "service.ranking", ranking));
    }

    static ProviderDTO active(long id, String iaName) {
        return entry(id, iaName, ProviderDTO.Origin.DYNAMIC, ProviderDTO.State.ACTIVE, 0, false);
    }

    /** A provider arrives. */
    void add(ProviderDTO provider) {
        entries.add(provider);
        listeners.forEach(listener -> listener.providerAdded(provider));
    }

    /** A provider leaves. */
    void remove(ProviderDTO provider) {
        entries.remove(provider);
        listeners.forEach(listener -> listener.providerRemoved(provider));
    }

    /** Another provider of the same IA outranks an active one, which stays registered, shadowed. */
    void shadow(ProviderDTO active, ProviderDTO winner) {
        entries.set(entries.indexOf(active), entry(active.id(), active.iaName(), active.origin(), ProviderDTO.State.SHADOWED,
                active.ranking(), active.threadSafe()));
        entries.addFirst(winner);
        listeners.forEach(listener -> listener.providerRemoved(active));
        listeners.forEach(listener -> listener.providerAdded(winner));
    }

    private static boolean matches(ProviderDTO provider, String filter) {
        Matcher term = TERM.matcher(filter == null ? "" : filter);
        while (term.find()) {
            if (!term.group(2).equals(String.valueOf(provider.properties().get(term.group(1))))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public List<ProviderDTO> findProviders(String filter) {
        return entries.stream().filter(e -> e.state() == ProviderDTO.State.ACTIVE && matches(e, filter)).toList();
    }

    @Override
    public InterfaceAdapter openIa(String iaName, int asyncEvdMinQlen, EventDispatcher asyncEvd, int versionMajor,
            int versionMinor, boolean threadSafe) {
        if (findProviders("(dat.ia.name=" + iaName + ")").isEmpty()) {
            throw DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName", iaName);
        }
        FakeIa ia = new FakeIa(iaName);
        opens.add(new Open(iaName, versionMajor, versionMinor, threadSafe, ia));
        return ia.proxy;
    }

    @Override
    public RegistryRuntimeDTO getRuntimeDTO() {
        return new RegistryRuntimeDTO(new ArrayList<>(entries), "", true, List.of());
    }

    @Override
    public void addListener(DatRegistryListener listener) {
        listeners.add(listener);
        findProviders("").forEach(listener::providerAdded);
    }

    @Override
    public void removeListener(DatRegistryListener listener) {
        listeners.remove(listener);
    }

    @Override
    public List<ProviderInfo> listProviders() {
        throw new UnsupportedOperationException();
    }

    @Override
    public int listProviders(int maxToReturn, ProviderInfo[] providerList) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void addProvider(DatIaFactory provider, ProviderInfo providerInfo) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void removeProvider(DatIaFactory provider, ProviderInfo providerInfo) {
        throw new UnsupportedOperationException();
    }
}
