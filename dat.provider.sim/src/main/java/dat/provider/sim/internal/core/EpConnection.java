package dat.provider.sim.internal.core;

import dat.api.CloseFlag;
import dat.api.ConnectFlags;
import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.Qos;
import java.net.InetSocketAddress;

/**
 * The connection state machine of one Endpoint: dat_ep_connect(3DAT), dat_ep_dup_connect(3DAT),
 * dat_ep_disconnect(3DAT), dat_ep_reset(3DAT), and the steps the other side and the wires drive
 * (accept, establishment, timeouts, a wire's end), with the states of DAT 1.2 §3.4. Its fields
 * and every step are guarded by the provider's CM lock; state changes that the data path sees
 * also take the Endpoint's lock, and those of a connection in one JVM both Endpoints' locks.
 */
public final class EpConnection {

    private final SimEndpoint ep;
    private final SimIa ia;
    /** The attempt this Endpoint makes as the active side, while it waits for the outcome. */
    ConnectAttempt attempt;
    /** The CR this Endpoint waits on as the passive side (RSP, provider PSP). */
    SimCr pendingCr;
    /** The RSP that reserved this Endpoint. */
    SimRsp reservedBy;
    /** A provider PSP created this Endpoint; the provider frees it if the CR is not accepted. */
    boolean providerOwned;
    private InetSocketAddress remoteAddress;
    private long remotePortQual;
    private long localPortQual;

    EpConnection(SimEndpoint ep) {
        this.ep = ep;
        this.ia = ep.ia();
    }

    /** The local port qualifier (the active side's number, or the qualifier the passive side accepted on). */
    long localPortQual() {
        return localPortQual;
    }

    /** The remote IA's address, or {@code null}. */
    InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    /** The remote port qualifier, or 0. */
    long remotePortQual() {
        return remotePortQual;
    }

    // ---------------------------------------------------------------------------------------------
    // the active side
    // ---------------------------------------------------------------------------------------------

    void connect(InetSocketAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData, int qos,
            int connectFlags) {
        ep.checkOpen();
        if (remoteIaAddress == null) {
            throw SimHandle.invalidParameter(DatReturn.INVALID_ARG2, "remoteIaAddress", "null address");
        }
        // dat_ep_connect(3DAT): timeout 4, private data (its size) 5, qos 7
        checkConnectArguments(timeoutMicros, privateData, qos, DatReturn.INVALID_ARG4, DatReturn.INVALID_ARG5, DatReturn.INVALID_ARG7);
        if (!ConnectFlags.isValid(connectFlags)) {
            throw SimHandle.invalidParameter(DatReturn.INVALID_ARG8, "connectFlags",
                    "undefined bits 0x" + Integer.toHexString(connectFlags));
        }
        if ((connectFlags & ConnectFlags.MULTIPATH) != 0) {
            throw DatException.of(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "connectFlags",
                    "multipathing is not supported (supports_multipath is false)");
        }
        SimProvider.checkAddress(remoteIaAddress);
        startConnect(remoteIaAddress, remoteConnQual, timeoutMicros, privateData, qos);
    }

    private void checkConnectArguments(long timeoutMicros, byte[] privateData, int qos, int timeoutArg, int dataArg, int qosArg) {
        if (!DatConstants.isValidTimeout(timeoutMicros) || timeoutMicros == 0) {
            throw SimHandle.invalidParameter(timeoutArg, "timeoutMicros",
                    "the timeout must be positive, was " + timeoutMicros);
        }
        if (privateData != null && privateData.length > ia.limits().maxPrivateData()) {
            throw SimHandle.invalidParameter(dataArg, "privateData",
                    privateData.length + " bytes exceed max_private_data_size " + ia.limits().maxPrivateData());
        }
        if (!Qos.isValid(qos)) {
            throw SimHandle.invalidParameter(qosArg, "qos", "undefined bits 0x" + Integer.toHexString(qos));
        }
        if ((qos & ~ia.limits().qosSupported()) != 0) {
            throw DatException.of(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "qos",
                    "QoS 0x" + Integer.toHexString(qos) + " is not supported by this provider");
        }
    }

    private void startConnect(InetSocketAddress address, long qual, long timeoutMicros, byte[] privateData, int qos) {
        SimProvider provider = ia.provider;
        provider.cmLock.lock();
        try {
            ep.checkOpen();
            if (ep.state != EpState.UNCONNECTED) {
                throw SimHandle.invalidState(SimEndpoint.stateSubtype(ep.state),
                        "the Endpoint is " + ep.state + ", not UNCONNECTED (dat_ep_connect(3DAT))");
            }
            localPortQual = ia.adapter.nextPortQual.getAndIncrement();
            remoteAddress = address;
            remotePortQual = qual;
            ConnectAttempt a = new ConnectAttempt(ep, ia.adapter.address, localPortQual, address, qual,
                    privateData == null ? new byte[0] : privateData.clone(), qos, ep.attrs);
            attempt = a;
            ep.state = EpState.ACTIVE_CONNECTION_PENDING;
            if (timeoutMicros != DatConstants.TIMEOUT_INFINITE) {
                a.timer = provider.conductor.schedule(timeoutMicros, () -> timeout(a));
            }
            try {
                ia.adapter.transport.connect(a);
            } catch (RuntimeException | OutOfMemoryError e) {
                // nothing could carry the request: the Endpoint stays UNCONNECTED, as if
                // dat_ep_connect had not been called
                a.abandon();
                attempt = null;
                remoteAddress = null;
                remotePortQual = 0;
                localPortQual = 0;
                ep.state = EpState.UNCONNECTED;
                throw DatException.of(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.NO_SUBTYPE, "ep",
                        "the connection request could not be sent: " + e);
            }
        } finally {
            provider.cmLock.unlock();
        }
    }

    /**
     * On the conductor: the passive side did not answer in time; a remote host that the request
     * did not reach (a transport's handshake did not complete) is UNREACHABLE (dat_ep_connect(3DAT)).
     */
    private void timeout(ConnectAttempt a) {
        SimProvider provider = ia.provider;
        provider.cmLock.lock();
        try {
            if (a.live()) {
                a.fail(a.reached ? EventNumber.CONNECTION_EVENT_TIMED_OUT : EventNumber.CONNECTION_EVENT_UNREACHABLE);
            }
        } finally {
            provider.cmLock.unlock();
        }
    }

    /** The attempt failed: DISCONNECTED, receives flushed, the event. Under the CM lock. */
    void activeConnectFailed(int eventNumber) {
        attempt = null;
        SpinLock l = ep.acquire();
        try {
            ep.state = EpState.DISCONNECTED;
            ep.receives.flushRecvs();
            ep.postConnectionEvent(eventNumber);
        } finally {
            l.unlock();
        }
    }

    void dupConnect(Endpoint dupEp, long timeoutMicros, byte[] privateData, int qos) {
        ep.checkOpen();
        SimEndpoint dup = ia.endpoint(dupEp, "dupEp");
        // dat_ep_dup_connect(3DAT): timeout 3, private data (its size) 4, qos 6
        checkConnectArguments(timeoutMicros, privateData, qos, DatReturn.INVALID_ARG3, DatReturn.INVALID_ARG4, DatReturn.INVALID_ARG6);
        InetSocketAddress address;
        long qual;
        ia.provider.cmLock.lock();
        try {
            if (dup.state != EpState.CONNECTED) {
                throw SimHandle.invalidState(SimEndpoint.stateSubtype(dup.state),
                        "dupEp is " + dup.state + ", not CONNECTED (dat_ep_dup_connect(3DAT))");
            }
            address = dup.connection.remoteAddress;
            qual = dup.connection.remotePortQual; // the remote Service Point's qualifier the connection was made to
        } finally {
            ia.provider.cmLock.unlock();
        }
        startConnect(address, qual, timeoutMicros, privateData, qos);
    }

    // ---------------------------------------------------------------------------------------------
    // establishment
    // ---------------------------------------------------------------------------------------------

    /**
     * Connects two Endpoints of this JVM through {@code wire}: the accept of an attempt whose
     * active Endpoint is local (dat_cr_accept(3DAT)). Each keeps its own lock; the wire is set
     * with both held, as it is left ({@link SimEndpoint#lockConnection}). Under the CM lock.
     */
    public static void connectLocal(ConnectAttempt a, SimEndpoint passive, Wire wire, byte[] acceptData) {
        SimEndpoint active = a.active;
        SimEndpoint.lockBoth(active, passive);
        try {
            active.setWire(wire);
            passive.setWire(wire);
            passive.connection.remoteAddress = a.activeAddress;
            passive.connection.remotePortQual = a.activePortQual;
            passive.connection.localPortQual = a.remoteQual;
            active.state = EpState.CONNECTED;
            passive.state = EpState.CONNECTED;
            active.connection.attempt = null;
            passive.connection.pendingCr = null;
            a.state = ConnectAttempt.State.ESTABLISHED;
            if (a.timer != null) {
                a.timer.cancel();
            }
        } finally {
            passive.lock.unlock();
            active.lock.unlock();
        }
        // the passive side's event carries no private data (dat_evd_dequeue(3DAT))
        passive.postConnectionEvent(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        SimEvd evd = active.connectEvd;
        if (evd != null) {
            evd.postConnection(EventNumber.CONNECTION_EVENT_ESTABLISHED, active, acceptData);
        }
        active.watermarks.checkEstablished();
        passive.watermarks.checkEstablished();
    }

    /**
     * The passive side, at dat_cr_accept of a request that came across a transport: the Endpoint
     * is on {@code wire} and COMPLETION_PENDING until the active side confirms
     * ({@link #readyToUse}). The caller sends the acceptance. Under the CM lock.
     */
    public void acceptedAcross(ConnectAttempt a, Wire wire) {
        SpinLock l = ep.acquire();
        try {
            ep.setWire(wire);
            remoteAddress = a.activeAddress;
            remotePortQual = a.activePortQual;
            localPortQual = a.remoteQual;
            // ESTABLISHED waits for the active side's confirmation: it may have timed out meanwhile
            ep.state = EpState.COMPLETION_PENDING;
            pendingCr = null;
            a.state = ConnectAttempt.State.ESTABLISHED;
        } finally {
            l.unlock();
        }
    }

    /** The passive side: the active side confirmed, the accept completed. Under the CM lock. */
    public void readyToUse(Wire w) {
        SpinLock l = ep.acquire();
        try {
            if (!ep.connectedThrough(w) || ep.state != EpState.COMPLETION_PENDING) {
                return; // disconnected or destroyed meanwhile
            }
            ep.state = EpState.CONNECTED;
        } finally {
            l.unlock();
        }
        ep.postConnectionEvent(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        ep.watermarks.checkEstablished();
    }

    /** The active side: the remote IA accepted across a transport. Under the CM lock. */
    public void acceptedByRemote(ConnectAttempt a, Wire wire, byte[] acceptData) {
        SpinLock l = ep.acquire();
        try {
            ep.setWire(wire);
            ep.state = EpState.CONNECTED;
            attempt = null;
            a.state = ConnectAttempt.State.ESTABLISHED;
            if (a.timer != null) {
                a.timer.cancel();
            }
        } finally {
            l.unlock();
        }
        SimEvd evd = ep.connectEvd;
        if (evd != null) {
            evd.postConnection(EventNumber.CONNECTION_EVENT_ESTABLISHED, ep, acceptData);
        }
        // the confirmation is queued already: a break here reaches the passive side after it
        ep.watermarks.checkEstablished();
    }

    /**
     * The wire ended from the far side (DISCONNECT, reset, a malformed frame, a failed check): this
     * Endpoint, if still on it, is disconnected with the event and its DTOs flushed; one that
     * waited for the active side's confirmation fails its accept.
     */
    public void wireLost(Wire w, int eventNumber) {
        SimProvider provider = ia.provider;
        provider.cmLock.lock();
        try {
            if (ep.connectedThrough(w) && ep.state == EpState.COMPLETION_PENDING) {
                acceptLost(w); // lost before the confirmation: the accept did not complete
                return;
            }
            SpinLock l = ep.acquire();
            try {
                if (!ep.connectedThrough(w) || (ep.state != EpState.CONNECTED && ep.state != EpState.DISCONNECT_PENDING)) {
                    return;
                }
                ep.goDisconnected(eventNumber == EventNumber.CONNECTION_EVENT_BROKEN);
                ep.postConnectionEvent(eventNumber);
            } finally {
                l.unlock();
            }
        } finally {
            provider.cmLock.unlock();
        }
    }

    /**
     * The Endpoint leaves {@code w} ({@link Wire#leave}; {@code broken}: without a DISCONNECT), and
     * a receive the wire held for a payload still landing completes flushed. With the lock held.
     */
    private void leaveWire(Wire w, boolean broken) {
        ep.setWire(null);
        Wr.Recv taken = w.leave(ep, broken);
        if (taken != null) {
            ep.completeRecv(taken, dat.api.DtoCompletionStatus.ERR_FLUSHED, 0, false);
        }
    }

    /** The passive side: the connection ended before the confirmation; the accept failed. Under the CM lock. */
    private void acceptLost(Wire w) {
        SpinLock l = ep.acquire();
        try {
            if (!ep.connectedThrough(w) || ep.state != EpState.COMPLETION_PENDING) {
                return;
            }
            // the peer broke the exchange or vanished: no DISCONNECT, the peer sees it broken
            leaveWire(w, true);
        } finally {
            l.unlock();
        }
        acceptFailed();
    }

    /** A passive Endpoint whose accept cannot complete (the active side is gone). Under the CM lock. */
    void acceptFailed() {
        pendingCr = null;
        SpinLock l = ep.acquire();
        try {
            ep.state = EpState.DISCONNECTED;
            ep.receives.flushRecvs();
            ep.postConnectionEvent(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
        } finally {
            l.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the end
    // ---------------------------------------------------------------------------------------------

    void disconnect(CloseFlag flag) {
        ep.checkOpen();
        if (flag == null) {
            throw SimHandle.invalidParameter(DatReturn.INVALID_ARG2, "flag", "null disconnect flag");
        }
        ia.provider.cmLock.lock();
        try {
            ep.checkOpen();
            switch (ep.state) {
                case DISCONNECTED -> {
                    // disconnecting a disconnected Endpoint is a no-op
                }
                case ACTIVE_CONNECTION_PENDING, COMPLETION_PENDING -> abortConnecting();
                case CONNECTED -> {
                    SimEndpoint peer = ep.lockConnection();
                    try {
                        if (ep.state == EpState.CONNECTED) {
                            if (flag == CloseFlag.GRACEFUL && ep.requests.reqCount > 0) {
                                ep.state = EpState.DISCONNECT_PENDING;
                            } else {
                                ep.disconnectBoth(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                            }
                        }
                    } finally {
                        ep.unlockConnection(peer);
                    }
                }
                case DISCONNECT_PENDING -> {
                    if (flag == CloseFlag.ABRUPT) {
                        SimEndpoint peer = ep.lockConnection();
                        try {
                            if (ep.state == EpState.DISCONNECT_PENDING) {
                                ep.disconnectBoth(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                            }
                        } finally {
                            ep.unlockConnection(peer);
                        }
                    }
                }
                default -> throw SimHandle.invalidState(SimEndpoint.stateSubtype(ep.state),
                        "cannot disconnect an Endpoint that is " + ep.state + " (dat_ep_disconnect(3DAT))");
            }
        } finally {
            ia.provider.cmLock.unlock();
        }
    }

    /** Aborts a connection establishment: DISCONNECTED, receives flushed, the event. */
    private void abortConnecting() {
        abandonAttempt();
        SpinLock l = ep.acquire();
        try {
            ep.goDisconnected(false); // a passive side waiting for the confirmation also closes its connection
            ep.postConnectionEvent(EventNumber.CONNECTION_EVENT_DISCONNECTED);
        } finally {
            l.unlock();
        }
    }

    /** Drops the active side's attempt, if any, without an event. Under the CM lock (or the hot swap). */
    void abandonAttempt() {
        ConnectAttempt a = attempt;
        attempt = null;
        if (a != null) {
            a.abandon();
        }
    }

    void reset() {
        ep.checkOpen();
        ia.provider.cmLock.lock();
        try {
            ep.checkOpen();
            if (ep.state == EpState.UNCONNECTED) {
                return; // a no-op; preposted receives stay (dat_ep_reset(3DAT))
            }
            if (ep.state != EpState.DISCONNECTED) {
                throw SimHandle.invalidState(SimEndpoint.stateSubtype(ep.state),
                        "reset needs a DISCONNECTED Endpoint, this one is " + ep.state);
            }
            SpinLock l = ep.acquire();
            try {
                ep.flushRequests();
                ep.receives.flushRecvs();
                remoteAddress = null;
                remotePortQual = 0;
                localPortQual = 0;
                ep.state = EpState.UNCONNECTED;
            } finally {
                l.unlock();
            }
        } finally {
            ia.provider.cmLock.unlock();
        }
    }

    /** The connection part of dat_ep_free: whatever state, the connection is broken off abruptly. Under the CM lock. */
    void endForFree() {
        switch (ep.state) {
            case ACTIVE_CONNECTION_PENDING, COMPLETION_PENDING -> {
                abandonAttempt();
                SpinLock l = ep.acquire();
                try {
                    Wire w = ep.wire();
                    if (w != null) {
                        leaveWire(w, false);
                    }
                } finally {
                    l.unlock();
                }
            }
            case CONNECTED, DISCONNECT_PENDING -> {
                SimEndpoint peer = ep.lockConnection();
                try {
                    if (ep.state == EpState.CONNECTED || ep.state == EpState.DISCONNECT_PENDING) {
                        ep.disconnectBoth(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                    }
                } finally {
                    ep.unlockConnection(peer);
                }
            }
            case RESERVED -> {
                if (reservedBy != null) {
                    reservedBy.destroy();
                }
            }
            default -> {
                // nothing to undo
            }
        }
    }
}
