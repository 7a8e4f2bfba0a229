package dat.provider.sim.internal.shm;

import static dat.provider.sim.internal.Codes.isType;
import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DAT semantics over the shared-memory wire, between two TCP IAs of two providers ({@code shm=on}):
 * the target side's checks refuse a request with the completion status dat_ep_post_rdma_write(3DAT),
 * dat_ep_post_rdma_read(3DAT) and dat_ep_post_send(3DAT) name, the connection then breaks and flushes
 * what is behind, and a connection that ended leaves no mapping of its ring file in the process.
 */
@Timeout(60)
class ShmDtoTest {

    private static final String SHM = "tcp=127.0.0.1:0 shm=on";
    private final Fabric fa = new Fabric(ProviderSettings.defaults().limits(), SHM);
    private final Fabric fb = new Fabric(ProviderSettings.defaults().limits(), SHM);
    private final Fabric.Side a = fa.new Side("shmA", null, 1 << 16);
    private final Fabric.Side b = fb.new Side("shmB", null, 1 << 16);

    @AfterEach
    void close() {
        fa.close();
        fb.close();
    }

    /** Side b listens, side a connects: both ESTABLISHED, over shared memory (the transport says so). */
    private void connect() {
        b.ia.createPublicServicePoint(100, b.crEvd, PspFlag.CONSUMER);
        a.ep.connect(b.address(), 100, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(b.ep, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(a.ia.query().iaAttributes().transportAttributes()).containsEntry("shm.established", "1");
        assertThat(b.ia.query().iaAttributes().transportAttributes()).containsEntry("shm.established", "1");
        assertThat(ringMappings()).as("the connection's ring file is mapped").isNotEmpty();
    }

    private static LmrTriplet[] iov(LmrTriplet... t) {
        return t;
    }

    private static DatEvent dto(Fabric.Side s, boolean recv) {
        return s.expect(recv ? s.recvEvd : s.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
    }

    private static void fill(MemorySegment m, long off, int len, int seed) {
        for (int i = 0; i < len; i++) {
            m.set(ValueLayout.JAVA_BYTE, off + i, (byte) (seed + i * 31));
        }
    }

    /** The lines of {@code /proc/self/maps} that map a sim ring file. */
    static List<String> ringMappings() {
        try {
            return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains("/dev/shm/dat-sim-")).toList();
        } catch (IOException e) {
            throw new AssertionError("cannot read /proc/self/maps", e);
        }
    }

    /**
     * Once both ends of every connection let go of it (the I/O agent retires a closed connection on
     * its own thread), no ring file stays mapped: waits for that, as long as a completion may take.
     */
    static void assertNoRingMapping() {
        long deadline = System.nanoTime() + Fabric.WAIT * 1000;
        List<String> left = ringMappings();
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            left = ringMappings();
        }
        assertThat(left).as("ring files still mapped after the connection ended").isEmpty();
    }

    /** The broken connection ends on both sides, and neither keeps its ring file mapped. */
    private void bothBroken() {
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertNoRingMapping();
    }

    @Test
    void sendGathersAndScatters_zeroLengthToo() {
        connect();
        fill(a.mem, 0, 10, 1);
        fill(a.mem, 100, 25, 2);
        fill(a.mem, 200, 5, 3);
        ok(b.ep.postRecv(3, iov(LmrTriplet.of(b.lmr, 1000, 12), LmrTriplet.of(b.lmr, 2000, 12), LmrTriplet.of(b.lmr, 3000, 100)), 1, 0));
        ok(a.ep.postSend(3, iov(LmrTriplet.of(a.lmr, 0, 10), LmrTriplet.of(a.lmr, 100, 25), LmrTriplet.of(a.lmr, 200, 5)), 2, 0));
        DatEvent r = dto(b, true);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(r.transferredLength()).isEqualTo(40);
        Fabric.assertGatheredAndScattered(a, b);
        assertThat(dto(a, false).transferredLength()).isEqualTo(40);
        ok(b.ep.postRecv(0, null, 3, 0));
        ok(a.ep.postSend(0, null, 4, 0));
        assertThat(dto(b, true).transferredLength()).isZero();
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
    }

    @Test
    void aSendBeforeAReceiveWaitsForIt_inOrderWithLaterRequests() {
        connect();
        fill(a.mem, 0, 8, 5);
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, 0));
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, RmrTriplet.of(b.lmr, 500, 8), 0));
        isType(a.reqEvd.dequeue(a.event), DatReturn.QUEUE_EMPTY);
        assertThat(b.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 500)).as("the write waits behind the send").isZero();
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 8)), 3, 0));
        assertThat(dto(a, false).userCookie()).isEqualTo(1);
        assertThat(dto(a, false).userCookie()).isEqualTo(2);
        assertThat(b.mem.asSlice(500, 8).mismatch(a.mem.asSlice(0, 8))).isEqualTo(-1);
    }

    @Test
    void aMessageLargerThanTheReceive_LOCAL_LENGTH_there_REMOTE_RESPONDER_here_andBothBreak() {
        connect();
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 4)), 1, 0));
        ok(b.ep.postRecv(1, iov(LmrTriplet.of(b.lmr, 0, 4)), 2, 0));
        ok(a.ep.postSend(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 3, 0));
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_LENGTH);
        assertThat(dto(b, true).status()).as("the connection broke: the rest is flushed").isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_RESPONDER);
        bothBroken();
    }

    @Test
    void rdmaWriteOutsideTheRegion_REMOTE_ACCESS_touchesNothing_andFlushesBothSides() {
        connect();
        fill(a.mem, 0, 16, 3);
        ok(b.ep.postRecv(0, null, 9, 0));
        ok(a.ep.postRecv(0, null, 10, 0));
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 16)), 1, RmrTriplet.of(b.lmr, (1 << 16) - 8, 16), 0));
        ok(a.ep.postSend(0, null, 2, 0));
        DatEvent first = dto(a, false);
        assertThat(first.userCookie()).isEqualTo(1);
        assertThat(first.status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        DatEvent second = dto(a, false);
        assertThat(second.userCookie()).isEqualTo(2);
        assertThat(second.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(dto(a, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        bothBroken();
        assertThat(b.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, (1 << 16) - 8)).isZero();
    }

    @Test
    void rdmaReadOutsideTheRegion_REMOTE_ACCESS_andNothingArrives() {
        connect();
        fill(b.mem, (1 << 16) - 64, 64, 9);
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 128)), 1, RmrTriplet.of(b.lmr, (1 << 16) - 64, 128), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        bothBroken();
        assertThat(a.mem.asSlice(0, 128).mismatch(MemorySegment.ofArray(new byte[128]))).isEqualTo(-1);
    }

    @Test
    void rdmaWithAForgedContext_REMOTE_ACCESS() {
        connect();
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1,
                new RmrTriplet(b.lmr.rmrContext() ^ 1, b.lmr.registeredAddress(), 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        bothBroken();
    }

    @Test
    void rdmaWriteWithoutTheRemoteWritePrivilege_REMOTE_ACCESS_whileAReadSucceeds() {
        LocalMemoryRegion readOnly = b.ia.registerMemory(fb.memory(64), b.pz,
                MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_READ);
        connect();
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, RmrTriplet.of(readOnly, 0, 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, RmrTriplet.of(readOnly, 0, 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        bothBroken();
    }

    @Test
    void rdmaReadWithoutTheRemoteReadPrivilege_REMOTE_ACCESS() {
        LocalMemoryRegion writeOnly = b.ia.registerMemory(fb.memory(64), b.pz,
                MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_WRITE);
        connect();
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, RmrTriplet.of(writeOnly, 0, 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        ok(a.ep.postRdmaRead(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 2, RmrTriplet.of(writeOnly, 0, 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        bothBroken();
    }

    @Test
    void rdmaIntoAnLmrOfAnotherPz_REMOTE_ACCESS() {
        LocalMemoryRegion elsewhere = b.ia.registerMemory(fb.memory(64), b.ia.createProtectionZone(), MemPrivileges.ALL);
        connect();
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, RmrTriplet.of(elsewhere, 0, 8), 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        bothBroken();
    }

    @Test
    void rdmaIntoAFreedLmr_REMOTE_ACCESS() {
        LocalMemoryRegion gone = b.ia.registerMemory(fb.memory(64), b.pz, MemPrivileges.ALL);
        RmrTriplet remote = RmrTriplet.of(gone, 0, 8);
        connect();
        gone.close();
        ok(a.ep.postRdmaWrite(1, iov(LmrTriplet.of(a.lmr, 0, 8)), 1, remote, 0));
        assertThat(dto(a, false).status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        bothBroken();
    }

    @Test
    void aDisconnectFlushesEveryPostedDto_andUnmapsTheRings() {
        connect();
        ok(a.ep.postRecv(0, null, 1, 0));
        ok(b.ep.postRecv(0, null, 3, 0));
        a.ep.disconnect(CloseFlag.ABRUPT);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(dto(a, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(dto(b, true).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertNoRingMapping();
    }
}
