package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.core.*;
import dat.api.EpAttributes;
import dat.api.EventNumber;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One TCP connection between two IAs: the wire of one Endpoint pair. The active side opens it
 * for a {@link ConnectAttempt}; the passive side's acceptor hands it an accepted socket, whose
 * first frame must be a CONNECT_REQUEST.
 *
 * <p>Threads: a reader thread owns the socket's input (connect, the answer, then every frame until
 * the end); a writer thread owns the waits for its output, so that a peer that stops reading
 * blocks only that writer, never a consumer thread or the CM lock. The socket is non-blocking:
 * a small request from a posting thread and an ACK from the reader go out with one write by that
 * thread when the output is idle, which saves the hand-off to the writer (a thread wake-up per
 * message, the largest cost of a round trip); whatever the socket does not take at once is left
 * to the writer. The reader and the writer wait for readiness with selectors of their own, and
 * being non-blocking, no write is ever undone by an interrupt of the consumer's thread (a blocking
 * NIO channel closes when a thread blocked on it is interrupted).
 *
 * <p>Consumer-driven reading: a consumer blocked in dat_evd_wait on an EVD this connection feeds
 * takes the read role from the reader thread between frames and reads the socket itself
 * ({@link #drive}), so a message wakes one thread, as a plain socket does; the reader thread stays
 * parked while that consumer is expected back and serves the socket again after a short lease.
 * The ACK such a consumer owes goes out with its next request, in the same write. Anything the peer sends
 * that the protocol does not allow at that point (a malformed header, a frame of the wrong phase)
 * ends this connection alone: the local Endpoint gets {@link EventNumber#CONNECTION_EVENT_BROKEN}.
 *
 * <p>Data transfer: the initiator's writer transmits its Endpoint's requests in order (SEND,
 * RDMA_WRITE, RDMA_READ_REQUEST), the ones queued behind each other gathered into one write; the
 * target's reader performs each one against its own Endpoint (checks first, then the payload is
 * read from the socket straight into the receive buffer or the registered target memory) and
 * answers each with exactly one response (ACK or RDMA_READ_RESPONSE), in order, so the initiator
 * completes its head request per response. Successful ACKs are cumulative, so the target merges
 * and holds them: until its socket runs dry, or longer for requests the initiator marked
 * {@link TcpFrame#ACK_DEFERRABLE} (it has so much in flight that the held maximum is reached, or
 * it sends {@link TcpFrame#ACK_REQUEST}). A response that reports a failed check breaks the
 * connection on both sides, as in one JVM.
 */
final class TcpConnection implements AttemptLink, WaitDriver {

    private static final Logger LOG = Logger.getLogger(TcpConnection.class.getName());
    /** The writer's signal: half-close the output after what is queued. */
    private static final ByteBuffer FIN = ByteBuffer.allocate(0);
    /**
     * Responses queued at most; a peer that sends requests without reading the answers finds the
     * reader blocked here (and TCP flow control pushes back on it) instead of memory growing.
     */
    private static final int RESPONSES = 256;

    /** One queued response (a slot of the ring, reused). */
    private static final class Response {
        int op;
        long seq;
        int status;
        RemoteWindow window;
        long offset;
        long length;
        boolean breakAfter;
    }

    // The consumer memory the reader and the writer move bytes into or out of right now, as native
    // addresses [from, to), 0 when none: dat_lmr_free fences on it (fence), so that no byte of a
    // freed LMR is touched once the free returns. Each thread publishes its range before it checks
    // that the memory is still registered; the free marks the LMR freed before it reads the ranges.
    private volatile long readerFrom;
    private volatile long readerTo;
    private volatile long writerFrom;
    private volatile long writerTo;
    /**
     * The ranges [from, to) of the writer's batch, one pair per gathered buffer (empty for a
     * header), of which the first {@link #writerRangeCount} are live: the writer sets a pair
     * before it raises the count past it and lowers the count to 0 after the batch, so a fence
     * that reads a stale or newer pair reads one whose bytes were done with, or not yet touched
     * (the writer then finds the LMR freed).
     */
    private AtomicLongArray writerRanges;
    private volatile int writerRangeCount;

    // A payload on its way into buffers the Endpoint handed to the reader: a send's into the
    // receive taken for it, an RDMA read's response into the read's local buffers. A flush of that
    // receive or read (an abrupt disconnect, a break) must leave the buffers to the consumer from
    // then on, so it waits out a copy into them and abandons the rest (abandonLanding): the reader
    // copies only in LANDING_COPYING, which it enters from LANDING_WAITING, and drops the rest of
    // the payload once it finds LANDING_ABANDONED.
    private static final int LANDING_NONE = 0;
    private static final int LANDING_WAITING = 1;
    private static final int LANDING_COPYING = 2;
    private static final int LANDING_ABANDONED = 3;
    private final AtomicInteger landing = new AtomicInteger();
    /** Whether the landing is into {@link #rx} (a receive), not a read's buffers; under the Endpoint's lock. */
    private boolean landingIntoReceive;

    private final TcpTransport transport;
    private final TcpFrameReader reader;
    // lock-free: frames are queued under an Endpoint's spin lock (disconnect), where blocking is not allowed
    private final ConcurrentLinkedQueue<ByteBuffer> outbound = new ConcurrentLinkedQueue<>();
    private volatile SocketChannel channel;
    /** The attempt this connection carries (active side: from the start; passive: once requested). */
    private volatile ConnectAttempt attempt;
    /** The local Endpoint's side of the connection once established (set under the CM lock). */
    volatile TcpWire ep;
    /** The writer's copy of the request it transmits, the reader's of the receive / read it fills. */
    // The data path's buffers, allocated once per connection while it waits for the peer's answer
    // or for the consumer's accept (so a peer whose request reaches no consumer costs little):
    // written before ep is published.
    private Wr.Request tx;
    private Wr.Recv rx;
    /** Whether {@link #rx} holds a receive taken from its Endpoint and not completed yet; the reader's. */
    private boolean rxTaken;
    private Wr.Request rxRead;
    private ByteBuffer txHeader;
    // The writer's batch (transmit): the requests, their headers and sequence numbers; the gathered
    // buffers, the frame each belongs to, and a view of consumer memory for each (it caches its segment's).
    private Wr.Request[] batch;
    private ByteBuffer[] batchHeaders;
    private long[] batchSeq;
    private ByteBuffer[] gather;
    private int[] gatherFrame;
    private MemoryView[] batchViews;
    /** Responses the reader produced for the writer to send: a fixed ring, so a peer cannot grow it. */
    private Response[] responses;
    private final java.util.concurrent.locks.ReentrantLock respLock = new java.util.concurrent.locks.ReentrantLock();
    private final java.util.concurrent.locks.Condition respNotFull = respLock.newCondition();
    private int respHead;
    private int respCount;
    /** Whether the writer is sending the head response (under {@code respLock}). */
    private boolean headTaken;
    /**
     * Set once the target side refused something (read role only): nothing more is served, and
     * the reader thread ends the connection once the writer sent the refusal ({@link #endRefused}).
     */
    private boolean refusing;
    // Liveness: marks that change with every sign of life (a frame read, a write done, progress of
    // the write in progress), and whether a write is in progress; the watchdog keeps the clock
    // (checkLiveness), so frames and writes read none for it (the clock's reads, one per frame
    // and per write among others, were 3% of a ping-pong's CPU).
    private volatile long readMark;
    private volatile long writeMark;
    private volatile long progressMark;
    private volatile boolean writing;
    // the watchdog's (its thread only): the marks it saw last, and when it saw each change
    private long seenRead;
    private long seenWrite;
    private long seenProgress;
    private long readSeenAt = System.nanoTime();
    /** When the socket was opened or accepted: a passive side's request must arrive within the timeout from then. */
    private final long openedAt = readSeenAt;
    private long writeSeenAt = readSeenAt;
    private long progressSeenAt = readSeenAt;
    /** When the watchdog first saw this side's FIN queued (0: not yet); the watchdog's. */
    private long finSeenAt;
    /** The target side: the sequence number of the send refused as receiver-not-ready, -1 when none (reader only). */
    private long notReadyFrom = -1;
    /** The initiator side: no request goes out before this time (System.nanoTime), after an RNR NAK; {@link #NO_BACKOFF}: none. */
    private volatile long retryAt = NO_BACKOFF;
    private static final long NO_BACKOFF = Long.MIN_VALUE;
    private static final java.lang.invoke.VarHandle RETRY_AT;

    static {
        try {
            RETRY_AT = java.lang.invoke.MethodHandles.lookup().findVarHandle(TcpConnection.class, "retryAt", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** The initiator side: the next RNR backoff, doubling from 50 us to 10 ms. */
    private long rnrBackoffNanos = RNR_MIN_BACKOFF_NANOS;
    /** The initiator side: the send the last RNR refused (under the Endpoint's lock). */
    private long rnrSeq = -1;
    private static final long RNR_MIN_BACKOFF_NANOS = 50_000;
    private static final long RNR_MAX_BACKOFF_NANOS = 10_000_000;
    private static final ByteBuffer NOP_FRAME = frame(TcpFrame.NOP, 0, 0, 0, 0, 0, null);

    /** The writer sent its last frame (a refusal) and ends. */
    private volatile boolean writerDone;
    private volatile boolean closed;
    /** The connection breaks ({@link #lost}): nothing more is queued for the peer. */
    private volatile boolean breaking;
    private volatile boolean finQueued;
    private volatile ConnectionThreads.Task readerTask;
    private volatile ConnectionThreads.Task writerTask;

    /**
     * Held for a whole frame by every thread that writes to the channel: the writer, a posting
     * thread writing its request inline, the reader writing an ACK inline. Inline writers only
     * try it, so a consumer never waits for the writer. (Package-private: a test holds it to queue
     * requests for the writer.)
     */
    final ReentrantLock writeLock = new ReentrantLock();
    /**
     * What an inline write left unfinished because the socket took only part of it (an ACK, or an
     * inline frame: a copy, no consumer memory): the writer finishes it before anything else
     * (under {@link #writeLock}).
     */
    private ByteBuffer pending;
    /** Views of the consumer memory the read role reads into, and the write lock's holder writes from. */
    private final MemoryView rxView = new MemoryView();
    private final MemoryView txView = new MemoryView();
    /**
     * An inline request's frame, after the ACK that goes with it (see {@link #transmitInline}):
     * allocated on first use, as large as the frames need, {@link #INLINE_BYTES} at most.
     */
    private ByteBuffer inlineFrame;
    /** The reader's header buffer for inline ACKs (the writer's is {@link #txHeader}). */
    private ByteBuffer ackHeader;
    /** Frames no larger than this go out inline from a posting thread. */
    private static final long INLINE_BYTES = 64 * 1024;
    /**
     * A posting thread writes its request inline only while fewer requests than this are in
     * flight (a ping-pong, a write and the send that announces it): a deeper pipeline is left to
     * the writer thread, which gathers the frames queued behind each other into one write.
     */
    static final int INLINE_MAX_IN_FLIGHT = 4;
    /**
     * The selectors the reader thread, the writer and a driving consumer wait on, each its own;
     * created on first wait, under {@link #selectorLock}.
     */
    private volatile Selector readSelector;
    private Selector writeSelector;
    private volatile Selector driveSelector;
    /** The reader thread is about to wait, or waits, for readiness (not parked for a driver). */
    private volatile boolean readerSelecting;
    /**
     * The read role: held by the thread that reads frames now, the reader thread or a consumer
     * reading this connection from dat_evd_wait ({@link #drive}). It changes hands only between
     * frames; a header read in part stays in the frame reader for the next holder.
     */
    final ReentrantLock readRole = new ReentrantLock(); // package-private: a test holds it as the reader thread would
    /** The consumer thread in {@link #drive}, or {@code null}: the reader thread leaves the socket to it. */
    private volatile Thread driver;
    /**
     * Until then (System.nanoTime) the reader thread expects the last driver back and stays parked:
     * a consumer that waits again right after handling its event (a ping-pong) finds the socket
     * its own, without waking the reader thread on every message.
     */
    private volatile long driverLease;
    /**
     * How long the reader thread leaves the socket to a consumer that drove it last. The cost: a
     * frame that comes while that consumer does something else waits this long at most (a
     * one-sided operation while the target consumer is busy); then the reader thread serves it.
     */
    private static final long DRIVER_LEASE_NANOS = 1_000_000;
    /**
     * The reader thread looks every {@link #DRIVER_LEASE_NANOS} whether the consumer still drives,
     * so that a driver that leaves costs nothing to tell it; after this many looks at one drive it
     * parks until that driver leaves ({@link #readerParkedForDriver}): a consumer blocked in a long
     * dat_evd_wait would otherwise cost a thousand wake-ups a second per connection.
     */
    private static final int LOOKS_BEFORE_LONG_PARK = 4;
    /** Drives begun ({@link #drive}): the reader thread tells one long drive from several short ones. */
    private volatile long drivesBegun;
    /**
     * The reader thread parks until the driver leaves: the driver unparks it when it does. Set
     * before the reader looks for the driver once more, read by the driver after it stepped down:
     * one of the two sees the other's store.
     */
    private volatile boolean readerParkedForDriver;
    /** The reader thread's returns from its parks while consumers drove, for tests and statistics. */
    private volatile long readerLooksWhileDriven;
    /**
     * The deadline (System.nanoTime) of a driver that waits without a timeout of its own, for the
     * transport's watchdog to wake it ({@link #wakeDriverPastDeadline}); {@link #NO_DEADLINE} when none.
     */
    private volatile long driverDeadline = NO_DEADLINE;
    private static final long NO_DEADLINE = Long.MIN_VALUE;
    /**
     * A driver with at least this long left when it first waits on the socket selects without a
     * timeout, and the transport's watchdog wakes it once past its deadline, up to
     * {@link TcpTransport#TICK_NANOS} late: a select with a
     * timeout arms and cancels a kernel timer per wait, a twentieth of a round trip where both
     * processes share a CPU (a virtual machine pays for the timer's programming). A shorter wait
     * keeps its precise timer.
     */
    static final long COARSE_WAIT_NANOS = 100_000_000;
    /**
     * A select's timeout counts whole milliseconds. A driver selects for the whole milliseconds
     * left of its wait, never past its deadline; for a rest shorter than this it gives up the
     * role, and the caller parks precisely while the reader thread serves the socket. Rounded up
     * instead, a wait of 100 us took a millisecond.
     */
    private static final long SELECT_TIMEOUT_NANOS = 1_000_000;
    /**
     * The socket's input stream, for {@code available()}: the bytes in its receive queue (Linux
     * {@code FIONREAD}), which {@link #payloadToCome} asks before a consumer reads a frame; made
     * on first use. Never read from (the channel is non-blocking), never closed (that would close
     * the socket).
     */
    private java.io.InputStream receiveQueue;
    /** Frames read by consumers ({@link #drive}), for tests and statistics; written under the read role. */
    private volatile long framesReadByConsumers;
    private final Object selectorLock = new Object();
    /** select's action: nothing (the wait is the point), and no selected-key set to allocate into. */
    private static final Consumer<SelectionKey> READY = key -> {
    };
    /** The channel as the frame reader sees it. */
    private final ReadableByteChannel in = new WaitingReads();

    /**
     * Reads that wait, on the non-blocking channel, until bytes arrive: the frame reader and the
     * handlers read as from a blocking channel. A close wakes the wait and fails it.
     */
    private final class WaitingReads implements ReadableByteChannel {
        @Override
        public int read(ByteBuffer dst) throws IOException {
            SocketChannel ch = channel;
            for (;;) {
                int n = ch.read(dst);
                if (n > 0) {
                    readMark++; // proof of life mid-frame too: a frame may take longer than the timeout
                }
                if (n != 0 || !dst.hasRemaining()) {
                    return n;
                }
                awaitMorePayload(ch);
            }
        }

        @Override
        public boolean isOpen() {
            return !closed;
        }

        @Override
        public void close() {
            TcpConnection.this.close();
        }
    }

    /**
     * A frame's payload ran dry mid-frame (the reader thread's: a consumer reads only frames
     * received whole, see {@link #payloadToCome}): the ACKs for what was read go out, then the wait
     * for more.
     */
    private void awaitMorePayload(SocketChannel ch) throws IOException {
        if (Thread.currentThread() == driver) {
            throw new DriverWouldWait("inside a frame");
        }
        flushAcksIfDue();
        int mark = ReceiveLowWater.forPayload(reader.payloadOnTheSocket());
        if (lowWater == null || mark == 1) {
            awaitReady(ch, SelectionKey.OP_READ);
            return;
        }
        // the mark goes back to 1 before anyone else waits on the socket: a consumer reading it
        // waits for any frame, and so does this thread between frames
        Selector selector = selector(ch, READ_SELECTOR);
        if (setLowWater(ch, selector, mark)) {
            try {
                // timed: a peer that trickles its payload more slowly than the mark is still read,
                // as often as the watchdog looks (and so still alive), and a kernel that holds the
                // wake-up back costs a wait no longer than that
                selector.select(READY, Math.max(1, Math.min(LOW_WATER_WAIT_MILLIS, transport.timeoutNanos / 8_000_000)));
            } finally {
                if (ch.keyFor(selector) != null && !lowWater.set(ch, 1)) {
                    // never expected; a mark left up could keep the next frame's wait from waking
                    throw new java.io.IOException("SO_RCVLOWAT could not be set back to 1");
                }
            }
        } else {
            selector.select(READY);
        }
        if (closed) {
            throw new AsynchronousCloseException();
        }
    }

    /**
     * Sets the socket's low-water mark, only while {@code selector} (the reader thread's) holds
     * the channel's registration: the JDK closes a registered channel's descriptor only once its
     * last selector lets go, in a select, and no thread but this one selects on this selector; so
     * the descriptor cannot meanwhile have been closed, and its number given to another file.
     */
    private boolean setLowWater(SocketChannel ch, Selector selector, int bytes) {
        return ch.keyFor(selector) != null && lowWater.set(ch, bytes);
    }

    /** SO_RCVLOWAT while the reader thread waits for the rest of a large payload; {@code null} where unavailable. */
    private final ReceiveLowWater lowWater = ReceiveLowWater.available() ? new ReceiveLowWater() : null;
    /** The longest wait with the mark up: a wake-up per 100 ms is nothing beside one per megabyte. */
    private static final long LOW_WATER_WAIT_MILLIS = 100;

    /** Waits of the reader thread with the low-water mark up, for tests. */
    long lowWaterWaits() {
        return lowWater == null ? 0 : lowWater.raised();
    }

    /**
     * A defect: a consumer reading the connection would wait (inside a frame, for a slot in the
     * response ring). Not an IllegalStateException, which the handlers take for memory gone;
     * {@link #drive} logs it and breaks the connection.
     */
    private static final class DriverWouldWait extends RuntimeException {

        private static final long serialVersionUID = 1L;

        DriverWouldWait(String where) {
            super("a consumer reading the connection would wait " + where);
        }
    }

    /**
     * Waits until the channel is ready for {@code op}: the reader thread for
     * {@link SelectionKey#OP_READ}, the writer for {@link SelectionKey#OP_WRITE}, each on its own
     * selector.
     *
     * @throws AsynchronousCloseException when the connection closed (before or during the wait)
     */
    private void awaitReady(SocketChannel ch, int op) throws IOException {
        Selector selector = selector(ch, op == SelectionKey.OP_WRITE ? WRITE_SELECTOR : READ_SELECTOR);
        selector.select(READY); // close() wakes it
        if (closed) {
            throw new AsynchronousCloseException();
        }
    }

    private static final int READ_SELECTOR = 0;
    private static final int WRITE_SELECTOR = 1;
    private static final int DRIVE_SELECTOR = 2;

    /** One of the selectors, registered for its readiness on first use. */
    private Selector selector(SocketChannel ch, int which) throws IOException {
        synchronized (selectorLock) {
            if (closed) {
                throw new AsynchronousCloseException();
            }
            Selector selector = which == READ_SELECTOR ? readSelector : which == WRITE_SELECTOR ? writeSelector : driveSelector;
            if (selector == null) {
                selector = Selector.open();
                try {
                    ch.register(selector, which == WRITE_SELECTOR ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
                } catch (IOException | RuntimeException x) {
                    closeQuietly(selector); // the channel closed meanwhile: not a selector left open
                    throw x;
                }
                switch (which) {
                    case READ_SELECTOR -> readSelector = selector;
                    case WRITE_SELECTOR -> writeSelector = selector;
                    default -> driveSelector = selector;
                }
            }
            return selector;
        }
    }

    /**
     * Closes the calling thread's selector once it waits no more: the reader thread's (and the
     * drivers', which wait no more once the connection is closed) or the writer's.
     */
    private void closeSelectors(boolean reader) {
        Selector selector;
        synchronized (selectorLock) {
            selector = reader ? readSelector : writeSelector;
            if (reader) {
                readSelector = null;
            } else {
                writeSelector = null;
            }
        }
        closeQuietly(selector);
        if (reader) {
            releaseDriveSelector();
        }
    }

    /**
     * Once closed and no consumer drives: the drivers' selector. Called by the reader thread as it
     * ends and by a driver as it leaves, so whichever is last releases it.
     */
    private void releaseDriveSelector() {
        Selector selector = null;
        synchronized (selectorLock) {
            if (closed && driver == null) {
                selector = driveSelector;
                driveSelector = null;
            }
        }
        closeQuietly(selector);
    }

    /** Closes a selector or a socket, if any; released anyway when that fails. */
    static void closeQuietly(java.io.Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException e) {
                // released anyway
            }
        }
    }

    TcpConnection(TcpTransport transport, SocketChannel accepted, ConnectAttempt attempt) {
        this.transport = transport;
        this.reader = new TcpFrameReader(TcpFrame.Limits.WIRE);
        this.channel = accepted;
        this.attempt = attempt;
    }

    /**
     * The IOV segments the scratch requests hold ({@link #tx}, the batch, {@link #rxRead}; {@link #rx}),
     * under {@link #dataPathLock}: as many as the local Endpoint's requests and receives hold.
     */
    private int scratchRequestIov;
    private int scratchRecvIov;
    /**
     * Guards the data path's allocation: the reader thread prepares it while it waits for the
     * peer's answer ({@link #prepareEarly}), and the accept or the ACCEPT that publishes {@link #ep}
     * finds it done ({@link #prepareFor}).
     */
    private final Object dataPathLock = new Object();

    /**
     * Allocates the data path's buffers while the connection waits for the peer (the active side
     * for ACCEPT, the passive side for its consumer's accept), off the setup's path: their first
     * touch of fresh memory took 200 us of a connection's 1 ms set up in a young JVM. Does nothing
     * once they are allocated, by an accept that came first: they may be in use then.
     *
     * @param requestIov the segments a request may hold, as far as known
     * @param recvIov the segments a receive may hold, as far as known
     */
    private void prepareEarly(int requestIov, int recvIov) {
        synchronized (dataPathLock) {
            if (responses == null) {
                allocateDataPath(requestIov, recvIov);
            }
        }
    }

    /**
     * Before {@link #ep} is published (volatile write): the data path's buffers, with scratch
     * requests as large as the Endpoint's; an earlier {@link #prepareEarly} that guessed smaller
     * (the passive side, before it knows the Endpoint) has them grown. On the passive side it runs
     * under the Endpoint's spin lock (dat_cr_accept) and may wait for the reader's
     * {@link #prepareEarly}: no longer than that allocation, which it would otherwise make itself.
     */
    private void prepareFor(SimEndpoint e) {
        int requestIov = e.requestIovLimit();
        int recvIov = e.recvIovLimit();
        synchronized (dataPathLock) {
            if (responses == null) {
                allocateDataPath(requestIov, recvIov);
                return;
            }
            if (requestIov > scratchRequestIov) {
                allocateRequestScratch(requestIov);
            }
            if (recvIov > scratchRecvIov) {
                allocateRecvScratch(recvIov);
            }
        }
    }

    /** Under {@link #dataPathLock}: everything the data path needs, allocated once per connection. */
    private void allocateDataPath(int requestIov, int recvIov) {
        allocateRecvScratch(recvIov);
        txHeader = ByteBuffer.allocateDirect(TcpFrame.HEADER_BYTES).order(ByteOrder.BIG_ENDIAN);
        ackHeader = ByteBuffer.allocateDirect(TcpFrame.HEADER_BYTES).order(ByteOrder.BIG_ENDIAN);
        ByteBuffer[] headerSlices = new ByteBuffer[BATCH_FRAMES];
        ByteBuffer headers = ByteBuffer.allocateDirect(BATCH_FRAMES * TcpFrame.HEADER_BYTES);
        for (int i = 0; i < BATCH_FRAMES; i++) {
            headerSlices[i] = headers.slice(i * TcpFrame.HEADER_BYTES, TcpFrame.HEADER_BYTES).order(ByteOrder.BIG_ENDIAN);
        }
        batchHeaders = headerSlices;
        batchSeq = new long[BATCH_FRAMES];
        allocateRequestScratch(requestIov);
        Response[] ring = new Response[RESPONSES];
        for (int i = 0; i < RESPONSES; i++) {
            ring[i] = new Response();
        }
        responses = ring;
    }

    /** Under {@link #dataPathLock}: the reader's copy of the receive it fills, of {@code iov} segments. */
    private void allocateRecvScratch(int iov) {
        rx = new Wr.Recv(iov);
        scratchRecvIov = iov;
    }

    /** Under {@link #dataPathLock}: the scratch requests of {@code iov} segments, and the gathering arrays they need. */
    private void allocateRequestScratch(int iov) {
        tx = new Wr.Request(iov);
        rxRead = new Wr.Request(iov);
        Wr.Request[] requests = new Wr.Request[BATCH_FRAMES];
        requests[0] = tx;
        for (int i = 1; i < BATCH_FRAMES; i++) {
            requests[i] = new Wr.Request(iov);
        }
        batch = requests;
        int buffers = Math.max(BATCH_BUFFERS, iov + 1);
        if (gather == null || gather.length < buffers) {
            MemoryView[] views = new MemoryView[buffers];
            for (int i = 0; i < buffers; i++) {
                views[i] = new MemoryView();
            }
            gather = new ByteBuffer[buffers];
            gatherFrame = new int[buffers];
            writerRanges = new AtomicLongArray(2 * buffers);
            batchViews = views;
        }
        scratchRequestIov = iov;
    }

    void startActive() {
        readerTask = task("dat-sim-tcp-active", this::runActive);
        start(readerTask);
    }

    void startPassive() {
        readerTask = task("dat-sim-tcp-passive", this::runPassive);
        start(readerTask);
    }

    // ---------------------------------------------------------------------------------------------
    // the active side
    // ---------------------------------------------------------------------------------------------

    private void runActive() {
        ConnectAttempt a = attempt;
        try {
            SocketChannel ch = SocketChannel.open();
            synchronized (this) {
                if (closed) {
                    ch.close();
                    return;
                }
                channel = ch;
            }
            try {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                bindSource(ch);
                // blocking; a timeout or abort closes the channel, which ends the connect
                ch.connect(a.remoteAddress);
                a.reached = true;
                ch.configureBlocking(false); // see WaitingReads
            } catch (IOException e) {
                // refused, no route, no source port, or closed by a timeout/abort (then the attempt is over already)
                failAttempt(a, EventNumber.CONNECTION_EVENT_UNREACHABLE);
                return;
            }
            sendControl(connectRequest(a));
            startWriter(); // after: it finishes what the socket did not take of the request
            prepareFor(a.active()); // while the peer answers
            int s = reader.readHeader(in);
            if (s != TcpFrameReader.READY) {
                protocolEnd(s == TcpFrameReader.MALFORMED ? reader.error() : "closed before answering");
                failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                return;
            }
            TcpFrame f = reader.frame;
            switch (f.opcode) {
                case TcpFrame.ACCEPT -> {
                    byte[] acceptData = readPrivateData(in);
                    if (acceptData == null) {
                        failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                        return;
                    }
                    if (!established(a, acceptData)) {
                        return;
                    }
                }
                case TcpFrame.REJECT -> {
                    failAttempt(a, f.aux == TcpFrame.REJECT_PEER ? EventNumber.CONNECTION_EVENT_PEER_REJECTED
                            : EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                    return;
                }
                default -> {
                    protocolEnd("unexpected " + TcpFrame.opcodeName(f.opcode) + " while connecting");
                    failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                    return;
                }
            }
            readEstablished();
        } catch (IOException e) {
            // no socket, or the connection reset before the answer: the remote host was not
            // unreachable, so by dat_ep_connect(3DAT) a transport error, NON_PEER_REJECTED
            failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            lost(EventNumber.CONNECTION_EVENT_BROKEN);
        } catch (RuntimeException | Error e) {
            // an Error too (out of memory for the data path, no thread for the writer): the
            // attempt must end with an event, not wait for a timeout that may be infinite
            unexpected(e);
            failAttempt(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            lost(EventNumber.CONNECTION_EVENT_BROKEN);
            if (e instanceof Error error) {
                throw error;
            }
        } finally {
            close();
            closeSelectors(true);
        }
    }

    /** The CONNECT_REQUEST of an attempt: its private data, then its Endpoint's attributes. */
    private ByteBuffer connectRequest(ConnectAttempt a) {
        byte[] pd = a.privateData;
        EpAttributes attrs = a.activeAttributes;
        int len = pd.length + (attrs == null ? 0 : TcpFrame.ATTRIBUTES_BYTES);
        ByteBuffer b = ByteBuffer.allocate(TcpFrame.HEADER_BYTES + len).order(ByteOrder.BIG_ENDIAN);
        TcpFrame.encode(b, TcpFrame.CONNECT_REQUEST, len, attrs == null ? a.qos : a.qos | TcpFrame.WITH_ATTRIBUTES,
                transport.address().getPort(), a.activePortQual, a.remoteQual);
        b.put(pd);
        if (attrs != null) {
            TcpFrame.putAttributes(b, attrs);
        }
        return b.flip();
    }

    /**
     * The passive side reports the active IA's address as the socket's source IP and the IA port
     * the request names: an IA bound to one IP connects from that IP, else the kernel would pick
     * the source by route (127.0.0.1 for an IA on 127.0.0.2), where the IA does not listen. A
     * wildcard-bound IA listens on every local IP, so the source the kernel picks is one of its
     * addresses: it stays unbound.
     */
    private void bindSource(SocketChannel ch) throws IOException {
        InetSocketAddress ia = transport.address();
        if (!ia.getAddress().isAnyLocalAddress()) {
            // lets the ephemeral port of an earlier connection, in TIME_WAIT, serve again
            ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ch.bind(new InetSocketAddress(ia.getAddress(), 0));
        }
    }

    private void failAttempt(ConnectAttempt a, int eventNumber) {
        SimProvider provider = transport.adapter().provider;
        provider.cmLock.lock();
        try {
            if (a.live()) {
                a.fail(eventNumber);
            }
        } finally {
            provider.cmLock.unlock();
        }
    }

    /** ACCEPT arrived: the active Endpoint is connected, if it still waits. */
    private boolean established(ConnectAttempt a, byte[] acceptData) {
        SimProvider provider = transport.adapter().provider;
        provider.cmLock.lock();
        try {
            if (!a.live()) {
                return false;
            }
            livenessFromNow();
            prepareFor(a.active());
            // sent or queued before the Endpoint is published (a writer that sees it sees the frame
            // queued: writeOne) and CONNECTED, so that it precedes every request on the wire
            sendControl(frame(TcpFrame.READY_TO_USE, 0, 0, 0, 0, 0, null));
            TcpWire w = new TcpWire(this, a.active());
            ep = w;
            a.active().connectionManager().acceptedByRemote(a, w, acceptData);
            return true;
        } finally {
            provider.cmLock.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the passive side
    // ---------------------------------------------------------------------------------------------

    private void runPassive() {
        SocketChannel ch = channel;
        try {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.configureBlocking(false); // see WaitingReads
            int s = reader.readHeader(in);
            if (s != TcpFrameReader.READY || reader.frame.opcode != TcpFrame.CONNECT_REQUEST) {
                // not a DAT peer, or a broken one: nothing local has seen it, just drop it
                protocolEnd(s == TcpFrameReader.READY ? "first frame is not CONNECT_REQUEST" : reader.error());
                return;
            }
            TcpFrame f = reader.frame;
            long remoteQual = f.address;
            long activePortQual = f.seq;
            int qos = f.context & ~TcpFrame.WITH_ATTRIBUTES;
            boolean withAttributes = (f.context & TcpFrame.WITH_ATTRIBUTES) != 0;
            int activePort = f.aux;
            byte[] pd = readPrivateData(in);
            if (pd == null) {
                protocolEnd("truncated private data");
                return;
            }
            EpAttributes activeAttributes = null;
            if (withAttributes) { // at least ATTRIBUTES_BYTES: decode checked it
                int pdLength = pd.length - TcpFrame.ATTRIBUTES_BYTES;
                activeAttributes = TcpFrame.getAttributes(ByteBuffer.wrap(pd, pdLength, TcpFrame.ATTRIBUTES_BYTES));
                pd = java.util.Arrays.copyOf(pd, pdLength);
            }
            // a writer only for a well-formed request: a hostile connection costs one thread, not two
            startWriter();
            InetSocketAddress peer = (InetSocketAddress) ch.getRemoteAddress();
            ConnectAttempt a = new ConnectAttempt(null, new InetSocketAddress(peer.getAddress(), activePort),
                    activePortQual, transport.address(), remoteQual, pd, qos, activeAttributes);
            a.link = this;
            attempt = a;
            SimProvider provider = transport.adapter().provider;
            boolean delivered;
            provider.cmLock.lock();
            try {
                if (closed || provider.isClosed()) {
                    a.fail(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                    return;
                }
                transport.adapter().deliver(a);
                delivered = a.state == ConnectAttempt.State.DELIVERED;
            } finally {
                provider.cmLock.unlock();
            }
            if (delivered) {
                // while the consumer decides; its Endpoint may want larger scratch requests (prepareFor)
                int iov = transport.defaultIov;
                prepareEarly(iov, iov);
            }
            // until accepted, the active side may only give up (DISCONNECT or close)
            s = reader.readHeader(in);
            provider.cmLock.lock();
            try {
                if (ep == null) {
                    if (a.live()) {
                        // the consumer's later dat_cr_accept reports ACCEPT_COMPLETION_ERROR
                        a.state = ConnectAttempt.State.FAILED;
                    }
                    return;
                }
            } finally {
                provider.cmLock.unlock();
            }
            boolean ready = s == TcpFrameReader.READY && reader.frame.opcode == TcpFrame.READY_TO_USE;
            if (!ready) {
                // an end of stream between frames is the requester giving up (no reason, not
                // counted); one inside the header cuts the answer short
                protocolEnd(s == TcpFrameReader.READY ? "expected READY_TO_USE, got " + TcpFrame.opcodeName(reader.frame.opcode)
                        : reader.error());
            }
            provider.cmLock.lock();
            try {
                if (ready) {
                    ep.endpoint().connectionManager().readyToUse(ep);
                } else {
                    ep.lost(EventNumber.CONNECTION_EVENT_BROKEN); // the accept did not complete
                    return;
                }
            } finally {
                provider.cmLock.unlock();
            }
            readEstablished();
        } catch (IOException e) {
            lostOrAbandoned();
        } catch (RuntimeException | Error e) {
            unexpected(e);
            lostOrAbandoned(); // a delivered request the consumer accepts later then fails its accept
            if (e instanceof Error error) {
                throw error;
            }
        } finally {
            close();
            closeSelectors(true);
        }
    }

    private void lostOrAbandoned() {
        ConnectAttempt a = attempt;
        SimProvider provider = transport.adapter().provider;
        provider.cmLock.lock();
        try {
            if (ep == null && a != null && a.active() == null && a.live()) {
                a.state = ConnectAttempt.State.FAILED;
            }
        } finally {
            provider.cmLock.unlock();
        }
        lost(EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /** At the establishment, on either side: the connection's liveness counts from now. */
    private void livenessFromNow() {
        readMark++;
        writeMark++;
    }

    /**
     * dat_cr_accept on the passive side: the Endpoint is on this connection, COMPLETION_PENDING;
     * the ACCEPT goes to the active side. Under the CM lock.
     */
    @Override
    public void accept(ConnectAttempt a, SimEndpoint passive, byte[] acceptData) {
        livenessFromNow();
        prepareFor(passive);
        TcpWire w = new TcpWire(this, passive);
        passive.connectionManager().acceptedAcross(a, w);
        byte[] pd = acceptData == null ? new byte[0] : acceptData;
        sendControl(frame(TcpFrame.ACCEPT, pd.length, 0, 0, 0, 0, pd)); // before ep: see established
        ep = w;
    }

    /** dat_cr_reject, no listener, backlog full, QoS: tell the active side, then close. Under the CM lock. */
    @Override
    public void refuse(ConnectAttempt a, int eventNumber, boolean wasLive) {
        if (!wasLive) {
            close();
            return;
        }
        int reason = eventNumber == EventNumber.CONNECTION_EVENT_PEER_REJECTED ? TcpFrame.REJECT_PEER : TcpFrame.REJECT_NON_PEER;
        enqueue(frame(TcpFrame.REJECT, 0, 0, reason, 0, 0, null));
        queueFin();
    }

    @Override
    public void drop(ConnectAttempt a) {
        close();
    }

    // ---------------------------------------------------------------------------------------------
    // both sides, established
    // ---------------------------------------------------------------------------------------------

    /**
     * The reader thread, once established: the frames the socket holds, then a wait for more,
     * without the read role, so that a consumer may read them itself meanwhile ({@link #drive}).
     */
    private void readEstablished() throws IOException {
        SocketChannel ch = channel;
        selector(ch, READ_SELECTOR); // before any driver: it may have to wake the reader thread's wait (drive)
        for (;;) {
            parkWhileDriven();
            long drives;
            readRole.lock();
            try {
                if (closed || !readAvailable(ch, null, true, 0, true)) {
                    return;
                }
                drives = drivesBegun;
            } finally {
                releaseReadRole();
            }
            awaitReadable(ch, drives);
        }
    }

    /**
     * With the read role: handles every frame the socket holds now (the rest of a payload is
     * waited for); the reader thread then sends the ACKs due (a consumer may send them with its
     * next request instead, see {@link #drive}).
     *
     * @param waitingOn for a driving consumer, the EVD it waits on: it stops after the frame that
     *     ends its wait (an event, its deadline, an interrupt); {@code null} for the reader thread
     * @param readFirst whether to read even if the last read found the socket drained (after a
     *     wait for readiness); else that read is saved, and the wait that follows returns at once
     *     if bytes came meanwhile
     * @return {@code false} when the connection ended
     */
    private boolean readAvailable(SocketChannel ch, SimEvd waitingOn, boolean infinite, long deadline, boolean readFirst)
            throws IOException {
        boolean byConsumer = waitingOn != null;
        dropReadViewsIfStale();
        for (boolean first = true;; first = false) {
            if (refusing) {
                // after a refused access nothing more is served; a consumer hands the end on (drive)
                if (byConsumer) {
                    return true;
                }
                endRefused();
                return false;
            }
            // non-blocking: NEED_MORE between frames
            int s = first && readFirst ? reader.readHeader(ch) : reader.nextHeader(ch);
            if (s == TcpFrameReader.NEED_MORE) {
                if (!byConsumer) {
                    flushAcksIfDue();
                }
                return true;
            }
            readMark++;
            if (byConsumer) {
                if (s == TcpFrameReader.READY && (frameStillArriving(ch, waitingOn, infinite, deadline)
                        || mayRespond(reader.frame.opcode) && responseRingFull())) {
                    reader.holdHeader(); // the reader thread's (drive), which may wait where a consumer must not
                    return true;
                }
                framesReadByConsumers++;
            }
            if (!handleEstablished(s)) {
                return false;
            }
            if (byConsumer && waitEnded(waitingOn, infinite, deadline)) {
                // the rest is for the consumer's next wait, or the reader thread's
                return true;
            }
        }
    }

    /**
     * How many bytes of the frame whose header {@link #reader} just read are still to come: 0 when
     * it is received whole, its payload read ahead or in the socket's receive queue. A consumer
     * reads only such frames, so it never waits inside one: its dat_evd_wait ends on time whatever
     * the peer sends, and a frame still arriving is the reader thread's, which gives it as long as
     * its bytes keep coming. Asks the kernel (one {@code ioctl}) only for a payload larger than
     * what is read ahead.
     */
    private long payloadToCome(SocketChannel ch) throws IOException {
        long onTheSocket = reader.payloadOnTheSocket();
        return onTheSocket == 0 ? 0 : Math.max(0, onTheSocket - bytesInReceiveQueue(ch));
    }

    /**
     * Whether the frame whose header a driving consumer just read is still arriving after the
     * spin of {@link #awaitFrameReceived} (at once when more than {@link #FRAME_SPIN_BYTES} are
     * still to come).
     */
    private boolean frameStillArriving(SocketChannel ch, SimEvd evd, boolean infinite, long deadline) throws IOException {
        long toCome = payloadToCome(ch);
        return toCome > 0 && (toCome > FRAME_SPIN_BYTES || !awaitFrameReceived(ch, evd, infinite, deadline));
    }

    /**
     * A driving consumer whose frame is still arriving: looks again, spinning, for up to
     * {@link #FRAME_SPIN_NANOS} while its wait lasts, having read none of the payload yet (so that
     * it can still hand the frame on whole).
     *
     * @return whether the frame came whole meanwhile
     */
    private boolean awaitFrameReceived(SocketChannel ch, SimEvd evd, boolean infinite, long deadline) throws IOException {
        long until = System.nanoTime() + FRAME_SPIN_NANOS;
        while (!waitEnded(evd, infinite, deadline) && System.nanoTime() - until < 0) {
            Thread.onSpinWait();
            if (payloadToCome(ch) == 0) {
                return true;
            }
        }
        return false;
    }

    /** Whether a frame with this opcode may queue a response ({@link #respond}): a request's ACK, refusal, or read response. */
    private static boolean mayRespond(int opcode) {
        return opcode == TcpFrame.SEND || opcode == TcpFrame.RDMA_WRITE || opcode == TcpFrame.RDMA_READ_REQUEST;
    }

    /**
     * Whether the response ring has no free slot (the peer reads nothing of what the writer
     * sends, and requests RDMA reads, whose responses are not merged as ACKs are). A consumer
     * then hands on a request at its header, none of it handled: the reader thread waits for the
     * slot, and the consumer's dat_evd_wait ends on time. Only the read role fills the ring, one
     * response at most per frame, so a slot free now is free when the consumer queues into it.
     */
    private boolean responseRingFull() {
        respLock.lock();
        try {
            return respCount == RESPONSES;
        } finally {
            respLock.unlock();
        }
    }

    /**
     * How long a driving consumer spins for the rest of a frame before it hands the frame on:
     * about what the hand-over costs here (two wake-ups of another thread, 20-40 us each). A
     * 256 KiB message over loopback comes in several segments, and the consumer wakes at the first;
     * handed on every time, its round trip took half as long again.
     */
    private static final long FRAME_SPIN_NANOS = 100_000;
    /**
     * A frame with more than this still to come is handed on without a spin: about what loopback
     * delivers here in {@link #FRAME_SPIN_NANOS}, and more than a socket may ever hold at once.
     */
    private static final long FRAME_SPIN_BYTES = 512 * 1024;

    /** Bytes received and not read yet: in the socket's receive queue (Linux {@code FIONREAD}). */
    private long bytesInReceiveQueue(SocketChannel ch) throws IOException {
        java.io.InputStream queue = receiveQueue;
        if (queue == null) {
            queue = ch.socket().getInputStream();
            receiveQueue = queue;
        }
        return queue.available();
    }

    /** {@link #bytesInReceiveQueue(SocketChannel)}, for tests: 0 once closed. */
    long bytesInReceiveQueue() throws IOException {
        SocketChannel ch = channel;
        return ch == null || closed ? 0 : bytesInReceiveQueue(ch);
    }

    /** A driving consumer's wait is over: an event for it (or a state it must report), its deadline, an interrupt. */
    private static boolean waitEnded(SimEvd evd, boolean infinite, long deadline) {
        return evd.waitOver() || Thread.currentThread().isInterrupted() || !infinite && deadline - System.nanoTime() <= 0;
    }

    /**
     * The reader thread: parked while a consumer reads the socket or is expected back
     * ({@link #driverLease}). While a consumer drives it looks every {@link #DRIVER_LEASE_NANOS};
     * a drive that outlasts {@link #LOOKS_BEFORE_LONG_PARK} looks ends with the driver unparking
     * it. Afterwards it reads without waiting first: the consumer that drove last may have left
     * bytes read ahead or ACKs unsent (it sends them with its next request).
     */
    private void parkWhileDriven() throws IOException {
        long drive = -1;
        int looks = 0;
        for (;;) {
            if (closed) {
                throw new AsynchronousCloseException();
            }
            if (driver != null) {
                long begun = drivesBegun;
                looks = begun == drive ? looks + 1 : 1;
                drive = begun;
                if (looks < LOOKS_BEFORE_LONG_PARK) {
                    java.util.concurrent.locks.LockSupport.parkNanos(this, DRIVER_LEASE_NANOS);
                } else {
                    readerParkedForDriver = true;
                    try {
                        if (driver != null) { // after the flag's store: a driver that leaves later unparks it
                            java.util.concurrent.locks.LockSupport.park(this); // or close() does
                        }
                    } finally {
                        readerParkedForDriver = false;
                    }
                }
                readerLooksWhileDriven++; // the reader thread alone writes it
                continue;
            }
            long lease = driverLease - System.nanoTime();
            if (lease <= 0) {
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(this, lease);
        }
    }

    long readerLooksWhileDriven() {
        return readerLooksWhileDriven;
    }

    long drivesBegun() {
        return drivesBegun;
    }

    /**
     * The reader thread between frames: waits until the socket is readable, unless a consumer
     * drives (then it parks, at its loop's top). A consumer that comes while it waits wakes it;
     * one that came and went since the reader thread let go of the read role ({@code drives}, the
     * count it saw then) may have left frames read ahead, which no readiness would announce: it
     * reads again instead of waiting.
     */
    private void awaitReadable(SocketChannel ch, long drives) throws IOException {
        readerSelecting = true; // before it looks for a driver, which looks at this after it came (drive)
        try {
            if (driver == null && driverLease - System.nanoTime() <= 0 && drivesBegun == drives) {
                awaitReady(ch, SelectionKey.OP_READ);
            }
        } finally {
            readerSelecting = false;
        }
    }

    /**
     * A consumer blocked in dat_evd_wait on an EVD this connection feeds reads the connection
     * itself until its wait is over: a message then wakes one thread, the consumer, as a plain
     * socket would, instead of the reader thread and then the consumer (the largest cost of a
     * round trip on a busy machine). The frames it meets are handled as the reader thread would,
     * whatever EVD they feed, but only frames received whole ({@link #payloadToCome}): one still
     * arriving after a short spin ({@link #awaitFrameReceived}) is handed to the reader thread at
     * its header, and the consumer parks until the reader thread lets go of the role. So a
     * consumer never waits inside a frame; nor for a slot in the response ring (a request is
     * handed on while it is full, {@link #responseRingFull}), nor for the writer to send a
     * refusal ({@link #endRefused}). A wait with
     * {@link #COARSE_WAIT_NANOS} or more left at its first select ends up to
     * {@link TcpTransport#TICK_NANOS} past its deadline.
     *
     * @param evd the EVD waited on; a post from another thread wakes the driver ({@link #wakeDriver})
     * @param deadline System.nanoTime() at which the wait ends, unless {@code infinite}
     * @return {@code false} when it could not drive (the reader thread is inside a frame, another
     *     consumer drives, the connection is closed), or when less of its wait is left than a
     *     select can time ({@link #SELECT_TIMEOUT_NANOS}): the caller parks as usual
     */
    @Override
    public boolean drive(SimEvd evd, boolean infinite, long deadline) {
        SocketChannel ch = channel;
        if (closed || ch == null || ep == null) {
            return false;
        }
        if (!readRole.tryLock()) {
            // the reader thread (or another consumer) reads: the caller parks, so the reader
            // thread must not stay parked for a lease; the role's holder wakes the caller as it
            // lets go (releaseReadRole), so that it reads the connection for the rest of its wait
            driverLease = 0;
            refusedDriver = evd;
            if (!readRole.tryLock()) {
                return false; // marked before the holder lets go: it sees the mark
            }
            refusedDriver = null;
        }
        if (handedOn()) {
            // a frame a consumer handed on is the reader thread's: it wakes this one as it lets go
            // of the role; not unlockReadRole, which would wake this consumer now, and again
            refusedDriver = evd;
            driverLease = 0; // before the role is free: not over the lease of a driver that comes after the frame
            readRole.unlock();
            dropReadViewsUnlessTaken();
            unparkReader();
            return false;
        }
        Thread me = Thread.currentThread();
        try {
            if (closed) {
                return false;
            }
            Selector selector = selector(ch, DRIVE_SELECTOR);
            drivesBegun++; // under the read role: one writer at a time
            driver = me;
            if (readerSelecting) {
                // the reader thread went to wait before this driver came: out of that wait, it
                // then parks while this consumer is expected back, and in any case runs again
                // after this driver, to send the ACKs a driver may leave behind
                Selector waiting = readSelector;
                if (waiting != null) {
                    waiting.wakeup();
                }
            }
            evd.drivenBy(this);
            boolean coarse = false;
            boolean restParked = false;
            try {
                for (boolean waited = false;; waited = true) {
                    if (!readAvailable(ch, evd, infinite, deadline, waited)) {
                        close();
                        return true;
                    }
                    if (driveOver(evd, me)) {
                        return true;
                    }
                    long left = infinite ? Long.MAX_VALUE : deadline - System.nanoTime();
                    if (left <= 0 || !coarse && left < SELECT_TIMEOUT_NANOS) {
                        // the wait is over, or less of it is left than a select can time (whole
                        // milliseconds). Before its first select, one read now: the first pass saves
                        // the read a drained socket would make, and a run of very short waits, each
                        // renewing the reader thread's lease, would otherwise leave the socket unread
                        if (!waited && !readAvailable(ch, evd, infinite, deadline, true)) {
                            close();
                            return true;
                        }
                        if (left <= 0 || driveOver(evd, me)) {
                            return true;
                        }
                        // the rest is the caller's precise park, while the reader thread serves the socket (lease 0, below)
                        flushAcksIfDue();
                        restParked = true;
                        return false;
                    }
                    flushAcksIfDue();
                    if (!waited && !infinite && left >= COARSE_WAIT_NANOS) {
                        coarse = true;
                        driverDeadline = deadline == NO_DEADLINE ? deadline + 1 : deadline;
                        transport.deadlineArmed();
                    }
                    if (infinite || coarse) {
                        selector.select(READY);
                    } else {
                        selector.select(READY, left / SELECT_TIMEOUT_NANOS); // at least 1 (0 would be forever), not past the deadline
                    }
                }
            } finally {
                if (coarse) {
                    driverDeadline = NO_DEADLINE;
                }
                evd.drivenBy(null);
                // a frame handed on, or the rest of the wait parked: the reader thread reads now, not after the lease
                boolean handedOn = handedOn() || restParked;
                driverLease = handedOn ? 0 : System.nanoTime() + DRIVER_LEASE_NANOS;
                driver = null;
                if (readerParkedForDriver || handedOn) { // after "driver = null": see the flag's comment
                    unparkReader();
                }
                if (closed) {
                    releaseDriveSelector();
                }
            }
        } catch (IOException | RuntimeException e) {
            // as the reader thread would: the connection is lost, and a defect is logged
            if (e instanceof RuntimeException defect) {
                unexpected(defect);
            }
            if (!closed) {
                lost(EventNumber.CONNECTION_EVENT_BROKEN);
            }
            return true;
        } finally {
            releaseReadRole();
        }
    }

    /**
     * A drive ends here, its deadline aside: what it met is the reader thread's ({@link #handedOn},
     * taken on below), the connection closed, or the wait is over ({@link #waitEnded} but for the
     * deadline, which the drive reads once for that and for its select's timeout).
     */
    private boolean driveOver(SimEvd evd, Thread me) {
        return handedOn() || closed || evd.waitOver() || me.isInterrupted();
    }

    /**
     * With the read role: what a consumer met is the reader thread's, which may wait where a
     * consumer must not: a frame held at its header, or the end of the connection after a refusal
     * ({@link #endRefused}).
     */
    private boolean handedOn() {
        return reader.holdsHeader() || refusing;
    }

    private void unparkReader() {
        ConnectionThreads.Task r = readerTask;
        if (r != null) {
            r.unpark();
        }
    }

    /**
     * The transport's watchdog: wakes a driver that waits without a timeout of its own once its
     * deadline passed (it then finds the deadline over and returns).
     *
     * @return whether a driver waits with such a deadline
     */
    boolean wakeDriverPastDeadline(long now) {
        long deadline = driverDeadline;
        if (deadline == NO_DEADLINE) {
            return false;
        }
        if (now - deadline >= 0) {
            wakeDriver();
        }
        return true;
    }

    /** An EVD this connection's driver waits on got an event from another thread: the driver looks. */
    @Override
    public void wakeDriver() {
        Selector s = driveSelector;
        if (s != null) {
            s.wakeup();
        }
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    long framesReadByConsumers() {
        return framesReadByConsumers;
    }

    private void forget(SimEvd evd) {
        if (evd != null) {
            evd.forgetDriver(this);
        }
    }

    /**
     * Notes on {@code evd} that this connection posts to it: its waiter may read the connection
     * itself. Never once closed: a close() on another thread may have forgotten the feeder just
     * before (both are volatile: either this sees {@code closed}, or close() sees the note).
     * Package-private for a test.
     */
    void feeds(SimEvd evd) {
        if (evd != null && evd.driver() != this) {
            evd.noteDriver(this);
            if (closed) {
                evd.forgetDriver(this);
            }
        }
    }

    /** Handles one header read on an established connection; {@code false} when it ended. */
    private boolean handleEstablished(int s) throws IOException {
        if (s == TcpFrameReader.EOF) {
            protocolEnd(reader.error()); // a header cut short; none between frames
            lost(finQueued ? EventNumber.CONNECTION_EVENT_DISCONNECTED : EventNumber.CONNECTION_EVENT_BROKEN);
            return false;
        }
        if (s == TcpFrameReader.MALFORMED) {
            protocolEnd(reader.error());
            lost(EventNumber.CONNECTION_EVENT_BROKEN);
            return false;
        }
        try {
            return handleFrame();
        } catch (TcpFrameReader.Truncated cut) {
            // the stream ended in a payload being skipped (a refused access's, a send's that found
            // no receive): cut short, as one that ends while it lands
            protocolEnd(cut.getMessage());
            lost(EventNumber.CONNECTION_EVENT_BROKEN);
            return false;
        }
    }

    /** Handles the valid header {@link #reader} read on an established connection; {@code false} when it ended. */
    private boolean handleFrame() throws IOException {
        TcpWire e = ep;
        ReadableByteChannel ch = in;
        int opcode = reader.frame.opcode;
        if (notReadyFrom >= 0 && (opcode == TcpFrame.SEND || opcode == TcpFrame.RDMA_WRITE || opcode == TcpFrame.RDMA_READ_REQUEST)) {
            if (reader.frame.seq != notReadyFrom) {
                reader.skipPayload(ch); // sent before the initiator learned of the RNR: it sends it again
                return true;
            }
            notReadyFrom = -1; // the retransmission
        }
        String why = switch (opcode) {
            case TcpFrame.DISCONNECT -> {
                lost(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                yield "";
            }
            case TcpFrame.SEND -> onSend(ch, e);
            case TcpFrame.RDMA_WRITE -> onRdmaWrite(ch, e);
            case TcpFrame.RDMA_READ_REQUEST -> onReadRequest(e);
            case TcpFrame.RDMA_READ_RESPONSE -> onReadResponse(ch, e);
            case TcpFrame.ACK -> e.complete(reader.frame.seq, reader.frame.aux, false);
            case TcpFrame.NOP -> null; // proof of life, already noted
            case TcpFrame.ACK_REQUEST -> {
                acksDue = true; // sent once the socket is drained, as for a request that is not deferrable
                yield null;
            }
            default -> "unexpected " + TcpFrame.opcodeName(reader.frame.opcode) + " on an established connection";
        };
        if (why == null) {
            if ((opcode == TcpFrame.SEND || opcode == TcpFrame.RDMA_WRITE) && (reader.frame.aux & TcpFrame.ACK_DEFERRABLE) == 0) {
                // once handled, not at its header: a flush while the payload is read (the socket
                // ran dry mid-frame) must not take the due mark before this frame's ACK is held
                acksDue = true;
            }
            if (opcode == TcpFrame.SEND) {
                feeds(e.endpoint().recvEvd());
            } else if (opcode == TcpFrame.ACK || opcode == TcpFrame.RDMA_READ_RESPONSE) {
                feeds(e.endpoint().requestEvd());
            }
            return true;
        }
        if (why.isEmpty()) {
            return false;
        }
        if (why == REFUSED) {
            refusing = true; // the refusal is queued; the reader thread ends the connection (readAvailable)
            return true;
        }
        protocolEnd(why);
        lost(EventNumber.CONNECTION_EVENT_BROKEN);
        return false;
    }

    /**
     * The reader thread, after an access was refused ({@link #refusing}): lets the writer send
     * the refusal (and break the local side) before the connection closes. A consumer that
     * refused the access does not wait for this: it hands the end to the reader thread.
     */
    private void endRefused() {
        ConnectionThreads.Task w = writerTask;
        try {
            if (w != null) {
                w.join(2_000);
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        // the writer breaks the Endpoint once the refusal is out; if it could not write it in
        // time (the peer reads nothing), break it here, or it would stay CONNECTED to a closed wire
        lost(EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /** The reason a target-side handler gives when it refused the access and queued the answer. */
    private static final String REFUSED = "refused";
    /** The reason a handler gives when the connection ended while it waited. */
    private static final String ENDED = "";

    /** Target side of a send: into the first posted receive, straight from the socket. */
    private String onSend(ReadableByteChannel ch, TcpWire e) throws IOException {
        TcpFrame f = reader.frame;
        long seq = f.seq;
        long len = f.payloadLength;
        boolean solicited = (f.aux & TcpFrame.SOLICITED) != 0;
        if (!e.takeRecvForWire(rx)) {
            // receiver not ready: drop it and what follows until the initiator sends it again; the
            // reader goes on reading, so the connection's liveness is still watched meanwhile
            reader.skipPayload(ch);
            notReadyFrom = seq;
            respond(TcpFrame.ACK, seq, TcpFrame.STATUS_RNR, null, 0, 0, false);
            return null;
        }
        try {
            return land(ch, e, seq, len, solicited);
        } finally {
            // a reset, a close or a defect mid-payload: the receive taken is this reader's until a
            // flush abandons the landing, so it completes flushed here (the Endpoint ignores it when
            // its flush did that already), as the connection's end flushes those still queued
            if (rxTaken) {
                recvDone(e, dat.api.DtoCompletionStatus.ERR_FLUSHED, 0, false);
            }
            landing.setRelease(LANDING_NONE);
        }
    }

    /** A send's payload into the receive {@link #rx} taken for it; completes that receive on every path. */
    private String land(ReadableByteChannel ch, TcpWire e, long seq, long len, boolean solicited) throws IOException {
        rxTaken = true;
        if (!rx.memoryValid()) {
            // a segment's LMR freed or its memory closed, even one no byte would reach: as in one
            // JVM, the receive fails LOCAL_PROTECTION, the sender REMOTE_ACCESS, and both break
            recvDone(e, dat.api.DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0, false);
            return refuse(ch, TcpFrame.ACK, seq, TcpFrame.STATUS_REMOTE_ACCESS);
        }
        if (len > rx.total) {
            // the receiver sees LOCAL_LENGTH, the sender REMOTE_RESPONDER, and the connection breaks
            recvDone(e, dat.api.DtoCompletionStatus.ERR_LOCAL_LENGTH, 0, false);
            return refuse(ch, TcpFrame.ACK, seq, TcpFrame.STATUS_REMOTE_LENGTH);
        }
        try {
            long left = len;
            for (int i = 0; i < rx.segments && left > 0 && landing.get() != LANDING_ABANDONED; i++) {
                long n = Math.min(left, rx.lengths[i]);
                if (!landIntoConsumer(rx.lmrs[i], rx.offsets[i], n)) {
                    recvDone(e, dat.api.DtoCompletionStatus.ERR_FLUSHED, 0, false);
                    return "truncated send";
                }
                left -= n;
            }
            if (landing.get() == LANDING_ABANDONED) {
                rxTaken = false; // the flush that abandoned the landing completed the receive
                reader.skipPayload(ch);
                return null;
            }
        } catch (IllegalStateException | IndexOutOfBoundsException x) {
            // the receive's memory went away (its arena closed): as a protection error in one JVM
            recvDone(e, dat.api.DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0, false);
            return refuse(ch, TcpFrame.ACK, seq, TcpFrame.STATUS_REMOTE_ACCESS);
        }
        recvDone(e, dat.api.DtoCompletionStatus.SUCCESS, len, solicited);
        acknowledge(seq, len);
        return null;
    }

    /** Completes the receive {@link #rx} holds, once. */
    private void recvDone(TcpWire e, int status, long len, boolean solicited) {
        rxTaken = false;
        e.recvDone(rx, status, len, solicited);
    }

    /** Target side of an RDMA write: checked, then read from the socket into the registered memory. */
    private String onRdmaWrite(ReadableByteChannel ch, TcpWire e) throws IOException {
        TcpFrame f = reader.frame;
        long seq = f.seq;
        long len = f.payloadLength;
        RemoteWindow w = e.remoteWindow(f.context, f.address, len, true);
        if (w == null) {
            return refuse(ch, TcpFrame.ACK, seq, TcpFrame.STATUS_REMOTE_ACCESS);
        }
        try {
            if (len > 0) {
                MemorySegment memory = w.windowMemory();
                long offset = f.address - w.memoryBase();
                ByteBuffer dst = rxView.of(memory, offset, len);
                publishRead(memory, offset, len);
                int landed;
                try {
                    landed = landIntoWindow(e, w, dst);
                } finally {
                    clearRead();
                    landing.setRelease(LANDING_NONE);
                    landingWindow = null;
                }
                switch (landed) {
                    case WINDOW_GONE -> {
                        return refuse(ch, TcpFrame.ACK, seq, TcpFrame.STATUS_REMOTE_ACCESS);
                    }
                    case LANDING_DROPPED -> {
                        reader.skipPayload(ch); // the Endpoint disconnected: the rest goes nowhere, and unanswered
                        return null;
                    }
                    case STREAM_ENDED -> {
                        return "truncated RDMA write";
                    }
                    default -> {
                    }
                }
            }
        } catch (IllegalStateException | IndexOutOfBoundsException x) {
            return refuse(ch, TcpFrame.ACK, seq, TcpFrame.STATUS_REMOTE_ACCESS);
        }
        acknowledge(seq, len);
        return null;
    }

    private static final int LANDED = 0;
    /** The window was revoked or its memory freed while the write landed: refused as at its header. */
    private static final int WINDOW_GONE = 1;
    /** The Endpoint no longer connects through this connection (a flush abandoned the landing). */
    private static final int LANDING_DROPPED = 2;
    private static final int STREAM_ENDED = 3;

    /**
     * An RDMA write's payload into its window, one copy (a non-blocking read, or a copy from the
     * read-ahead) at a time, each in {@link #LANDING_COPYING} as {@link #landIntoConsumer}'s are.
     * Each copy checks first that the window is still valid and the Endpoint still connected
     * through this connection: a revocation ({@code dat_rmr_bind}, {@code dat_rmr_free}: see
     * {@link #awaitCopiesThrough}) or a flush ({@link #abandonLanding}) waits out the copy in
     * progress only, never the peer, and no byte lands through the window after it. Checked only
     * at the header, a write of a peer that trickled its payload went on landing after an unbind's
     * completion, or after a disconnect and a new connection of the Endpoint.
     *
     * @return {@link #LANDED}, {@link #WINDOW_GONE}, {@link #LANDING_DROPPED} or {@link #STREAM_ENDED}
     */
    private int landIntoWindow(TcpWire e, RemoteWindow w, ByteBuffer dst) throws IOException {
        landingIntoReceive = false;
        landingWindow = w;
        landing.setRelease(LANDING_WAITING); // publishes the two fields above to a flush or revocation
        return landCopies(dst, e, w, null);
    }

    /**
     * The copies of a landing ({@link #landIntoConsumer}, {@link #landIntoWindow}) into
     * {@code dst}: one non-blocking read, or copy from the read-ahead, at a time, each in
     * {@link #LANDING_COPYING} and after its checks, each wait for more bytes outside it. After the
     * compare-and-set (a full fence), a flush, revocation or free that looks at the landing later
     * waits for the copy, and one that came before is seen by the checks.
     *
     * @param through the Endpoint that must still be connected through this connection, or
     *     {@code null} (a receive's or read's landing, which a flush abandons instead)
     * @param window the window that must still be valid, or {@code null}
     * @param lmr the LMR that must not have been freed (else IllegalStateException), or {@code null}
     * @return {@link #LANDED}, {@link #WINDOW_GONE}, {@link #LANDING_DROPPED} (abandoned, or the
     *     Endpoint disconnected) or {@link #STREAM_ENDED}
     */
    private int landCopies(ByteBuffer dst, TcpWire through, RemoteWindow window, SimLmr lmr) throws IOException {
        SocketChannel ch = channel;
        while (dst.hasRemaining() && reader.payloadLeft() > 0) {
            if (!landing.compareAndSet(LANDING_WAITING, LANDING_COPYING)) {
                return LANDING_DROPPED;
            }
            int n;
            try {
                if (through != null && !through.connected()) {
                    return LANDING_DROPPED;
                }
                if (window != null && !window.windowValid()) {
                    return WINDOW_GONE;
                }
                if (lmr != null && lmr.isFreed()) {
                    throw new IllegalStateException("the LMR was freed");
                }
                n = reader.readPayload(ch, dst);
            } finally {
                landing.setRelease(LANDING_WAITING); // after the copy: a flush that then abandons the landing comes after it
            }
            if (n < 0) {
                return STREAM_ENDED;
            }
            if (n > 0) {
                readMark++;
            } else {
                awaitMorePayload(ch);
            }
        }
        return LANDED;
    }

    /**
     * A wait for the other role's copy or write call in progress (one system call at most): spins
     * a little, then parks 10 us at a time.
     */
    private static void backOff(int spins) {
        if (spins < 100) {
            Thread.onSpinWait();
        } else {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000);
        }
    }

    /**
     * {@code w} was revoked (its {@code windowValid} is false already): returns once neither
     * role of this connection copies through it, waiting out at most one copy of the reader and
     * one write call of the writer. Copies that follow check the window first and find it gone.
     */
    void awaitCopiesThrough(RemoteWindow w) {
        for (int spins = 0; (landing.get() == LANDING_COPYING && landingWindow == w) || respondingFrom == w; spins++) {
            backOff(spins);
        }
    }

    /** The window an RDMA write lands in, while {@link #landing} is not NONE; the reader's. */
    private RemoteWindow landingWindow;
    /** The window whose bytes a write call of the writer sends in a read response, else {@code null}. */
    private volatile RemoteWindow respondingFrom;

    /** Target side of an RDMA read: checked, then the writer sends the bytes from the registered memory. */
    private String onReadRequest(TcpWire e) {
        TcpFrame f = reader.frame;
        long len = Integer.toUnsignedLong(f.aux);
        RemoteWindow w = e.remoteWindow(f.context, f.address, len, false);
        if (w == null) {
            respond(TcpFrame.RDMA_READ_RESPONSE, f.seq, TcpFrame.STATUS_REMOTE_ACCESS, null, 0, 0, true);
            return REFUSED;
        }
        respond(TcpFrame.RDMA_READ_RESPONSE, f.seq, TcpFrame.STATUS_OK, w, f.address - w.memoryBase(), len, false);
        return null;
    }

    /** Initiator side: the data of an RDMA read, from the socket into the local buffers. */
    private String onReadResponse(ReadableByteChannel ch, TcpWire e) throws IOException {
        TcpFrame f = reader.frame;
        long seq = f.seq;
        int status = f.aux;
        String why = e.readTarget(seq, status, f.payloadLength, rxRead);
        if (why != null) {
            return why;
        }
        if (rxRead.segments > 0 && !rxRead.memoryValid()) {
            // a local segment's LMR freed or memory closed, even one no byte would reach: as in
            // one JVM, which checks every segment of the read
            landing.setRelease(LANDING_NONE);
            e.readLostItsMemory(seq);
            return ENDED;
        }
        try {
            long left = f.payloadLength;
            for (int i = 0; i < rxRead.segments && left > 0 && landing.get() != LANDING_ABANDONED; i++) {
                long n = Math.min(left, rxRead.lengths[i]);
                if (!landIntoConsumer(rxRead.lmrs[i], rxRead.offsets[i], n)) {
                    return "truncated read response";
                }
                left -= n;
            }
            if (reader.payloadLeft() > 0) {
                reader.skipPayload(ch); // the request was flushed before or while it landed
            }
            return e.complete(seq, status, true);
        } catch (IllegalStateException | IndexOutOfBoundsException x) {
            // the read's LMR freed or its arena closed: not the peer's fault, so no protocol error
            e.readLostItsMemory(seq);
            return ENDED;
        } finally {
            landing.setRelease(LANDING_NONE);
        }
    }

    /**
     * {@code length} bytes of the frame's payload into a buffer of the receive or read the
     * Endpoint handed over ({@link #landingBegins}), each copy (one non-blocking read, or a copy
     * from the read-ahead) in {@link #LANDING_COPYING}, each wait for more bytes outside it; stops
     * early, leaving the rest unread, when a flush abandoned the landing ({@link #abandonLanding}).
     *
     * @return {@code false} when the stream ended first
     */
    private boolean landIntoConsumer(SimLmr lmr, long offset, long length) throws IOException {
        MemorySegment memory = lmr.memory();
        ByteBuffer dst = rxView.of(memory, offset, length);
        publishRead(memory, offset, length);
        try {
            // an abandoned landing (LANDING_DROPPED) leaves the buffer to the consumer, the rest unread
            return landCopies(dst, null, null, lmr) != STREAM_ENDED;
        } finally {
            clearRead();
        }
    }

    /**
     * The reader's Endpoint, under its lock: a receive ({@link #rx}) or the RDMA read at the head of
     * its queue ({@link #rxRead}) is handed to the reader, whose payload may now land in its buffers.
     */
    void landingBegins(boolean intoReceive) {
        landingIntoReceive = intoReceive;
        landing.setRelease(LANDING_WAITING); // under the Endpoint's lock, as the flush reads it
    }

    /**
     * The reader's Endpoint, under its lock: the receive handed over completes now, while the
     * reader may still skip the rest of its frame or wait to queue its answer. A flush meanwhile
     * must not complete it again ({@link #abandonLanding}).
     */
    void landingEnds() {
        landing.setRelease(LANDING_NONE);
    }

    /**
     * The Endpoint flushes (under its lock, this connection no longer its wire): returns once no
     * payload can land any more in the buffers of a receive or read handed to the reader, so that
     * they may complete flushed. Waits at most for one copy in progress, never for the peer: the
     * rest of the payload is dropped.
     *
     * @return the receive whose landing was abandoned, which the caller completes flushed (before
     *     the receives still queued: it was posted before them), or {@code null}
     */
    Wr.Recv abandonLanding() {
        for (int spins = 0;; spins++) {
            int s = landing.get();
            if (s == LANDING_NONE || s == LANDING_ABANDONED) {
                return null;
            }
            if (s == LANDING_WAITING && landing.compareAndSet(LANDING_WAITING, LANDING_ABANDONED)) {
                return landingIntoReceive ? rx : null;
            }
            if (s == LANDING_COPYING) {
                backOff(spins);
            }
        }
    }

    /** Skips the refused frame's payload and queues the refusal, after which both sides break. */
    private String refuse(ReadableByteChannel ch, int op, long seq, int status) throws IOException {
        reader.skipPayload(ch);
        respond(op, seq, status, null, 0, 0, true);
        return REFUSED;
    }

    /** Target side: the send or write {@code seq} of {@code payloadBytes} succeeded; its ACK waits in the ring. */
    private void acknowledge(long seq, long payloadBytes) {
        heldBytes += payloadBytes;
        respond(TcpFrame.ACK, seq, TcpFrame.STATUS_OK, null, 0, 0, false);
    }

    /** Queues a response for the writer; blocks while the ring is full (back-pressure on the peer). */
    private void respond(int op, long seq, int status, RemoteWindow window, long offset, long length, boolean breakAfter) {
        boolean lazy = op == TcpFrame.ACK && status == TcpFrame.STATUS_OK && !breakAfter;
        if (!lazy && op == TcpFrame.ACK && !breakAfter && respondInline(seq, status)) {
            responseOwed = false; // on the wire already
            return;
        }
        boolean merged = false;
        respLock.lock();
        try {
            if (op == TcpFrame.ACK && status == TcpFrame.STATUS_OK && !breakAfter && respCount > (headTaken ? 1 : 0)) {
                // an ACK not yet being written acknowledges the request before this one: it now
                // acknowledges both (ACKs are cumulative), one frame instead of two
                Response tail = responses[(respHead + respCount - 1) % RESPONSES];
                if (tail.op == TcpFrame.ACK && tail.status == TcpFrame.STATUS_OK && !tail.breakAfter && tail.seq + 1 == seq) {
                    tail.seq = seq;
                    merged = true;
                }
            }
            if (merged) {
                responseOwed = false;
                return;
            }
            while (respCount == RESPONSES && !closed) {
                if (Thread.currentThread() == driver) {
                    throw new DriverWouldWait("for a slot in the response ring"); // see responseRingFull
                }
                kickForResponses(); // lazy ACKs among them: the writer must drain the ring
                respNotFull.awaitUninterruptibly();
            }
            int idx = (respHead + respCount) % RESPONSES;
            Response r = responses[idx];
            r.op = op;
            r.seq = seq;
            r.status = status;
            r.window = window;
            r.offset = offset;
            r.length = length;
            r.breakAfter = breakAfter;
            respCount++;
            responsesQueued++;
            responseOwed = false;
        } finally {
            respLock.unlock();
            if (lazy && (++heldAcks >= TcpFrame.ACKS_HELD_MAX || heldBytes >= TcpFrame.ACK_HELD_BYTES)) {
                flushAcks();
            }
        }
        if (!lazy) {
            kickForResponses();
        }
    }

    /**
     * Successful ACKs wait in the ring (merged: ACKs are cumulative) until the reader has read
     * everything the socket holds, or {@link TcpFrame#ACKS_HELD_MAX} were held, or ACKs for
     * {@link TcpFrame#ACK_HELD_BYTES} of payload: one ACK for a
     * burst of requests instead of one each, as TCP delays its own. While every request read
     * since the last flush was {@link TcpFrame#ACK_DEFERRABLE} (its initiator has that many in
     * flight), a drained socket does not send them: only the count, the bytes, or an ACK_REQUEST do. A
     * posting thread writing inline and the writer send them earlier when they write anyway.
     */
    private int heldAcks;
    /** The payload bytes of the requests whose ACKs are held (read role only). */
    private long heldBytes;
    /**
     * A request read since the last flush was not deferrable, or an ACK_REQUEST came: the held
     * ACKs go out once the socket is drained (read role only).
     */
    private boolean acksDue;

    /** The reader, before it waits for bytes: sends the held ACKs when they are due ({@link #acksDue}). */
    private void flushAcksIfDue() {
        if (acksDue) {
            flushAcks();
        }
    }

    /**
     * The reader, when held ACKs are due or a held maximum is reached: sends the
     * ACKs waiting in the ring, itself when the output is idle, else by the writer.
     */
    private void flushAcks() {
        heldAcks = 0;
        heldBytes = 0;
        acksDue = false;
        if (!hasResponses()) {
            return;
        }
        boolean done = false;
        if (writeLock.tryLock()) {
            try {
                done = outputIdle() && flushAcksInline();
            } catch (IOException x) {
                done = false; // the writer meets the failure too and ends the connection
            } finally {
                releaseWriteLock();
            }
        }
        if (!done) {
            kickForResponses();
        }
    }

    /**
     * Responses wait for the writer that should not wait for the end of its batch: a response
     * queued to be sent at once, or held ACKs that fell due while the output was busy. Set before
     * the writer is kicked for them; the writer clears it before it writes them.
     */
    private volatile boolean responsesDue;

    /** Kicks the writer for responses that must not wait for the end of its batch (flag first). */
    private void kickForResponses() {
        responsesDue = true;
        kick();
    }

    /**
     * The writer, between two frames of a batch: sends the ACKs at the head of the ring when
     * responses are due. A read response (it may carry much data, and may end the connection) or
     * a refusal waits for the end of the batch, with whatever is queued behind it.
     */
    private void writeDueAcks(SocketChannel ch) throws IOException {
        responsesDue = false;
        int written = 0;
        while (headIsPlainAck()) {
            writeResponse(ch);
            written++;
        }
        if (written > 0) {
            acksBetweenFrames += written; // the writer alone writes it
        }
    }

    /** The ACKs the writer wrote between two frames of a batch, for tests and statistics. */
    private volatile int acksBetweenFrames;

    int acksBetweenFrames() {
        return acksBetweenFrames;
    }

    private boolean headIsPlainAck() {
        respLock.lock();
        try {
            if (respCount == 0) {
                return false;
            }
            Response r = responses[respHead];
            return r.op == TcpFrame.ACK && !r.breakAfter;
        } finally {
            respLock.unlock();
        }
    }

    private boolean hasResponses() {
        respLock.lock();
        try {
            return respCount != 0;
        } finally {
            respLock.unlock();
        }
    }

    /**
     * The writer: sends the oldest queued response, if any.
     *
     * @return whether one was sent
     */
    private boolean writeResponse(SocketChannel ch) throws IOException {
        Response r;
        respLock.lock();
        try {
            if (respCount == 0) {
                return false;
            }
            r = responses[respHead];
            headTaken = true; // no later ACK merges into it any more
        } finally {
            respLock.unlock();
        }
        long len = r.op == TcpFrame.RDMA_READ_RESPONSE && r.status == TcpFrame.STATUS_OK ? r.length : 0;
        int status = r.status;
        boolean breakAfter = r.breakAfter;
        ByteBuffer data = null;
        if (len > 0) {
            MemorySegment memory = r.window.windowMemory();
            publishWrite(memory, r.offset, len);
            if (!r.window.windowValid() || !memory.scope().isAlive()) {
                // freed, or its memory closed, since the request was checked: refused as it would
                // have been then, as in one JVM (not a connection broken by a failed view)
                clearWrite();
                len = 0;
                status = TcpFrame.STATUS_REMOTE_ACCESS;
                breakAfter = true;
            } else {
                data = txView.of(memory, r.offset, len);
            }
        }
        try {
            txHeader.clear();
            TcpFrame.encode(txHeader, r.op, len, 0, status, r.seq, 0);
            if (data != null) {
                writeResponseFully(ch, txHeader.flip(), data, r.window);
            } else {
                writeFully(ch, txHeader.flip());
            }
        } finally {
            clearWrite();
        }
        respLock.lock();
        try {
            r.window = null;
            headTaken = false;
            respHead = (respHead + 1) % RESPONSES;
            respCount--;
            responsesWritten++;
            respNotFull.signal();
        } finally {
            respLock.unlock();
        }
        if (breakAfter) {
            // the peer has its answer: it breaks on it; this side breaks now
            ch.shutdownOutput();
            TcpWire e = ep;
            if (e != null) {
                e.broken();
            }
            writerDone = true; // the reader closes the socket once it sees the writer ended
        }
        return true;
    }

    /**
     * The writer: transmits the local Endpoint's requests that wait, several frames in one
     * gathering write (at most {@link #BATCH_FRAMES} frames; after the first, a frame is taken
     * only while the payload stays within {@link #BATCH_BYTES}): a pipeline of many small frames
     * costs one system call, and one wake-up of the peer, per batch instead of per frame. The
     * payloads are gathered from views of consumer memory, not copied. An RNR rewind while it
     * gathers ends the batch, so the refused send waits for its backoff.
     *
     * @return whether a request was transmitted
     */
    private boolean transmit(SocketChannel ch, TcpWire e) throws IOException {
        Wr.Request[] frames = batch;
        int n = 0;
        int buffers = 0;
        int filled = 0; // the gather slots set, which the finally clears (buffers may be rewound)
        long bytes = 0;
        long gone = -1; // the request whose memory went away while the batch was gathered
        try {
            for (;;) {
                Wr.Request r = frames[n];
                if (n > 0 && backingOff()) {
                    break; // the target refused a send meanwhile: what comes again waits for the backoff
                }
                long seq = n == 0 ? e.nextTransmit(r)
                        : e.nextTransmit(r, gather.length - buffers - 1, BATCH_BYTES - bytes);
                if (seq < 0) {
                    break;
                }
                batchSeq[n] = seq;
                ByteBuffer header = batchHeaders[n];
                encodeRequest(header, r, seq);
                // a header moves no consumer memory: its slot's range is empty, so that a fence
                // never waits for the range an earlier batch's payload left in it
                writerRanges.set(2 * buffers, 0);
                writerRanges.set(2 * buffers + 1, 0);
                gatherFrame[buffers] = n;
                gather[buffers++] = header;
                filled = buffers;
                n++;
                if (r.op != Wr.Request.RDMA_READ) {
                    try {
                        for (int i = 0; i < r.segments; i++) {
                            gatherFrame[buffers] = n - 1;
                            gather[buffers] = publishedSource(buffers, r.lmrs[i], r.offsets[i], r.lengths[i]);
                            buffers++;
                            filled = buffers;
                            bytes += r.lengths[i];
                        }
                    } catch (IllegalStateException | IndexOutOfBoundsException x) {
                        // this frame cannot be sent: the ones gathered before it go, then the connection breaks
                        gone = seq;
                        n--;
                        buffers = firstBufferOf(n, buffers);
                        break;
                    }
                }
                if (n == frames.length || bytes >= BATCH_BYTES || buffers >= gather.length - 1) {
                    break;
                }
            }
            if (buffers > 0) {
                if (n > largestBatch) {
                    largestBatch = n;
                }
                writeGathered(ch, e, buffers);
            }
        } finally {
            for (int i = 0; i < filled; i++) {
                gather[i] = null;
            }
            clearWrites();
            for (int i = 0; i <= n && i < frames.length; i++) {
                frames[i].release(); // the references to LMRs (a request not taken has none)
            }
        }
        if (gone >= 0) {
            throw localMemoryGone(e, gone);
        }
        return n > 0;
    }

    /** The first gathered buffer of frame {@code frame}, among the first {@code buffers}. */
    private int firstBufferOf(int frame, int buffers) {
        int b = buffers;
        while (b > 0 && gatherFrame[b - 1] >= frame) {
            b--;
        }
        return b;
    }

    /**
     * The writer: writes the first {@code buffers} of {@link #gather} in full, with gathering
     * writes; when memory of a frame goes away meanwhile (its arena closed), that frame's request
     * fails and the connection breaks (a frame begun cannot be taken back). ACKs that fall due
     * meanwhile ({@link #responsesDue}) go out between two frames.
     */
    private void writeGathered(SocketChannel ch, TcpWire e, int buffers) throws IOException {
        int first = 0;
        beginWrite();
        try {
            while (first < buffers) {
                // while responses are due, only to the end of the current frame, so that they go
                // out after it and not after the whole batch (the peer's window waits for its ACKs)
                int end = responsesDue ? endOfFrame(first, buffers) : buffers;
                long written;
                writingRequests = true;
                try {
                    // after the volatile store: a flush that looks later waits for this call
                    // (awaitWriteCall), and one that came before is seen here
                    if (!e.connected()) {
                        if (startsFrame(first)) {
                            return; // the requests left were completed FLUSHED: none of them goes
                        }
                        // a frame begun cannot be taken back, and its memory is the consumer's again
                        throw new IOException("the Endpoint disconnected in the middle of a frame");
                    }
                    written = ch.write(gather, first, end - first);
                } catch (IllegalStateException | IndexOutOfBoundsException x) {
                    // the write call is over: said before the Endpoint's lock is taken, for a flush
                    // may hold that lock while it waits for the call to end (awaitWriteCall)
                    writingRequests = false;
                    throw localMemoryGone(e, batchSeq[frameWithMemoryGone(gatherFrame[first], gatherFrame[end - 1])]);
                } finally {
                    writingRequests = false;
                }
                if (written > 0) {
                    progressMark++; // the peer reads
                } else {
                    awaitReady(ch, SelectionKey.OP_WRITE);
                }
                while (first < buffers && !gather[first].hasRemaining()) {
                    first++;
                }
                if (first < buffers && first == end && responsesDue) {
                    writeDueAcks(ch);
                    beginWrite(); // the batch goes on (writeFully ended its own write)
                }
            }
        } finally {
            endWrite();
        }
    }

    /** Whether gathered buffer {@code b} is a frame's header with nothing of the frame written yet. */
    private boolean startsFrame(int b) {
        return (b == 0 || gatherFrame[b - 1] != gatherFrame[b]) && gather[b].position() == 0;
    }

    /**
     * A write call of the writer reads the memory of requests and sends it: a flush waits it out
     * ({@link #awaitWriteCall}), so that no byte of a request goes out once it completed FLUSHED
     * and its buffers are the consumer's again. (An inline writer copies first and checks after,
     * see transmitInline.)
     */
    private volatile boolean writingRequests;

    /**
     * The Endpoint flushes its requests (under its lock, this connection no longer its wire):
     * returns once no write call reads their memory, waiting out at most one non-blocking write.
     * The writer then sends none of the requests left (or breaks the connection, when it is in the
     * middle of a frame).
     */
    void awaitWriteCall() {
        for (int spins = 0; writingRequests; spins++) {
            backOff(spins);
        }
    }

    /** The gathered buffer after the last one of the frame that buffer {@code from} belongs to. */
    private int endOfFrame(int from, int buffers) {
        int frame = gatherFrame[from];
        int end = from + 1;
        while (end < buffers && gatherFrame[end] == frame) {
            end++;
        }
        return end;
    }

    /**
     * The first frame in [{@code from}, {@code to}] of the batch whose local memory went away (its
     * arena closed, its LMR freed): the request that completes with LOCAL_PROTECTION, as in one
     * JVM; {@code from} when none is found (the write failed for the frame it was in).
     */
    private int frameWithMemoryGone(int from, int to) {
        for (int f = from; f <= to; f++) {
            Wr.Request r = batch[f];
            if (r.op == Wr.Request.RDMA_READ) {
                continue;
            }
            for (int i = 0; i < r.segments; i++) {
                SimLmr lmr = r.lmrs[i];
                if (lmr.isFreed() || !lmr.memory().scope().isAlive()) {
                    return f;
                }
            }
        }
        return from;
    }

    /** The most frames one gathering write of the writer carried, for tests and statistics. */
    private volatile int largestBatch;

    int largestBatch() {
        return largestBatch;
    }

    /** The most frames one gathering write of the writer carries. */
    private static final int BATCH_FRAMES = 16;
    /**
     * The bytes of payload after which the writer takes no further frame into a gathering write.
     * Large: beyond the copy, a stream of large frames costs what each write costs, so 1 MiB frames
     * went out 20-30% faster in writes of several frames than in writes of one (dat perf, stop 20);
     * responses that fall due meanwhile go out between the batch's frames (writeGathered).
     */
    private static final long BATCH_BYTES = 16L << 20;
    /** The buffers (headers and payload segments) of one gathering write, when max_iov is smaller. */
    private static final int BATCH_BUFFERS = 64;

    /**
     * Under the write lock: a view of [offset, offset + length) of {@code lmr}, published for
     * {@code dat_lmr_free}'s fence before the LMR is checked (the caller clears it).
     *
     * @throws IllegalStateException when the LMR is freed or its memory gone
     */
    private ByteBuffer publishedSource(SimLmr lmr, long offset, long length) {
        MemorySegment memory = lmr.memory();
        ByteBuffer source = txView.of(memory, offset, length);
        publishWrite(memory, offset, length);
        if (lmr.isFreed()) {
            throw new IllegalStateException("the LMR was freed");
        }
        return source;
    }

    /**
     * The writer, gathering a batch: {@link #publishedSource(SimLmr, long, long)} for gathered
     * buffer {@code index}, with a view and a published range of its own (cleared by {@link #clearWrites}).
     */
    private ByteBuffer publishedSource(int index, SimLmr lmr, long offset, long length) {
        MemorySegment memory = lmr.memory();
        ByteBuffer source = batchViews[index].of(memory, offset, length);
        long from = memory.address() + offset;
        writerRanges.set(2 * index, from);
        writerRanges.set(2 * index + 1, from + length);
        if (writerRangeCount <= index) {
            writerRangeCount = index + 1;
        }
        if (lmr.isFreed()) {
            throw new IllegalStateException("the LMR was freed");
        }
        return source;
    }

    /** The writer, after a batch: no gathered range is published any more. */
    private void clearWrites() {
        writerRangeCount = 0;
    }

    /**
     * A request's local memory went away while it was transmitted (freed, its arena closed): the
     * frame cannot be finished, so the connection breaks, and that request completes with
     * {@code DAT_DTO_ERR_LOCAL_PROTECTION} as in one JVM (the ones behind it flushed).
     *
     * @return the failure the caller throws, which breaks the connection as a failed write does
     */
    private IOException localMemoryGone(TcpWire e, long seq) {
        e.localMemoryGone(seq);
        return new IOException("the local memory of request " + seq + " went away while it was transmitted");
    }

    /** The header of request {@code r} into {@code header}, ready to write. */
    private static void encodeRequest(ByteBuffer header, Wr.Request r, long seq) {
        header.clear();
        switch (r.op) {
            case Wr.Request.SEND -> TcpFrame.encode(header, TcpFrame.SEND, r.total, 0,
                    ((r.flags & dat.api.CompletionFlags.SOLICITED_WAIT) != 0 ? TcpFrame.SOLICITED : 0) | deferrable(r), seq, 0);
            case Wr.Request.RDMA_WRITE -> TcpFrame.encode(header, TcpFrame.RDMA_WRITE, r.total, r.remoteContext, deferrable(r), seq,
                    r.remoteAddress);
            default -> TcpFrame.encode(header, TcpFrame.RDMA_READ_REQUEST, 0, r.remoteContext, (int) r.remoteLength, seq,
                    r.remoteAddress);
        }
        header.flip();
    }

    private static int deferrable(Wr.Request r) {
        return r.ackDeferrable ? TcpFrame.ACK_DEFERRABLE : 0;
    }

    private void publishRead(MemorySegment memory, long offset, long length) {
        readerFrom = memory.address() + offset;
        readerTo = memory.address() + offset + length;
    }

    private void clearRead() {
        readerTo = 0;
        readerFrom = 0;
    }

    private void publishWrite(MemorySegment memory, long offset, long length) {
        writerFrom = memory.address() + offset;
        writerTo = memory.address() + offset + length;
    }

    private void clearWrite() {
        writerTo = 0;
        writerFrom = 0;
    }

    private static boolean overlaps(long to, long from, long start, long end) {
        return to != 0 && from < end && start < to;
    }

    /** Whether a range of the writer's batch overlaps [start, end) (see {@link #writerRanges}). */
    private boolean gatheredOverlap(long start, long end) {
        int n = writerRangeCount; // first: the writer raised it after it had the array
        AtomicLongArray ranges = writerRanges;
        if (n == 0 || ranges == null) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (overlaps(ranges.get(2 * i + 1), ranges.get(2 * i), start, end)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Returns once neither thread of this connection moves bytes of [start, end): the LMR over it
     * was freed (its freed flag is set before this is called). The reader lands bytes in consumer
     * memory only in copies that check the LMR or window first ({@link #landIntoConsumer},
     * {@link #landIntoWindow}), so its copy in progress is all there is to wait for: a frame that
     * lands through another registration of the same memory goes on. The writer's frames are
     * waited for whole; one that does not finish within 50 ms (a peer stalled mid-frame) is cut
     * off by closing the connection, as a verbs QP fails an access to a deregistered region.
     */
    void fence(long start, long end) {
        long began = System.nanoTime();
        boolean cut = false;
        // read "to" before "from": a thread publishes "from" first and clears "to" first
        while ((landing.get() == LANDING_COPYING && overlaps(readerTo, readerFrom, start, end))
                || overlaps(writerTo, writerFrom, start, end) || gatheredOverlap(start, end)) {
            long waited = System.nanoTime() - began;
            if (!cut && waited > FENCE_PATIENCE_NANOS) {
                cut = true;
                close();
            } else if (waited > 100 * FENCE_PATIENCE_NANOS) {
                LOG.warning("sim TCP connection " + describe() + " still moves bytes of a freed LMR after 5 s");
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(20_000);
        }
        dropViews();
    }

    private static final long FENCE_PATIENCE_NANOS = 50_000_000L;

    /** An LMR was freed: the views of consumer memory that each role caches go (see {@link #dropViews}). */
    private volatile boolean writeViewsStale;
    private volatile boolean readViewsStale;

    /**
     * After a fence: drops the cached views of consumer memory, so that a connection keeps no
     * freed memory reachable (an automatic arena's memory is reclaimed only once nothing refers
     * to it). A role busy now drops its views at its next safe point, before it makes new ones.
     */
    private void dropViews() {
        writeViewsStale = true;
        readViewsStale = true;
        dropWriteViewsUnlessTaken();
        dropReadViewsUnlessTaken();
    }

    /**
     * Releases the read role; if a free marked the views stale meanwhile (its {@link #dropViews}
     * found the role taken, and this holder may have passed its safe point before the mark), drops
     * them now: otherwise a connection that goes quiet would keep them until its next frame.
     */
    void releaseReadRole() {
        unlockReadRole();
        dropReadViewsUnlessTaken();
    }

    /** Lets go of the read role, and wakes a consumer that could not take it meanwhile. */
    private void unlockReadRole() {
        readRole.unlock();
        SimEvd refused = refusedDriver;
        if (refused != null) {
            refusedDriver = null;
            refused.wakeWaiter();
        }
    }

    /**
     * A consumer's EVD whose waiter could not take the read role ({@link #drive}): woken when the
     * role is let go, it takes the role then, rather than parking until an event for the rest of
     * its wait (a long wait would otherwise never read the connection itself).
     */
    private volatile SimEvd refusedDriver;

    /** Releases the write lock, as {@link #releaseReadRole} the read role (package-private: tests hold the lock as a writer would). */
    void releaseWriteLock() {
        writeLock.unlock();
        dropWriteViewsUnlessTaken();
    }

    /**
     * Drops the read views if they are stale and the role is free; a thread that takes the role
     * meanwhile drops them as it releases it (the loop looks again after its own release).
     */
    private void dropReadViewsUnlessTaken() {
        while (readViewsStale && !readRole.isHeldByCurrentThread() && readRole.tryLock()) {
            try {
                dropReadViewsIfStale();
            } finally {
                unlockReadRole();
            }
        }
    }

    /** As {@link #dropReadViewsUnlessTaken}, the write views under the write lock. */
    private void dropWriteViewsUnlessTaken() {
        while (writeViewsStale && !writeLock.isHeldByCurrentThread() && writeLock.tryLock()) {
            try {
                dropWriteViewsIfStale();
            } finally {
                writeLock.unlock();
            }
        }
    }

    /** Under the write lock, before a write that may use consumer memory. */
    private void dropWriteViewsIfStale() {
        if (writeViewsStale) {
            writeViewsStale = false;
            txView.forget();
            MemoryView[] views = batchViews;
            if (views != null) {
                for (MemoryView v : views) {
                    if (v != null) { // an array being allocated, before ep is published, may look unfilled
                        v.forget();
                    }
                }
            }
        }
    }

    /** With the read role, before frames are handled. */
    private void dropReadViewsIfStale() {
        if (readViewsStale) {
            readViewsStale = false;
            rxView.forget();
        }
    }

    /** A read response's header and payload, for {@link #writeResponseFully}'s gathering writes. */
    private final ByteBuffer[] headerAndPayload = new ByteBuffer[2];

    /**
     * A read response's header and bytes, each write call checking first that the window is
     * still valid (see {@link #awaitCopiesThrough}): once a revocation returns, no more of its
     * bytes go out. A response begun cannot be taken back, so one whose window goes meanwhile
     * breaks the connection (IllegalStateException, as memory gone mid-frame does).
     */
    private void writeResponseFully(SocketChannel ch, ByteBuffer header, ByteBuffer payload, RemoteWindow w) throws IOException {
        headerAndPayload[0] = header;
        headerAndPayload[1] = payload;
        beginWrite();
        try {
            while (header.hasRemaining() || payload.hasRemaining()) {
                long n;
                respondingFrom = w;
                try {
                    // after the volatile store: a revocation that looks later waits for this call
                    if (!w.windowValid()) {
                        throw new IllegalStateException("the window was revoked while a read response was sent from it");
                    }
                    n = ch.write(headerAndPayload);
                } finally {
                    respondingFrom = null;
                }
                if (n > 0) {
                    progressMark++; // the peer reads
                } else {
                    awaitReady(ch, SelectionKey.OP_WRITE);
                }
            }
        } finally {
            headerAndPayload[0] = null;
            headerAndPayload[1] = null;
            endWrite();
        }
    }

    /** A blocking write begins: its start counts as progress (before it shows as in progress, see checkLiveness). */
    private void beginWrite() {
        progressMark++;
        writing = true;
    }

    private void endWrite() {
        writing = false;
        writeMark++;
    }

    private void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        beginWrite();
        try {
            while (b.hasRemaining()) {
                if (ch.write(b) > 0) {
                    progressMark++; // the peer reads
                } else {
                    awaitReady(ch, SelectionKey.OP_WRITE);
                }
            }
        } finally {
            endWrite();
        }
    }

    /**
     * Called by the transport's watchdog. Breaks the connection when the peer showed no life for
     * the timeout: a write stuck that long (the peer stopped reading), or no frame read that long
     * while this side waits for an answer or has sent keepalives (a half-open connection, a peer
     * that vanished without a FIN or RST); sends a NOP when this side was quiet for a third of it.
     * A sign of life is timed from a clock read after the call saw its mark change (not from
     * {@code now}, which the sweep read before it: a mark that changed since is younger): a break
     * comes up to two periods of the watchdog (a quarter of the timeout, for timeouts of 8 ms and
     * more) after the timeout, never before it.
     */
    void checkLiveness(long now, long timeout) {
        // writing before the marks: a write begins with progress, so a write seen in progress has
        // that progress seen too, and is not timed from an older one
        boolean busy = writing;
        long mark = readMark;
        if (mark != seenRead) {
            seenRead = mark;
            readSeenAt = System.nanoTime();
        }
        mark = writeMark;
        if (mark != seenWrite) {
            seenWrite = mark;
            writeSeenAt = System.nanoTime();
        }
        mark = progressMark;
        if (mark != seenProgress) {
            seenProgress = mark;
            progressSeenAt = System.nanoTime();
        }
        TcpWire e = ep;
        if (!closed && e == null && attempt == null && now - openedAt > timeout) {
            // an accepted socket whose connection request has not come whole within the timeout
            // of its acceptance: its thread is not left to wait for one forever, nor for one that
            // trickles in a byte at a time (bytes alone would prove it alive)
            protocolEnd("no CONNECT_REQUEST within " + timeout / 1_000_000 + " ms");
            close();
            return;
        }
        if (finQueued) {
            // this side said its last (DISCONNECT, REJECT): the peer has the timeout to close
            // its side too; one that vanished or stays silent must not keep the thread and socket
            if (finSeenAt == 0) {
                finSeenAt = System.nanoTime();
            } else if (!closed && now - finSeenAt > timeout && now - readSeenAt > timeout) {
                close();
            }
            return;
        }
        if (closed || e == null) {
            return;
        }
        if (busy && now - progressSeenAt > timeout) {
            protocolEnd("no write progress for " + timeout / 1_000_000 + " ms: the peer stopped reading");
            lost(EventNumber.CONNECTION_EVENT_BROKEN);
            return;
        }
        if (now - readSeenAt > timeout) {
            protocolEnd("nothing read for " + timeout / 1_000_000 + " ms: the peer is gone");
            lost(EventNumber.CONNECTION_EVENT_BROKEN);
            return;
        }
        if (now - writeSeenAt > timeout / 3 && !busy) {
            enqueue(NOP_FRAME.duplicate());
        }
    }

    /**
     * The connection ended: the local Endpoint, if still on it, gets the event. A broken one is
     * closed without a word to the peer, which sees it broken too, not disconnected (the
     * Endpoint's disconnect would otherwise queue a DISCONNECT that a live writer thread might
     * send before the close, when another thread breaks the connection).
     */
    private void lost(int eventNumber) {
        if (eventNumber == EventNumber.CONNECTION_EVENT_BROKEN) {
            breaking = true;
        }
        SimProvider provider = transport.adapter().provider;
        TcpWire e;
        provider.cmLock.lock();
        try {
            e = ep;
        } finally {
            provider.cmLock.unlock();
        }
        if (e != null) {
            e.lost(eventNumber);
        }
        close();
    }

    /** The local Endpoint disconnects: tell the peer and half-close. */
    void disconnect() {
        if (!closed && !breaking) {
            markEnd();
            enqueue(frame(TcpFrame.DISCONNECT, 0, 0, 0, 0, 0, null));
            queueFin();
        }
    }

    /**
     * Responses queued so far go out before this side's end (see writeOne), and the one the
     * reader owes for a receive it completed and has not queued yet. Never blocks for long.
     */
    private void markEnd() {
        respLock.lock();
        try {
            responsesBeforeEnd = responsesQueued + (responseOwed ? 1 : 0);
        } finally {
            respLock.unlock();
        }
    }

    /**
     * The reader's Endpoint, under its lock, as it completes a receive the reader took: the
     * answer to its send (an ACK, or a refusal) follows, and must go before an end this side
     * queues meanwhile, as a receive and its send complete together in one JVM.
     */
    void responseOwed() {
        responseOwed = true;
    }

    /**
     * See {@link #responseOwed()}: set under the Endpoint's lock, read by markEnd under it too;
     * cleared as the response is queued. Not volatile (a full fence per message on this path cost
     * the one-CPU ping-pong): a stale {@code true} only lets one more response go before the end.
     */
    private boolean responseOwed;

    /** Responses ever queued in the ring (merges not counted). Guarded by {@link #respLock}. */
    private long responsesQueued;
    /** Responses taken off the ring once written. Guarded by {@link #respLock}; the writer reads it under the write lock. */
    private long responsesWritten;
    /** {@link #responsesQueued} when this side's DISCONNECT or break was queued. */
    private volatile long responsesBeforeEnd;

    /**
     * The local Endpoint breaks the connection (a hard receive watermark crossed, an access error
     * reported to it): half-close without a DISCONNECT, so that the peer, which finds the stream
     * ended without one, sees the connection broken, as the in-JVM peer does. Never blocks (under
     * the Endpoint's lock).
     */
    void breakOff() {
        if (!closed && !breaking) {
            breaking = true;
            markEnd();
            queueFin();
        }
    }

    /**
     * A connection-management frame (CONNECT_REQUEST, ACCEPT, READY_TO_USE): written by the calling
     * thread with one non-blocking write when the output is idle, so that the setup's next step does
     * not wait for the writer thread to wake (20-40 us each here); else, or for what the socket did
     * not take, left to the writer. Never blocks.
     */
    private void sendControl(ByteBuffer frame) {
        if (writeLock.tryLock()) {
            try {
                if (outputIdle()) {
                    channel.write(frame);
                    writeMark++;
                    if (frame.hasRemaining()) {
                        pending = frame; // the writer finishes it
                        kick();
                    }
                    return;
                }
            } catch (IOException e) {
                // queued instead: the writer meets the failure and ends the connection
            } finally {
                releaseWriteLock();
            }
        }
        enqueue(frame);
    }

    private void queueFin() {
        finQueued = true;
        enqueue(FIN);
    }

    private void enqueue(ByteBuffer b) {
        outbound.add(b);
        kick();
    }

    /**
     * The initiator side, under the Endpoint's lock: fewer requests are in flight than make the
     * target send the ACKs it holds for deferrable ones; the writer sends an ACK_REQUEST.
     */
    void requestAcks() {
        ackRequestDue = true;
        kick();
    }

    /** An ACK_REQUEST waits for the writer (see {@link #requestAcks}). */
    private volatile boolean ackRequestDue;

    /** Wakes the writer: requests to transmit, a response or a CM frame to send. */
    void kick() {
        kicked = true;
        ConnectionThreads.Task w = writerTask;
        if (w != null) {
            w.unpark();
        }
    }

    /**
     * The initiator side, under the Endpoint's lock: the peer refused the head send as receiver
     * not ready; the Endpoint rewound its requests, the writer sends them again after a backoff,
     * which doubles while the same send is refused again (ACKs may come late: they are lazy).
     */
    void notReady(long seq) {
        if (seq != rnrSeq) {
            rnrSeq = seq;
            rnrBackoffNanos = RNR_MIN_BACKOFF_NANOS;
        }
        long backoff = rnrBackoffNanos;
        rnrBackoffNanos = Math.min(backoff * 2, RNR_MAX_BACKOFF_NANOS);
        long at = System.nanoTime() + backoff;
        retryAt = at == NO_BACKOFF ? at + 1 : at;
        kick();
    }

    /**
     * Whether an RNR backoff runs. The clock is read only while one may: once it is over the mark
     * is cleared (unless a newer RNR set another meanwhile), so requests posted after it read none.
     */
    private boolean backingOff() {
        long at = retryAt;
        if (at == NO_BACKOFF) {
            return false;
        }
        if (at - System.nanoTime() > 0) {
            return true;
        }
        RETRY_AT.compareAndSet(this, at, NO_BACKOFF);
        return false;
    }

    /** The initiator side: a request was acknowledged; the next RNR starts from the shortest backoff. */
    void acknowledged() {
        rnrBackoffNanos = RNR_MIN_BACKOFF_NANOS;
    }

    private void protocolEnd(String reason) {
        if (reason == null) {
            return; // the peer closed between frames: no violation
        }
        transport.violations.incrementAndGet();
        if (LOG.isLoggable(Level.FINE)) {
            LOG.fine("sim TCP connection " + describe() + " ended: " + reason);
        }
    }

    private String describe() {
        SocketChannel ch = channel;
        try {
            return ch == null ? "(unconnected)" : ch.getLocalAddress() + " <-> " + ch.getRemoteAddress();
        } catch (IOException e) {
            return "(closed)";
        }
    }

    /** Reads a CM frame's payload (its length was checked against SimLimits.MAX_PRIVATE_DATA, plus the attributes of a CONNECT_REQUEST). */
    private byte[] readPrivateData(ReadableByteChannel ch) throws IOException {
        byte[] pd = new byte[(int) reader.frame.payloadLength];
        return reader.readPayloadFully(ch, ByteBuffer.wrap(pd)) ? pd : null;
    }

    /** A whole CM frame as one buffer (the control path may allocate). */
    private static ByteBuffer frame(int op, int len, int ctx, int aux, long seq, long addr, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(TcpFrame.HEADER_BYTES + len).order(ByteOrder.BIG_ENDIAN);
        TcpFrame.encode(b, op, len, ctx, aux, seq, addr);
        if (payload != null) {
            b.put(payload, 0, len);
        }
        return b.flip();
    }

    private void startWriter() {
        writerTask = task("dat-sim-tcp-writer", this::writeLoop);
        start(writerTask);
    }

    /**
     * Set by every {@link #kick}, cleared by the writer before it looks for work, and checked
     * before it parks: a kick whose unpark permit was taken by another wait of the writer thread
     * (a lock it queued for) is not lost.
     */
    private volatile boolean kicked;

    private static final int IDLE = 0;
    private static final int WROTE = 1;
    private static final int END = 2;
    /** Nothing written: requests wait for an RNR backoff to end (at {@link #retryAt}). */
    private static final int BACKING_OFF = 3;

    private void writeLoop() {
        SocketChannel ch = channel;
        try {
            while (!closed) {
                kicked = false;
                int done = writeOne(ch);
                if (done == END) {
                    return;
                }
                if (done == WROTE || kicked) {
                    continue;
                }
                if (done == BACKING_OFF) {
                    // never an untimed park here: the backoff may have ended since writeOne looked
                    // (50 us is less than a preemption), and then no kick would ever come
                    long at = retryAt;
                    long wait = at == NO_BACKOFF ? 0 : at - System.nanoTime();
                    if (wait > 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(this, wait);
                    }
                    continue;
                }
                java.util.concurrent.locks.LockSupport.park(this);
            }
        } catch (IOException e) {
            // the peer is gone or stopped reading until the socket was closed: the connection ends
            // (the reader, maybe blocked on a full response ring, must not wait for this writer)
            if (!closed) {
                lost(EventNumber.CONNECTION_EVENT_BROKEN);
            }
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            // a source's memory went away (arena closed, request flushed under us): the connection breaks
            TcpWire ep0 = ep;
            if (ep0 != null) {
                ep0.broken();
            }
            close();
        } catch (RuntimeException e) {
            unexpected(e);
            if (!closed) {
                lost(EventNumber.CONNECTION_EVENT_BROKEN);
            }
        } finally {
            closeSelectors(false);
        }
    }

    /**
     * A reader or writer task, or a consumer driving the reads, met an exception no frame or peer
     * should cause (a defect): it is logged, and the connection breaks, so that its Endpoint sees
     * BROKEN and its DTOs complete instead of waiting for a thread that has ended (and so a
     * failure to log it must not stop that either).
     */
    private void unexpected(Throwable e) {
        TcpTransport.logQuietly(LOG, Level.WARNING, "dat.provider.sim: " + describe() + " breaks on an unexpected exception", e);
    }

    /**
     * The writer: one write, in this order: what an inline write left unfinished, a CM frame,
     * responses, an ACK_REQUEST, the local Endpoint's next requests (a gathered batch, with the ACKs
     * that fall due while it is written between its frames).
     *
     * @return {@link #WROTE}, {@link #IDLE} (nothing to write now), {@link #BACKING_OFF} or {@link #END} (the output is done)
     */
    private int writeOne(SocketChannel ch) throws IOException {
        writeLock.lock();
        try {
            dropWriteViewsIfStale();
            if (pending != null) {
                finishPending(ch);
                return WROTE;
            }
            // the Endpoint read before the queue: it is published after READY_TO_USE was queued
            // (established), so a writer that transmits its requests has seen that frame first
            TcpWire e = ep;
            // the responses queued before this side's end first: an ACK held in the ring answers a
            // request the reader handled (a receive completed SUCCESS), and must reach the peer
            // before the DISCONNECT or the break's FIN, or the peer flushes a send its target
            // delivered. Not those queued after (refusals of frames that came after the end)
            if (responsesWritten < responsesBeforeEnd && writeResponse(ch)) {
                return writerDone ? END : WROTE;
            }
            // polled under the lock: an inline writer that finds the queue empty finds nothing
            // in the middle of being written either (READY_TO_USE must precede every request)
            ByteBuffer b = outbound.poll();
            if (b == FIN) {
                ch.shutdownOutput();
                return END;
            }
            if (b != null) {
                writeFully(ch, b);
                return WROTE;
            }
            if (writeResponse(ch)) {
                return writerDone ? END : WROTE;
            }
            if (ackRequestDue) {
                // after every request already written, the deferrable one the ACKs are held for included
                ackRequestDue = false;
                txHeader.clear();
                TcpFrame.encode(txHeader, TcpFrame.ACK_REQUEST, 0, 0, 0, 0, 0);
                writeFully(ch, txHeader.flip());
                return WROTE;
            }
            if (e == null) {
                return IDLE;
            }
            if (backingOff()) {
                return BACKING_OFF;
            }
            return transmit(ch, e) ? WROTE : IDLE;
        } finally {
            releaseWriteLock();
        }
    }

    /** The writer, under the write lock: finishes the frame an inline write began. */
    private void finishPending(SocketChannel ch) throws IOException {
        try {
            writeFully(ch, pending);
        } finally {
            pending = null;
        }
    }

    /**
     * A posting thread, right after it queued a request that is its Endpoint's only one not yet
     * on the wire: writes it itself when the output is idle and the frame is small (one segment,
     * at most {@link #INLINE_BYTES}), with one non-blocking write; else, or for what the socket
     * did not take, wakes the writer. Never blocks and never throws: a failed write breaks the
     * connection, as the writer's would.
     */
    void transmitInline(TcpWire e) {
        if (backingOff() || !writeLock.tryLock()) {
            kick(); // an RNR backoff runs, or the writer (or another inline writer) is at work
            return;
        }
        boolean wake = true;
        IOException failed = null;
        boolean memoryGone = false;
        try {
            dropWriteViewsIfStale();
            if (!outputIdle() || ep != e) {
                return;
            }
            // the ACK due to the peer (a ping-pong has one: for the message this one answers)
            // goes in the same write as the request, so the peer wakes once for both
            ByteBuffer ack = takeHeadAck(true);
            if (ack == null && !flushAcksInline()) {
                return; // the responses ahead go first, from the writer
            }
            long seq = e.nextTransmit(tx, 1, INLINE_BYTES);
            if (seq < 0) {
                wake = seq == TcpWire.TOO_LARGE;
                if (ack != null && !writeAckInline(ack)) {
                    wake = true; // the writer finishes the ACK
                }
                return;
            }
            Wr.Request r = tx;
            encodeRequest(txHeader, r, seq);
            // the ACK, the header and the payload copied into one buffer of the connection's: one
            // write, consumer memory no longer needed once copied (a free may proceed), and no
            // view of it in a gathering write (the JDK allocates a releaser for each such view)
            boolean hasPayload = r.op != Wr.Request.RDMA_READ && r.segments == 1;
            ByteBuffer frame = inlineFrame((ack != null ? TcpFrame.HEADER_BYTES : 0) + TcpFrame.HEADER_BYTES + (hasPayload ? r.lengths[0] : 0));
            if (ack != null) {
                frame.put(ack);
            }
            int ackEnd = frame.position();
            frame.put(txHeader);
            if (hasPayload) {
                try {
                    frame.put(publishedSource(r.lmrs[0], r.offsets[0], r.lengths[0]));
                } catch (IllegalStateException | IndexOutOfBoundsException x) {
                    throw localMemoryGone(e, seq);
                } finally {
                    clearWrite();
                }
            }
            r.release();
            // a flush since nextTransmit completed this request FLUSHED, and its buffer may hold
            // the consumer's new bytes by now: the copy goes nowhere (reading it did no harm; a
            // copy that saw new bytes sees the flush too, whose store came before them)
            VarHandle.loadLoadFence();
            if (!e.connected()) {
                frame.position(ackEnd); // the ACK alone, if one was taken
            }
            frame.flip();
            channel.write(frame);
            writeMark++;
            if (frame.hasRemaining()) {
                pending = frame; // the writer finishes it
                return;
            }
            wake = e.untransmitted(); // posted meanwhile, by a thread that found the lock taken
        } catch (IOException x) {
            failed = x;
        } catch (IllegalStateException | IndexOutOfBoundsException x) {
            memoryGone = true;
        } finally {
            releaseWriteLock();
            if (failed == null && !memoryGone && wake) {
                kick();
            }
        }
        if (failed != null && !closed) {
            lost(EventNumber.CONNECTION_EVENT_BROKEN); // the peer is gone: as the writer would
        } else if (memoryGone) {
            e.broken();
            close();
        }
    }


    /** The inline frame buffer, cleared, of at least {@code bytes}; grown (rarely: by powers of two) when smaller. */
    private ByteBuffer inlineFrame(long bytes) {
        ByteBuffer b = inlineFrame;
        if (b == null || b.capacity() < bytes) {
            b = ByteBuffer.allocateDirect(Math.max(4096, Integer.highestOneBit((int) bytes - 1) << 1));
            inlineFrame = b;
        }
        return b.clear();
    }

    /**
     * An inline writer, under the write lock: takes the head response off the ring when it is a
     * bare ACK (and, with {@code alone}, the only response queued), encoded into {@link #ackHeader}
     * for the caller to write.
     *
     * @return the encoded ACK, or {@code null}: none queued, or a response that is not a bare ACK
     *     (an RDMA read response, a refusal: the writer's) at the head, or others behind it
     */
    private ByteBuffer takeHeadAck(boolean alone) {
        long seq;
        int status;
        respLock.lock();
        try {
            if (respCount == 0 || alone && respCount != 1) {
                return null;
            }
            Response r = responses[respHead];
            if (r.op != TcpFrame.ACK || r.breakAfter) {
                return null;
            }
            seq = r.seq;
            status = r.status;
            // taken off the ring now: it is written next, and no later ACK may merge into it
            r.window = null;
            respHead = (respHead + 1) % RESPONSES;
            respCount--;
            responsesWritten++;
            respNotFull.signal();
        } finally {
            respLock.unlock();
        }
        return encodeAck(seq, status);
    }

    /**
     * An inline writer, under the write lock, before its own frame: writes the ACKs queued for the
     * writer first, so that they are never starved by requests written inline (the writer thread
     * may wait long for a CPU while a ping-pong runs on inline writes alone), and go out before any
     * later request of this side, as they would from the writer. Stops at a response that is not
     * a bare ACK: those are the writer's.
     *
     * @return whether the ring is empty and nothing is left unfinished; else the caller leaves
     *     its frame to the writer too (after a kick)
     */
    private boolean flushAcksInline() throws IOException {
        for (;;) {
            ByteBuffer ack = takeHeadAck(false);
            if (ack == null) {
                return !hasResponses();
            }
            if (!writeAckInline(ack)) {
                return false;
            }
        }
    }

    /**
     * An inline writer, under the write lock: one ACK (encoded in {@link #ackHeader}) with one
     * non-blocking write; what the socket does not take is left pending, for the writer to finish.
     *
     * @return whether it went out whole
     */
    private boolean writeAckInline(ByteBuffer ack) throws IOException {
        channel.write(ack);
        writeMark++;
        if (ack.hasRemaining()) {
            pending = ack;
            return false;
        }
        return true;
    }

    private ByteBuffer encodeAck(long seq, int status) {
        ackHeader.clear();
        TcpFrame.encode(ackHeader, TcpFrame.ACK, 0, 0, status, seq, 0);
        return ackHeader.flip();
    }

    /** Under the write lock: whether an inline writer may write now (open, nothing unfinished or queued before it). */
    private boolean outputIdle() {
        return !closed && pending == null && outbound.isEmpty();
    }

    /**
     * The reader: writes an ACK itself when the output is idle (nothing queued, no response ahead
     * of it), with one non-blocking write.
     *
     * @return whether it was written (or begun, for the writer to finish); {@code false}: queue it
     */
    private boolean respondInline(long seq, int status) {
        if (!writeLock.tryLock()) {
            return false;
        }
        try {
            if (finQueued || !outputIdle() || !flushAcksInline()) {
                return false; // responses go out in order: this one is queued behind the others
            }
            if (!writeAckInline(encodeAck(seq, status))) {
                kick(); // the writer finishes it
            }
            return true;
        } catch (IOException x) {
            return false; // queued instead: the writer meets the failure and ends the connection
        } finally {
            releaseWriteLock();
        }
    }

    /**
     * Tasks of this connection still running, each on a platform thread of the transport's
     * {@link ConnectionThreads} (kept for the next connection once the task ends). Platform
     * threads: a message crosses a reader and a writer on each side, and a virtual thread blocked
     * on a socket waits for the JDK's poller to wake it, which doubled the round trip (dat perf
     * --client: 8 B half round trip 87 us on virtual threads, 39 us on platform threads, same
     * machine). The transport keeps the connection until they have ended, not just until it is
     * closed: a task that was closed in the middle of a socket call may still hold consumer memory,
     * and the provider's shutdown joins it.
     */
    private final java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * One of the connection's tasks, to be published in its field before {@link #start}: a close
     * that comes as the task begins must find it (to interrupt or unpark it), or the writer could
     * park for good.
     */
    private ConnectionThreads.Task task(String name, Runnable body) {
        return new ConnectionThreads.Task(name, () -> {
            try {
                body.run();
            } catch (Error e) {
                // a StackOverflowError, an OutOfMemoryError: the tasks catch exceptions only, and
                // the Endpoint must not stay connected on the connection this closes
                lost(EventNumber.CONNECTION_EVENT_BROKEN);
                throw e;
            } finally {
                taskEnded();
            }
        });
    }

    private void taskEnded() {
        if (running.decrementAndGet() == 0 && closed) {
            transport.connections.remove(this);
        }
    }

    private void start(ConnectionThreads.Task task) {
        running.incrementAndGet();
        try {
            transport.threads.start(task);
        } catch (RuntimeException | Error e) {
            close(); // no thread for it: the connection ends here
            taskEnded();
            throw e;
        }
    }

    /** Closes the socket (idempotent); both threads end. */
    void close() {
        SocketChannel ch;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            ch = channel;
        }
        if (running.get() == 0) {
            transport.connections.remove(this);
        }
        TcpWire fed = ep;
        if (fed != null) {
            // the EVDs it fed would otherwise keep it, its Endpoint and its buffers until their next wait
            forget(fed.endpoint().recvEvd());
            forget(fed.endpoint().requestEvd());
        }
        respLock.lock();
        try {
            respNotFull.signalAll(); // a reader waiting for ring space ends
        } finally {
            respLock.unlock();
        }
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        synchronized (selectorLock) {
            // a thread waiting for readiness wakes, finds the connection closed and ends
            if (readSelector != null) {
                readSelector.wakeup();
            }
            if (writeSelector != null) {
                writeSelector.wakeup();
            }
            if (driveSelector != null) {
                driveSelector.wakeup();
            }
        }
        ConnectionThreads.Task r = readerTask;
        if (r != null) {
            r.unpark(); // parked while a consumer drove
        }
        ConnectionThreads.Task w = writerTask;
        if (w != null) {
            w.interrupt();
        }
    }

    boolean join(long millis) throws InterruptedException {
        ConnectionThreads.Task r = readerTask;
        ConnectionThreads.Task w = writerTask;
        if (r != null && !r.join(millis)) {
            return false;
        }
        if (w != null && !w.join(millis)) {
            return false;
        }
        // a consumer that was reading the connection (drive) may still be inside a frame
        if (!readRole.tryLock(millis, java.util.concurrent.TimeUnit.MILLISECONDS)) {
            return false;
        }
        unlockReadRole();
        return true;
    }
}
