package dat.provider.sim.internal.tcp;

import dat.api.EventNumber;
import dat.provider.sim.internal.core.ConnectAttempt;
import dat.provider.sim.internal.core.SimProvider;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * Whether one connection's socket outlives it, to carry the next connection between the same two
 * IAs, and the end that hands it over. The active side offers it in its CONNECT_REQUEST
 * ({@link TcpFrame#WITH_REUSE}), the passive side takes it in its ACCEPT
 * ({@link TcpFrame#ACCEPT_REUSE}). Such a connection ends with a DISCONNECT from each
 * side and no FIN: a side that reads the peer's DISCONNECT first answers with its own. Once a side
 * has written its DISCONNECT and read the peer's, no frame of the connection is left in either
 * direction (each is the last frame its sender writes on it), and the socket goes to a fresh
 * connection ({@link TcpConnection#recycle}): the active side's waits in the IA's
 * {@link IdleSockets} for the next dat_ep_connect to that IA, the passive side's reads it as it
 * reads an accepted socket, for its CONNECT_REQUEST. A shared-memory connection's ring file goes
 * with its socket, kept mapped on both sides ({@link SharedMemoryLink#inherit}): the next
 * connection offers and takes it again, so that neither side creates, maps or unmaps a file.
 *
 * <p>An idle socket the peer closes, or one that idles for half the liveness timeout, is closed;
 * the passive side closes a recycled socket that brings no request within the timeout (the
 * active side closed its end long before). A connection that breaks closes its socket as any does.
 * A connect never fails for the reuse: it takes an idle socket only when a read finds it clean
 * ({@link #usable}), and goes on over a fresh socket when the reused one ends before the answer
 * ({@link #retryFresh}).
 */
final class SocketReuse {

    private final TcpConnection c;
    /** The socket came from an ended connection: a passive one's request may never come, which is no violation. */
    final boolean recycled;
    /** The active side: the peer IA's address, the key of the idle sockets. */
    private volatile InetSocketAddress peer;
    /** The active side offered reuse, or the passive side read the offer. */
    private volatile boolean offered;
    /** Both sides agreed: the connection ends by the exchange of DISCONNECTs. */
    private volatile boolean agreed;
    /** This side queued its DISCONNECT: written under this object's lock, read without it for every RDMA read request. */
    private volatile boolean endQueued;
    // the rest of the end, guarded by this
    private boolean endWritten;
    private boolean peerEnded;
    private boolean handedOver;
    /** Since when the recycled socket waits (idle, or for its request). */
    private final long since = System.nanoTime();
    /** The byte {@link #usable} reads; it never comes. */
    private final ByteBuffer probe = ByteBuffer.allocate(1);

    SocketReuse(TcpConnection c, SocketReuse from) {
        this.c = c;
        this.recycled = from != null;
        this.peer = from == null ? null : from.peer;
    }

    // ---------------------------------------------------------------------------------------------
    // the setup
    // ---------------------------------------------------------------------------------------------

    /** The active side, before its CONNECT_REQUEST: offers reuse; the request's bit. */
    int offer(ConnectAttempt a) {
        peer = a.remoteAddress;
        offered = true;
        return TcpFrame.WITH_REUSE;
    }

    /** The passive side read the CONNECT_REQUEST's {@code context}. */
    void requested(int context) {
        offered = (context & TcpFrame.WITH_REUSE) != 0;
    }

    /** The passive side accepts: takes an offer; the ACCEPT's bit. */
    int accept() {
        agreed = offered;
        return agreed ? TcpFrame.ACCEPT_REUSE : 0;
    }

    /** The active side read the ACCEPT's {@code aux}: {@code false} when it takes an offer never made. */
    boolean answered(int aux) {
        boolean taken = (aux & TcpFrame.ACCEPT_REUSE) != 0;
        agreed = taken;
        return !taken || offered;
    }

    boolean agreed() {
        return agreed;
    }

    // ---------------------------------------------------------------------------------------------
    // the end
    // ---------------------------------------------------------------------------------------------

    /** Whether this side queued its DISCONNECT: it sends nothing more on the connection. */
    boolean ending() {
        return endQueued;
    }

    /** The local Endpoint disconnects (any thread): the DISCONNECT goes, without a FIN. */
    void disconnect() {
        synchronized (this) {
            if (endQueued) {
                return;
            }
            endQueued = true;
        }
        c.queueDisconnect(false);
    }

    /** On the agent: the peer's DISCONNECT was read, the last frame of the connection from it. */
    void peerDisconnected() {
        boolean answer;
        boolean hand;
        synchronized (this) {
            peerEnded = true;
            answer = !endQueued;
            endQueued = true;
            hand = handOver();
        }
        c.readInterest(false); // nothing more comes before the socket's next connection
        c.endpointLeaves(EventNumber.CONNECTION_EVENT_DISCONNECTED);
        if (answer) {
            c.queueDisconnect(false);
        } else if (hand) {
            c.recycle();
        }
    }

    /** This side's DISCONNECT is written whole (by the agent, or inline by the thread that disconnects). */
    void endWritten() {
        boolean hand;
        synchronized (this) {
            endWritten = true;
            hand = handOver();
        }
        if (hand && (c.agent().inAgent() || !c.agent().execute(c::recycle))) {
            c.recycle(); // the socket changes hands on the agent, which reads it
        }
    }

    private boolean handOver() {
        if (endWritten && peerEnded && !handedOver) {
            handedOver = true;
            return true;
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------------
    // the recycled socket
    // ---------------------------------------------------------------------------------------------

    /** On the agent: the fresh connection took the socket; the active side's idles, the passive side's reads. */
    void reopened(boolean active) {
        if (active && !keptIdle()) {
            c.close(); // enough idle sockets to that IA, or the IA closes, or no instance of it is open
            return;
        }
        c.readInterest(true); // an idle socket's readiness is its peer's close
        if (!active) {
            c.readRecycled(); // the request may have come with the DISCONNECT
        }
    }

    /**
     * Keeps the active side's socket among the IA's idle ones, unless it has enough to that peer,
     * it closes, or no instance of it is open: the last instance's close drops the idle sockets,
     * and may have come before this socket was handed over (a connect that took it meanwhile keeps it).
     */
    private boolean keptIdle() {
        IdleSockets idle = c.transport().idleSockets();
        if (!idle.add(peer, c)) {
            return false;
        }
        return c.transport().adapter().hasOpenInstances() || !idle.remove(peer, c);
    }

    /** The active side's next dat_ep_connect to the same IA took the idle socket. */
    InetSocketAddress peer() {
        return peer;
    }

    /**
     * dat_ep_connect took this idle socket (under the CM lock, on the consumer's thread): whether it
     * can carry the request. One non-blocking read of a byte proves it: nothing read ahead and
     * nothing in the socket (an idle socket brings nothing: a byte there would be taken for the
     * answer), no end of stream and no reset (the peer closed it, or its process is gone).
     */
    boolean usable() {
        if (c.reader.holdsBytes()) {
            return false;
        }
        try {
            return c.channel().read(probe.clear()) == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The attempt on this reused socket met the socket's end (an end of stream, a reset, a failed
     * write) before any byte of the answer: the socket was dead, closed by a peer that had not
     * read the request (its idle timeout) or by the peer's process ending. The attempt goes on
     * over a fresh socket, as if none had idled: a uDAPL consumer sees the connect that a fresh
     * socket gives, never a rejection that comes of the reuse. On the agent, or on the thread
     * whose write failed.
     *
     * @return whether the attempt went on over a fresh socket (this connection then closes); {@code
     *     false}: it fails as on a fresh socket
     */
    boolean retryFresh(ConnectAttempt a) {
        if (!recycled || !c.active() || a == null || a.active() == null || !c.handshake.awaitsAnswer()) {
            return false;
        }
        SimProvider provider = c.transport().adapter().provider;
        provider.cmLock.lock();
        try {
            if (!a.live() || a.link != c) {
                return false;
            }
            a.reached = false;
            try {
                c.transport().connectFresh(a);
            } catch (IOException | RuntimeException e) {
                a.fail(EventNumber.CONNECTION_EVENT_UNREACHABLE); // no socket, or the IA closes
            }
        } finally {
            provider.cmLock.unlock();
        }
        c.close();
        return true;
    }

    /** On the agent: an idle socket became readable (its peer closed it): closed, unless a connect took it first. */
    boolean idleEnds() {
        if (c.transport().idleSockets().remove(peer, c)) {
            c.close();
            return true;
        }
        return false;
    }

    /**
     * The agent's periodic look at a recycled socket that carries no attempt yet.
     *
     * @return {@code false} when the socket carries a connection (the usual checks apply)
     */
    boolean periodic(long now, long timeout, boolean active) {
        if (!recycled || c.attempt() != null) {
            return false;
        }
        if (active ? now - since > timeout / 2 && c.transport().idleSockets().remove(peer, c) : now - since > timeout) {
            c.close();
        }
        return true;
    }
}
