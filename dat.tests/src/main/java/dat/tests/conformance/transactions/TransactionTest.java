package dat.tests.conformance.transactions;

import static dat.tests.conformance.transactions.Transaction.Kind.RR;
import static dat.tests.conformance.transactions.Transaction.Kind.RW;
import static dat.tests.conformance.transactions.Transaction.Kind.SR;
import static dat.tests.conformance.transactions.Transaction.Side.CLIENT;
import static dat.tests.conformance.transactions.Transaction.Side.SERVER;
import static dat.tests.conformance.transactions.Transaction.op;

import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.transactions.Transaction.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Timeout;

/**
 * Transaction tests after dapltest's {@code scripts/regress.sh}: op lists of sends/receives, RDMA
 * Reads and RDMA Writes over many Endpoints and threads, with every byte checked. Iteration counts
 * are smaller than regress.sh's 10 000 so that the suite stays within minutes on two cores.
 */
class TransactionTest {

    /** dapltest's mixed 8-op list. */
    private static final List<Op> MIXED = List.of(
            op(CLIENT, SR, 1024, 3), op(SERVER, SR, 1536, 2), op(CLIENT, RW, 2048, 4), op(SERVER, RW, 512, 1),
            op(CLIENT, RR, 1024, 2), op(SERVER, RR, 4096, 1), op(CLIENT, SR, 64, 1), op(SERVER, SR, 0, 1));

    private static final List<Op> MIXED_NO_READ = MIXED.stream().filter(op -> op.kind() != RR).toList();

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: transaction SR 256 both ways, 1 thread x 1 EP x 500 iterations (dapltest regress 1)")
    @Timeout(300)
    void sendReceive(IaUnderTest t) throws Exception {
        new Transaction(t, 1, 1, 500, List.of(op(CLIENT, SR, 256, 1), op(SERVER, SR, 256, 1))).run();
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_SUCCESS: transaction SR + RW 4096, 1 thread x 1 EP x 200 iterations (dapltest regress 2)")
    @Timeout(300)
    void sendAndWrite(IaUnderTest t) throws Exception {
        new Transaction(t, 1, 1, 200, List.of(op(CLIENT, SR, 256, 1), op(SERVER, SR, 256, 1), op(CLIENT, RW, 4096, 1),
                op(SERVER, RW, 4096, 1))).run();
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_read(3DAT) DAT_SUCCESS: transaction SR + RR 4096, 1 thread x 1 EP x 200 iterations (dapltest regress 3)")
    @Timeout(300)
    void sendAndRead(IaUnderTest t) throws Exception {
        new Transaction(t, 1, 1, 200, List.of(op(CLIENT, SR, 256, 1), op(SERVER, SR, 256, 1), op(CLIENT, RR, 4096, 1),
                op(SERVER, RR, 4096, 1))).run();
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: transaction of the mixed 8-op list, 1 thread x 1 EP x 100 iterations (dapltest regress 4)")
    @Timeout(300)
    void mixedOneEp(IaUnderTest t) throws Exception {
        new Transaction(t, 1, 1, 100, mixed(t)).run();
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: transaction of the mixed 8-op list, 1 thread x 8 EPs x 25 iterations (dapltest regress 5)")
    @Timeout(300)
    void mixedEightEps(IaUnderTest t) throws Exception {
        new Transaction(t, 1, 8, 25, mixed(t)).run();
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: transaction of the mixed 8-op list, 4 threads x 8 EPs x 10 iterations (dapltest regress 6)")
    @Timeout(300)
    void mixedFourThreads(IaUnderTest t) throws Exception {
        new Transaction(t, 4, 8, 10, mixed(t)).run();
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_rdma_write(3DAT) DAT_SUCCESS: transaction of 64 random ops of random sizes, 2 threads x 4 EPs x 5 iterations")
    @Timeout(300)
    void random(IaUnderTest t) throws Exception {
        Random random = new Random(20_041_216);
        boolean reads = t.attributes().maxRdmaReadPerEpOut() > 0 && t.attributes().maxRdmaReadPerEpIn() > 0;
        List<Op> ops = new ArrayList<>();
        long total = 0;
        while (ops.size() < 64) {
            List<Transaction.Kind> kinds = reads ? List.of(SR, RR, RW) : List.of(SR, RW);
            Transaction.Kind kind = kinds.get(random.nextInt(kinds.size()));
            int segments = 1 + random.nextInt(Math.min(3, t.epAttributes().maxRequestIov()));
            int size = 1 + random.nextInt(400);
            if (total + (long) size * segments > IaUnderTest.BUFFER_SIZE) {
                break;
            }
            total += (long) size * segments;
            ops.add(op(random.nextBoolean() ? CLIENT : SERVER, kind, size, segments));
        }
        new Transaction(t, 2, 4, 5, ops).run();
    }

    /** The mixed list, without its RDMA Reads where the IA has none, with segments within the IA's IOV limits. */
    private static List<Op> mixed(IaUnderTest t) {
        boolean reads = t.attributes().maxRdmaReadPerEpOut() > 0 && t.attributes().maxRdmaReadPerEpIn() > 0;
        int maxSegments = Math.min(t.attributes().maxIovSegmentsPerDto(), 4);
        return (reads ? MIXED : MIXED_NO_READ).stream()
                .map(op -> op.segments() <= maxSegments ? op : op(op.initiator(), op.kind(), op.segmentSize() * op.segments() / maxSegments,
                        maxSegments))
                .toList();
    }
}
