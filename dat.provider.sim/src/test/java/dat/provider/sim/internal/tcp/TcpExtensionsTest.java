package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.api.RmrTriplet;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IaStatistics;
import dat.api.ext.IaStatisticsSnapshot;
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import dat.api.ext.Operation;
import dat.provider.sim.internal.EvdWaiter;
import dat.provider.sim.internal.Fabric;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The InfiniBand extensions over the TCP wire (ATOMIC_REQUEST, RDMA_WRITE_IMMEDIATE): what the
 * conformance suite's ext area checks on any provider, plus what only this wire can get wrong:
 * pipelines that mix them with sends and writes, a fenced send of an atomic's result,
 * receiver-not-ready for a write with immediate data, atomicity across a TCP target and this
 * JVM's own Endpoints, and the refusal that breaks the connection.
 */
@Timeout(60)
class TcpExtensionsTest {

    private static final String TCP = "tcp=127.0.0.1:0 tcp_timeout_ms=3600000";
    private static final int ATOMIC = MemPrivileges.ALL | IbExtension.MEM_PRIV_REMOTE_ATOMIC;

    private final TcpPair pair = new TcpPair(TCP, "tcpA", "tcpB", 1 << 16);
    private final Fabric fb = pair.fb;
    private final Fabric.Side a = pair.a;
    private final Fabric.Side b = pair.b;
    /** The passive side's operands: a region with the remote-atomic privilege. */
    private final LocalMemoryRegion operands = b.ia.registerMemory(fb.memory(4096), b.pz, ATOMIC);

    @AfterEach
    void close() {
        pair.close();
    }

    private void connect() {
        pair.connect(100, b.ep);
    }

    private static AtomicEndpoint atomic(Endpoint ep) {
        return ep.extension(AtomicEndpoint.class).orElseThrow();
    }

    private static ImmediateDataEndpoint immediate(Endpoint ep) {
        return ep.extension(ImmediateDataEndpoint.class).orElseThrow();
    }

    private DatEvent extensionCompletion(Fabric.Side s, boolean recv, int type) {
        DatEvent e = s.expect(recv ? s.recvEvd : s.reqEvd, IbExtension.IB_DTO_EVENT);
        assertThat(IbExtension.typeName(e.extensionType())).isEqualTo(IbExtension.typeName(type));
        return e;
    }

    @Test
    void fetchAndAddAndCompareAndSwap_returnTheValueBefore_andChangeTheTarget() {
        connect();
        operands.memory().set(ValueLayout.JAVA_LONG, 8, 40L);
        AtomicEndpoint at = atomic(a.ep);
        ok(at.postFetchAndAdd(2, LmrTriplet.of(a.lmr, 0, 8), 1, RmrTriplet.of(operands, 8, 8), CompletionFlags.DEFAULT));
        DatEvent e = extensionCompletion(a, false, IbExtension.FETCH_AND_ADD);
        assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(e.transferredLength()).isEqualTo(8);
        assertThat(e.userCookie()).isEqualTo(1);
        assertThat(a.mem.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(40L);
        assertThat(operands.memory().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(42L);

        ok(at.postCompareAndSwap(42, -1, LmrTriplet.of(a.lmr, 8, 8), 2, RmrTriplet.of(operands, 8, 8), CompletionFlags.DEFAULT));
        ok(at.postCompareAndSwap(42, 7, LmrTriplet.of(a.lmr, 16, 8), 3, RmrTriplet.of(operands, 8, 8), CompletionFlags.DEFAULT));
        assertThat(extensionCompletion(a, false, IbExtension.CMP_AND_SWAP).userCookie()).isEqualTo(2);
        assertThat(extensionCompletion(a, false, IbExtension.CMP_AND_SWAP).userCookie()).isEqualTo(3);
        assertThat(a.mem.get(ValueLayout.JAVA_LONG, 8)).as("found and swapped").isEqualTo(42L);
        assertThat(a.mem.get(ValueLayout.JAVA_LONG, 16)).as("found, not swapped").isEqualTo(-1L);
        assertThat(operands.memory().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(-1L);
    }

    /**
     * Sends, writes, atomics and writes with immediate data in one pipeline: each completes in
     * order with its own kind, and a send fenced behind a fetch-and-add carries the value the
     * atomic landed in its buffer.
     */
    @Test
    void aPipelineMixesEveryKind_inOrder_andAFenceWaitsForTheAtomicsResult() {
        connect();
        for (int i = 0; i < 8; i++) {
            ok(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 1024 + 64 * i, 64)}, 100 + i, 0));
        }
        operands.memory().set(ValueLayout.JAVA_LONG, 0, 1000L);
        a.mem.set(ValueLayout.JAVA_LONG, 512, 0x5EED);
        AtomicEndpoint at = atomic(a.ep);
        ImmediateDataEndpoint im = immediate(a.ep);
        RmrTriplet window = RmrTriplet.of(b.lmr, 4096, 8);
        int rounds = 3;
        for (int i = 0; i < rounds; i++) {
            long local = 8L * i;
            ok(a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 512, 8)}, 10 * i, window, CompletionFlags.DEFAULT));
            ok(at.postFetchAndAdd(1, LmrTriplet.of(a.lmr, local, 8), 10 * i + 1, RmrTriplet.of(operands, 0, 8), CompletionFlags.DEFAULT));
            // the fence: the send reads the buffer the fetch-and-add fills
            ok(a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, local, 8)}, 10 * i + 2, CompletionFlags.BARRIER_FENCE));
            ok(im.postRdmaWriteImmediate(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 512, 8)}, 10 * i + 3,
                    RmrTriplet.of(b.lmr, 8192 + 8 * i, 8), 0x1000 + i, CompletionFlags.DEFAULT));
        }
        for (int i = 0; i < rounds; i++) {
            DatEvent w = a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(w.userCookie()).isEqualTo(10 * i);
            assertThat(extensionCompletion(a, false, IbExtension.FETCH_AND_ADD).userCookie()).isEqualTo(10 * i + 1);
            DatEvent s = a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(s.userCookie()).isEqualTo(10 * i + 2);
            assertThat(extensionCompletion(a, false, IbExtension.RDMA_WRITE_IMMED).userCookie()).isEqualTo(10 * i + 3);

            DatEvent sent = b.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(sent.userCookie()).isEqualTo(100 + 2 * i);
            assertThat(b.mem.get(ValueLayout.JAVA_LONG, 1024 + 64 * (2 * i))).as("the value before addition " + i).isEqualTo(1000L + i);
            DatEvent imm = extensionCompletion(b, true, IbExtension.RDMA_WRITE_IMMED_DATA);
            assertThat(imm.userCookie()).isEqualTo(100 + 2 * i + 1);
            assertThat(imm.immediateData()).isEqualTo(0x1000 + i);
            assertThat(imm.transferredLength()).isEqualTo(8);
            assertThat(b.mem.get(ValueLayout.JAVA_LONG, 8192 + 8 * i)).isEqualTo(0x5EED);
        }
        assertThat(b.mem.get(ValueLayout.JAVA_LONG, 4096)).isEqualTo(0x5EED);
        assertThat(operands.memory().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(1000L + rounds);
    }

    /**
     * A write with immediate data that finds no receive is refused as receiver-not-ready and
     * comes again: it completes, on both sides, once the target posts a receive; the request
     * behind it waits for it.
     */
    @Test
    void aWriteWithImmediateDataWaitsForAReceive_overTcp() throws InterruptedException {
        connect();
        a.mem.set(ValueLayout.JAVA_LONG, 0, 77L);
        ok(immediate(a.ep).postRdmaWriteImmediate(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 8)}, 1, RmrTriplet.of(b.lmr, 64, 8),
                -5, CompletionFlags.DEFAULT));
        ok(a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 8)}, 2, RmrTriplet.of(b.lmr, 128, 8), CompletionFlags.DEFAULT));
        DatEvent none = new DatEvent();
        assertThat(a.reqEvd.await(300_000, 1, none)).as("nothing completes without a receive").isNotEqualTo(0);
        ok(b.ep.postRecv(0, null, 9, 0));
        DatEvent r = extensionCompletion(b, true, IbExtension.RDMA_WRITE_IMMED_DATA);
        assertThat(r.immediateData()).isEqualTo(-5);
        assertThat(r.userCookie()).isEqualTo(9);
        assertThat(extensionCompletion(a, false, IbExtension.RDMA_WRITE_IMMED).userCookie()).isEqualTo(1);
        assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).userCookie()).isEqualTo(2);
        assertThat(b.mem.get(ValueLayout.JAVA_LONG, 64)).isEqualTo(77L);
        assertThat(b.mem.get(ValueLayout.JAVA_LONG, 128)).isEqualTo(77L);
    }

    /**
     * A write with immediate data posted SOLICITED_WAIT that finds no receive comes again as a
     * solicited one (RDMA_WRITE_IMMEDIATE_SOLICITED, built again from the request): once the
     * target posts a receive on its SOLICITED_WAIT stream, the write's receive ends a wait there.
     */
    @Test
    void aSolicitedWriteWithImmediateData_refusedAsNotReady_comesAgainSolicited_andEndsAWait() throws InterruptedException {
        b.ep.close(); // dat_ep_create(3DAT): every receive stream of b's EVD must have SOLICITED_WAIT too
        Endpoint solicited = b.ia.createEndpoint(b.pz, b.recvEvd, b.reqEvd, b.connEvd,
                EpAttributes.builder().recvCompletionFlags(CompletionFlags.SOLICITED_WAIT).build());
        pair.connect(100, solicited);
        ok(immediate(a.ep).postRdmaWriteImmediate(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 8)}, 1, RmrTriplet.of(b.lmr, 64, 8),
                23, CompletionFlags.SOLICITED_WAIT));
        DatEvent none = new DatEvent();
        assertThat(a.reqEvd.await(300_000, 1, none)).as("nothing completes without a receive").isNotEqualTo(0);
        DatEvent got;
        try (EvdWaiter waiter = EvdWaiter.waitingOn(b.recvEvd)) {
            ok(solicited.postRecv(0, null, 9, 0));
            ok(waiter.endsWithin(10_000));
            got = waiter.event;
        }
        assertThat(got.userCookie()).isEqualTo(9);
        assertThat(got.immediateData()).isEqualTo(23);
        assertThat(extensionCompletion(a, false, IbExtension.RDMA_WRITE_IMMED).userCookie()).isEqualTo(1);
    }

    /** A write with immediate data and no bytes: the immediate value alone completes the receive. */
    @Test
    void immediateDataAlone_overTcp() {
        connect();
        ok(b.ep.postRecv(0, null, 4, 0));
        ok(immediate(a.ep).postRdmaWriteImmediate(0, null, 3, RmrTriplet.of(b.lmr, 0, 0), 0x7FFF_FFFF, CompletionFlags.DEFAULT));
        DatEvent r = extensionCompletion(b, true, IbExtension.RDMA_WRITE_IMMED_DATA);
        assertThat(r.immediateData()).isEqualTo(0x7FFF_FFFF);
        assertThat(r.transferredLength()).isZero();
        assertThat(extensionCompletion(a, false, IbExtension.RDMA_WRITE_IMMED).transferredLength()).isZero();
    }

    /**
     * Fetch-and-adds over TCP and from an Endpoint of the target's own JVM on one operand lose no
     * increment: both paths use the same atomic instruction on the registered memory.
     */
    @Test
    void atomicsOverTcpAndInOneJvm_areAtomicWithRespectToEachOther() throws InterruptedException {
        connect();
        // a second connection, inside fb's JVM side: sim IAs of one provider share a fabric
        Fabric.Side local = fb.new Side("sim0", null, 1 << 12);
        Fabric.Side localPeer = fb.new Side("sim1", null, 1 << 12);
        LocalMemoryRegion sameOperands = localPeer.ia.registerMemory(operands.memory(), localPeer.pz, ATOMIC);
        localPeer.ia.createPublicServicePoint(200, localPeer.crEvd, PspFlag.CONSUMER);
        local.ep.connect(localPeer.address(), 200, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        localPeer.expect(localPeer.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(localPeer.ep, null);
        localPeer.expect(localPeer.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        local.expect(local.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);

        int perSide = 500;
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread other = Thread.ofPlatform().start(() -> {
            try {
                addRepeatedly(local, RmrTriplet.of(sameOperands, 256, 8), perSide);
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        addRepeatedly(a, RmrTriplet.of(operands, 256, 8), perSide);
        other.join(30_000);
        assertThat(failed.get()).isNull();
        assertThat(operands.memory().get(ValueLayout.JAVA_LONG, 256)).isEqualTo(2L * perSide);
    }

    /** Posts {@code times} fetch-and-adds of 1, four in flight, and reaps their completions. */
    private static void addRepeatedly(Fabric.Side s, RmrTriplet operand, int times) {
        AtomicEndpoint at = atomic(s.ep);
        DatEvent e = new DatEvent();
        int posted = 0;
        int done = 0;
        while (done < times) {
            while (posted < times && posted - done < 4) {
                ok(at.postFetchAndAdd(1, LmrTriplet.of(s.lmr, 8L * (posted % 4), 8), posted, operand, CompletionFlags.DEFAULT));
                posted++;
            }
            Fabric.Side.expect(s.reqEvd, IbExtension.IB_DTO_EVENT, e);
            assertThat(e.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            done++;
        }
    }

    /**
     * An atomic on memory without the remote-atomic privilege is refused by the TCP target: it
     * completes REMOTE_ACCESS, the operand is untouched, and the connection breaks on both sides.
     */
    @Test
    void anAtomicWithoutThePrivilege_isRefused_andBreaksTheConnection() {
        connect();
        b.mem.set(ValueLayout.JAVA_LONG, 0, 3L);
        ok(atomic(a.ep).postFetchAndAdd(1, LmrTriplet.of(a.lmr, 0, 8), 5, RmrTriplet.of(b.lmr, 0, 8), CompletionFlags.DEFAULT));
        DatEvent e = a.expect(a.reqEvd, IbExtension.IB_DTO_EVENT);
        assertThat(DtoCompletionStatus.name(e.status())).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_REMOTE_ACCESS));
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(b.mem.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(3L);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    /** The statistics count extension posts and completions over TCP as for the base operations. */
    @Test
    void statisticsCountTheExtensions_overTcp() {
        connect();
        IaStatistics stats = a.ia.extension(IaStatistics.class).orElseThrow();
        IaStatisticsSnapshot before = stats.snapshot();
        ok(b.ep.postRecv(0, null, 1, 0));
        ok(atomic(a.ep).postFetchAndAdd(1, LmrTriplet.of(a.lmr, 0, 8), 1, RmrTriplet.of(operands, 0, 8), CompletionFlags.DEFAULT));
        ok(immediate(a.ep).postRdmaWriteImmediate(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 16)}, 2, RmrTriplet.of(b.lmr, 0, 16), 1,
                CompletionFlags.DEFAULT));
        extensionCompletion(a, false, IbExtension.FETCH_AND_ADD);
        extensionCompletion(a, false, IbExtension.RDMA_WRITE_IMMED);
        IaStatisticsSnapshot after = stats.snapshot();
        assertThat(after.posted().get(Operation.FETCH_AND_ADD) - before.posted().getOrDefault(Operation.FETCH_AND_ADD, 0L)).isEqualTo(1);
        assertThat(after.posted().get(Operation.RDMA_WRITE_IMMEDIATE) - before.posted().getOrDefault(Operation.RDMA_WRITE_IMMEDIATE, 0L))
                .isEqualTo(1);
        assertThat(after.totalPostedBytes() - before.totalPostedBytes()).isEqualTo(8 + 16);
        assertThat(after.completions() - before.completions()).isEqualTo(2);
        assertThat(after.completedBytes() - before.completedBytes()).isEqualTo(8 + 16);
    }
}
