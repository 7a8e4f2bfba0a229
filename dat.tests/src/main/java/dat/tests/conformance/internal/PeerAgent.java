package dat.tests.conformance.internal;

import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatRegistry;
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
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The far side of the conformance suite's cross-process tests ({@code dat test --serve IA}): for
 * each control connection ({@link PeerProtocol}) it builds one side of an Endpoint pair on its
 * instance of the IA (PZ, receive, request, connection and CR EVDs, a registered buffer of
 * {@link IaUnderTest#BUFFER_SIZE} bytes, an Endpoint and a PSP), accepts the suite's connect, and
 * then does what the suite asks, reporting every return code and completion back. Pairs run on
 * threads of their own; a pair's objects are freed when its control connection ends. A control
 * connection that starts with {@link RemoteCalls#MAGIC} instead gets an instance of the IA of its
 * own, used from the suite's process through proxies ({@link RemoteIaSession}, {@link RemoteIa}).
 * The agent does whatever a connecting suite asks of its IA: it is a test tool for trusted
 * networks, and only methods of the DAT API and files of the suite's shared memory can be named.
 */
public final class PeerAgent implements AutoCloseable {

    /** The most IOV segments a request may name. */
    private static final int MAX_SEGMENTS = 64;

    private final InterfaceAdapter ia;
    private final DatRegistry registry;
    private final String iaName;
    private final ServerSocket server;
    private final IaAttributes iaAttributes;
    private final PrintStream log;
    private final Thread acceptor;
    private final Set<Socket> clients = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private PeerAgent(DatRegistry registry, String iaName, InterfaceAdapter ia, IaAttributes attributes, ServerSocket server,
            PrintStream log) {
        this.registry = registry;
        this.iaName = iaName;
        this.ia = ia;
        this.iaAttributes = attributes;
        this.server = server;
        this.log = log;
        this.acceptor = new Thread(this::acceptLoop, "dat-peer-agent");
        acceptor.setDaemon(true);
    }

    /**
     * Opens the IA and listens for the suite's control connections.
     *
     * @param registry the registry to open the IA through
     * @param iaName the IA
     * @param listen the control address (a port of 0 picks one), or {@code null} for
     *     {@link PeerProtocol#DEFAULT_PORT} on the host of the IA's address
     * @param log where pairs are reported
     * @return the running agent
     * @throws IOException when the control address cannot be bound
     */
    public static PeerAgent start(DatRegistry registry, String iaName, InetSocketAddress listen, PrintStream log) throws IOException {
        InterfaceAdapter ia = registry.openIa(iaName);
        IaAttributes attributes;
        ServerSocket server;
        try {
            attributes = ia.query().iaAttributes();
            server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(listen != null ? listen : new InetSocketAddress(attributes.iaAddress().getAddress(), PeerProtocol.DEFAULT_PORT),
                    64);
        } catch (IOException | RuntimeException e) {
            ia.close();
            throw e;
        }
        PeerAgent agent = new PeerAgent(registry, iaName, ia, attributes, server, log);
        agent.acceptor.start();
        return agent;
    }

    /** @return the bound control address */
    public InetSocketAddress address() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    /** @return the IA address of the agent's IA */
    public InetSocketAddress iaAddress() {
        return iaAttributes.iaAddress();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket socket = server.accept();
                clients.add(socket);
                Thread pair = new Thread(() -> serve(socket), "dat-peer-agent-pair");
                pair.setDaemon(true);
                pair.start();
            } catch (IOException e) {
                if (!closed) {
                    log.println("dat test --serve: accepting a control connection failed: " + e);
                }
            }
        }
    }

    private void serve(Socket socket) {
        try (socket; Pair pair = new Pair()) {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            int magic = in.readInt();
            if (magic == RemoteCalls.MAGIC) {
                // an instance of this IA for the suite's peer() (RemoteIa): the whole suite across processes
                new RemoteIaSession(in, out).run(registry, iaName);
                return;
            }
            if (magic != PeerProtocol.MAGIC) {
                return;
            }
            pair.open(readAttributes(in));
            InetSocketAddress address = iaAddress();
            String host = address.getAddress().isAnyLocalAddress() ? socket.getLocalAddress().getHostAddress()
                    : address.getAddress().getHostAddress();
            out.writeByte(PeerProtocol.OK);
            out.writeUTF(host);
            out.writeInt(address.getPort());
            out.writeLong(pair.psp.connQual());
            out.flush();
            String failure = pair.acceptConnect();
            reply(out, failure);
            if (failure != null) {
                return;
            }
            while (pair.handle(in.readByte(), in, out)) {
                out.flush();
            }
        } catch (EOFException | SocketException e) {
            // the suite ended the pair
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                log.println("dat test --serve: a pair ended: " + e);
            }
        } finally {
            clients.remove(socket);
        }
    }

    private static EpAttributes readAttributes(DataInputStream in) throws IOException {
        return EpAttributes.builder()
                .maxRecvDtos(in.readInt()).maxRequestDtos(in.readInt())
                .maxRecvIov(in.readInt()).maxRequestIov(in.readInt())
                .maxRdmaReadIov(in.readInt()).maxRdmaWriteIov(in.readInt())
                .maxRdmaReadIn(in.readInt()).maxRdmaReadOut(in.readInt())
                .maxMessageSize(in.readLong()).maxRdmaSize(in.readLong())
                .build();
    }

    private static void reply(DataOutputStream out, String failure) throws IOException {
        if (failure == null) {
            out.writeByte(PeerProtocol.OK);
        } else {
            out.writeByte(PeerProtocol.FAILED);
            out.writeUTF(failure);
        }
        out.flush();
    }

    /** One side of a pair: the agent's DAT objects, freed in reverse order. */
    private final class Pair implements AutoCloseable {
        private final Arena arena = Arena.ofShared();
        private final Deque<AutoCloseable> objects = new ArrayDeque<>();
        private final DatEvent event = new DatEvent();
        private EventDispatcher recvEvd;
        private EventDispatcher requestEvd;
        private EventDispatcher connectEvd;
        private EventDispatcher crEvd;
        private LocalMemoryRegion lmr;
        private Endpoint ep;
        private PublicServicePoint psp;

        private <T extends AutoCloseable> T keep(T object) {
            objects.push(object);
            return object;
        }

        void open(EpAttributes attributes) {
            int qlen = Math.min(IaUnderTest.DEFAULT_QLEN, iaAttributes.maxEvdQlen());
            ProtectionZone pz = keep(ia.createProtectionZone());
            recvEvd = keep(ia.createEventDispatcher(qlen, null, EvdFlags.DTO));
            requestEvd = keep(ia.createEventDispatcher(qlen, null, EvdFlags.DTO | EvdFlags.RMR_BIND));
            connectEvd = keep(ia.createEventDispatcher(qlen, null, EvdFlags.CONNECTION));
            crEvd = keep(ia.createEventDispatcher(qlen, null, EvdFlags.CR));
            MemorySegment memory = arena.allocate(IaUnderTest.BUFFER_SIZE, DatConstants.OPTIMAL_ALIGNMENT);
            lmr = keep(ia.registerMemory(memory, pz, MemPrivileges.ALL));
            ep = keep(ia.createEndpoint(pz, recvEvd, requestEvd, connectEvd, attributes));
            psp = keep(ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER));
        }

        /** Accepts the suite's connect; {@code null}, or why not. */
        String acceptConnect() {
            int code = crEvd.await(IaUnderTest.EVENT_TIMEOUT_MICROS, 1, event);
            if (code != DatReturn.SUCCESS || event.eventNumber() != EventNumber.CONNECTION_REQUEST_EVENT) {
                return "no connection request at the agent's PSP: " + (code != DatReturn.SUCCESS ? DatReturn.describe(code) : event);
            }
            event.connectionRequest().accept(ep, null);
            code = connectEvd.await(IaUnderTest.EVENT_TIMEOUT_MICROS, 1, event);
            if (code != DatReturn.SUCCESS || event.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                return "the agent's Endpoint was not established: " + (code != DatReturn.SUCCESS ? DatReturn.describe(code) : event);
            }
            return null;
        }

        private LmrTriplet[] iov(int segments, int segmentSize, long offset) {
            // what arrives on a control connection sizes nothing beyond the buffer and the IOV limit
            if (segments < 0 || segments > MAX_SEGMENTS || segmentSize < 0 || offset < 0
                    || offset + (long) segments * segmentSize > lmr.registeredSize()) {
                throw new IllegalArgumentException(segments + " segments of " + segmentSize + " bytes at " + offset
                        + " do not fit the agent's " + lmr.registeredSize() + "-byte buffer (at most " + MAX_SEGMENTS + " segments)");
            }
            LmrTriplet[] iov = new LmrTriplet[segments];
            for (int i = 0; i < segments; i++) {
                iov[i] = LmrTriplet.of(lmr, offset + (long) i * segmentSize, segmentSize);
            }
            return iov;
        }

        /** Handles one request; {@code false} after BYE. */
        boolean handle(byte op, DataInputStream in, DataOutputStream out) throws IOException {
            MemorySegment buffer = lmr.memory();
            try {
                switch (op) {
                    case PeerProtocol.CLEAR -> {
                        buffer.asSlice(in.readLong(), in.readLong()).fill((byte) 0);
                        out.writeByte(PeerProtocol.OK);
                    }
                    case PeerProtocol.FILL -> {
                        MemorySegment range = buffer.asSlice(in.readLong(), in.readLong());
                        DataPattern.fill(range, in.readInt());
                        out.writeByte(PeerProtocol.OK);
                    }
                    case PeerProtocol.VERIFY -> {
                        MemorySegment range = buffer.asSlice(in.readLong(), in.readLong());
                        reply(out, DataPattern.mismatch(range, in.readInt(), 0));
                    }
                    case PeerProtocol.POST_RECV, PeerProtocol.POST_SEND -> {
                        LmrTriplet[] iov = iov(in.readInt(), in.readInt(), in.readLong());
                        long cookie = in.readLong();
                        int code = op == PeerProtocol.POST_RECV ? ep.postRecv(iov.length, iov, cookie, CompletionFlags.DEFAULT)
                                : ep.postSend(iov.length, iov, cookie, CompletionFlags.DEFAULT);
                        out.writeByte(PeerProtocol.OK);
                        out.writeInt(code);
                    }
                    case PeerProtocol.POST_RDMA_WRITE, PeerProtocol.POST_RDMA_READ -> {
                        LmrTriplet[] iov = iov(in.readInt(), in.readInt(), in.readLong());
                        long cookie = in.readLong();
                        RmrTriplet remote = new RmrTriplet(in.readInt(), in.readLong(), in.readLong());
                        int code = op == PeerProtocol.POST_RDMA_WRITE
                                ? ep.postRdmaWrite(iov.length, iov, cookie, remote, CompletionFlags.DEFAULT)
                                : ep.postRdmaRead(iov.length, iov, cookie, remote, CompletionFlags.DEFAULT);
                        out.writeByte(PeerProtocol.OK);
                        out.writeInt(code);
                    }
                    case PeerProtocol.COMPLETION -> {
                        EventDispatcher evd = in.readBoolean() ? recvEvd : requestEvd;
                        int code = evd.await(IaUnderTest.EVENT_TIMEOUT_MICROS, 1, event);
                        out.writeByte(PeerProtocol.OK);
                        out.writeInt(code);
                        boolean success = code == DatReturn.SUCCESS;
                        out.writeInt(success ? event.eventNumber() : 0);
                        boolean dto = success && event.eventNumber() == EventNumber.DTO_COMPLETION_EVENT;
                        out.writeInt(dto ? event.status() : 0);
                        out.writeLong(dto ? event.userCookie() : 0);
                        out.writeLong(dto ? event.transferredLength() : 0);
                        out.writeBoolean(dto && event.endpoint() == ep);
                    }
                    case PeerProtocol.REMOTE -> {
                        RmrTriplet remote = RmrTriplet.of(lmr, in.readLong(), in.readLong());
                        out.writeByte(PeerProtocol.OK);
                        out.writeInt(remote.rmrContext());
                        out.writeLong(remote.targetAddress());
                        out.writeLong(remote.segmentLength());
                    }
                    case PeerProtocol.SYNC -> {
                        boolean write = in.readBoolean();
                        LmrTriplet[] range = {LmrTriplet.of(lmr, in.readLong(), in.readLong())};
                        if (write) {
                            ia.syncRdmaWrite(range, 1);
                        } else {
                            ia.syncRdmaRead(range, 1);
                        }
                        out.writeByte(PeerProtocol.OK);
                    }
                    case PeerProtocol.BYE -> {
                        out.writeByte(PeerProtocol.OK);
                        out.flush();
                        return false;
                    }
                    default -> throw new IOException("unknown request " + op);
                }
            } catch (DatException | IndexOutOfBoundsException | IllegalArgumentException e) {
                reply(out, e.toString());
            }
            return true;
        }

        @Override
        public void close() {
            while (!objects.isEmpty()) {
                try {
                    objects.pop().close();
                } catch (Exception e) {
                    log.println("dat test --serve: freeing a pair's object failed: " + e);
                }
            }
            arena.close();
        }
    }

    /** Stops listening, ends every pair and closes the IA. */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        for (Socket socket : clients) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ia.close();
    }
}
