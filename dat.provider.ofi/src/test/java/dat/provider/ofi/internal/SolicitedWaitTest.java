package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.RmrTriplet;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Receive streams configured {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG} on {@code ofi-tcp-lo}: a
 * send posted with the flag marks its message in the CQ data ({@link MessageCqData}), and only
 * such a message's receive, or an error, ends a wait; the others are queued. The conformance
 * suite checks it on an Endpoint of its own receives; here also on an Endpoint of an SRQ, whose
 * receives the SRQ's other Endpoints share.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SolicitedWaitTest extends LoopbackPairTest {

    private static final EpAttributes SOLICITED_WAIT = EpAttributes.builder().recvCompletionFlags(CompletionFlags.SOLICITED_WAIT).build();

    @Test
    void theIaDeclaresSolicitedWaits() {
        assertThat(ia.query().providerAttributes().completionFlagsSupported() & CompletionFlags.SOLICITED_WAIT).isNotZero();
    }

    @Test
    void onAnSrqEndpoint_anUnsolicitedMessageEndsNoWait_theSolicitedOneDoes_andBothReportTheirLength() throws Exception {
        LocalMemoryRegion mem = lmr(4096, MemPrivileges.ALL);
        SolicitedSrqStream stream = solicitedSrqStream();
        SharedReceiveQueue srq = stream.srq();
        EventDispatcher recvEvd = stream.recvEvd();
        Endpoint active = stream.active();
        for (int i = 0; i < 2; i++) {
            assertThat(srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(mem, 64L * i, 64)}, 100 + i)).isEqualTo(DatReturn.SUCCESS);
        }
        DatEvent taken = waitPast(recvEvd,
                () -> assertThat(active.postSend(1, new LmrTriplet[] {LmrTriplet.of(mem, 1024, 10)}, 1, CompletionFlags.DEFAULT))
                        .isEqualTo(DatReturn.SUCCESS),
                () -> assertThat(active.postSend(1, new LmrTriplet[] {LmrTriplet.of(mem, 1024, 20)}, 2, CompletionFlags.SOLICITED_WAIT))
                        .isEqualTo(DatReturn.SUCCESS));
        assertThat(taken.transferredLength()).as("the quiet event first").isEqualTo(10);
        DatEvent second = await(recvEvd);
        assertThat(second.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(second.eventNumber()).as("a plain DTO completion, no immediate data").isEqualTo(EventNumber.DTO_COMPLETION_EVENT);
        assertThat(second.transferredLength()).isEqualTo(20);
    }

    /**
     * A write with immediate data posted {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG} bears the mark
     * too (bit 63 of its message's CQ data, beside the length): into an SRQ Endpoint's
     * SOLICITED_WAIT stream, an unsolicited write's receive ends no wait, the solicited one's does,
     * and each reports its value and the bytes written.
     */
    @Test
    void onAnSrqEndpoint_anUnsolicitedWriteWithImmediateDataEndsNoWait_theSolicitedOneDoes() throws Exception {
        LocalMemoryRegion mem = lmr(4096, MemPrivileges.ALL);
        SolicitedSrqStream stream = solicitedSrqStream();
        SharedReceiveQueue srq = stream.srq();
        EventDispatcher recvEvd = stream.recvEvd();
        Endpoint active = stream.active();
        ImmediateDataEndpoint immediate = active.extension(ImmediateDataEndpoint.class).orElseThrow();
        for (int i = 0; i < 2; i++) {
            assertThat(srq.postRecv(0, null, 100 + i)).isEqualTo(DatReturn.SUCCESS);
        }
        DatEvent taken = waitPast(recvEvd,
                () -> assertThat(immediate.postRdmaWriteImmediate(1, new LmrTriplet[] {LmrTriplet.of(mem, 1024, 10)}, 1,
                        RmrTriplet.of(mem, 2048, 10), 41, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS),
                () -> assertThat(immediate.postRdmaWriteImmediate(1, new LmrTriplet[] {LmrTriplet.of(mem, 1024, 20)}, 2,
                        RmrTriplet.of(mem, 2048, 20), 42, CompletionFlags.SOLICITED_WAIT)).isEqualTo(DatReturn.SUCCESS));
        assertThat(taken.immediateData()).as("the quiet write's receive first").isEqualTo(41);
        assertThat(taken.transferredLength()).isEqualTo(10);
        DatEvent second = await(recvEvd);
        assertThat(second.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(second.eventNumber()).isEqualTo(IbExtension.IB_DTO_EVENT);
        assertThat(second.extensionType()).isEqualTo(IbExtension.RDMA_WRITE_IMMED_DATA);
        assertThat(second.immediateData()).isEqualTo(42);
        assertThat(second.transferredLength()).as("the bytes written, not the mark").isEqualTo(20);
    }

    /** An SRQ, the receive EVD of its passive Endpoint's SOLICITED_WAIT stream, and the active Endpoint connected to it. */
    private record SolicitedSrqStream(SharedReceiveQueue srq, EventDispatcher recvEvd, Endpoint active) {
    }

    private SolicitedSrqStream solicitedSrqStream() {
        EventDispatcher recvEvd = ia.createEventDispatcher(64, null, EvdFlags.DTO);
        SharedReceiveQueue srq = ia.createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(8).maxRecvIov(1).build());
        Endpoint active = connectToSrq(srq, recvEvd,
                EpAttributes.providerDefaults().toBuilder().recvCompletionFlags(CompletionFlags.SOLICITED_WAIT).build())[0];
        return new SolicitedSrqStream(srq, recvEvd, active);
    }

    /**
     * A platform thread blocks in dat_evd_wait on {@code evd} before {@code quiet} posts; the
     * completion that causes at the other end does not end the wait (the send's own completion,
     * on {@link #dtoEvd}, shows that it arrived, and the waiter stays blocked for 200 ms after
     * it), and the notification {@code notifying} causes does: the waiter returns the quiet event.
     */
    private DatEvent waitPast(EventDispatcher evd, Runnable quiet, Runnable notifying) throws Exception {
        DatEvent taken = new DatEvent();
        int[] code = new int[1];
        CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> code[0] = evd.await(DatConstants.TIMEOUT_INFINITE, 1, taken),
                runnable -> Thread.ofPlatform().daemon().start(runnable));
        OfiEvd waited = (OfiEvd) evd;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        // past its spin the waiter blocks in poll(2), or parks where the EVD reads an SRQ Endpoint's CQ too
        while (!waited.waiterBlocksNatively() && !waited.waiterParked() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(waited.waiterBlocksNatively() || waited.waiterParked()).as("the waiter is past its spin").isTrue();
        quiet.run();
        assertThat(await(dtoEvd).status()).as("the quiet message's send").isEqualTo(DtoCompletionStatus.SUCCESS);
        Thread.sleep(200);
        assertThat(waiter).as("a quiet receive ends no wait").isNotDone();
        notifying.run();
        waiter.get(30, TimeUnit.SECONDS);
        assertThat(code[0]).as(DatReturn.describe(code[0])).isEqualTo(DatReturn.SUCCESS);
        assertThat(await(dtoEvd).status()).as("the notifying message's send").isEqualTo(DtoCompletionStatus.SUCCESS);
        return taken;
    }

    /**
     * On a receive stream configured {@code DAT_COMPLETION_UNSIGNALLED_FLAG}, a receive posted with
     * that flag stays quiet when its message was solicited: the mark counts on SOLICITED_WAIT
     * streams only (dat_srq_post_recv(3DAT)).
     */
    @Test
    void onAnUnsignalledStream_theSolicitedMarkDoesNotMakeAnUnsignalledReceiveNotify() throws Exception {
        EventDispatcher recvEvd = ia.createEventDispatcher(16, null, EvdFlags.DTO);
        PublicServicePoint psp = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        Endpoint active = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        Endpoint passive = ia.createEndpoint(pz, recvEvd, dtoEvd, connEvd,
                EpAttributes.builder().recvCompletionFlags(CompletionFlags.UNSIGNALLED).build());
        active.connect(address(), psp.connQual(), WAIT, null, 0, 0);
        await(crEvd).connectionRequest().accept(passive, null);
        for (int established = 0; established < 2; established++) {
            assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
        LocalMemoryRegion mem = lmr(4096, MemPrivileges.ALL);
        assertThat(passive.postRecv(1, new LmrTriplet[] {LmrTriplet.of(mem, 0, 64)}, 1, CompletionFlags.UNSIGNALLED))
                .isEqualTo(DatReturn.SUCCESS);
        assertThat(passive.postRecv(1, new LmrTriplet[] {LmrTriplet.of(mem, 64, 64)}, 2, CompletionFlags.DEFAULT))
                .isEqualTo(DatReturn.SUCCESS);
        DatEvent taken = waitPast(recvEvd,
                () -> assertThat(active.postSend(1, new LmrTriplet[] {LmrTriplet.of(mem, 1024, 10)}, 3, CompletionFlags.SOLICITED_WAIT))
                        .isEqualTo(DatReturn.SUCCESS),
                () -> assertThat(active.postSend(1, new LmrTriplet[] {LmrTriplet.of(mem, 1024, 20)}, 4, CompletionFlags.DEFAULT))
                        .isEqualTo(DatReturn.SUCCESS));
        assertThat(taken.userCookie()).as("the quiet receive first").isEqualTo(1);
        assertThat(await(recvEvd).userCookie()).isEqualTo(2);
    }

    @Test
    void aSolicitedSendIntoAnOrdinaryStream_isAnOrdinaryMessage() {
        Endpoint[] pair = connect(null, null);
        LocalMemoryRegion mem = lmr(4096, MemPrivileges.ALL);
        assertThat(pair[1].postRecv(1, new LmrTriplet[] {LmrTriplet.of(mem, 0, 64)}, 7, CompletionFlags.DEFAULT))
                .isEqualTo(DatReturn.SUCCESS);
        assertThat(pair[0].postSend(1, new LmrTriplet[] {LmrTriplet.of(mem, 1024, 33)}, 8, CompletionFlags.SOLICITED_WAIT))
                .isEqualTo(DatReturn.SUCCESS);
        long[] lengths = new long[10];
        for (int i = 0; i < 2; i++) {
            DatEvent done = await(dtoEvd);
            assertThat(done.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(done.eventNumber()).isEqualTo(EventNumber.DTO_COMPLETION_EVENT);
            lengths[(int) done.userCookie()] = done.transferredLength();
        }
        assertThat(lengths[7]).as("the receive").isEqualTo(33);
        assertThat(lengths[8]).as("the send").isEqualTo(33);
    }

    @Test
    void anEndpointWithASolicitedWaitStream_waitsWithThresholdOneOnly() {
        EventDispatcher recvEvd = ia.createEventDispatcher(16, null, EvdFlags.DTO);
        ia.createEndpoint(pz, recvEvd, dtoEvd, connEvd, SOLICITED_WAIT);
        assertThat(DatReturn.typeOf(recvEvd.await(0, 2, event))).as("dat_evd_wait(3DAT): the threshold must be 1")
                .isEqualTo(DatReturn.INVALID_STATE);
    }
}
