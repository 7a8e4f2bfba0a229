package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.LmrTriplet;
import dat.api.PspFlag;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.shm.RingFiles;
import java.lang.foreign.ValueLayout;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link TcpSocketReuseTest} over the shared-memory wire ({@code shm=on}): the ring file goes with
 * the socket, so the next connection between the two IAs neither creates, maps nor unmaps a file,
 * and what the last connection left in the rings never reaches the next one.
 */
class ShmSocketReuseTest extends TcpSocketReuseTest {

    @Override
    String iaParams() {
        return "tcp=127.0.0.1:0 shm=on";
    }

    /**
     * Three connections one after the other, ended from either side, go through the ring file of
     * the first: sends both ways and an RDMA write land whole on each; the file is unmapped once
     * the IA that kept it closes.
     */
    @Test
    void theNextConnection_takesTheRingFileOfTheLast_andMovesItsOwnBytesThroughIt() throws InterruptedException {
        b.ia.createPublicServicePoint(QUALIFIER, b.crEvd, PspFlag.CONSUMER);
        Set<String> first = null;
        for (int round = 1; round <= 3; round++) {
            connect(a.ep, b.ep);
            assertThat(a.ia.query().iaAttributes().transportAttributes()).containsEntry("shm.established", String.valueOf(round))
                    .containsEntry("tcp.reused", String.valueOf(round - 1));
            if (first == null) {
                first = RingFiles.files();
                assertThat(first).as("the first connection's ring file").hasSize(1);
            } else {
                assertThat(RingFiles.files()).as("round %d maps no other file", round).isEqualTo(first);
            }
            exchange(round);
            disconnectBoth(round % 2 == 1 ? a.ep : b.ep, round % 2 == 1 ? a : b, round % 2 == 1 ? b : a);
            assertThat(eventually(() -> transport(a).idleSocketCount() == 1)).as("the socket idles").isTrue();
            assertThat(RingFiles.files()).as("kept with the idle socket").isEqualTo(first);
            drain(a.recvEvd);
            drain(b.recvEvd);
            a.ep.reset();
            b.ep.reset();
        }
        assertThat(transport(a).violations.get() + transport(b).violations.get()).as("violations").isZero();
        fa.close();
        aClosed = true;
        RingFiles.assertNoneMapped();
    }

    /** A send each way and an RDMA write from a into b, each with bytes of its round. */
    private void exchange(int round) {
        byte mark = (byte) (round * 16);
        assertThat(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 64)}, round, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
        assertThat(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, round, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
        a.mem.asSlice(1024, 64).fill(mark);
        b.mem.asSlice(1024, 64).fill((byte) (mark + 1));
        assertThat(a.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 1024, 64)}, round, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
        assertThat(b.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 1024, 48)}, round, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
        received(b, 64, mark);
        received(a, 48, (byte) (mark + 1));
        a.mem.asSlice(2048, 4096).fill((byte) (mark + 2));
        assertThat(a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 2048, 4096)}, round,
                RmrTriplet.of(b.lmr, 8192, 4096), CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
        for (int sends = 0, writes = 0; sends + writes < 2;) {
            DatEvent done = a.next(a.reqEvd);
            assertThat(done.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(done.userCookie()).isEqualTo(round);
            sends += done.transferredLength() == 64 ? 1 : 0;
            writes += done.transferredLength() == 4096 ? 1 : 0;
        }
        assertThat(b.next(b.reqEvd).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        for (int i = 0; i < 4096; i += 512) {
            assertThat(b.mem.get(ValueLayout.JAVA_BYTE, 8192 + i)).as("round %d, byte %d written", round, i).isEqualTo((byte) (mark + 2));
        }
    }

    private static void received(dat.provider.sim.internal.Fabric.Side s, int length, byte mark) {
        DatEvent r = s.next(s.recvEvd);
        assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(r.transferredLength()).isEqualTo(length);
        assertThat(s.mem.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo(mark);
        assertThat(s.mem.get(ValueLayout.JAVA_BYTE, length - 1)).isEqualTo(mark);
    }
}
