package dat.tests.conformance.transactions;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EventNumber;
import dat.api.EpAttributes;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.DataPattern;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.internal.RemotePeer;
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
        java.util.Optional<java.net.InetSocketAddress> agent = t.remotePeer();
        List<List<End[]>> perThread = new ArrayList<>();
        List<RemotePeer> remotes = new ArrayList<>();
        try {
            for (int thread = 0; thread < threads; thread++) {
                InterfaceAdapter client = t.open();
                InterfaceAdapter server = agent.isPresent() ? null : t.open();
                List<End[]> ends = new ArrayList<>();
                for (int ep = 0; ep < epsPerThread; ep++) {
                    if (agent.isPresent()) {
                        // the server side is a peer agent in another process (dat test --serve)
                        RemotePeer remote = RemotePeer.connect(t, client, attributes, agent.get());
                        remotes.add(remote);
                        ends.add(new End[] {new LocalEnd(remote.local), new RemoteEnd(remote)});
                    } else {
                        Connection c = t.connection().ias(client, server).attributes(attributes).connect();
                        ends.add(new End[] {new LocalEnd(c.active), new LocalEnd(c.passive)});
                    }
                }
                perThread.add(ends);
            }
            runThreads(perThread);
        } finally {
            for (RemotePeer remote : remotes) {
                remote.close();
            }
        }
    }

    private void runThreads(List<List<End[]>> perThread) throws Exception {
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

    private void runThread(int thread, List<End[]> pairs) {
        for (int iteration = 0; iteration < iterations; iteration++) {
            for (int pair = 0; pair < pairs.size(); pair++) {
                End[] ends = pairs.get(pair);
                long offset = 0;
                for (int index = 0; index < ops.size(); index++) {
                    Op op = ops.get(index);
                    int seed = ((iteration * 31 + thread) * 31 + pair) * 31 + index;
                    String what = "iteration " + iteration + ", thread " + thread + ", EP pair " + pair + ", op " + index + " (" + op + ")";
                    End initiator = op.initiator() == Side.CLIENT ? ends[0] : ends[1];
                    End responder = op.initiator() == Side.CLIENT ? ends[1] : ends[0];
                    execute(op, initiator, responder, offset, seed, what);
                    offset += op.length();
                }
            }
        }
    }

    private void execute(Op op, End initiator, End responder, long offset, int seed, String what) {
        long length = op.length();
        switch (op.kind()) {
            case SR -> {
                responder.clear(offset, length);
                initiator.fill(offset, length, seed);
                t.expectSuccess(responder.post(Post.RECV, op, offset, seed, null), "dat_ep_post_recv, " + what);
                t.expectSuccess(initiator.post(Post.SEND, op, offset, seed, null), "dat_ep_post_send, " + what);
                expectCompletion(initiator, false, seed, "the send, " + what);
                RemotePeer.Completion received = expectCompletion(responder, true, seed, "the receive, " + what);
                t.check(received.transferredLength() == length, "the receive, " + what + ": transferred_length " + received.transferredLength()
                        + ", expected " + length);
                responder.verify(offset, length, seed, "the received bytes, " + what);
            }
            case RW -> {
                responder.clear(offset, length);
                initiator.fill(offset, length, seed);
                t.expectSuccess(initiator.post(Post.RDMA_WRITE, op, offset, seed, responder.remote(offset, length)),
                        "dat_ep_post_rdma_write, " + what);
                expectCompletion(initiator, false, seed, "the RDMA Write, " + what);
                if (t.provider().lmrSyncRequired()) {
                    responder.sync(true, offset, length);
                }
                responder.verify(offset, length, seed, "the bytes written, " + what);
            }
            case RR -> {
                initiator.clear(offset, length);
                responder.fill(offset, length, seed);
                if (t.provider().lmrSyncRequired()) {
                    responder.sync(false, offset, length);
                }
                t.expectSuccess(initiator.post(Post.RDMA_READ, op, offset, seed, responder.remote(offset, length)),
                        "dat_ep_post_rdma_read, " + what);
                expectCompletion(initiator, false, seed, "the RDMA Read, " + what);
                initiator.verify(offset, length, seed, "the bytes read, " + what);
            }
        }
    }

    private RemotePeer.Completion expectCompletion(End side, boolean receive, int cookie, String what) {
        RemotePeer.Completion event = side.completion(receive, what);
        t.check(event.code() == DatReturn.SUCCESS, "waiting for " + what + ": dat_evd_wait returned " + DatReturn.describe(event.code()));
        t.check(event.eventNumber() == EventNumber.DTO_COMPLETION_EVENT, what + ": expected a DTO completion, got "
                + EventNumber.name(event.eventNumber()));
        t.check(event.status() == DtoCompletionStatus.SUCCESS, what + ": expected DAT_DTO_SUCCESS, got " + DtoCompletionStatus.name(event.status()));
        t.check(event.cookie() == cookie, what + ": user_cookie " + event.cookie() + ", expected " + cookie);
        t.check(event.onAgentEndpoint(), what + ": the completion names another Endpoint");
        return event;
    }

    /** The four posts of an op. */
    enum Post { RECV, SEND, RDMA_WRITE, RDMA_READ }

    /** One side of a pair, in this process or in a peer agent; offsets are into its buffer. */
    private interface End {
        void clear(long offset, long length);

        void fill(long offset, long length, int seed);

        void verify(long offset, long length, int seed, String what);

        int post(Post post, Op op, long offset, int cookie, RmrTriplet remote);

        RemotePeer.Completion completion(boolean receive, String what);

        RmrTriplet remote(long offset, long length);

        void sync(boolean write, long offset, long length);
    }

    /** A side in this process. */
    private final class LocalEnd implements End {
        private final Connection.Side side;

        LocalEnd(Connection.Side side) {
            this.side = side;
        }

        @Override
        public void clear(long offset, long length) {
            side.buffer().asSlice(offset, length).fill((byte) 0);
        }

        @Override
        public void fill(long offset, long length, int seed) {
            DataPattern.fill(side.buffer().asSlice(offset, length), seed);
        }

        @Override
        public void verify(long offset, long length, int seed, String what) {
            t.verify(side.buffer().asSlice(offset, length), seed, 0, what);
        }

        @Override
        public int post(Post post, Op op, long offset, int cookie, RmrTriplet remote) {
            LmrTriplet[] iov = iov(side, offset, op);
            return switch (post) {
                case RECV -> side.ep.postRecv(op.segments(), iov, cookie, CompletionFlags.DEFAULT);
                case SEND -> side.ep.postSend(op.segments(), iov, cookie, CompletionFlags.DEFAULT);
                case RDMA_WRITE -> side.ep.postRdmaWrite(op.segments(), iov, cookie, remote, CompletionFlags.DEFAULT);
                case RDMA_READ -> side.ep.postRdmaRead(op.segments(), iov, cookie, remote, CompletionFlags.DEFAULT);
            };
        }

        @Override
        public RemotePeer.Completion completion(boolean receive, String what) {
            DatEvent event = t.completion(receive ? side.recvEvd : side.requestEvd, what);
            return new RemotePeer.Completion(DatReturn.SUCCESS, event.eventNumber(), event.status(), event.userCookie(),
                    event.transferredLength(), event.endpoint() == side.ep);
        }

        @Override
        public RmrTriplet remote(long offset, long length) {
            return side.remote(offset, length);
        }

        @Override
        public void sync(boolean write, long offset, long length) {
            if (write) {
                side.ia.syncRdmaWrite(side.iov(offset, length), 1);
            } else {
                side.ia.syncRdmaRead(side.iov(offset, length), 1);
            }
        }
    }

    /** A side in a peer agent. */
    private static final class RemoteEnd implements End {
        private final RemotePeer peer;

        RemoteEnd(RemotePeer peer) {
            this.peer = peer;
        }

        @Override
        public void clear(long offset, long length) {
            peer.clear(offset, length);
        }

        @Override
        public void fill(long offset, long length, int seed) {
            peer.fill(offset, length, seed);
        }

        @Override
        public void verify(long offset, long length, int seed, String what) {
            peer.verify(offset, length, seed, what);
        }

        @Override
        public int post(Post post, Op op, long offset, int cookie, RmrTriplet remote) {
            return switch (post) {
                case RECV -> peer.post(true, op.segments(), op.segmentSize(), offset, cookie);
                case SEND -> peer.post(false, op.segments(), op.segmentSize(), offset, cookie);
                case RDMA_WRITE -> peer.postRdma(true, op.segments(), op.segmentSize(), offset, cookie, remote);
                case RDMA_READ -> peer.postRdma(false, op.segments(), op.segmentSize(), offset, cookie, remote);
            };
        }

        @Override
        public RemotePeer.Completion completion(boolean receive, String what) {
            return peer.completion(receive);
        }

        @Override
        public RmrTriplet remote(long offset, long length) {
            return peer.remote(offset, length);
        }

        @Override
        public void sync(boolean write, long offset, long length) {
            peer.sync(write, offset, length);
        }
    }

    private static LmrTriplet[] iov(Connection.Side side, long offset, Op op) {
        LmrTriplet[] iov = new LmrTriplet[op.segments()];
        for (int i = 0; i < iov.length; i++) {
            iov[i] = LmrTriplet.of(side.lmr, offset + (long) i * op.segmentSize(), op.segmentSize());
        }
        return iov;
    }
}
