package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.RawFrames.header;
import static dat.provider.sim.internal.tcp.RawFrames.nextFrame;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.Qos;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Fabric;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Payloads on their way between a live TCP IA and a peer played with a plain socket while the
 * memory they use is revoked or freed, or the connection ends: an RMR unbound, an LMR freed, an
 * arena closed, an abrupt disconnect. No byte moves through memory once it is no longer the
 * peer's, each DTO completes once, and a receive still landing counts as posted.
 */
@Timeout(180)
class TcpPayloadInFlightTest {

    private final AttackedIa attacked = new AttackedIa();
    private final Fabric.Side target = attacked.target;

    @AfterEach
    void close() {
        attacked.close();
    }

    /** The next event of {@code evd} by dequeue alone (a wait would read the connection itself), or {@code null}. */
    private static DatEvent poll(dat.api.EventDispatcher evd, long millis) throws InterruptedException {
        DatEvent e = new DatEvent();
        for (long deadline = System.nanoTime() + millis * 1_000_000L;;) {
            if (evd.dequeue(e) == dat.api.DatReturn.SUCCESS) {
                return e;
            }
            if (System.nanoTime() > deadline) {
                return null;
            }
            Thread.sleep(2);
        }
    }

    /**
     * A receive too small for the send that came for it completes LOCAL_LENGTH once: the flush of
     * a disconnect that comes while the reader still skips that send's payload (the peer holds it
     * back) does not complete it again, flushed.
     */
    @Test
    void aReceiveCompletedWhileItsSendIsSkipped_isNotFlushedAgain() throws Exception {
        Endpoint ep = attacked.endpointForRawPeer();
        try (Socket s = attacked.rawPeer(ep)) {
            ok(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(target.lmr, 0, 8)}, 41, 0));
            s.getOutputStream().write(header(TcpFrame.SEND, 64, 0, 0, 0, 0, 0)); // and no payload yet
            DatEvent r = poll(target.recvEvd, 5_000);
            assertThat(r).as("the receive's completion").isNotNull();
            assertThat(r.userCookie()).isEqualTo(41);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_LENGTH);
            ep.disconnect(dat.api.CloseFlag.ABRUPT);
            assertThat(poll(target.recvEvd, 200)).as("a second completion of the receive").isNull();
        }
        ep.close();
    }

    /** Waits until {@code length} bytes from {@code offset} of the target's memory read {@code value}. */
    private void awaitBytes(long offset, int length, byte value) throws InterruptedException {
        for (long deadline = System.nanoTime() + 5_000_000_000L;; Thread.sleep(1)) {
            boolean all = true;
            for (int k = 0; k < length; k++) {
                all &= target.mem.get(ValueLayout.JAVA_BYTE, offset + k) == value;
            }
            if (all) {
                return;
            }
            assertThat(System.nanoTime()).as("bytes landed in time").isLessThan(deadline);
        }
    }

    /** A peer's RDMA write of 64 bytes of 0x5A into {@code context} at the target's memory, of which 8 are sent now. */
    private byte[] writeBegun(Socket s, int context) throws Exception {
        byte[] frame = header(TcpFrame.RDMA_WRITE, 64, context, 0, 1, target.lmr.registeredAddress(), 64);
        java.util.Arrays.fill(frame, TcpFrame.HEADER_BYTES, frame.length, (byte) 0x5A);
        s.getOutputStream().write(frame, 0, TcpFrame.HEADER_BYTES + 8);
        s.getOutputStream().flush();
        awaitBytes(0, 8, (byte) 0x5A); // the write is under way: its first bytes landed
        return frame;
    }

    /**
     * dat_rmr_bind(3DAT): once the bind that unbinds an RMR has completed, no RDMA operation goes
     * through the old context. A write that the peer began before the unbind and sends the rest
     * of afterwards lands no more bytes, and is refused with REMOTE_ACCESS (both sides break).
     */
    @Test
    void anRdmaWriteUnderWayWhenItsRmrIsUnbound_landsNoMoreAndIsRefused() throws Exception {
        Endpoint ep = attacked.endpointForRawPeer();
        try (Socket s = attacked.rawPeer(ep)) {
            dat.api.RemoteMemoryRegion rmr = target.pz.createRemoteMemoryRegion();
            int context = rmr.bind(LmrTriplet.of(target.lmr, 0, 64), dat.api.MemPrivileges.REMOTE_WRITE, ep, 1, 0);
            assertThat(poll(target.reqEvd, 5_000).eventNumber()).isEqualTo(EventNumber.RMR_BIND_COMPLETION_EVENT);
            byte[] frame = writeBegun(s, context);
            rmr.bind(LmrTriplet.of(target.lmr, 0, 0), 0, ep, 2, 0); // unbinds
            DatEvent unbound = poll(target.reqEvd, 5_000);
            assertThat(unbound.eventNumber()).isEqualTo(EventNumber.RMR_BIND_COMPLETION_EVENT);
            assertThat(unbound.userCookie()).isEqualTo(2);
            s.getOutputStream().write(frame, TcpFrame.HEADER_BYTES + 8, 56);
            TcpFrame answer = nextFrame(s);
            assertThat(answer).as("the target's answer").isNotNull();
            assertThat(answer.opcode).isEqualTo(TcpFrame.ACK);
            assertThat(answer.seq).isEqualTo(1);
            assertThat(answer.aux).isEqualTo(TcpFrame.STATUS_REMOTE_ACCESS);
            target.expect(target.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
            for (int k = 8; k < 64; k++) {
                assertThat(target.mem.get(ValueLayout.JAVA_BYTE, k)).as("byte %d after the unbind", k).isZero();
            }
        }
        ep.close();
    }

    /**
     * A write the peer began before this side's abrupt disconnect lands nothing after it: the
     * peer may ignore the DISCONNECT and send on, and the Endpoint may be reset and connected anew.
     */
    @Test
    void anRdmaWriteUnderWayAtAnAbruptDisconnect_landsNoMore() throws Exception {
        Endpoint ep = attacked.endpointForRawPeer();
        try (Socket s = attacked.rawPeer(ep)) {
            byte[] frame = writeBegun(s, target.lmr.rmrContext());
            ep.disconnect(dat.api.CloseFlag.ABRUPT);
            target.expect(target.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            s.getOutputStream().write(frame, TcpFrame.HEADER_BYTES + 8, 56);
            TcpFrame next = nextFrame(s);
            assertThat(next).as("after the write: the DISCONNECT, or the end").satisfiesAnyOf(
                    f -> assertThat(f).isNull(), f -> assertThat(f.opcode).isEqualTo(TcpFrame.DISCONNECT));
            s.shutdownOutput();
            s.getInputStream().readAllBytes(); // the target closes once the peer has
            for (int k = 8; k < 64; k++) {
                assertThat(target.mem.get(ValueLayout.JAVA_BYTE, k)).as("byte %d after the disconnect", k).isZero();
            }
        }
        ep.close();
    }

    /**
     * An RDMA read response the target sends from an RMR stops when the RMR is unbound: the peer,
     * which read slowly, gets no byte the target's memory holds after the unbind (the old
     * context is invalid once dat_rmr_bind returns); the response cannot be finished, so the
     * connection breaks.
     */
    @Test
    void aReadResponseUnderWayWhenItsRmrIsUnbound_sendsNoMoreOfIt() throws Exception {
        int size = 32 << 20; // more than the socket buffers hold
        java.lang.foreign.MemorySegment big = attacked.pair.fb.memory(size);
        big.fill((byte) 0x11);
        dat.api.LocalMemoryRegion bigLmr = target.ia.registerMemory(big, target.pz, dat.api.MemPrivileges.ALL);
        Endpoint ep = attacked.endpointForRawPeer();
        try (Socket s = attacked.rawPeer(ep, 4096)) { // a small window: the target's writer stalls soon
            dat.api.RemoteMemoryRegion rmr = target.pz.createRemoteMemoryRegion();
            int context = rmr.bind(LmrTriplet.of(bigLmr, 0, size), dat.api.MemPrivileges.REMOTE_READ, ep, 1, 0);
            assertThat(poll(target.reqEvd, 5_000).eventNumber()).isEqualTo(EventNumber.RMR_BIND_COMPLETION_EVENT);
            s.getOutputStream().write(header(TcpFrame.RDMA_READ_REQUEST, 0, context, size, 1, bigLmr.registeredAddress(), 0));
            Thread.sleep(300); // the response fills the socket buffers and stalls
            // unbinds: the old context is invalid once the call returns (its completion waits for
            // the writer, which waits for the peer)
            rmr.bind(LmrTriplet.of(bigLmr, 0, 0), 0, ep, 2, 0);
            big.fill((byte) 0x22); // what the peer may no longer read
            InputStream in = s.getInputStream();
            byte[] chunk = new byte[1 << 16];
            long got = 0;
            boolean leaked = false;
            for (int n; (n = readOrReset(in, chunk)) > 0;) {
                for (int k = 0; k < n; k++) {
                    leaked |= chunk[k] == 0x22;
                }
                got += n;
            }
            assertThat(leaked).as("bytes written after the unbind reached the peer").isFalse();
            assertThat(got).as("bytes of the response the peer got").isLessThan(size);
        }
        target.expect(target.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
        ep.close();
    }

    /** A read that ends at a reset as at the end of the stream. */
    private static int readOrReset(InputStream in, byte[] b) throws IOException {
        try {
            return in.read(b);
        } catch (java.net.SocketException reset) {
            return -1;
        }
    }

    /**
     * An RDMA read whose local LMR is freed before its response lands completes with
     * DAT_DTO_ERR_LOCAL_PROTECTION and breaks the connection, as in one JVM (dat_ep_post_rdma_read):
     * not flushed, as if the peer had broken the protocol. The peer here is a raw passive side.
     */
    @Test
    void aReadWhoseLocalLmrIsFreedBeforeItsResponse_failsWithLocalProtection() throws Exception {
        java.lang.foreign.MemorySegment local = attacked.pair.fb.memory(64);
        dat.api.LocalMemoryRegion localLmr = target.ia.registerMemory(local, target.pz, dat.api.MemPrivileges.ALL);
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            server.setSoTimeout(10_000);
            target.ep.connect(new InetSocketAddress("127.0.0.1", server.getLocalPort()), 5, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
            try (Socket s = server.accept()) {
                s.setSoTimeout(10_000);
                TcpFrame request = nextFrame(s);
                assertThat(request.opcode).isEqualTo(TcpFrame.CONNECT_REQUEST);
                s.getInputStream().readNBytes((int) request.payloadLength);
                s.getOutputStream().write(header(TcpFrame.ACCEPT, 0, 0, 0, 0, 0, 0));
                assertThat(nextFrame(s).opcode).isEqualTo(TcpFrame.READY_TO_USE);
                target.expect(target.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                ok(target.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(localLmr, 0, 64)}, 77,
                        new RmrTriplet(12345, 4096, 64), 0));
                TcpFrame read = nextFrame(s);
                assertThat(read.opcode).isEqualTo(TcpFrame.RDMA_READ_REQUEST);
                localLmr.close(); // the consumer frees the read's memory while the response is on its way
                byte[] response = header(TcpFrame.RDMA_READ_RESPONSE, 64, 0, TcpFrame.STATUS_OK, read.seq, 0, 64);
                s.getOutputStream().write(response);
                DatEvent done = target.expect(target.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
                assertThat(done.userCookie()).isEqualTo(77);
                assertThat(done.status()).isEqualTo(DtoCompletionStatus.ERR_LOCAL_PROTECTION);
                target.expect(target.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
            }
        }
        assertThat(attacked.transport().violations.get()).as("protocol violations counted").isZero();
    }

    /**
     * dat_lmr_free of one registration waits for no write that lands through another registration
     * of the same memory: the write under way goes on and succeeds, its connection unbroken.
     */
    @Test
    void freeingAnotherLmrOverTheSameMemory_leavesAWriteUnderWayAlone() throws Exception {
        Endpoint ep = attacked.endpointForRawPeer();
        dat.api.LocalMemoryRegion twin = target.ia.registerMemory(target.mem, target.pz, dat.api.MemPrivileges.ALL);
        try (Socket s = attacked.rawPeer(ep)) {
            byte[] frame = writeBegun(s, target.lmr.rmrContext());
            twin.close(); // returns at once: the write under way lands through target.lmr, not twin
            s.getOutputStream().write(frame, TcpFrame.HEADER_BYTES + 8, 56);
            TcpFrame answer = nextFrame(s);
            assertThat(answer).as("the target's answer").isNotNull();
            assertThat(answer.opcode).isEqualTo(TcpFrame.ACK);
            assertThat(answer.aux).isEqualTo(TcpFrame.STATUS_OK);
            awaitBytes(0, 64, (byte) 0x5A);
            assertThat(ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
        ep.close();
    }

    /**
     * A read whose target memory's arena closes after the request was checked, while its
     * response waits behind another, is refused with REMOTE_ACCESS, as in one JVM: not a
     * connection broken without an answer.
     */
    @Test
    void aReadWhoseTargetArenaClosesBeforeItsResponse_isRefusedWithRemoteAccess() throws Exception {
        int size = 32 << 20; // more than the socket buffers hold
        dat.api.LocalMemoryRegion bigLmr = target.ia.registerMemory(attacked.pair.fb.memory(size), target.pz, dat.api.MemPrivileges.ALL);
        java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
        dat.api.LocalMemoryRegion doomed = target.ia.registerMemory(arena.allocate(64), target.pz, dat.api.MemPrivileges.ALL);
        Endpoint ep = attacked.endpointForRawPeer();
        try (Socket s = attacked.rawPeer(ep, 4096)) { // the first response stalls the target's writer
            s.getOutputStream().write(header(TcpFrame.RDMA_READ_REQUEST, 0, bigLmr.rmrContext(), size, 1, bigLmr.registeredAddress(), 0));
            s.getOutputStream().write(header(TcpFrame.RDMA_READ_REQUEST, 0, doomed.rmrContext(), 64, 2, doomed.registeredAddress(), 0));
            Thread.sleep(300); // both requests checked; the first response fills the socket buffers
            arena.close();
            TcpFrame first = nextFrame(s);
            assertThat(first.opcode).isEqualTo(TcpFrame.RDMA_READ_RESPONSE);
            assertThat(first.aux).isEqualTo(TcpFrame.STATUS_OK);
            s.getInputStream().skipNBytes(first.payloadLength);
            TcpFrame second = nextFrame(s);
            assertThat(second).as("the second read's answer").isNotNull();
            assertThat(second.opcode).isEqualTo(TcpFrame.RDMA_READ_RESPONSE);
            assertThat(second.seq).isEqualTo(2);
            assertThat(second.aux).isEqualTo(TcpFrame.STATUS_REMOTE_ACCESS);
        }
        ep.close();
    }

    /**
     * A receive whose send is still landing is posted and not completed: dat_ep_recv_query counts
     * it and dat_ep_get_status reports receives in progress, as in one JVM (where taking and
     * completing it are one step): taken out of the ring, it still counts.
     */
    @Test
    void aReceiveWhoseSendIsLanding_stillCountsAsPosted() throws Exception {
        Endpoint ep = attacked.endpointForRawPeer();
        try (Socket s = attacked.rawPeer(ep)) {
            ok(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(target.lmr, 0, 64)}, 3, 0));
            byte[] frame = header(TcpFrame.SEND, 64, 0, 0, 1, 0, 64);
            java.util.Arrays.fill(frame, TcpFrame.HEADER_BYTES, frame.length, (byte) 0x5A);
            byte[] second = header(TcpFrame.SEND, 64, 0, 0, 2, 0, 64);
            java.util.Arrays.fill(second, TcpFrame.HEADER_BYTES, second.length, (byte) 0x5A);
            s.getOutputStream().write(frame, 0, TcpFrame.HEADER_BYTES + 8);
            awaitBytes(0, 8, (byte) 0x5A); // the receive was taken and is being filled
            assertThat(ep.recvQuery().nbufsAllocated()).isEqualTo(1);
            assertThat(ep.getStatus().recvIdle()).isFalse();
            s.getOutputStream().write(frame, TcpFrame.HEADER_BYTES + 8, 56);
            DatEvent r = poll(target.recvEvd, 5_000);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(ep.recvQuery().nbufsAllocated()).isZero();
            assertThat(ep.getStatus().recvIdle()).isTrue();
            // and a receive flushed while it lands is counted out once
            target.mem.asSlice(0, 64).fill((byte) 0);
            ok(ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(target.lmr, 0, 64)}, 4, 0));
            s.getOutputStream().write(second, 0, TcpFrame.HEADER_BYTES + 8);
            awaitBytes(0, 8, (byte) 0x5A);
            assertThat(ep.recvQuery().nbufsAllocated()).isEqualTo(1);
            ep.disconnect(dat.api.CloseFlag.ABRUPT);
            assertThat(poll(target.recvEvd, 5_000).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
            assertThat(ep.recvQuery().nbufsAllocated()).isZero();
            assertThat(ep.getStatus().recvIdle()).isTrue();
        }
        ep.close();
    }
}
