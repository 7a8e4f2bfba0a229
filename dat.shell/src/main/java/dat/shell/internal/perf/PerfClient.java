package dat.shell.internal.perf;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.ConnectFlags;
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
import dat.api.Qos;
import dat.api.RmrTriplet;
import dat.shell.internal.Cli;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code dat perf IA --client HOST:PORT}: measures against a {@link PerfServer} in another process
 * or on another host, each figure beside a raw NIO baseline measured in the same run between the
 * same two processes: the send/recv ping-pong beside a NIO TCP ping-pong of the same size, the RDMA
 * write bandwidth beside a NIO {@code SocketChannel} stream of the same chunk size (both counted
 * end to end: the server acknowledges the bytes it holds; a NIO stream framed as the sim
 * provider's TCP transport frames, blocking and non-blocking, is reported beside it too), and the
 * connection setup rate beside OFED uDAPL's published dtestcm figure. Where the server runs on this
 * host and libfabric's {@code fi_pingpong} is installed, the ping-pong is shown beside libfabric's
 * over its tcp and shm providers too ({@link LibfabricPingPong}). Every wait blocks
 * ({@code dat_evd_wait}, blocking NIO, a selector): neither side spins, as the baselines do not.
 */
final class PerfClient {

    /** The series of the RDMA write stream's figures. */
    static final String WRITE_STREAM = "RDMA write bandwidth, 2 processes";
    /** The series of the NIO stream framed as the sim provider's TCP wire frames. */
    static final String FRAMED_STREAM = "NIO framed stream bandwidth, 2 processes";

    private static final long BUFFER = PerfServer.BUFFER;
    private static final long TIMEOUT_MICROS = 10_000_000;

    private final DatRegistry registry;
    private final PerfOptions options;
    private final PrintStream out;
    private final InetSocketAddress server;
    private final List<Figure> figures = new ArrayList<>();
    /** libfabric's ping-pong for baselines beside the DAT ping-pong, or {@code null} where not installed. */
    private final LibfabricPingPong libfabric = LibfabricPingPong.find().orElse(null);
    private InterfaceAdapter ia;
    private IaAttributes limits;
    private ProtectionZone pz;
    private LocalMemoryRegion lmr;
    /** This side's buffer: the RDMA writes' source, and the {@code MemorySegment.copy} baseline's. */
    private MemorySegment memory;
    /** The buffer's file in {@code /dev/shm} where the IA may move data through shared memory, else {@code null}. */
    private SharedBuffer shared;
    /** Where the {@code MemorySegment.copy} baseline copies to beside a shared buffer: as large as the server's buffer half. */
    private MemorySegment copyTarget;
    private EventDispatcher recvEvd;
    private EventDispatcher requestEvd;
    private EventDispatcher connectEvd;
    /** Whether the IA can suppress a successful completion ({@code DAT_COMPLETION_SUPPRESS_FLAG}): --signal-every needs it. */
    private boolean suppressSupported;
    /** Outstanding operations per queue of this side's Endpoints, and most RDMA writes in flight: --depth, as far as the IA allows. */
    private int depth;
    /** What the server's last accept said: its buffer, its NIO port, the depth its Endpoint took. */
    private PerfServer.Accept accepted;

    /** Refuses, before anything is printed, an IA whose address the server cannot reach. */
    private final Consumer<InetSocketAddress> addressCheck;

    PerfClient(DatRegistry registry, PerfOptions options, PrintStream out, Consumer<InetSocketAddress> addressCheck) {
        this.registry = registry;
        this.options = options;
        this.out = out;
        this.server = options.client();
        this.addressCheck = addressCheck;
    }

    List<Figure> run() {
        try (InterfaceAdapter adapter = Cli.openIa(registry, options.iaName()); Arena arena = Arena.ofShared()) {
            ia = adapter;
            addressCheck.accept(ia.query().iaAttributes().iaAddress());
            out.printf("dat perf %s --client %s: two processes, depth %d, %d CPUs here; the benchmark waits in dat_evd_wait"
                    + " and polls nothing itself%n", options.iaName(),
                    options.client(), options.depth(), Runtime.getRuntime().availableProcessors());
            PerfCommands.congestionControl(PerfCommands.CONGESTION_CONTROL).ifPresent(cc -> out.printf(
                    "TCP congestion control here: %s (the large-write figures over loopback depend on it: docs/sim-provider.md)%n", cc));
            out.flush();
            limits = ia.query().iaAttributes();
            pz = ia.createProtectionZone();
            memory = buffer(arena, Math.min(BUFFER, limits.maxLmrBlockSize()));
            lmr = ia.registerMemory(memory, pz, MemPrivileges.ALL);
            depth = Math.max(1, Math.min(options.depth(), limits.maxDtoPerEp()));
            int qlen = (int) Math.min(limits.maxEvdQlen(), 4L * depth);
            recvEvd = ia.createEventDispatcher(qlen, null, EvdFlags.DTO);
            requestEvd = ia.createEventDispatcher(qlen, null, EvdFlags.DTO);
            connectEvd = ia.createEventDispatcher(8, null, EvdFlags.CONNECTION);
            disconnect(connect(PerfServer.QUIET, 64)); // learns the NIO port and the depth the server takes
            int serverDepth = accepted.depth();
            if (depth != options.depth() || serverDepth != depth) {
                out.printf("(--depth %d: this side takes %d, the server %d, as far as their IAs allow; a server from before"
                        + " the request carried the depth takes %d)%n", options.depth(), depth, serverDepth, PerfServer.DEFAULT_DEPTH);
            }
            suppressSupported = (ia.query().providerAttributes().completionFlagsSupported() & CompletionFlags.SUPPRESS) != 0;
            if (options.signalEvery() > 1) {
                out.printf(suppressSupported ? "(--signal-every %d: one RDMA write in %d of each write stream asks for a completion, at least one"
                        + " per window)%n" : "(--signal-every %d: the IA cannot suppress a completion, so every RDMA write asks for one)%n",
                        options.signalEvery(), options.signalEvery());
            }
            out.println(PerfReport.HEADER);
            out.flush();
            boolean firstLatencyPoint = true;
            // the server echoes from one of its depth's slots of half its buffer
            long echoSlot = Math.min(limits.maxMessageSize(), BUFFER / 2 / serverDepth);
            for (long size : options.latencySizes()) {
                if (size <= echoSlot) {
                    PingPongs measured = pingPongs(size, firstLatencyPoint);
                    firstLatencyPoint = false;
                    Stats dat = measured.dat();
                    add(new Figure("send/recv latency, 2 processes", size, "us", dat.median(), dat, "NIO TCP ping-pong",
                            measured.nio().median(), false));
                    besideShmSpin(size, dat);
                    besideLibfabric(size, measured);
                } else {
                    out.printf("(send/recv latency of %d B not measured: the server echoes from %d slots of %d B each;"
                            + " a smaller --depth gives larger slots)%n", size, serverDepth, echoSlot);
                }
            }
            boolean firstBandwidthPoint = true;
            for (long size : options.bandwidthSizes()) {
                if (size <= Math.min(limits.maxRdmaSize(), BUFFER / 2)) {
                    StreamRounds[] streams = bandwidths(size, firstBandwidthPoint);
                    firstBandwidthPoint = false;
                    StreamRounds raw = streams[0];
                    add(StreamRounds.besideRaw(WRITE_STREAM, size, streams[1], raw));
                    add(StreamRounds.besideRaw(FRAMED_STREAM, size, streams[2], raw));
                    add(StreamRounds.besideRaw("NIO framed non-blocking, 2 processes", size, streams[3], raw));
                    if (streams[4] != null) {
                        add(StreamRounds.besideCopy(size, streams[1], streams[4]));
                    }
                } else {
                    out.printf("(bandwidth of %d B not measured: the IA's largest RDMA is %d B)%n", size, limits.maxRdmaSize());
                }
            }
            add(connectionRate());
            ia.close(CloseFlag.ABRUPT);
        } finally {
            if (shared != null) {
                try {
                    shared.close();
                } catch (IOException e) {
                    out.println("(could not remove " + shared.file() + ": " + e.getMessage() + ")");
                }
            }
        }
        return figures;
    }

    /**
     * This side's buffer. Where the IA may move its connections' data through shared memory (the
     * sim provider's {@code shm} of {@code auto} or {@code on}) and the server is on this host, a
     * mapping of a file in {@code /dev/shm} ({@link SharedBuffer}): the memory that wire hands the
     * peer by reference, so RDMA writes of it are one copy, as a user would register it for that.
     * Anywhere else, or where the file cannot be made (a line says why), memory of the arena.
     */
    private MemorySegment buffer(Arena arena, long bytes) {
        String shm = limits.transportAttributes().get("shm");
        if (("on".equals(shm) || "auto".equals(shm)) && LibfabricPingPong.isThisHost(server.getAddress())) {
            try {
                shared = SharedBuffer.map(arena, bytes);
                copyTarget = arena.allocate(BUFFER / 2, DatConstants.OPTIMAL_ALIGNMENT);
                out.println("(this side's buffer: a shared mapping of " + shared.file() + ", which the shared-memory wire hands the"
                        + " server by reference)");
                return shared.memory();
            } catch (IOException | RuntimeException e) {
                out.println("(this side's buffer in the process's own memory: no file in " + SharedBuffer.DIRECTORY + ": "
                        + e.getMessage() + ")");
            }
        }
        return arena.allocate(bytes, DatConstants.OPTIMAL_ALIGNMENT);
    }

    /** @return the depth of this side's Endpoints and RDMA write window: --depth, as far as the IA allows */
    int depth() {
        return depth;
    }

    /** @return the depth the server's Endpoints took, as its last accept said */
    int serverDepth() {
        return accepted.depth();
    }

    /**
     * The same DAT figure beside libfabric's own ping-pong over its tcp and shm providers, run
     * between two processes of this host in this run, where {@code fi_pingpong} is installed and
     * the server is on this host (else the pair would not measure the same path). The tcp
     * ping-pong ran in the DAT ping-pong's rounds ({@link #pingPongs}); {@code fi_pingpong} reports
     * the mean of a run, so the figure's rounds set DAT's mean of each round beside it, and the
     * figure itself DAT's median beside the median of those means.
     */
    private void besideLibfabric(long size, PingPongs measured) {
        if (measured.libfabricTcp() != null) {
            double[] tcp = measured.libfabricTcp();
            add(new Figure("send/recv latency, 2 processes, beside libfabric tcp", size, "us", measured.dat().median(), measured.dat(),
                    LibfabricPingPong.Fabric.TCP.baselineName(), Spread.median(tcp), false,
                    Spread.of(tcp.length + " alternating rounds, DAT's mean of each", measured.datMeans(), tcp)));
        }
        if (libfabric == null || !LibfabricPingPong.isThisHost(server.getAddress())) {
            return;
        }
        LibfabricPingPong.Fabric shm = LibfabricPingPong.Fabric.SHM;
        libfabric.halfRoundTripMicros(shm, size, options.latencyIterations()).ifPresent(micros -> add(new Figure(
                "send/recv latency, 2 processes, beside libfabric " + shm.provider, size, "us", measured.dat().median(), measured.dat(),
                shm.baselineName(), micros, false)));
    }

    /**
     * What {@link #pingPongs} measured: the NIO and DAT half round trips, DAT's mean half round
     * trip of each round, and {@code fi_pingpong}'s over libfabric tcp in the same rounds, or
     * {@code null} where it did not run (not installed, a server on another host, a failed round).
     */
    private record PingPongs(Stats nio, Stats dat, double[] datMeans, double[] libfabricTcp) { }

    /**
     * The 8-byte figure beside the raw spin ping-pong over a file in {@code /dev/shm} between this
     * process and the server ({@link ShmSpin}), measured in this run where the server is on this
     * host: the floor of the shared-memory wire, and the cross-process floor beside TCP. Where it
     * cannot be measured (no {@code /dev/shm}, a server of another version) a line says why.
     */
    private void besideShmSpin(long size, Stats dat) {
        if (size != ShmSpin.MESSAGE_BYTES || !LibfabricPingPong.isThisHost(server.getAddress())) {
            return;
        }
        Stats spin;
        try {
            spin = ShmSpin.halfRoundTrips(new InetSocketAddress(server.getAddress(), accepted.nioPort()), options.latencyIterations());
        } catch (IOException e) {
            out.println("(no raw shared-memory spin baseline: " + e.getMessage() + ")");
            return;
        }
        add(new Figure("send/recv latency, 2 processes, beside raw shm spin", size, "us", dat.median(), dat, ShmSpin.BASELINE_NAME,
                spin.median(), false));
        out.printf("%-44s raw spin min %s  p99 %s  max %s%s%n", "", PerfReport.number(spin.min()), PerfReport.number(spin.p99()),
                PerfReport.number(spin.max()), wires());
    }

    /** What the IA says of the wires its connections took so far, where it says (the sim provider's TCP IAs). */
    private String wires() {
        java.util.Map<String, String> transport = ia.query().iaAttributes().transportAttributes();
        String shm = transport.get("shm.established");
        String tcp = transport.get("tcp.established");
        return shm == null || tcp == null ? "" : "; this IA's connections so far: " + shm + " over shared memory, " + tcp + " over TCP";
    }

    private void add(Figure figure) {
        figures.add(figure);
        out.println(PerfReport.line(figure));
        out.flush();
    }

    // ---- DAT -------------------------------------------------------------------------------

    private EpAttributes attributes(long message) {
        return EpAttributes.builder().maxMessageSize(Math.max(1, Math.min(message, limits.maxMessageSize())))
                .maxRdmaSize(Math.min(lmr.registeredSize(), limits.maxRdmaSize()))
                .maxRecvDtos(depth).maxRequestDtos(depth).maxRecvIov(1).maxRequestIov(1).maxRdmaReadIov(1).maxRdmaWriteIov(1)
                .maxRdmaReadIn(Math.min(8, limits.maxRdmaReadPerEpIn())).maxRdmaReadOut(Math.min(8, limits.maxRdmaReadPerEpOut()))
                .build();
    }

    /** Connects an Endpoint to the server, asking for a mode and this side's depth; reads the server's answer. */
    private Endpoint connect(byte mode, long size) {
        Endpoint ep = ia.createEndpoint(pz, recvEvd, requestEvd, connectEvd, attributes(size));
        boolean done = false;
        try {
            byte[] request = new PerfServer.Request(mode, size, depth).encode();
            ep.connect(server, options.qualifier(), TIMEOUT_MICROS, request, Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
            DatEvent event = new DatEvent();
            ConnectedPair.expect(connectEvd, event, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            PerfServer.Accept accept = PerfServer.Accept.decode(event.privateData());
            if (accept == null) {
                throw new IllegalStateException("the server at " + server + " is not a dat perf server (no buffer in its accept)");
            }
            accepted = accept;
            done = true;
            return ep;
        } finally {
            if (!done) {
                ep.close();
            }
        }
    }

    private void disconnect(Endpoint ep) {
        DatEvent event = new DatEvent();
        ep.disconnect(CloseFlag.ABRUPT);
        ConnectedPair.expect(connectEvd, event, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        Spin.drainFlushed(recvEvd, event);
        Spin.drainFlushed(requestEvd, event);
        ep.close();
    }

    /** Waits (blocking) for the next successful completion of an EVD. */
    private static void await(EventDispatcher evd, DatEvent event) {
        int code = evd.await(TIMEOUT_MICROS, 1, event);
        if (code != DatReturn.SUCCESS) {
            throw new DatException(code, "dat_evd_wait for a completion");
        }
        Spin.successCookie(event);
    }

    /**
     * The send/recv ping-pong and its NIO baseline, in alternating rounds over two connections
     * kept open: a drift of this machine during the run (load, frequency, the other process's
     * JIT) weighs on both alike, where one measurement after the other put it on one side. Where
     * {@code fi_pingpong} runs here, each round ends with a {@code fi_pingpong -p tcp -e msg} of
     * as many round trips, while both DAT processes wait: libfabric's own ping-pong measured under
     * the same conditions as DAT's.
     */
    private PingPongs pingPongs(long size, boolean first) {
        int iterations = options.latencyIterations();
        // the first point warms both processes' JIT up for all: as long as it measures, and for
        // FIRST_WARMUP_NANOS at least
        int warmup = first ? Math.max(100, iterations) : Math.max(100, iterations / 4);
        int perRound = Math.max(1, iterations / LATENCY_ROUNDS);
        int measured = perRound * LATENCY_ROUNDS;
        long[] nioSamples = new long[measured];
        long[] datSamples = new long[measured];
        double[] datMeans = new double[LATENCY_ROUNDS];
        double[] tcp = libfabric != null && LibfabricPingPong.isThisHost(server.getAddress()) ? new double[LATENCY_ROUNDS] : null;
        try (SocketChannel channel = nio((byte) 'P', size, size)) {
            ByteBuffer buffer = ByteBuffer.allocateDirect((int) size);
            LmrTriplet[] send = {LmrTriplet.of(lmr, 0, size)};
            LmrTriplet[] recv = {LmrTriplet.of(lmr, BUFFER / 2, size)};
            Endpoint ep = connect(PerfServer.ECHO, size);
            try {
                Spin.check(ep.postRecv(1, recv, 0, CompletionFlags.DEFAULT), "dat_ep_post_recv");
                DatEvent event = new DatEvent();
                long warmedUp = System.nanoTime() + (first ? FIRST_WARMUP_NANOS : 0);
                do {
                    nioRounds(channel, buffer, warmup, null, 0);
                    datRounds(ep, send, recv, event, warmup, null, 0);
                } while (System.nanoTime() - warmedUp < 0);
                for (int round = 0; round < LATENCY_ROUNDS; round++) {
                    nioRounds(channel, buffer, perRound, nioSamples, round * perRound);
                    datRounds(ep, send, recv, event, perRound, datSamples, round * perRound);
                    datMeans[round] = mean(datSamples, round * perRound, perRound) * 1e-3;
                    if (tcp != null) {
                        java.util.OptionalDouble micros = libfabric.halfRoundTripMicros(LibfabricPingPong.Fabric.TCP, size, perRound);
                        tcp = micros.isPresent() ? tcp : null;
                        if (tcp != null) {
                            tcp[round] = micros.getAsDouble();
                        }
                    }
                }
            } finally {
                disconnect(ep);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the NIO ping-pong baseline against " + server.getAddress() + ":" + accepted.nioPort(), e);
        }
        return new PingPongs(Stats.of(nioSamples, measured, 1e-3), Stats.of(datSamples, measured, 1e-3), datMeans, tcp);
    }

    private static double mean(long[] samples, int from, int n) {
        long sum = 0;
        for (int i = from; i < from + n; i++) {
            sum += samples[i];
        }
        return (double) sum / n;
    }

    /**
     * The first ping-pong's shortest warm-up. With both processes on one CPU their compiler threads
     * share it, and 20,000 round trips (half a second) left the provider's code partly compiled:
     * the ratio read 1.30 to 1.34 after them, 1.25 after 100,000.
     */
    private static final long FIRST_WARMUP_NANOS = 3_000_000_000L;

    /** The connection rate's shortest warm-up: the connection path is called once per connection, and compiled after thousands. */
    private static final long CONNECTION_WARMUP_NANOS = 2_000_000_000L;

    /** Chunks this large or larger stream in rounds of at least {@link #MIN_LARGE_ROUND_NANOS}. */
    private static final long LARGE_CHUNK = 1 << 20;

    /**
     * The shortest round of a bandwidth point of {@link #LARGE_CHUNK}s, for every stream of the
     * round alike. A window of them is a few writes (8 of 1 MiB, 2 of 4 MiB), which a round of the
     * default 50 ms turns over about 15 times: one scheduling event of this 2-core machine then
     * weighs on a round: single rounds of 1 MiB of one run ranged 0.70 to 1.06 times the NIO
     * stream of the same round, NIO's own rounds 2.1 to 3.3 GB/s.
     */
    private static final long MIN_LARGE_ROUND_NANOS = 500_000_000L;

    /** The first bandwidth point's shortest warm-up of each stream ({@link #bandwidths}). */
    private static final long FIRST_STREAM_WARMUP_NANOS = 1_500_000_000L;

    /** Alternating rounds of the latency measurement, each kind's samples spread over the run. */
    private static final int LATENCY_ROUNDS = 4;

    /**
     * {@code n} DAT round trips; their halves into {@code samples} from {@code at}, unless
     * {@code null} (warm-up). Each round trip is a call of its own ({@link #datRoundTrip}, and
     * {@link #nioRoundTrip} for the NIO rounds), compiled after a few thousand calls. A loop that
     * runs long in one call leaves the interpreter only by on-stack replacement, which the DAT
     * loop, with fewer iterations a second than the NIO loop, never reached in a run: on one CPU
     * 4.5% of the DAT rounds' CPU went to interpreted benchmark code, against 1.4% of the NIO
     * rounds', and the ratio fell from a median of 1.34 to 1.26 once both were calls.
     */
    private void datRounds(Endpoint ep, LmrTriplet[] send, LmrTriplet[] recv, DatEvent event, int n, long[] samples, int at) {
        for (int i = 0; i < n; i++) {
            long half = datRoundTrip(ep, send, recv, event, i);
            if (samples != null) {
                samples[at + i] = half;
            }
        }
    }

    /**
     * One DAT round trip: the send, its echo's receive, and the work the consumer does for the
     * next one (the receive posted again, the send's completion dequeued); returns half the time
     * of it all. The NIO round trip's clock, likewise, covers all its loop does (a clock stopped at
     * the echo's receive would favour DAT by a few hundred ns a round trip).
     */
    private long datRoundTrip(Endpoint ep, LmrTriplet[] send, LmrTriplet[] recv, DatEvent event, long cookie) {
        long start = System.nanoTime();
        Spin.check(ep.postSend(1, send, cookie, CompletionFlags.DEFAULT), "dat_ep_post_send");
        await(recvEvd, event);
        Spin.check(ep.postRecv(1, recv, 0, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        Spin.drain(requestEvd, event);
        return (System.nanoTime() - start) / 2;
    }

    /** {@code n} NIO round trips, as {@link #datRounds}. */
    private static void nioRounds(SocketChannel channel, ByteBuffer buffer, int n, long[] samples, int at) throws IOException {
        for (int i = 0; i < n; i++) {
            long half = nioRoundTrip(channel, buffer);
            if (samples != null) {
                samples[at + i] = half;
            }
        }
    }

    /** One NIO round trip, as {@link #datRoundTrip}. */
    private static long nioRoundTrip(SocketChannel channel, ByteBuffer buffer) throws IOException {
        long start = System.nanoTime();
        buffer.clear();
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
        buffer.clear();
        if (!readFully(channel, buffer)) {
            throw new IOException("the NIO server closed the ping-pong");
        }
        return (System.nanoTime() - start) / 2;
    }

    /**
     * RDMA write bandwidth and its NIO stream baseline, in {@code --rounds} alternating rounds
     * (after a warm-up of each): a drift of this machine during the run (the host's scheduling of
     * its virtual CPUs, another process) weighs on both alike. On a 2-core VM one NIO stream
     * measured right before one DAT stream read anywhere from 2.2 to 5.6 GB/s.
     *
     * <p>A third stream in each round frames its chunks as the sim provider's TCP transport does
     * (a header before each, the server reading the header on its own and then the chunk into a
     * slot of its own, no acknowledgement per chunk): what a message protocol over the same
     * socket costs before any of DAT's own work, beside the raw stream. A fourth stream is framed
     * the same way from non-blocking channels that wait in selectors at both ends, as the sim
     * provider's transport must (its posting threads and consumers never block in the socket, and a
     * consumer's wait has a timeout): what that way of waiting costs against the blocking streams.
     *
     * <p>Where this side's buffer is a file in {@code /dev/shm} ({@link #buffer}), a fifth stream in
     * each round copies the same chunks from the same slots with {@code MemorySegment.copy} into
     * memory of this process: one copy at the speed of this host's memory, the floor of a write over
     * shared memory, which moves each byte once from the file into the server's buffer.
     *
     * <p>The first point's warm-up is {@link #FIRST_STREAM_WARMUP_NANOS} at least per stream: the
     * RDMA writes run code of both processes that the ping-pong did not (the post of a write, the
     * target's progress on its event thread), and a JIT still compiling it took a CPU of this
     * machine's two from the measured rounds.
     *
     * @return the rounds of the NIO, the DAT, the framed NIO and the non-blocking framed NIO streams,
     *     and of the copies ({@code null} without a shared buffer)
     */
    private StreamRounds[] bandwidths(long size, boolean first) {
        int rounds = options.rounds();
        long perRound = Math.max(size >= LARGE_CHUNK ? MIN_LARGE_ROUND_NANOS : 1, options.measureNanos() / rounds);
        long warmup = first ? Math.max(options.warmupNanos(), FIRST_STREAM_WARMUP_NANOS) : options.warmupNanos();
        Endpoint ep = connect(PerfServer.QUIET, size);
        try {
            WriteStream writes = new WriteStream(ep, size);
            ByteBuffer chunks = ByteBuffer.allocateDirect((int) (writes.window * size));
            try (NioStream raw = new NioStream(chunks, size, 'R'); NioStream framedRaw = new NioStream(chunks, size, 'M');
                    NioStream framedNonBlocking = new NioStream(chunks, size, 'S')) {
                CopyStream copies = shared == null ? null : new CopyStream(memory, copyTarget, size, writes.window);
                raw.run(warmup);
                writes.run(warmup);
                framedRaw.run(warmup);
                framedNonBlocking.run(warmup);
                if (copies != null) {
                    copies.run(warmup);
                }
                StreamRounds nio = new StreamRounds(rounds);
                StreamRounds dat = new StreamRounds(rounds);
                StreamRounds framed = new StreamRounds(rounds);
                StreamRounds nonBlocking = new StreamRounds(rounds);
                StreamRounds copied = copies == null ? null : new StreamRounds(rounds);
                for (int round = 0; round < rounds; round++) {
                    nio.record(round, raw.run(perRound));
                    dat.record(round, writes.run(perRound));
                    framed.record(round, framedRaw.run(perRound));
                    nonBlocking.record(round, framedNonBlocking.run(perRound));
                    if (copies != null) {
                        copied.record(round, copies.run(perRound));
                    }
                }
                return new StreamRounds[] {nio, dat, framed, nonBlocking, copied};
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the NIO stream baseline against " + server.getAddress() + ":" + accepted.nioPort(), e);
        } finally {
            disconnect(ep);
        }
    }

    /** RDMA writes in flight per stream of {@code size}, each from and to a slot of its own. */
    int window(long size) {
        return (int) Math.max(1, Math.min(depth, BUFFER / 2 / size));
    }

    /**
     * A window of RDMA writes of one size, each to its own slot of the server's buffer, over one
     * connection. With {@code --signal-every N} only every Nth write asks for a completion
     * ({@code DAT_COMPLETION_SUPPRESS_FLAG} on the others, where the provider has it), as
     * perftest's {@code --cq-mod}: a connection's RDMA writes complete in order, so a signalled
     * write's completion says that the writes before it are done too.
     */
    private final class WriteStream {
        private final Endpoint ep;
        private final long size;
        private final int window;
        private final int signalEvery;
        private final LmrTriplet[][] local;
        private final RmrTriplet[] remote;
        private final DatEvent event = new DatEvent();

        WriteStream(Endpoint ep, long size) {
            this.ep = ep;
            this.size = size;
            window = window(size);
            signalEvery = suppressSupported ? Math.min(options.signalEvery(), window) : 1;
            local = new LmrTriplet[window][];
            remote = new RmrTriplet[window];
            RmrTriplet serverBuffer = accepted.buffer();
            for (int slot = 0; slot < window; slot++) {
                local[slot] = new LmrTriplet[] {LmrTriplet.of(lmr, slot * size, size)};
                remote[slot] = new RmrTriplet(serverBuffer.rmrContext(), serverBuffer.targetAddress() + slot * size, size);
            }
        }

        /**
         * Keeps the window full for {@code nanos}, then lets it drain. A full window waits for one
         * completion, then takes every completion already queued before it posts again, so that
         * posts go out in batches. The writes after the last signalled one when the time is up are
         * covered by one more signalled write.
         *
         * @return the bytes completed until the last completion counted, and the nanoseconds
         *     from the first post to it
         */
        long[] run(long nanos) {
            long start = System.nanoTime();
            long end = start + nanos;
            long posted = 0;
            long completed = 0;
            long now;
            do {
                while (posted - completed < window) {
                    post(posted, posted % signalEvery == signalEvery - 1);
                    posted++;
                }
                completed = reap(completed);
                now = System.nanoTime();
            } while (now < end);
            long signalled = posted - posted % signalEvery;
            while (completed < signalled) {
                completed = reap(completed);
            }
            if (completed < posted) {
                post(posted, true);
                posted++;
                while (completed < posted) {
                    completed = reap(completed);
                }
            }
            now = System.nanoTime();
            return new long[] {completed * size, now - start};
        }

        private void post(long sequence, boolean signalled) {
            int slot = (int) (sequence % window);
            Spin.check(ep.postRdmaWrite(1, local[slot], sequence, remote[slot], signalled ? CompletionFlags.DEFAULT
                    : CompletionFlags.SUPPRESS), "dat_ep_post_rdma_write");
        }

        /** Waits for one completion and takes every one queued after it: the writes done, counted from 0. */
        private long reap(long completed) {
            await(requestEvd, event);
            long done = Math.max(completed, event.userCookie() + 1);
            while (Spin.dequeue(requestEvd, event)) {
                done = Math.max(done, event.userCookie() + 1);
            }
            return done;
        }
    }

    private Figure connectionRate() {
        int connections = options.connections();
        // untimed first, as the other figures: as many connections as are measured, for
        // CONNECTION_WARMUP_NANOS at least, and on until the JIT settled (JitWarmUp)
        JitWarmUp.run(this::connectAndDisconnect, connections, CONNECTION_WARMUP_NANOS,
                options.quick() ? CONNECTION_WARMUP_NANOS : JitWarmUp.LIMIT_NANOS);
        return ConnectionBatches.time(connections, this::connectAndDisconnect)
                .figure("connection setup, 2 processes (create, connect, accept, established, disconnect)");
    }

    private void connectAndDisconnect() {
        disconnect(connect(PerfServer.QUIET, 64));
    }

    // ---- NIO baselines ---------------------------------------------------------------------

    private SocketChannel nio(byte mode, long size, long footprint) throws IOException {
        SocketChannel channel = SocketChannel.open(new InetSocketAddress(server.getAddress(), accepted.nioPort()));
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ByteBuffer head = ByteBuffer.allocate(PerfServer.NIO_HEAD_BYTES).put(mode).putInt((int) size).putInt((int) footprint).flip();
        while (head.hasRemaining()) {
            channel.write(head);
        }
        return channel;
    }

    /**
     * A NIO stream of chunks of one size, open (after its warm-up) for all rounds of that size, as
     * the RDMA writes' connection is: a TCP connection's history weighs on its speed (over
     * loopback on a 2-core VM, a connection opened for each one-second round streamed 1.03 to
     * 1.37 times as fast as one kept open across the rounds with BBR, 0.99 to 1.11 times with
     * CUBIC), so both kinds of stream keep theirs. The
     * chunks come from {@code memory} in turn, one slot after the other, as the RDMA writes of a
     * window do, and the server reads them into as much memory of its own: both streams touch
     * the same bytes. (With one chunk buffer reused, the NIO stream ran from the CPU's cache while
     * the RDMA writes cycled over 8 MiB at 256 KiB and above: DAT's own figure rose from 3.0 to
     * 4.2 GB/s at 256 KiB when its writes all used one slot.) A round ends when the server, asked
     * over a control connection of the stream's, holds every byte sent.
     */
    private final class NioStream implements AutoCloseable {
        private final ByteBuffer memory;
        private final int size;
        /** framed: each chunk behind a header of its own, in one gathering write (the server then reads message by message) */
        private final ByteBuffer[] message;
        private final SocketChannel data;
        /** non-blocking: the data channel's writes wait here when the socket takes nothing */
        private final Selector writable;
        private final SocketChannel control;
        private final ByteBuffer count = ByteBuffer.allocate(8);
        /** chunk bytes sent so far */
        private long sent;
        private int at;

        /** @param mode the server's: 'R' raw, 'M' framed, 'S' framed and non-blocking at both ends */
        NioStream(ByteBuffer memory, long size, char mode) throws IOException {
            this.memory = memory;
            this.size = (int) size;
            message = mode != 'R' ? new ByteBuffer[] {ByteBuffer.allocateDirect(PerfServer.FRAME_HEADER_BYTES), memory} : null;
            data = nio((byte) mode, size, memory.capacity());
            try {
                control = nio((byte) 'C', readLong(data, ANSWER_MILLIS, "opening a NIO stream"), 0);
                try {
                    writable = mode == 'S' ? waitingFor(data, SelectionKey.OP_WRITE) : null;
                } catch (IOException | RuntimeException e) {
                    control.close();
                    throw e;
                }
            } catch (IOException | RuntimeException e) {
                data.close();
                throw e;
            }
        }

        /**
         * Streams for {@code nanos}.
         *
         * @return the bytes the server then held of this round, and the nanoseconds until it held them
         */
        long[] run(long nanos) throws IOException {
            long from = sent;
            long start = System.nanoTime();
            long end = start + nanos;
            int footprint = memory.capacity();
            do {
                memory.limit(at + size).position(at);
                if (message != null) {
                    message[0].clear();
                    while (memory.hasRemaining()) {
                        if (data.write(message) == 0 && writable != null) {
                            writable.select(key -> { });
                        }
                    }
                } else {
                    while (memory.hasRemaining()) {
                        data.write(memory);
                    }
                }
                sent += size;
                at = at + size == footprint ? 0 : at + size;
            } while (System.nanoTime() < end);
            count.clear().putLong(0, sent);
            while (count.hasRemaining()) {
                control.write(count);
            }
            if (readLong(control, ANSWER_MILLIS, "the end of a NIO stream's round") < sent) {
                throw new IOException("the NIO server did not acknowledge the stream's " + sent + " bytes");
            }
            return new long[] {sent - from, System.nanoTime() - start};
        }

        @Override
        public void close() throws IOException {
            try (data; writable) {
                control.close();
            }
        }
    }

    /** How long the server may take to answer a stream's opening or the end of its round. */
    private static final int ANSWER_MILLIS = 60_000;

    /**
     * Reads a long within {@code millis}: a server that stalls, or speaks another version of the
     * protocol (and so never answers, or closes), fails the run instead of hanging it.
     */
    private static long readLong(SocketChannel channel, int millis, String what) throws IOException {
        channel.socket().setSoTimeout(millis);
        try {
            return new java.io.DataInputStream(channel.socket().getInputStream()).readLong();
        } catch (java.net.SocketTimeoutException e) {
            throw new IOException(what + ": no answer from the NIO server within " + millis / 1000 + " s", e);
        } catch (java.io.EOFException e) {
            throw new IOException(what + ": the NIO server closed the connection (a dat perf server of another version?)", e);
        }
    }

    /** Makes {@code channel} non-blocking and returns a selector of its own that waits for {@code op}. */
    static Selector waitingFor(SocketChannel channel, int op) throws IOException {
        channel.configureBlocking(false);
        Selector selector = Selector.open();
        try {
            channel.register(selector, op);
            return selector;
        } catch (IOException | RuntimeException e) {
            selector.close();
            throw e;
        }
    }

    static boolean readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                return false;
            }
        }
        return true;
    }
}
