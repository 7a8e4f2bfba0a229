package dat.tests.conformance.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.ConnectFlags;
import dat.api.ConnectionRequest;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.Qos;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.internal.PrivateData;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.DisplayName;

/** dat_ep_connect(3DAT) and dat_ep_dup_connect(3DAT). */
class ConnectTest {

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_SUCCESS: the Endpoint is in DAT_EP_STATE_ACTIVE_CONNECTION_PENDING until the peer decides")
    void activePending(IaUnderTest t) {
        Connection c = t.connection().create();
        c.connectActive(c.psp.connQual());
        t.expectState(c.active.ep, EpState.ACTIVE_CONNECTION_PENDING, "an Endpoint whose connect the peer has not accepted");
        ConnectionRequest cr = t.event(c.crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the request").connectionRequest();
        t.expectState(c.active.ep, EpState.ACTIVE_CONNECTION_PENDING, "an Endpoint whose request is pending at the peer");
        c.accept(cr);
        t.expectState(c.active.ep, EpState.CONNECTED, "after DAT_CONNECTION_EVENT_ESTABLISHED");
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_SUCCESS: an Endpoint connects to a PSP of its own IA instance, at the IA's own address (loopback)")
    void loopback(IaUnderTest t) {
        Connection c = t.connection().loopback().connect();
        assertThat(c.active.ia).as(t.at("both Endpoints on one IA instance")).isSameAs(c.passive.ia);
        t.expectState(c.active.ep, EpState.CONNECTED, "the active Endpoint of a loopback connection");
        t.expectState(c.passive.ep, EpState.CONNECTED, "the passive Endpoint of a loopback connection");
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_SUCCESS: the full private data reaches the remote consumer's connection request")
    void privateData(IaUnderTest t) {
        byte[] data = new byte[t.provider().maxPrivateDataSize()];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7 + 3);
        }
        Connection c = t.connection().privateData(data).create();
        ConnectionRequest cr = c.request();
        PrivateData.check(t, cr.query().privateData(), data, "the private data of max_private_data_size bytes");
        c.accept(cr);
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_INVALID_STATE: the Endpoint is connected")
    void connected(IaUnderTest t) {
        Connection c = t.connect();
        t.expectError(DatReturn.INVALID_STATE, "dat_ep_connect of a connected Endpoint", () -> c.connectActive(c.psp.connQual()));
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_INVALID_STATE: the Endpoint's connect is already pending")
    void alreadyPending(IaUnderTest t) {
        Connection c = t.connection().create();
        c.connectActive(c.psp.connQual());
        t.expectError(DatReturn.INVALID_STATE, "a second dat_ep_connect of a pending Endpoint", () -> c.connectActive(c.psp.connQual()));
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_INVALID_STATE: the Endpoint is reserved by an RSP")
    void reserved(IaUnderTest t) {
        Connection c = t.connection().create();
        c.active.ia.createReservedServicePoint(t.unusedConnQual(c.active.ia), c.active.ep, t.evd(c.active.ia, EvdFlags.CR));
        t.expectError(DatReturn.INVALID_STATE, "dat_ep_connect of a reserved Endpoint", () -> c.connectActive(c.psp.connQual()));
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_INVALID_PARAMETER: more private data than max_private_data_size")
    void tooMuchPrivateData(IaUnderTest t) {
        Connection c = t.connection().privateData(new byte[t.provider().maxPrivateDataSize() + 1]).create();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_connect with too much private data", () -> c.connectActive(c.psp.connQual()));
        t.expectState(c.active.ep, EpState.UNCONNECTED, "the Endpoint after the refused connect");
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_INVALID_PARAMETER: a negative timeout (\"Values must be positive\")")
    void negativeTimeout(IaUnderTest t) {
        Connection c = t.connection().create();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_connect with timeout -1", () -> c.active.ep.connect(t.address(c.passive.ia),
                c.psp.connQual(), -1, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT));
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_INVALID_PARAMETER: undefined connect_flags bits")
    void badFlags(IaUnderTest t) {
        Connection c = t.connection().create();
        DatException e = t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_connect with connect_flags 0x10", () -> c.active.ep.connect(
                t.address(c.passive.ia), c.psp.connQual(), IaUnderTest.EVENT_TIMEOUT_MICROS, null, Qos.BEST_EFFORT, 0x10));
        t.check(DatReturn.subtypeOf(e.code()) == DatReturn.INVALID_ARG8, "dat_ep_connect with connect_flags 0x10: expected"
                + " DAT_INVALID_ARG8 (connect_flags), got " + DatReturn.describe(e.code()));
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_INVALID_PARAMETER: a timeout of 0 (\"Values must be positive\")")
    void zeroTimeout(IaUnderTest t) {
        Connection c = t.connection().create();
        DatException e = t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_connect with timeout 0", () -> c.active.ep.connect(
                t.address(c.passive.ia), c.psp.connQual(), 0, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT));
        t.check(DatReturn.subtypeOf(e.code()) == DatReturn.INVALID_ARG4, "dat_ep_connect with timeout 0: expected"
                + " DAT_INVALID_ARG4 (timeout), got " + DatReturn.describe(e.code()));
        t.expectState(c.active.ep, EpState.UNCONNECTED, "the Endpoint after the refused connect");
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_INVALID_ADDRESS: an address that cannot be converted to a transport address")
    void invalidAddress(IaUnderTest t) {
        // "can fail synchronously with a DAT_INVALID_ADDRESS return": a provider that finds out only
        // while connecting reports DAT_CONNECTION_EVENT_UNREACHABLE instead, and the Endpoint ends disconnected.
        Connection c = t.connection().create();
        InetSocketAddress unresolved = InetSocketAddress.createUnresolved("no-such-host.invalid", 4791);
        unreachable(t, c, unresolved);
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_CONNECTION_EVENT_UNREACHABLE: no IA at the remote address")
    void unreachableAddress(IaUnderTest t) {
        Connection c = t.connection().create();
        // TEST-NET-1 (RFC 5737): reserved for documentation, never a host.
        unreachable(t, c, new InetSocketAddress("192.0.2.1", 4791));
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_INVALID_ADDRESS: a connect that fails at once leaves the Endpoint as it was, its receive posted for the next connection; one that fails later flushes it")
    void failedConnectAndPostedReceive(IaUnderTest t) {
        Connection c = t.connection().create();
        t.expectSuccess(c.active.ep.postRecv(1, c.active.iov(0, 64), 7, CompletionFlags.DEFAULT), "dat_ep_post_recv before the connect");
        // a multicast group: no connection reaches it; found at once by a socket's connect, later by a connection manager
        InetSocketAddress group = new InetSocketAddress("224.0.0.1", 4791);
        if (failsAtOnce(t, c, group)) {
            t.noEvent(c.active.recvEvd, "a completion of the receive posted before the failed dat_ep_connect");
            c.establish();
            c.expectPostedReceiveTakes(c.active, 64, 7, "the receive posted before the failed dat_ep_connect");
            return;
        }
        DatEvent event = t.event(c.active.connectEvd, "the outcome of a connect to " + group);
        // a connection manager that resolves the address may not learn it is unreachable before the timeout
        t.check(event.eventNumber() == EventNumber.CONNECTION_EVENT_UNREACHABLE
                        || event.eventNumber() == EventNumber.CONNECTION_EVENT_TIMED_OUT, "dat_ep_connect to " + group
                + ": expected DAT_INVALID_ADDRESS, DAT_CONNECTION_EVENT_UNREACHABLE or DAT_CONNECTION_EVENT_TIMED_OUT, got " + event);
        DatEvent flushed = t.event(c.active.recvEvd, "the receive once the Endpoint is disconnected");
        assertThat(flushed.userCookie()).as(t.at("the flushed receive")).isEqualTo(7);
        assertThat(flushed.status()).as(t.at("its status")).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
    }

    /**
     * Connects to an address no connection reaches, with a 500 ms timeout: true when dat_ep_connect
     * refused it at once (DAT_INVALID_ADDRESS, the Endpoint still UNCONNECTED), false when it was
     * accepted and the outcome is an event.
     */
    private static boolean failsAtOnce(IaUnderTest t, Connection c, InetSocketAddress address) {
        try {
            c.active.ep.connect(address, 1, 500_000, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
            return false;
        } catch (DatException e) {
            t.check(e.type() == DatReturn.INVALID_ADDRESS, "dat_ep_connect to " + address + ": expected DAT_INVALID_ADDRESS"
                    + " or a connection event, got " + DatReturn.describe(e.code()));
            t.expectState(c.active.ep, EpState.UNCONNECTED, "after a synchronous DAT_INVALID_ADDRESS");
            return true;
        }
    }

    private static void unreachable(IaUnderTest t, Connection c, InetSocketAddress address) {
        if (failsAtOnce(t, c, address)) {
            return;
        }
        DatEvent event = t.event(c.active.connectEvd, "the outcome of a connect to " + address);
        t.check(event.eventNumber() == EventNumber.CONNECTION_EVENT_UNREACHABLE, "dat_ep_connect to " + address
                + ": expected DAT_INVALID_ADDRESS or DAT_CONNECTION_EVENT_UNREACHABLE, got " + event);
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "after DAT_CONNECTION_EVENT_UNREACHABLE");
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_INVALID_HANDLE: a freed Endpoint")
    void freedEp(IaUnderTest t) {
        Connection c = t.connection().create();
        c.active.ep.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_connect of a freed Endpoint", () -> c.connectActive(c.psp.connQual()));
    }

    @ConformanceTest
    @DisplayName("dat_ep_connect(3DAT) DAT_MODEL_NOT_SUPPORTED: a QoS the local provider does not support")
    void unsupportedQos(IaUnderTest t) {
        int qos = t.unsupportedQos();
        Connection c = t.connection().create();
        t.expectError(DatReturn.MODEL_NOT_SUPPORTED, "dat_ep_connect with QoS 0x" + Integer.toHexString(qos), () -> c.active.ep.connect(
                t.address(c.passive.ia), c.psp.connQual(), IaUnderTest.EVENT_TIMEOUT_MICROS, null, qos, ConnectFlags.DEFAULT));
    }

    @ConformanceTest
    @DisplayName("dat_ep_dup_connect(3DAT) DAT_SUCCESS: connects to the same remote Service Point as the connected Endpoint")
    void dupConnect(IaUnderTest t) {
        Connection c = t.connect();
        Endpoint second = t.ep(c.active.pz, c.active.recvEvd, c.active.requestEvd, c.active.connectEvd);
        second.dupConnect(c.active.ep, IaUnderTest.EVENT_TIMEOUT_MICROS, null, Qos.BEST_EFFORT);
        t.expectState(second, EpState.ACTIVE_CONNECTION_PENDING, "after dat_ep_dup_connect");
        DatEvent arrival = t.event(c.crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the duplicate's request at the same PSP");
        assertThat(arrival.servicePoint()).as(t.at("the PSP the duplicate connected to")).isSameAs(c.psp);
        Endpoint passive = t.ep(c.passive.ia, c.passive.pz, c.passive.recvEvd, c.passive.requestEvd, c.passive.connectEvd);
        arrival.connectionRequest().accept(passive, null);
        DatEvent established = t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED of the duplicate");
        assertThat(established.endpoint()).as(t.at("the Endpoint of the ESTABLISHED event")).isSameAs(second);
    }

    @ConformanceTest
    @DisplayName("dat_ep_dup_connect(3DAT) DAT_INVALID_STATE: the Endpoint to duplicate is not connected")
    void dupOfUnconnected(IaUnderTest t) {
        Endpoint unconnected = t.ep();
        Endpoint ep = t.ep();
        t.expectError(DatReturn.INVALID_STATE, "dat_ep_dup_connect of an unconnected Endpoint",
                () -> ep.dupConnect(unconnected, IaUnderTest.EVENT_TIMEOUT_MICROS, null, Qos.BEST_EFFORT));
    }

    @ConformanceTest
    @DisplayName("dat_ep_dup_connect(3DAT) DAT_INVALID_STATE: the Endpoint itself is already connected")
    void dupOnConnected(IaUnderTest t) {
        Connection c = t.connect();
        Connection other = t.connect();
        t.expectError(DatReturn.INVALID_STATE, "dat_ep_dup_connect of a connected Endpoint",
                () -> other.active.ep.dupConnect(c.active.ep, IaUnderTest.EVENT_TIMEOUT_MICROS, null, Qos.BEST_EFFORT));
    }

    @ConformanceTest
    @DisplayName("dat_ep_dup_connect(3DAT) DAT_INVALID_HANDLE: the Endpoint to duplicate was freed")
    void dupOfFreed(IaUnderTest t) {
        Connection c = t.connect();
        Endpoint ep = t.ep();
        c.active.ep.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_dup_connect of a freed Endpoint",
                () -> ep.dupConnect(c.active.ep, IaUnderTest.EVENT_TIMEOUT_MICROS, null, Qos.BEST_EFFORT));
    }

    @ConformanceTest
    @DisplayName("dat_ep_dup_connect(3DAT) DAT_INVALID_PARAMETER: more private data than max_private_data_size")
    void dupTooMuchData(IaUnderTest t) {
        Connection c = t.connect();
        Endpoint ep = t.ep();
        byte[] tooMuch = new byte[t.provider().maxPrivateDataSize() + 1];
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_dup_connect with too much private data",
                () -> ep.dupConnect(c.active.ep, IaUnderTest.EVENT_TIMEOUT_MICROS, tooMuch, Qos.BEST_EFFORT));
    }

    @ConformanceTest
    @DisplayName("dat_ep_dup_connect(3DAT) DAT_MODEL_NOT_SUPPORTED: a QoS the local provider does not support")
    void dupUnsupportedQos(IaUnderTest t) {
        int qos = t.unsupportedQos();
        Connection c = t.connect();
        Endpoint ep = t.ep();
        t.expectError(DatReturn.MODEL_NOT_SUPPORTED, "dat_ep_dup_connect with QoS 0x" + Integer.toHexString(qos),
                () -> ep.dupConnect(c.active.ep, IaUnderTest.EVENT_TIMEOUT_MICROS, null, qos));
    }
}
