package dat.provider.sim.internal.tcp;

import static dat.provider.sim.internal.tcp.TcpPair.transport;
import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.ThreadLimit;
import dat.provider.sim.internal.core.*;

import static dat.provider.sim.internal.Codes.ok;
import static dat.provider.sim.internal.Codes.throwsCode;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.ConnectionRequest;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.PspFlag;
import dat.api.Qos;
import dat.api.CloseFlag;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connection management over the TCP transport: two providers (two fabrics, so no in-JVM
 * shortcut exists between them), each with one IA listening on 127.0.0.1, port chosen by the OS.
 * The same outcomes as the in-JVM {@link ConnectionTest}.
 */
@Timeout(30)
class TcpConnectionTest {

    private static final String TCP = "tcp=127.0.0.1:0";

    private final Fabric fa = new Fabric(ProviderSettings.defaults().limits(), TCP);
    private final Fabric fb = new Fabric(ProviderSettings.defaults().limits(), TCP);
    private final Fabric.Side a = fa.new Side("tcpA", null, 4096);
    private final Fabric.Side b = fb.new Side("tcpB", null, 4096);

    @AfterEach
    void close() {
        Fabric.closeAll(fa, fb);
        // the I/O agents are platform threads named after their IA; all must be gone
        assertThat(Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName))
                .noneMatch(n -> n.startsWith("dat-sim-tcp-tcp"));
    }


    /**
     * dat_ia_open of a TCP IA starts its I/O agent's thread on the consumer's thread: it takes none
     * of its settings (here its context class loader and priority), which would otherwise stay
     * with the IA.
     */
    @Test
    void theThreadATcpIaStartsOnAConsumersThread_takesNoneOfItsSettings() throws InterruptedException {
        ClassLoader consumerLoader = new ClassLoader(null) {
        };
        java.util.concurrent.atomic.AtomicReference<Fabric.Side> opened = new java.util.concurrent.atomic.AtomicReference<>();
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), TCP)) {
            Thread consumer = Thread.ofPlatform().priority(Thread.MAX_PRIORITY)
                    .unstarted(() -> opened.set(f.new Side("tcpT", null, 4096)));
            consumer.setContextClassLoader(consumerLoader);
            consumer.start();
            consumer.join(10_000);
            assertThat(opened.get()).as("the IA opened").isNotNull();
            java.util.List<Thread> threads = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().endsWith("-tcpT")).toList();
            assertThat(threads).hasSize(1).allSatisfy(t -> {
                assertThat(t.getName()).isEqualTo("dat-sim-tcp-tcpT");
                assertThat(t.getContextClassLoader()).as(t.getName()).isSameAs(ProviderThreads.class.getClassLoader());
                assertThat(t.getPriority()).as(t.getName()).isEqualTo(Thread.NORM_PRIORITY);
                assertThat(t.isDaemon()).as(t.getName()).isTrue();
            });
        }
    }

    /** Connections one after the other start no thread: the IA's I/O agent serves them all. */
    @Test
    void connectionsOneAfterTheOther_startNoThread() {
        b.ia.createPublicServicePoint(9, b.crEvd, PspFlag.CONSUMER);
        establish(9); // the first connection loads what the path needs
        a.ep.disconnect(CloseFlag.ABRUPT);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
        for (int i = 0; i < 5; i++) {
            Endpoint x = a.ia.createEndpoint(a.pz, a.recvEvd, a.reqEvd, a.connEvd, null);
            x.connect(b.address(), 9, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
            Endpoint y = b.ia.createEndpoint(b.pz, b.recvEvd, b.reqEvd, b.connEvd, null);
            request().accept(y, null);
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            x.disconnect(CloseFlag.ABRUPT);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }
        assertThat(Thread.getAllStackTraces().keySet()).as("threads after five connections")
                .noneMatch(t -> !before.contains(t) && t.getName().startsWith("dat-sim"));
    }

    /**
     * An accept that fails, here because the process is out of file descriptors, does not end the
     * IA's listening, nor does a failure to log it: once descriptors are free again it accepts the
     * requests that waited, and connections establish.
     */
    @Test
    void anIaOutOfFileDescriptors_acceptsAgainOnceItCan() throws Throwable {
        java.nio.file.Path fds = java.nio.file.Path.of("/proc/self/fd");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isDirectory(fds), "needs Linux's /proc");
        b.ia.createPublicServicePoint(9, b.crEvd, PspFlag.CONSUMER);
        // one whole connection first: while descriptors are out, no class of these paths may
        // have to be loaded from a file
        establish(9);
        a.ep.disconnect(CloseFlag.ABRUPT);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        a.ep.reset();
        b.ep.reset();

        java.util.List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(TcpTransport.class.getName());
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                warnings.add(r.getMessage());
                // as JUL's own formatter failed when this was the JVM's first record (it read the
                // time zone data from a file): a failing log must not end the acceptor
                throw new Error("a log handler out of file descriptors");
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        // another process's connections, so that they wait in the backlog however few descriptors are left here
        Process clients = new ProcessBuilder("bash", "-c", "read go; for i in $(seq 16); do exec {fd}<>/dev/tcp/127.0.0.1/"
                + b.address().getPort() + " || exit 1; done; sleep 2").redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        log.addHandler(capture);
        java.util.List<java.nio.channels.FileChannel> fillers = new java.util.ArrayList<>();
        try (FileLimit limit = new FileLimit()) {
            int highest;
            try (java.util.stream.Stream<java.nio.file.Path> open = java.nio.file.Files.list(fds)) {
                highest = open.mapToInt(f -> Integer.parseInt(f.getFileName().toString())).max().orElseThrow();
            }
            limit.setSoft(highest + 1); // only the gaps below the highest descriptor are left
            // Take all gaps but two: after the tests before this one there may be enough of them to
            // accept all 16 connections, and then the acceptor never failed (this test flaked so).
            java.nio.file.Path devNull = java.nio.file.Path.of("/dev/null");
            try {
                while (fillers.size() <= highest) {
                    fillers.add(java.nio.channels.FileChannel.open(devNull));
                }
            } catch (java.io.IOException outOfDescriptors) {
                // every gap taken
            }
            assertThat(fillers).as("descriptors left below the limit").hasSizeLessThanOrEqualTo(highest);
            for (int spare = 0; spare < 2 && !fillers.isEmpty(); spare++) {
                fillers.removeLast().close();
            }
            clients.getOutputStream().write('\n');
            clients.getOutputStream().flush();
            for (long deadline = System.nanoTime() + 5_000_000_000L;
                    warnings.stream().noneMatch(m -> m.contains("cannot accept")) && System.nanoTime() < deadline;) {
                Thread.sleep(10);
            }
        } finally {
            for (java.nio.channels.FileChannel filler : fillers) {
                filler.close();
            }
            log.removeHandler(capture);
        }
        assertThat(clients.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        establish(9);
        assertThat(warnings).as("the acceptor met the failure, and said so").anyMatch(m -> m.contains("cannot accept"));
    }

    /**
     * dat_ep_connect over TCP needs no thread: where the process can start none, a connection
     * still establishes, on the I/O agents both IAs started as they opened.
     */
    @Test
    void aConnectWhereNoThreadCanStart_establishes() {
        b.ia.createPublicServicePoint(9, b.crEvd, PspFlag.CONSUMER);
        // a whole connection first, so that nothing these paths need is left to load or start
        establish(9);
        Fabric.Side c = fa.new Side("tcpC", null, 4096);
        try (ThreadLimit limit = ThreadLimit.open().orElse(null)) {
            org.junit.jupiter.api.Assumptions.assumeTrue(limit != null, "needs the cgroup v1 pids hierarchy, writable");
            c.ep.connect(b.address(), 9, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
            request().accept(b.ia.createEndpoint(b.pz, b.recvEvd, b.reqEvd, b.connEvd, null), null);
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            c.expect(c.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
        assertThat(c.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
    }

    /**
     * A connection request needs no thread on the passive side either: served where no thread can
     * start, and the IA serves the next.
     */
    @Test
    void aRequestWhereNoThreadCanStart_isServed_andTheIaServesTheNext() {
        b.ia.createPublicServicePoint(9, b.crEvd, PspFlag.CONSUMER);
        establish(9);
        a.ep.disconnect(CloseFlag.ABRUPT);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        a.ep.reset();
        Fabric.Side d = fb.new Side("tcpD", null, 4096);
        d.ia.createPublicServicePoint(9, d.crEvd, PspFlag.CONSUMER);
        try (ThreadLimit limit = ThreadLimit.open().orElse(null)) {
            org.junit.jupiter.api.Assumptions.assumeTrue(limit != null, "needs the cgroup v1 pids hierarchy, writable");
            a.ep.connect(d.address(), 9, dat.api.DatConstants.TIMEOUT_INFINITE, null, Qos.BEST_EFFORT, 0);
            d.expect(d.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(d.ep, null);
            d.expect(d.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
        a.ep.disconnect(CloseFlag.ABRUPT);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        d.expect(d.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        a.ep.reset();
        d.ep.reset();
        a.ep.connect(d.address(), 9, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        d.expect(d.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().accept(d.ep, null);
        d.expect(d.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    /**
     * A connect to a port where nothing listens ends with UNREACHABLE on the I/O agent, after
     * dat_ep_connect returned; the IA connects elsewhere at once after it.
     */
    @Test
    void aConnectRefusedAtOnce_endsTheAttemptWithItsEvent_andTheIaConnectsAgain() throws Exception {
        b.ia.createPublicServicePoint(9, b.crEvd, PspFlag.CONSUMER);
        int refused;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            refused = s.getLocalPort();
        }
        Endpoint lone = a.ia.createEndpoint(a.pz, a.recvEvd, a.reqEvd, a.connEvd, null);
        lone.connect(new InetSocketAddress("127.0.0.1", refused), 9, dat.api.DatConstants.TIMEOUT_INFINITE, null,
                Qos.BEST_EFFORT, 0);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_UNREACHABLE);
        assertThat(lone.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        establish(9);
    }

    /**
     * A dat_ia_open that races the provider's hot swap makes no adapter once the provider has
     * stopped: no TCP listener or I/O agent outlives the provider.
     */
    @Test
    void aStoppedProvider_opensNoTcpAdapter() {
        try (Fabric f = new Fabric(ProviderSettings.defaults().limits(), TCP)) {
            SimProvider p = f.factory.provider();
            assertThat(p.shutdown()).isTrue();
            Codes.throwsCode(() -> p.adapter("tcpLate", TCP), DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED);
            assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                    .noneMatch(n -> n.endsWith("-tcpLate"));
        }
    }

    /** A connect on an IA whose transport has closed meanwhile ends with an event, even without a timeout. */
    @Test
    void aConnectOnAClosedTransport_isUnreachable() {
        assertThat(transport(a).close()).isTrue();
        a.ep.connect(b.address(), 9, dat.api.DatConstants.TIMEOUT_INFINITE, null, Qos.BEST_EFFORT, 0);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_UNREACHABLE);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    /** getrlimit and setrlimit of RLIMIT_NOFILE through the C library: no descriptor needed, as a process would need one. */
    private static final class FileLimit implements AutoCloseable {
        private static final int RLIMIT_NOFILE = 7; // Linux
        private final java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined();
        private final java.lang.foreign.MemorySegment rlimit = arena.allocate(16, 8);
        private final java.lang.invoke.MethodHandle set;
        private final long soft;
        private final long hard;

        @SuppressWarnings("restricted") // getrlimit and setrlimit only; the tests run with native access enabled
        FileLimit() throws Throwable {
            java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
            java.lang.foreign.FunctionDescriptor call = java.lang.foreign.FunctionDescriptor.of(
                    java.lang.foreign.ValueLayout.JAVA_INT, java.lang.foreign.ValueLayout.JAVA_INT, java.lang.foreign.ValueLayout.ADDRESS);
            java.lang.invoke.MethodHandle get = linker.downcallHandle(linker.defaultLookup().find("getrlimit").orElseThrow(), call);
            set = linker.downcallHandle(linker.defaultLookup().find("setrlimit").orElseThrow(), call);
            assertThat((int) get.invokeExact(RLIMIT_NOFILE, rlimit)).isZero();
            soft = rlimit.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0);
            hard = rlimit.get(java.lang.foreign.ValueLayout.JAVA_LONG, 8);
            setSoft(soft); // linked and run once now, before descriptors run out
        }

        void setSoft(long limit) throws Throwable {
            rlimit.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, limit);
            rlimit.set(java.lang.foreign.ValueLayout.JAVA_LONG, 8, hard);
            if ((int) set.invokeExact(RLIMIT_NOFILE, rlimit) != 0) {
                throw new IllegalStateException("setrlimit failed");
            }
        }

        @Override
        public void close() {
            try {
                setSoft(soft);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            } finally {
                arena.close();
            }
        }
    }

    /** a's Endpoint connects to b's PSP on {@code qual}, b accepts into its Endpoint: established on both. */
    private void establish(long qual) {
        a.ep.connect(b.address(), qual, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        request().accept(b.ep, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    private ConnectionRequest request() {
        return b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest();
    }

    @Test
    void theIaAddressIsTheListeningSocketsAddress() throws Exception {
        InetSocketAddress addr = a.address();
        assertThat(addr.getAddress()).isEqualTo(InetAddress.getByName("127.0.0.1"));
        assertThat(addr.getPort()).isPositive();
        assertThat(b.address().getPort()).isNotEqualTo(addr.getPort());
        assertThat(a.ia.query().iaAttributes().iaAddress()).isEqualTo(addr);
    }

    @Test
    void connect_establishes_withPrivateDataBothWays_thenDisconnectReachesBothSides() {
        // over TCP too the request names the active IA's address, not the socket's ephemeral port
        Fabric.connectWithPrivateDataBothWays(a, b);

        a.ep.disconnect(CloseFlag.GRACEFUL);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    /**
     * An active IA bound to another IP than the one its route to the peer leaves from (127.0.0.2
     * to 127.0.0.1 on Linux's loopback) connects from its own IP: the passive side reports the
     * active IA's address, where it listens, in dat_cr_query and in its Endpoint's remote address.
     */
    @Test
    void theRemoteIaAddress_isTheActiveIasOwn_whenItIsBoundToAnIpOtherThanTheRoutesSource() {
        try (Fabric fc = new Fabric(ProviderSettings.defaults().limits(), "tcp=127.0.0.2:0")) {
            Fabric.Side c = fc.new Side("tcpC", null, 4096);
            assertThat(c.address().getAddress().getHostAddress()).isEqualTo("127.0.0.2");
            b.ia.createPublicServicePoint(31, b.crEvd, PspFlag.CONSUMER);
            c.ep.connect(b.address(), 31, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
            ConnectionRequest cr = request();
            assertThat(cr.query().remoteIaAddress()).isEqualTo(c.address());
            cr.accept(b.ep, null);
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            c.expect(c.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertThat(b.ep.query().remoteIaAddress()).isEqualTo(c.address());
        }
    }

    /**
     * A wildcard-bound IA reports 0.0.0.0 and its port, no address to connect to; its connections
     * leave from the IP the kernel picks, one it listens on: the passive side reports that IP
     * with the IA's port, and a connection to that address reaches the IA.
     */
    @Test
    void aWildcardBoundActiveIa_isReportedAtTheSourceIpItListensOn() {
        try (Fabric fc = new Fabric(ProviderSettings.defaults().limits(), "tcp=0.0.0.0:0")) {
            Fabric.Side c = fc.new Side("tcpC", null, 4096);
            assertThat(c.address().getAddress().isAnyLocalAddress()).isTrue();
            b.ia.createPublicServicePoint(32, b.crEvd, PspFlag.CONSUMER);
            c.ep.connect(b.address(), 32, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
            ConnectionRequest cr = request();
            InetSocketAddress reported = cr.query().remoteIaAddress();
            assertThat(reported).isEqualTo(new InetSocketAddress(b.address().getAddress(), c.address().getPort()));
            cr.reject();
            c.expect(c.connEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            // and back: B reaches C at the reported address
            c.ia.createPublicServicePoint(33, c.crEvd, PspFlag.CONSUMER);
            b.ep.connect(reported, 33, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
            c.expect(c.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest().reject();
            b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        }
    }

    @Test
    void thePassiveSideDisconnects_andPostedReceivesAreFlushedOnBoth() {
        b.ia.createPublicServicePoint(8, b.crEvd, PspFlag.CONSUMER);
        ok(a.ep.postRecv(0, null, 1, 0));
        ok(b.ep.postRecv(0, null, 2, 0));
        establish(8);
        b.ep.disconnect(CloseFlag.ABRUPT);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(b.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    @Test
    void connectionQualifiersAreMultiplexedOnOnePort() {
        Fabric.Side b2 = fb.new Side("tcpB", null, 4096);
        b.ia.createPublicServicePoint(21, b.crEvd, PspFlag.CONSUMER);
        b2.ia.createPublicServicePoint(22, b2.crEvd, PspFlag.CONSUMER);
        assertThat(b2.address()).isEqualTo(b.address());
        Fabric.Side a2 = fa.new Side("tcpA", null, 4096);
        a.ep.connect(b.address(), 21, Fabric.WAIT, new byte[] {21}, Qos.BEST_EFFORT, 0);
        a2.ep.connect(b.address(), 22, Fabric.WAIT, new byte[] {22}, Qos.BEST_EFFORT, 0);
        ConnectionRequest r1 = request();
        ConnectionRequest r2 = b2.expect(b2.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).connectionRequest();
        assertThat(r1.query().privateData()).containsExactly(21);
        assertThat(r2.query().privateData()).containsExactly(22);
        r1.accept(b.ep, null);
        r2.accept(b2.ep, null);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a2.expect(a2.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        // one connection ends, the other stays
        a.ep.disconnect(CloseFlag.ABRUPT);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        assertThat(a2.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
        // the passive side is connected once its ESTABLISHED (the active side's READY_TO_USE) arrived
        b2.expect(b2.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertThat(b2.ep.getStatus().state()).isEqualTo(EpState.CONNECTED);
    }

    @Test
    void reservedServicePoint_acceptWithNullUsesTheReservedEndpoint() {
        b.ia.createReservedServicePoint(17, b.ep, b.crEvd);
        a.ep.connect(b.address(), 17, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        DatEvent e = b.expect(b.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
        assertThat(e.servicePoint()).isNull();
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.PASSIVE_CONNECTION_PENDING);
        e.connectionRequest().accept(null, null);
        b.expect(b.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    @Test
    void providerPsp_createsTheEndpoint() {
        b.ia.createPublicServicePoint(18, b.crEvd, PspFlag.PROVIDER);
        a.ep.connect(b.address(), 18, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        ConnectionRequest r = request();
        assertThat(r.query().localEp()).isNotNull();
        r.accept(null, null);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    /**
     * dat_psp_create(3DAT): with the provider flag, "the Provider sets up Endpoint attributes to
     * match the Active side connection request". Over TCP the request carries the active
     * Endpoint's attributes, so the provider's Endpoint does not get its IA's defaults.
     */
    @Test
    void providerPsp_givesItsEndpointTheActiveEndpointsAttributes() {
        dat.api.EpAttributes wanted = dat.api.EpAttributes.builder().maxRecvDtos(7).maxRequestDtos(5)
                .maxMessageSize(8192).maxRdmaSize(16384).maxRecvIov(3).maxRequestIov(2).build();
        Endpoint x = a.ia.createEndpoint(a.pz, a.recvEvd, a.reqEvd, a.connEvd, wanted);
        b.ia.createPublicServicePoint(19, b.crEvd, PspFlag.PROVIDER);
        x.connect(b.address(), 19, Fabric.WAIT, new byte[] {4, 5}, Qos.BEST_EFFORT, 0);
        ConnectionRequest r = request();
        assertThat(r.query().privateData()).containsExactly(4, 5);
        dat.api.EpAttributes got = r.query().localEp().query().attributes();
        dat.api.EpAttributes active = x.query().attributes();
        assertThat(got.maxRecvDtos()).isEqualTo(active.maxRecvDtos()).isEqualTo(7);
        assertThat(got.maxRequestDtos()).isEqualTo(active.maxRequestDtos()).isEqualTo(5);
        assertThat(got.maxMessageSize()).isEqualTo(active.maxMessageSize()).isEqualTo(8192);
        assertThat(got.maxRdmaSize()).isEqualTo(active.maxRdmaSize()).isEqualTo(16384);
        assertThat(got.maxRecvIov()).isEqualTo(active.maxRecvIov());
        assertThat(got.maxRequestIov()).isEqualTo(active.maxRequestIov());
        r.accept(null, null);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    @Test
    void PEER_REJECTED_whenTheConsumerRejects() {
        b.ia.createPublicServicePoint(9, b.crEvd, PspFlag.CONSUMER);
        a.ep.connect(b.address(), 9, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        request().reject();
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    @Test
    void NON_PEER_REJECTED_whenNobodyListensOnTheQualifier() {
        a.ep.connect(b.address(), 4242, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    @Test
    void UNREACHABLE_whenNothingListensAtTheAddress() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        a.ep.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 1, Fabric.WAIT, null, 0, 0);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_UNREACHABLE);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    /**
     * dat_ep_connect(3DAT): a remote host that does not respond within the timeout is UNREACHABLE.
     * A listener that never accepts, its accept queue full: Linux drops further SYNs, so the
     * active side's TCP handshake is still pending when the 300 ms timeout expires (the SYN's
     * retransmissions are dropped too, however late the timeout runs). With the handshake done
     * and the passive consumer silent it is TIMED_OUT (the next test).
     */
    @Test
    void UNREACHABLE_whenTheTimeoutExpiresBeforeTheTcpHandshakeCompletes() throws Exception {
        java.util.List<java.net.Socket> fillers = new java.util.ArrayList<>();
        try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            // connections the queue takes complete at once on loopback; the first it does not take waits
            for (boolean queued = true; queued;) {
                assertThat(fillers).as("connections the listener's queue took").hasSizeLessThan(16);
                java.net.Socket s = new java.net.Socket();
                fillers.add(s);
                try {
                    s.connect(full.getLocalSocketAddress(), 2_000);
                } catch (java.net.SocketTimeoutException e) {
                    queued = false;
                }
            }
            a.ep.connect((InetSocketAddress) full.getLocalSocketAddress(), 1, 300_000, null, Qos.BEST_EFFORT, 0);
            a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_UNREACHABLE);
            assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        } finally {
            for (java.net.Socket s : fillers) {
                s.close();
            }
        }
    }

    @Test
    void TIMED_OUT_whenThePassiveSideNeverAnswers_thenTheAcceptFails() {
        b.ia.createPublicServicePoint(12, b.crEvd, PspFlag.CONSUMER);
        a.ep.connect(b.address(), 12, 50_000, null, Qos.BEST_EFFORT, 0);
        ConnectionRequest cr = request();
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_TIMED_OUT);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        ok(b.ep.postRecv(0, null, 1, 0));
        cr.accept(b.ep, null);
        // the passive IA learns of the timeout when the closed socket reaches it, before the accept
        // or after it: either way the accept fails, as in one JVM (the passive side is
        // established only by the READY_TO_USE that the timed-out active side never sends)
        DatEvent e = b.next(b.connEvd);
        assertThat(EventNumber.name(e.eventNumber()))
                .isEqualTo(EventNumber.name(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR));
        assertThat(b.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
        assertThat(b.expect(b.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    @Test
    void disconnectDuringActiveConnectionPendingAbortsIt() {
        b.ia.createPublicServicePoint(13, b.crEvd, PspFlag.CONSUMER);
        a.ep.connect(b.address(), 13, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        ConnectionRequest cr = request();
        a.ep.disconnect(CloseFlag.ABRUPT);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        cr.reject();
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }

    /**
     * Frames carry private data up to the protocol's ceiling, not up to the receiving IA's
     * max_private_data_size: as in one JVM ({@link ConnectionTest}), data beyond the peer's
     * maximum arrives, and no frame counts as a violation.
     */
    @Test
    void privateDataBeyondThePeersMaximum_arrivesAsInOneJvm() {
        try (Fabric fs = new Fabric(ProviderSettings.defaults().limits(), TCP + " max_private_data=64")) {
            Fabric.Side s = fs.new Side("tcpS", null, 4096);
            Fabric.privateDataBeyondThePeersMaximumArrives(s, b);
            assertThat(transport(s).violations.get()).isZero();
            assertThat(transport(b).violations.get()).isZero();
        }
    }

    @Test
    void aTcpIaRejectsAnAddrParameter_andABadBindAddress() {
        refusedAtOpen("tcpX", "tcp=127.0.0.1:0 addr=127.77.9.9");
        refusedAtOpen("tcpY", "tcp=example.org:0");
    }

    /** A frame's payload moves through one ByteBuffer view: a TCP IA's sizes stop at 2 GiB - 1. */
    @Test
    void aTcpIaRefusesSizesBeyondOneFrame() {
        refusedAtOpen("tcpZ", "tcp=127.0.0.1:0 max_rdma_size=2147483648");
        refusedAtOpen("tcpW", "tcp=127.0.0.1:0 max_message_size=4294967296");
        try (var ia = fa.factory.openIa(new dat.api.spi.IaOpenRequest("tcpV", 64, null, "tcp=127.0.0.1:0 max_rdma_size=2147483647"))) {
            assertThat(ia.query().iaAttributes().maxRdmaSize()).isEqualTo(Integer.MAX_VALUE);
        }
    }

    /** {@code tcp_spin_us}: 0 to 10 000, and only on a TCP IA. */
    @Test
    void aTcpIaRefusesASpinOutOfRange_andAnIaWithoutTcpRefusesAny() {
        refusedAtOpen("spinHigh", "tcp=127.0.0.1:0 tcp_spin_us=10001");
        refusedAtOpen("spinNegative", "tcp=127.0.0.1:0 tcp_spin_us=-1");
        refusedAtOpen("spinText", "tcp=127.0.0.1:0 tcp_spin_us=fast");
        refusedAtOpen("spinInJvm", "tcp_spin_us=50");
        for (String spin : new String[] {"0", "10000"}) {
            try (var ia = fa.factory.openIa(new dat.api.spi.IaOpenRequest("spin" + spin, 64, null, "tcp=127.0.0.1:0 tcp_spin_us=" + spin))) {
                assertThat(ia.query().iaAttributes()).isNotNull();
            }
        }
    }

    private void refusedAtOpen(String name, String iaParams) {
        throwsCode(() -> fa.factory.openIa(new dat.api.spi.IaOpenRequest(name, 64, null, iaParams)),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
    }

    @Test
    void theHotSwapEndsConnectionsAndThreads() {
        b.ia.createPublicServicePoint(14, b.crEvd, PspFlag.CONSUMER);
        ok(a.ep.postRecv(0, null, 1, 0));
        a.ep.connect(b.address(), 14, Fabric.WAIT, null, Qos.BEST_EFFORT, 0);
        request().accept(b.ep, null);
        a.expect(a.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        // provider B goes away: A's connection ends (its peer's socket closed)
        assertThat(fb.factory.shutdown()).isTrue();
        DatEvent e = a.next(a.connEvd);
        assertThat(EventNumber.name(e.eventNumber())).isIn(EventNumber.name(EventNumber.CONNECTION_EVENT_BROKEN),
                EventNumber.name(EventNumber.CONNECTION_EVENT_DISCONNECTED));
        assertThat(a.expect(a.recvEvd, EventNumber.DTO_COMPLETION_EVENT).status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
        assertThat(a.ep.getStatus().state()).isEqualTo(EpState.DISCONNECTED);
    }
}
