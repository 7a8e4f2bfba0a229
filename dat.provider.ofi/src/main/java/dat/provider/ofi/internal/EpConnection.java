package dat.provider.ofi.internal;

import dat.api.CloseFlag;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.ofi.internal.ffi.Ops;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * An Endpoint's connection ({@link OfiEp}): the DAT connection state from connect or accept through
 * the IA's event-queue entries ({@link #onCmEvent}), the connect timer and disconnect to reset, and
 * the connection's libfabric endpoint ({@link NativeEndpoint}), which exists only while a
 * connection does. A libfabric {@code FI_EP_MSG} endpoint connects once, and the passive side must
 * make its endpoint from the connection request, so one is made when the Endpoint connects or
 * accepts and closed when the connection ends; receives posted before are kept and handed to it
 * ({@link Posting}).
 *
 * <p>Event-queue entries map as: {@code FI_CONNECTED} is {@code ESTABLISHED} (on the passive side
 * once the requester also confirmed the accept, {@link AcceptConfirmation}); {@code FI_SHUTDOWN} is
 * {@code DISCONNECTED}; a connect's error entry is {@code PEER_REJECTED} (a reject by the peer's
 * consumer, {@link PrivateData}), {@code NON_PEER_REJECTED} (nobody listening, the peer's provider
 * refused), {@code TIMED_OUT} or {@code UNREACHABLE}. The DAT connect timeout is the provider's (a
 * timer of the event thread). When a connection ends, its endpoint is closed, the Endpoint's
 * completion queues are read, and every DTO libfabric did not complete is completed as flushed.
 *
 * <p>Everything here is written under the IA's CM lock, and under the Endpoint's post lock too
 * where the connection's endpoint changes; the data path reads {@link #state()} without a lock.
 */
final class EpConnection implements OfiIa.CmTarget {

    private final OfiEp ep;
    private final OfiIa ia;
    private volatile EpState state = EpState.UNCONNECTED;
    private NativeEndpoint endpoint;
    /** The CQ the connection's endpoint completes its requests on, whose count of DTOs in libfabric the Endpoint's send slots keep. */
    private CompletionQueue requestCq;
    /** While an SRQ Endpoint is connected, the CQ the receives it takes from its SRQ complete on, read by its receive EVD. */
    private CompletionQueue srqCq;
    private EventLoop.Timer connectTimer;
    /** A graceful disconnect waiting for the requests libfabric holds, or {@code null}. */
    private GracefulDisconnect settling;
    private volatile InetSocketAddress remoteAddress;
    private volatile long remoteQual;
    private volatile long localQual;
    private volatile int remotePzId;
    private final AcceptConfirmation confirmation;
    /** The RSP that reserves the Endpoint, or {@code null}. */
    private OfiServicePoint reservedBy;
    /** The Connection Request an RSP offered the Endpoint with, or that carries it from a PSP; {@code null} if none. */
    private OfiCr offeredTo;
    /** Whether the provider created the Endpoint for a PSP's request and still owns it ({@link OfiEp#provided}). */
    private boolean provided;

    EpConnection(OfiEp ep) {
        this.ep = ep;
        this.ia = ep.ia;
        this.confirmation = new AcceptConfirmation(ia.limits.cqData(), ep.ownerId);
    }

    // ---- what the Endpoint and the Service Points read ----------------------------------------------

    EpState state() {
        return state;
    }

    boolean isConnected() {
        return state == EpState.CONNECTED;
    }

    InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    long remoteQual() {
        return remoteQual;
    }

    long localQual() {
        return localQual;
    }

    /** The number of the peer Endpoint's PZ, which names its keys where the provider chooses them. */
    int remotePzId() {
        return remotePzId;
    }

    /** The request CQ of the connection's endpoint, or {@code null} while there is none (ia.cmLock held). */
    CompletionQueue requestCq() {
        return endpoint == null ? null : requestCq;
    }

    /** The accepts this Endpoint began ({@link AcceptConfirmation#accepts}), read where a confirmation is read, without the lock. */
    int acceptsBegun() {
        return confirmation.accepts();
    }

    // ---- reservation by an RSP (ia.cmLock held) --------------------------------------------------------

    /** Throws unless an RSP may reserve the Endpoint. */
    void checkReservable() {
        if (state != EpState.UNCONNECTED || reservedBy != null) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_EP_UNCONNECTED, "the Endpoint is not unconnected");
        }
    }

    void reserve(OfiServicePoint rsp) {
        reservedBy = rsp;
        state = EpState.RESERVED;
    }

    /** The Endpoint is the provider's, created for a PSP's request (before anyone else sees it). */
    void provide() {
        provided = true;
    }

    /** Whether the provider created the Endpoint for a PSP's request and owns it: no accept took it yet (ia.cmLock held). */
    boolean isProvided() {
        return provided;
    }

    /**
     * A request arrived at a PSP created with {@code DAT_PSP_PROVIDER}, carrying this
     * provider-created Endpoint: {@code TENTATIVE_CONNECTION_PENDING} until the consumer accepts,
     * rejects or hands the request off.
     */
    void offerTentatively(OfiCr cr) {
        state = EpState.TENTATIVE_CONNECTION_PENDING;
        offeredTo = cr;
    }

    /** The reserving RSP's request arrived: the Endpoint is offered with {@code cr}. */
    void offer(OfiCr cr) {
        state = EpState.PASSIVE_CONNECTION_PENDING;
        offeredTo = cr;
        reservedBy = null;
    }

    /** The RSP {@code rsp} went away: the Endpoint is the consumer's again, unconnected, if it still reserved it. */
    void unreserve(OfiServicePoint rsp) {
        if (reservedBy == rsp) {
            reservedBy = null;
            state = EpState.UNCONNECTED;
        }
    }

    /** The request {@code cr} went away unaccepted: the Endpoint is the consumer's again, unconnected, if it was offered with it. */
    void withdrawOffer(OfiCr cr) {
        if (offeredTo == cr) {
            offeredTo = null;
            state = EpState.UNCONNECTED;
        }
    }

    /** Throws unless the consumer may free the Endpoint: neither an RSP nor a Connection Request holds it. */
    void checkFreeable() {
        if (state == EpState.RESERVED || reservedBy != null) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_EP_RESERVED, "an RSP reserves the Endpoint");
        }
        if (state == EpState.TENTATIVE_CONNECTION_PENDING) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_EP_TENTCONNPENDING,
                    "a pending Connection Request carries the Provider-created Endpoint");
        }
        if (state == EpState.PASSIVE_CONNECTION_PENDING || offeredTo != null) {
            throw Codes.invalidState(DatReturn.INVALID_STATE_EP_PASSCONNPENDING, "a Connection Request holds the Endpoint");
        }
    }

    // ---- connect ---------------------------------------------------------------------------------------

    /** dat_ep_connect, its arguments checked; takes ia.cmLock. */
    void connect(InetSocketAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData) {
        ia.cmLock.lock();
        try {
            ep.checkOpen();
            if (state != EpState.UNCONNECTED) {
                throw Codes.epStateException(state, "connect needs an unconnected Endpoint");
            }
            NativeEndpoint made;
            ep.postLock.lock(); // no receive but the staged ones reaches the attempt's endpoint before the call's outcome
            try {
                try (Arena local = Arena.ofConfined()) {
                    MemorySegment destination = Sockaddr.of(local, remoteIaAddress.getAddress(), (int) remoteConnQual);
                    MemorySegment info = ia.domain.activeInfo(destination);
                    try {
                        made = open(info);
                    } finally {
                        ia.domain.freeActiveInfo(info);
                    }
                    Ops.connect(made.ep, destination, PrivateData.frame(local, privateData, ep.pz.id, confirmation.owner()),
                            PrivateData.framedLength(privateData));
                } catch (NativeException e) {
                    closeEndpoint(true); // the call failed: the Endpoint stays as it was, its receives posted
                    throw EpLimits.connectRefused(e);
                }
            } finally {
                ep.postLock.unlock();
            }
            remoteAddress = new InetSocketAddress(remoteIaAddress.getAddress(), 0);
            remoteQual = remoteConnQual;
            localQual = made.localPort();
            state = EpState.ACTIVE_CONNECTION_PENDING;
            if (timeoutMicros != DatConstants.TIMEOUT_INFINITE) {
                NativeEndpoint attempt = made;
                connectTimer = ia.loop.schedule(timeoutMicros * 1000, () -> connectTimedOut(attempt));
            }
        } finally {
            ia.cmLock.unlock();
        }
    }

    /**
     * Makes the connection's libfabric endpoint and hands it the receives posted so far
     * (ia.cmLock held).
     */
    private NativeEndpoint open(MemorySegment info) {
        ep.postLock.lock();
        try {
            OfiEvd sendSide = ep.requestEvd != null ? ep.requestEvd : ia.discardEvd();
            OfiEvd recvSide = ep.recvEvd != null ? ep.recvEvd : ia.discardEvd();
            OfiSrq srq = ep.srq;
            NativeEndpoint made;
            try {
                if (srq != null) {
                    srqCq = new CompletionQueue(ia, ep, ep.attributes.maxRecvDtos());
                }
                made = new NativeEndpoint(ia, info, sendSide.cq.cq, srq != null ? srqCq.cq : recvSide.cq.cq,
                        srq == null ? MemorySegment.NULL : srq.srx);
            } catch (NativeException e) {
                if (srqCq != null) {
                    srqCq.close();
                    srqCq = null;
                }
                throw e;
            }
            if (srqCq != null) {
                srqCq.takesReceives();
                recvSide.attach(srqCq);
            } else {
                recvSide.cq.takesReceives();
            }
            requestCq = sendSide.cq;
            ep.sendSlots.countIn(requestCq.posted);
            endpoint = made;
            ep.posting.connected(made);
            ia.addCmTarget(made.ep, this);
            return made;
        } finally {
            ep.postLock.unlock();
        }
    }

    // ---- accept ----------------------------------------------------------------------------------------

    /** Throws unless this Endpoint may accept the request (ia.cmLock held). */
    void checkCanAccept(OfiCr cr) {
        ep.checkOpen();
        EpState s = state;
        boolean reservedForThis = s == EpState.RESERVED && cr.localEp == ep;
        boolean offered = (s == EpState.PASSIVE_CONNECTION_PENDING || s == EpState.TENTATIVE_CONNECTION_PENDING) && offeredTo == cr;
        if (s != EpState.UNCONNECTED && !reservedForThis && !offered) {
            throw Codes.epStateException(s, "the Endpoint cannot take this request");
        }
        if (ep.pz == null) {
            // dat_cr_accept(3DAT): an Endpoint that does not satisfy the request fails the accept without effect
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "ep",
                    "the Provider-created Endpoint has no PZ yet: give it one with dat_ep_modify before dat_cr_accept");
        }
    }

    /**
     * Accepts a connection request on this Endpoint (the CR calls it with ia.cmLock held, after
     * {@link #checkCanAccept}): makes the connection's endpoint from the request's info and
     * {@code fi_accept}s. When that fails, the Endpoint is disconnected with
     * {@code DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR} (dat_cr_accept(3DAT)).
     *
     * @return whether an endpoint took the request over; if not, the CR refuses it
     */
    boolean acceptOn(OfiCr cr, MemorySegment requestInfo, byte[] privateData) {
        provided = false; // the consumer's from here on, connected or not
        try {
            remoteAddress = cr.remoteIaAddress();
            remoteQual = cr.remotePortQual();
            remotePzId = cr.remotePzId;
            NativeEndpoint made;
            try {
                made = open(requestInfo);
            } catch (NativeException | DatException e) {
                failConnection(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
                return false;
            }
            localQual = made.localPort();
            state = EpState.COMPLETION_PENDING;
            confirmation.accepting(cr.remoteOwnerId);
            try (Arena local = Arena.ofConfined()) {
                Ops.accept(made.ep, PrivateData.frame(local, privateData, ep.pz.id, confirmation.owner()),
                        PrivateData.framedLength(privateData));
            } catch (NativeException e) {
                System.getLogger(EpConnection.class.getName()).log(System.Logger.Level.DEBUG, "fi_accept failed", e);
                end(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, null);
            }
            return true;
        } finally {
            reservedBy = null;
            offeredTo = null;
        }
    }

    /** Passive side, on the event thread with ia.cmLock held: the requester confirmed accept number {@code accept}. */
    void confirmedByPeer(int accept) {
        if (ep.freed) {
            return;
        }
        boolean both = confirmation.confirmed(accept);
        if (state == EpState.COMPLETION_PENDING && both) {
            established(null);
        }
    }

    // ---- the IA's event-queue entries and the timer (event thread, ia.cmLock held) -----------------------

    @Override
    public void onCmEvent(int event, int error, byte[] data, MemorySegment info) {
        if (ep.freed) {
            return;
        }
        EpState s = state;
        if (event == Fi.CONNECTED) {
            if (s == EpState.ACTIVE_CONNECTION_PENDING) {
                cancelConnectTimer();
                remotePzId = PrivateData.pzOf(data);
                int peerOwner = PrivateData.ownerOf(data);
                if (confirmation.sendsTo(peerOwner)) {
                    confirm(peerOwner);
                }
                established(PrivateData.unframe(data));
            } else if (s == EpState.COMPLETION_PENDING && confirmation.connected()) {
                established(null);
            }
        } else if (event == Fi.SHUTDOWN || error != 0) {
            int eventNumber = switch (s) {
                case CONNECTED -> event == Fi.SHUTDOWN ? EventNumber.CONNECTION_EVENT_DISCONNECTED
                        : EventNumber.CONNECTION_EVENT_BROKEN;
                case DISCONNECT_PENDING -> EventNumber.CONNECTION_EVENT_DISCONNECTED;
                case COMPLETION_PENDING -> EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR;
                case ACTIVE_CONNECTION_PENDING -> PrivateData.connectFailure(error, data);
                default -> -1;
            };
            if (eventNumber >= 0) {
                end(eventNumber, eventNumber == EventNumber.CONNECTION_EVENT_PEER_REJECTED ? PrivateData.unframe(data) : null);
            }
        }
    }

    private void established(byte[] privateData) {
        state = EpState.CONNECTED;
        post(EventNumber.CONNECTION_EVENT_ESTABLISHED, privateData);
        ep.watermarks.breakIfOverHard();
    }

    /** Active side (ia.cmLock held): confirms the peer's accept; a failure shows as the connection's end. */
    private void confirm(int peerOwner) {
        ep.postLock.lock();
        try {
            ep.posting.confirm(AcceptConfirmation.data(peerOwner));
        } finally {
            ep.postLock.unlock();
        }
    }

    /** The DAT connect timeout expired: the attempt is abandoned. */
    private void connectTimedOut(NativeEndpoint attempt) {
        if (ep.freed || endpoint != attempt || state != EpState.ACTIVE_CONNECTION_PENDING) {
            return;
        }
        connectTimer = null;
        end(EventNumber.CONNECTION_EVENT_TIMED_OUT, null);
    }

    private void cancelConnectTimer() {
        EventLoop.Timer timer = connectTimer;
        if (timer != null) {
            connectTimer = null;
            ia.loop.cancel(timer);
        }
    }

    // ---- disconnect and the connection's end (ia.cmLock held) ---------------------------------------------

    /** dat_ep_disconnect, the flag checked; takes ia.cmLock. */
    void disconnect(CloseFlag flag) {
        ia.cmLock.lock();
        try {
            ep.checkOpen();
            switch (state) {
                case CONNECTED -> {
                    state = EpState.DISCONNECT_PENDING;
                    if (flag == CloseFlag.GRACEFUL && !requestsSettled()) {
                        settling = GracefulDisconnect.start(ia, this);
                    } else {
                        shutdownAndEnd();
                    }
                }
                case ACTIVE_CONNECTION_PENDING, COMPLETION_PENDING -> end(EventNumber.CONNECTION_EVENT_DISCONNECTED, null);
                case DISCONNECT_PENDING, DISCONNECTED -> {
                    if (flag == CloseFlag.ABRUPT && settling != null) {
                        shutdownAndEnd(); // an abrupt disconnect does not wait for a graceful one
                    }
                }
                default -> throw Codes.epStateException(state, "nothing to disconnect in state " + state);
            }
        } finally {
            ia.cmLock.unlock();
        }
    }

    /** Shuts the connection down (the peer sees {@code FI_SHUTDOWN}) and ends it, disconnected. */
    void shutdownAndEnd() {
        shutdownAndEnd(EventNumber.CONNECTION_EVENT_DISCONNECTED);
    }

    /** Shuts the connection down (the peer sees {@code FI_SHUTDOWN}) and ends it with {@code eventNumber}. */
    void shutdownAndEnd(int eventNumber) {
        try {
            Ops.shutdown(endpoint.ep);
        } catch (NativeException ignored) {
            // the connection is down already
        }
        end(eventNumber, null);
    }

    /** Whether libfabric holds none of the requests, their completions read: a graceful disconnect proceeds. */
    boolean requestsSettled() {
        OfiEvd requests = ep.requestEvd != null ? ep.requestEvd : ia.existingDiscardEvd();
        if (requests != null) {
            requests.reclaim();
        }
        return ep.sendSlots.posted() == 0;
    }

    /** Confirms the silent writes ({@link Posting#confirmSilentWrites}), so that a graceful disconnect sees them complete. */
    void confirmSilentWrites() {
        Locks.lockSpinning(ep.postLock);
        try {
            ep.posting.confirmSilentWrites();
        } finally {
            ep.postLock.unlock();
        }
    }

    /** Whether {@code wait} is the graceful disconnect the Endpoint still waits on. */
    boolean isSettling(GracefulDisconnect wait) {
        return settling == wait && state == EpState.DISCONNECT_PENDING && endpoint != null && !ep.freed;
    }

    /** A connection that never had an endpoint ended: the Endpoint is disconnected and the event posted. */
    private void failConnection(int eventNumber) {
        cancelConnectTimer();
        state = EpState.DISCONNECTED;
        post(eventNumber, null);
    }

    /**
     * The connection ended: its endpoint is closed, the completions libfabric made are read into
     * the EVDs, every other DTO posted is flushed, and the event is posted.
     */
    private void end(int eventNumber, byte[] privateData) {
        cancelConnectTimer();
        settling = GracefulDisconnect.cancel(settling);
        closeEndpoint(false);
        state = EpState.DISCONNECTED;
        post(eventNumber, privateData);
    }

    /**
     * Closes the connection's endpoint and flushes what it held.
     *
     * @param keepReceives the endpoint closes before its connection existed (the connect call
     *     failed): its receives are staged for the next one instead of flushed
     */
    private void closeEndpoint(boolean keepReceives) {
        ep.postLock.lock();
        try {
            NativeEndpoint made = endpoint;
            if (keepReceives) {
                ep.posting.restageReceives(); // before the close: the cancellations it reports match no receive
            }
            if (made != null) {
                ia.removeCmTarget(made.ep);
                made.close();
                endpoint = null;
                ep.posting.disconnected();
            }
            OfiEvd discard = ia.existingDiscardEvd();
            for (OfiEvd evd : new OfiEvd[] {ep.requestEvd, ep.recvEvd, discard}) {
                if (evd != null) {
                    evd.drainForTeardown(evd.cq, false);
                }
            }
            if (srqCq != null) {
                OfiEvd holder = ep.recvEvd != null ? ep.recvEvd : discard;
                holder.drainForTeardown(srqCq, true);
                holder.detach(srqCq);
                srqCq.close();
                srqCq = null;
            }
            if (!keepReceives) {
                ep.posting.flushPosted();
            }
        } finally {
            ep.postLock.unlock();
        }
    }

    private void post(int eventNumber, byte[] privateData) {
        OfiEvd evd = ep.connectEvd;
        if (evd != null) {
            evd.postEvent(new DatEvent().setConnectionEvent(eventNumber, evd, ep, privateData));
        }
    }

    /** dat_ep_reset: a disconnected Endpoint is unconnected again; takes ia.cmLock. */
    void reset() {
        ia.cmLock.lock();
        try {
            ep.checkOpen();
            if (state == EpState.UNCONNECTED) {
                return;
            }
            if (state != EpState.DISCONNECTED) {
                throw Codes.epStateException(state, "reset needs a disconnected Endpoint");
            }
            remoteAddress = null;
            remoteQual = 0;
            localQual = 0;
            remotePzId = 0;
            state = EpState.UNCONNECTED;
        } finally {
            ia.cmLock.unlock();
        }
    }

    /** The hot swap: the connection ends and every posted DTO completes as flushed, before the IA goes; takes ia.cmLock. */
    void flushForFailure() {
        ia.cmLock.lock();
        try {
            if (!ep.freed) {
                closeEndpoint(false);
            }
        } finally {
            ia.cmLock.unlock();
        }
    }

    /** The Endpoint is freed (ia.cmLock held): a live connection is shut down, its endpoint closed and its DTOs flushed. */
    void tearDown() {
        NativeEndpoint made = endpoint;
        if (made != null && (state == EpState.CONNECTED || state == EpState.DISCONNECT_PENDING)) {
            try {
                Ops.shutdown(made.ep);
            } catch (NativeException ignored) {
                // the peer sees the connection break instead
            }
        }
        cancelConnectTimer();
        settling = GracefulDisconnect.cancel(settling);
        closeEndpoint(false);
    }
}
