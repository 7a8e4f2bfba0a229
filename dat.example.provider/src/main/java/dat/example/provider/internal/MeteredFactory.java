package dat.example.provider.internal;

import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.InterfaceAdapter;
import dat.api.spi.DatIaFactory;
import dat.api.spi.IaOpenRequest;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The IA factory of one metered IA name ({@code metered-sim0}): an open opens the underlying IA
 * ({@code sim0}) through the {@link DatRegistry}, as any consumer would, and decorates it.
 */
final class MeteredFactory implements DatIaFactory {

    private final String name;
    private final String underlyingName;
    private final DatRegistry registry;
    private final Handles handles = new Handles();
    private final Set<MeteredIa> open = ConcurrentHashMap.newKeySet();
    private volatile Duration leftWithGrace;

    MeteredFactory(String name, String underlyingName, DatRegistry registry) {
        this.name = name;
        this.underlyingName = underlyingName;
        this.registry = registry;
    }

    String name() {
        return name;
    }

    String underlyingName() {
        return underlyingName;
    }

    @Override
    public InterfaceAdapter openIa(IaOpenRequest request) {
        if (leftWithGrace != null) {
            throw DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                    "the metered provider of '" + name + "' left");
        }
        if (!request.iaName().equals(name)) {
            throw DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                    "this metered factory serves '" + name + "', not '" + request.iaName() + "'");
        }
        EventDispatcher asyncEvd = request.asyncEvd();
        EventDispatcher underlyingAsync;
        if (asyncEvd == null || asyncEvd == EventDispatcher.ASYNC_EXISTS) {
            underlyingAsync = asyncEvd;
        } else if (asyncEvd instanceof MeteredEvd metered && handles.evd(metered.u) == metered) {
            underlyingAsync = metered.u;
        } else {
            throw DatException.of(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_ASYNC, "asyncEvd",
                    "not an async EVD of an IA of this provider (" + name + ")");
        }
        // the registry already checked the version and thread safety against this factory's, which are the underlying's
        InterfaceAdapter underlying = registry.openIa(underlyingName, request.asyncEvdMinQlen(), underlyingAsync,
                DatConstants.VERSION_MAJOR, DatConstants.VERSION_MINOR, false);
        MeteredIa ia;
        try {
            ia = new MeteredIa(this, name, underlying, handles);
        } catch (RuntimeException e) {
            underlying.close();
            throw e;
        }
        open.add(ia);
        Duration grace = leftWithGrace;
        if (grace != null) {
            ia.fail(grace); // the provider left during the open
        }
        return ia;
    }

    /** An IA of this factory closed. */
    void closed(MeteredIa ia) {
        open.remove(ia);
    }

    /**
     * The factory leaves (the metered provider stops, or the underlying IA left the registry): every
     * open IA fails ({@link MeteredIa#fail}) and new opens are refused.
     */
    void leave(Duration grace) {
        leftWithGrace = grace;
        for (MeteredIa ia : open) {
            ia.fail(grace);
        }
    }

    /** How many IAs opened through this factory are open. */
    int openCount() {
        return open.size();
    }

    @Override
    public String toString() {
        return "MeteredFactory[" + name + " over " + underlyingName + "]";
    }
}
