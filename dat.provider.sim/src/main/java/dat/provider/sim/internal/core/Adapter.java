package dat.provider.sim.internal.core;

import dat.api.EventNumber;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One simulated Interface Adapter, named by its IA name (for example {@code sim0}): its address
 * in the fabric, its limits, the counts of objects all its open instances hold, and its
 * connection-qualifier namespace. Several {@link SimIa} instances (opens) share one adapter, as
 * several processes share one HCA port.
 */
public final class Adapter {

    public final SimProvider provider;
    public final String name;
    public final SimLimits limits;
    public final InetSocketAddress address;
    final AtomicInteger eps = new AtomicInteger();
    final AtomicInteger evds = new AtomicInteger();
    final AtomicInteger lmrs = new AtomicInteger();
    final AtomicInteger pzs = new AtomicInteger();
    final AtomicInteger rmrs = new AtomicInteger();
    final AtomicInteger srqs = new AtomicInteger();
    final AtomicInteger cnos = new AtomicInteger();
    /** Service points by connection qualifier; guarded by the provider's CM lock. */
    final Map<Long, ServicePoint> servicePoints = new HashMap<>();
    final AtomicLong nextPortQual = new AtomicLong(1);
    final Set<SimIa> openIas = ConcurrentHashMap.newKeySet();
    /** How the IA reaches others: a transport of its own ({@code tcp=host:port}), or the provider's in-JVM fabric. */
    final Transport transport;
    /** Whether {@link #transport} is the IA's own (closed with the adapter), not the provider's fabric. */
    final boolean ownTransport;
    private long nextAnyQual;

    Adapter(SimProvider provider, String name, SimLimits limits, Transport transport, boolean ownTransport) {
        this.provider = provider;
        this.name = name;
        this.limits = limits;
        this.address = limits.address();
        this.transport = transport;
        this.ownTransport = ownTransport;
        this.nextAnyQual = provider.settings.anyQualFirst();
    }

    /** The IA's transport. */
    public Transport transport() {
        return transport;
    }

    /**
     * Reserves one object of a counted kind.
     *
     * @param counter the count
     * @param max the limit
     * @return {@code false} at the limit
     */
    static boolean reserve(AtomicInteger counter, int max) {
        for (;;) {
            int n = counter.get();
            if (n >= max) {
                return false;
            }
            if (counter.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** A free qualifier for dat_psp_create_any, or -1; called with the CM lock held. */
    long allocateAnyQual() {
        long first = provider.settings.anyQualFirst();
        long count = provider.settings.anyQualCount();
        for (long i = 0; i < count; i++) {
            long q = nextAnyQual;
            nextAnyQual = q + 1 >= first + count ? first : q + 1;
            if (!servicePoints.containsKey(q)) {
                return q;
            }
        }
        return -1;
    }

    /**
     * A connection request arrived for this IA: to the Service Point on its qualifier, or refused.
     * Called with the CM lock held.
     *
     * @param attempt the request
     */
    public void deliver(ConnectAttempt attempt) {
        if ((attempt.qos & ~limits.qosSupported()) != 0) {
            // the remote provider does not support the QoS: dat_ep_connect(3DAT)
            attempt.fail(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            return;
        }
        ServicePoint sp = servicePoints.get(attempt.remoteQual);
        if (sp == null) {
            // nobody listens on the qualifier
            attempt.fail(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            return;
        }
        sp.onRequest(attempt);
    }

    @Override
    public String toString() {
        return name + "@" + address;
    }

    /**
     * Whether an instance of this IA is open: its transport keeps idle sockets only for one (the
     * last instance's close drops them).
     */
    public boolean hasOpenInstances() {
        return !openIas.isEmpty();
    }
}
