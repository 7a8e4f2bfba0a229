package dat.provider.sim.internal.tcp;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The sockets of an IA's ended active connections that wait, idle, for its next dat_ep_connect to
 * the same IA ({@link SocketReuse}), by the peer IA's address. Taking one is claiming it: a
 * socket is taken by one connect, or dropped by the agent (the peer closed it, or it idled too
 * long), never both.
 */
final class IdleSockets {

    /** Idle sockets kept per peer IA: the connections set up at once, beyond which a socket is closed at its end. */
    static final int PER_PEER = 16;

    private final Map<InetSocketAddress, ArrayDeque<TcpConnection>> byPeer = new HashMap<>();
    private boolean closed;
    /** Idle sockets now: read without the lock by the agent's look at whether its IA has one connection. */
    private volatile int count;

    /** Keeps an idle socket; {@code false} when the peer has {@link #PER_PEER} already or the IA closes (the caller closes it). */
    synchronized boolean add(InetSocketAddress peer, TcpConnection c) {
        if (closed) {
            return false;
        }
        ArrayDeque<TcpConnection> idle = byPeer.computeIfAbsent(peer, p -> new ArrayDeque<>());
        if (idle.size() >= PER_PEER) {
            return false;
        }
        idle.addFirst(c); // the most recently used first: the others idle out
        count++;
        return true;
    }

    /** Claims an idle socket to {@code peer} for a connect, or {@code null}. */
    synchronized TcpConnection take(InetSocketAddress peer) {
        ArrayDeque<TcpConnection> idle = byPeer.get(peer);
        if (idle == null) {
            return null;
        }
        TcpConnection c = idle.pollFirst();
        count--;
        if (idle.isEmpty()) {
            byPeer.remove(peer);
        }
        return c;
    }

    /** Claims {@code c} to drop it; {@code false} when a connect took it first. */
    synchronized boolean remove(InetSocketAddress peer, TcpConnection c) {
        ArrayDeque<TcpConnection> idle = byPeer.get(peer);
        if (idle == null || !idle.remove(c)) {
            return false;
        }
        count--;
        if (idle.isEmpty()) {
            byPeer.remove(peer);
        }
        return true;
    }

    /** Claims every idle socket (the IA has no open instance): the caller closes them. */
    synchronized List<TcpConnection> takeAll() {
        List<TcpConnection> all = new ArrayList<>(count);
        byPeer.values().forEach(all::addAll);
        byPeer.clear();
        count = 0;
        return all;
    }

    /** Idle sockets now. */
    int count() {
        return count;
    }

    /**
     * The IA closes: none is kept from now on, and every idle socket is claimed (no connect takes
     * it); they close as the IA closes all its connections, idle ones included.
     */
    synchronized void close() {
        closed = true;
        byPeer.clear();
        count = 0;
    }
}
