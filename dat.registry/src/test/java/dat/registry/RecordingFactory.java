package dat.registry;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.HandleType;
import dat.api.InterfaceAdapter;
import dat.api.ProviderInfo;
import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.api.spi.IaOpenRequest;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A test IA factory: its IAs know their name, whether they are open, and close; every other
 * operation answers DAT_NOT_IMPLEMENTED. It records init, fini, open requests and close.
 */
public class RecordingFactory implements DatIaFactory, AutoCloseable {

    /** The instances the no-argument constructor made (ServiceLoader's), oldest first. */
    public static final List<RecordingFactory> LOADED = Collections.synchronizedList(new ArrayList<>());

    public final Map<String, Object> properties = new LinkedHashMap<>();
    public final List<IaOpenRequest> opens = Collections.synchronizedList(new ArrayList<>());
    public final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    public volatile RuntimeException failInit;
    public volatile RuntimeException failOpen;

    /** A factory named "recording" offering IA "rec0" (the ServiceLoader test uses this one). */
    @SuppressWarnings("this-escape") // a test's record of ServiceLoader's instances; nothing reads it before construction ends
    public RecordingFactory() {
        this("recording", "rec0");
        LOADED.add(this);
    }

    public RecordingFactory(String providerName, String... iaNames) {
        properties.put(DatProviderConstants.DAT_PROVIDER_NAME, providerName);
        if (iaNames.length > 0) {
            properties.put(DatProviderConstants.DAT_IA_NAME, iaNames.length == 1 ? iaNames[0] : iaNames);
        }
        properties.put(DatProviderConstants.DAT_TRANSPORT, "loopback");
        properties.put(DatProviderConstants.DAT_PROVIDER_VERSION, "1.0");
    }

    public RecordingFactory with(String key, Object value) {
        properties.put(key, value);
        return this;
    }

    @Override
    public Map<String, Object> properties() {
        return properties;
    }

    @Override
    public InterfaceAdapter openIa(IaOpenRequest request) {
        opens.add(request);
        calls.add("open " + request.iaName() + " [" + request.instanceData() + "]");
        if (failOpen != null) {
            throw failOpen;
        }
        return ia(request.iaName());
    }

    @Override
    public void init(ProviderInfo providerInfo, String instanceData) {
        calls.add("init " + providerInfo.iaName() + " [" + instanceData + "]");
        if (failInit != null) {
            throw failInit;
        }
    }

    @Override
    public void fini(ProviderInfo providerInfo) {
        calls.add("fini " + providerInfo.iaName());
    }

    @Override
    public void close() {
        calls.add("close");
    }

    /** A minimal IA: name, isOpen, close, handleType; the rest is not implemented. */
    public static InterfaceAdapter ia(String name) {
        AtomicBoolean open = new AtomicBoolean(true);
        return (InterfaceAdapter) Proxy.newProxyInstance(RecordingFactory.class.getClassLoader(),
                new Class<?>[] {InterfaceAdapter.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "name" -> name;
                    case "isOpen" -> open.get();
                    case "close" -> {
                        open.set(false);
                        yield null;
                    }
                    case "handleType" -> HandleType.IA;
                    case "toString" -> "IA " + name;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw DatException.of(DatReturn.NOT_IMPLEMENTED, DatReturn.NO_SUBTYPE, null, method.getName());
                });
    }
}
