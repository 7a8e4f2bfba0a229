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
 * @param rdmaRead whether its queue pairs take and issue RDMA reads ({@code max_qp_rd_atom} and
 *     {@code max_qp_init_rd_atom} above 0)
 * @param srq whether it has shared receive queues ({@code max_srq} above 0)
 */
record DevicePort(String deviceName, int port, InetAddress address, String transport, int windowType, boolean atomics,
        boolean rdmaRead, boolean srq) {

    /** The OFED-style IA name of this port: {@code ofa-v2-<device>-<port>}. */
    String iaName() {
        return "ofa-v2-" + deviceName + "-" + port;
    }

    /** The same port, reached through another of its addresses. */
    DevicePort at(InetAddress other) {
        return new DevicePort(deviceName, port, other, transport, windowType, atomics, rdmaRead, srq);
    }
}
