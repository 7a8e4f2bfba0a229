package dat.provider.sim.internal.core;

import dat.api.EventNumber;
import dat.api.HandleType;

/**
 * A Service Point (PSP or RSP): registered on its connection qualifier in its IA's adapter, it
 * takes the connection requests that arrive there and reports them on its EVD.
 */
abstract class ServicePoint extends SimHandle {

    final SimIa ia;
    final long connQual;
    final SimEvd evd;

    ServicePoint(HandleType type, int invalidSubtype, SimIa ia, long connQual, SimEvd evd) {
        super(type, invalidSubtype);
        this.ia = ia;
        this.connQual = connQual;
        this.evd = evd;
    }

    @Override
    final SimIa ia() {
        return ia;
    }

    /** The connection qualifier. */
    public final long connQual() {
        return connQual;
    }

    /** Takes the qualifier and feeds the EVD; under the CM lock, the qualifier checked free. */
    final void register() {
        ia.adapter.servicePoints.put(connQual, this);
        evd.feeders.incrementAndGet();
    }

    /** Gives the qualifier back and stops feeding the EVD: freed from now on. Under the CM lock. */
    final void unregister() {
        freed = true;
        ia.adapter.servicePoints.remove(connQual, this);
        evd.feeders.decrementAndGet();
    }

    /**
     * Whether the request is refused before anything else: the Service Point is freed or its IA
     * unusable ({@code NON_PEER_REJECTED}).
     */
    final boolean refused(ConnectAttempt attempt) {
        if (freed || !ia.usable()) {
            attempt.fail(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            return true;
        }
        return false;
    }

    /**
     * A connection request arrived on the qualifier. Called with the connection-management lock
     * held, on the conductor thread (or a handoff's thread).
     *
     * @param attempt the request
     */
    abstract void onRequest(ConnectAttempt attempt);

    /** Stops listening, as the service point's free call says. Under the CM lock. */
    abstract void destroy();

    /** dat_psp_free(3DAT), dat_rsp_free(3DAT). */
    public void close() {
        freeUnderCmLock(this::destroy);
    }
}
