package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
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
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Requests posted with {@code DAT_COMPLETION_SUPPRESS_FLAG} or {@code DAT_COMPLETION_UNSIGNALLED_FLAG}
 * on {@code ofi-tcp-lo}: the provider sends suppressed writes without asking libfabric for their
 * completion, and a later signalled request, or one the provider asks for itself, gives their slots
 * back; a refused one still completes, with its error.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SuppressedCompletionsTest extends LoopbackPairTest {

    /**
     * Suppressed RDMA writes go out without a completion of their own; the signalled write after
     * them reports, and its completion gives their request slots back: rounds of many more
     * writes than the request queue holds all land, and the queue ends idle.
     */
    @Test
    void suppressedWritesLandAndTheSignalledOneAfterThemGivesTheirSlotsBack() {
        Endpoint[] pair = connect(null, null);
        int depth = pair[0].query().attributes().maxRequestDtos();
        int chunk = 256;
        int writes = depth - 1;
        LocalMemoryRegion local = lmr((long) chunk * depth, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        LocalMemoryRegion remote = lmr((long) chunk * depth, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE
                | MemPrivileges.REMOTE_WRITE);
        for (int round = 0; round < 6; round++) {
            local.memory().fill((byte) (round + 1));
            for (int i = 0; i <= writes; i++) {
                boolean last = i == writes;
                assertThat(pair[0].postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(local, (long) i * chunk, chunk)}, 1000L * round + i,
                        RmrTriplet.of(remote, (long) i * chunk, chunk), last ? CompletionFlags.DEFAULT : CompletionFlags.SUPPRESS))
                        .as("round %d, write %d of a queue of %d", round, i, depth).isEqualTo(DatReturn.SUCCESS);
            }
            DatEvent done = await(dtoEvd);
            assertThat(done.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(done.userCookie()).as("only the signalled write reports").isEqualTo(1000L * round + writes);
            assertThat(remote.memory().mismatch(local.memory())).as("every write of round %d landed", round).isEqualTo(-1);
        }
        assertThat(DatReturn.typeOf(dtoEvd.dequeue(event))).isEqualTo(DatReturn.QUEUE_EMPTY);
        assertThat(pair[0].getStatus().requestIdle()).isTrue();
    }

    /**
     * Suppressed writes, then a send: the send asks for delivery and its completion covers the
     * writes, so a disconnect after it flushes none of them.
     */
    @Test
    void aSendAfterSuppressedWritesConfirmsThem_andTheDisconnectFlushesNothing() {
        Endpoint[] pair = connect(null, null);
        LocalMemoryRegion local = lmr(4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        LocalMemoryRegion remote = lmr(4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_WRITE);
        local.memory().fill((byte) 5);
        assertThat(pair[1].postRecv(1, new LmrTriplet[] {LmrTriplet.of(remote, 2048, 64)}, 9, CompletionFlags.DEFAULT))
                .isEqualTo(DatReturn.SUCCESS);
        for (int i = 0; i < 4; i++) {
            assertThat(pair[0].postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(local, i * 256L, 256)}, i,
                    RmrTriplet.of(remote, i * 256L, 256), CompletionFlags.SUPPRESS)).isEqualTo(DatReturn.SUCCESS);
        }
        assertThat(pair[0].postSend(1, new LmrTriplet[] {LmrTriplet.of(local, 0, 8)}, 8, CompletionFlags.DEFAULT))
                .isEqualTo(DatReturn.SUCCESS);
        long[] cookies = {await(dtoEvd).userCookie(), await(dtoEvd).userCookie()};
        assertThat(cookies).containsExactlyInAnyOrder(8, 9);
        assertThat(remote.memory().asSlice(0, 1024).mismatch(local.memory().asSlice(0, 1024))).isEqualTo(-1);
        assertThat(pair[0].getStatus().requestIdle()).as("the send's completion gave the writes' slots back").isTrue();
        pair[0].disconnect(CloseFlag.ABRUPT);
        for (int disconnected = 0; disconnected < 2; disconnected++) {
            assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }
        assertThat(DatReturn.typeOf(dtoEvd.dequeue(event))).as("no write flushed").isEqualTo(DatReturn.QUEUE_EMPTY);
    }

    /**
     * DAT_COMPLETION_UNSIGNALLED_FLAG asks for a completion without notification, not for none:
     * the send's and the RDMA write's events are queued.
     */
    @Test
    void unsignalledRequestsStillQueueTheirCompletions() {
        PublicServicePoint psp = ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
        EventDispatcher requests = ia.createEventDispatcher(16, null, EvdFlags.DTO);
        Endpoint active = ia.createEndpoint(pz, dtoEvd, requests, connEvd,
                EpAttributes.builder().requestCompletionFlags(CompletionFlags.UNSIGNALLED).build());
        Endpoint passive = ia.createEndpoint(pz, dtoEvd, dtoEvd, connEvd, null);
        active.connect(address(), psp.connQual(), WAIT, null, 0, 0);
        await(crEvd).connectionRequest().accept(passive, null);
        for (int established = 0; established < 2; established++) {
            assertThat(await(connEvd).eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
        psp.close();
        LocalMemoryRegion local = lmr(4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        LocalMemoryRegion remote = lmr(4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_WRITE);
        assertThat(passive.postRecv(1, new LmrTriplet[] {LmrTriplet.of(remote, 2048, 64)}, 1, CompletionFlags.DEFAULT))
                .isEqualTo(DatReturn.SUCCESS);
        assertThat(active.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(local, 0, 256)}, 2, RmrTriplet.of(remote, 0, 256),
                CompletionFlags.UNSIGNALLED)).isEqualTo(DatReturn.SUCCESS);
        assertThat(active.postSend(1, new LmrTriplet[] {LmrTriplet.of(local, 0, 8)}, 3, CompletionFlags.UNSIGNALLED))
                .isEqualTo(DatReturn.SUCCESS);
        assertThat(await(dtoEvd).userCookie()).as("the receive").isEqualTo(1);
        long[] cookies = {await(requests).userCookie(), await(requests).userCookie()};
        assertThat(cookies).as("the write's and the send's completions").containsExactlyInAnyOrder(2, 3);
        assertThat(event.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
    }

    /**
     * Suppressed writes with no signalled DTO after them: more of them than half the queue makes
     * the provider ask for a completion itself, so that a consumer that never signals still gets
     * its slots back.
     */
    @Test
    void onlySuppressedWritesNeverRunOutOfSlots() {
        Endpoint[] pair = connect(null, null);
        int depth = pair[0].query().attributes().maxRequestDtos();
        LocalMemoryRegion local = lmr(4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        LocalMemoryRegion remote = lmr(4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_WRITE);
        local.memory().fill((byte) 7);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (int i = 0; i < depth * 20; i++) {
            int rc;
            do {
                rc = pair[0].postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(local, 0, 64)}, i, RmrTriplet.of(remote, 0, 64),
                        CompletionFlags.SUPPRESS);
                assertThat(System.nanoTime()).as("write %d of %d found no slot for 10 s", i, depth * 20).isLessThan(deadline);
            } while (DatReturn.typeOf(rc) == DatReturn.INSUFFICIENT_RESOURCES);
            assertThat(rc).isEqualTo(DatReturn.SUCCESS);
        }
        assertThat(DatReturn.typeOf(dtoEvd.dequeue(event))).as("no success is reported").isEqualTo(DatReturn.QUEUE_EMPTY);
        assertThat(remote.memory().get(ValueLayout.JAVA_BYTE, 63)).isEqualTo((byte) 7);
    }

    /**
     * A suppressed write the target refuses, with nothing posted after it: libfabric's tcp
     * provider closes the connection, and the write still completes, with the error the provider
     * declares (deviation {@code remote_access_error}), before the Endpoint is disconnected.
     */
    @Test
    void aRefusedSuppressedWriteStillCompletesWithAnError() {
        Endpoint[] pair = connect(null, null);
        LocalMemoryRegion local = lmr(4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        LocalMemoryRegion readOnly = lmr(4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_READ);
        assertThat(pair[0].postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(local, 0, 64)}, 41, RmrTriplet.of(readOnly, 0, 64),
                CompletionFlags.SUPPRESS)).isEqualTo(DatReturn.SUCCESS);
        DatEvent failed = await(dtoEvd);
        assertThat(failed.userCookie()).isEqualTo(41);
        assertThat(failed.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(readOnly.memory().get(ValueLayout.JAVA_BYTE, 0)).isZero();
    }
}
