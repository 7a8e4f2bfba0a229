package dat.provider.sim.internal.core;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.spi.IaOpenRequest;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One running sim provider: its adapters and their fabric addresses, the context tables, the
 * connection-management lock, the conductor thread and the open IAs. A factory owns exactly one;
 * when the factory goes away ({@link #shutdown()}) every open IA fails catastrophically.
 *
 * <p><b>Address namespace.</b> Adapters get addresses in {@code 127.77.0.0/16}, numbered from
 * {@code 127.77.0.1} in the order they are first used, port 0, unless their {@code ia_params}
 * name one ({@code addr=...}). An address is only reachable while an adapter of this provider
 * holds it; any other well-formed address is unreachable.
 *
 * <p><b>Set-ups of an IA name.</b> An IA name has one current adapter, made with the
 * {@code ia_params} of the {@code init} (or first open) that asked for it. An {@code init} with
 * other {@code ia_params} replaces it (an open never does): IAs opened afterwards get a new
 * adapter; the old one keeps serving the IAs already open on it, and is closed (its address,
 * listening socket and thread released) when the last of them closes. The registry calls
 * {@code fini} only for the last {@code init} of a name, so none comes for it. A {@code fini}
 * while IAs are open does the same; an {@code init} or open with the {@code ia_params} of such
 * an adapter takes it back as the name's current one, so that a fixed address or port stays
 * the name's.
 *
 * <p><b>Locks.</b> {@link #cmLock} serializes connection management (connect, accept, reject,
 * handoff, disconnect, free of connected Endpoints, timeouts) across the fabric; it is never taken
 * on the data path. Data transfers lock only the two Endpoints of their connection.
 */
public final class SimProvider {

    final ProviderSettings settings;
    final SecureRandom random = new SecureRandom();
    final ContextTable<SimLmr> lmrContexts = new ContextTable<>(random);
    final ContextTable<RemoteWindow> rmrContexts = new ContextTable<>(random);
    /** Connection management: see the class comment. Public for the transports, which take it for the steps they drive. */
    public final ReentrantLock cmLock = new ReentrantLock();
    final Conductor conductor;
    private final Transport.Factory transports;
    /** The in-JVM fabric, shared by the adapters without a transport of their own. */
    private final Transport inJvm;
    private final Map<String, Adapter> adapters = new ConcurrentHashMap<>();
    /** The {@code ia_params} each current adapter was made with; guarded by this. */
    private final Map<String, String> adapterParams = new HashMap<>();
    /**
     * Adapters an {@code init} with other {@code ia_params} or a {@code fini} replaced while IAs
     * were open on them, with the {@code ia_params} each was made with; guarded by this.
     */
    private final Map<Adapter, String> replaced = new LinkedHashMap<>();
    /**
     * IA names whose {@link #setUp} closes the unused adapter it replaces, outside this monitor;
     * an open or set-up of such a name waits for it (on this monitor), others do not.
     */
    private final java.util.Set<String> settingUp = ConcurrentHashMap.newKeySet();
    private final Map<InetSocketAddress, Adapter> fabric = new ConcurrentHashMap<>();
    private final Map<String, SharedRegion> sharedRegions = new ConcurrentHashMap<>();
    private final ThreadLocal<dat.api.DatEvent> pollEvents = ThreadLocal.withInitial(dat.api.DatEvent::new);
    private int nextHost = 1;
    private volatile boolean closed;

    /** A shared-memory registration: the memory all LMRs with one cookie share. */
    record SharedRegion(long address, long size, int[] users) {}

    public SimProvider(ProviderSettings settings, String threadName, Transport.Factory transports) {
        this.settings = settings;
        this.transports = transports;
        this.conductor = new Conductor(threadName, IdleStrategy.of(settings.idleStrategy(), settings.idleSleepMicros()),
                IdleStrategy.longestParkNanos(settings.idleSleepMicros()));
        conductor.start();
        this.inJvm = transports.inJvm(this);
        for (String name : settings.iaNames()) {
            adapter(name, "");
        }
    }

    /** The event object {@link SimEvd#poll} hands to its handler on this thread. */
    dat.api.DatEvent pollEvent() {
        return pollEvents.get();
    }

    /** The adapter at an address of the in-JVM fabric, or {@code null}. */
    public Adapter resolveLocal(InetSocketAddress address) {
        return fabric.get(address);
    }

    /** Whether the provider stopped (the hot swap). */
    public boolean isClosed() {
        return closed;
    }

    /**
     * The adapter of an IA name for an open: the current one, else one created with the provider's
     * limits and the given {@code ia_params}.
     *
     * @param name the IA name
     * @param iaParams its static-registry parameters, may be empty
     * @return the adapter
     */
    public synchronized Adapter adapter(String name, String iaParams) {
        awaitSetUp(name);
        if (closed) {
            // a dat_ia_open that raced the hot swap: no adapter (nor TCP listener) after the shutdown
            throw stopped();
        }
        Adapter existing = adapters.get(name);
        if (existing != null) {
            return existing;
        }
        Adapter kept = takeBack(name, iaParams);
        if (kept != null) {
            return kept;
        }
        Adapter made = newAdapter(name, iaParams);
        adapterParams.put(name, iaParams);
        return made;
    }

    /**
     * Sets an IA name up with its {@code ia_params} ({@code dat_provider_init}): an adapter made
     * with other {@code ia_params} than these is replaced (see the class comment); only an
     * {@code init} replaces, so that opens never move an IA name to another address. An unused
     * adapter it replaces is closed before the new one is made, so that a fixed port it held is
     * free again; that close waits for the adapter's thread, which may need {@link #cmLock}, so it
     * runs outside this monitor, and only opens and set-ups of this IA name wait for it.
     *
     * @param name the IA name
     * @param iaParams its static-registry parameters, may be empty
     */
    public void setUp(String name, String iaParams) {
        Adapter unused;
        synchronized (this) {
            awaitSetUp(name);
            if (closed) {
                throw stopped();
            }
            Adapter existing = adapters.get(name);
            String previous = adapterParams.get(name);
            if (existing != null && iaParams.equals(previous)) {
                return;
            }
            if (existing == null || !existing.openIas.isEmpty()) {
                replaceInUse(name, iaParams, existing, previous);
                return;
            }
            adapters.remove(name);
            adapterParams.remove(name);
            fabric.remove(existing.address);
            settingUp.add(name);
            unused = existing;
        }
        try {
            closeOwnTransport(unused); // frees its address for the new parameters
        } finally {
            synchronized (this) {
                try {
                    if (closed) {
                        throw stopped();
                    }
                    if (takeBack(name, iaParams) == null) {
                        newAdapter(name, iaParams);
                        adapterParams.put(name, iaParams);
                    }
                } finally {
                    settingUp.remove(name);
                    notifyAll();
                }
            }
        }
    }

    /**
     * The set-up of an IA name whose current adapter, if any, has IAs open: that adapter is kept
     * for them (replaced) while a new one becomes current; called under this monitor.
     */
    private void replaceInUse(String name, String iaParams, Adapter existing, String previous) {
        if (existing != null) {
            adapters.remove(name);
            adapterParams.remove(name);
            replaced.put(existing, previous); // keeps its address for the IAs open on it
        }
        if (takeBack(name, iaParams) != null) {
            return;
        }
        try {
            newAdapter(name, iaParams);
            adapterParams.put(name, iaParams);
        } catch (RuntimeException e) {
            if (existing != null) {
                // the new parameters failed: the old set-up stays current
                replaced.remove(existing);
                adapters.put(name, existing);
                adapterParams.put(name, previous);
            }
            throw e;
        }
    }

    /**
     * Waits, under this monitor, while a {@link #setUp} of the IA name closes the adapter it
     * replaces (at most the close's own bound); an interrupt is kept for the caller.
     */
    private void awaitSetUp(String name) {
        boolean interrupted = false;
        while (settingUp.contains(name)) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Makes a replaced adapter of an IA name with these {@code ia_params}, still serving open
     * IAs, the name's current one again; called under this monitor.
     *
     * @return the adapter taken back, or {@code null} when there is none
     */
    private Adapter takeBack(String name, String iaParams) {
        for (Map.Entry<Adapter, String> entry : replaced.entrySet()) {
            Adapter adapter = entry.getKey();
            if (adapter.name.equals(name) && entry.getValue().equals(iaParams)) {
                replaced.remove(adapter);
                adapters.put(name, adapter);
                adapterParams.put(name, iaParams);
                return adapter;
            }
        }
        return null;
    }

    /** Makes and publishes the adapter of an IA name; called under this monitor. */
    private Adapter newAdapter(String name, String iaParams) {
        Map<String, String> params = SimLimits.parse(iaParams);
        String tcpBind = params.remove("tcp");
        String tcpTimeout = params.remove("tcp_timeout_ms");
        String tcpSpin = params.remove("tcp_spin_us");
        String shm = params.remove("shm");
        StringBuilder rest = new StringBuilder();
        params.forEach((k, v) -> rest.append(k).append('=').append(v).append(' '));
        SimLimits limits = settings.limits().withParams(rest.toString());
        if (tcpBind != null) {
            return tcpAdapter(name, limits, tcpBind, tcpTimeout == null ? 0 : parseWithin("tcp_timeout_ms", tcpTimeout, 10, 3_600_000),
                    tcpSpin == null ? -1 : parseWithin("tcp_spin_us", tcpSpin, 0, 10_000), shm);
        }
        if (tcpTimeout != null || tcpSpin != null || shm != null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "ia_params",
                    (tcpTimeout != null ? "tcp_timeout_ms" : tcpSpin != null ? "tcp_spin_us" : "shm") + " needs tcp=");
        }
        InetSocketAddress address = limits.address();
        if (address == null) {
            do {
                address = hostAddress(nextHost++);
            } while (fabric.containsKey(address));
            limits = limits.withAddress(address);
        } else if (fabric.containsKey(address)) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "ia_params",
                    "address " + address + " is already used by IA " + fabric.get(address).name);
        }
        Adapter adapter = new Adapter(this, name, limits, inJvm, false);
        adapters.put(name, adapter);
        fabric.put(address, adapter);
        return adapter;
    }

    /** A TCP IA's size limit: a frame's payload is read into and written from one ByteBuffer view. */
    private static void requireAtMost2GiB(long value, String key) {
        if (value > Integer.MAX_VALUE) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "ia_params",
                    key + "=" + value + " exceeds what a TCP IA carries in one frame (" + Integer.MAX_VALUE + ")");
        }
    }

    /**
     * An {@code ia_params} number within {@code [min, max]}.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} ({@code ia_params}) naming the key and its range
     */
    private static long parseWithin(String key, String text, long min, long max) {
        try {
            long value = Long.parseLong(text);
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "ia_params",
                key + " must be " + min + ".." + max + ", was '" + text + "'");
    }

    /**
     * An adapter with a TCP transport: its address is the listening socket's bound address (the
     * {@code tcp} parameter: {@code host:port}, port 0 for any; an {@code addr} parameter is
     * refused, the socket decides the address).
     */
    private Adapter tcpAdapter(String name, SimLimits limits, String tcpBind, long timeoutMs, long spinMicros, String shm) {
        if (limits.address() != null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "ia_params",
                    "addr and tcp exclude each other: a TCP IA's address is its socket's");
        }
        requireAtMost2GiB(limits.maxMessageSize(), "max_message_size");
        requireAtMost2GiB(limits.maxRdmaSize(), "max_rdma_size");
        InetSocketAddress bind = SimLimits.parseAddress(tcpBind);
        // the transport needs the adapter and the adapter the bound address: bind first, then build
        Transport.Bound transport = transports.tcp(bind, limits, name, timeoutMs, spinMicros, shm);
        Adapter adapter = new Adapter(this, name, limits.withAddress(transport.address()), transport, true);
        adapters.put(name, adapter);
        fabric.put(adapter.address, adapter);
        transport.start(adapter);
        return adapter;
    }

    /** Whether an IA name is known: configured, or set up by init / a static registry entry. */
    public boolean serves(String name) {
        return adapters.containsKey(name) || settingUp.contains(name) || settings.iaNames().contains(name);
    }

    /**
     * Undoes the set-up of an IA name (dat_provider_fini): its adapter goes now, or with its last
     * open IA (the registry gives up the {@code fini} of a set-up an {@code init} replaced, and
     * then calls this for the name while IAs of the older set-up may still be open on it). A
     * configured name is never forgotten.
     */
    public void removeAdapter(String name) {
        Adapter unused;
        synchronized (this) {
            Adapter adapter = adapters.get(name);
            if (adapter == null || settings.iaNames().contains(name)) {
                return;
            }
            adapters.remove(name);
            String params = adapterParams.remove(name);
            if (!adapter.openIas.isEmpty()) {
                replaced.put(adapter, params == null ? "" : params);
                return;
            }
            fabric.remove(adapter.address);
            unused = adapter;
        }
        closeOwnTransport(unused);
    }

    /** The last IA open on an adapter closed: a replaced adapter goes now (see the class comment). */
    void adapterUnused(Adapter adapter) {
        synchronized (this) {
            if (!adapter.openIas.isEmpty() || replaced.remove(adapter) == null) {
                return;
            }
            fabric.remove(adapter.address);
        }
        closeOwnTransport(adapter);
    }

    /**
     * Closes an adapter's own transport (listening socket, thread), if it has one. Called outside
     * this monitor: the close waits for the adapter's thread, which may need cmLock.
     */
    private static void closeOwnTransport(Adapter adapter) {
        if (adapter.ownTransport) {
            adapter.transport.close();
        }
    }

    /**
     * Opens an instance of an IA: the provider half of dat_ia_open(3DAT).
     *
     * @param request the request
     * @return the new IA
     */
    public SimIa open(IaOpenRequest request) {
        if (closed) {
            throw stopped();
        }
        String name = request.iaName();
        Adapter adapter;
        if (serves(name) || !request.instanceData().isEmpty()) {
            adapter = adapter(name, request.instanceData());
        } else {
            throw DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                    "the sim provider does not serve IA '" + name + "'");
        }
        EventDispatcher asyncEvd = request.asyncEvd();
        SimEvd given = null;
        boolean outOfScope = false;
        if (asyncEvd == EventDispatcher.ASYNC_EXISTS) {
            outOfScope = true;
        } else if (asyncEvd != null) {
            if (!(asyncEvd instanceof SimEvd evd) || evd.ia().provider() != this || !evd.isOpen()
                    || (evd.flags() & dat.api.EvdFlags.ASYNC) == 0) {
                throw SimHandle.invalidHandle(DatReturn.INVALID_HANDLE_EVD_ASYNC, "asyncEvd",
                        "not an open async Event Dispatcher of this provider");
            }
            given = evd;
        } else if (request.asyncEvdMinQlen() <= 0 || request.asyncEvdMinQlen() > adapter.limits.maxEvdQlen()) {
            throw SimHandle.invalidParameter(DatReturn.INVALID_ARG2, "asyncEvdMinQlen",
                    "must be 1.." + adapter.limits.maxEvdQlen() + ", was " + request.asyncEvdMinQlen());
        }
        SimIa ia = new SimIa(this, adapter, request.asyncEvdMinQlen(), given, outOfScope); // in openIas from here
        synchronized (this) {
            // shutdown and removeAdapter look at openIas under this monitor: either they saw this
            // IA (it was added before), or this sees what they did
            if (!closed && (adapters.get(name) == adapter || replaced.containsKey(adapter))) {
                return ia;
            }
        }
        ia.close(dat.api.CloseFlag.ABRUPT);
        throw closed ? stopped() : DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                "IA '" + name + "' was removed while it opened (dat_provider_fini)");
    }

    private static DatException stopped() {
        return DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "iaName",
                "the sim provider has stopped");
    }

    /**
     * Checks an address a consumer wants to connect to: dat_ep_connect(3DAT) may fail
     * synchronously with {@link DatReturn#INVALID_ADDRESS} for an address the provider cannot use.
     *
     * @param address the address
     * @throws DatException {@link DatReturn#INVALID_ADDRESS} when it is unresolved, a wildcard or a
     *     multicast address
     */
    static void checkAddress(InetSocketAddress address) {
        if (address.isUnresolved()) {
            throw DatException.of(DatReturn.INVALID_ADDRESS, DatReturn.INVALID_ADDRESS_MALFORMED, "remoteIaAddress",
                    "unresolved address " + address);
        }
        InetAddress ip = address.getAddress();
        if (ip.isAnyLocalAddress() || ip.isMulticastAddress()) {
            throw DatException.of(DatReturn.INVALID_ADDRESS, DatReturn.INVALID_ADDRESS_UNSUPPORTED, "remoteIaAddress",
                    "not a unicast address: " + address);
        }
    }

    /** Registers a shared-virtual region under its cookie, or checks it against the registered one. */
    synchronized void attachShared(byte[] cookie, long address, long size) {
        String key = HexFormat.of().formatHex(cookie);
        SharedRegion region = sharedRegions.get(key);
        if (region == null) {
            sharedRegions.put(key, new SharedRegion(address, size, new int[] {1}));
        } else if (region.address() != address || region.size() != size) {
            throw DatException.of(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE, "region",
                    "the cookie names shared memory at 0x" + Long.toHexString(region.address()) + " (" + region.size()
                            + " bytes), not this region");
        } else {
            region.users()[0]++;
        }
    }

    synchronized void detachShared(byte[] cookie) {
        String key = HexFormat.of().formatHex(cookie);
        SharedRegion region = sharedRegions.get(key);
        if (region != null && --region.users()[0] == 0) {
            sharedRegions.remove(key);
        }
    }

    /**
     * The hot swap: the factory goes away. Every open IA gets
     * {@link dat.api.EventNumber#ASYNC_ERROR_IA_CATASTROPHIC}, every posted DTO is flushed, every
     * handle becomes invalid, every waiter wakes, and the conductor thread ends.
     *
     * @return whether the conductor thread ended
     */
    public boolean shutdown() {
        List<SimIa> open = new ArrayList<>();
        List<Adapter> all;
        synchronized (this) {
            if (closed) {
                return !conductor.isAlive();
            }
            closed = true;
            all = new ArrayList<>(adapters.values());
            all.addAll(replaced.keySet());
            for (Adapter adapter : all) {
                open.addAll(adapter.openIas);
            }
        }
        for (SimIa ia : open) {
            ia.catastrophic();
        }
        boolean ended = true;
        for (Adapter adapter : all) {
            if (adapter.ownTransport) {
                ended &= adapter.transport.close();
            }
        }
        return conductor.close(5_000) && ended;
    }

    private static InetSocketAddress hostAddress(int n) {
        try {
            byte[] ip = {127, 77, (byte) (n >>> 8), (byte) n};
            return new InetSocketAddress(Inet4Address.getByAddress(ip), 0);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
