package dat.provider.verbs.internal;

import java.net.InetAddress;

/**
 * One active port of an RDMA device that rdma_cm can reach: what an IA factory serves.
 *
 * @param deviceName the verbs device name, for example {@code rxe0}
 * @param port the port number, from 1
 * @param address the IP address of the port's netdev (what rdma_cm binds and resolves)
 * @param transport {@code "roce"}, {@code "ib"} or {@code "iwarp"}
 * @param memoryWindows whether the device supports type 1 memory windows
 */
record DevicePort(String deviceName, int port, InetAddress address, String transport, boolean memoryWindows) {

    /** The OFED-style IA name of this port: {@code ofa-v2-<device>-<port>}. */
    String iaName() {
        return "ofa-v2-" + deviceName + "-" + port;
    }
}
