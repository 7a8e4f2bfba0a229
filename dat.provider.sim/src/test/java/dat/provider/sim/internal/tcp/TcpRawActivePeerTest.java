package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.RawFrames.frame;
import static dat.provider.sim.internal.tcp.RawFrames.header;
import static dat.provider.sim.internal.tcp.RawPeers.awaitBroken;
import static dat.provider.sim.internal.tcp.RawPeers.awaitNoConnection;
import static dat.provider.sim.internal.tcp.RawPeers.rawActivePeer;
import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.CloseFlag;
import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import java.io.DataInputStream;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A passive side against an active peer played with a plain socket, with a liveness timeout of
 * 300 ms: a send refused as receiver-not-ready lands when sent again, deferrable writes are
 * acknowledged on request or at the held maximum, a peer gone silent breaks the connection, and
 * after a reset or an abrupt disconnect in the middle of a frame every receive completes flushed
 * once and no byte lands in a buffer once flushed.
 */
@Timeout(60)
class TcpRawActivePeerTest extends AgainstRawPeer {

    /**
     * A send that finds no receive is refused as receiver-not-ready (an ACK with STATUS_RNR); the
     * target drops what follows until the initiator sends that send again, which then lands in the
     * receive posted meanwhile.
     */
    @Test
    void aSendWithoutAReceiveIsRefusedAsNotReadyAndLandsWhenSentAgain() throws Exception {
        try (Socket s = rawActivePeer(a)) {
            rawPeer = s;
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] send0 = header(TcpFrame.SEND, 8, 0, 0, 0, 0);
            java.util.Arrays.fill(send0, TcpFrame.HEADER_BYTES, send0.length, (byte) 7);
            s.getOutputStream().write(send0);
            ByteBuffer nak = frame(in);
            assertThat(nak.get(3)).isEqualTo((byte) TcpFrame.ACK);
            assertThat(nak.getInt(12)).isEqualTo(TcpFrame.STATUS_RNR);
            assertThat(nak.getLong(16)).isZero();
            s.getOutputStream().write(header(TcpFrame.SEND, 8, 0, 0, 1, 0)); // sent before the NAK arrived: dropped
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 42, 0));
            s.getOutputStream().write(send0); // the retransmission
            ByteBuffer ack = frame(in);
            assertThat(ack.getInt(12)).isEqualTo(TcpFrame.STATUS_OK);
            assertThat(ack.getLong(16)).isZero();
            DatEvent r = a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(r.userCookie()).isEqualTo(42);
            assertThat(r.transferredLength()).isEqualTo(8);
            assertThat(a.mem.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 7);
        }
    }

    /**
     * Deferrable requests ({@link TcpFrame#ACK_DEFERRABLE}, sent by an initiator with many in
     * flight): the target holds their ACK when its socket runs dry, sends it when an ACK_REQUEST
     * comes or once it holds {@link TcpFrame#ACKS_HELD_MAX}, and answers a request that is not
     * deferrable once drained; each ACK is cumulative.
     */
    @Test
    void deferrableWritesAreAcknowledgedOnRequest_orAtTheHeldMaximum() throws Exception {
        // an IA of its own, without keepalives within the test: a NOP the target sent would take
        // the held ACK along (the writer sends what the response ring holds whenever it writes)
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=3600000")) {
            Fabric.Side t = f.new Side("tcpD", null, 1 << 16);
            Socket s = rawActivePeer(t);
            rawPeer = s;
            DataInputStream in = new DataInputStream(s.getInputStream());
            for (int seq = 0; seq < 3; seq++) {
                s.getOutputStream().write(write(t, seq, TcpFrame.ACK_DEFERRABLE));
            }
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (t.mem.get(ValueLayout.JAVA_BYTE, 2 * 8) != 3 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(t.mem.get(ValueLayout.JAVA_BYTE, 2 * 8)).as("the third write landed").isEqualTo((byte) 3);
            s.setSoTimeout(200);
            assertThatThrownBy(() -> frame(in)).as("the ACK is held").isInstanceOf(SocketTimeoutException.class);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(header(TcpFrame.ACK_REQUEST, 0, 0, 0, 0, 0));
            assertAck(frame(in), 2);
            for (int seq = 3; seq < 3 + TcpFrame.ACKS_HELD_MAX; seq++) {
                s.getOutputStream().write(write(t, seq, TcpFrame.ACK_DEFERRABLE));
            }
            assertAck(frame(in), 2 + TcpFrame.ACKS_HELD_MAX); // the maximum reached: no request needed
            int last = 3 + TcpFrame.ACKS_HELD_MAX;
            s.getOutputStream().write(write(t, last, 0));
            assertAck(frame(in), last);
            for (int seq = 0; seq <= last; seq++) {
                assertThat(t.mem.get(ValueLayout.JAVA_BYTE, seq * 8L)).isEqualTo((byte) (seq + 1));
            }
            assertThat(t.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
    }

    /** An 8-byte RDMA write of the value seq + 1 to bytes [8 seq, 8 seq + 8) of {@code side}'s memory. */
    private static byte[] write(Fabric.Side side, int seq, int aux) {
        RmrTriplet target = RmrTriplet.of(side.lmr, seq * 8L, 8);
        byte[] frame = header(TcpFrame.RDMA_WRITE, 8, target.rmrContext(), aux, seq, target.targetAddress());
        java.util.Arrays.fill(frame, TcpFrame.HEADER_BYTES, frame.length, (byte) (seq + 1));
        return frame;
    }

    private static void assertAck(ByteBuffer frame, long seq) {
        assertThat(frame.get(3)).as("opcode").isEqualTo((byte) TcpFrame.ACK);
        assertThat(frame.getInt(12)).as("status").isEqualTo(TcpFrame.STATUS_OK);
        assertThat(frame.getLong(16)).as("seq").isEqualTo(seq);
    }

    /**
     * While the target has no receive for the peer's send it still reads: a peer that then goes
     * silent (half-open) breaks the connection within the liveness timeout.
     */
    @Test
    void aPeerThatGoesSilentWhileTheTargetHasNoReceiveBreaksWithinTheTimeout() throws Exception {
        try (Socket s = rawActivePeer(a)) {
            rawPeer = s;
            s.getOutputStream().write(header(TcpFrame.SEND, 8, 0, 0, 0, 0));
            assertThat(frame(new DataInputStream(s.getInputStream())).getInt(12)).isEqualTo(TcpFrame.STATUS_RNR);
            long silentSince = System.nanoTime(); // the SEND, the peer's last frame, was read before the RNR went out
            awaitBroken(a, silentSince, 300);
            assertThat(System.nanoTime() - silentSince).as("broken after the 300 ms timeout, not before").isGreaterThan(290_000_000L);
            assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        }
    }

    /**
     * A reset while a send's payload is read into the receive the target took for it: that
     * receive completes flushed, as the one still queued does (none is dropped).
     */
    @Test
    void aResetMidSend_flushesTheReceiveTheTargetTook() throws Exception {
        Socket s = rawActivePeer(a);
        rawPeer = s;
        ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 1, 0));
        ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 64, 64)}, 2, 0));
        byte[] send = header(TcpFrame.SEND, 64, 0, 0, 0, 0);
        s.getOutputStream().write(send, 0, TcpFrame.HEADER_BYTES + 8); // 8 of its 64 bytes
        s.getOutputStream().flush();
        Thread.sleep(50); // the target takes the receive and waits for the rest
        s.setSoLinger(true, 0);
        s.close(); // RST
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        for (long cookie = 1; cookie <= 2; cookie++) {
            DatEvent r = a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(r.userCookie()).as("receive %d", cookie).isEqualTo(cookie);
            assertThat(r.status()).as("receive %d", cookie).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        }
    }

    /**
     * An abrupt disconnect while an RDMA read's response lands: once the read has completed
     * flushed its buffer is the consumer's again, and the rest of the response, which the peer
     * sends after, does not land in it.
     */
    @Test
    void anAbruptDisconnectMidReadResponse_leavesTheFlushedReadsBufferAlone() throws Exception {
        try (Socket s = rawActivePeer(a)) {
            rawPeer = s;
            DataInputStream in = new DataInputStream(s.getInputStream());
            a.mem.asSlice(0, 64).fill((byte) 0);
            ok(a.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 1, RmrTriplet.of(a.lmr, 1024, 64), 0));
            ByteBuffer request = frame(in);
            assertThat(request.get(3)).isEqualTo((byte) TcpFrame.RDMA_READ_REQUEST);
            byte[] response = header(TcpFrame.RDMA_READ_RESPONSE, 64, 0, TcpFrame.STATUS_OK, request.getLong(16), 0);
            sendFirstBytesToA(s, response);

            a.ep.disconnect(CloseFlag.ABRUPT);
            DatEvent read = a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(read.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
            byte[] atCompletion = a.mem.asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE);
            a.mem.asSlice(0, 64).fill((byte) 0x33); // the consumer reuses its buffer

            sendTheRest(s, response);
            s.shutdownOutput(); // the initiator reads the rest, then the end, and closes
            awaitNoConnection(transport(a));
            assertThat(atCompletion).as("the first 8 bytes landed before the flush")
                    .startsWith(0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A);
            assertThat(a.mem.asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE)).as("the buffer after the flushed completion")
                    .containsOnly((byte) 0x33);
        }
    }

    /**
     * An abrupt disconnect while a send lands in the receive taken for it: that receive completes
     * flushed, once, before the receive posted after it, and the rest of the send, which the peer
     * sends after, does not land in its buffer.
     */
    @Test
    void anAbruptDisconnectMidSend_flushesTheReceiveItTook_firstAndOnce() throws Exception {
        try (Socket s = rawActivePeer(a)) {
            rawPeer = s;
            a.mem.asSlice(0, 128).fill((byte) 0);
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 1, 0));
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 64, 64)}, 2, 0));
            byte[] send = header(TcpFrame.SEND, 64, 0, 0, 0, 0);
            sendFirstBytesToA(s, send);

            a.ep.disconnect(CloseFlag.ABRUPT);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            for (long cookie = 1; cookie <= 2; cookie++) {
                DatEvent r = a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
                assertThat(r.userCookie()).as("receive %d", cookie).isEqualTo(cookie);
                assertThat(r.status()).as("receive %d", cookie).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
            }
            a.mem.asSlice(0, 64).fill((byte) 0x33); // the consumer reuses the first receive's buffer

            sendTheRest(s, send);
            s.shutdownOutput(); // the target reads the rest, then the end, and closes
            awaitNoConnection(transport(a));
            assertThat(a.recvEvd.dequeue(a.event)).as("no further receive completion").isNotZero();
            assertThat(a.mem.asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE)).as("the buffer after the flushed completion")
                    .containsOnly((byte) 0x33);
        }
    }

    /**
     * A peer that goes on after the DISCONNECT, with its connection still open, no longer reaches
     * the Endpoint's memory once the Endpoint is connected anew, to another peer: its RDMA write
     * is refused, and lands nowhere.
     */
    @Test
    void aDisconnectedPeerCannotWriteIntoTheEndpointConnectedAnew() throws Exception {
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=3600000")) {
            Fabric.Side side = f.new Side("tcpN", null, 4096);
            try (Socket old = rawActivePeer(side)) {
                DataInputStream oldIn = new DataInputStream(old.getInputStream());
                side.ep.disconnect(CloseFlag.ABRUPT);
                side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                assertThat(frame(oldIn).get(3)).isEqualTo((byte) TcpFrame.DISCONNECT);
                side.ep.reset();
                try (Socket anew = new Socket(InetAddress.getByName("127.0.0.1"), side.address().getPort())) {
                    anew.getOutputStream().write(header(TcpFrame.CONNECT_REQUEST, 0, 0, 1, 0, 5));
                    side.expect(side.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(side.ep, null);
                    assertThat(frame(new DataInputStream(anew.getInputStream())).get(3)).isEqualTo((byte) TcpFrame.ACCEPT);
                    anew.getOutputStream().write(header(TcpFrame.READY_TO_USE, 0, 0, 0, 0, 0));
                    side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);

                    side.mem.asSlice(0, 8).fill((byte) 0);
                    RmrTriplet target = RmrTriplet.of(side.lmr, 0, 8);
                    byte[] write = header(TcpFrame.RDMA_WRITE, 8, target.rmrContext(), 0, 0, target.targetAddress());
                    java.util.Arrays.fill(write, TcpFrame.HEADER_BYTES, write.length, (byte) 0x77);
                    old.getOutputStream().write(write);
                    old.getOutputStream().flush();
                    TcpTransport t = transport(side);
                    long deadline = System.nanoTime() + 5_000_000_000L;
                    while (t.connections().size() > 1 && System.nanoTime() - deadline < 0) {
                        Thread.sleep(10); // the old connection refuses the write and closes
                    }
                    assertThat(t.connections()).as("the new connection alone").hasSize(1);
                    assertThat(side.mem.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0);
                    assertThat(side.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
                }
            }
        }
    }

    /**
     * Fills the frame's payload with 0x5A, sends its header and the first 8 payload bytes, and
     * waits until a has landed them at offset 0 (it then waits for the rest).
     */
    private void sendFirstBytesToA(Socket s, byte[] frame) throws Exception {
        java.util.Arrays.fill(frame, TcpFrame.HEADER_BYTES, frame.length, (byte) 0x5A);
        s.getOutputStream().write(frame, 0, TcpFrame.HEADER_BYTES + 8);
        s.getOutputStream().flush();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (a.mem.get(ValueLayout.JAVA_BYTE, 7) != 0x5A && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertThat(a.mem.get(ValueLayout.JAVA_BYTE, 7)).as("the first 8 bytes landed").isEqualTo((byte) 0x5A);
    }

    private static void sendTheRest(Socket s, byte[] frame) throws Exception {
        s.getOutputStream().write(frame, TcpFrame.HEADER_BYTES + 8, frame.length - TcpFrame.HEADER_BYTES - 8);
        s.getOutputStream().flush();
    }
}
