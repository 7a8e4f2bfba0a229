package dat.provider.sim.internal;

import dat.provider.sim.internal.core.*;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;
import dat.api.RmrTriplet;
import dat.api.LmrTriplet;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.Qos;
import dat.api.spi.IaOpenRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Test fixture: a sim provider with IAs {@code sim0} and {@code sim1}, and helpers to build
 * connected Endpoint pairs. Closing it stops the provider.
 */
public final class Fabric implements AutoCloseable {

    public static final long WAIT = 5_000_000; // µs
    /** The entries of a {@link Side}'s DTO EVDs. */
    public static final int DTO_EVD_ENTRIES = 256;

    public final SimIaFactory factory;
    public final Arena arena = Arena.ofShared();
    /** The ia_params of IAs opened by a name the provider does not serve already. */
    private final String iaParams;

    public Fabric() {
        this(ProviderSettings.defaults().limits());
    }

    public Fabric(SimLimits limits) {
        this(limits, "");
    }

    /** The TCP transports of the IAs opened: none of their connections may end on an unexpected exception. */
    private final java.util.Set<dat.provider.sim.internal.tcp.TcpTransport> tcp =
            java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    private long unexpectedEndsExpected;

    public Fabric(SimLimits limits, String iaParams) {
        factory = new SimIaFactory(new ProviderSettings(List.of("sim0", "sim1"), limits, "backoff", 1000, 49152, 16384));
        this.iaParams = iaParams;
    }

    public InterfaceAdapter open(String name) {
        InterfaceAdapter ia = factory.openIa(new IaOpenRequest(name, 64, null, name.startsWith("sim") ? "" : iaParams));
        if (ia instanceof SimIa s && s.adapter().transport() instanceof dat.provider.sim.internal.tcp.TcpTransport t) {
            tcp.add(t);
        }
        return ia;
    }

    /**
     * A test that plants a defect on purpose: {@code n} TCP connections of this fabric's IAs end
     * through the I/O agent's catch-all for an unexpected exception (otherwise none may, see {@link #close}).
     */
    public void expectUnexpectedEnds(long n) {
        unexpectedEndsExpected = n;
    }

    public MemorySegment memory(long size) {
        return arena.allocate(size, 64);
    }

    @Override
    public void close() {
        // an interrupt of the test thread would cut the waits for the provider's threads short: it is
        // taken off for the shutdown and reported after it
        boolean interrupted = Thread.interrupted();
        boolean ended = factory.shutdown();
        assertThat(ended).as("the provider thread ends; the provider's threads left:%n%s", ended ? "" : providerThreads()).isTrue();
        arena.close();
        // through the IAs' close too: a channel closed while its agent serves it is no defect
        assertThat(tcp.stream().mapToLong(dat.provider.sim.internal.tcp.TcpTransport::unexpectedEnds).sum())
                .as("TCP connections that ended on an unexpected exception (the I/O agent's log says which)")
                .isEqualTo(unexpectedEndsExpected);
        assertThat(interrupted).as("the test thread was interrupted during the test (a provider never interrupts a consumer's thread)")
                .isFalse();
    }

    /** Closes every fabric, each even when one before it fails (its threads would outlive the test): the first failure is thrown. */
    public static void closeAll(Fabric... fabrics) {
        AssertionError first = null;
        for (Fabric f : fabrics) {
            try {
                f.close();
            } catch (AssertionError e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** The stacks of the provider's threads still alive, for a failure that says where they are. */
    private static String providerThreads() {
        StringBuilder b = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, stack) -> {
            if (t.getName().startsWith("dat-sim")) {
                b.append(t.getName()).append(' ').append(t.getState()).append('\n');
                for (StackTraceElement e : stack) {
                    b.append("    at ").append(e).append('\n');
                }
            }
        });
        return b.toString();
    }

    /** One side: IA, PZ, EVDs, an Endpoint and a registered buffer. */
    public final class Side {
        public final InterfaceAdapter ia;
        public final ProtectionZone pz;
        public final EventDispatcher recvEvd;
        public final EventDispatcher reqEvd;
        public final EventDispatcher connEvd;
        public final EventDispatcher crEvd;
        public final Endpoint ep;
        public final MemorySegment mem;
        public final LocalMemoryRegion lmr;
        public final DatEvent event = new DatEvent();

        public Side(String name, EpAttributes attrs, long bytes) {
            ia = open(name);
            pz = ia.createProtectionZone();
            recvEvd = ia.createEventDispatcher(DTO_EVD_ENTRIES, null, EvdFlags.DTO);
            reqEvd = ia.createEventDispatcher(DTO_EVD_ENTRIES, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
            connEvd = ia.createEventDispatcher(16, null, EvdFlags.CONNECTION);
            crEvd = ia.createEventDispatcher(16, null, EvdFlags.CR);
            ep = ia.createEndpoint(pz, recvEvd, reqEvd, connEvd, attrs);
            mem = memory(bytes);
            lmr = ia.registerMemory(mem, pz, MemPrivileges.ALL);
        }

        public InetSocketAddress address() {
            return ia.query().iaAttributes().iaAddress();
        }

        public DatEvent next(EventDispatcher evd) {
            return next(evd, event);
        }

        public DatEvent expect(EventDispatcher evd, int eventNumber) {
            return expect(evd, eventNumber, event);
        }

        /** {@link #next(EventDispatcher)} into {@code into}: for a thread other than the one that uses {@link #event}. */
        public static DatEvent next(EventDispatcher evd, DatEvent into) {
            int rc = evd.await(WAIT, 1, into);
            assertThat(DatReturn.describe(rc)).isEqualTo(DatReturn.describe(DatReturn.SUCCESS));
            return into;
        }

        /** {@link #expect(EventDispatcher, int)} into {@code into}. */
        public static DatEvent expect(EventDispatcher evd, int eventNumber, DatEvent into) {
            DatEvent e = next(evd, into);
            assertThat(EventNumber.name(e.eventNumber())).isEqualTo(EventNumber.name(eventNumber));
            return e;
        }
    }

    /**
     * A send posted before the peer's receive waits for it, and an RDMA write posted behind the
     * send waits behind it: both complete in order once the receive comes (dat_ep_post_send(3DAT)).
     * {@code a} and {@code b} are connected, nothing posted.
     */
    public static void assertASendWaitsForItsReceive_inOrderWithLaterRequests(Side a, Side b) {
        for (int i = 0; i < 8; i++) {
            a.mem.set(ValueLayout.JAVA_BYTE, i, (byte) (5 + i * 31));
        }
        LmrTriplet[] message = {LmrTriplet.of(a.lmr, 0, 8)};
        assertThat(a.ep.postSend(1, message, 1, 0)).isEqualTo(DatReturn.SUCCESS);
        assertThat(a.ep.postRdmaWrite(1, message, 2, RmrTriplet.of(b.lmr, 500, 8), 0)).isEqualTo(DatReturn.SUCCESS);
        assertThat(DatReturn.typeOf(a.reqEvd.dequeue(a.event))).isEqualTo(DatReturn.QUEUE_EMPTY);
        assertThat(b.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 500)).as("the write waits behind the send").isZero();
        assertThat(b.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(b.lmr, 0, 8)}, 3, 0)).isEqualTo(DatReturn.SUCCESS);
        assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).userCookie()).isEqualTo(1);
        assertThat(a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).userCookie()).isEqualTo(2);
        assertThat(b.mem.asSlice(500, 8).mismatch(a.mem.asSlice(0, 8))).isEqualTo(-1);
    }

    /**
     * The request {@code a} posted first was refused by the target (cookie 1, REMOTE_ACCESS) and
     * the one behind it (cookie 2) is flushed: a refused RDMA operation breaks the connection.
     */
    public static void assertRefusedThenFlushed(Side a) {
        DatEvent first = a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
        assertThat(first.userCookie()).isEqualTo(1);
        assertThat(first.status()).isEqualTo(DtoCompletionStatus.ERR_REMOTE_ACCESS);
        DatEvent second = a.expect(a.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
        assertThat(second.userCookie()).isEqualTo(2);
        assertThat(second.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    /**
     * The bytes of a 40-byte send gathered from {@code a}'s segments [0, 10), [100, 125),
     * [200, 205) arrived scattered over {@code b}'s receive segments [1000, 1012), [2000, 2012),
     * [3000, 3100), front segments first; nothing after the message is filled
     * (dat_ep_post_send(3DAT), dat_ep_post_recv(3DAT)).
     */
    public static void assertGatheredAndScattered(Side a, Side b) {
        byte[] sent = new byte[40];
        MemorySegment.copy(a.mem, ValueLayout.JAVA_BYTE, 0, sent, 0, 10);
        MemorySegment.copy(a.mem, ValueLayout.JAVA_BYTE, 100, sent, 10, 25);
        MemorySegment.copy(a.mem, ValueLayout.JAVA_BYTE, 200, sent, 35, 5);
        byte[] got = new byte[40];
        MemorySegment.copy(b.mem, ValueLayout.JAVA_BYTE, 1000, got, 0, 12);
        MemorySegment.copy(b.mem, ValueLayout.JAVA_BYTE, 2000, got, 12, 12);
        MemorySegment.copy(b.mem, ValueLayout.JAVA_BYTE, 3000, got, 24, 16);
        assertThat(got).isEqualTo(sent);
        assertThat(b.mem.get(ValueLayout.JAVA_BYTE, 3016)).as("segments after the message are not filled").isZero();
    }

    /**
     * {@code a} connects to qualifier 7 of {@code b} with private data {1, 2, 3}, {@code b}
     * accepts with {4, 5}: the request and both ESTABLISHED events carry what dat_ep_connect(3DAT),
     * dat_cr_query(3DAT) and dat_cr_accept(3DAT) say, and each Endpoint then names its peer.
     *
     * @return the request, accepted
     */
    public static dat.api.ConnectionRequest connectWithPrivateDataBothWays(Side a, Side b) {
        b.ia.createPublicServicePoint(7, b.crEvd, PspFlag.CONSUMER);
        a.ep.connect(b.address(), 7, WAIT, new byte[] {1, 2, 3}, Qos.BEST_EFFORT, 0);
        DatEvent e = b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
        assertThat(e.connQual()).isEqualTo(7);
        assertThat(e.localIaAddress()).isEqualTo(b.address());
        dat.api.ConnectionRequest request = e.connectionRequest();
        dat.api.CrParams cr = request.query();
        assertThat(cr.privateData()).containsExactly(1, 2, 3);
        assertThat(cr.remoteIaAddress()).as("the active IA's address").isEqualTo(a.address());
        assertThat(cr.localEp()).isNull();
        request.accept(b.ep, new byte[] {4, 5});
        assertThat(b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED).privateData()).isEmpty();
        assertThat(a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED).privateData()).containsExactly(4, 5);
        assertThat(b.ep.query().state()).isEqualTo(dat.api.EpState.CONNECTED);
        assertThat(b.ep.query().remoteIaAddress()).isEqualTo(a.address());
        assertThat(a.ep.query().remoteIaAddress()).isEqualTo(b.address());
        assertThat(a.ep.query().remotePortQual()).isEqualTo(7);
        return request;
    }

    /**
     * dat_ep_connect and dat_cr_accept check private data against their own IA's
     * max_private_data_size only: more than the peer's arrives. {@code small}'s IA allows 64 bytes,
     * {@code big}'s more than 200: big accepts small's request with 100 bytes, small accepts big's
     * with 64 after a request of 200; both connections establish with the data whole.
     */
    public static void privateDataBeyondThePeersMaximumArrives(Side small, Side big) {
        assertThat(small.ia.query().providerAttributes().maxPrivateDataSize()).isEqualTo(64);
        assertThat(big.ia.query().providerAttributes().maxPrivateDataSize()).isGreaterThanOrEqualTo(200);
        big.ia.createPublicServicePoint(41, big.crEvd, PspFlag.CONSUMER);
        small.ep.connect(big.address(), 41, WAIT, bytes(64, 1), Qos.BEST_EFFORT, 0);
        dat.api.ConnectionRequest r = big.expect(big.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest();
        assertThat(r.query().privateData()).isEqualTo(bytes(64, 1));
        r.accept(big.ep, bytes(100, 2));
        big.expect(big.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(small.expect(small.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED).privateData()).isEqualTo(bytes(100, 2));

        small.ia.createPublicServicePoint(42, small.crEvd, PspFlag.CONSUMER);
        Endpoint active = big.ia.createEndpoint(big.pz, big.recvEvd, big.reqEvd, big.connEvd, null);
        active.connect(small.address(), 42, WAIT, bytes(200, 3), Qos.BEST_EFFORT, 0);
        r = small.expect(small.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest();
        assertThat(r.query().privateData()).isEqualTo(bytes(200, 3));
        r.accept(small.ia.createEndpoint(small.pz, small.recvEvd, small.reqEvd, small.connEvd, null), bytes(64, 4));
        small.expect(small.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        DatEvent e = big.expect(big.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(e.endpoint()).isSameAs(active);
        assertThat(e.privateData()).isEqualTo(bytes(64, 4));
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    /** Two connected Endpoints on sim0 (active) and sim1 (passive). */
    public final class Pair {
        public final Side a;
        public final Side b;
        public final PublicServicePoint psp;

        public Pair() {
            this(null, 1 << 16);
        }

        public Pair(EpAttributes attrs, long bytes) {
            a = new Side("sim0", attrs, bytes);
            b = new Side("sim1", attrs, bytes);
            psp = b.ia.createPublicServicePoint(1000, b.crEvd, PspFlag.CONSUMER);
            a.ep.connect(b.address(), 1000, WAIT, new byte[] {1, 2, 3}, Qos.BEST_EFFORT, 0);
            DatEvent cr = b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            cr.connectionRequest().accept(b.ep, new byte[] {9});
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            DatEvent est = a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertThat(est.privateData()).containsExactly(9);
        }
    }
}
