package dat.shell.internal.perf;

import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.IaAttributes;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.RmrTriplet;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * The far side of {@code dat perf --client} ({@code dat perf IA --server}): a PSP on
 * {@link #QUALIFIER} of the IA (or another), and a raw NIO TCP server (the baselines) on the IA's host at
 * {@link #NIO_PORT} (or another, or any free port). Each DAT connection says in its private data ({@link Request}) what the server
 * does: echo every message back ({@link #ECHO}, the ping-pong) or nothing ({@link #QUIET}: RDMA
 * writes into the server's buffer, whose RMR triplet the accept's private data carries
 * ({@link Accept}); connection setup), and the depth of the client's queues, which the server's
 * Endpoint takes for its own. Each
 * NIO connection says it in its first bytes ({@link #NIO_HEAD_BYTES}): echo ({@code 'P'}), drain
 * ({@code 'R'}) or drain framed messages ({@code 'M'}: each chunk behind a header of
 * {@link #FRAME_HEADER_BYTES}, read on its own, the chunk then read into a slot of its own, as the
 * sim provider's TCP target does; {@code 'S'}: the same from a non-blocking channel that waits in
 * a {@link Selector}, as that target does too), the message size, and how much memory the
 * client's side of the stream cycles over (the server reads into as much, in turn: the same bytes
 * as the RDMA writes it is compared with). A draining connection answers with its stream's number; a control
 * connection ({@code 'C'}, the number in place of the size) then asks, round after round, for
 * the moment the server holds a given count of the stream's bytes: the stream stays open for all
 * rounds of a size, as the RDMA writes' connection does. A connection of mode {@code 'H'} (the
 * length of a file's name in place of the size) runs the raw shared-memory spin ping-pong of
 * {@link ShmSpin} with a client of this host. A client that sends anything else is
 * closed at once, and fails, rather than read a stream number as its byte count. The server waits in blocking
 * calls (or, for {@code 'S'}, in its selector), never spins: on a machine of few cores the client's
 * and the server's threads share them.
 */
final class PerfServer implements AutoCloseable {

    /** The connection qualifier of the server's PSP. */
    static final long QUALIFIER = 7702;
    /** The port of the NIO baseline server, on the IA's host. */
    static final int NIO_PORT = 7703;
    /** Bytes of the server's registered buffer. */
    static final long BUFFER = 16L << 20;
    /**
     * The queue depth of a client that sends none (one from before the request carried it), and
     * {@code --depth}'s default in one JVM.
     */
    static final int DEFAULT_DEPTH = 32;
    /**
     * {@code --depth}'s default with {@code --client}: the RDMA write window between two processes,
     * as perftest's {@code ib_write_bw} keeps 128 writes in flight. The window must cover a round
     * trip to the peer's thread and back (its wake-ups included) for the stream not to wait on
     * acknowledgements; in one JVM a deeper window only spreads the copies over more cache.
     */
    static final int CLIENT_DEPTH = 128;

    static final byte ECHO = 'E';
    static final byte QUIET = 'Q';
    /** A NIO baseline connection's first bytes: mode, message size, the client's memory footprint. */
    static final int NIO_HEAD_BYTES = 1 + 4 + 4;
    /** The header before each chunk of a framed NIO stream: as large as a sim TCP frame's header. */
    static final int FRAME_HEADER_BYTES = 32;

    /**
     * A connection request's private data: mode, message size, then the client's queue depth. The
     * depth comes last so that a server from before it reads the mode and size where they always
     * were (and ignores the rest), and a request without it is one from an older client, served
     * {@link #DEFAULT_DEPTH}.
     *
     * @param mode {@link #ECHO} or {@link #QUIET}
     * @param size the message size
     * @param depth outstanding operations per queue the client asks for, at least 1
     */
    record Request(byte mode, long size, int depth) {
        /** mode, message size: all a client sent before the depth. */
        static final int BYTES_WITHOUT_DEPTH = 1 + 8;
        static final int BYTES = BYTES_WITHOUT_DEPTH + 4;

        byte[] encode() {
            return ByteBuffer.allocate(BYTES).order(ByteOrder.BIG_ENDIAN).put(mode).putLong(size).putInt(depth).array();
        }

        /** @return the request, or {@code null} when {@code data} is none of a dat perf client's */
        static Request decode(byte[] data) {
            if (data == null || data.length < BYTES_WITHOUT_DEPTH) {
                return null;
            }
            ByteBuffer in = ByteBuffer.wrap(data).order(ByteOrder.BIG_ENDIAN);
            byte mode = in.get();
            long size = in.getLong();
            int depth = data.length >= BYTES ? in.getInt() : DEFAULT_DEPTH;
            return depth > 0 ? new Request(mode, size, depth) : null;
        }
    }

    /**
     * An accept's private data: the RMR triplet of the server's buffer, the NIO port, then the depth
     * the server's Endpoint took. The depth comes last so that a client from before it reads the
     * rest where it always was, and an accept without it is one from an older server, which
     * serves {@link #DEFAULT_DEPTH} whatever the client asks.
     *
     * @param buffer the server's buffer, the target of RDMA writes
     * @param nioPort the port of the server's NIO baselines
     * @param depth outstanding operations per queue of the server's Endpoint
     */
    record Accept(RmrTriplet buffer, int nioPort, int depth) {
        /** rmr context, address, length of the buffer; the NIO port: all a server sent before the depth. */
        static final int BYTES_WITHOUT_DEPTH = 4 + 8 + 8 + 4;
        static final int BYTES = BYTES_WITHOUT_DEPTH + 4;

        byte[] encode() {
            return ByteBuffer.allocate(BYTES).order(ByteOrder.BIG_ENDIAN).putInt(buffer.rmrContext()).putLong(buffer.targetAddress())
                    .putLong(buffer.segmentLength()).putInt(nioPort).putInt(depth).array();
        }

        /** @return the accept, or {@code null} when {@code data} is none of a dat perf server's */
        static Accept decode(byte[] data) {
            if (data == null || data.length < BYTES_WITHOUT_DEPTH) {
                return null;
            }
            ByteBuffer in = ByteBuffer.wrap(data).order(ByteOrder.BIG_ENDIAN);
            RmrTriplet buffer = new RmrTriplet(in.getInt(), in.getLong(), in.getLong());
            int nioPort = in.getInt();
            int depth = data.length >= BYTES ? in.getInt() : DEFAULT_DEPTH;
            return depth > 0 ? new Accept(buffer, nioPort, depth) : null;
        }
    }

    private static final long WAIT_MICROS = 200_000;

    /** The open draining streams, by their (random) numbers: the control connections' keys. */
    private static final java.util.concurrent.ConcurrentHashMap<Integer, StreamCount> STREAMS =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * What a draining stream has read, and the one control thread waiting for a count of it. The
     * reader stores the count before it looks at what is wanted, the waiter what it wants before
     * it looks at the count (all volatile): one of the two sees the other's store, so the waiter
     * never parks past the count it waits for.
     */
    private static final class StreamCount {
        volatile long read;
        volatile boolean ended;
        volatile long wanted = Long.MAX_VALUE;
        volatile Thread waiter;
        /** One control connection per stream: a second one would take the first's wake-ups. */
        final java.util.concurrent.atomic.AtomicBoolean controlled = new java.util.concurrent.atomic.AtomicBoolean();

        void add(long total) {
            read = total;
            if (total >= wanted) {
                java.util.concurrent.locks.LockSupport.unpark(waiter);
            }
        }

        void end() {
            ended = true;
            java.util.concurrent.locks.LockSupport.unpark(waiter);
        }

        /** Blocks until the stream has read {@code count} bytes or ended; returns what it has read. */
        long await(long count) {
            waiter = Thread.currentThread();
            wanted = count;
            while (read < count && !ended) {
                java.util.concurrent.locks.LockSupport.park(this);
            }
            wanted = Long.MAX_VALUE;
            return read;
        }
    }

    private final InterfaceAdapter ia;
    /** The IA's attributes, queried once. */
    private final IaAttributes limits;
    private final PrintStream out;
    private final Arena arena = Arena.ofShared();
    private final ProtectionZone pz;
    private final LocalMemoryRegion lmr;
    private final EventDispatcher crEvd;
    private final PublicServicePoint psp;
    private final ServerSocketChannel nio;
    private final int nioPort;
    private final long qualifier;
    private volatile boolean closed;
    /**
     * The threads that serve accepted connections, kept for the next: a new platform thread per
     * connection cost the serving thread about 110 us of each setup that the connection setup
     * figure measures.
     */
    private final java.util.concurrent.ExecutorService connections = java.util.concurrent.Executors
            .newCachedThreadPool(task -> Thread.ofPlatform().daemon().name("dat-perf-server-connection").unstarted(task));

    /**
     * A server on the default qualifier.
     *
     * @param nioPort the NIO baselines' port, 0 for any free one (clients learn it from the accept)
     */
    PerfServer(InterfaceAdapter ia, PrintStream out, int nioPort) throws IOException {
        this(ia, out, QUALIFIER, nioPort);
    }

    /**
     * Sets the server up on an open IA, which it closes with itself (and at once when it cannot
     * be set up).
     *
     * @param ia the IA to serve, one that other processes reach
     * @param out where the server reports
     * @param qualifier the connection qualifier of its PSP
     * @param nioPort the NIO baselines' port, 0 for any free one (clients learn it from the accept)
     * @throws IOException when the NIO baselines' port cannot be bound: the message says which
     *         port and how to choose another
     */
    PerfServer(InterfaceAdapter ia, PrintStream out, long qualifier, int nioPort) throws IOException {
        this.ia = ia;
        this.out = out;
        ProtectionZone pz = null;
        LocalMemoryRegion lmr = null;
        EventDispatcher crEvd = null;
        PublicServicePoint psp = null;
        ServerSocketChannel nio = null;
        try {
            this.limits = ia.query().iaAttributes();
            pz = ia.createProtectionZone();
            MemorySegment memory = arena.allocate(Math.min(BUFFER, limits.maxLmrBlockSize()), DatConstants.OPTIMAL_ALIGNMENT);
            lmr = ia.registerMemory(memory, pz, MemPrivileges.ALL);
            crEvd = ia.createEventDispatcher(16, null, EvdFlags.CR);
            try {
                psp = ia.createPublicServicePoint(qualifier, crEvd, PspFlag.CONSUMER);
            } catch (DatException e) {
                throw new IllegalStateException("cannot listen on connection qualifier " + qualifier + " of IA " + ia.name() + ": "
                        + e.getMessage() + (e.type() == DatReturn.CONN_QUAL_IN_USE ? " (another dat perf --server? " : " (")
                        + "choose another qualifier with --qualifier N, and give the clients the same)", e);
            }
            InetSocketAddress address = limits.iaAddress();
            nio = ServerSocketChannel.open();
            nio.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            InetSocketAddress nioAddress = new InetSocketAddress(address.getAddress(), nioPort);
            try {
                nio.bind(nioAddress, 64);
            } catch (IOException e) {
                throw new IOException("cannot listen for the NIO baselines at " + nioAddress.getAddress().getHostAddress() + ":" + nioPort
                        + ": " + e.getMessage() + " (another dat perf --server? choose another port with --nio-port PORT, 0 for any"
                        + " free one)", e);
            }
            this.nioPort = ((InetSocketAddress) nio.getLocalAddress()).getPort();
        } catch (IOException | RuntimeException e) {
            closeQuietly(nio);
            for (AutoCloseable resource : new AutoCloseable[] {psp, crEvd, lmr, pz, ia, arena}) {
                closeQuietly(resource);
            }
            throw e;
        }
        this.pz = pz;
        this.lmr = lmr;
        this.crEvd = crEvd;
        this.psp = psp;
        this.nio = nio;
        this.qualifier = qualifier;
    }

    private static void closeQuietly(AutoCloseable resource) {
        if (resource == null) {
            return;
        }
        try {
            resource.close();
        } catch (Exception e) {
            // setting up failed already: that failure is the one reported
        }
    }

    /** @return the connection qualifier of the server's PSP */
    long qualifier() {
        return qualifier;
    }

    /** @return the port of the NIO baselines */
    int nioPort() {
        return nioPort;
    }

    /** @return the IA address clients connect to */
    InetSocketAddress iaAddress() {
        return limits.iaAddress();
    }

    /**
     * Serves until the calling thread is interrupted.
     *
     * @throws IllegalStateException when the IA fails under it (its provider stopped, say): the command failed
     */
    void serve() {
        Thread baseline = Thread.ofPlatform().daemon().name("dat-perf-server-nio").start(this::serveNio);
        DatEvent event = new DatEvent();
        try {
            while (!Thread.currentThread().isInterrupted()) {
                int code = crEvd.await(WAIT_MICROS, 1, event);
                if (code == DatReturn.SUCCESS && event.eventNumber() == EventNumber.CONNECTION_REQUEST_EVENT) {
                    accept(event);
                } else if (DatReturn.typeOf(code) != DatReturn.TIMEOUT_EXPIRED) {
                    if (DatReturn.typeOf(code) == DatReturn.INTERRUPTED_CALL) {
                        return;
                    }
                    throw new IllegalStateException("waiting for connection requests: " + DatReturn.describe(code));
                }
            }
        } finally {
            closed = true;
            try {
                nio.close();
            } catch (IOException e) {
                // closing anyway
            }
            baseline.interrupt();
            connections.shutdown(); // the threads end with their connections
        }
    }

    private void accept(DatEvent request) {
        var cr = request.connectionRequest();
        Request asked = Request.decode(cr.query().privateData());
        if (asked == null) {
            cr.reject();
            return;
        }
        byte mode = asked.mode();
        // the client's depth, as far as this IA allows: the client bounds its messages by the answer
        int depth = Math.min(asked.depth(), limits.maxDtoPerEp());
        int qlen = (int) Math.min(limits.maxEvdQlen(), 4L * depth);
        EventDispatcher recv = ia.createEventDispatcher(qlen, null, EvdFlags.DTO);
        EventDispatcher requests = ia.createEventDispatcher(qlen, null, EvdFlags.DTO);
        EventDispatcher conn = ia.createEventDispatcher(8, null, EvdFlags.CONNECTION);
        long message = Math.max(1, Math.min(asked.size(), Math.min(lmr.registeredSize() / 2 / depth, limits.maxMessageSize())));
        EpAttributes attributes = EpAttributes.builder().maxMessageSize(message)
                .maxRdmaSize(Math.min(lmr.registeredSize(), limits.maxRdmaSize()))
                .maxRecvDtos(depth).maxRequestDtos(depth)
                .maxRecvIov(1).maxRequestIov(1).maxRdmaReadIov(1).maxRdmaWriteIov(1)
                .maxRdmaReadIn(Math.min(8, limits.maxRdmaReadPerEpIn())).maxRdmaReadOut(Math.min(8, limits.maxRdmaReadPerEpOut()))
                .build();
        Endpoint ep = ia.createEndpoint(pz, recv, requests, conn, attributes);
        if (mode == ECHO) {
            for (int slot = 0; slot < depth; slot++) {
                Spin.check(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, slot * message, message)}, slot, CompletionFlags.DEFAULT),
                        "dat_ep_post_recv");
            }
        }
        cr.accept(ep, new Accept(RmrTriplet.of(lmr, 0, lmr.registeredSize()), nioPort, depth).encode());
        connections.execute(() -> {
            try {
                connection(mode, message, depth, ep, recv, requests, conn);
            } catch (RuntimeException e) {
                if (!closed) {
                    out.println("dat perf --server: a connection ended: " + e);
                }
            } finally {
                ep.close();
                recv.close();
                requests.close();
                conn.close();
            }
        });
    }

    /** Serves one connection until it is disconnected. */
    private void connection(byte mode, long message, int depth, Endpoint ep, EventDispatcher recv, EventDispatcher requests,
            EventDispatcher conn) {
        DatEvent event = new DatEvent();
        DatEvent drained = new DatEvent();
        // a post copies its IOV (iov_ownership_on_return is the consumer's): one of each serves every message
        LmrTriplet[] reply = {new LmrTriplet()};
        LmrTriplet[] repost = {new LmrTriplet()};
        while (!closed) {
            if (conn.dequeue(event) == DatReturn.SUCCESS && event.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                return; // disconnected, broken or not accepted
            }
            if (mode != ECHO) {
                // nothing to do but wait for the disconnect (a timed-out wait is not one)
                int code = conn.await(WAIT_MICROS, 1, event);
                if (code == DatReturn.SUCCESS && event.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                    return;
                }
                continue;
            }
            if (!echo(message, ep, recv, requests, event, drained, reply, repost)) {
                return;
            }
        }
    }

    /**
     * Waits for one message and sends it back (a call per message, so that it is compiled after a
     * few thousand messages rather than left to on-stack replacement of the serving loop).
     *
     * @return {@code false} when the receive was flushed: the client disconnected
     */
    private boolean echo(long message, Endpoint ep, EventDispatcher recv, EventDispatcher requests, DatEvent event, DatEvent drained,
            LmrTriplet[] reply, LmrTriplet[] repost) {
        int code = recv.await(WAIT_MICROS, 1, event);
        if (code != DatReturn.SUCCESS) {
            return true;
        }
        if (event.status() != dat.api.DtoCompletionStatus.SUCCESS) {
            return false;
        }
        int slot = (int) event.userCookie();
        reply[0].set(lmr, slot * message, event.transferredLength());
        // the ping-pong has one message in flight: the receive can be reposted at once
        Spin.check(ep.postSend(1, reply, slot, CompletionFlags.DEFAULT), "dat_ep_post_send");
        repost[0].set(lmr, slot * message, message);
        Spin.check(ep.postRecv(1, repost, slot, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        while (requests.dequeue(drained) == DatReturn.SUCCESS) {
            // send completions: nothing to do
        }
        return true;
    }

    /**
     * The NIO baselines: echo ('P'), drain ('R'), drain framed ('M', 'S' non-blocking), the
     * drains' control ('C'), and the shared-memory spin ('H'); one thread per connection.
     */
    private void serveNio() {
        while (!closed) {
            try {
                SocketChannel channel = nio.accept();
                Thread.ofPlatform().daemon().name("dat-perf-server-nio-connection").start(() -> nioConnection(channel));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void nioConnection(SocketChannel channel) {
        try (channel) {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ByteBuffer head = ByteBuffer.allocate(NIO_HEAD_BYTES);
            if (!PerfClient.readFully(channel, head)) {
                return;
            }
            byte mode = head.get(0);
            int size = head.getInt(1);
            int footprint = head.getInt(5);
            if (mode == 'C') {
                control(channel, size);
                return;
            }
            if (mode == ShmSpin.MODE) {
                ShmSpin.echo(channel, size);
                return;
            }
            if (mode != 'P' && mode != 'R' && mode != 'M' && mode != 'S') {
                return; // not a client of this protocol
            }
            if (size <= 0 || size > BUFFER || footprint < size || footprint > BUFFER) {
                return; // not a dat perf client: no allocation sized by a stranger
            }
            // at least 1 MiB, as before the footprint was sent: small chunks are read many at a time
            ByteBuffer buffer = ByteBuffer.allocateDirect(Math.max(footprint, 1 << 20));
            if (mode == 'P') {
                while (echoNio(channel, buffer, size)) {
                    // one call per message, as for the DAT echo
                }
                return;
            }
            StreamCount read = new StreamCount();
            int stream;
            do {
                stream = java.util.concurrent.ThreadLocalRandom.current().nextInt();
            } while (STREAMS.putIfAbsent(stream, read) != null);
            try {
                acknowledge(channel, stream);
                if (mode == 'M' || mode == 'S') {
                    // message by message: the header on its own, then the chunk into the next slot
                    // (the chunks cycle over the footprint, as the client's do)
                    ByteBuffer header = ByteBuffer.allocateDirect(FRAME_HEADER_BYTES);
                    try (Selector selector = mode == 'S' ? PerfClient.waitingFor(channel, SelectionKey.OP_READ) : null) {
                        long total = 0;
                        int at = 0;
                        while (true) {
                            header.clear();
                            buffer.limit(at + size).position(at);
                            if (!readFully(channel, header, selector) || !readFully(channel, buffer, selector)) {
                                break;
                            }
                            total += size;
                            read.add(total);
                            at = at + 2L * size > footprint ? 0 : at + size;
                        }
                    }
                } else {
                    long total = 0;
                    while (true) {
                        // the next bytes after the last read's, around the buffer: every byte of it in turn
                        if (!buffer.hasRemaining()) {
                            buffer.clear();
                        }
                        int n = channel.read(buffer);
                        if (n < 0) {
                            break;
                        }
                        total += n;
                        read.add(total);
                    }
                }
            } finally {
                STREAMS.remove(stream);
                read.end();
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    /** Reads one message of {@code size} and writes it back; {@code false} when the client closed. */
    private static boolean echoNio(SocketChannel channel, ByteBuffer buffer, int size) throws IOException {
        buffer.clear().limit(size);
        if (!PerfClient.readFully(channel, buffer)) {
            return false;
        }
        buffer.flip();
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
        return true;
    }

    /**
     * Reads until {@code buffer} is full, waiting in {@code selector} when there is one (the
     * channel is then non-blocking).
     *
     * @return false at the end of the stream
     */
    private static boolean readFully(SocketChannel channel, ByteBuffer buffer, Selector selector) throws IOException {
        if (selector == null) {
            return PerfClient.readFully(channel, buffer);
        }
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer);
            if (n < 0) {
                return false;
            }
            if (n == 0) {
                selector.select(key -> { });
            }
        }
        return true;
    }

    /**
     * A control connection of stream {@code stream}: for each count of the stream's bytes the
     * client sent, answers once the stream has read that many (or ended), with the count it has
     * read: the end of the client's round.
     */
    private static void control(SocketChannel channel, int stream) throws IOException {
        StreamCount read = STREAMS.get(stream);
        if (read == null || !read.controlled.compareAndSet(false, true)) {
            return; // not a stream of this server's, or one with its control connection
        }
        ByteBuffer count = ByteBuffer.allocate(8);
        while (PerfClient.readFully(channel, count.clear())) {
            acknowledge(channel, read.await(count.getLong(0)));
        }
    }

    /** A stream's number, or the bytes a stream has read (the end of a client's round). */
    private static void acknowledge(SocketChannel channel, long total) throws IOException {
        ByteBuffer ack = ByteBuffer.allocate(8).putLong(0, total);
        while (ack.hasRemaining()) {
            channel.write(ack);
        }
    }

    /** Stops serving and closes the IA, abruptly: every object of every connection goes with it. */
    @Override
    public void close() {
        closed = true;
        try {
            nio.close();
        } catch (IOException e) {
            // closing anyway
        }
        ia.close();
        arena.close();
    }
}
