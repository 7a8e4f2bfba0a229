package dat.provider.sim.internal.tcp;

import dat.api.EventNumber;
import dat.provider.sim.internal.core.ConnectAttempt;
import dat.provider.sim.internal.core.SimEvd;
import dat.provider.sim.internal.shm.IdleRingFile;
import dat.provider.sim.internal.shm.ShmControl;
import dat.provider.sim.internal.shm.ShmMode;
import dat.provider.sim.internal.shm.ShmPoller;
import dat.provider.sim.internal.shm.ShmSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The shared-memory side of one {@link TcpConnection}: the session it offers (active side) or
 * takes (passive side) while the connection is set up, and, once established, what the session
 * needs of the TCP connection, which stays as its control channel ({@link ShmControl}). A
 * connection on the socket of an ended one ({@link SocketReuse}) inherits that one's ring file,
 * kept mapped ({@link IdleRingFile}): the active side offers it again, the passive side takes it
 * when the offer names it; a connection that does not use it closes it.
 */
final class SharedMemoryLink implements ShmControl {

    private static final Logger LOG = Logger.getLogger(SharedMemoryLink.class.getName());

    private final TcpConnection c;
    /** The shared-memory connection offered (active) or taken (passive), or {@code null}: plain TCP. */
    private volatile ShmSession session;
    /** The ring file the socket's last connection kept, until this connection uses or closes it. */
    private IdleRingFile kept;

    SharedMemoryLink(TcpConnection c) {
        this.c = c;
    }

    /** The session, or {@code null} (plain TCP). */
    ShmSession session() {
        return session;
    }

    /**
     * The active side, before the CONNECT_REQUEST: a ring file to offer, when the IA's mode and
     * the peer's address allow.
     *
     * @return {@code false} when the attempt failed: shm=on, and no ring file could be made
     */
    boolean offer(ConnectAttempt a) {
        ShmPoller p = c.transport().shm();
        if (!p.offers(a.remoteAddress.getAddress())) {
            closeKept();
            return true;
        }
        IdleRingFile k = takeKept();
        try {
            session = k != null ? p.reoffer(k, this) : p.offer(this);
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.log(p.mode() == ShmMode.ON ? Level.WARNING : Level.FINE, "sim TCP IA " + c.transport().address()
                    + " offers no shared memory: " + e);
            if (p.mode() == ShmMode.ON) {
                c.failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                return false;
            }
            return true;
        }
    }

    /** The passive side: takes the offer of a CONNECT_REQUEST if this IA shares and the file proves the same host. */
    void take(ByteBuffer offer) {
        ShmPoller p = c.transport().shm();
        if (p.mode() == ShmMode.OFF) {
            closeKept();
            return;
        }
        try {
            session = p.take(offer, takeKept(), this);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "sim TCP IA " + c.transport().address() + " declines a shared-memory offer: " + e.getMessage());
        }
    }

    /**
     * The active side: the ACCEPT did not take the offer; the ring file goes.
     *
     * @return {@code false} when the attempt failed: this IA is shm=on, and the peer cannot share
     */
    boolean declined(ConnectAttempt a) {
        ShmSession s = session;
        if (s == null) {
            return true;
        }
        session = null;
        s.retire();
        if (c.transport().shm().mode() == ShmMode.ON) {
            c.failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED); // closed without READY_TO_USE
            return false;
        }
        return true;
    }

    /** The passive side's ACCEPT payload: the private data, then the nonce it wrote into the ring file (proof it mapped it). */
    byte[] acceptPayload(byte[] privateData) {
        ShmSession s = session;
        if (s == null) {
            return privateData;
        }
        byte[] payload = Arrays.copyOf(privateData, privateData.length + TcpFrame.SHM_ANSWER_BYTES);
        System.arraycopy(s.answer(), 0, payload, privateData.length, TcpFrame.SHM_ANSWER_BYTES);
        return payload;
    }

    /** The connection is established: its rings are polled from now on, and its EVDs' waiters drive the agent. */
    void established(dat.provider.sim.internal.core.SimEndpoint e) {
        ShmSession s = session;
        c.transport().shm().established(s);
        if (s != null && e != null) {
            // a consumer that waits or busy-polls on these EVDs polls the rings from the first message on
            noteDriver(e.recvEvd());
            noteDriver(e.requestEvd());
        }
    }

    /** The connection closed: no one polls the rings any more, and the ring file's name and mappings go (but for a file {@link #inherit}ed by the next connection). */
    void ended() {
        ShmSession s = session;
        if (s != null) {
            c.transport().shm().ended(s);
            s.retire();
        }
        closeKept();
    }

    /**
     * On the agent, as the socket goes from {@code last}'s connection, ended by the exchange of
     * DISCONNECTs, to this one: the ring file of that connection stays mapped for this one.
     */
    void inherit(SharedMemoryLink last) {
        ShmSession s = last.session;
        if (s != null) {
            IdleRingFile k = s.keep();
            synchronized (this) {
                kept = k;
            }
        }
    }

    /** The kept ring file goes: this connection does not use it (it shares no memory, or the request offers none). */
    void closeKept() {
        IdleRingFile k = takeKept();
        if (k != null) {
            k.close();
        }
    }

    private synchronized IdleRingFile takeKept() {
        IdleRingFile k = kept;
        kept = null;
        return k;
    }

    @Override
    public void ringDoorbell() {
        c.output.doorbell();
    }

    @Override
    public void disconnect() {
        c.disconnect();
    }

    @Override
    public void breakOff() {
        c.breakOff();
    }

    @Override
    public void violation(String reason) {
        c.protocolEnd(reason);
        c.lost(EventNumber.CONNECTION_EVENT_BROKEN);
    }

    @Override
    public void cut() {
        c.lost(EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /** A consumer waiting on {@code evd} polls the rings itself before it runs the agent ({@link ShmPoller#driver}). */
    @Override
    public void noteDriver(SimEvd evd) {
        if (evd != null) {
            evd.noteDriver(c.transport().shm().driver(c.agent()));
        }
    }
}
