package dat.tests.conformance.transactions;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.EpAttributes;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.IaUnderTest;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A dapltest-style transaction test ({@code dapltest -T T -t threads -w EPs/thread -i iterations
 * op...}): each thread owns its Endpoint pairs, on IA instances of its own, and runs the op list
 * on each pair for every iteration. Every byte moved is checked: the source is filled with a
 * pattern that depends on the iteration, thread, pair and op, the target is cleared first, and
 * after the completion the target must hold exactly the pattern.
 */
final class Transaction {

    /** Which side starts an operation. */
    enum Side { CLIENT, SERVER }

    /** The kinds of operation: send/receive, RDMA Read, RDMA Write. */
    enum Kind { SR, RR, RW }

    /**
     * One operation of the list.
     *
     * @param initiator the side that posts the send, read or write
     * @param kind the operation
     * @param segmentSize bytes per segment
     * @param segments segments per operation
     */
    record Op(Side initiator, Kind kind, int segmentSize, int segments) {
        long length() {
            return (long) segmentSize * segments;
        }

        @Override
        public String toString() {
            return initiator.name().toLowerCase() + " " + kind + " " + segmentSize + (segments > 1 ? " " + segments : "");
        }
    }

    static Op op(Side initiator, Kind kind, int segmentSize, int segments) {
        return new Op(initiator, kind, segmentSize, segments);
    }

    private final IaUnderTest t;
    private final int threads;
    private final int epsPerThread;
    private final int iterations;
    private final List<Op> ops;

    Transaction(IaUnderTest t, int threads, int epsPerThread, int iterations, List<Op> ops) {
        this.t = t;
        this.threads = threads;
        this.epsPerThread = epsPerThread;
        this.iterations = iterations;
        this.ops = List.copyOf(ops);
    }

    /** Sets everything up, runs every thread to the end, and fails with the first failure of any thread. */
    void run() throws Exception {
        if (ops.stream().anyMatch(op -> op.kind() == Kind.RR)) {
            t.requireRdmaRead();
        }
        long bytesPerPair = ops.stream().mapToLong(Op::length).sum();
        t.requireFeasible(bytesPerPair <= IaUnderTest.BUFFER_SIZE, "the op list moves " + bytesPerPair + " bytes per iteration, more than a "
                + "pair's buffer");
        int pairs = threads * epsPerThread;
        t.requireFeasible(t.attributes().maxEps() >= 2 * pairs && t.attributes().maxEvds() >= 8 * pairs
                && t.attributes().maxLmrs() >= 2 * pairs, pairs + " Endpoint pairs exceed the IA's limits");
        EpAttributes attributes = attributes();
        List<List<Connection>> perThread = new ArrayList<>();
        for (int thread = 0; thread < threads; thread++) {
            InterfaceAdapter client = t.open();
            InterfaceAdapter server = t.open();
            List<Connection> connections = new ArrayList<>();
            for (int ep = 0; ep < epsPerThread; ep++) {
                connections.add(t.connection().ias(client, server).attributes(attributes).connect());
            }
            perThread.add(connections);
        }
        ExecutorService executor = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "dat-conformance-transaction");
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < threads; thread++) {
                int id = thread;
                futures.add(executor.submit(() -> runThread(id, perThread.get(id))));
            }
            for (Future<?> future : futures) {
                try {
                    future.get(240, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    if (e.getCause() instanceof Error error) {
                        throw error;
                    }
                    throw e;
                }
            }
        } finally {
            executor.shutdownNow();
        }
    }

    private EpAttributes attributes() {
        int maxSegments = ops.stream().mapToInt(Op::segments).max().orElse(1);
        long maxLength = ops.stream().mapToLong(Op::length).max().orElse(1);
        int depth = ops.size() + 2;
        return t.epAttributesBuilder()
                .maxRecvDtos(depth).maxRequestDtos(depth)
                .maxRecvIov(maxSegments).maxRequestIov(maxSegments).maxRdmaReadIov(maxSegments).maxRdmaWriteIov(maxSegments)
                .maxMessageSize(Math.max(maxLength, 1)).maxRdmaSize(Math.max(maxLength, 1))
                .build();
    }

    private void runThread(int thread, List<Connection> connections) {
        for (int iteration = 0; iteration < iterations; iteration++) {
            for (int pair = 0; pair < connections.size(); pair++) {
                Connection c = connections.get(pair);
                long offset = 0;
                for (int index = 0; index < ops.size(); index++) {
                    Op op = ops.get(index);
                    int seed = ((iteration * 31 + thread) * 31 + pair) * 31 + index;
                    String what = "iteration " + iteration + ", thread " + thread + ", EP pair " + pair + ", op " + index + " (" + op + ")";
                    Connection.Side initiator = op.initiator() == Side.CLIENT ? c.active : c.passive;
                    Connection.Side responder = c.other(initiator);
                    execute(op, initiator, responder, offset, seed, what);
                    offset += op.length();
                }
            }
        }
    }

    private void execute(Op op, Connection.Side initiator, Connection.Side responder, long offset, int seed, String what) {
        long length = op.length();
        switch (op.kind()) {
            case SR -> {
                MemorySegment target = responder.buffer().asSlice(offset, length);
                target.fill((byte) 0);
                IaUnderTest.fill(initiator.buffer().asSlice(offset, length), seed);
                t.expectSuccess(responder.ep.postRecv(op.segments(), iov(responder, offset, op), seed, CompletionFlags.DEFAULT),
                        "dat_ep_post_recv, " + what);
                t.expectSuccess(initiator.ep.postSend(op.segments(), iov(initiator, offset, op), seed, CompletionFlags.DEFAULT),
                        "dat_ep_post_send, " + what);
                expectCompletion(initiator, false, seed, "the send, " + what);
                DatEvent received = expectCompletion(responder, true, seed, "the receive, " + what);
                t.check(received.transferredLength() == length, "the receive, " + what + ": transferred_length " + received.transferredLength()
                        + ", expected " + length);
                t.verify(target, seed, 0, "the received bytes, " + what);
            }
            case RW -> {
                MemorySegment target = responder.buffer().asSlice(offset, length);
                target.fill((byte) 0);
                IaUnderTest.fill(initiator.buffer().asSlice(offset, length), seed);
                t.expectSuccess(initiator.ep.postRdmaWrite(op.segments(), iov(initiator, offset, op), seed, responder.remote(offset, length),
                        CompletionFlags.DEFAULT), "dat_ep_post_rdma_write, " + what);
                expectCompletion(initiator, false, seed, "the RDMA Write, " + what);
                if (t.provider().lmrSyncRequired()) {
                    responder.ia.syncRdmaWrite(responder.iov(offset, length), 1);
                }
                t.verify(target, seed, 0, "the bytes written, " + what);
            }
            case RR -> {
                MemorySegment target = initiator.buffer().asSlice(offset, length);
                target.fill((byte) 0);
                IaUnderTest.fill(responder.buffer().asSlice(offset, length), seed);
                if (t.provider().lmrSyncRequired()) {
                    responder.ia.syncRdmaRead(responder.iov(offset, length), 1);
                }
                RmrTriplet source = responder.remote(offset, length);
                t.expectSuccess(initiator.ep.postRdmaRead(op.segments(), iov(initiator, offset, op), seed, source, CompletionFlags.DEFAULT),
                        "dat_ep_post_rdma_read, " + what);
                expectCompletion(initiator, false, seed, "the RDMA Read, " + what);
                t.verify(target, seed, 0, "the bytes read, " + what);
            }
        }
    }

    private DatEvent expectCompletion(Connection.Side side, boolean receive, int cookie, String what) {
        DatEvent event = t.success(receive ? side.recvEvd : side.requestEvd, what);
        t.check(event.userCookie() == cookie, what + ": user_cookie " + event.userCookie() + ", expected " + cookie);
        t.check(event.endpoint() == side.ep, what + ": the completion names another Endpoint");
        return event;
    }

    private static LmrTriplet[] iov(Connection.Side side, long offset, Op op) {
        LmrTriplet[] iov = new LmrTriplet[op.segments()];
        for (int i = 0; i < iov.length; i++) {
            iov[i] = LmrTriplet.of(side.lmr, offset + (long) i * op.segmentSize(), op.segmentSize());
        }
        return iov;
    }
}
