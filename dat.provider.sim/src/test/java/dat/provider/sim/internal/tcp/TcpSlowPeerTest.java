package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.tcp.RawFrames.frame;
import static dat.provider.sim.internal.tcp.RawFrames.header;
import static dat.provider.sim.internal.tcp.RawPeers.rawActivePeer;
import static dat.provider.sim.internal.tcp.TcpPair.transport;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.core.ProviderSettings;
import dat.provider.sim.internal.core.SimEvd;
import dat.provider.sim.internal.core.SimIa;
import java.io.DataInputStream;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer played with a plain socket that sends its frames slowly or in parts, or reads none of
 * the answers, with a liveness timeout of 300 ms: whoever reads the connection (the I/O agent, or
 * a consumer from its dat_evd_wait, whose wait still ends on time) lands what comes on a
 * connection that stays up, and what the writer cannot send is handed on or ends the connection.
 */
@Timeout(60)
class TcpSlowPeerTest extends AgainstRawPeer {

    /**
     * A frame that takes longer than the liveness timeout to arrive, its bytes coming all along (a
     * large frame on a slow link), is not taken for a dead peer: 40 bytes, one every 25 ms, one
     * second against the 300 ms timeout.
     */
    @Test
    void aFrameSlowerThanTheTimeout_whileItsBytesFlow_isNotBroken() throws Exception {
        try (Socket s = rawActivePeer(a)) {
            rawPeer = s;
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 1, 0));
            byte[] send = header(TcpFrame.SEND, 40, 0, 0, 0, 0);
            for (int i = TcpFrame.HEADER_BYTES; i < send.length; i++) {
                send[i] = (byte) i;
            }
            java.io.OutputStream out = s.getOutputStream();
            out.write(send, 0, TcpFrame.HEADER_BYTES);
            for (int i = TcpFrame.HEADER_BYTES; i < send.length; i++) {
                Thread.sleep(25);
                out.write(send[i]);
                out.flush();
            }
            DatEvent r = a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(r.transferredLength()).isEqualTo(40);
            assertThat(a.mem.get(ValueLayout.JAVA_BYTE, 39)).isEqualTo(send[TcpFrame.HEADER_BYTES + 39]);
            assertThat(a.connEvd.dequeue(a.event)).as("no connection event: not broken").isNotZero();
            assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
    }

    /**
     * A peer that trickles a frame to a consumer running the agent from its dat_evd_wait (each
     * byte proof of life): the consumer lands what comes and never waits for the rest. Its wait
     * ends on time, and the frame, which takes ten liveness timeouts to come but is never silent
     * for one, lands whole on a connection that stays up, as when the agent's thread meets it
     * alone ({@link #aFrameSlowerThanTheTimeout_whileItsBytesFlow_isNotBroken}).
     */
    @Test
    void aFrameTricklingToAWaitingConsumer_theWaitEndsOnTime_andTheFrameLands() throws Exception {
        try (Socket s = rawActivePeer(a)) {
            rawPeer = s;
            feedReceiveEvd(s);
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 2, 0));
            TimedWait wait = new TimedWait(a.recvEvd, 200_000);
            awaitDriven(a.recvEvd, true);
            byte[] send = header(TcpFrame.SEND, 64, 0, 0, 1, 0);
            for (int i = TcpFrame.HEADER_BYTES; i < send.length; i++) {
                send[i] = (byte) (i * 7);
            }
            java.io.OutputStream out = s.getOutputStream();
            out.write(send, 0, TcpFrame.HEADER_BYTES);
            out.flush();
            for (int i = TcpFrame.HEADER_BYTES; i < send.length; i++) {
                Thread.sleep(50); // a byte each 50 ms: 3.2 s for the frame, the timeout 300 ms
                out.write(send[i]);
                out.flush();
            }
            wait.assertTimedOutAfter200Ms();
            DatEvent r = a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
            assertThat(r.userCookie()).isEqualTo(2);
            assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(r.transferredLength()).isEqualTo(64);
            for (int i = 0; i < 64; i++) {
                assertThat(a.mem.get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i).isEqualTo(send[TcpFrame.HEADER_BYTES + i]);
            }
            assertThat(a.connEvd.dequeue(a.event)).as("no connection event: not broken").isNotZero();
            assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
    }

    /**
     * A consumer running the agent from its dat_evd_wait lands what the socket holds and never
     * waits for more: a send larger than the frame reader reads ahead, all of it received,
     * completes; of the next, half received, that half lands and nothing completes; the rest
     * completes it once it comes, whoever runs the agent then. The test holds the agent's role as
     * the agent's thread would (the drives, on the same thread, still take it), so that only the
     * drives read until it lets go.
     */
    @Test
    void aDrivingConsumer_landsWhatTheSocketHolds_withoutWaitingForTheRest() throws Exception {
        // its own IA: the raw peer is silent between its frames, and no pause of the test may reach the liveness timeout
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=3600000")) {
            Fabric.Side a = f.new Side("tcpD", null, 1 << 20);
            try (Socket s = rawActivePeer(a)) {
                rawPeer = s;
                feedReceiveEvd(a, s);
                int length = 48 << 10; // beyond the read-ahead
                ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, length)}, 2, 0));
                ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, length, length)}, 3, 0));
                byte[] whole = header(TcpFrame.SEND, length, 0, 0, 1, 0);
                byte[] halved = header(TcpFrame.SEND, length, 0, 0, 2, 0);
                for (int i = TcpFrame.HEADER_BYTES; i < whole.length; i++) {
                    whole[i] = (byte) (i | 1);
                    halved[i] = (byte) (i * 3 | 1);
                }
                SimEvd evd = (SimEvd) a.recvEvd;
                TcpConnection connection = transport(a).connections().iterator().next();
                IoAgent agent = transport(a).agent();
                java.io.OutputStream out = s.getOutputStream();
                DatEvent got = new DatEvent();
                long readBefore = connection.framesReadByConsumers();
                agent.lockRoleForTest();
                try {
                    out.write(whole);
                    out.flush();
                    awaitReceived(connection, whole.length);
                    assertThat(agent.drive(evd, false, System.nanoTime() - 1)).as("drove").isTrue();
                    ok(a.recvEvd.dequeue(got));
                    assertThat(got.userCookie()).isEqualTo(2);
                    assertThat(got.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                    assertThat(got.transferredLength()).isEqualTo(length);
                    assertThat(connection.framesReadByConsumers()).as("frames read by consumers").isEqualTo(readBefore + 1);

                    out.write(halved, 0, TcpFrame.HEADER_BYTES + length / 2);
                    out.flush();
                    awaitReceived(connection, TcpFrame.HEADER_BYTES + length / 2);
                    assertThat(agent.drive(evd, false, System.nanoTime() - 1)).as("drove").isTrue();
                    assertThat(a.recvEvd.dequeue(got)).as("no completion yet").isNotEqualTo(DatReturn.SUCCESS);
                    assertThat(connection.framesReadByConsumers()).as("frames read by consumers").isEqualTo(readBefore + 2);
                    assertThat(a.mem.get(ValueLayout.JAVA_BYTE, length)).as("the half received landed")
                            .isEqualTo(halved[TcpFrame.HEADER_BYTES]);
                } finally {
                    agent.role().unlock();
                    agent.roleReleased();
                }
                out.write(halved, TcpFrame.HEADER_BYTES + length / 2, length - length / 2);
                out.flush();
                DatEvent r = a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT);
                assertThat(r.userCookie()).isEqualTo(3);
                assertThat(r.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
                assertThat(r.transferredLength()).isEqualTo(length);
                for (int i = 0; i < length; i++) {
                    assertThat(a.mem.get(ValueLayout.JAVA_BYTE, i)).isEqualTo(whole[TcpFrame.HEADER_BYTES + i]);
                    assertThat(a.mem.get(ValueLayout.JAVA_BYTE, length + i)).isEqualTo(halved[TcpFrame.HEADER_BYTES + i]);
                }
                assertThat(a.connEvd.dequeue(a.event)).as("no connection event").isNotZero();
            }
        }
    }

    /** Waits until the connection's socket holds at least {@code bytes} received and not read. */
    private static void awaitReceived(TcpConnection connection, long bytes) throws Exception {
        for (long deadline = System.nanoTime() + 5_000_000_000L;
                connection.bytesInReceiveQueue() < bytes && System.nanoTime() < deadline;) {
            Thread.sleep(1);
        }
        assertThat(connection.bytesInReceiveQueue()).as("bytes in the receive queue").isGreaterThanOrEqualTo(bytes);
    }

    /**
     * A large frame that a live peer sends more slowly than the liveness timeout allows a waiting
     * consumer (a slow link, not a hostile peer): the consumer lands what comes and never waits
     * for the rest, so its dat_evd_wait ends at its timeout, not when the frame does, and the
     * connection does not break; the write lands whole and the peer gets its ACK.
     */
    @Test
    void aLargeFrameArrivingSlowly_neitherHoldsTheWaitNorBreaks() throws Exception {
        int length = 2 << 20;
        java.lang.foreign.MemorySegment target = fa.memory(length);
        try (Socket s = rawActivePeer(a); var window = a.ia.registerMemory(target, a.pz, dat.api.MemPrivileges.ALL)) {
            rawPeer = s;
            feedReceiveEvd(s);
            DataInputStream in = new DataInputStream(s.getInputStream());
            assertThat(frame(in).getLong(16)).as("the send's ACK").isZero();
            TimedWait wait = new TimedWait(a.recvEvd, 200_000);
            awaitDriven(a.recvEvd, true);
            byte[] write = header(TcpFrame.RDMA_WRITE, length, window.rmrContext(), 0, 1, window.registeredAddress());
            java.util.Arrays.fill(write, TcpFrame.HEADER_BYTES, write.length, (byte) 0x3C);
            java.io.OutputStream out = s.getOutputStream();
            out.write(write, 0, TcpFrame.HEADER_BYTES);
            out.flush();
            int chunk = 64 << 10;
            boolean closedByTheIa = false;
            for (int at = TcpFrame.HEADER_BYTES; at < write.length && !closedByTheIa; at += chunk) {
                Thread.sleep(40); // 32 chunks: 1.3 s for the frame, the timeout 300 ms
                try {
                    out.write(write, at, Math.min(chunk, write.length - at));
                    out.flush();
                } catch (java.io.IOException e) {
                    closedByTheIa = true;
                }
            }
            wait.thread.join(5_000);
            assertThat(closedByTheIa).as("the IA closed the connection while the frame came").isFalse();
            wait.assertTimedOutAfter200Ms();
            ByteBuffer ack = frame(in);
            assertThat(ack.get(3)).isEqualTo((byte) TcpFrame.ACK);
            assertThat(ack.getLong(16)).as("the ACK's sequence number").isEqualTo(1);
            assertThat(ack.getInt(12)).as("the ACK's status").isEqualTo(TcpFrame.STATUS_OK);
            assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
            assertThat(a.connEvd.dequeue(a.event)).as("no connection event").isNotZero();
            for (long k = 0; k < length; k += 4096) {
                assertThat(target.get(ValueLayout.JAVA_BYTE, k)).isEqualTo((byte) 0x3C);
            }
            assertThat(target.get(ValueLayout.JAVA_BYTE, length - 1)).isEqualTo((byte) 0x3C);

            // a consumer whose wait outlasts such a frame runs the agent through it, and the send behind it ends the wait
            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 2, 0));
            TimedWait longWait = new TimedWait(a.recvEvd, 10_000_000);
            awaitDriven(a.recvEvd, true);
            write[TcpFrame.HEADER_BYTES] = 0x4B;
            ByteBuffer.wrap(write).putLong(16, 2); // seq 2
            out.write(write, 0, TcpFrame.HEADER_BYTES);
            out.flush();
            for (int at = TcpFrame.HEADER_BYTES; at < write.length; at += chunk) {
                Thread.sleep(5);
                out.write(write, at, Math.min(chunk, write.length - at));
                out.flush();
            }
            assertThat(frame(in).getLong(16)).as("the second write's ACK").isEqualTo(2);
            awaitDriven(a.recvEvd, true);
            long readByConsumers = transport(a).framesReadByConsumers();
            out.write(header(TcpFrame.SEND, 8, 0, 0, 3, 0));
            out.flush();
            longWait.thread.join(5_000);
            Codes.isType(longWait.code, DatReturn.SUCCESS);
            assertThat(longWait.got.userCookie()).isEqualTo(2);
            assertThat(transport(a).framesReadByConsumers()).as("frames the waiting consumer read").isGreaterThan(readByConsumers);
            assertThat(target.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x4B);
        }
    }

    /**
     * The I/O agent waits for the rest of a large payload with the socket's low-water mark
     * ({@link ReceiveLowWater}) at what it still needs, and sets the mark back to one byte as each
     * such wait ends: a small frame that comes later, alone, wakes it. Left at the payload's size,
     * the mark kept it asleep until the liveness timeout broke the connection and flushed the
     * receive. Nothing here waits in dat_evd_wait, so only the agent reads.
     */
    @Test
    void aSmallFrameAfterALargeOne_wakesTheAgent_theLowWaterMarkBackAtOneByte() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ReceiveLowWater.available(), ReceiveLowWater::unavailableReason);
        int length = 1 << 20;
        java.lang.foreign.MemorySegment target = fa.memory(length);
        try (Socket s = rawActivePeer(a); var window = a.ia.registerMemory(target, a.pz, dat.api.MemPrivileges.ALL)) {
            rawPeer = s;
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] write = header(TcpFrame.RDMA_WRITE, length, window.rmrContext(), 0, 0, window.registeredAddress());
            java.util.Arrays.fill(write, TcpFrame.HEADER_BYTES, write.length, (byte) 0x5D);
            java.io.OutputStream out = s.getOutputStream();
            long raised = transport(a).lowWaterWaits();
            out.write(write, 0, TcpFrame.HEADER_BYTES + length / 2);
            out.flush();
            // the first half landed: the agent waits for the other, 512 KiB, the mark raised
            for (long deadline = System.nanoTime() + 5_000_000_000L;
                    target.get(ValueLayout.JAVA_BYTE, length / 2 - 1) != 0x5D && System.nanoTime() < deadline;) {
                Thread.sleep(1);
            }
            Thread.sleep(20);
            out.write(write, TcpFrame.HEADER_BYTES + length / 2, length / 2);
            out.flush();
            ByteBuffer ack = frame(in);
            assertThat(transport(a).lowWaterWaits()).as("waits with the mark up").isGreaterThan(raised);
            assertThat(ack.get(3)).isEqualTo((byte) TcpFrame.ACK);
            assertThat(ack.getInt(12)).as("the write's status").isEqualTo(TcpFrame.STATUS_OK);
            assertThat(target.get(ValueLayout.JAVA_BYTE, length - 1)).isEqualTo((byte) 0x5D);

            ok(a.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a.lmr, 0, 64)}, 7, 0));
            Thread.sleep(100); // the agent waits between frames (a third of the timeout)
            out.write(header(TcpFrame.SEND, 8, 0, 0, 1, 0));
            out.flush();
            DatEvent r = new DatEvent();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (a.recvEvd.dequeue(r) != DatReturn.SUCCESS && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(r.eventNumber()).isEqualTo(EventNumber.DTO_COMPLETION_EVENT);
            assertThat(r.userCookie()).isEqualTo(7);
            assertThat(r.status()).as("the receive of the small send").isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(a.connEvd.dequeue(a.event)).as("no connection event: not broken").isNotZero();
            assertThat(a.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        }
    }

    /** A send from the raw peer {@code s} lands in a receive of a's: the connection feeds a's receive EVD, whose waiters may read it. */
    private void feedReceiveEvd(Socket s) throws Exception {
        feedReceiveEvd(a, s);
    }

    /**
     * As {@link #feedReceiveEvd(Socket)}, for {@code side}; the send's sequence number is 0.
     * Returns once the EVD knows its feeder, which the connection notes after the completion.
     */
    private static void feedReceiveEvd(Fabric.Side side, Socket s) throws Exception {
        ok(side.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(side.lmr, 0, 64)}, 1, 0));
        s.getOutputStream().write(header(TcpFrame.SEND, 8, 0, 0, 0, 0));
        assertThat(side.expect(side.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        SimEvd evd = (SimEvd) side.recvEvd;
        for (long deadline = System.nanoTime() + 5_000_000_000L; evd.driver() == null && System.nanoTime() < deadline;) {
            Thread.sleep(1);
        }
        assertThat(evd.driver()).as("the receive EVD's driver").isNotNull();
    }

    /**
     * A consumer in a 200 ms dat_evd_wait on {@code side}'s receive EVD, reading the connection
     * from it: once it is driving, {@code frames} are written from the raw peer. The wait must
     * end on time, TIMEOUT_EXPIRED in 150-1000 ms, whatever the frames make the connection do.
     *
     * @return the frames the consumer read meanwhile
     */
    private static long framesReadByAWaitEndingOnTime(Fabric.Side side, Socket peer, byte[] frames) throws Exception {
        TcpConnection connection = ((TcpTransport) ((SimIa) side.ia).adapter().transport()).connections().iterator().next();
        long readBefore = connection.framesReadByConsumers();
        long[] codeAndMs = {-1, -1};
        Thread waiter = Thread.ofPlatform().start(() -> {
            long began = System.nanoTime();
            codeAndMs[0] = side.recvEvd.await(200_000, 1, new DatEvent());
            codeAndMs[1] = (System.nanoTime() - began) / 1_000_000;
        });
        awaitDriven(side.recvEvd, true);
        peer.getOutputStream().write(frames);
        peer.getOutputStream().flush();
        waiter.join(5_000);
        assertThat(codeAndMs[1]).as("ms in dat_evd_wait(200 ms); -1: not returned in 5 s").isBetween(150L, 1_000L);
        Codes.isType((int) codeAndMs[0], DatReturn.TIMEOUT_EXPIRED);
        return connection.framesReadByConsumers() - readBefore;
    }

    /**
     * A peer that requests more RDMA reads than the response ring holds (256) and reads nothing
     * of the responses, while a consumer reads the connection from its dat_evd_wait: the consumer
     * hands on the request that finds the ring full, at its header, so its wait ends on time
     * (not when the connection breaks, as a wait for a slot would); the I/O agent waits for
     * the slot, and once the peer reads, every response comes, in order, on a connection that
     * stayed up.
     */
    @Test
    void aConsumerMeetingAFullResponseRing_handsTheRequestOn_itsWaitEndingOnTime() throws Exception {
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=5000")) {
            Fabric.Side side = f.new Side("tcpQ", null, 1 << 20);
            try (Socket s = rawActivePeer(side)) {
                feedReceiveEvd(side, s);
                int requests = 400; // 100 MiB of responses: the socket takes a few MiB, the ring 256 more
                int length = 256 << 10;
                ByteBuffer frames = ByteBuffer.allocate(requests * TcpFrame.HEADER_BYTES);
                for (int i = 1; i <= requests; i++) {
                    RmrTriplet source = RmrTriplet.of(side.lmr, (long) (i % 4) * length, length);
                    frames.put(header(TcpFrame.RDMA_READ_REQUEST, 0, source.rmrContext(), length, i, source.targetAddress()));
                }
                assertThat(framesReadByAWaitEndingOnTime(side, s, frames.array())).as("requests the consumer handled")
                        .isBetween(1L, requests - 1L);
                DataInputStream in = new DataInputStream(s.getInputStream());
                assertThat(frame(in).getLong(16)).as("the send's ACK").isZero();
                for (int i = 1; i <= requests; i++) {
                    ByteBuffer response = frame(in);
                    assertThat(response.get(3)).as("response %d", i).isEqualTo((byte) TcpFrame.RDMA_READ_RESPONSE);
                    assertThat(response.getLong(16)).as("its sequence number").isEqualTo(i);
                    assertThat(response.getInt(12)).as("its status").isEqualTo(TcpFrame.STATUS_OK);
                    assertThat(Integer.toUnsignedLong(response.getInt(4))).as("its length").isEqualTo(length);
                }
                assertThat(side.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
                assertThat(side.connEvd.dequeue(side.event)).as("no connection event").isNotZero();
            }
        }
    }

    /**
     * An access refused by a consumer reading the connection from its dat_evd_wait, while the
     * writer cannot send the refusal (the peer reads none of the RDMA reads it requested): the
     * consumer does not wait for the writer, its wait ends on time; the I/O agent gives the
     * writer its time and then breaks the Endpoint, as
     * {@link #aRefusalTheWriterCannotSend_stillBreaksTheEndpoint} when it met the refusal itself.
     */
    @Test
    void aConsumerRefusingAnAccess_leavesTheEndToTheAgent_itsWaitEndingOnTime() throws Exception {
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=3600000")) {
            Fabric.Side side = f.new Side("tcpR", null, 16 << 20);
            try (Socket s = rawActivePeer(side)) {
                feedReceiveEvd(side, s);
                int reads = 16; // 16 MiB: more than the socket takes while the peer reads nothing
                ByteBuffer frames = ByteBuffer.allocate((reads + 1) * TcpFrame.HEADER_BYTES);
                for (int i = 0; i < reads; i++) {
                    RmrTriplet source = RmrTriplet.of(side.lmr, (long) i << 20, 1 << 20);
                    frames.put(header(TcpFrame.RDMA_READ_REQUEST, 0, source.rmrContext(), 1 << 20, i + 1, source.targetAddress()));
                }
                frames.put(header(TcpFrame.RDMA_WRITE, 0, 0x7777, 0, reads + 1, 0)); // an unknown RMR context
                assertThat(framesReadByAWaitEndingOnTime(side, s, frames.array())).as("frames the consumer handled, the refused one too")
                        .isEqualTo(reads + 1L);
                // else the writer sent the refusal at once, and the test would prove nothing
                assertThat(side.connEvd.dequeue(side.event)).as("not broken yet: the writer cannot send the refusal").isNotZero();
                DatEvent c = side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
                assertThat(c.endpoint()).isSameAs(side.ep);
                assertThat(side.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
            }
        }
    }

    /** Waits until a consumer reads the connection from its wait on {@code evd}, or no longer does. */
    private static void awaitDriven(dat.api.EventDispatcher evd, boolean driven) throws InterruptedException {
        for (long deadline = System.nanoTime() + 5_000_000_000L;
                (((SimEvd) evd).drivenBy() != null) != driven && System.nanoTime() < deadline;) {
            Thread.sleep(1);
        }
        assertThat(((SimEvd) evd).drivenBy() != null).as("a consumer reads the connection from its wait").isEqualTo(driven);
    }

    /**
     * An access refused while the writer cannot send the refusal (the peer reads nothing: here
     * RDMA reads of 8 MiB it never takes), with keepalives too slow to help: the reader does not
     * leave the Endpoint CONNECTED on a closed connection, it breaks it.
     */
    @Test
    void aRefusalTheWriterCannotSend_stillBreaksTheEndpoint() throws Exception {
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.1:0 tcp_timeout_ms=3600000")) {
            Fabric.Side side = f.new Side("tcpR", null, 8 << 20);
            try (Socket s = rawActivePeer(side)) {
                java.io.OutputStream out = s.getOutputStream();
                for (int i = 0; i < 8; i++) {
                    RmrTriplet source = RmrTriplet.of(side.lmr, (long) i << 20, 1 << 20);
                    out.write(header(TcpFrame.RDMA_READ_REQUEST, 0, source.rmrContext(), 1 << 20, i, source.targetAddress()));
                }
                out.write(header(TcpFrame.RDMA_WRITE, 0, 0x7777, 0, 8, 0)); // an unknown RMR context
                out.flush();
                DatEvent c = side.expect(side.connEvd, EventNumber.CONNECTION_EVENT_BROKEN);
                assertThat(c.endpoint()).isSameAs(side.ep);
                assertThat(side.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
            }
        }
    }

    /** A dat_evd_wait on its own thread: the code it returned and how long it took. */
    private static final class TimedWait {
        final DatEvent got = new DatEvent();
        final Thread thread;
        volatile int code = -1;
        volatile long returnedAfterMs = -1;

        TimedWait(dat.api.EventDispatcher evd, long timeoutMicros) {
            thread = Thread.ofPlatform().start(() -> {
                long began = System.nanoTime();
                code = evd.await(timeoutMicros, 1, got);
                returnedAfterMs = (System.nanoTime() - began) / 1_000_000;
            });
        }

        /** The wait of 200 ms ended on its timeout, at about that time. */
        void assertTimedOutAfter200Ms() throws InterruptedException {
            thread.join(5_000);
            Codes.isType(code, DatReturn.TIMEOUT_EXPIRED);
            assertThat(returnedAfterMs).as("ms in dat_evd_wait(200 ms)").isBetween(150L, 1_000L);
        }
    }
}
