package dat.tests.conformance.internal;

import dat.api.ConnectFlags;
import dat.api.EpAttributes;
import dat.api.EventNumber;
import dat.api.InterfaceAdapter;
import dat.api.Qos;
import dat.api.RmrTriplet;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * An Endpoint pair whose passive side lives in a peer agent ({@link PeerAgent}) in another process
 * or on another host: the local side is a {@link Connection.Side} of the IA under test, the remote
 * side is driven over the control connection of {@link PeerProtocol}. Every method waits for the
 * agent's answer, so the two sides act in the order the test calls them.
 */
public final class RemotePeer implements AutoCloseable {

    /** How long a control request may take before the test fails instead of hanging: 60 s. */
    private static final int CONTROL_TIMEOUT_MILLIS = 60_000;

    /** A completion the agent took from one of its EVDs. */
    public record Completion(int code, int eventNumber, int status, long cookie, long transferredLength, boolean onAgentEndpoint) {
    }

    private final IaUnderTest t;
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    /** The local side: the active Endpoint, on the IA under test. */
    public final Connection.Side local;

    private RemotePeer(IaUnderTest t, Socket socket, Connection.Side local) throws IOException {
        this.t = t;
        this.socket = socket;
        this.local = local;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    /**
     * Builds a local side on {@code ia}, asks the agent for its side, connects the local Endpoint
     * to the agent's PSP and waits until both are established.
     *
     * @param t the fixture
     * @param ia the IA instance of the local side
     * @param attributes the Endpoint attributes of both sides
     * @param agent the agent's control address
     * @return the connected pair
     */
    public static RemotePeer connect(IaUnderTest t, InterfaceAdapter ia, EpAttributes attributes, InetSocketAddress agent) {
        Connection.Side local = new Connection.Side(t, ia, attributes);
        Socket socket = new Socket();
        try {
            socket.connect(agent, CONTROL_TIMEOUT_MILLIS);
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(CONTROL_TIMEOUT_MILLIS);
            RemotePeer peer = new RemotePeer(t, socket, local);
            peer.open(attributes);
            return peer;
        } catch (IOException e) {
            closeQuietly(socket);
            throw t.failure("the peer agent at " + agent + " (dat test --serve): " + e);
        } catch (RuntimeException | Error e) {
            closeQuietly(socket);
            throw e;
        }
    }

    private void open(EpAttributes a) throws IOException {
        out.writeInt(PeerProtocol.MAGIC);
        out.writeInt(a.maxRecvDtos());
        out.writeInt(a.maxRequestDtos());
        out.writeInt(a.maxRecvIov());
        out.writeInt(a.maxRequestIov());
        out.writeInt(a.maxRdmaReadIov());
        out.writeInt(a.maxRdmaWriteIov());
        out.writeInt(a.maxRdmaReadIn());
        out.writeInt(a.maxRdmaReadOut());
        out.writeLong(a.maxMessageSize());
        out.writeLong(a.maxRdmaSize());
        out.flush();
        status("building the agent's side");
        InetSocketAddress address = new InetSocketAddress(in.readUTF(), in.readInt());
        long connQual = in.readLong();
        local.ep.connect(address, connQual, IaUnderTest.EVENT_TIMEOUT_MICROS, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
        status("the agent accepting the connect to " + address + " qualifier " + connQual);
        t.event(local.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "DAT_CONNECTION_EVENT_ESTABLISHED at the local side");
    }

    private void status(String what) throws IOException {
        byte status = in.readByte();
        if (status != PeerProtocol.OK) {
            throw t.failure(what + ": the agent says " + in.readUTF());
        }
    }

    private void request(String what, Body body) {
        try {
            body.write(out);
            out.flush();
            status(what);
        } catch (IOException e) {
            throw new UncheckedIOException("the control connection to the peer agent, " + what, e);
        }
    }

    private int code(String what, Body body) {
        request(what, body);
        try {
            return in.readInt();
        } catch (IOException e) {
            throw new UncheckedIOException("the control connection to the peer agent, " + what, e);
        }
    }

    @FunctionalInterface
    private interface Body {
        void write(DataOutputStream out) throws IOException;
    }

    /** Zeroes a range of the agent's buffer. */
    public void clear(long offset, long length) {
        request("clearing the agent's buffer", o -> {
            o.writeByte(PeerProtocol.CLEAR);
            o.writeLong(offset);
            o.writeLong(length);
        });
    }

    /** Fills a range of the agent's buffer with the pattern of {@link DataPattern#fill}. */
    public void fill(long offset, long length, int seed) {
        request("filling the agent's buffer", o -> {
            o.writeByte(PeerProtocol.FILL);
            o.writeLong(offset);
            o.writeLong(length);
            o.writeInt(seed);
        });
    }

    /** Checks a range of the agent's buffer against the pattern; fails the test naming {@code what}. */
    public void verify(long offset, long length, int seed, String what) {
        request(what + " at the agent", o -> {
            o.writeByte(PeerProtocol.VERIFY);
            o.writeLong(offset);
            o.writeLong(length);
            o.writeInt(seed);
        });
    }

    /** dat_ep_post_recv or dat_ep_post_send at the agent over consecutive segments; returns the code. */
    public int post(boolean receive, int segments, int segmentSize, long offset, long cookie) {
        return code(receive ? "dat_ep_post_recv at the agent" : "dat_ep_post_send at the agent", o -> {
            o.writeByte(receive ? PeerProtocol.POST_RECV : PeerProtocol.POST_SEND);
            o.writeInt(segments);
            o.writeInt(segmentSize);
            o.writeLong(offset);
            o.writeLong(cookie);
        });
    }

    /** dat_ep_post_rdma_write or _read at the agent; returns the code. */
    public int postRdma(boolean write, int segments, int segmentSize, long offset, long cookie, RmrTriplet remote) {
        return code(write ? "dat_ep_post_rdma_write at the agent" : "dat_ep_post_rdma_read at the agent", o -> {
            o.writeByte(write ? PeerProtocol.POST_RDMA_WRITE : PeerProtocol.POST_RDMA_READ);
            o.writeInt(segments);
            o.writeInt(segmentSize);
            o.writeLong(offset);
            o.writeLong(cookie);
            o.writeInt(remote.rmrContext());
            o.writeLong(remote.targetAddress());
            o.writeLong(remote.segmentLength());
        });
    }

    /** Waits at the agent for the next event of its receive or request EVD. */
    public Completion completion(boolean receive) {
        request("waiting for a completion at the agent", o -> {
            o.writeByte(PeerProtocol.COMPLETION);
            o.writeBoolean(receive);
        });
        try {
            return new Completion(in.readInt(), in.readInt(), in.readInt(), in.readLong(), in.readLong(), in.readBoolean());
        } catch (IOException e) {
            throw new UncheckedIOException("the control connection to the peer agent", e);
        }
    }

    /** The RMR triplet that addresses a range of the agent's buffer. */
    public RmrTriplet remote(long offset, long length) {
        request("the agent's RMR triplet", o -> {
            o.writeByte(PeerProtocol.REMOTE);
            o.writeLong(offset);
            o.writeLong(length);
        });
        try {
            return new RmrTriplet(in.readInt(), in.readLong(), in.readLong());
        } catch (IOException e) {
            throw new UncheckedIOException("the control connection to the peer agent", e);
        }
    }

    /** dat_lmr_sync_rdma_write (or _read) over a range of the agent's buffer. */
    public void sync(boolean write, long offset, long length) {
        request("dat_lmr_sync_rdma at the agent", o -> {
            o.writeByte(PeerProtocol.SYNC);
            o.writeBoolean(write);
            o.writeLong(offset);
            o.writeLong(length);
        });
    }

    /** Ends the pair: the agent frees its side; the local side goes with the IA under test. */
    @Override
    public void close() {
        try {
            out.writeByte(PeerProtocol.BYE);
            out.flush();
            in.readByte();
        } catch (IOException e) {
            // the agent is gone: nothing more to end
        } finally {
            closeQuietly(socket);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
