package dat.example.provider.internal;

import dat.api.ConnectionRequest;
import dat.api.ConsumerNotificationObject;
import dat.api.DatEvent;
import dat.api.DatHandle;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.InterfaceAdapter;
import dat.api.LocalMemoryRegion;
import dat.api.ProtectionZone;
import dat.api.RemoteMemoryRegion;
import dat.api.SharedReceiveQueue;
import dat.api.ext.IbExtension;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The decorator's translation table, one per factory: from each underlying handle to the
 * decorating handle the consumer holds. The underlying provider's events and query results name
 * underlying handles; before the consumer sees them they are translated back through this table,
 * so that the consumer only ever meets its own (decorating) handles. Lookups allocate nothing;
 * an Endpoint or Connection Request the provider created itself (a PSP with
 * {@code DAT_PSP_PROVIDER_FLAG}, a connection request) gets its wrapper on first sight.
 *
 * <p>Arguments go the other way with the static {@code u(...)} methods: a decorating handle becomes
 * its underlying one, and anything else (a foreign handle, {@code null}) passes unchanged, so that
 * the underlying provider answers it with the code the DAT pages prescribe.
 *
 * <p>Wrappers are forgotten when the consumer frees them, and all those of an IA when it closes.
 */
final class Handles {

    private final ConcurrentHashMap<Object, Object> wrappers = new ConcurrentHashMap<>();

    /** Records the wrapper of an underlying handle, owned by a metered IA. */
    <W> W remember(Object underlying, W wrapper, MeteredIa owner) {
        wrappers.put(underlying, wrapper);
        if (owner != null) {
            owner.owned.add(underlying);
        }
        return wrapper;
    }

    /** Forgets the wrapper of an underlying handle the consumer freed. */
    void forget(Object underlying) {
        Object wrapper = wrappers.remove(underlying);
        if (wrapper instanceof MeteredHandle<?> handle) {
            handle.ia.owned.remove(underlying);
        }
    }

    /** Forgets every wrapper an IA owns, when it closes. */
    void forgetAll(MeteredIa owner) {
        for (Object underlying : owner.owned) {
            wrappers.remove(underlying);
        }
        owner.owned.clear();
    }

    // ---------------------------------------------------------------------------------------------
    // underlying -> decorating
    // ---------------------------------------------------------------------------------------------

    InterfaceAdapter ia(InterfaceAdapter underlying) {
        return wrappers.get(underlying) instanceof MeteredIa ia ? ia : underlying;
    }

    /** The EVD wrapper; the markers {@code ASYNC_EXISTS} / {@code OUT_OF_SCOPE} and {@code null} pass. */
    EventDispatcher evd(EventDispatcher underlying) {
        return underlying != null && wrappers.get(underlying) instanceof MeteredEvd evd ? evd : underlying;
    }

    ProtectionZone pz(ProtectionZone underlying) {
        return underlying != null && wrappers.get(underlying) instanceof MeteredPz pz ? pz : underlying;
    }

    ConsumerNotificationObject cno(ConsumerNotificationObject underlying) {
        return underlying != null && wrappers.get(underlying) instanceof MeteredCno cno ? cno : underlying;
    }

    SharedReceiveQueue srq(SharedReceiveQueue underlying) {
        return underlying != null && wrappers.get(underlying) instanceof MeteredSrq srq ? srq : underlying;
    }

    LocalMemoryRegion lmr(LocalMemoryRegion underlying) {
        return underlying != null && wrappers.get(underlying) instanceof MeteredLmr lmr ? lmr : underlying;
    }

    RemoteMemoryRegion rmr(RemoteMemoryRegion underlying) {
        return underlying != null && wrappers.get(underlying) instanceof MeteredRmr rmr ? rmr : underlying;
    }

    /** The Endpoint wrapper, made on first sight for an Endpoint the provider created. */
    Endpoint ep(Endpoint underlying, MeteredIa owner) {
        if (underlying == null) {
            return null;
        }
        Object known = wrappers.get(underlying);
        if (known instanceof MeteredEp ep) {
            return ep;
        }
        MeteredEp created = new MeteredEp(underlying, owner);
        Object raced = wrappers.putIfAbsent(underlying, created);
        if (raced instanceof MeteredEp ep) {
            return ep;
        }
        owner.owned.add(underlying);
        return created;
    }

    /** The Connection Request wrapper, made when the request arrives. */
    ConnectionRequest cr(ConnectionRequest underlying, MeteredIa owner) {
        if (underlying == null) {
            return null;
        }
        Object known = wrappers.get(underlying);
        if (known instanceof MeteredCr cr) {
            return cr;
        }
        MeteredCr created = new MeteredCr(underlying, owner);
        Object raced = wrappers.putIfAbsent(underlying, created);
        if (raced instanceof MeteredCr cr) {
            return cr;
        }
        owner.owned.add(underlying);
        return created;
    }

    /** Any handle: its wrapper if there is one (a PSP, an IA, ...), else itself. */
    DatHandle any(DatHandle underlying) {
        if (underlying == null) {
            return null;
        }
        Object known = wrappers.get(underlying);
        return known instanceof DatHandle handle ? handle : underlying;
    }

    // ---------------------------------------------------------------------------------------------
    // decorating -> underlying (arguments)
    // ---------------------------------------------------------------------------------------------

    static Endpoint u(Endpoint ep) {
        return ep instanceof MeteredEp m ? m.u : ep;
    }

    static EventDispatcher u(EventDispatcher evd) {
        return evd instanceof MeteredEvd m ? m.u : evd;
    }

    static ProtectionZone u(ProtectionZone pz) {
        return pz instanceof MeteredPz m ? m.u : pz;
    }

    static ConsumerNotificationObject u(ConsumerNotificationObject cno) {
        return cno instanceof MeteredCno m ? m.u : cno;
    }

    static SharedReceiveQueue u(SharedReceiveQueue srq) {
        return srq instanceof MeteredSrq m ? m.u : srq;
    }

    static LocalMemoryRegion u(LocalMemoryRegion lmr) {
        return lmr instanceof MeteredLmr m ? m.u : lmr;
    }

    static InterfaceAdapter u(InterfaceAdapter ia) {
        return ia instanceof MeteredIa m ? m.u : ia;
    }

    // ---------------------------------------------------------------------------------------------
    // events
    // ---------------------------------------------------------------------------------------------

    /**
     * Rewrites an event the underlying EVD gave so that it names decorating handles, and counts
     * it in the IA's statistics. Allocates nothing for events whose handles are known.
     *
     * @param event the event, rewritten in place
     * @param evd the decorating EVD it was dequeued from
     * @return whether to deliver the event: {@code false} for a second catastrophic error of an IA
     *     (the decorator reported its own when the metered provider left, and the underlying
     *     provider, leaving at the same time, reports another)
     */
    boolean translate(DatEvent event, MeteredEvd evd) {
        int number = event.eventNumber();
        int more = event.moreEvents();
        MeteredIa owner = evd.ia;
        if (number == EventNumber.DTO_COMPLETION_EVENT) {
            owner.counters.completed(event.status(), event.transferredLength());
            event.setDtoCompletion(evd, ep(event.endpoint(), owner), event.userCookie(), event.status(),
                    event.transferredLength());
        } else if (IbExtension.isExtensionEvent(number)) {
            owner.counters.completed(event.status(), event.transferredLength());
            event.setExtensionDtoCompletion(number, evd, ep(event.endpoint(), owner), event.userCookie(), event.status(),
                    event.transferredLength(), event.extensionType(), event.immediateData());
        } else if (number == EventNumber.RMR_BIND_COMPLETION_EVENT) {
            owner.counters.completed(event.status(), 0);
            event.setRmrBindCompletion(evd, rmr(event.rmr()), event.userCookie(), event.status());
        } else if (number == EventNumber.CONNECTION_REQUEST_EVENT) {
            event.setConnectionRequest(evd, any(event.servicePoint()), event.localIaAddress(), event.connQual(),
                    cr(event.connectionRequest(), owner));
        } else if (EventNumber.isConnectionEvent(number)) {
            event.setConnectionEvent(number, evd, ep(event.endpoint(), owner), event.privateData());
        } else if (EventNumber.isAsyncError(number)) {
            if (number == EventNumber.ASYNC_ERROR_IA_CATASTROPHIC && !owner.reportCatastrophe()) {
                return false;
            }
            owner.counters.asyncError();
            event.setAsyncError(number, evd, any(event.asyncHandle()), event.asyncReason());
        } else if (number == EventNumber.SOFTWARE_EVENT) {
            event.setSoftwareEvent(evd, event.softwarePointer());
        }
        event.setMoreEvents(more);
        return true;
    }
}
