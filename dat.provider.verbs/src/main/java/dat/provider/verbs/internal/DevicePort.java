package dat.provider.verbs.internal;

import java.net.InetAddress;

/**
 * One active port of an RDMA device that rdma_cm can reach: what an IA factory serves.
 *
 * @param deviceName the verbs device name, for example {@code rxe0}
 * @param port the port number, from 1
 * @param address the IP address of the port's netdev (what rdma_cm binds and resolves)
 * @param transport {@code "roce"}, {@code "ib"} or {@code "iwarp"}
 * @param windowType the memory windows RMRs use: 2 where the device has type 2 windows, else 1
 *     where it has type 1, else 0 (no RMRs)
 * @param atomics whether the device performs remote atomics ({@code atomic_cap} not
 *     {@code IBV_ATOMIC_NONE})
 */
record DevicePort(String deviceName, int port, InetAddress address, String transport, int windowType, boolean atomics) {

    /** The OFED-style IA name of this port: {@code ofa-v2-<device>-<port>}. */
    String iaName() {
        return "ofa-v2-" + deviceName + "-" + port;
    }

    /** The same port, reached through another of its addresses. */
    DevicePort at(InetAddress other) {
        return new DevicePort(deviceName, port, other, transport, windowType, atomics);
    }
}
