package dat.shell.internal.perf;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The measurements of {@code dat perf} within one JVM: latency (send/recv and RDMA-write ping-pong,
 * half round trip, like ib_send_lat / ib_write_lat), bandwidth (RDMA write, RDMA read, send over a
 * size sweep, like ib_write_bw), message rate and connection setup rate (like dtestcm), each beside
 * the baseline of BENCHMARKS.md that fits, measured in the same run: {@code MemorySegment.copy}
 * bandwidth and a raw two-thread spin ping-pong.
 */
final class PerfRunner {

    private static final long BUFFER = 16L << 20;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** The spin ping-pong's ping word, at the start of a line-aligned segment; its pong word on the same line or two lines on. */
    private static final long SPIN_PING = 0;
    private static final long SPIN_PONG_SAME_LINE = 8;
    private static final long SPIN_PONG_OWN_LINE = 128;
    /**
     * The least warm-up of a latency figure, and of the first throughput figure of each kind (a
     * copy, each operation's bandwidth, the message rate): on two CPUs shared by two spinning
     * threads the JIT takes a few hundred milliseconds to compile a post-and-complete path, and a
     * figure measured before that times the interpreter (the first figure of a run read 3× its
     * later value).
     */
    private static final long JIT_WARMUP_NANOS = 500_000_000L;
    /**
     * The longest warm-up of a figure that waits for the JIT to settle after its fixed part
     * ({@link JitSettle}; every figure but a {@code --quick} run's and later throughput figures of
     * a kind), settled or not.
     */
    private static final long JIT_SETTLE_LIMIT_NANOS = 5_000_000_000L;

    private final DatRegistry registry;
    private final PerfOptions options;
    private final PrintStream out;
    private final List<Figure> figures = new ArrayList<>();
    private boolean pinned;
    private int cpus;
    /** The kinds of throughput figure measured so far: the first of each gets the JIT's warm-up. */
    private final Set<String> warmedUp = new HashSet<>();

    PerfRunner(DatRegistry registry, PerfOptions options, PrintStream out) {
        this.registry = registry;
        this.options = options;
        this.out = out;
    }

    List<Figure> figures() {
        return figures;
    }

    boolean pinned() {
        return pinned;
    }

    /** Runs every selected measurement and returns the figures. */
    List<Figure> run() {
        // counted before any pinning: availableProcessors() answers with the calling thread's mask
        cpus = Runtime.getRuntime().availableProcessors();
        byte[] callerMask = CpuAffinity.currentMask();
        try (ConnectedPair pair = new ConnectedPair(registry, options.iaName(), BUFFER, options.depth())) {
            // after the IA opened: an IA that does not open gives its one line of error and no table
            out.printf("dat perf %s: one JVM, %d CPUs%n", options.iaName(), cpus);
            out.println(PerfReport.HEADER);
            out.flush();
            pinned = cpus >= 2;
            double spinRtt = spinPingPongHalfRoundTrip();
            long maxMessage = Math.min(pair.attributes.maxMessageSize(), BUFFER);
            long maxRdma = Math.min(pair.attributes.maxRdmaSize(), BUFFER);
            for (long size : options.latencySizes()) {
                if (size <= maxMessage) {
                    add(latency(pair, size, false, spinRtt));
                }
                if (size >= Long.BYTES && size <= maxRdma) {
                    add(latency(pair, size, true, spinRtt));
                } else if (size < Long.BYTES) {
                    // said, not dropped: each write's last 8 bytes are the sequence the other side polls for
                    out.printf("RDMA-write ping-pong %d B: not measured, each message carries an 8-byte sequence%n", size);
                }
            }
            for (long size : options.bandwidthSizes()) {
                double copy = memcpyBandwidth(pair, size);
                if (size <= maxRdma) {
                    add(bandwidth(pair, size, Op.RDMA_WRITE, copy));
                    add(bandwidth(pair, size, Op.RDMA_READ, copy));
                }
                if (size <= maxMessage) {
                    add(bandwidth(pair, size, Op.SEND, copy));
                }
            }
            add(messageRate(pair));
            add(connectionRate(pair));
            // the spin once more: where the host moved the two CPUs closer or apart during the run
            // (a line's cost between them can change threefold on a VM), this shows it beside the
            // figures, which moved with it
            add(new Figure("spin ping-pong 8 B again, after the run", 0, "us", spinPingPongHalfRoundTrip(), null,
                    "spin ping-pong before the run", spinRtt, false));
        } finally {
            CpuAffinity.restore(callerMask); // the command's thread serves later commands unpinned
        }
        return figures;
    }

    private void add(Figure figure) {
        figures.add(figure);
        out.println(PerfReport.line(figure));
        out.flush();
    }

    enum Op {
        RDMA_WRITE("RDMA write"), RDMA_READ("RDMA read"), SEND("send");

        final String label;

        Op(String label) {
            this.label = label;
        }

        /** The series of this operation's bandwidth figures, e.g. "send bandwidth". */
        String bandwidthSeries() {
            return label + " bandwidth";
        }
    }

    // ---- baselines -------------------------------------------------------------------------

    /**
     * A raw two-thread spin ping-pong, the floor of an in-JVM round trip: each thread spins with
     * acquire loads and answers with a release store of a long, no locked instruction and no
     * fence, once with both words on one cache line (which then moves once per half round trip)
     * and once with each on a line of its own, as the raw shared-memory spin between two processes
     * has them ({@link ShmSpin}); the faster of the two. On this project's 2-core VM a standalone
     * test read 21–28 ns per half round trip on one line against 25–57 ns on two in the host's
     * fast mode, and in its slow mode 124–190 ns on one line against 53 ns on two once; volatile
     * stores (a full fence on x86) read as fast or slower (26–33 ns, once 215 ns; 190 ns in the
     * slow mode).
     * Warmed up as a latency figure is (a quarter of the round trips, and for the warm-up time and
     * {@link #JIT_WARMUP_NANOS} at least, then until the JIT settled), on the same two pinned
     * CPUs: it runs first, while the JIT's compiler threads still compile the launch on those
     * CPUs, and timed after a count of round trips alone it could time code not compiled yet, or
     * share its CPUs with the compilers.
     */
    private double spinPingPongHalfRoundTrip() {
        return Math.min(spinPingPongHalfRoundTrip(SPIN_PONG_SAME_LINE), spinPingPongHalfRoundTrip(SPIN_PONG_OWN_LINE));
    }

    /** {@link #spinPingPongHalfRoundTrip()} with the pong word at byte {@code pongAt} of a line-aligned segment, the ping at 0. */
    private double spinPingPongHalfRoundTrip(long pongAt) {
        MemorySegment line = Arena.ofAuto().allocate(SPIN_PONG_OWN_LINE + 64, 64);
        LatencySamples samples = new LatencySamples(options.latencyIterations());
        CompletableFuture<Void> peer = onPeerThread(() -> {
            for (long i = 1; i <= samples.peerRoundTrips(); i++) {
                while ((long) LONG.getAcquire(line, SPIN_PING) != i) {
                    Thread.onSpinWait();
                }
                LONG.setRelease(line, pongAt, i);
            }
        });
        pin(0);
        samples.start(Math.max(options.warmupNanos(), JIT_WARMUP_NANOS), settleLimitNanos());
        for (long i = 1; samples.more(i); i++) {
            long start = System.nanoTime();
            LONG.setRelease(line, SPIN_PING, i);
            while ((long) LONG.getAcquire(line, pongAt) != i) {
                Thread.onSpinWait();
            }
            samples.took(i, System.nanoTime() - start);
        }
        join(peer);
        return samples.stats().median();
    }

    /**
     * MemorySegment.copy bandwidth for one size, in GB/s, over the same buffers and the same number
     * of rotating slots as the bandwidth runs, so that both see the same cache footprint. The clock
     * is read once per batch of about 1 MiB of copies, so that small copies are not timed by
     * System.nanoTime.
     */
    private double memcpyBandwidth(ConnectedPair pair, long size) {
        CopyStream copies = new CopyStream(pair.memoryA, pair.memoryB, size, window(pair, size));
        copies.run(throughputWarmupNanos("copy"));
        long[] bytesAndNanos = copies.run(options.measureNanos());
        return (double) bytesAndNanos[0] / bytesAndNanos[1];
    }

    /**
     * The warm-up of a throughput figure of {@code kind}: the run's warm-up time, and
     * {@link #JIT_WARMUP_NANOS} at least for the first figure of the kind.
     */
    private long throughputWarmupNanos(String kind) {
        return warmedUp.add(kind) ? Math.max(options.warmupNanos(), JIT_WARMUP_NANOS) : options.warmupNanos();
    }

    /**
     * The warm-up of a throughput figure of {@code kind}, from now on: {@link #throughputWarmupNanos},
     * and for the first figure of the kind on until the JIT settled.
     */
    private JitSettle throughputWarmUp(String kind) {
        boolean first = !warmedUp.contains(kind);
        return new JitSettle(System.nanoTime(), throughputWarmupNanos(kind), first ? settleLimitNanos() : 0, JitSettle.jvmCompiledMillis());
    }

    /** How long a figure's warm-up may wait for the JIT to settle: not at all in a {@code --quick} run. */
    private long settleLimitNanos() {
        return options.quick() ? 0 : JIT_SETTLE_LIMIT_NANOS;
    }

    /** Outstanding operations of a bandwidth run: the queue depth, as far as half the buffer holds. */
    private static int window(ConnectedPair pair, long size) {
        return (int) Math.max(1, Math.min(pair.depth, BUFFER / 2 / size));
    }

    // ---- latency ---------------------------------------------------------------------------

    private Figure latency(ConnectedPair pair, long size, boolean rdmaWrite, double spinHalfRtt) {
        // warmed up for at least a quarter of the round trips and JIT_WARMUP_NANOS, then until the
        // JIT settled: a figure otherwise times code the JIT has not compiled yet (its compiler
        // threads share the two CPUs with two spinning threads), the first of a run, or the first
        // whose path the compiled code had not seen
        LatencySamples samples = new LatencySamples(options.latencyIterations());
        long deadline = System.nanoTime() + 60_000_000_000L;
        int requestFlags = pair.suppressSupported ? CompletionFlags.SUPPRESS : CompletionFlags.DEFAULT;
        LmrTriplet[] ivA = {LmrTriplet.of(pair.lmrA, 0, size)};
        LmrTriplet[] ivB = {LmrTriplet.of(pair.lmrB, 0, size)};
        LmrTriplet[] recvA = {LmrTriplet.of(pair.lmrA, BUFFER / 2, size)};
        LmrTriplet[] recvB = {LmrTriplet.of(pair.lmrB, BUFFER / 2, size)};
        // RDMA-write ping-pong: each side writes its outbox (offset 0) into the other's inbox
        long inbox = BUFFER / 4;
        RmrTriplet toB = RmrTriplet.of(pair.lmrB, inbox, size);
        RmrTriplet toA = RmrTriplet.of(pair.lmrA, inbox, size);
        pair.memoryA.asSlice(0, size).fill((byte) 0);
        pair.memoryB.asSlice(0, size).fill((byte) 0);
        pair.memoryA.asSlice(inbox, size).fill((byte) 0);
        pair.memoryB.asSlice(inbox, size).fill((byte) 0);
        if (!rdmaWrite) {
            // half the queue each side, one at least: a side reposts only once one of its receives completed
            for (int i = 0; i < Math.max(1, pair.depth / 2); i++) {
                Spin.check(pair.epA.postRecv(1, recvA, 0, CompletionFlags.DEFAULT), "dat_ep_post_recv");
                Spin.check(pair.epB.postRecv(1, recvB, 0, CompletionFlags.DEFAULT), "dat_ep_post_recv");
            }
        }
        long seqOffset = size - 8;
        long inboxSeq = inbox + seqOffset;
        CompletableFuture<Void> peer = onPeerThread(() -> {
            DatEvent event = new DatEvent();
            DatEvent drained = new DatEvent();
            for (long i = 1; i <= samples.peerRoundTrips(); i++) {
                if (rdmaWrite) {
                    while ((long) LONG.getVolatile(pair.memoryB, inboxSeq) != i) {
                        Thread.onSpinWait();
                    }
                    pair.memoryB.set(ValueLayout.JAVA_LONG, seqOffset, i);
                    Spin.check(pair.epB.postRdmaWrite(1, ivB, i, toA, requestFlags), "dat_ep_post_rdma_write");
                } else {
                    Spin.completion(pair.recvB, event, deadline);
                    Spin.check(pair.epB.postRecv(1, recvB, 0, CompletionFlags.DEFAULT), "dat_ep_post_recv");
                    Spin.check(pair.epB.postSend(1, ivB, i, requestFlags), "dat_ep_post_send");
                }
                if (!pair.suppressSupported) {
                    Spin.drain(pair.requestB, drained);
                }
            }
        });
        pin(0);
        DatEvent event = new DatEvent();
        DatEvent drained = new DatEvent();
        samples.start(Math.max(options.warmupNanos(), JIT_WARMUP_NANOS), settleLimitNanos());
        for (long i = 1; samples.more(i); i++) {
            long start = System.nanoTime();
            if (rdmaWrite) {
                pair.memoryA.set(ValueLayout.JAVA_LONG, seqOffset, i);
                Spin.check(pair.epA.postRdmaWrite(1, ivA, i, toB, requestFlags), "dat_ep_post_rdma_write");
                while ((long) LONG.getVolatile(pair.memoryA, inboxSeq) != i) {
                    Thread.onSpinWait();
                }
            } else {
                Spin.check(pair.epA.postSend(1, ivA, i, requestFlags), "dat_ep_post_send");
                Spin.completion(pair.recvA, event, deadline);
                Spin.check(pair.epA.postRecv(1, recvA, 0, CompletionFlags.DEFAULT), "dat_ep_post_recv");
            }
            samples.took(i, System.nanoTime() - start);
            if (!pair.suppressSupported) {
                Spin.drain(pair.requestA, drained);
            }
        }
        join(peer);
        if (!rdmaWrite) {
            flushReceives(pair);
        }
        Stats stats = samples.stats();
        return new Figure(rdmaWrite ? "RDMA write latency" : "send/recv latency", size, "us", stats.median(), stats,
                "spin ping-pong", spinHalfRtt, false);
    }

    /** Reconnects the pair so that receives left posted by a latency run do not linger. */
    private static void flushReceives(ConnectedPair pair) {
        pair.disconnect(pair.epA);
        DatEvent event = new DatEvent();
        Spin.drainFlushed(pair.recvA, event);
        Spin.drainFlushed(pair.recvB, event);
        Spin.drainFlushed(pair.requestA, event);
        Spin.drainFlushed(pair.requestB, event);
        pair.epA.reset();
        pair.epB.reset();
        pair.connect(pair.epA, pair.epB);
    }

    // ---- bandwidth -------------------------------------------------------------------------

    private Figure bandwidth(ConnectedPair pair, long size, Op op, double memcpyGBs) {
        int window = window(pair, size);
        LmrTriplet[][] local = new LmrTriplet[window][];
        RmrTriplet[] remote = new RmrTriplet[window];
        // sends: up to twice the window of receives ahead, so that credits below seldom hold the
        // sender back; they land in the window's bytes, as the RDMA writes and the copies do: the
        // same footprint (in a standalone test on this project's 2-core VM, sends of 1 MiB into
        // twice the window's bytes read 30-34 GB/s, into the window's 48-52, RDMA writes 50-52)
        int recvSlots = op == Op.SEND ? (int) Math.min(2L * window, pair.recvDepth) : window;
        LmrTriplet[][] recv = new LmrTriplet[recvSlots][];
        for (int slot = 0; slot < window; slot++) {
            local[slot] = new LmrTriplet[] {LmrTriplet.of(pair.lmrA, slot * size, size)};
            remote[slot] = RmrTriplet.of(pair.lmrB, slot * size, size);
        }
        for (int slot = 0; slot < recvSlots; slot++) {
            recv[slot] = new LmrTriplet[] {LmrTriplet.of(pair.lmrB, slot % window * size, size)};
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        CompletableFuture<Void> peer = null;
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        // sends go out only against receives already posted (credits): a send completes when the
        // peer's NIC took it, not when its consumer reposted, so without credits the sender
        // outruns the receiver and meets receiver-not-ready, which verbs retries on a timer
        // (soft-RoCE under emulation stalled on it) and which would measure the timer
        AtomicLong receivesPosted = new AtomicLong();
        long sends = 0;
        long credits = 0; // the sender's copy of receivesPosted, read again only when it runs out
        if (op == Op.SEND) {
            for (int slot = 0; slot < recvSlots; slot++) {
                Spin.check(pair.epB.postRecv(1, recv[slot], slot, CompletionFlags.DEFAULT), "dat_ep_post_recv");
            }
            receivesPosted.set(recvSlots);
            peer = reposting(pair, recv, receivesPosted, stop);
        }
        pin(0);
        DatEvent event = new DatEvent();
        int outstanding = 0;
        long completed = 0;
        JitSettle warmUp = throughputWarmUp(op.name());
        long end = Long.MAX_VALUE;
        long start = 0;
        long completedAtStart = 0;
        int nextSlot = 0;
        boolean[] busy = new boolean[window];
        long now;
        while (true) {
            while (outstanding < window && !busy[nextSlot]
                    && (op != Op.SEND || sends < credits || sends < (credits = receivesPosted.get()))) {
                int code = switch (op) {
                    case RDMA_WRITE -> pair.epA.postRdmaWrite(1, local[nextSlot], nextSlot, remote[nextSlot], CompletionFlags.DEFAULT);
                    case RDMA_READ -> pair.epA.postRdmaRead(1, local[nextSlot], nextSlot, remote[nextSlot], CompletionFlags.DEFAULT);
                    case SEND -> pair.epA.postSend(1, local[nextSlot], nextSlot, CompletionFlags.DEFAULT);
                };
                if (DatReturn.typeOf(code) == DatReturn.INSUFFICIENT_RESOURCES) {
                    break;
                }
                Spin.check(code, op.label);
                sends++;
                busy[nextSlot] = true;
                outstanding++;
                nextSlot = (nextSlot + 1) % window;
            }
            if (outstanding == 0) {
                // no credit: every send completed, and the receiver has yet to repost
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no receive reposted within the benchmark's deadline");
                }
                Thread.onSpinWait();
                continue;
            }
            int slot = (int) Spin.completion(pair.requestA, event, deadline);
            busy[slot] = false;
            outstanding--;
            completed++;
            now = System.nanoTime();
            if (start == 0 && warmUp.settledAt(now)) {
                start = now;
                end = now + options.measureNanos();
                completedAtStart = completed;
            }
            if (now >= end) {
                break;
            }
        }
        while (outstanding > 0) {
            Spin.completion(pair.requestA, event, deadline);
            outstanding--;
        }
        double gbs = (completed - completedAtStart) * (double) size / ((now - start) / 1e9) / 1e9;
        if (peer != null) {
            stop.set(true);
            join(peer);
            flushReceives(pair);
        }
        return new Figure(op.bandwidthSeries(), size, "GB/s", gbs, null, "MemorySegment.copy", memcpyGBs, true);
    }

    // ---- message rate and connection rate -------------------------------------------------

    private Figure messageRate(ConnectedPair pair) {
        long size = 64;
        // DAT's UNSIGNALLED still queues an event (it only skips notification); SUPPRESS drops the
        // events of successful requests, which is what "one completion per 16" means here
        int signalEvery = pair.suppressSupported ? Math.min(16, pair.depth) : 1;
        int window = pair.depth - pair.depth % signalEvery;
        LmrTriplet[] send = {LmrTriplet.of(pair.lmrA, 0, size)};
        LmrTriplet[] recv = {LmrTriplet.of(pair.lmrB, 0, size)};
        for (int i = 0; i < pair.recvDepth; i++) {
            Spin.check(pair.epB.postRecv(1, recv, 0, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        }
        // credits, as in the send bandwidth: a send goes out only against a posted receive
        AtomicLong receivesPosted = new AtomicLong(pair.recvDepth);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        CompletableFuture<Void> peer = reposting(pair, new LmrTriplet[][] {recv}, receivesPosted, stop);
        pin(0);
        DatEvent event = new DatEvent();
        long deadline = System.nanoTime() + 60_000_000_000L;
        JitSettle warmUp = throughputWarmUp("message rate");
        long end = Long.MAX_VALUE;
        long posted = 0;
        long credits = 0; // the sender's copy of receivesPosted, read again only when it runs out
        long unacknowledged = 0;
        long start = 0;
        long postedAtStart = 0;
        long now;
        while (true) {
            while (unacknowledged < window && (posted < credits || posted < (credits = receivesPosted.get()))) {
                boolean signalled = (posted + 1) % signalEvery == 0;
                int code = pair.epA.postSend(1, send, posted, signalled ? CompletionFlags.DEFAULT : CompletionFlags.SUPPRESS);
                if (DatReturn.typeOf(code) == DatReturn.INSUFFICIENT_RESOURCES) {
                    break;
                }
                Spin.check(code, "dat_ep_post_send");
                posted++;
                unacknowledged++;
            }
            if (unacknowledged >= signalEvery) {
                // a signalled send is outstanding: its completion accounts for the signalEvery before it
                Spin.completion(pair.requestA, event, deadline);
                unacknowledged -= signalEvery;
            } else if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no receive reposted within the benchmark's deadline");
            } else {
                Thread.onSpinWait(); // waiting for credits
            }
            now = System.nanoTime();
            if (start == 0 && warmUp.settledAt(now)) {
                start = now;
                end = now + options.measureNanos();
                postedAtStart = posted;
            }
            if (now >= end) {
                break;
            }
        }
        while (unacknowledged >= signalEvery) {
            Spin.completion(pair.requestA, event, deadline);
            unacknowledged -= signalEvery;
        }
        // the unsignalled tail has landed (each received message was reposted) before the receives are flushed
        while (receivesPosted.get() - pair.recvDepth < posted) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no completion within the benchmark's deadline");
            }
            Thread.onSpinWait();
        }
        double rate = (posted - postedAtStart) / ((now - start) / 1e9);
        stop.set(true);
        join(peer);
        flushReceives(pair);
        String series = "64 B message rate, 1 completion per " + signalEvery;
        return new Figure(series, size, "Mops/s", rate / 1e6, null, null, Double.NaN, true);
    }

    /** Reposts the receiving side of the send benchmarks makes before it publishes them as credits. */
    private static final int CREDIT_BATCH = 8;

    /**
     * The receiving side of the send benchmarks, on the peer thread: reposts each receive as it
     * completes into the slot its cookie names, and counts the receives posted (the sender's
     * credits) until {@code stop}. The count is published every {@link #CREDIT_BATCH} reposts, and
     * whenever the receive EVD is found empty, as a credit-based protocol returns credits; the
     * sender reads it only when the credits it saw run out. So the credits cost a message no cache
     * line moving between the two threads that an RDMA write does not pay.
     */
    private CompletableFuture<Void> reposting(ConnectedPair pair, LmrTriplet[][] slots, AtomicLong receivesPosted,
            java.util.concurrent.atomic.AtomicBoolean stop) {
        return onPeerThread(() -> {
            DatEvent event = new DatEvent();
            long posted = receivesPosted.getPlain();
            long published = posted;
            while (!stop.get()) {
                if (pair.recvB.dequeue(event) == DatReturn.SUCCESS) {
                    int slot = (int) event.userCookie();
                    Spin.check(pair.epB.postRecv(1, slots[slot], slot, CompletionFlags.DEFAULT), "dat_ep_post_recv");
                    if (++posted - published >= CREDIT_BATCH) {
                        // the one writer: a release store, no locked instruction
                        receivesPosted.setRelease(posted);
                        published = posted;
                    }
                } else {
                    if (published != posted) {
                        receivesPosted.setRelease(posted);
                        published = posted;
                    }
                    Thread.onSpinWait();
                }
            }
            receivesPosted.setRelease(posted);
        });
    }

    private Figure connectionRate(ConnectedPair pair) {
        int connections = options.connections();
        // untimed first, as the latencies are: a quarter as many connections, the warm-up time, and
        // (unless --quick) on until the JIT settled
        JitWarmUp.run(() -> connectAndDisconnect(pair), connections / 4, options.warmupNanos(),
                options.quick() ? options.warmupNanos() : JitWarmUp.LIMIT_NANOS);
        return ConnectionBatches.time(connections, () -> connectAndDisconnect(pair))
                .figure("connection setup (create, connect, accept, established, disconnect)");
    }

    private static void connectAndDisconnect(ConnectedPair pair) {
        try (Endpoint active = pair.ia.createEndpoint(pair.pz, pair.recvA, pair.requestA, pair.connA, pair.attributes);
                Endpoint passive = pair.ia.createEndpoint(pair.pz, pair.recvB, pair.requestB, pair.connB, pair.attributes)) {
            pair.connect(active, passive);
            pair.disconnect(active);
        }
    }

    // ---- threads ---------------------------------------------------------------------------

    private CompletableFuture<Void> onPeerThread(Runnable body) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            pin(1);
            try {
                body.run();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "dat-perf-peer");
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    private void pin(int cpu) {
        if (pinned && !CpuAffinity.pinCurrentThread(cpu % cpus)) {
            pinned = false;
        }
    }

    private static void join(CompletableFuture<Void> peer) {
        try {
            peer.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the peer thread failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the peer thread did not finish within 60 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }
}
