package dat.provider.sim.internal.fabric;

import dat.api.CompletionFlags;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.MemPrivileges;
import dat.provider.sim.internal.core.AtomicOperand;
import dat.provider.sim.internal.core.RemoteWindow;
import dat.provider.sim.internal.core.SimEndpoint;
import dat.provider.sim.internal.core.Wire;
import dat.provider.sim.internal.core.Wr;
import dat.api.ext.IbExtension;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A connection between two Endpoints of this JVM: a request executes on the thread that posts it
 * (or that posts the receive it waited for), with its own Endpoint's lock held and no other: that
 * lock also guards the peer's receive ring as its consumer ({@link SimEndpoint#takeRecv}). A send
 * copies into the peer's first posted receive; an RDMA write or read checks the target side
 * ({@link SimEndpoint#remoteWindow}) and copies. One-sided operations so complete without the
 * target consumer calling into the provider, and every request is one memory copy.
 *
 * <p>An end the data path finds (a DTO error breaks the connection, a graceful disconnect's last
 * request completed) needs both Endpoints' locks, which a thread holding one must not wait for:
 * the wire marks it ({@link #ending}), no request of either Endpoint executes after the mark, and
 * the thread ends the connection once it let go of its lock ({@link #transmitNow}), as does any
 * other thread that finds the mark.
 */
final class FabricWire implements Wire {

    private static final int DONE = 0;
    private static final int STALLED = 1;
    private static final int BROKEN = 2;
    /** The peer's SRQ buffer crossed its hard watermark: broken, with the peer's asynchronous event. */
    private static final int PEER_OVER_HARD = 3;

    private final SimEndpoint a;
    private final SimEndpoint b;
    /** The connection event of an end the data path found, or 0 (see the class comment). */
    private volatile int ending;
    /** The Endpoint that also gets the asynchronous broken event of the end, or {@code null}. */
    private SimEndpoint endingAsync;

    FabricWire(SimEndpoint a, SimEndpoint b) {
        this.a = a;
        this.b = b;
    }

    @Override
    public SimEndpoint localPeer(SimEndpoint ep) {
        return ep == a ? b : a;
    }

    /** Executes the queue with {@code ep}'s lock held; asks for {@link #transmitNow} when an end is due. */
    @Override
    public boolean requestsQueued(SimEndpoint ep, boolean posted) {
        drain(ep);
        return ending != 0;
    }

    /** Ends the connection when the data path found its end; without a lock. */
    @Override
    public void transmitNow(SimEndpoint ep) {
        if (ending == 0) {
            return;
        }
        int event;
        SimEndpoint async;
        synchronized (this) {
            event = ending;
            async = endingAsync;
        }
        ep.endThrough(this, event, async);
    }

    /** With the lock of the peer of {@code ep}, the sender into its receives, held. */
    @Override
    public void receivesAvailable(SimEndpoint ep) {
        SimEndpoint sender = localPeer(ep);
        if (sender.requestCount() > 0) {
            drain(sender); // a send waiting for this receive goes on
        }
    }

    @Override
    public Wr.Recv leave(SimEndpoint ep, boolean broken) {
        return null; // nothing in flight: every request executes under its Endpoint's lock, which the end holds
    }

    /** Marks the end the data path found; the first mark stays. */
    private synchronized void markEnding(int eventNumber, SimEndpoint async) {
        if (ending == 0) {
            endingAsync = async;
            ending = eventNumber;
        }
    }

    /**
     * Executes queued requests in order until the queue is empty, its head waits for a receive or
     * an end is marked; a graceful disconnect whose requests finished then marks its end. With
     * {@code ep}'s lock held.
     */
    private void drain(SimEndpoint ep) {
        while (ep.requestCount() > 0) {
            if (ending != 0) {
                return; // the end flushes what is queued
            }
            EpState s = ep.state();
            if (s != EpState.CONNECTED && s != EpState.DISCONNECT_PENDING) {
                ep.flushRequests();
                return;
            }
            Wr.Request wr = ep.requestAt(0);
            int r = switch (wr.op) {
                case Wr.Request.SEND -> executeSend(ep, wr);
                case Wr.Request.RDMA_WRITE, Wr.Request.RDMA_READ -> executeRdma(ep, wr);
                case Wr.Request.FETCH_AND_ADD, Wr.Request.CMP_AND_SWAP -> executeAtomic(ep, wr);
                case Wr.Request.WRITE_IMMEDIATE -> executeWriteImmediate(ep, wr);
                default -> {
                    ep.completeHead(DtoCompletionStatus.SUCCESS, 0); // a bind: local
                    yield DONE;
                }
            };
            if (r == STALLED) {
                return;
            }
            if (r == BROKEN || r == PEER_OVER_HARD) {
                markEnding(EventNumber.CONNECTION_EVENT_BROKEN, r == PEER_OVER_HARD ? localPeer(ep) : null);
                return;
            }
        }
        if (ep.state() == EpState.DISCONNECT_PENDING && ending == 0) {
            markEnding(EventNumber.CONNECTION_EVENT_DISCONNECTED, null);
        }
    }

    private int executeSend(SimEndpoint ep, Wr.Request wr) {
        SimEndpoint p = localPeer(ep);
        Wr.Recv rv = p.takeRecv();
        if (rv == null) {
            return p.takeBrokeConnection() ? PEER_OVER_HARD : STALLED;
        }
        if (!wr.memoryValid()) {
            return localMemoryGone(ep, p, rv);
        }
        if (!rv.memoryValid()) {
            p.completeRecv(rv, DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0, false);
            ep.completeHead(DtoCompletionStatus.ERR_REMOTE_ACCESS, 0);
            return BROKEN;
        }
        if (wr.total > rv.total) {
            // the message is larger than the receive: the receiver sees LOCAL_LENGTH, the sender a
            // remote error, and the connection breaks (as an RC queue pair goes to error)
            p.completeRecv(rv, DtoCompletionStatus.ERR_LOCAL_LENGTH, 0, false);
            ep.completeHead(DtoCompletionStatus.ERR_REMOTE_RESPONDER, 0);
            return BROKEN;
        }
        try {
            Wr.copy(wr, rv, wr.total);
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            p.completeRecv(rv, DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0, false);
            ep.completeHead(DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0);
            return BROKEN;
        }
        long len = wr.total;
        boolean solicited = (wr.flags & CompletionFlags.SOLICITED_WAIT) != 0;
        // the request's completion first: the receive's record lies on a line the receiving
        // thread polls, and the request EVD's lock (a locked instruction, which waits for the
        // stores before it) would otherwise wait for that line to come over
        ep.completeHead(DtoCompletionStatus.SUCCESS, len);
        p.completeRecv(rv, DtoCompletionStatus.SUCCESS, len, solicited);
        return DONE;
    }

    /**
     * The request's local memory went away (an LMR freed, an arena closed) after it took the
     * peer's receive: it completes LOCAL_PROTECTION, the receive flushed, and the connection breaks.
     */
    private static int localMemoryGone(SimEndpoint ep, SimEndpoint peer, Wr.Recv rv) {
        ep.completeHead(DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0);
        peer.completeRecv(rv, DtoCompletionStatus.ERR_FLUSHED, 0, false);
        return BROKEN;
    }

    /**
     * The checks of a one-sided request: the target's ({@link SimEndpoint#remoteWindow} for the
     * remote privilege {@code privilege}), then the request's own memory. On a failure the request
     * completes with its error (REMOTE_ACCESS, LOCAL_PROTECTION) and the caller breaks the connection.
     *
     * @return the window, or {@code null} when a check failed
     */
    private static RemoteWindow checkedWindow(SimEndpoint ep, SimEndpoint target, Wr.Request wr, long len, int privilege) {
        RemoteWindow w = target.remoteWindow(wr.remoteContext, wr.remoteAddress, len, privilege);
        if (w == null) {
            ep.completeHead(DtoCompletionStatus.ERR_REMOTE_ACCESS, 0);
            return null;
        }
        if (!wr.memoryValid()) {
            ep.completeHead(DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0);
            return null;
        }
        return w;
    }

    private int executeRdma(SimEndpoint ep, Wr.Request wr) {
        SimEndpoint target = localPeer(ep);
        boolean write = wr.op == Wr.Request.RDMA_WRITE;
        long len = write ? wr.total : wr.remoteLength;
        RemoteWindow w = checkedWindow(ep, target, wr, len, write ? MemPrivileges.REMOTE_WRITE : MemPrivileges.REMOTE_READ);
        if (w == null) {
            return BROKEN;
        }
        MemorySegment mem = w.windowMemory();
        long offset = wr.remoteAddress - w.memoryBase();
        try {
            if (write) {
                Wr.gather(wr, mem, offset);
            } else {
                Wr.scatter(mem, offset, len, wr);
            }
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            ep.completeHead(DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0);
            return BROKEN;
        }
        ep.completeHead(DtoCompletionStatus.SUCCESS, len);
        return DONE;
    }

    /**
     * A fetch-and-add or compare-and-swap: the target's checks with the remote-atomic privilege,
     * the operation atomic with respect to every other atomic on the operand (in this JVM, TCP
     * targets included), and the previous value into the 8-byte local buffer.
     */
    private int executeAtomic(SimEndpoint ep, Wr.Request wr) {
        SimEndpoint target = localPeer(ep);
        RemoteWindow w = checkedWindow(ep, target, wr, IbExtension.ATOMIC_OPERAND_SIZE, IbExtension.MEM_PRIV_REMOTE_ATOMIC);
        if (w == null) {
            return BROKEN;
        }
        try {
            long previous = AtomicOperand.apply(wr.op, wr.operand, wr.swap, w.windowMemory(), wr.remoteAddress - w.memoryBase());
            wr.lmrs[0].memory().set(ValueLayout.JAVA_LONG_UNALIGNED, wr.offsets[0], previous);
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            ep.completeHead(DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0);
            return BROKEN;
        }
        ep.completeHead(DtoCompletionStatus.SUCCESS, IbExtension.ATOMIC_OPERAND_SIZE);
        return DONE;
    }

    /**
     * An RDMA write with immediate data: the target's checks and the copy of an RDMA write, then
     * the peer's first receive completes with the immediate value. A write that finds no receive
     * waits at the head of the queue, as a send does.
     */
    private int executeWriteImmediate(SimEndpoint ep, Wr.Request wr) {
        SimEndpoint target = localPeer(ep);
        RemoteWindow w = target.remoteWindow(wr.remoteContext, wr.remoteAddress, wr.total, true);
        if (w == null) {
            ep.completeHead(DtoCompletionStatus.ERR_REMOTE_ACCESS, 0);
            return BROKEN;
        }
        Wr.Recv rv = target.takeRecv();
        if (rv == null) {
            return target.takeBrokeConnection() ? PEER_OVER_HARD : STALLED;
        }
        if (!wr.memoryValid()) {
            return localMemoryGone(ep, target, rv);
        }
        try {
            Wr.gather(wr, w.windowMemory(), wr.remoteAddress - w.memoryBase());
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            return localMemoryGone(ep, target, rv);
        }
        target.completeRecvImmediate(rv, DtoCompletionStatus.SUCCESS, wr.total, wr.immediate,
                (wr.flags & CompletionFlags.SOLICITED_WAIT) != 0);
        ep.completeHead(DtoCompletionStatus.SUCCESS, wr.total);
        return DONE;
    }
}
