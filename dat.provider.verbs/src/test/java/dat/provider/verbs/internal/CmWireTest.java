package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.provider.verbs.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What goes on the wire as OFED uDAPL's cma provider puts it, without a device: the qualifier
 * to port mapping, the private-data areas rdma_cm reports and the reject header, read from
 * {@code rdma_cm_event}s built in memory; and the ports static registry parameters name.
 */
class CmWireTest {

    @Test
    void qualifiersAboveThePortSpaceMapAsOfedMapsThem() {
        assertThat(ConnQual.port(1)).isEqualTo(1);
        assertThat(ConnQual.port(65535)).isEqualTo(65535);
        // OFED: (unsigned short)((SID % 32001) + 33534) for SID > 0xffff
        assertThat(ConnQual.port(65536)).isEqualTo(65536 % 32001 + 33534);
        assertThat(ConnQual.port(110839)).isEqualTo(48370);
        assertThat(ConnQual.port(-1L)).as("2^64 - 1, unsigned").isEqualTo((int) Long.remainderUnsigned(-1L, 32001) + 33534);
        assertThatThrownBy(() -> ConnQual.check(0, DatReturn.INVALID_ARG2, "connQual")).isInstanceOf(DatException.class)
                .satisfies(e -> assertThat(((DatException) e).code()).isEqualTo(DatReturn.error(DatReturn.INVALID_PARAMETER,
                        DatReturn.INVALID_ARG2)));
    }

    private static MemorySegment event(Arena arena, int type, int status, byte[] area) {
        MemorySegment event = arena.allocate(Structs.RDMA_CM_EVENT);
        event.set(JAVA_INT, Structs.CM_EVENT_EVENT, type);
        event.set(JAVA_INT, Structs.CM_EVENT_STATUS, status);
        if (area != null) {
            MemorySegment data = arena.allocate(area.length);
            MemorySegment.copy(area, 0, data, JAVA_BYTE, 0, area.length);
            event.set(ADDRESS, Structs.CM_EVENT_PRIVATE_DATA, data);
            event.set(JAVA_BYTE, Structs.CM_EVENT_PRIVATE_DATA_LEN, (byte) area.length);
        }
        return event;
    }

    @Test
    void requestsAndRepliesHandTheWholeAreaOver() {
        byte[] area = new byte[56];
        area[0] = 'h';
        area[1] = 'i';
        try (Arena arena = Arena.ofConfined()) {
            assertThat(CmEvents.privateData(event(arena, CmEvents.CONNECT_REQUEST, 0, area), CmEvents.CONNECT_REQUEST))
                    .as("no length byte: the peer's first byte is data").isEqualTo(area);
            byte[] reply = new byte[196];
            reply[0] = 7;
            assertThat(CmEvents.privateData(event(arena, CmEvents.CONNECT_RESPONSE, 0, reply), CmEvents.CONNECT_RESPONSE))
                    .isEqualTo(reply);
            assertThat(CmEvents.privateData(event(arena, CmEvents.ESTABLISHED, 0, reply), CmEvents.ESTABLISHED)).isEmpty();
        }
    }

    @Test
    void aConsumerRejectCarriesOfedsVersionHeaderWhichTheReceiverStrips() {
        byte[] area = new byte[148];
        // htonl((2 << 24) | (0 << 16) | (2 << 8) | 0): what OFED's dapls_ib_reject_connection writes
        area[0] = 2;
        area[2] = 2;
        area[4] = 'n';
        area[5] = 'o';
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment consumer = event(arena, CmEvents.REJECTED, CmEvents.REJECT_CONSUMER, area);
            assertThat(CmEvents.isConsumerReject(consumer)).isTrue();
            assertThat(CmEvents.privateData(consumer, CmEvents.REJECTED)).isEqualTo(Arrays.copyOfRange(area, 4, 148));
            MemorySegment byProvider = event(arena, CmEvents.REJECTED, CmEvents.REJECT_CONSUMER, new byte[148]);
            assertThat(CmEvents.isConsumerReject(byProvider)).as("no header: a provider's or CM's reject").isFalse();
            assertThat(CmEvents.privateData(byProvider, CmEvents.REJECTED)).isEmpty();
            MemorySegment noListener = event(arena, CmEvents.REJECTED, 8, area);
            assertThat(CmEvents.isConsumerReject(noListener)).as("IB_CM_REJ_INVALID_SERVICE_ID").isFalse();
        }
        assertThat(CmEvents.REJECT_HEADER).as("DAT 1.2, provider 1.0").isEqualTo(0x01020100);
    }

    @Test
    void staticRegistryParametersNameADeviceAndPortOrAnAddress() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        DevicePort one = new DevicePort("mlx5_0", 1, loopback, "ib", 2, true, true, true);
        DevicePort two = new DevicePort("mlx5_0", 2, InetAddress.getByName("192.0.2.7"), "ib", 2, true, true, true);
        PortDirectory directory = new PortDirectory(null, List.of(one, two));
        assertThat(directory.resolve("mlx5_0 2")).isEqualTo(two);
        assertThat(directory.resolve("mlx5_0 0")).as("port 0: the first usable port").isEqualTo(one);
        assertThat(directory.resolve(" " + loopback.getHostAddress() + " 0 ")).isEqualTo(one);
        assertThat(directory.byIaName("ofa-v2-mlx5_0-2")).isEqualTo(two);
        assertThatThrownBy(() -> directory.resolve("mlx5_0 x")).isInstanceOf(DatException.class).hasMessageContaining("port number");
        assertThatThrownBy(() -> directory.resolve("")).isInstanceOf(DatException.class)
                .satisfies(e -> assertThat(((DatException) e).type()).isEqualTo(DatReturn.PROVIDER_NOT_FOUND));
        assertThatThrownBy(() -> directory.resolve("no-such-netdev-or-host.invalid 0")).isInstanceOf(DatException.class)
                .hasMessageContaining("no usable RDMA device");
    }
}
